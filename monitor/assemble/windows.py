"""Assemble stage, part 3: conversation windows. Pure state; no clock is read — time is passed in.

In: normalized spans, each with its arrival time, and the processing time (`now`, ns) to close by.
Out: closed conversations, each with why it closed. Windows are measured on arrival (processing)
time, as the Collector's groupbytrace processor does: event time only orders spans inside a
conversation (agents' clocks drift, recorded traffic is old), so no timestamp can close anything.
A span whose start or end is more than `max_future_s` after its arrival (or `max_past_s` before it,
when set) is clamped to that bound and counted (`spans_clamped`). A conversation closes
- on an end marker (the configured attribute or span name);
- when `now` is `inactivity_s` past the arrival of its last span — but spans waiting under
  `trace:<id>` whose root span (no parent) has not arrived wait for it up to `trace_root_wait_s` from
  their first span: a trace's root ends last and usually names the conversation, so closing them
  sooner reports a fragment of a conversation still in flight (a long turn; a Collector exporting
  each trace's spans as they end). A trace whose local root has a parent in another service never
  shows a root here: it waits the whole `trace_root_wait_s`;
- when it has been open `max_age_s` (from the arrival of its first span);
- when evicted: `max_open` conversations are open and a new one arrives (the least recently active
  is closed and reported — never silently dropped; `evictions` counts them);
- on `flush` (end of input, shutdown).
Spans beyond `max_spans` in one conversation are dropped and counted (`spans_dropped` in its report).

Spans without a conversation id belong to their trace's conversation: they wait under `trace:<id>`
and join the conversation as soon as any span of the same trace names it (instrumentations often put
`session.id` only on the application's root span, which is exported after its children). A trace
never named joins the conversation whose history its model calls continue (history.py: a framework
that starts a trace per user turn resends the conversation so far with every model call); otherwise
it becomes its own conversation. `on_join` is told of every span that joins either way.

Copies of a call: a provider SDK that traces every model call itself, metadata only, beside an
instrumentation that records the same call whole, writes each call twice, and with no conversation id
its spans are traces of their own (the Anthropic SDK's). A trace of only such copies (`call_copy`: a
model call's response id and nothing else, the trace's root) joins the unnamed trace that holds the call
whole, by the response id both carry and at about the same time, whichever comes first, while that
call's conversation is open (`join_copies`: in Kafka, only a copy sent to its call's partition,
runtime/kafka.py). One whose call never comes, or came to a conversation already reported, stays its
own conversation; so do copies of a response id two calls carried at once.

Versions: a conversation's first report is version 1, or one more than the highest version noted for
it (`note_version`: an earlier Kafka owner's report), so versions stay monotonic across owners.

End markers: with `end_marker_grace_s` 0 (replay) a marked conversation closes at `close_marked`, once
the marker's request is in; otherwise (run, consume) once it has seen no span for that grace (on the
watermark the pipeline passes, which lags arrival by `server.lateness_s`: 2 + 5 s by default), so spans
of the same conversation exported in another batch, or written by a Collector as another Kafka message
and read from another partition, still join it.

Late spans: a span for a conversation already reported (kept for `late_retention` closed
conversations) reopens it; its next report carries `version + 1` and every span so far, so the
newest version is the whole truth and consumers keep the highest version per conversation. A trace
reported alone (`trace:<id>`) because the history it continues had not come joins that history's
conversation when it comes (while its report is kept); the id it was reported under then closes with a
last version that holds no spans (`closed_by` `merged`, `Closed.merged_into`: where they went).
Invariant: every span added is either in exactly one reported conversation (its latest version, an id
merged into another not counted) or counted as dropped.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from monitor.assemble.history import NO_HISTORY, HistoryIndex, HistoryKeys, history_keys
from monitor.config import WindowConfig
from monitor.model import AgentSpan, within

_K = TypeVar("_K", str, bytes)
_V = TypeVar("_V")


@dataclass
class OpenConversation:
    conversation_id: str
    spans: list[AgentSpan] = field(default_factory=list)
    first_ns: int = 0  # arrival of the first span (processing time)
    last_ns: int = 0  # arrival of the latest span
    version: int = 1
    spans_dropped: int = 0
    ended: bool = False
    span_ids: set[str] = field(default_factory=set)
    # a span without a parent arrived (a trace's root ends, and is exported, last); under `trace:<id>`,
    # the root of that trace (not of a later trace that joined it)
    has_root: bool = False
    marked: bool = False  # an end marker arrived: it closes after `end_marker_grace_s` without spans
    # spans left it after version `replaces` was reported: its next report replaces that one and those
    # before it, though they hold more spans (`_rematch`); 0: none did
    replaces: int = 0

    @property
    def waiting_for_root(self) -> bool:
        """Spans of a trace nobody has named yet, whose root has not arrived: the trace is not over."""
        return self.conversation_id.startswith("trace:") and not self.has_root


@dataclass(frozen=True)
class Closed:
    conversation: OpenConversation
    closed_by: str
    # `merged`: the conversation reported as `conversation`'s id joined this one; this closes that id
    merged_into: str | None = None


class WindowStore:
    def __init__(self, config: WindowConfig) -> None:
        self.config = config
        self.open: OrderedDict[str, OpenConversation] = OrderedDict()
        self.closed: OrderedDict[str, OpenConversation] = OrderedDict()
        self.trace_owner: OrderedDict[str, str] = OrderedDict()  # trace id -> conversation id (bounded)
        # model calls' history digests (history.py): a trace with no conversation id joins the one it continues
        self.histories = HistoryIndex(10 * config.max_open)
        # traces that continue an earlier trace's history (their digests), joined once their root is in
        # (`_settle`)
        self.undecided: dict[str, HistoryKeys] = {}
        self._unsettled: set[str] = set()  # undecided traces to look at again (something changed)
        self._awaited: dict[bytes, set[str]] = {}  # a history digest -> undecided traces continuing it
        self._root_waits: list[tuple[int, str]] = []  # (when to stop waiting for its root, trace)
        # a trace joined by history -> (its digests, the trace it continued); and the other way round
        self._continued: OrderedDict[str, tuple[HistoryKeys, str]] = OrderedDict()
        self._continued_by: dict[str, str] = {}
        self.joined_by_history = 0
        self.merged = 0  # traces reported alone, then joined the conversation whose history came later
        # ids reported alone whose merge a report already said (here, or an earlier owner's version note):
        # the id -> where its spans went; a merge made again (a new owner re-reading) is not counted again
        self.retired: OrderedDict[str, str] = OrderedDict()
        # traces reported alone, still joinable (`_close`) -> (when they began, event time; the history
        # they continue); and per history those waiting for it, by when they began (`_asleep`)
        self._alone_since: dict[str, tuple[int, bytes]] = {}
        self._asleep: dict[bytes, list[tuple[int, str]]] = {}
        self.moved_to_twin = 0  # joined traces moved to a twin's first turn (`_rematch`)
        # which unnamed traces may be joined by history: all, except where a trace's spans may be held by
        # another process (Kafka: only those routed to one partition by their opening, runtime/kafka.py)
        self.join_by_history: Callable[[str], bool] = _always
        # Kafka: a trace joins only once the watermark has passed its arrival, as its conversation's other
        # traces, routed from other partitions, come in any order (`_settle` joins in event-time order)
        self.join_after_watermark = False
        #: whether a conversation reported alone (`trace:<id>`) may still be joined by the history it
        #: continues, beyond being kept (`late_retention`): in Kafka, only while its offsets are held
        self.keeps_alone: Callable[[str], bool] = _always
        #: which unnamed traces of a call's copies may join the trace holding that call (the module's
        #: docstring): all, except in Kafka, where only those read on their call's partition may
        self.join_copies: Callable[[str], bool] = _always
        # a model call's response id -> the trace holding the call whole; and -> an unnamed trace of only
        # its copies, waiting for that call (both bounded)
        self._calls: OrderedDict[str, tuple[str, int, int]] = OrderedDict()  # (trace id, start, end)
        self._copies: OrderedDict[str, tuple[str, int, int]] = OrderedDict()
        self.copies_joined = 0
        # model calls recorded whole, by their history digests (`state` and `system`): -> [(the span's `when`,
        # whether it is a lone recording: unnamed, its trace's root)] (`_second_recordings`); named spans'
        # kept once a lone one has come (`_mixed`): a whole-named stream pays nothing
        self._recordings: OrderedDict[bytes, list[tuple[tuple[str, int, int], bool]]] = OrderedDict()
        self._mixed = False
        self.second_recordings_joined = 0
        # the agents whose calls were recorded twice (their digests' `system`: system messages, agent, release,
        # reference): only their lone calls wait for another recording (`_settle`); bounded
        self._recorded_twice: OrderedDict[bytes, None] = OrderedDict()
        # lone calls joined by history (a second recording's call may come later, and then follows it:
        # `_second_recordings`); bounded
        self._lone_by_history: OrderedDict[str, None] = OrderedDict()
        self.evictions = 0
        self.duplicates = 0
        self.late_reopened = 0
        # (earliest possible close, seq, id, the conversation object): one entry per open conversation,
        # so a watermark costs O(what closes · log n), not a scan of every open conversation
        self._due: list[tuple[int, int, str, OpenConversation]] = []
        self._seq = itertools.count()
        self.marked: dict[str, None] = {}  # ended by a marker in the request being added (in order)
        self.spans_dropped = 0
        self.spans_clamped = 0
        # the highest version reported anywhere (this or an earlier owner) per conversation, bounded
        self.versions: OrderedDict[str, int] = OrderedDict()
        # told when spans of a trace join the conversation that named it (Kafka copies them to that
        # conversation's partition, so the partition alone rebuilds it)
        self.on_join: Callable[[str, list[AgentSpan]], None] | None = None

    def add(self, span: AgentSpan, now_ns: int) -> list[Closed]:
        """Add one span that arrived at `now_ns`; returns conversations that must close now (eviction).
        An end marker closes its conversation at `close_marked`, after the rest of the request."""
        span = self._clamp(span, now_ns)
        trace_id = span.span.trace_id
        trace_key = f"trace:{trace_id}"
        # a span that names its conversation is never joined by history, and traces of one framework are
        # named alike: only unnamed spans' histories are kept (a whole-named stream pays nothing)
        keys = (
            NO_HISTORY if span.conversation_id or not self.join_by_history(trace_id) else history_keys(span)
        )
        unnamed = not span.conversation_id and trace_id not in self.trace_owner
        # a copy of a call that is its trace's root (a trace of its own), not yet reported alone
        copy = (
            unnamed
            and span.call_copy
            and not span.span.parent_span_id
            and trace_key not in self.closed
            and self.join_copies(trace_id)
        )
        call = self._calls.get(span.response_id or "") if copy else None
        if call is not None and span.same_call(call) and self._follows(trace_key, call[0]):
            self._own_trace(trace_id, f"trace:{call[0]}")  # a copy of a call already here: follows its trace
            self.copies_joined += 1
            unnamed = False
        # a model call recorded whole twice at once, by two instrumentations whose spans do not nest: the lone
        # recording's trace joins the other's conversation, or the other the one the lone one was joined to
        # by history (`_second_recordings`)
        recorded = not span.conversation_id or self._mixed
        join_to, lone_ones = self._second_recordings(span, keys) if recorded else (None, [])
        second = join_to is not None and span.lone_call  # what this span saw is another's history
        # a lone recording joins its call's conversation, or a call follows its lone one
        if join_to is not None:
            self._own_trace(trace_id, join_to)
            self.second_recordings_joined += second
            unnamed = False
        if unnamed and keys.continues is not None and trace_id not in self.undecided:
            # it continues a history: joined by `_settle`
            self.undecided[trace_id] = keys
            self._unsettled.add(trace_id)
            wait = now_ns + int(self.config.trace_root_wait_s * 1e9)  # a root elsewhere never comes
            heapq.heappush(self._root_waits, (wait, trace_id))
            if span.lone_call and not self.join_after_watermark:  # and again once a second recording would
                # have met its call, if its agent's calls are, or come to be, seen recorded twice (`_settle`)
                heapq.heappush(self._root_waits, (now_ns + int(self._second_wait() * 1e9), trace_id))
        cid = span.conversation_id or (self._owner(trace_id) if trace_id in self.trace_owner else trace_key)
        if self.join_after_watermark and cid[:6] == "trace:" and cid[6:] in self.undecided:
            heapq.heappush(self._root_waits, (now_ns, cid[6:]))  # again once the watermark passes this span
        out: list[Closed] = []
        if span.conversation_id:
            self._own_trace(trace_id, cid)

        conv = self.open.get(cid)
        if conv is None:
            reported = self.closed.get(cid)
            if (
                reported is not None and span.span.span_id in reported.span_ids
            ):  # re-delivered, already reported
                self.duplicates += 1
                return out
            conv, evicted = self._open(cid, now_ns)
            out += evicted
        self.open.move_to_end(cid)
        if span.span.span_id in conv.span_ids:  # a re-delivered span (at-least-once sources): already here
            self.duplicates += 1
            return out
        conv.span_ids.add(span.span.span_id)
        if not span.span.parent_span_id and trace_id in self.undecided:
            self._unsettled.add(trace_id)  # its root is in: it may be joined now
        if not span.span.parent_span_id and not conv.has_root and (cid == trace_key or cid[:6] != "trace:"):
            waited = conv.waiting_for_root
            conv.has_root = True
            if waited:  # its idle close is due sooner now: a new heap entry (the old one goes stale)
                heapq.heappush(self._due, (self._deadline(conv), next(self._seq), cid, conv))
        if len(conv.spans) >= self.config.max_spans:
            conv.spans_dropped += 1
            self.spans_dropped += 1
        else:
            conv.spans.append(span)
            if not span.conversation_id and cid != trace_key and self.on_join is not None:
                self.on_join(cid, [span])  # unnamed, joined the conversation its trace named earlier
        if cid != trace_key and trace_key in self.open:  # spans that arrived before their trace was named
            self._absorb(conv, trace_key)
        for lone in lone_ones:  # lone recordings of this call join its conversation
            if lone != cid and lone in self.open and self._calls_only(lone):
                self._forget_histories(self.open[lone])
                self._own_trace(lone[6:], cid)
                self._absorb(conv, lone)
                self.second_recordings_joined += 1
        # copies follow unnamed calls: a named stream with no copies waiting keeps no table
        if span.response_id is not None and (unnamed or self._copies):
            if copy:
                if cid == trace_key:  # a copy whose call has not come
                    remember(self._copies, span.response_id, span.when, 10 * self.config.max_open)
            elif not span.call_copy:  # a call whole
                if unnamed:
                    self._note_call(span)
                waiting = self._copies.get(span.response_id)
                if waiting is not None and span.same_call(waiting):  # a trace of its copies waits: joins here
                    del self._copies[span.response_id]
                    self._take_copies(waiting[0], trace_id)
        if not second:  # a second recording shows no history of its own to continue
            self.histories.saw(keys, trace_id, span.span.end_ns)
        for answered in (keys.state, keys.asked, keys.loose, keys.unanswered):
            if answered is not None and answered in self._awaited:  # a history someone waits for
                self._unsettled |= self._awaited.pop(answered)
            if answered is not None and (sleepers := self._asleep.get(answered)):
                # traces reported alone that began after this answer may continue it; those that began
                # before cannot, and sleep on (a greeting answered all day must not wake every one of them)
                woken = bisect_left(sleepers, (span.span.end_ns, ""))
                self._unsettled.update(t for _, t in sleepers[woken:])
                if self.join_after_watermark:  # and again once the watermark passes this answer
                    for _, t in sleepers[woken:]:
                        heapq.heappush(self._root_waits, (now_ns, t))
                del sleepers[woken:]
        conv.last_ns = max(conv.last_ns, now_ns)
        if span.end_marker:
            if self.config.end_marker_grace_s <= 0:
                self.marked[cid] = None
            elif not conv.marked:  # due sooner now: a new heap entry (the old one goes stale)
                conv.marked = True
                heapq.heappush(self._due, (self._deadline(conv), next(self._seq), cid, conv))
        return out

    def close_marked(self, hold: Callable[[str], bool] | None = None) -> list[Closed]:
        """Close the conversations an end marker ended. Called once the whole request is added: spans
        of one request arrive in any order, and the marker's own request still belongs to it. Those
        `hold` names (a Kafka owner still re-reading their partition) stay marked for a later call."""
        out: list[Closed] = self._settle()
        kept: dict[str, None] = {}
        for cid in self.marked:
            if cid not in self.open:
                continue
            if (hold is not None and hold(cid)) or self._fragment(self.open[cid]):
                kept[cid] = None
            else:
                out.append(self._close(self.open.pop(cid), "end_marker"))
        self.marked = kept
        return out

    def note_version(self, conversation_id: str, version: int, merged_into: str | None = None) -> None:
        """`version` of this conversation was reported (here or by an earlier owner): its next report
        gets a higher one, so versions stay monotonic across owners. `merged_into`: that report retired the
        id, its spans merged into that conversation (a merge made again is not counted again)."""
        if merged_into:
            remember(self.retired, conversation_id, merged_into, 10 * self.config.max_open)
        known = max(self.versions.get(conversation_id, 0), version)
        remember(self.versions, conversation_id, known, 10 * self.config.max_open)
        conv = self.open.get(conversation_id)
        if conv is not None and conv.version <= known:  # rebuilt after another owner reported it
            conv.version = known + 1
        reported = self.closed.get(conversation_id)
        if reported is not None and reported.version < known:
            reported.version = known

    def _settle(self, final: bool = False, now_ns: int | None = None) -> list[Closed]:
        """Join the traces that continue an earlier trace's history, once their root span is in, or
        `trace_root_wait_s` has passed (a root in another service never comes), or at `final`: a trace's
        root often names its conversation and ends, so is exported, last — a trace named so is not joined
        by history. Only traces where something changed are looked at (their root came, the history
        they continue came, their wait ran out). Among several earlier traces that showed the same
        history (conversations that opened with the very same exchange): those whose conversation is
        still open first, then the one that names the same reference, agent and release as the trace's
        own spans, else the earliest; their first turns read the same, so the conversation's turns do
        too. A conversation already reported is reopened (`version + 1`), as a late span reopens it.
        Returns what reopening evicted."""
        if now_ns is not None:
            while self._root_waits and self._root_waits[0][0] <= now_ns:
                _, trace_id = heapq.heappop(self._root_waits)
                if trace_id in self.undecided:
                    self._unsettled.add(trace_id)
        out: list[Closed] = []
        # in the order they became undecided (a set's order would make ties differ from run to run); in
        # Kafka, where they come from other partitions in any order, in the order they started
        ready = [t for t in self.undecided if final or t in self._unsettled]
        if self.join_after_watermark:
            ready.sort(key=self._started)
        for trace_id in ready:
            self._unsettled.discard(trace_id)
            keys = self.undecided.get(trace_id)
            pending = self.open.get(f"trace:{trace_id}")
            # reported alone before the history it continues came (kept while its report is: `_close`)
            alone = self.closed.get(f"trace:{trace_id}") if pending is None else None
            if keys is None:
                continue
            if trace_id in self.trace_owner or (pending or alone) is None:  # named meanwhile, or gone
                del self.undecided[trace_id]
                self._forget_alone(trace_id)
                continue
            if pending is None:
                assert alone is not None
                pending = alone  # what its report holds; reopened below only if it joins
            waited = now_ns is not None and now_ns - pending.first_ns >= self.config.trace_root_wait_s * 1e9
            if not (pending.has_root or waited or final or alone):
                continue  # its root (which may name it) is still to come
            # lone model calls, where calls are recorded twice: the other recording may still come
            # (in Kafka every join waits for the watermark to pass what it joins: long enough already)
            lone = not self.join_after_watermark and keys.system in self._recorded_twice
            lone = lone and _lone_calls(pending.spans)
            if lone and not (final or alone) and not self._waited_second(pending, now_ns):
                continue
            if self.join_after_watermark and not final and (now_ns is None or now_ns < pending.last_ns):
                continue  # traces of its conversation that started earlier may still be on their way
            if alone is not None and not self.keeps_alone(alone.conversation_id):
                del self.undecided[trace_id]  # no longer joinable (asked only now, once its report is
                self._forget_alone(trace_id)  # out): it stays the conversation it was reported as
                continue
            if (keys.continues_loose or keys.continues_unanswered) is not None:
                # its history answered without ids, or seen without the answer recorded (once it has waited)
                keys = self.undecided[trace_id] = self.histories.resolve(
                    keys, waited or final or alone is not None
                )
            starts = self._started(trace_id)  # it can continue only what was answered before it started
            # in Kafka, where turns come in any order, the one that answered last before it started: its
            # own user's previous turn, not a twin's that another turn of the twin has yet to claim
            continued = self.histories.candidates(
                keys, trace_id, starts, latest_first=self.join_after_watermark
            )
            owners = {c: self._owner(c) for c in continued}
            found = [
                c
                for c, cid in owners.items()
                if cid != pending.conversation_id and (cid in self.open or cid in self.closed)
            ]
            if not found:  # every one it could continue taken: one taker may move to a twin (`_rematch`)
                rematched = self._rematch(trace_id, keys, starts, pending.conversation_id, out)
                if rematched is not None:
                    found, owners = [rematched], {rematched: self._owner(rematched)}
            if not found:
                if final:
                    del self.undecided[trace_id]
                    self._forget_alone(trace_id)
                elif trace_id in self._alone_since:  # reported alone: asleep until a history it may continue
                    self._sleep(trace_id)
                elif keys.continues is not None:  # the history it continues has not come yet
                    self._await(keys.continues, trace_id)
                    for other in (keys.continues_loose, keys.continues_unanswered):  # or came without its
                        if other is not None:  # calls' ids, or without its answer
                            self._await(other, trace_id)
                continue
            del self.undecided[trace_id]
            self._forget_alone(trace_id)
            chosen = self._choose(found, owners, _identity(pending.spans))
            if keys.continues is None or not self.histories.claim(keys.continues, chosen, trace_id):
                continue
            cid = owners[chosen]
            self._own_trace(trace_id, cid)
            self._note_continued(trace_id, keys, chosen)
            if _lone_calls(pending.spans):  # a second recording's call may follow it (`_second_recordings`)
                remember(self._lone_by_history, trace_id, None, 10 * self.config.max_open)
            self.joined_by_history += 1
            if alone is not None:  # its report is superseded: its spans join from where it was kept
                pending = self._unreport(alone.conversation_id)
            target = self.open.get(cid)
            if target is None:  # reported already: reopened with every span so far, as a late span does
                target, evicted = self._open(cid, pending.last_ns, keep=(pending.conversation_id,))
                out += evicted
            self._absorb(target, pending.conversation_id)
            target.last_ns = max(target.last_ns, pending.last_ns)
            if pending.version > 1:  # reported alone before (reopened since, or kept): that id ends here,
                # naming where its spans went
                gone = OpenConversation(
                    pending.conversation_id,
                    first_ns=pending.first_ns,
                    last_ns=pending.last_ns,
                    version=pending.version,
                    ended=True,
                )
                if self.retired.get(gone.conversation_id) != cid:  # counted once, by whoever merged it first
                    self.merged += 1
                # a later `trace:<id>` goes on from it
                self.note_version(gone.conversation_id, gone.version, merged_into=cid)
                out.append(Closed(gone, "merged", merged_into=cid))
        return out

    def _unreport(self, cid: str) -> OpenConversation:
        """A conversation reported and kept (`closed`) open again, `version + 1`, for its spans to join
        another at once (not counted as reopened late, evicting nothing: it leaves `open` straight away)."""
        conv = _next_version(self.closed.pop(cid))
        self.open[cid] = conv
        return conv

    def _rematch(
        self,
        trace_id: str,
        keys: HistoryKeys,
        starts: int,
        own: str,
        out: list[Closed],
        tried: set[str] | None = None,
        keep: tuple[str, ...] = (),
    ) -> str | None:
        """Twins — conversations that opened with the very same exchange — whose next turns come out of
        the order they began: a later-begun one, joined first, took an earlier twin's first turn, the
        only kind `trace_id` (begun before the other first turns were answered) may continue. When that
        taker may continue another first turn still free — or one whose own taker can move on in turn
        (a chain of such moves, `_MAX_REMATCH` deep: the twins' second turns matched to first turns
        answered before they began) — it moves there (with every turn joined after it), and `trace_id`
        takes the one it freed; returns that one. A taker's conversation reported already is reopened and
        reported again without it (`version + 1`, marked `replaces`: the dedupe otherwise keeps the
        report with the most spans). Never in Kafka (`on_join`: joined spans were copied to their
        conversation's partition). The same content either way: what changes is which first trace each
        conversation holds, and that none is left alone. `keep`: the conversations the joins above this
        one move spans from (a reopening evicts none of them)."""
        if self.on_join is not None or keys.continues is None:
            return None
        tried = set() if tried is None else tried
        for earlier, taker in self.histories.taken(keys, trace_id, starts):
            owner = self._owner(earlier)
            source = self.open.get(owner) or self.closed.get(owner)
            joined = self._continued.get(taker)
            if source is None or owner == own or joined is None or taker == trace_id or taker in tried:
                continue
            tried.add(taker)
            movers = [taker]
            while movers[-1] in self._continued_by and len(movers) < 1000:
                movers.append(self._continued_by[movers[-1]])
            taker_start = min(
                (s.span.start_ns for s in source.spans if s.span.trace_id == taker), default=None
            )
            if taker_start is None:
                continue
            moving = self._moving(source, movers)
            free: dict[str, str] = {}  # the first turns the taker may continue instead -> their conversation
            for c in self.histories.candidates(joined[0], taker, taker_start):
                cid = self._owner(c)
                if c not in movers and cid != owner and self._has_room(cid, len(moving)):
                    free[c] = cid
            if free:
                there: str | None = self._choose(list(free), free, _identity(moving))
            elif len(tried) < _MAX_REMATCH:  # none free: one its taker may leave, moving on in turn
                there = self._rematch(taker, joined[0], taker_start, owner, out, tried, (*keep, own))
                if there is not None:
                    free[there] = self._owner(there)
                    if not self._has_room(free[there], len(moving)):
                        there = None  # freed, and left free: the same content either way
            else:
                there = None
            if there is None:
                continue
            if owner not in self.open:  # reported: reopened, its next version without the movers
                source, evicted = self._open(owner, source.last_ns, keep=(own, free[there], *keep))
                out += evicted
                source.replaces = source.version - 1
                moving = self._moving(source, movers)
            self.histories.unclaim(keys.continues, earlier)
            self.histories.claim(keys.continues, there, taker)
            self._note_continued(taker, joined[0], there)
            self._move(source, moving, free[there], out, keep=(owner, own, *keep))
            self.moved_to_twin += 1
            return earlier
        return None

    def _moving(self, source: OpenConversation, movers: list[str]) -> list[AgentSpan]:
        """The spans of `source` in the traces `movers`, and in the traces of copies that follow them."""
        keys = {f"trace:{m}" for m in movers}
        return [
            s
            for s in source.spans
            if s.span.trace_id in movers or self.trace_owner.get(s.span.trace_id) in keys
        ]

    def _has_room(self, cid: str, spans: int) -> bool:
        """`cid` is open or kept reported, and takes `spans` more within `max_spans`."""
        conv = self.open.get(cid) or self.closed.get(cid)
        return conv is not None and len(conv.spans) + spans <= self.config.max_spans

    def _choose(self, found: list[str], owners: dict[str, str], own: tuple[str | None, ...]) -> str:
        """Of the earlier traces a trace may continue (in the order they came): those whose conversation
        is still open first, then the first whose reference, agent and release are the trace's own, else
        the first."""
        found = sorted(found, key=lambda c: owners[c] not in self.open)  # stable: earliest first within
        return next((c for c in found if self._identity(owners[c]) == own), found[0])

    def _move(
        self,
        source: OpenConversation,
        moved: list[AgentSpan],
        cid: str,
        out: list[Closed],
        keep: tuple[str, ...],
    ) -> None:
        """`moved` (spans of `source`, open, whole traces) leave it for the conversation `cid` (reopened if
        reported; what that evicts is none of `keep`)."""
        target = self.open.get(cid)
        if target is None:
            target, evicted = self._open(cid, source.last_ns, keep)
            out += evicted
        traces = {s.span.trace_id for s in moved}
        source.spans = [s for s in source.spans if s.span.trace_id not in traces]
        ids = {s.span.span_id for s in moved}
        source.span_ids -= ids
        target.spans.extend(moved)
        target.span_ids |= ids
        target.last_ns = max(target.last_ns, source.last_ns)
        for trace in traces:
            self._own_trace(trace, cid)
        if any(s.end_marker for s in moved):  # the conversation's end came with them
            if not any(s.end_marker for s in source.spans):
                source.marked = False
                self.marked.pop(source.conversation_id, None)
            if self.config.end_marker_grace_s <= 0:
                self.marked[cid] = None
            else:
                target.marked = True
        for conv in (source, target):
            heapq.heappush(self._due, (self._deadline(conv), next(self._seq), conv.conversation_id, conv))

    def _note_continued(self, trace_id: str, keys: HistoryKeys, chosen: str) -> None:
        earlier = self._continued.get(trace_id)
        if earlier is not None:
            self._continued_by.pop(earlier[1], None)
        self._continued[trace_id] = (keys, chosen)
        self._continued.move_to_end(trace_id)
        self._continued_by[chosen] = trace_id
        while len(self._continued) > 10 * self.config.max_open:
            _, (_, gone) = self._continued.popitem(last=False)
            self._continued_by.pop(gone, None)

    def _started(self, trace_id: str) -> int:
        """When an unnamed trace waiting here started (event time: its earliest span; not a span of the
        copies that follow it, whose clock may be another's)."""
        pending = self.open.get(f"trace:{trace_id}") or self.closed.get(f"trace:{trace_id}")
        if pending is None:
            return 0
        return min((s.span.start_ns for s in pending.spans if s.span.trace_id == trace_id), default=0)

    def _identity(self, cid: str) -> tuple[str | None, str | None, str | None] | None:
        conv = self.open.get(cid) or self.closed.get(cid)
        return _identity(conv.spans) if conv is not None else None

    def _open(
        self, cid: str, now_ns: int, keep: tuple[str, ...] = ()
    ) -> tuple[OpenConversation, list[Closed]]:
        """Open `cid`: new, or reopened from its report (a late span: a new object, so the reported one
        stays as it was, with every span so far and `version + 1`). Returns it and what was evicted: the
        least recently active open conversation, not one of `keep` (those a join is moving spans from)."""
        out: list[Closed] = []
        reported = self.closed.pop(cid, None)
        if reported is not None:
            conv = _next_version(reported)
            self.late_reopened += 1
        else:
            conv = OpenConversation(
                cid, first_ns=now_ns, last_ns=now_ns, version=self.versions.get(cid, 0) + 1
            )
        if len(self.open) >= self.config.max_open:
            victim_id = next((c for c in self.open if c not in keep), None)
            if victim_id is not None:
                self.evictions += 1
                out.append(self._close(self.open.pop(victim_id), "evicted"))
        self.open[cid] = conv
        heapq.heappush(self._due, (self._deadline(conv), next(self._seq), cid, conv))
        return conv, out

    def _absorb(self, conv: OpenConversation, trace_key: str) -> None:
        """The spans waiting under `trace_key` belong to `conv` (their trace was named, or joined it)."""
        cid = conv.conversation_id
        pending = self.open.pop(trace_key)
        fresh = [s for s in pending.spans if s.span.span_id not in conv.span_ids]  # a re-delivered one is in
        self.duplicates += len(pending.spans) - len(fresh)
        joined = fresh[: max(0, self.config.max_spans - len(conv.spans))]
        conv.spans.extend(joined)
        conv.span_ids |= pending.span_ids
        conv.spans_dropped += pending.spans_dropped + len(fresh) - len(joined)
        self.spans_dropped += len(fresh) - len(joined)  # (the pending ones dropped: counted then)
        if joined and self.on_join is not None:
            self.on_join(cid, joined)
        if pending.marked and not conv.marked:  # the marker came with the trace's unnamed spans
            conv.marked = True
            heapq.heappush(self._due, (self._deadline(conv), next(self._seq), cid, conv))
        if trace_key in self.marked:  # ... and, with no grace, is closed by this request's end
            del self.marked[trace_key]
            self.marked[cid] = None
        if pending.first_ns < conv.first_ns:  # open since its trace's first span: max age from there
            conv.first_ns = pending.first_ns
            heapq.heappush(self._due, (self._deadline(conv), next(self._seq), cid, conv))

    def _second_recordings(self, span: AgentSpan, keys: HistoryKeys) -> tuple[str | None, list[str]]:
        """One model call recorded whole by two instrumentations whose spans do not nest: OpenInference's OpenAI
        SDK instrumentor beside its LangChain one (both on with Phoenix's `register(auto_instrument=True)`)
        records each call again as an unnamed trace of its own (`AgentSpan.lone_call`), while LangChain's
        span is inside the turn's trace, and only LangChain's carries the `thread_id`. The two are alike in
        all the call saw and answered, its system messages, agent and release (history.py's digests), and
        the lone one lies within the other's time (`AgentSpan.within`). The lone recording's conversation —
        unnamed, never reported, of model calls only — joins the open conversation of the other, named or
        not, unless two are alike (two users' calls at once). Two lone ones join nothing (an app's tool
        loop, each call a trace: two users greeted alike at once are not one call).
        Returns, for a lone span, the conversation it joins (None: none); for a model call that is not lone,
        the conversation its unnamed trace follows (its lone recording's, when that one waited in vain and
        was joined by history: `_lone_by_history`; None otherwise) and the conversations of lone recordings
        of it (`trace:<id>`), to join its own."""
        if span.kind != "llm":
            return None, []
        lone = span.lone_call
        if span.conversation_id is None:
            if keys.state is None:
                return None, []
            if lone and not self._mixed:  # named calls are read from now on, and those open read back
                self._mixed = True
                for conv in list(self.open.values()):
                    for earlier in conv.spans:
                        if earlier.conversation_id is not None:
                            self._second_recordings(earlier, NO_HISTORY)
        elif not self._mixed or not (span.input_messages or span.output_messages):
            return None, []
        else:
            keys = history_keys(span)
        digest = keys.call
        if digest is None:
            return None, []
        seen = self._recordings.setdefault(digest, [])
        self._recordings.move_to_end(digest)
        while len(self._recordings) > 10 * self.config.max_open:
            self._recordings.popitem(last=False)
        seen.append((span.when, lone))
        del seen[:-8]
        if lone:
            targets = {
                self._owner(when[0]) for when, other_lone in seen if not other_lone and span.within(when)
            }
            target = targets.pop() if len(targets) == 1 else None
            own = f"trace:{span.span.trace_id}"
            alone = self._owner(span.span.trace_id) == own and self._calls_only(own)
            if target is not None and target in self.open and alone:
                remember(self._recorded_twice, keys.system, None, self.config.max_open)
                return target, []
            return None, []
        lone_ones, placed = [], set()
        for when, other_lone in seen:
            if other_lone and within(when, span.when):
                owner = self._owner(when[0])
                if owner not in lone_ones and owner in self.open and self._calls_only(owner):
                    lone_ones.append(owner)
                elif when[0] in self._lone_by_history:
                    placed.add(owner)
        if lone_ones or placed:
            remember(self._recorded_twice, keys.system, None, self.config.max_open)
        # its lone recording waited for it in vain (a slow export) and was joined by the history it resends,
        # taking that history from this call's trace: an unnamed trace of its own follows it there
        own = f"trace:{span.span.trace_id}"
        placed.discard(own)
        if len(placed) == 1 and span.conversation_id is None and self._owner(span.span.trace_id) == own:
            follow = placed.pop()
            return (follow if follow in self.open or follow in self.closed else None), lone_ones
        return None, lone_ones

    def _second_wait(self) -> float:
        """How long a lone call of an agent whose calls are recorded twice waits for its other recording:
        `second_recording_wait_s`, at most half of `inactivity_s` (the conversation it joins stays open)."""
        return min(self.config.second_recording_wait_s, self.config.inactivity_s / 2)

    def _waited_second(self, pending: OpenConversation, now_ns: int | None) -> bool:
        """Whether lone model calls waited long enough for their other recording (`_second_wait`)."""
        return now_ns is not None and now_ns - pending.first_ns >= self._second_wait() * 1e9

    def _forget_histories(self, lone: OpenConversation) -> None:
        """The lone recordings of `lone` join another conversation: what they saw is that one's to continue."""
        for s in lone.spans:
            self.histories.forget(history_keys(s), s.span.trace_id)

    def _calls_only(self, cid: str) -> bool:
        """The unnamed conversation of one trace (`trace:<id>`, no other joined to it), never reported (not
        yet opened, or open at its first version), that holds nothing but model calls and what is no agent
        activity (an HTTP client's span under the call): a lone recording, which may join another."""
        if cid[:6] != "trace:" or cid in self.closed:
            return False
        conv = self.open.get(cid)
        return conv is None or (
            conv.version == 1
            and all(s.kind in ("llm", "other") and s.span.trace_id == cid[6:] for s in conv.spans)
        )

    def _note_call(self, span: AgentSpan) -> None:
        """An unnamed model call whole, for its copies to follow. Two traces whose calls carry one response
        id at about the same time (a stub, a proxy) make it ambiguous: no copy follows either."""
        assert span.response_id is not None
        known = self._calls.get(span.response_id)
        ambiguous = known is not None and (known is _AMBIGUOUS or span.same_call(known))
        remember(
            self._calls, span.response_id, _AMBIGUOUS if ambiguous else span.when, 10 * self.config.max_open
        )

    def _follows(self, trace_key: str, call_trace: str) -> bool:
        """A trace waiting under `trace_key` (none yet, or copies of calls only) may follow the call of
        `call_trace`: its conversation is open (a copy never reopens one reported for nothing to score)."""
        pending = self.open.get(trace_key)
        only_copies = pending is None or all(s.call_copy for s in pending.spans)
        return only_copies and self._owner(call_trace) in self.open

    def _take_copies(self, trace_id: str, call_trace: str) -> None:
        """The unnamed trace `trace_id`, waiting with only copies of calls, one of which the trace
        `call_trace` has just brought whole, follows that trace (and joins its conversation now). One
        already reported stays as reported (its copies say nothing to score)."""
        trace_key = f"trace:{trace_id}"
        if (
            trace_id in self.trace_owner
            or trace_key not in self.open
            or not self._follows(trace_key, call_trace)
        ):
            return
        self._own_trace(trace_id, f"trace:{call_trace}")
        self._absorb(self.open[self._owner(call_trace)], trace_key)
        self.copies_joined += 1

    def _owner(self, trace_id: str) -> str:
        """The conversation a trace belongs to. A trace joined to another trace's conversation while that
        one was still unnamed (`trace:<id>`) follows it once it is named."""
        cid = self.trace_owner.get(trace_id) or f"trace:{trace_id}"
        for _ in range(8):  # joins chain one trace per user turn; each hop is one earlier trace
            nxt = self.trace_owner.get(cid[6:]) if cid.startswith("trace:") else None
            if nxt is None or nxt == cid:
                break
            cid = nxt
        return cid

    def _own_trace(self, trace_id: str, cid: str) -> None:
        remember(self.trace_owner, trace_id, cid, 10 * self.config.max_open)

    def _clamp(self, span: AgentSpan, now_ns: int) -> AgentSpan:
        """Timestamps far from the arrival time are clamped to the configured bounds and counted."""
        high = now_ns + int(self.config.max_future_s * 1e9)
        low = now_ns - int(self.config.max_past_s * 1e9) if self.config.max_past_s is not None else None
        start, end = span.span.start_ns, span.span.end_ns
        new_start, new_end = min(start, high), min(end, high)
        if low is not None:
            new_start, new_end = max(new_start, low), max(new_end, low)
        if (new_start, new_end) == (start, end):
            return span
        self.spans_clamped += 1
        return span.model_copy(
            update={"span": span.span.model_copy(update={"start_ns": new_start, "end_ns": new_end})}
        )

    def advance(self, watermark_ns: int, hold: Callable[[str], bool] | None = None) -> list[Closed]:
        """Close what the processing time `watermark_ns` says is over (inactivity or maximum age), except
        what `hold` names: those are due again at the next call."""
        out = self._settle(now_ns=watermark_ns)
        held = []
        age = int(self.config.max_age_s * 1e9)
        while self._due and self._due[0][0] <= watermark_ns:
            entry = heapq.heappop(self._due)
            _, _, cid, conv = entry
            if self.open.get(cid) is not conv:  # closed, evicted, merged or reopened since: stale entry
                continue
            if hold is not None and hold(cid):
                held.append(entry)
            elif conv.marked and watermark_ns >= self._marker_due(conv):
                out.append(self._close(self.open.pop(cid), "end_marker"))
            elif watermark_ns >= self._idle_due(conv):
                out.append(self._close(self.open.pop(cid), "inactivity"))
            elif watermark_ns - conv.first_ns >= age:
                out.append(self._close(self.open.pop(cid), "max_age"))
            else:  # it saw spans since this entry was made: due later
                heapq.heappush(self._due, (self._deadline(conv), next(self._seq), cid, conv))
        for entry in held:
            heapq.heappush(self._due, entry)
        return out

    def _deadline(self, conv: OpenConversation) -> int:
        """The earliest processing time that may close `conv`; only grows as spans arrive, so never late."""
        due = min(self._idle_due(conv), conv.first_ns + int(self.config.max_age_s * 1e9))
        return min(due, self._marker_due(conv)) if conv.marked else due

    def _idle_due(self, conv: OpenConversation) -> int:
        """When inactivity may close `conv`: `inactivity_s` after its last span, not before its root's wait."""
        return max(conv.last_ns + int(self.config.inactivity_s * 1e9), self._idle_until(conv))

    def _marker_due(self, conv: OpenConversation) -> int:
        """When an end-marked conversation closes: `end_marker_grace_s` after its last span, or, for a
        `_fragment`, when it would close unmarked (`_idle_due`)."""
        return self._idle_due(conv) if self._fragment(conv) else conv.last_ns + self._marker_gap

    def _fragment(self, conv: OpenConversation) -> bool:
        """Spans of a trace that continues an earlier trace's history and has not joined it yet: its own
        root (which may name the conversation, and decides the join) or the history it continues has not
        come. An end marker (of this trace, or of a later turn joined to it) does not close them: reported
        now, they would be a second report of one conversation beside the report of the turns they
        continue (merged later only while that report is kept). They close as unmarked spans do (inactivity, and their
        root's `trace_root_wait_s`), or join once what they wait for comes. (A trace's root ends, and is
        exported, last; a late export brings it, or the history, after the conversation's end.)"""
        if not conv.conversation_id.startswith("trace:"):
            return False
        keys = self.undecided.get(conv.conversation_id[6:])
        # a trace that holds several turns continues its own history: no other trace is to come for it
        return (
            keys is not None
            and keys.continues is not None
            and not self.histories.answered_by(keys.continues, conv.conversation_id[6:])
        )

    @property
    def _marker_gap(self) -> int:
        return int(self.config.end_marker_grace_s * 1e9)

    def _idle_until(self, conv: OpenConversation) -> int:
        """Before this, inactivity cannot close `conv`: a trace not yet named waits for its root span
        (`trace_root_wait_s` from its first span), which names it; closed earlier it would be a fragment."""
        return conv.first_ns + int(self.config.trace_root_wait_s * 1e9) if conv.waiting_for_root else 0

    def flush(self, reason: str = "end_of_input") -> list[Closed]:
        out = self._settle(final=True)
        out += [self._close(conv, reason) for conv in self.open.values()]
        self.open.clear()
        self._due.clear()
        return out

    def _close(self, conv: OpenConversation, reason: str) -> Closed:
        conv.ended = True
        if conv.conversation_id.startswith("trace:"):
            # reported alone: the history it continues may still come (`_settle` joins it then, and
            # supersedes this report); kept as long as the report is (in Kafka too: its spans are on the
            # partition its opening routed it to, where the history it continues comes)
            trace_id = conv.conversation_id[6:]
            keys = self.undecided.pop(trace_id, None)
            if keys is not None and keys.continues is not None and self.config.late_retention:
                self.undecided[trace_id] = keys
                since = min((s.span.start_ns for s in conv.spans), default=0)
                self._alone_since[trace_id] = (since, keys.continues)
                self._sleep(trace_id)
        if self.config.late_retention:
            self.closed[conv.conversation_id] = conv
            self.closed.move_to_end(conv.conversation_id)
            while len(self.closed) > self.config.late_retention:
                gone, _ = self.closed.popitem(last=False)
                if gone.startswith("trace:") and gone[6:] in self._alone_since:
                    self._forget_alone(gone[6:])
                    self.undecided.pop(gone[6:], None)
        return Closed(conv, reason)

    def _sleep(self, trace_id: str) -> None:
        """A trace reported alone waits for the history it continues, by when it began (`add` wakes it)."""
        since, history = self._alone_since[trace_id]
        sleepers = self._asleep.setdefault(history, [])
        at = bisect_left(sleepers, (since, trace_id))
        if at == len(sleepers) or sleepers[at] != (since, trace_id):
            sleepers.insert(at, (since, trace_id))

    def _forget_alone(self, trace_id: str) -> None:
        """A trace reported alone is joinable no longer (joined, named, or its report no longer kept)."""
        found = self._alone_since.pop(trace_id, None)
        if found is None:
            return
        since, history = found
        sleepers = self._asleep.get(history, [])
        at = bisect_left(sleepers, (since, trace_id))
        if at < len(sleepers) and sleepers[at] == (since, trace_id):
            del sleepers[at]
        if not sleepers:
            self._asleep.pop(history, None)

    def _await(self, history: bytes, trace_id: str) -> None:
        """`trace_id` continues `history`, which has not come yet: looked at again when it does."""
        if len(self._awaited) >= 10 * self.config.max_open:
            self._awaited.clear()  # bounded: those still undecided are looked at on flush
        self._awaited.setdefault(history, set()).add(trace_id)

    @property
    def open_spans(self) -> int:
        return sum(len(c.spans) for c in self.open.values())


#: How many twins' turns one join may move, in a chain (`_rematch`): twins of a greeting are many.
_MAX_REMATCH = 16


def _lone_calls(spans: list[AgentSpan]) -> bool:
    """Lone model calls (`AgentSpan.lone_call`), with what is no agent activity under them, and nothing else."""
    return any(s.lone_call for s in spans) and all(s.lone_call or s.kind == "other" for s in spans)


def _next_version(reported: OpenConversation) -> OpenConversation:
    """A reported conversation open again: a new object (the reported one stays as it was), with every
    span so far and `version + 1`; its marker still says whether the conversation is over."""
    return OpenConversation(
        reported.conversation_id,
        spans=list(reported.spans),
        first_ns=reported.first_ns,
        last_ns=reported.last_ns,
        version=reported.version + 1,
        spans_dropped=reported.spans_dropped,
        span_ids=set(reported.span_ids),
        has_root=reported.has_root,
        marked=reported.marked,
    )


def remember(table: OrderedDict[_K, _V], key: _K, value: _V, limit: int = 100_000) -> None:
    """`key` -> `value`, most recent last, the oldest forgotten beyond `limit`: the bounded tables of what
    was seen of traces, calls and conversations (here, and in the Kafka stages)."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > limit:
        table.popitem(last=False)


#: a response id two calls carried at once (`WindowStore._note_call`): `same_call` of it is never true
_AMBIGUOUS = ("", 0, -(2**62))


def _always(_: str) -> bool:
    return True


def _identity(spans: list[AgentSpan]) -> tuple[str | None, str | None, str | None]:
    """The reference, agent and release the spans name (the first that names each)."""
    return (
        next((s.reference_id for s in spans if s.reference_id), None),
        next((s.agent for s in spans if s.agent), None),
        next((s.release for s in spans if s.release), None),
    )
