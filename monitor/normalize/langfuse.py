"""Langfuse SDK tracing (`langfuse.observation.*`: the OpenTelemetry-based SDK, Langfuse 3 and later). Pure.

Langfuse writes its own attributes on the spans it makes: `langfuse.observation.type` says what the span
is, `langfuse.observation.input` / `.output` hold what went in and came out (JSON text, or plain text),
and the conversation id is `session.id` (what `propagate_attributes(session_id=…)` sets on every span of
a turn; common.identity reads it), else the LangChain handler's run metadata `langfuse_session_id` (a chat
model it traced with no chain around it carries only that). Read, as recorded with langfuse 5.2 (tests/fixtures/travel/langfuse):

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

from dataclasses import replace
from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Span, ToolInvocation
from monitor.normalize.common import (
    build_agent_span,
    identity,
    json_arguments,
    loads,
    model_call,
    unquoted,
)
from monitor.normalize.payloads import called_with, unwrap_result

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
    tool = _tool(span) if kind == "tool" else None
    call = model_call(
        called_with(loads(attrs.get(INPUT))) if kind == "llm" else None,  # `@observe(as_type="generation")`
        attrs.get(OUTPUT) if kind == "llm" else None,
        attrs.get("langfuse.observation.usage_details"),
    )
    who = identity(span, config)
    if who.conversation_id is None:  # a chat model the LangChain handler traced alone: the run's metadata
        session = _metadata(attrs.get("langfuse.observation.metadata.langfuse_session_id"))
        who = replace(who, conversation_id=session) if session else who
    return build_agent_span(
        span, who, "langfuse", kind, tool, call.inputs, call.outputs,
        call.input_tokens, call.output_tokens, call.definitions,
    )  # fmt: skip


def _tool(span: Span) -> ToolInvocation:
    attrs = span.attributes
    args, args_error = json_arguments(called_with(loads(attrs.get(INPUT))))
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


def _metadata(value: Any) -> str | None:
    """A `langfuse.observation.metadata.*` value: Langfuse writes each as JSON (a string in quotes)."""
    value = unquoted(value)
    return str(value) if isinstance(value, str | int) and value != "" else None
