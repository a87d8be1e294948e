"""Langfuse SDK tracing (`langfuse.observation.*`: the OpenTelemetry-based SDK, Langfuse 3 and later). Pure.

Langfuse writes its own attributes on the spans it makes: `langfuse.observation.type` says what the span
is, `langfuse.observation.input` / `.output` hold what went in and came out (JSON text, or plain text),
and the conversation id is `session.id` (what `propagate_attributes(session_id=…)` sets on every span of
a turn; common.identity reads it). Read, as recorded with langfuse 5.2 (tests/fixtures/travel/langfuse):

- `generation` (a model call; the `langfuse.openai` drop-in client writes one per call, and so does its
  LangChain callback handler): input the request's `{"messages": [...], "tools": [...]}` — or a bare list
  of chat messages — in OpenAI chat form (`role`, `content` as text or `[{type: text, text}]` parts,
  `tool_calls`, `tool_call_id`; LangChain's calls as `{name, args, id}`); output the assistant message (or
  its text, or a list of messages); tokens from `.usage_details` (OpenAI's `prompt_tokens` /
  `completion_tokens`, or Langfuse's `input` / `output`). The LangChain handler lists the model's tools
  as `tool` messages whose content is the definition (`{type: function, function: {name, parameters}}`):
  read as tool definitions, never as tool results.
- `tool`: input the arguments — a decorated function's `{"args": [...], "kwargs": {...}}`
  (`@observe(as_type="tool")`) or LangChain's arguments object — and output the result — the function's
  return value, or LangChain's `ToolMessage` (payloads.py), which names the call it answers; LangChain's
  call id is also in `langfuse.observation.metadata.tool_call_id`. Without an id the transcript links a
  tool span to the model's call by name and arguments.
- `agent`: the app's own function around a turn (`@observe(as_type="agent")`); its input and output are
  whatever that function takes and returns, not messages, so only the model calls' messages are read.
- anything else (`chain` — LangChain's graph and its nodes —, `span`, `event`, `retriever`, …): carried
  along, not read.

A failed observation is `level: ERROR` with its `status_message` (and the span's status ERROR).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolInvocation
from monitor.normalize.common import (
    MessageMemo,
    build_agent_span,
    identity,
    json_arguments,
    loads,
    openai_tool_calls,
    read_items,
    role_of,
    tokens,
    tool_definitions,
)
from monitor.normalize.payloads import positional, unwrap_result

TYPE = "langfuse.observation.type"
INPUT = "langfuse.observation.input"
OUTPUT = "langfuse.observation.output"
_KINDS = {"generation": "llm", "tool": "tool", "agent": "agent"}


def is_langfuse(span: Span) -> bool:
    """Langfuse writes `langfuse.observation.type` on every observation it makes (`session.id` and the
    `langfuse.trace.*` keys it propagates onto other instrumentations' spans prove nothing)."""
    return TYPE in span.attributes


def normalize_langfuse(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = span.attributes
    kind = _KINDS.get(str(attrs.get(TYPE)).lower(), "other")
    inputs: list[Message] = []
    outputs: list[Message] = []
    definitions: dict[str, Any] = {}
    tool = None
    if kind == "llm":
        given = loads(attrs.get(INPUT))
        request = given if isinstance(given, dict) else {}
        items = request.get("messages") if request else given
        items = items if isinstance(items, list) else []
        listed = [i for i in items if _definition(i)]
        inputs = _messages([i for i in items if not _definition(i)] if listed else items)
        outputs = _reply(loads(attrs.get(OUTPUT)))
        definitions = tool_definitions(request.get("tools"), [i["content"] for i in listed])
    elif kind == "tool":
        tool = _tool(span)
    usage = loads(attrs.get("langfuse.observation.usage_details"))
    usage = usage if isinstance(usage, dict) else {}
    who = identity(span, config)
    return build_agent_span(
        span, who, "langfuse", kind, tool, inputs, outputs,
        tokens(usage, "input", "prompt_tokens", "input_tokens"),
        tokens(usage, "output", "completion_tokens", "output_tokens"),
        definitions,
    )  # fmt: skip


def _definition(item: Any) -> bool:
    """A `tool` message that is a tool's definition (Langfuse's LangChain handler lists them so)."""
    content = item.get("content") if isinstance(item, dict) and item.get("role") == "tool" else None
    return (
        isinstance(content, dict)
        and content.get("type") == "function"
        and isinstance(content.get("function"), dict)
    )


def _tool(span: Span) -> ToolInvocation:
    attrs = span.attributes
    given = loads(attrs.get(INPUT))
    if isinstance(given, dict) and given and set(given) <= {"args", "kwargs"}:  # a decorated function's call
        given = positional(list(given.get("args") or []), dict(given.get("kwargs") or {}))
    args, args_error = json_arguments(given)
    raw = attrs.get(OUTPUT)
    result = unwrap_result(raw)
    error = result.error
    if str(attrs.get("langfuse.observation.level", "")).upper() == "ERROR" or span.status == "ERROR":
        error = str(attrs.get("langfuse.observation.status_message") or span.status_message or "error")
    call_id = _metadata(attrs.get("langfuse.observation.metadata.tool_call_id"))
    return ToolInvocation(
        name=span.name,
        call_id=call_id or result.call_id,
        arguments=args,
        arguments_error=args_error,
        result=None if raw is None else result.value,
        error=error,
    )


def _messages(value: Any) -> list[Message]:
    return read_items(value, _ITEMS, _message)


_ITEMS = MessageMemo()  # every generation resends the history: each distinct message is read once


def _message(item: dict[str, Any]) -> list[Message]:
    """One OpenAI chat message: `role`, `content` (text, or parts of which the `text` ones count; a tool's
    content that is an object stays its JSON), `tool_calls`, `tool_call_id`."""
    role = role_of(item.get("role"))
    if role is None:
        return []
    content = item.get("content")
    if isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict)]
        content = "".join(str(p.get("text", "")) for p in parts if p.get("type") in ("text", "input_text"))
    elif content is not None and not isinstance(content, str):
        content = _json(content)
    calls = openai_tool_calls(item.get("tool_calls"))
    call_id = item.get("tool_call_id") if role == "tool" else None
    return [Message(role=role, text=content or None, tool_calls=tuple(calls), tool_call_id=call_id)]


def _reply(value: Any) -> list[Message]:
    """A generation's output: the assistant message (or an OpenAI choice holding it), a list of them, or
    its text."""
    if isinstance(value, str):
        return [Message(role="assistant", text=value)] if value else []
    items = value if isinstance(value, list) else [value]
    out: list[Message] = []
    for item in items:
        message = item.get("message", item) if isinstance(item, dict) else None
        if isinstance(message, dict):
            out += _message({**message, "role": "assistant"})
    return out


def _metadata(value: Any) -> str | None:
    """A `langfuse.observation.metadata.*` value: Langfuse writes each as JSON (a string in quotes)."""
    if isinstance(value, str) and value.startswith('"'):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    return str(value) if isinstance(value, str | int) and value != "" else None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
