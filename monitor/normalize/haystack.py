"""Haystack's own tracer (`haystack.*` spans: haystack-ai 2.x/3.x through `opentelemetry-haystack`). Pure.

Reads the Agent's spans — `haystack.agent.run` (agent: `haystack.agent.input` / `.output` messages,
`haystack.agent.tools` definitions), `haystack.agent.step.llm` (model call: `.input` `{messages, tools}`,
`.output` `{replies}`), `haystack.agent.step.tool` (`haystack.tool.name`, `.input` arguments, `.output`
result) — and pipeline components (`haystack.component.type` ending in `ChatGenerator`: a model call,
`haystack.component.input` / `.output`; a `ToolInvoker`'s `tool_messages` are tool results).
Messages are `ChatMessage.to_dict()`: `{role, content: [{text} | {tool_call: {tool_name, arguments, id}}
| {tool_call_result: {result, origin: {id}, error}}]}` (`_role` / `_content` before haystack-ai 2.10).
Content is recorded only with `HAYSTACK_CONTENT_TRACING_ENABLED=true`; without it the spans still name
the tools, and the report says content was not captured. Haystack has no conversation id of its own:
the application's span around a run carries `session.id` (or `normalize.conversation_attribute`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolCallRef, ToolInvocation
from monitor.normalize.common import (
    MessageMemo,
    build_agent_span,
    identity,
    json_arguments,
    loads,
    read_items,
    result_value,
    role_of,
    tool_definitions,
)

_PREFIX = "haystack."


def is_haystack(span: Span) -> bool:
    """Haystack's tracer names its spans `haystack.*` (agent, steps, pipeline) and tags components."""
    return span.name.startswith(_PREFIX) or "haystack.component.type" in span.attributes


def normalize_haystack(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = span.attributes
    component = str(attrs.get("haystack.component.type", ""))
    tool = None
    inputs: list[Message] = []
    outputs: list[Message] = []
    definitions: dict[str, Any] = {}
    if span.name == "haystack.agent.run" or "haystack.agent.input" in attrs:
        kind = "agent"
        inputs = _messages(_field(attrs.get("haystack.agent.input"), "messages"))
        # the output repeats the whole history: the run's answer is its last message
        outputs = _messages([_field(attrs.get("haystack.agent.output"), "last_message")])
        definitions = tool_definitions(*_tools(attrs.get("haystack.agent.tools")))
    elif span.name == "haystack.agent.step.llm" or component.endswith("ChatGenerator"):
        kind = "llm"
        given = attrs.get("haystack.agent.step.llm.input", attrs.get("haystack.component.input"))
        answer = attrs.get("haystack.agent.step.llm.output", attrs.get("haystack.component.output"))
        inputs = _messages(_field(given, "messages"))
        outputs = _messages(_field(answer, "replies"), "assistant")
        definitions = tool_definitions(*_tools(_field(given, "tools")))
    elif span.name == "haystack.agent.step.tool" or "haystack.tool.name" in attrs:
        kind = "tool"
        tool = _tool(span)
    else:
        kind = "other"
        if component.endswith("ToolInvoker"):  # a pipeline's tool runner: its results, by call id
            outputs = _messages(_field(attrs.get("haystack.component.output"), "tool_messages"))
    who = identity(span, config)
    return build_agent_span(
        span, who, "haystack", kind, tool, inputs, outputs, None, None, definitions
    )  # fmt: skip


def _tool(span: Span) -> ToolInvocation:
    attrs = span.attributes
    args, args_error = json_arguments(loads(attrs.get("haystack.agent.step.tool.input")))
    raw = attrs.get("haystack.agent.step.tool.output")
    error = span.status_message or "error" if span.status == "ERROR" else None
    return ToolInvocation(
        name=str(attrs.get("haystack.tool.name") or ""),
        call_id=None,
        arguments=args,
        arguments_error=args_error,
        result=None if raw is None else result_value(raw),
        error=error,
    )


def _field(value: Any, key: str) -> Any:
    value = loads(value)
    return value.get(key) if isinstance(value, dict) else None


def _tools(value: Any) -> list[Any]:
    """Serialized tools `[{type, data: {name, parameters}}]` as `[{name, parameters}]`."""
    items = loads(value)
    return [
        item.get("data", item) if isinstance(item, dict) else item
        for item in (items if isinstance(items, list) else [])
    ]


def _messages(value: Any, default_role: str | None = None) -> list[Message]:
    return read_items(loads(value), _ITEMS, partial(_message, default_role=default_role), default_role)


_ITEMS = MessageMemo()  # every model call resends the history: each distinct message is read once


def _message(item: dict[str, Any], default_role: str | None) -> list[Message]:
    role = role_of(item.get("role", item.get("_role"))) or default_role
    if role is None:
        return []
    texts: list[str] = []
    calls: list[ToolCallRef] = []
    results: list[Message] = []
    content = item.get("content", item.get("_content"))
    if isinstance(content, str):  # a plain text message
        content = [{"text": content}]
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("text") is not None:
            texts.append(str(part["text"]))
        elif isinstance(part.get("tool_call"), dict):
            call = part["tool_call"]
            args, _ = json_arguments(call.get("arguments"))
            calls.append(
                ToolCallRef(call_id=call.get("id"), name=str(call.get("tool_name", "")), arguments=args)
            )
        elif isinstance(part.get("tool_call_result"), dict):
            answer = part["tool_call_result"]
            origin = answer.get("origin") if isinstance(answer.get("origin"), dict) else {}
            results.append(
                Message(role="tool", text=str(answer.get("result", "")), tool_call_id=origin.get("id"))
            )
    if results:
        return results
    return [Message(role=role, text="".join(texts) or None, tool_calls=tuple(calls))]
