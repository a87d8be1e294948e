"""Assemble stage, part 0: which earlier history a span's model call continues. Pure.

Most frameworks resend the whole conversation with every model call, and many start a new trace per
user turn. With no conversation id on the spans, a trace that continues a conversation still shows
it: its model call's history, up to its newest user message, is exactly what an earlier trace's model
call had seen and answered. `history_keys` gives two digests per span that carries messages:
- `continues`: the history before its newest user message (None when that is empty); for a model call
  that is the root of its trace (an app's tool loop, one trace per model call) made after tool results
  (no user message since the last answer it shows), the history before those results: the call that
  asked for them, the trace before;
- `state`: everything it saw and answered (input then output).
A span whose `continues` equals an earlier span's `state` continues that span's conversation
(`HistoryIndex` keeps the states and which were continued; windows.py chooses and joins). System
messages are left out of the digests (instructions are often rebuilt per call) and kept apart as a
tie-break; tool calls count with their names and ids (minted per call by the model's provider and
resent unchanged), which tell apart two conversations whose messages read the same. A history that shows
tool results without the assistant message that asked for them (OpenLIT) gets that request back by the
results' ids (`_requests_restored`), and continues the call that asked by a third digest, `asked`, which
counts calls by their ids alone, in order (which request asked for which, and the words the model said
beside them, such a history does not keep); such a continuation is taken only when one trace answered that way
(`HistoryIndex`: providers that number calls `call_1` in every response would otherwise swap two
conversations). The digests are stable across processes (BLAKE2b), so ingest replicas agree.

`opening_key` names where such a conversation lives in Kafka: the first message every one of its
model calls resends (the user's opening), the same in each of its traces. It only routes (all traces
of a conversation reach one partition, so one score replica joins them as `run` does); conversations
that opened alike share a partition and are still told apart by the join.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from monitor.assemble.transcript import canonical_arguments
from monitor.model import AgentSpan, Message, ToolCallRef


@dataclass(frozen=True)
class HistoryKeys:
    continues: bytes | None  # the history before the span's newest user message (None: nothing before it)
    state: bytes | None  # all it saw and answered (None: no messages)
    system: bytes = b""  # its system messages, agent, release and reference: tells apart conversations
    # whose other messages read the same
    #: all it saw and answered, its tool calls counted by their ids alone (None: it asked for no call with an
    #: id): what a later history that left the request out continues (`_requests_restored`)
    asked: bytes | None = None
    #: all it saw and answered with every id left out (None: it asked for no call without an id): what a
    #: later history continues that shows those calls with their ids (LiteLLM records an answer's calls
    #: without them; the next call's history resends them with theirs)
    loose: bytes | None = None
    #: `continues` with every id left out (None: no id in it): taken only when no trace answered `continues`
    #: and one answered it `loose` (`HistoryIndex.resolve`)
    continues_loose: bytes | None = None
    #: all it saw, when its answer was not recorded (a model call with no output messages: OpenLLMetry's
    #: OpenAI Agents instrumentation on Chat Completions): what a later history continues that shows that
    #: answer (None: it has one)
    unanswered: bytes | None = None
    #: `continues` less its last assistant message (the answer an earlier call made and did not record):
    #: taken only when no trace answered `continues`, as shown or without ids (`HistoryIndex.resolve`)
    continues_unanswered: bytes | None = None

    @property
    def call(self) -> bytes | None:
        """All it saw and answered with its `system`: what two recordings of one model call share (None: no
        messages)."""
        return None if self.state is None else self.state + self.system


NO_HISTORY = HistoryKeys(None, None)


def history_keys(span: AgentSpan) -> HistoryKeys:
    """The digests of a span's messages."""
    seen = _requests_restored([m for m in span.input_messages if m.role != "system"])
    answered = [m for m in span.output_messages if m.role != "system"]
    if not seen and not answered:
        return NO_HISTORY
    # a model call that is its trace's root is the trace (an app's own tool loop, one trace per model call):
    # after tool results it continues the call that asked for them, the root of the trace before
    new = 0
    if not span.span.parent_span_id:
        after = next((i + 1 for i in range(len(seen) - 1, -1, -1) if seen[i].role == "assistant"), 0)
        if after < len(seen) and all(m.role == "tool" for m in seen[after:]):  # only tool results since
            new = after  # (not a prefill: an assistant message last, which the old rule still reads)
    last_user = next((i for i in range(len(seen) - 1, new - 1, -1) if seen[i].role == "user"), new)
    continues: bytes | None = None
    continues_loose: bytes | None = None
    continues_unanswered: bytes | None = None
    if new and last_user == new and (seen[new - 1].text or "").startswith(_RESTORED):  # a request left out:
        continues = _digest(seen[:new], by_id=True)  # what the call that asked answered, by its calls' ids
    elif last_user > 0:
        continues = _digest(seen[:last_user])
        if any(m.tool_call_id or any(c.call_id for c in m.tool_calls) for m in seen[:last_user]):
            continues_loose = _digest(seen[:last_user], loose=True)
        if last_user > 1 and seen[last_user - 1].role == "assistant":
            continues_unanswered = _unanswered(_digest(seen[: last_user - 1]))
    ids = any(c.call_id for m in answered for c in m.tool_calls)
    asked = _digest(seen + answered, by_id=True) if ids else None
    no_ids = any(not c.call_id for m in answered for c in m.tool_calls)
    loose = _digest(seen + answered, loose=True) if no_ids else None
    # a call that failed answered nothing to continue: only one that succeeded and recorded no answer
    recorded_none = span.kind == "llm" and seen and not answered and span.span.status != "ERROR"
    unanswered = _unanswered(_digest(seen)) if recorded_none else None
    state = _digest(seen + answered)
    return HistoryKeys(
        continues, state, system_key(span), asked, loose, continues_loose, unanswered, continues_unanswered
    )


