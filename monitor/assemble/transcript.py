"""Assemble stage, part 1: one conversation's normalized spans → observed turns. Pure.

In: the `AgentSpan`s of one conversation, in any order and from any number of traces. Out: turns in
event-time order — user messages, replies (what the agent said to the user) and tool calls (name,
arguments, result, status, latency) — with dependencies from tool-call ids and span links.

Frameworks resend the whole history to every LLM call, and an agent span repeats its LLM's answer, so
the same message appears many times. A message counts as often as it appears in the *one* span that
shows it most (a user who really says "yes" twice shows it twice in later histories), at the time of the
earliest span that shows it — except in a history a memory window cut, read where it meets what was seen
before (`_occurrences`): its repeated words may be messages no single span shows twice. A tool call is
its id, name and arguments (models reuse ids); a tool span without an id (OpenInference, Traceloop)
takes the id of the requested call with the same name and arguments. A call requested by a model but
never executed in a span still becomes a turn, with the result the next model call was given (Haystack's
Agent runs its tools inside itself: its calls exist only in the model's messages); a requested call
without an id counts like a message, as often as the history that shows it most. Invariant: the same
spans in any order give the same turns.
"""

from __future__ import annotations

import heapq
import itertools
import json
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from monitor.compare.evidence import may_act
from monitor.compare.facts import canonical_json, normalize_text, parse_json
from monitor.model import AgentSpan, Message, Span

_KIND_ORDER = {"user": 0, "call": 1, "reply": 2}


@dataclass
class ObservedTurn:
    kind: Literal["user", "reply", "call"]
    time_ns: int
    text: str | None = None
    tool: str | None = None
    call_id: str | None = None
    arguments: Any = None
    arguments_error: str | None = None
    result: Any = None
    error: str | None = None
    latency_ms: float | None = None
    span_id: str | None = None  # the span it was read from (a tool call: its tool span when there is one)
    trace_id: str | None = None
    depends_on_calls: set[str] = field(default_factory=set)
    executed: bool = False
    unrecorded: str | None = None  # a reply: a model call ran and no span recorded what it returned (why)
    #: a reply: words the model said beside tool calls it asked for (`One moment, let me check.`, in the message
    #: that asked, or right before the calls: `_calls_follow`): its turn went on after them, so they are no
    #: turn's last reply (`_with_unrecorded_answers`)
    beside_calls: bool = False


def build_transcript(spans: Sequence[AgentSpan]) -> list[ObservedTurn]:
    ordered = sorted(spans, key=_start)  # every part below reads the spans in this order
    placed: dict[tuple[str, int], int] = {}  # (span, index in its input) -> when that history message came
    turns: list[ObservedTurn] = []
    turns += _messages(ordered, placed)
    turns += _calls(ordered, placed)
    turns.sort(key=_in_order)
    return _with_unrecorded_answers(turns, ordered)


def _in_order(t: ObservedTurn) -> tuple[int, int, str, str]:
    return (t.time_ns, _KIND_ORDER[t.kind], t.call_id or "", t.text or "")


