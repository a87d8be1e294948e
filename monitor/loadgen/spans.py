"""Load generator, part 2: a generated conversation → OTLP spans in one convention's shape. Pure.

Each user turn starts an agent invocation (its own trace): an agent span around model-call spans and
tool spans, the way the instrumentations we recorded emit them (tests/fixtures/otlp):

- `genai`: OTel GenAI, `gen_ai_latest_experimental` — messages as `gen_ai.input.messages` /
  `gen_ai.output.messages` attributes (`{role, parts}`), tool arguments/results as attributes;
- `genai-events`: OTel GenAI v1.36 — messages as per-message events (`gen_ai.user.message`,
  `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`);
- `strands`: Strands Agents' dialect — content blocks (`text`, `toolUse`, `toolResult`) in events,
  an `execute_tool` span's request and answer as its `gen_ai.tool.message` / `gen_ai.choice` events;
- `openinference`: Arize OpenInference — AGENT / LLM / TOOL spans with flattened
  `llm.input_messages.N.message.*`, a TOOL span's arguments and result in `input.value` / `output.value`
  and no tool-call id.

As in the recordings, Strands names the conversation (`session.id`) and reference on every span; the
other shapes name them on the agent span only (as OpenInference does), so their other spans must join
the conversation through their trace — the harder case for windows and for the Kafka repartition. Every
model call sees the whole history, as frameworks resend it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from monitor.loadgen.scenarios import Conversation, LiveTurn

CONVENTIONS = ("genai", "genai-events", "strands", "openinference")
SCOPES = {
    "genai": "opentelemetry.instrumentation.openai_v2",
    "genai-events": "opentelemetry.instrumentation.openai_v2",
    "strands": "strands.telemetry.tracer",
    "openinference": "openinference.instrumentation.openai_agents",
}
MODEL = "gpt-4o-mini-2024-07-18"
END_MARKER = "aem.conversation.end"


@dataclass
class TimedSpan:
    span: Span
    convention: str
    agent: str
    conversation_id: str
    closes: bool = False  # carries the end marker


@dataclass(frozen=True)
class Timing:
    """Simulated durations, in seconds (scaled by the caller)."""

    llm: tuple[float, float] = (0.3, 1.2)
    tool: tuple[float, float] = (0.02, 0.4)
    think: tuple[float, float] = (2.0, 8.0)  # a user's pause between invocations


def render(
    conv: Conversation, convention: str, start_ns: int, rng: random.Random, timing: Timing, end_marker: bool
) -> list[TimedSpan]:
    """All spans of one conversation, with event times from `start_ns`."""
    agent = conv.reference.family.agent
    out: list[TimedSpan] = []
    history: list[dict[str, Any]] = []  # neutral messages: {role, text?, calls?, call_id?, result?}
    invocations = _invocations(conv)
    t = start_ns
    for number, turns in enumerate(invocations):
        trace_id = rng.getrandbits(128).to_bytes(16, "big")
        root_id = rng.getrandbits(64).to_bytes(8, "big")
        user = turns[0]
        history.append({"role": "user", "text": user.text})
        inv_start = t
        children: list[Span] = []
        t += _ns(rng, (0.005, 0.02))
        pending = [x for x in turns[1:]]
        while pending:
            step = pending.pop(0)
            llm_start = t
            t += _ns(rng, timing.llm)
            if step.kind == "call":
                out_msg: dict[str, Any] = {
                    "role": "assistant",
                    "calls": [(step.call_id, step.tool, step.args)],
                }
                children.append(_llm(convention, trace_id, root_id, rng, llm_start, t, history, out_msg))
                history.append(out_msg)
                tool_start = t + 1_000_000
                t = tool_start + _ns(rng, timing.tool)
                children.append(_tool(convention, trace_id, root_id, rng, tool_start, t, step))
                answer = step.result if step.error is None else step.error
                history.append({"role": "tool", "call_id": step.call_id, "result": answer})
                t += 1_000_000
            else:
                out_msg = {"role": "assistant", "text": step.text}
                children.append(_llm(convention, trace_id, root_id, rng, llm_start, t, history, out_msg))
                history.append(out_msg)
        t += _ns(rng, (0.002, 0.01))
        reply = next((x.text for x in reversed(turns) if x.kind == "reply"), None)
        last = number == len(invocations) - 1
        root = _agent(
            convention, trace_id, root_id, inv_start, t, agent, conv, user.text, reply, last and end_marker
        )
        if convention == "strands":  # Strands names the conversation on every span (the 1.62 recording)
            ids = [
                _kv("session.id", conv.conversation_id),
                _kv("aem.reference_id", conv.reference.reference_id),
            ]
            for child in children:
                child.attributes.extend(ids)
        for span in children:
            out.append(TimedSpan(span, convention, agent, conv.conversation_id))
        out.append(TimedSpan(root, convention, agent, conv.conversation_id, closes=last and end_marker))
        t += _ns(rng, timing.think)
    return out


def _invocations(conv: Conversation) -> list[list[LiveTurn]]:
    groups: list[list[LiveTurn]] = []
    for turn in (t for ex in conv.exchanges for t in ex):
        if turn.kind == "user":
            groups.append([turn])
        else:
            groups[-1].append(turn)
    return groups


def _ns(rng: random.Random, bounds: tuple[float, float]) -> int:
    return int(rng.uniform(*bounds) * 1e9)


def _kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    if isinstance(value, float):
        return KeyValue(key=key, value=AnyValue(double_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value if isinstance(value, str) else _json(value)))


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _span(
    name: str, kind: int, trace_id: bytes, span_id: bytes, parent: bytes, start: int, end: int,
    attrs: dict[str, Any], events: Sequence[tuple[str, dict[str, Any]]] = (), error: str | None = None,
) -> Span:  # fmt: skip
    span = Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        name=name,
        kind=kind,  # type: ignore[arg-type]
        start_time_unix_nano=start,
        end_time_unix_nano=end,
        attributes=[_kv(k, v) for k, v in attrs.items() if v is not None],
    )
    for ev_name, ev_attrs in events:
        span.events.add(
            name=ev_name, time_unix_nano=start, attributes=[_kv(k, v) for k, v in ev_attrs.items()]
        )
    span.status.CopyFrom(
        Status(code=Status.STATUS_CODE_ERROR, message=error) if error else Status(code=Status.STATUS_CODE_OK)
    )
    return span


INTERNAL, CLIENT = Span.SPAN_KIND_INTERNAL, Span.SPAN_KIND_CLIENT


def _agent(
    convention: str, trace_id: bytes, span_id: bytes, start: int, end: int, agent: str,
    conv: Conversation, user: str | None, reply: str | None, end_marker: bool,
) -> Span:  # fmt: skip
    ref = conv.reference.reference_id
    marker: dict[str, Any] = {END_MARKER: True} if end_marker else {}
    if convention == "openinference":
        attrs = {"openinference.span.kind": "AGENT", "agent.name": agent, "session.id": conv.conversation_id,
                 "metadata": _json({"aem.reference_id": ref}), "input.value": user, "output.value": reply, **marker}  # fmt: skip
        return _span(agent, INTERNAL, trace_id, span_id, b"", start, end, attrs)
    base = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent,
        "aem.reference_id": ref,
        **marker,
    }
    if convention == "strands":
        attrs = {**base, "gen_ai.system": "strands-agents", "session.id": conv.conversation_id,
                 "gen_ai.request.model": MODEL}  # fmt: skip
        events: list[tuple[str, dict[str, Any]]] = [
            ("gen_ai.user.message", {"content": _json([{"text": user}])})
        ]
        if reply is not None:
            events.append(("gen_ai.choice", {"message": reply, "finish_reason": "end_turn"}))
        return _span(f"invoke_agent {agent}", INTERNAL, trace_id, span_id, b"", start, end, attrs, events)
    attrs = {**base, "gen_ai.provider.name": "openai", "gen_ai.conversation.id": conv.conversation_id}
    if convention == "genai":
        attrs["gen_ai.input.messages"] = _json([_genai_message({"role": "user", "text": user})])
        if reply is not None:
            attrs["gen_ai.output.messages"] = _json([_genai_message({"role": "assistant", "text": reply})])
    return _span(f"invoke_agent {agent}", INTERNAL, trace_id, span_id, b"", start, end, attrs)


def _llm(
    convention: str, trace_id: bytes, parent: bytes, rng: random.Random, start: int, end: int,
    history: list[dict[str, Any]], answer: dict[str, Any],
) -> Span:  # fmt: skip
    span_id = rng.getrandbits(64).to_bytes(8, "big")
    tokens_in = sum(len(_json(m)) for m in history) // 4
    tokens_out = len(_json(answer)) // 4
    if convention == "openinference":
        attrs: dict[str, Any] = {"openinference.span.kind": "LLM", "llm.model_name": MODEL,
                                 "llm.token_count.prompt": tokens_in, "llm.token_count.completion": tokens_out}  # fmt: skip
        for i, m in enumerate(history):
            attrs.update(_flat(f"llm.input_messages.{i}.message.", m))
        attrs.update(_flat("llm.output_messages.0.message.", answer))
        return _span("response", CLIENT, trace_id, span_id, parent, start, end, attrs)
    usage = {"gen_ai.usage.input_tokens": tokens_in, "gen_ai.usage.output_tokens": tokens_out}
    if convention == "genai":
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": MODEL,
                 **usage, "gen_ai.input.messages": _json([_genai_message(m) for m in history]),
                 "gen_ai.output.messages": _json([_genai_message(answer)])}  # fmt: skip
        return _span(f"chat {MODEL}", CLIENT, trace_id, span_id, parent, start, end, attrs)
    if convention == "strands":
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.system": "strands-agents", "gen_ai.request.model": MODEL,
                 **usage}  # fmt: skip
        events: list[tuple[str, dict[str, Any]]] = [
            (f"gen_ai.{m['role']}.message", {"content": _json(_blocks(m))}) for m in history
        ]
        events.append(("gen_ai.choice", {"message": _json(_blocks(answer)),
                                         "finish_reason": "tool_use" if answer.get("calls") else "end_turn"}))  # fmt: skip
        return _span("chat", CLIENT, trace_id, span_id, parent, start, end, attrs, events)
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": MODEL,
        **usage,
    }
    events = [(f"gen_ai.{m['role']}.message", _event(m)) for m in history]
    events.append(("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls" if answer.get("calls") else "stop",
                                     **_event(answer)}))  # fmt: skip
    return _span(f"chat {MODEL}", CLIENT, trace_id, span_id, parent, start, end, attrs, events)


def _tool(
    convention: str, trace_id: bytes, parent: bytes, rng: random.Random, start: int, end: int, step: LiveTurn
) -> Span:
    span_id = rng.getrandbits(64).to_bytes(8, "big")
    name = step.tool or ""
    if convention == "openinference":
        attrs: dict[str, Any] = {"openinference.span.kind": "TOOL", "tool.name": name, "input.value": _json(step.args),
                                 "output.value": None if step.error else _json(step.result),
                                 "exception.type": step.error.split(":")[0] if step.error else None}  # fmt: skip
        return _span(name, INTERNAL, trace_id, span_id, parent, start, end, attrs, error=step.error)
    base = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": step.call_id,
    }
    if convention == "strands":
        attrs = {
            **base,
            "gen_ai.system": "strands-agents",
            "gen_ai.tool.status": "error" if step.error else "success",
        }
        answer = step.error if step.error else _json(step.result)
        events = [("gen_ai.tool.message", {"role": "tool", "content": _json(step.args), "id": step.call_id}),
                  ("gen_ai.choice", {"message": _json([{"text": answer}]), "id": step.call_id})]  # fmt: skip
        return _span(
            f"execute_tool {name}", INTERNAL, trace_id, span_id, parent, start, end, attrs, events, step.error
        )
    attrs = {**base, "gen_ai.tool.call.arguments": _json(step.args),
             "gen_ai.tool.call.result": None if step.error else _json(step.result),
             "error.type": step.error.split(":")[0] if step.error else None}  # fmt: skip
    return _span(
        f"execute_tool {name}", INTERNAL, trace_id, span_id, parent, start, end, attrs, error=step.error
    )


def _genai_message(m: dict[str, Any]) -> dict[str, Any]:
    if m["role"] == "tool":
        return {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": m["call_id"], "result": m["result"]}],
        }
    parts: list[dict[str, Any]] = []
    if m.get("text") is not None:
        parts.append({"type": "text", "content": m["text"]})
    for call_id, name, args in m.get("calls", ()):
        parts.append({"type": "tool_call", "id": call_id, "name": name, "arguments": args})
    return {"role": m["role"], "parts": parts}


def _event(m: dict[str, Any]) -> dict[str, Any]:
    if m["role"] == "tool":
        return {"content": _json(m["result"]), "id": m["call_id"]}
    out: dict[str, Any] = {}
    if m.get("text") is not None:
        out["content"] = m["text"]
    if m.get("calls"):
        out["tool_calls"] = _json(
            [
                {"id": c, "type": "function", "function": {"name": n, "arguments": _json(a)}}
                for c, n, a in m["calls"]
            ]
        )
    return out


def _blocks(m: dict[str, Any]) -> list[dict[str, Any]]:
    if m["role"] == "tool":
        return [{"toolResult": {"toolUseId": m["call_id"], "status": "success",
                                "content": [{"text": _json(m["result"])}]}}]  # fmt: skip
    blocks: list[dict[str, Any]] = [{"text": m["text"]}] if m.get("text") is not None else []
    blocks += [{"toolUse": {"toolUseId": c, "name": n, "input": a}} for c, n, a in m.get("calls", ())]
    return blocks


def _flat(prefix: str, m: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {f"{prefix}role": m["role"]}
    if m["role"] == "tool":
        out[f"{prefix}content"] = _json(m["result"])
        out[f"{prefix}tool_call_id"] = m["call_id"]
        return out
    if m.get("text") is not None:
        out[f"{prefix}content"] = m["text"]
    for j, (call_id, name, args) in enumerate(m.get("calls", ())):
        p = f"{prefix}tool_calls.{j}.tool_call."
        out.update({f"{p}id": call_id, f"{p}function.name": name, f"{p}function.arguments": _json(args)})
    return out
