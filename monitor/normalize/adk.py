"""Google ADK's own span attributes (instrumentation scope `gcp.vertex.agent`). Pure.

ADK 2.x writes the GenAI form (genai.py reads it) when asked to capture content
(`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`); its legacy schema
(`ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1`, and ADK 1.x) puts content in `gcp.vertex.agent.llm_request` /
`llm_response` (Gemini `Content`: `{role: user|model, parts: [{text}, {function_call: {id, name,
args}}, {function_response: {id, name, response}}]}`) and a tool span's `tool_call_args` /
`tool_response`. Either way a tool's plain return value arrives wrapped as `{"result": …}`.
"""

from __future__ import annotations

import json
from typing import Any

from monitor.model import Message, Span, ToolCallRef
from monitor.normalize.common import function_result, loads, role_of

SCOPE = "gcp.vertex.agent"
PREFIX = "gcp.vertex.agent."


def is_adk(span: Span) -> bool:
    return span.scope == SCOPE


def adk_messages(attrs: dict[str, Any]) -> tuple[list[Message], list[Message]]:
    """The legacy `llm_request` contents (inputs) and `llm_response` content (outputs)."""
    request = loads(attrs.get(PREFIX + "llm_request"))
    response = loads(attrs.get(PREFIX + "llm_response"))
    contents = request.get("contents") if isinstance(request, dict) else None
    inputs = [m for c in (contents if isinstance(contents, list) else []) for m in _content(c)]
    outputs = _content(response.get("content")) if isinstance(response, dict) else []
    return inputs, outputs


def adk_tool_arguments(attrs: dict[str, Any]) -> Any:
    return attrs.get(PREFIX + "tool_call_args")


def adk_tool_result(attrs: dict[str, Any]) -> Any:
    return attrs.get(PREFIX + "tool_response")


def _content(content: Any) -> list[Message]:
    if not isinstance(content, dict):
        return []
    role = role_of(content.get("role"))
    texts: list[str] = []
    calls: list[ToolCallRef] = []
    out: list[Message] = []
    for part in content.get("parts") or []:
        if not isinstance(part, dict):
            continue
        call, answer = part.get("function_call"), part.get("function_response")
        if part.get("text"):
            texts.append(str(part["text"]))
        elif isinstance(call, dict):
            calls.append(
                ToolCallRef(
                    call_id=call.get("id"), name=str(call.get("name", "")), arguments=call.get("args")
                )
            )
        elif isinstance(answer, dict):
            result = function_result(answer.get("response"))
            text = (
                result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, sort_keys=True)
            )
            out.append(Message(role="tool", text=text, tool_call_id=answer.get("id")))
    if role is not None and (texts or calls):
        out.insert(0, Message(role=role, text="".join(texts) or None, tool_calls=tuple(calls)))
    return out