def _with_unrecorded_answers(turns: list[ObservedTurn], spans: Sequence[AgentSpan]) -> list[ObservedTurn]:
    """A reply marked `unrecorded` where a user's turn ends in a model call whose output no span recorded.

    Some instrumentations record a model call's input and never its output (OpenLLMetry's OpenAI Agents
    instrumentation on a Chat Completions model): a reply shows only in the next call's history, so the
    conversation's last reply — which no later call resends — is never seen. Scored as absent, a correct run
    would fail `missing_action` on the instrumentation's gap. So, in a conversation where no model call
    recorded a reply's text, a user's turn that shows no reply and whose last model call (one that recorded its
    input: a provider SDK's metadata-only copy says nothing) came after all the turn's tool calls, recorded no
    output (a tool call it asked for that never ran is a run cut short), whose answer no other history shows
    (a later call's, or its agent's span: `_answer_shown`), succeeded, and was followed by no failed span (but
    attempts inside it), holds a reply of unknown text: its text is not compared (`uncertain`).
    What that call returned is still unknown: the note says only that it ran and nothing recorded its output.
    Words the model said beside the tool calls it asked for (`One moment, let me check.`, read from a later
    history) are no reply that ends the turn: the model went on after those calls."""
    users = [t.time_ns for t in turns if t.kind == "user"]
    model_calls = [s for s in spans if s.kind == "llm" and s.input_messages]  # in start order, as `spans`
    # an instrumentation that records replies: one missing is no gap of its, but a run cut short
    if not users or any((m.text or "").strip() for s in model_calls for m in s.output_messages):
        return turns
    starts = [s.span.start_ns for s in model_calls]
    failed = [s.span for s in spans if s.span.status == "ERROR"]
    parent = {s.span.span_id: s.span.parent_span_id for s in spans}
    # each user's turn: the replies and calls that came after the user's message, before the next one
    after_user: list[list[ObservedTurn]] = [[] for _ in users]
    for t in turns:
        k = bisect_right(users, t.time_ns) - 1  # turns are sorted: one at a user's time comes after it
        if t.kind != "user" and k >= 0:
            after_user[k].append(t)
    added: list[ObservedTurn] = []
    for k, inside in enumerate(after_user):
        until = users[k + 1] if k + 1 < len(users) else None
        last_no = (bisect_left(starts, until) if until is not None else len(starts)) - 1
        if any(t.kind == "reply" and not t.beside_calls for t in inside):
            continue  # a reply was seen
        if last_no < 0 or starts[last_no] <= users[k]:
            continue  # no model call in this turn
        call = model_calls[last_no]
        if call.output_messages:
            continue  # it recorded an output (a tool call that never ran: a run cut short, or paused)
        # a later call's history, or its agent's span (which may record the run's items), shows what it
        # returned: words beside a call that never ran, a request
        shown_in = [*model_calls[last_no + 1 :], *(s for s in spans if _around(call.span, s.span, parent))]
        if _answer_shown(call, shown_in):
            continue
        last = call.span
        if any(
            e.end_ns >= last.start_ns
            and (until is None or e.start_ns < until)
            and not _under(e, last, parent)
            for e in failed
        ):  # the call failed, or something after it did (not an attempt inside it its SDK retried)
            continue
        # a tool call after it was its output (a call first shown by its own input came before it)
        if any(
            t.kind == "call" and t.time_ns >= last.start_ns and (t.executed or t.span_id != last.span_id)
            for t in inside
        ):
            continue
        added.append(
            ObservedTurn(
                kind="reply",
                time_ns=last.end_ns,
                span_id=last.span_id,
                trace_id=last.trace_id,
                depends_on_calls={t.call_id for t in inside if t.call_id},
                unrecorded=f"a model call (span {last.span_id}) ran here and no span recorded what it returned",
            )
        )
    if not added:
        return turns
    return sorted([*turns, *added], key=_in_order)


def _answer_shown(call: AgentSpan, histories: Sequence[AgentSpan]) -> bool:
    """Whether one of `histories` shows what `call` returned: it holds `call`'s input, then a message of the
    model's — a later model call's, or the span of the agent that made the call, which may record the run's
    items as its input (OpenAI Agents' GenAI agent span, which starts before the call; another agent's span
    that was sent the same conversation shows that agent's answer, not this call's). Its text and calls are
    read from there; a history that rewrote the earlier messages shows nothing here: the answer stays
    unknown."""
    seen = _history(call.input_messages)
    for other in histories:
        shown = [m for m in other.input_messages if m.role != "system"]
        if len(shown) <= len(seen) or _history(shown[: len(seen)]) != seen:
            continue
        answer = shown[len(seen)]
        if answer.role == "assistant" and ((answer.text or "").strip() or answer.tool_calls):
            return True  # (a message the reader could not read — a refusal, audio — shows nothing)
    return False


def _history(messages: Sequence[Message]) -> list[tuple[str, str]]:
    return [(m.role, normalize_text(m.text or "")) for m in messages if m.role != "system"]


def _around(call: Span, other: Span, parent: dict[str, str | None]) -> bool:
    """Whether `other` is a span of the run that made `call`: its ancestor, or — spans exported flat, or an
    ancestor between them missing — one of its trace that began before it and ended after it."""
    if other.span_id == call.span_id:
        return False
    covers = (
        other.trace_id == call.trace_id and other.start_ns <= call.start_ns and other.end_ns >= call.end_ns
    )
    return covers or _under(call, other, parent)


def _under(span: Span, ancestor: Span, parent: dict[str, str | None]) -> bool:
    """Whether `span` is `ancestor`'s descendant (`parent`: span id -> its parent's)."""
    at, seen = span.parent_span_id, 0
    while at is not None and seen < len(parent):
        if at == ancestor.span_id:
            return True
        at, seen = parent.get(at), seen + 1
    return False


