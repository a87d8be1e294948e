"""OTel GenAI semantic conventions adapter. Pure: `Span` → `AgentSpan`.

Reads `gen_ai.operation.name` (`invoke_agent`, `chat` / `text_completion` / `generate_content`,
`execute_tool`), `gen_ai.tool.name` / `.call.id` / `.call.arguments` / `.call.result` (the Anthropic
SDK's own tool spans put the result in `anthropic.tool_result.content`, content blocks),
`gen_ai.input.messages` / `gen_ai.output.messages` (`{role, parts}`, JSON string or structured) as
attributes or inside `gen_ai.client.inference.operation.details` events (the
`gen_ai_latest_experimental` form), the v1.36 per-message events (`gen_ai.user.message`,
`gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`), usage, `error.type` and the span
status. Strands Agents builds on this module (strands.py) for its content-block dialect; Google ADK's
own `gcp.vertex.agent.*` attributes are read through adk.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolInvocation
from monitor.normalize.adk import adk_messages, adk_tool_arguments, adk_tool_result, is_adk
from monitor.normalize.common import (
    MessageMemo,
    build_agent_span,
    function_result,
    genai_messages,
    identity,
    json_arguments,
    loads,
    openai_tool_calls,
    result_value,
    tokens,
    tool_definitions,
)
from monitor.normalize.payloads import unwrap_arguments, unwrap_result

LLM_OPERATIONS = {"chat", "text_completion", "generate_content"}
#: an agent being built, not run (OpenLLMetry's LangGraph `create_agent`, AutoGen's): not a conversation
SETUP_OPERATIONS = {"create_agent"}
EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
MessageReader = Callable[[str, Any], list[Message]]


def is_genai(span: Span) -> bool:
    return "gen_ai.operation.name" in span.attributes or any(k.startswith("gen_ai.") for k in span.attributes)


def normalize_genai(
    span: Span, config: NormalizeConfig, convention: str = "genai", read: MessageReader | None = None
) -> AgentSpan:
    attrs = span.attributes
    read = read or _event_content
    op = str(attrs.get("gen_ai.operation.name", ""))
    kind = (
        "tool"
        if op == "execute_tool"
        else "agent"
        if op in ("invoke_agent", "create_agent")
        else "llm"
        if op in LLM_OPERATIONS
        else "other"
    )
    inputs, outputs = genai_content(span, read)
    if is_adk(span):  # ADK's legacy schema: its own request/response attributes
        legacy_in, legacy_out = adk_messages(attrs)
        inputs, outputs = inputs + legacy_in, outputs + legacy_out
    tool = _tool(span, inputs, outputs) if kind == "tool" else None
    who = identity(span, config)
    return build_agent_span(
        span, who, convention, kind, tool,
        () if kind == "tool" else inputs, () if kind == "tool" else outputs,
        tokens(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
        tokens(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
        _definitions(attrs, tool), setup=op in SETUP_OPERATIONS,
    )  # fmt: skip


def _definitions(attrs: dict[str, Any], tool: ToolInvocation | None) -> dict[str, Any]:
    found = tool_definitions(attrs.get("gen_ai.tool.definitions"))
    if tool is not None and tool.schema_ is not None:
        found[tool.name] = tool.schema_
    return found


def _system_instructions(value: Any) -> list[Message]:
    """`gen_ai.system_instructions` (parts `[{type: text, content}]`, or a plain string) as one system
    message: evidence for grounding, never a turn."""
    if isinstance(value, str):
        return list(_instructions_in(value))
    return list(_read_instructions(value))


#: how many system-instruction texts `_instructions_in` keeps read (an agent's prompt; a few dozen agents)
INSTRUCTIONS_KEPT = 64


@lru_cache(maxsize=INSTRUCTIONS_KEPT)
def _instructions_in(text: str) -> tuple[Message, ...]:
    """`_read_instructions` of a text, read once: frameworks send an agent's system prompt, the same text, on
    every model call (a real agent's runs to thousands of characters). Messages are immutable."""
    return _read_instructions(text)


def _read_instructions(value: Any) -> tuple[Message, ...]:
    value = loads(value)
    if isinstance(value, str):
        text = value
    elif isinstance(value, list):
        text = "\n".join(str(p.get("content", "")) for p in value if isinstance(p, dict) and p.get("content"))
    else:
        return ()
    return (Message(role="system", text=text),) if text.strip() else ()


def genai_content(span: Span, read: MessageReader | None = None) -> tuple[list[Message], list[Message]]:
    """A span's input and output messages in the GenAI forms: `gen_ai.system_instructions`,
    `gen_ai.input.messages` / `gen_ai.output.messages` as attributes or in the operation-details event, and
    the v1.36 per-message events (`read` reads those; default `_event_content`)."""
    attrs = span.attributes
    read = read or _event_content
    inputs = _system_instructions(attrs.get("gen_ai.system_instructions"))
    inputs += genai_messages(attrs.get("gen_ai.input.messages")) if "gen_ai.input.messages" in attrs else []
    outputs = (
        genai_messages(attrs.get("gen_ai.output.messages"), "assistant")
        if "gen_ai.output.messages" in attrs
        else []
    )
    for event in span.events:
        ea = _with_body(event.attributes)
        if event.name == "gen_ai.client.inference.operation.details":
            inputs += genai_messages(ea.get("gen_ai.input.messages")) if "gen_ai.input.messages" in ea else []
            outputs += (
                genai_messages(ea.get("gen_ai.output.messages"), "assistant")
                if "gen_ai.output.messages" in ea
                else []
            )
        elif event.name in EVENT_ROLES:
            inputs += read(EVENT_ROLES[event.name], ea)
        elif event.name == "gen_ai.choice":
            message = loads(ea.get("message"))
            # v1.36: `message: {role, content, tool_calls}` (the openai-v2 log record body)
            if isinstance(message, dict):
                outputs += read("assistant", {**ea, **message})
            else:
                outputs += read("assistant", {"content": ea.get("message", ea.get("content")), **ea})
    return inputs, outputs


def _with_body(attrs: dict[str, Any]) -> dict[str, Any]:
    """A log record's body that is a JSON object as text (Semantic Kernel logs `json.dumps(message)`)
    read like a map body: its keys join the event's attributes."""
    body = loads(attrs.get("body")) if "body" in attrs and "content" not in attrs else None
    return {**attrs, **body} if isinstance(body, dict) else attrs


def _event_content(role: str, attrs: dict[str, Any]) -> list[Message]:
    """v1.36 events: `content` text, `tool_calls` [{id, function: {name, arguments}}], `id` for tool messages.

    Every model call resends the history as events, so the same event comes back once per later call:
    one read per distinct (role, content, tool_calls, id) of plain text values, kept in a bounded table."""
    call_id = (attrs.get("id") or attrs.get("tool_call_id")) if role == "tool" else None
    key = (role, attrs.get("content"), attrs.get("tool_calls"), call_id)
    return _EVENTS.get(key, lambda: [_read_event(role, attrs, call_id)])


_EVENTS = MessageMemo()


def _read_event(role: str, attrs: dict[str, Any], call_id: Any) -> Message:
    content = loads(attrs.get("content"))
    calls = openai_tool_calls(loads(attrs.get("tool_calls")))
    text = (
        content
        if isinstance(content, str)
        else None
        if content is None
        else json.dumps(content, ensure_ascii=False, sort_keys=True)  # a tool result object stays JSON
    )
    return Message(role=role, text=text, tool_calls=tuple(calls), tool_call_id=call_id)


def _tool(span: Span, inputs: list[Message], outputs: list[Message]) -> ToolInvocation:
    attrs = span.attributes
    name = str(attrs.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip())
    adk = is_adk(span)
    given = unwrap_arguments(
        attrs.get("gen_ai.tool.call.arguments", adk_tool_arguments(attrs) if adk else None)
    )
    raw_args = given.value
    if raw_args is None:  # the event form: the request is the tool message's content, or a tool_call part
        call = next((c for m in inputs for c in m.tool_calls), None)
        raw_args = call.arguments if call else next((m.text for m in inputs if m.text), None)
    args, args_error = json_arguments(raw_args)
    raw_result = attrs.get(
        "gen_ai.tool.call.result",
        adk_tool_result(attrs) if adk else attrs.get("anthropic.tool_result.content"),  # the Anthropic SDK's
    )
    wrapped = unwrap_result(raw_result)
    if raw_result is not None:
        result = function_result(wrapped.value) if adk else wrapped.value
    else:
        answer = next((m for m in outputs if m.role == "tool"), None) or next(
            (m for m in outputs if m.text), None
        )
        result = result_value(answer.text) if answer and answer.text is not None else None
    error = attrs.get("error.type")
    status = str(attrs.get("gen_ai.tool.status", "")).lower()
    if error is None and (span.status == "ERROR" or status in ("error", "failed")):
        error = span.status_message or status or "error"
    elif error is not None and span.status_message and span.status_message != error:
        # `error.type` names the class; the status message says what the tool said (`… total price is 375`)
        message = span.status_message
        error = message if message.startswith(str(error)) else f"{error}: {message}"
    schema = loads(attrs.get("gen_ai.tool.json_schema"))
    return ToolInvocation(
        name=name,
        call_id=attrs.get("gen_ai.tool.call.id") or given.call_id or wrapped.call_id,
        arguments=args,
        arguments_error=args_error,
        result=result,
        error=None if error is None else str(error),
        schema=schema if isinstance(schema, dict) else None,
    )