def system_key(span: AgentSpan) -> bytes:
    """`HistoryKeys.system` alone: its system messages, agent, release and reference (no history hashed)."""
    system = hashlib.blake2b(digest_size=16)
    for part in (span.reference_id, span.agent, span.release):  # who the spans say answered, and against what
        system.update(f"{part or ''}\x1e".encode("utf-8", "surrogatepass"))
    system.update(_digest([m for m in span.input_messages if m.role == "system"]))
    return system.digest()


def _unanswered(digest: bytes) -> bytes:
    """A digest of its own kind: a history a model call saw without its answer recorded."""
    return hashlib.blake2b(b"unanswered\x1e" + digest, digest_size=16).digest()


def opening_key(spans: Sequence[AgentSpan]) -> str | None:
    """`history:<digest>` of the first non-system message of the model call that was sent the longest
    history among `spans` (one trace; a guardrail or title call sent only the newest message is not
    the conversation's opening), or None when no span shows its input."""
    longest: list[Message] = []
    for span in spans:
        seen = [m for m in span.input_messages if m.role != "system"]
        if len(seen) > len(longest):
            longest = seen
    return f"history:{_digest(longest[:1]).hex()}" if longest else None


class HistoryIndex:
    """Which earlier traces a trace without a conversation id may continue. Bounded: `limit` digests.

    A state digest may have been seen by several traces (conversations that opened with the same
    exchange, down to their calls' ids). Each is continued at most once (a conversation has one next
    turn): `claim` takes one; windows.py chooses among the candidates, once the continuing trace is in
    (a continuation that arrives before the history it continues simply finds it later)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        # state -> [(trace, system, answered by)], in the order they came
        self._seen: OrderedDict[bytes, list[tuple[str, bytes, int]]] = OrderedDict()
        # (state, trace) continued -> by which trace
        self._claimed: OrderedDict[tuple[bytes, str], str] = OrderedDict()
        # `asked` digests more than one trace answered with: continued by none (`saw`); a bounded set
        self._shared: OrderedDict[bytes, None] = OrderedDict()

    def resolve(self, keys: HistoryKeys, waited: bool) -> HistoryKeys:
        """`keys` continuing the history a trace answered without its calls' ids (`loose`), or saw without its
        answer recorded (`unanswered`), when no trace answered `continues` itself and one answered so: the
        continuation is then looked up, claimed and awaited by that digest. `unanswered` matches any call
        that saw the same opening, so it is taken only once the trace has `waited` (its root wait is over,
        or the input ended) for the history as shown, which may come late from another exporter."""
        if keys.continues in self._seen:
            return keys
        for other in (keys.continues_loose, keys.continues_unanswered if waited else None):
            if other is not None and other in self._seen:
                return replace(keys, continues=other, continues_loose=None, continues_unanswered=None)
        return keys

    def candidates(
        self, keys: HistoryKeys, trace_id: str, starts_ns: int | None = None, latest_first: bool = False
    ) -> list[str]:
        """The earlier traces `trace_id` may continue, not yet continued, in the order they came (or, with
        `latest_first`, the one that answered last first): those that had answered before it started
        (`starts_ns`, event time), and of those the ones whose system messages, agent, release and
        reference are its own, where any is."""
        if keys.continues is None or keys.continues in self._shared:
            return []
        seen = self._seen.get(keys.continues, [])
        open_ = [
            (t, system)
            for t, system, ended in (sorted(seen, key=lambda s: -s[2]) if latest_first else seen)
            if t != trace_id
            and (keys.continues, t) not in self._claimed
            and (starts_ns is None or ended <= starts_ns)
        ]
        same = [t for t, system in open_ if system == keys.system]
        return same or [t for t, _ in open_]

    def taken(self, keys: HistoryKeys, trace_id: str, starts_ns: int) -> list[tuple[str, str]]:
        """The earlier traces `trace_id` could have continued (answered before it started) that another
        trace continues already, in the order they came: (that earlier trace, the one continuing it)."""
        if keys.continues is None:
            return []
        out = []
        for t, _, ended in self._seen.get(keys.continues, []):
            by = self._claimed.get((keys.continues, t))
            if by is not None and t != trace_id and ended <= starts_ns:
                out.append((t, by))
        return out

    def answered_by(self, state: bytes, trace_id: str) -> bool:
        """Whether `trace_id` itself saw and answered this history (one trace holding several turns)."""
        return any(t == trace_id for t, _, _ in self._seen.get(state, []))

    def claim(self, state: bytes, trace_id: str, by: str = "") -> bool:
        """`trace_id`'s history `state` is continued now (by the trace `by`); False if it already was."""
        if (state, trace_id) in self._claimed:
            return False
        self._claim(state, trace_id, by)
        return True

    def unclaim(self, state: bytes, trace_id: str) -> None:
        """`trace_id`'s history `state` is no longer continued (its continuation moved to a twin)."""
        self._claimed.pop((state, trace_id), None)

    def saw(self, keys: HistoryKeys, trace_id: str, ended_ns: int) -> None:
        """`trace_id` saw this history and answered it by `ended_ns` (event time). Its `asked` digest too,
        which only one trace may hold: two traces that asked for calls of the same ids after the same
        history (a provider numbering calls `call_1` in each response) are told apart only by the calls'
        names, which a history that left the request out does not carry, so neither is continued so."""
        for key in (keys.state, keys.asked, keys.loose, keys.unanswered):
            if key is None:
                continue
            seen = self._seen.setdefault(key, [])
            self._seen.move_to_end(key)
            while len(self._seen) > self.limit:
                self._seen.popitem(last=False)
            if all(t != trace_id for t, _, _ in seen):
                if key is keys.asked and seen:
                    self._shared[key] = None
                    while len(self._shared) > self.limit:
                        self._shared.popitem(last=False)
                seen.append((trace_id, keys.system, ended_ns))
                del seen[:-16]  # a history shown by more traces than that is a greeting, not a conversation

    def forget(self, keys: HistoryKeys, trace_id: str) -> None:
        """`trace_id` no longer shows this history (a second recording of a call another trace recorded,
        windows.py): a later trace continues the other, never it."""
        for key in (keys.state, keys.asked, keys.loose, keys.unanswered):
            seen = self._seen.get(key) if key is not None else None
            if seen:
                seen[:] = [entry for entry in seen if entry[0] != trace_id]

    def _claim(self, state: bytes, trace_id: str, by: str = "") -> None:
        self._claimed[(state, trace_id)] = by
        while len(self._claimed) > self.limit:
            self._claimed.popitem(last=False)