def _messages(spans: Sequence[AgentSpan], placed: dict[tuple[str, int], int]) -> list[ObservedTurn]:
    """User messages and assistant replies, deduplicated across repeated histories.

    A history's messages came before its call, in their order: each one no later than the one after it in
    that history was first seen. A reply first shown by the next turn's call (instrumentations that record
    no answer) comes before that turn's message, though a guardrail call of that turn showed it earlier.
    `placed` learns when each history message came, by its span and index there (`_calls` places the calls
    of a history between its messages)."""
    first_seen: dict[tuple[str, str, int], tuple[int, str, str, str, set[str]]] = {}
    # replies said beside tool calls: the message asked for calls too, or (a history that kept the words and
    # left the request out: OpenLIT) the calls' results come right after it
    beside: set[tuple[str, str, int]] = set()
    seen = _Seen(first_seen)
    for s in spans:
        asked, answer = _speaking(s.input_messages, True), _speaking(s.output_messages, False)
        if seen.opening is None and asked:
            seen.opening = asked[0][3]
        occurrences, sent = _occurrences(asked, answer, seen, s)
        seen.answered = seen.answered or bool(answer)
        words = [*asked, *answer]
        read: list[tuple[bool, Sequence[Message], int, tuple[str, str, int]]] = []
        for (history, messages, i, _), said in zip(words, occurrences, strict=True):
            read.append((history, messages, i, said))
            m = messages[i]
            if m.role == "assistant" and (m.tool_calls or _calls_follow(messages, i)):
                beside.add(said)
        after: int | None = None  # when the next message of this history was first seen
        ended, end_ns = seen.ended, s.span.end_ns
        for history, shown, i, occurrence in reversed(read):
            if ended.get(occurrence, end_ns) >= end_ns:
                ended[occurrence] = end_ns
            time = s.span.start_ns - (len(shown) - i) if history else s.span.end_ns
            if history and after is not None:
                time = min(time, after - 1)
            if occurrence not in first_seen or time < first_seen[occurrence][0]:
                deps = _results_since_user(shown[:i]) if history else _results_since_user(s.input_messages)
                text = (shown[i].text or "").strip()
                seen.note(occurrence)
                first_seen[occurrence] = (time, text, s.span.span_id, s.span.trace_id, deps)
            if history:
                after = first_seen[occurrence][0]
                placed[(s.span.span_id, i)] = after
        sent.changes = seen.changes  # the span's own messages are seen: what a span sent the same sees then
    return [
        ObservedTurn(
            kind="user" if said[0] == "user" else "reply",
            time_ns=t,
            text=text,
            span_id=sid,
            trace_id=tid,
            depends_on_calls=deps if said[0] == "assistant" else set(),
            beside_calls=said in beside,
        )
        for said, (t, text, sid, tid, deps) in first_seen.items()
    ]


#: a message of the conversation: (role, its words normalized, the nth time they are said)
Occurrence = tuple[str, str, int]
#: a message a span shows that says something: (whether of its input, the messages, its index there, (role,
#: words))
Shown = tuple[bool, Sequence[Message], int, tuple[str, str]]


@dataclass
class _Sent:
    """A span's input as `_occurrences` read it, for a span sent the same input again."""

    caller: tuple[str, str]  # its span's name and scope: which kind of call it was
    inputs: Sequence[Message]
    history: list[Occurrence]  # the messages its history is
    counts: Counter[tuple[str, str]]  # the count of each message's words its answer goes on from
    answer: set[Occurrence]  # the messages its answer is
    ended_ns: int = 0  # when its span ended
    trace_id: str = ""  # the trace of its span
    changes: int = 0  # `_Seen.changes` once its messages were seen


@dataclass
class _Seen:
    """What `_messages` has seen so far: each message's first sight (its `first_seen`), in the order seen,
    the earliest end of a span that showed each, how many messages say each words, and the spans each input
    was sent to (`_occurrences`)."""

    first_seen: dict[Occurrence, tuple[int, str, str, str, set[str]]]
    #: each message, in the order first seen
    sightings: list[Occurrence] = field(default_factory=list)
    said: Counter[tuple[str, str]] = field(default_factory=Counter)  # how many messages say each text
    opening: tuple[str, str] | None = None  # the words the first history seen starts with
    changes: int = 0  # how often a message was first seen, or seen earlier than before
    sent: dict[tuple[Any, ...], list[_Sent]] = field(default_factory=dict)
    answered: bool = False  # whether a span has recorded an answer
    #: the earliest end of a span that showed each message, of all that showed it (`shown_after`; set by
    #: `_messages` for every message a span shows, before it is noted)
    ended: dict[Occurrence, int] = field(default_factory=dict)

    def note(self, message: Occurrence) -> None:
        """`message` is about to be seen for the first time, or earlier than before."""
        self.changes += 1
        if message not in self.first_seen:
            self.said[message[:2]] += 1
            self.sightings.append(message)

    def said_before(self, words: Iterable[tuple[str, str]], start_ns: int) -> Counter[tuple[str, str]]:
        """How many messages seen before `start_ns` say each of these words: all seen so far, less those seen
        at or after it — answers of calls still running then, which are among the latest `_RUNNING`
        sightings."""
        counts = Counter({w: self.said[w] for w in set(words)})
        for message in reversed(self.sightings[-_RUNNING:]):
            if self.first_seen[message][0] >= start_ns and message[:2] in counts:
                counts[message[:2]] -= 1
        return counts

    def last_before(self, n: int, start_ns: int) -> list[Occurrence]:
        """The last `n` messages seen before `start_ns`, in order (read from the latest sights: a history places
        a message where it says, so sight order is nearly time order)."""
        candidates: list[tuple[int, Occurrence]] = []
        for message in reversed(self.first_seen):
            sight = self.first_seen[message][0]
            if sight < start_ns:
                candidates.append((sight, message))
                if len(candidates) >= 4 * n + 8:
                    break
        return [message for _, message in sorted(heapq.nlargest(n, candidates))]

    def shown_after(self, since: int, start_ns: int, held: set[Occurrence]) -> bool:
        """Whether a message not `held`, but with the words of one that is, was shown by a span that ended
        before `start_ns` (the first to show it or another: an agent's span still running may show it first),
        and seen after `since`: `held` then names an earlier message with those words where a later one was
        meant (a side call's answer — a chat's title, a summary — says other words). Read among the latest
        sightings: a window holds as many as it has messages, at most."""
        words = {said[:2] for said in held}
        for message in reversed(self.sightings[-(len(held) + _RUNNING) :]):
            sight = self.first_seen[message][0]
            if (
                self.ended[message] < start_ns
                and since < sight < start_ns
                and message not in held
                and message[:2] in words
            ):
                return True
        return False


