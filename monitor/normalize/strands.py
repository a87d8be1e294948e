"""Strands Agents adapter. Pure: `Span` → `AgentSpan`.

Strands follows OTel GenAI (genai.py) with its own dialect: in the default mode, message content
lives in span events (`gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`,
`gen_ai.choice`) as Strands content blocks (`[{"text"}, {"toolUse"}, {"toolResult"}]`); an
`execute_tool` span's `gen_ai.tool.message` carries the arguments and its `gen_ai.choice` the result.
With `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental` it emits the spec's
`gen_ai.client.inference.operation.details` events and tool arguments/results as attributes, and
writes `response` where the spec says `result` (handled in common.genai_messages). `session.id`
carries the conversation.
"""

from __future__ import annotations

from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span
from monitor.normalize.common import MessageMemo, strands_blocks
from monitor.normalize.genai import normalize_genai


def is_strands(span: Span) -> bool:
    return "strands-agents" in (
        span.attributes.get("gen_ai.system"),
        span.attributes.get("gen_ai.provider.name"),
    ) or (span.scope.startswith("strands"))


def normalize_strands(span: Span, config: NormalizeConfig) -> AgentSpan:
    return normalize_genai(span, config, convention="strands", read=_blocks)


def _blocks(role: str, attrs: dict[str, Any]) -> list[Message]:
    """One event's messages; a history event resent by a later model call is read once (MessageMemo)."""
    content = attrs.get("content", attrs.get("message"))
    key = (role, content, attrs.get("tool.result"), attrs.get("id"), "id" if "id" in attrs else None)
    return _EVENTS.get(key, lambda: _read_blocks(role, attrs))


def _read_blocks(role: str, attrs: dict[str, Any]) -> list[Message]:
    messages = strands_blocks(role, attrs.get("content", attrs.get("message")))
    if "tool.result" in attrs:  # a cycle's gen_ai.choice also lists the tool results it fed back
        messages += strands_blocks("tool", attrs["tool.result"])
    if role == "tool" and "id" in attrs:  # an execute_tool span's request: the arguments as the content
        messages = [m.model_copy(update={"tool_call_id": attrs["id"]}) for m in messages]
    return messages


_EVENTS = MessageMemo()