def begins_conversation(spans: Sequence[AgentSpan]) -> bool:
    """Traces joined by their history (so the framework resends it), and the earliest of them shows the
    conversation's beginning: one of its model calls was sent the conversation from its first user
    message, and none of its model calls continues a history from before it (a guardrail or title call
    sent only the newest message is no beginning when the trace's main call shows earlier turns)."""
    if len({s.span.trace_id for s in spans}) < 2:
        return False  # one trace: whether its framework resends history, nothing here shows
    first = min(spans, key=lambda s: (s.span.start_ns, s.span.span_id)).span.trace_id
    calls = [s for s in spans if s.span.trace_id == first and s.kind != "agent"]  # model calls, log records
    if any(history_keys(s).continues is not None for s in calls):
        return False
    for span in calls:  # an agent span may show only the new message
        seen = [m for m in span.input_messages if m.role != "system"]
        if seen and seen[0].role == "user":
            return True
    return False


def _requests_restored(seen: list[Message]) -> list[Message]:
    """The history with each tool request the instrumentation left out put back. Some record the results a
    model call was sent but not the assistant message that asked for them (OpenLIT 1.45: `user`, then the
    `tool` result, no assistant message between). Before each run of results with call ids that follows
    no assistant message asking for calls, a request for those ids (no names; `_RESTORED`, then the words
    the model said beside them where the history kept those and left out the calls only: OpenLIT keeps an
    assistant message's text and drops its calls; two calls one after the other read as one request). A
    call sent those results continues the call that asked only by the ids (`HistoryKeys.asked`), as the
    name the results do not carry cannot be read back."""
    if not any(m.role == "tool" and m.tool_call_id for m in seen):
        return seen
    out: list[Message] = []
    for i, m in enumerate(seen):
        before = seen[i - 1] if i else None
        first_result = m.role == "tool" and (before is None or before.role != "tool")
        asked = before is not None and before.role == "assistant" and bool(before.tool_calls)
        if first_result and not asked and m.tool_call_id:
            run = []
            for r in seen[i:]:
                if r.role != "tool" or not r.tool_call_id:
                    break
                run.append(ToolCallRef(call_id=r.tool_call_id, name=""))
            said = before.text or "" if before is not None and before.role == "assistant" else None
            if said is not None:  # the words the model said beside its calls were kept, the calls not
                out.pop()
            out.append(Message(role="assistant", text=_RESTORED + (said or ""), tool_calls=tuple(run)))
        out.append(m)
    return out