#: how many of the latest sightings may be of spans still running when another starts
_RUNNING = 64


def _speaking(messages: Sequence[Message], history: bool) -> list[Shown]:
    """The messages of a span's input (`history`) or answer that say something."""
    return [
        (history, messages, i, (m.role, normalize_text(m.text or "")))
        for i, m in enumerate(messages)
        if m.role in ("user", "assistant") and (m.text or "").strip()
    ]


def _input_key(messages: Sequence[Message]) -> tuple[Any, ...]:
    """A sketch of what a span was sent (its length and ends), to find a span sent it before: the inputs
    themselves are compared only when two sketches meet."""
    if not messages:
        return ()
    first, last = messages[0], messages[-1]
    # and all their words, hashed: a long session under a window sends many inputs of one length that start
    # and end with the same words (`ok`, `Done.`), each compared with every other (pydantic's `==`) otherwise
    texts = hash(tuple(m.text for m in messages))
    return (len(messages), first.role, first.text, last.role, last.text, last.tool_call_id, texts)


def _occurrences(
    history: list[Shown], answer: list[Shown], seen: _Seen, span: AgentSpan
) -> tuple[list[Occurrence], _Sent]:
    """Which message of the conversation each message a span shows is, its history's then its answer's, and
    the reading of its input that `seen` keeps (its `changes` are the caller's to set, once the span's
    messages are seen).

    A history is counted from its start: its nth `yes` is the conversation's nth, whatever it leaves out. A
    history a memory window cut (the last few messages) would so be counted as earlier messages with the
    same words (`ok`, `Done.`): a user's second `ok` taken for the first and lost. A history that starts with
    the words the conversation started with is whole (or a side call's: a chat title's) and counted so. One
    that starts elsewhere is read otherwise only when, so counted, it is behind — after its first message (a
    summary may head a window) one of its messages is counted as a message seen before the one it follows, or
    a message with the words of one it holds, not held itself, was shown after the first one it holds by a
    span that ended before this one started — and its start matches the end of what was seen: its first
    messages are the last ones seen, what follows them is new, counted on from what was seen. Messages an
    agent's span still running showed ahead of the call never make a history behind, nor do a side call's
    answers (other words).

    A history with no words (tool messages, a system prompt alone) after some messages were seen is
    followed by a new answer; one of new messages only (the new message alone: an agent with no memory) is
    new, and its answer is counted on from what was seen (the agent's second `Done.` is not its first).
    The same input sent again with nothing new seen since but the first span's answer is the same messages,
    its answer the same answer, when the first call had no answer (a retry) or the second is another kind of
    call (another span name or scope: a twin span of the call, a judge or a
    guardrail sent its input); the same agent's next call sent the same words is its next turn (a window of
    2 where the user says `ok` and the agent `Done.` again), read as a window even when nothing else shows
    it behind (a window of one `ok`, not the conversation's first words: a retry of the first call) once the
    call sent it before — the latest span sent it, not a twin of another call — has answered and ended, in
    another trace (in the same one it is a retry): words cannot tell the two apart. A longer history sent
    again after its answer is a retry: the same messages."""
    caller = (span.span.name, span.span.scope)
    earlier = seen.sent.setdefault(_input_key(span.input_messages), [])
    again = next(
        (
            e
            for e in reversed(earlier)
            if (not e.answer or e.caller != caller)
            and e.inputs == span.input_messages
            and e.changes == seen.changes  # nothing seen since but its own messages
        ),
        None,
    )
    if again is not None:
        read, counts = again.history, again.counts
    else:
        # an agent with no memory's next call, sent the one message the latest span sent it to was sent (by
        # this agent, a call that answered and ended before this one started, in another trace: its next run;
        # a twin of another span is not its next call). In the same trace it is a retry (`with_retry`, a
        # LangGraph `RetryPolicy`, self-consistency's samples), and so is a history of more messages sent again
        # after its answer (a regenerate, a parse error's second attempt): the same messages
        latest = next((e for e in reversed(earlier) if e.inputs == span.input_messages), None)
        resent = (
            len(history) == 1
            and latest is not None
            and latest.caller == caller
            and bool(latest.answer)
            and latest.ended_ns <= span.span.start_ns
            and latest.trace_id != span.span.trace_id
        )
        read, counts = _history_read(history, [said for *_, said in answer], seen, span, resent)
    answered: Counter[tuple[str, str]] = Counter()
    said_now: list[Occurrence] = []
    for _, _, _, said in answer:
        answered[said] += 1
        said_now.append((*said, counts[said] + answered[said]))
    sent = _Sent(
        caller, span.input_messages, read, counts, set(said_now), span.span.end_ns, span.span.trace_id
    )
    earlier.append(sent)
    return [*read, *said_now], sent


