"""Assemble stage, part 1: one conversation's normalized spans → observed turns. Pure.

In: the `AgentSpan`s of one conversation, in any order and from any number of traces. Out: turns in
event-time order — user messages, replies (what the agent said to the user) and tool calls (name,
arguments, result, status, latency) — with dependencies from tool-call ids and span links.

Frameworks resend the whole history to every LLM call, and an agent span repeats its LLM's answer, so
the same message appears many times. A message counts as often as it appears in the *one* span that
shows it most (a user who really says "yes" twice shows it twice in later histories), at the time of
the earliest span that shows it. Tool calls are keyed by tool-call id; a tool span without an id
(OpenInference, Traceloop) takes the id of the requested call with the same name and arguments. A
call requested by a model but never executed in a span still becomes a turn, with the result the
next model call was given. Invariant: the same spans in any order give the same turns.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from monitor.model import AgentSpan, Message
from monitor.score.values import normalize_text

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
    span_id: str | None = None
    depends_on_calls: set[str] = field(default_factory=set)
    executed: bool = False


def build_transcript(spans: Sequence[AgentSpan]) -> list[ObservedTurn]:
    ordered = sorted(spans, key=lambda s: (s.span.start_ns, s.span.end_ns, s.span.span_id))
    turns: list[ObservedTurn] = []
    turns += _messages(ordered, "user")
    turns += _messages(ordered, "assistant")
    turns += _calls(ordered)
    turns.sort(key=lambda t: (t.time_ns, _KIND_ORDER[t.kind], t.call_id or "", t.text or ""))
    return turns


def _messages(spans: Sequence[AgentSpan], role: str) -> list[ObservedTurn]:
    """User messages or assistant replies, deduplicated across repeated histories."""
    first_seen: dict[tuple[str, int], tuple[int, str, str, set[str]]] = {}
    for s in spans:
        seen_here: Counter[str] = Counter()
        for where, messages in (("in", s.input_messages), ("out", s.output_messages)):
            for i, m in enumerate(messages):
                if m.role != role or not (m.text or "").strip():
                    continue
                key = normalize_text(m.text or "")
                seen_here[key] += 1
                occurrence = (key, seen_here[key])
                time = s.span.start_ns if where == "in" else s.span.end_ns
                if occurrence not in first_seen or time < first_seen[occurrence][0]:
                    deps = (
                        _results_since_user(messages[:i])
                        if where == "in"
                        else _results_since_user(s.input_messages)
                    )
                    first_seen[occurrence] = (time, (m.text or "").strip(), s.span.span_id, deps)
    kind: Literal["user", "reply"] = "user" if role == "user" else "reply"
    return [
        ObservedTurn(
            kind=kind, time_ns=t, text=text, span_id=sid, depends_on_calls=deps if kind == "reply" else set()
        )
        for t, text, sid, deps in first_seen.values()
    ]


def _calls(spans: Sequence[AgentSpan]) -> list[ObservedTurn]:
    calls: dict[str, ObservedTurn] = {}
    requested: list[tuple[str, str, str]] = []  # (call_id, name, canonical args) in request order
    results: dict[str, str] = {}
    for s in spans:
        for m in s.input_messages:
            if m.role == "tool" and m.tool_call_id and m.text is not None:
                results.setdefault(m.tool_call_id, m.text)
        for m in (*s.input_messages, *s.output_messages):
            for c in m.tool_calls:
                if not c.call_id:
                    continue
                if c.call_id not in calls:
                    deps = _results_since_user(s.input_messages) if m in s.output_messages else set()
                    calls[c.call_id] = ObservedTurn(
                        kind="call",
                        time_ns=s.span.end_ns,
                        tool=c.name,
                        call_id=c.call_id,
                        arguments=c.arguments,
                        span_id=s.span.span_id,
                        depends_on_calls=deps,
                    )
                    requested.append((c.call_id, c.name, _canon(c.arguments)))
    claimed: set[str] = set()
    extra = 0
    for s in spans:
        if s.kind != "tool" or s.tool is None:
            continue
        tool = s.tool
        call_id = tool.call_id
        if call_id is None:  # match the requested call with the same name and arguments
            call_id = next(
                (
                    cid
                    for cid, name, args in requested
                    if cid not in claimed and name == tool.name and args == _canon(tool.arguments)
                ),
                None,
            )
        if call_id is None:
            extra += 1
            call_id = f"span:{s.span.span_id}"
        claimed.add(call_id)
        turn = calls.get(call_id) or ObservedTurn(
            kind="call", time_ns=s.span.start_ns, tool=tool.name, call_id=call_id
        )
        turn.time_ns = min(turn.time_ns, s.span.start_ns)
        turn.tool = tool.name
        turn.arguments = tool.arguments if tool.arguments is not None else turn.arguments
        turn.arguments_error = tool.arguments_error
        turn.result = tool.result
        turn.error = tool.error
        turn.latency_ms = round((s.span.end_ns - s.span.start_ns) / 1e6, 3)
        turn.span_id = s.span.span_id
        turn.executed = True
        for link in s.span.links:
            turn.depends_on_calls.add(f"span:{link.span_id}")
        calls[call_id] = turn
    for cid, turn in calls.items():
        if not turn.executed and cid in results:
            turn.result = _maybe_json(results[cid])
    return list(calls.values())


def _results_since_user(messages: Sequence[Message]) -> set[str]:
    """Tool results a model saw since the last user message: the calls its answer builds on."""
    deps: set[str] = set()
    for m in messages:
        if m.role == "user":
            deps.clear()
        elif m.role == "tool" and m.tool_call_id:
            deps.add(m.tool_call_id)
    return deps


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