#: the text of a request put back (`_requests_restored`): no message says it (digests read it as empty)
_RESTORED = "\x00restored"


def _digest(messages: Sequence[Message], by_id: bool = False, loose: bool = False) -> bytes:
    """The digest of messages in order; `loose`: every id left out (calls by their names and arguments,
    tool results by nothing but their text). `by_id`: what a history that left out the requests still shows — the user's
    and the model's words, and the calls asked for by their ids alone (by name where one has none), in
    order, not which request asked for which (a run of results reads as one request for them all) nor
    the words beside them (kept by some, left out with the request by others); the results are left out,
    the ids of the calls they answer standing for them."""
    h = hashlib.blake2b(digest_size=16)
    for m in messages:
        if by_id and m.role == "tool":
            continue
        if by_id and m.tool_calls:  # each call on its own: one request for two reads as two requests
            for call in m.tool_calls:
                key = f"\x1d{call.call_id or chr(0x1C) + call.name}".encode("utf-8", "surrogatepass")
                h.update(hashlib.blake2b(key, digest_size=16).digest())
            continue
        h.update(_message_digest(m, loose))
    return h.digest()


#: by (object, `loose`): histories resend shared messages
_MESSAGE_DIGESTS: dict[tuple[int, bool], tuple[Message, bytes]] = {}
_DIGESTED_CHARS = [0]  # the text those messages hold: the table is bounded by it, not only by count


def _message_digest(m: Message, loose: bool = False) -> bytes:
    """One message's digest, computed once per message object (normalize shares equal messages, so a
    resent history costs a lookup per message, not a hash of its text). Bounded; the object is kept
    beside its digest, so a reused id is never mistaken for it. A tool call counts by its name and id
    (`loose`: by its name and arguments: what tells apart two conversations that said the same, without the
    ids)."""
    found = _MESSAGE_DIGESTS.get((id(m), loose))
    if found is not None and found[0] is m:
        return found[1]
    h = hashlib.blake2b(digest_size=16)
    h.update(m.role.encode())
    h.update(b"\x1e")
    h.update((m.text or "").strip().encode("utf-8", "surrogatepass"))
    for call in m.tool_calls:  # a call's id tells apart two conversations that said the same
        told = canonical_arguments(call.arguments) if loose else call.call_id or ""
        h.update(f"\x1f{call.name}\x1c{told}".encode("utf-8", "surrogatepass"))
    h.update(f"\x1b{'' if loose else m.tool_call_id or ''}".encode("utf-8", "surrogatepass"))
    digest = h.digest()
    if len(_MESSAGE_DIGESTS) >= 50_000 or _DIGESTED_CHARS[0] > 20_000_000:  # ~20 MB of text held at most
        _MESSAGE_DIGESTS.clear()
        _DIGESTED_CHARS[0] = 0
    _MESSAGE_DIGESTS[(id(m), loose)] = (m, digest)
    _DIGESTED_CHARS[0] += len(m.text or "")
    return digest