def _history_read(
    history: list[Shown], answer: list[tuple[str, str]], seen: _Seen, span: AgentSpan, resent: bool = False
) -> tuple[list[Occurrence], Counter[tuple[str, str]]]:
    """A history's messages (`_occurrences`), and the count of each message's words its answer goes on from
    (`answer`: the answer's words). `resent`: the same agent sent this one message to a call that answered
    and ended before this one started, in another trace — its next turn (`_occurrences`)."""
    counted: Counter[tuple[str, str]] = Counter()
    occurrences: list[Occurrence] = []
    for _, _, _, said in history:
        counted[said] += 1
        occurrences.append((*said, counted[said]))
    first_seen, start_ns = seen.first_seen, span.span.start_ns
    if not first_seen or (not history and not span.input_messages):
        return occurrences, counted  # nothing seen yet; an agent's span repeating its model's answer
    if not history:  # a window of tool messages: its answer is new
        return occurrences, seen.said_before(answer, start_ns)
    if sum(1 for said in occurrences if said in first_seen) == len(first_seen):
        return occurrences, counted  # it holds every message seen (the common case: a whole history)
    if occurrences[0][:2] == seen.opening:
        return occurrences, counted  # it starts as the conversation did: a whole history, a side call's
    # a window of new messages only (a window of the new message alone, an agent with no memory): what it
    # holds and its answer are counted on from what was seen (the agent's second `Done.` is not its first)
    fresh = resent or not any(o in first_seen for o in occurrences)
    # behind: after its first message (a summary may head a window), a message counted as one seen before the
    # message it follows; or a later message with the words of one it holds was seen (`_Seen.shown_after`)
    # with no answer recorded yet (inputs only), a window's head is its message too when the user's (a summary
    # heads a window as the system's or the agent's): its answers, which would show it behind, are unseen
    head = 0 if occurrences[0][0] == "user" and not seen.answered else 1
    sights = [first_seen[o][0] for o in occurrences[head:] if o in first_seen]
    since = min((first_seen[o][0] for o in occurrences if o in first_seen), default=start_ns)
    if (
        not fresh
        and all(a < b for a, b in itertools.pairwise(sights))
        and not seen.shown_after(since, start_ns, set(occurrences))
    ):
        return occurrences, counted  # not behind
    words = [said for *_, said in history]
    last = seen.last_before(len(words), start_ns)
    overlap, tail = _overlap(last, words), 0
    # no answer recorded (inputs only), a span that started before the call (an agent's, the run's) may have
    # shown the window's last messages already: the window's start matches what was seen before them
    for r in range(1, len(words) - 1) if not overlap and not seen.answered else ():
        if any(seen.ended[o] < start_ns for o in last[-r:]):
            break  # shown by a span that had ended: what it showed was seen, not shown ahead
        if [o[:2] for o in last[-r:]] == words[-r:] and (m := _overlap(last[:-r], words[:-r])):
            overlap, tail = m, r
            break
    if not overlap and not fresh:
        return occurrences, counted
    said_before = seen.said_before([*words, *answer], start_ns)
    new: Counter[tuple[str, str]] = Counter()
    aligned = last[len(last) - tail - overlap : len(last) - tail]  # none when nothing overlaps (`fresh`)
    for said in words[overlap : len(words) - tail]:
        new[said] += 1
        aligned.append((*said, said_before[said] + new[said]))
    return aligned + last[len(last) - tail :], said_before + new


def _overlap(last: Sequence[Occurrence], words: Sequence[tuple[str, str]]) -> int:
    """How many of the last messages seen are a history's first messages (its words), the most."""
    return next(
        (
            len(last) - j
            for j in range(len(last))
            if last[j][:2] == words[0] and [o[:2] for o in last[j:]] == list(words[: len(last) - j])
        ),
        0,
    )


def _placed(s: AgentSpan, i: int, placed: dict[tuple[str, int], int]) -> int:
    """When a call asked for in message `i` of `s`'s input came: where that history puts it, and before the
    next message of that history came (a guardrail call, or an agent's span, may have shown the next user's
    message first) — unless the history starts at the call: one a memory window cut, whose next words may be
    the same as words said earlier, which say nothing about the call. (A call seen in an answer is timed by
    that answer instead: `_calls`.)"""
    time = s.span.start_ns - (len(s.input_messages) - i)
    if not any((s.span.span_id, j) in placed for j in range(i + 1)):
        return time  # a history that starts at the call (a memory window) says nothing of its next words
    for j in range(i + 1, len(s.input_messages)):
        when = placed.get((s.span.span_id, j))
        if when is not None:
            return min(time, when - 1)
    return time


