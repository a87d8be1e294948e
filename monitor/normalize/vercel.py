"""Vercel AI SDK telemetry before its GenAI spans (`ai.*` attributes: `ai` 4.x–6.x with
`experimental_telemetry: {isEnabled: true}`). Pure.

Reads `ai.operationId`: `ai.generateText` / `ai.streamText` / `ai.generateObject` / `ai.streamObject`
(the call a user made: `ai.prompt` `{system, prompt, messages}`, `ai.response.text`), their
`.doGenerate` / `.doStream` steps (one model call: `ai.prompt.messages`, `ai.prompt.tools`,
`ai.response.text`, `ai.response.toolCalls`) and `ai.toolCall` (`ai.toolCall.name` / `.id` / `.args` or
`.input` / `.result` or `.output`). Messages are the SDK's model messages: `{role, content}` with content
a string or parts (`text`, `tool-call {toolCallId, toolName, input|args}`, `tool-result {toolCallId,
output: {type, value} | result}`). The conversation id is what the user passes in
`experimental_telemetry.metadata` (`sessionId`, `conversationId`, `threadId`: common.identity reads
`ai.telemetry.metadata.*`); the agent is `functionId`. AI SDK 7 writes OTel GenAI spans (genai.py).
"""

from __future__ import annotations

import json
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
    tokens,
    tool_definitions,
)

_OUTPUT_TYPES = ("text", "json", "error-text", "error-json")  # a tool-result part's `output: {type, value}`
_CALLS = ("ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject")
_STEPS = tuple(f"{c}.{step}" for c in _CALLS for step in ("doGenerate", "doStream"))


def is_vercel(span: Span) -> bool:
    """The AI SDK writes `ai.operationId` on every span it makes (another `ai.*` key proves nothing)."""
    return "ai.operationId" in span.attributes


def normalize_vercel(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = span.attributes
    op = str(attrs.get("ai.operationId") or span.name)
    tool = None
    inputs: list[Message] = []
    outputs: list[Message] = []
    if op == "ai.toolCall":
        kind = "tool"
        tool = _tool(span)
    elif op in _STEPS:
        kind = "llm"
        inputs = _messages(attrs.get("ai.prompt.messages"))
        outputs = _reply(attrs)
    elif op in _CALLS:
        kind = "agent"
        inputs = _prompt(attrs.get("ai.prompt"))
        outputs = _reply(attrs)
    else:
        kind = "other"
    who = identity(span, config, agent_keys=("ai.telemetry.functionId",))
    return build_agent_span(
        span, who, "vercel", kind, tool, inputs, outputs,
        tokens(attrs, "ai.usage.inputTokens", "ai.usage.promptTokens"),
        tokens(attrs, "ai.usage.outputTokens", "ai.usage.completionTokens"),
        tool_definitions(*[_definition(t) for t in _list(attrs.get("ai.prompt.tools"))]),
    )  # fmt: skip


def _tool(span: Span) -> ToolInvocation:
    attrs = span.attributes
    args, args_error = json_arguments(attrs.get("ai.toolCall.args", attrs.get("ai.toolCall.input")))
    raw = attrs.get("ai.toolCall.result", attrs.get("ai.toolCall.output"))
    error = span.status_message or "error" if span.status == "ERROR" else None
    return ToolInvocation(
        name=str(attrs.get("ai.toolCall.name") or ""),
        call_id=attrs.get("ai.toolCall.id"),
        arguments=args,
        arguments_error=args_error,
        result=None if raw is None else result_value(raw),
        error=error,
    )


def _reply(attrs: dict[str, Any]) -> list[Message]:
    calls = []
    for call in _list(attrs.get("ai.response.toolCalls")):
        if isinstance(call, dict):
            args, _ = json_arguments(call.get("input", call.get("args")))
            calls.append(
                ToolCallRef(
                    call_id=call.get("toolCallId"), name=str(call.get("toolName", "")), arguments=args
                )
            )
    text = attrs.get("ai.response.text")
    if not calls and not text:
        return []
    return [Message(role="assistant", text=str(text) if text else None, tool_calls=tuple(calls))]


def _prompt(value: Any) -> list[Message]:
    """`ai.prompt`: `{system, prompt, messages}` as the user passed them to generateText."""
    given = loads(value)
    if not isinstance(given, dict):
        return []
    out = [Message(role="system", text=str(given["system"]))] if given.get("system") else []
    if isinstance(given.get("prompt"), str):
        out.append(Message(role="user", text=given["prompt"]))
    return out + _messages(
        given.get("prompt") if isinstance(given.get("prompt"), list) else given.get("messages")
    )


def _messages(value: Any) -> list[Message]:
    return read_items(_list(value), _ITEMS, _message)


_ITEMS = MessageMemo()  # every step resends the history: each distinct message is read once


def _message(item: dict[str, Any]) -> list[Message]:
    role = role_of(item.get("role"))
    content = item.get("content")
    if role is None:
        return []
    if isinstance(content, str):
        return [Message(role=role, text=content)]
    texts: list[str] = []
    calls: list[ToolCallRef] = []
    results: list[Message] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and part.get("text") is not None:
            texts.append(str(part["text"]))
        elif kind == "tool-call":
            args, _ = json_arguments(part.get("input", part.get("args")))
            calls.append(
                ToolCallRef(
                    call_id=part.get("toolCallId"), name=str(part.get("toolName", "")), arguments=args
                )
            )
        elif kind == "tool-result":
            output = part.get("output", part.get("result"))
            if isinstance(output, dict) and "value" in output and output.get("type") in _OUTPUT_TYPES:
                output = output["value"]
            text = (
                output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, sort_keys=True)
            )
            results.append(Message(role="tool", text=text, tool_call_id=part.get("toolCallId")))
    if results:
        return results
    return [Message(role=role, text="".join(texts) or None, tool_calls=tuple(calls))]


def _definition(value: Any) -> Any:
    """A tool of `ai.prompt.tools` (`{type, name, description, inputSchema | parameters}`) as `{name, parameters}`."""
    tool = loads(value)
    if isinstance(tool, dict) and "parameters" not in tool and isinstance(tool.get("inputSchema"), dict):
        return {"name": tool.get("name"), "parameters": tool["inputSchema"]}
    return tool


def _list(value: Any) -> list[Any]:
    value = loads(value)
    return value if isinstance(value, list) else []