def _calls_follow(messages: Sequence[Message], i: int) -> bool:
    """Whether the calls the model asked for beside message `i`'s words come right after it: as the calls'
    results (a history that left the request out: OpenLIT), or as a message that only asks for them (the
    Responses API's items: a `message`, then a `function_call`); a message of the model's that says nothing
    the reader reads (a reasoning item) may stand between."""
    j = i + 1
    while j < len(messages) and _silent(messages[j]):
        j += 1
    if j == len(messages):
        return False
    after = messages[j]
    return after.role == "tool" or (
        after.role == "assistant" and bool(after.tool_calls) and not (after.text or "").strip()
    )


def _silent(m: Message) -> bool:
    return m.role == "assistant" and not (m.text or "").strip() and not m.tool_calls


def _calls(spans: Sequence[AgentSpan], placed: dict[tuple[str, int], int]) -> list[ObservedTurn]:
    """Tool calls, one per distinct call: its id, name and arguments.

    Models reuse call ids (gpt-4o does, within one conversation), so the id alone does not name a call:
    two requests with the same id but another tool or other arguments are two calls. A tool result
    message answers the call with its id among those of the request before it not yet answered (one without an
    id, or with an id none of them has, the first of them: the chat protocol's order; with no request before
    it, the latest call with its id: `_answered`); a tool span
    answers the first unanswered call with its id (and, when it has no id, its name and arguments).
    """
    calls: dict[str, ObservedTurn] = {}
    requested: list[tuple[str, str, str, str]] = []  # (key, call_id, name, canonical args) in order
    results: dict[str, str] = {}
    without_id: set[str] = set()  # requested calls that carried no id in the model's messages
    # (the key of a call with an id, which of the calls with its name and arguments in a history it is) -> its
    # key from when it was read without an id
    alias: dict[tuple[str, int], str] = {}
    answered: set[str] = set()  # calls an answer asked for (their time is that answer's)
    for s in spans:
        latest: dict[str, str] = {}  # call id -> key of the latest call with it in this history
        same_here: Counter[tuple[str, str]] = Counter()  # calls in this history, by name and arguments
        # the latest request's calls not yet answered, in order: (key, the id the request gave it)
        asking: list[tuple[str, str | None]] = []
        for where, messages in (("in", s.input_messages), ("out", s.output_messages)):
            for i, m in enumerate(messages):
                if m.role == "tool" and m.text is not None:
                    key = _answered(m.tool_call_id, asking, latest, requested)
                    asking = [a for a in asking if a[0] != key]
                    if key is not None:
                        results.setdefault(key, m.text)
                elif m.role != "tool":
                    asking = []
                for c in m.tool_calls:
                    canon = canonical_arguments(c.arguments)
                    same_here[(c.name, canon)] += 1
                    nth = same_here[(c.name, canon)]
                    if c.call_id:
                        call_id = c.call_id
                        key = f"{call_id}\x1f{c.name}\x1f{canon}"
                        if key not in calls:
                            key = alias.get((key, nth)) or _adopted(
                                key, nth, requested, without_id, alias, calls
                            )
                        latest[call_id] = key
                    else:
                        key, call_id = _unnamed_call(c.name, canon, nth, requested)
                        without_id.add(key)
                    asking.append((key, c.call_id))
                    if where == "in" and key in answered:
                        continue  # an answer that asked for it times it: a history's place, read by its
                        # texts (which a window or repeated words can mislead), is no better
                    # as its message: a history's came before its call, in their order, and no later than the
                    # history's next message came (`_messages`); an answer's, when the call ended
                    time = _placed(s, i, placed) if where == "in" else s.span.end_ns
                    deps = _results_since_user(s.input_messages) if where == "out" else set()
                    if key in calls:
                        first_answer = where == "out" and key not in answered  # over a history's place
                        calls[key].time_ns = time if first_answer else min(calls[key].time_ns, time)
                        calls[key].depends_on_calls |= deps  # first read from an agent's history, say
                    else:
                        calls[key] = ObservedTurn(
                            kind="call",
                            time_ns=time,
                            tool=c.name,
                            call_id=call_id,
                            arguments=c.arguments,
                            span_id=s.span.span_id,
                            trace_id=s.span.trace_id,
                            depends_on_calls=deps,
                        )
                        requested.append((key, call_id, c.name, canon))
                    if where == "out":
                        answered.add(key)
    claimed: set[str] = set()
    for s in (s for s in spans if s.kind == "tool" and s.tool is not None):  # in start order, as `spans`
        tool = s.tool
        assert tool is not None
        key = _answered_call(tool.call_id, tool.name, tool.arguments, requested, claimed) or _answered_call(
            None, tool.name, tool.arguments, [r for r in requested if r[0] in without_id], claimed
        )  # a tool span with an id answers a call the messages showed without one
        defaulted = key is None and tool.call_id is None and isinstance(tool.arguments, dict)
        if defaulted:  # the function's defaults recorded beside what the model passed (MLflow's inputs)
            key = next((r[0] for r in requested if r[0] not in claimed and r[2] == tool.name
                        and _within(calls[r[0]].arguments, tool.arguments)), None)  # fmt: skip
        if key is None:
            key = f"span:{s.span.span_id}"
        claimed.add(key)
        turn = calls.get(key) or ObservedTurn(
            kind="call", time_ns=s.span.start_ns, tool=tool.name, call_id=tool.call_id or key
        )
        turn.time_ns = min(turn.time_ns, s.span.start_ns)
        turn.tool = tool.name
        model_passed = defaulted and key in calls  # what the model passed: the defaults are no choice of its
        if not model_passed:
            turn.arguments = tool.arguments if tool.arguments is not None else turn.arguments
        turn.arguments_error = tool.arguments_error
        turn.result = tool.result
        turn.error = tool.error or _error_result(tool.result, tool.name)
        turn.latency_ms = round((s.span.end_ns - s.span.start_ns) / 1e6, 3)
        turn.span_id, turn.trace_id = s.span.span_id, s.span.trace_id
        turn.executed = True
        for link in s.span.links:
            turn.depends_on_calls.add(f"span:{link.span_id}")
        calls[key] = turn
    for key, turn in calls.items():
        # a tool span that recorded no result (OpenLLMetry's older attributes only) keeps the one the messages gave
        if (not turn.executed or turn.result is None) and key in results:
            turn.result = _maybe_json(results[key])
            turn.error = turn.error or _error_result(turn.result, turn.tool or "")
    return list(calls.values())


def _answered(
    call_id: str | None,
    asking: list[tuple[str, str | None]],
    latest: dict[str, str],
    requested: Sequence[tuple[str, str, str, str]],
) -> str | None:
    """The key of the call a tool result answers. After a request (`asking`: its calls not yet answered), the
    one of them with the result's id; a result without an id, or with an id none of them has, answers the
    first of them, the chat protocol's order (OpenInference's LiteLLM instrumentation writes no ids; the
    Google Gen AI instrumentation numbers calls and results by their parts, `get_weather_0`, which may name
    another request's call). With no request before it (OpenLIT leaves requests out), the latest call with its
    id in this history, else the conversation's first."""
    if asking:
        return next((key for key, asked in asking if call_id and asked == call_id), asking[0][0])
    if not call_id:
        return None
    return latest.get(call_id) or next((k for k, cid, _, _ in requested if cid == call_id), None)


def _unnamed_call(
    name: str, canon: str, nth: int, requested: Sequence[tuple[str, str, str, str]]
) -> tuple[str, str]:
    """The key and id of a requested call that carries no id (some instrumentations drop it): the
    `nth` call with its name and arguments in one history (with an id or without) is the `nth` such call
    of the conversation, whether an earlier history showed it with an id or without."""
    same = [(key, cid) for key, cid, n, c in requested if n == name and c == canon]
    if len(same) >= nth:
        return same[nth - 1]
    call_id = f"{name}#{nth}" if nth > 1 else name
    return f"{call_id}\x1f{name}\x1f{canon}", call_id


def _adopted(
    key: str,
    nth: int,
    requested: list[tuple[str, str, str, str]],
    without_id: set[str],
    alias: dict[tuple[str, int], str],
    calls: dict[str, ObservedTurn],
) -> str:
    """The key a call with an id (`key`, new here) is read under: that of the same call an earlier history
    showed without its id, where there is one — LiteLLM writes a model's answer without its calls' ids, and
    the next call's history resends them with theirs. The `nth` call with its name and arguments in this
    history is the conversation's `nth`; when that one was read without an id and no id took it yet, this
    id names it from now on (its results and the replies that build on them link to it by the id)."""
    call_id, name, canon = key.split("\x1f", 2)
    same = [i for i, r in enumerate(requested) if r[2] == name and r[3] == canon]
    if len(same) < nth:
        return key
    i = same[nth - 1]
    earlier = requested[i][0]
    if earlier not in without_id or earlier in alias.values():
        return key
    # by `nth` too: a provider that numbers calls `call_1` in every answer reuses `key` for the next such call
    alias[(key, nth)] = earlier
    requested[i] = (earlier, call_id, name, canon)
    calls[earlier].call_id = call_id
    return earlier


def _answered_call(
    call_id: str | None,
    name: str,
    arguments: Any,
    requested: Sequence[tuple[str, str, str, str]],
    claimed: set[str],
) -> str | None:
    """The key of the requested call a tool span executed: the first unclaimed one with its id (or, without
    an id, its name) whose name and arguments are the span's; with an id, or without arguments, the first
    with its name."""
    canon = canonical_arguments(arguments)
    open_ = [r for r in requested if r[0] not in claimed]
    same = (
        [r for r in open_ if r[1] == call_id] if call_id is not None else [r for r in open_ if r[2] == name]
    )
    exact = [r for r in same if r[2] == name and r[3] == canon]
    named = [r for r in same if r[2] == name] if call_id is not None or arguments is None else []
    found = exact or named
    return found[0][0] if found else None


def _within(asked: Any, ran: Any) -> bool:
    """Every argument the model passed is among those the tool span records, with the same value (a tracer
    that records the function's bound arguments adds its defaults: `units="metric"`)."""
    return (
        isinstance(asked, dict)
        and isinstance(ran, dict)
        and bool(asked)
        and len(ran) > len(asked)
        and all(k in ran and canonical_arguments(ran[k]) == canonical_arguments(v) for k, v in asked.items())
    )


def _start(s: AgentSpan) -> tuple[int, int, str]:
    return (s.span.start_ns, s.span.end_ns, s.span.span_id)


#: Keys an error-only tool result may carry beside `error` (`{"error": "not found", "code": 404}`).
_ERROR_RESULT_KEYS = frozenset({"error", "message", "code", "status", "details", "type"})


def _error_result(result: Any, tool: str) -> str | None:
    """A result the tool itself marks as an error. Of any call: an object whose `error` is set and that
    carries nothing but the error's description. Of a call that may act (`evidence.may_act`), also a result that says
    it did not succeed (`"success": false`, `"ok": false`: `{"success": false, "error_code":
    "SLOT_UNAVAILABLE", …}`) or whose `error` is set beside its context as an error is, not as text a
    record holds: `true`, an object (`{"error": {"code": "SLOT_TAKEN"}, "request_id": …}`) or a code of
    joined words (`{"error": "insufficient_capacity", "spaces_available": 1}`) — not `"Connection timed
    out"`, the user's problem a `create_ticket` records, nor `E42`, a device's fault code. A lookup's
    result may be a record that holds such fields of its own (`get_payment` or `payment_status` finding
    `"error": "card_declined"`, `availability_check` answering `"ok": false`): that is what it read, not
    how the lookup went. A `status` says nothing either way (`update_delivery` may set one to `failed`).
    An empty, null or `none` error is none (`{"error": null, "data": …}`)."""
    if not isinstance(result, dict):
        return None
    error = result.get("error")
    if error and set(result) <= _ERROR_RESULT_KEYS:
        return _said(error)
    if not may_act(tool):
        return None
    success, ok = _flag(result.get("success")), _flag(result.get("ok"))
    if success or ok:
        return None
    if success is False or ok is False:
        for key in ("error", "error_code", "errorCode", "reason", "message"):
            if not _no_error(value := result.get(key)):
                return _said(value)
        return "the tool reports it did not succeed"
    if error is True:
        return _said(result.get("message") or "true")
    if isinstance(error, dict) and error:
        return _said(error)
    if isinstance(error, str) and _ERROR_CODE.fullmatch(error.strip()) and not _no_error(error):
        return error
    return None


#: an error written as a code of joined words (`insufficient_capacity`, `STAGE_LOCKED`, `waitlist-limit`)
_ERROR_CODE = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z0-9]+)+")
#: what an `error` field holds when there is none (`ERROR_CODE_UNSPECIFIED` too: protobuf's default)
_NO_ERROR = frozenset({"none", "null", "nil", "no_error", "no error", "noerror", "ok", "success", "n/a", ""})


def _flag(value: Any) -> bool | None:
    """A boolean field as written (`false`, `"false"`), or None when it is no boolean."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in ("true", "false"):
        return value.strip().casefold() == "true"
    return None


def _no_error(value: Any) -> bool:
    """Whether an error field says there is none: false, null, empty or a word for none."""
    if not value:
        return True
    if isinstance(value, str):
        said = value.strip().casefold()
        return said in _NO_ERROR or said.endswith("_unspecified")
    return False


def _said(error: Any) -> str:
    if isinstance(error, str):
        return error
    try:
        return json.dumps(error, sort_keys=True, default=str)
    except (TypeError, ValueError):  # keys of mixed types: no JSON a span could carry
        return str(error)


def _results_since_user(messages: Sequence[Message]) -> set[str]:
    """Tool results a model saw since the last user message: the calls its answer builds on."""
    deps: set[str] = set()
    for m in messages:
        if m.role == "user":
            deps.clear()
        elif m.role == "tool" and m.tool_call_id:
            deps.add(m.tool_call_id)
    return deps


def canonical_arguments(value: Any) -> str:
    """One spelling of a call's arguments, whether a span carries them parsed or as JSON text (a key, here
    and in history.py's digests: compared, never shown). Every history resends every earlier call, so this
    runs once per call per later model call: orjson's sorted-key bytes, read as text."""
    if isinstance(value, str):
        value = _maybe_json(value)
    found = canonical_json(value)
    return found.decode() if isinstance(found, bytes) else found


def _maybe_json(text: str) -> Any:
    try:
        return parse_json(text)
    except ValueError:
        return text
