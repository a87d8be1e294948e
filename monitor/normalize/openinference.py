"""OpenInference adapter (Arize; e.g. openinference-instrumentation-openai-agents). Pure.

Reads `openinference.span.kind` (AGENT, CHAIN, LLM, TOOL), `tool.name`, `tool.parameters` (schema),
`input.value` / `output.value` (a TOOL span's arguments and result), flattened
`llm.input_messages.N.message.*` and `llm.output_messages.N.message.tool_calls.M.tool_call.*`,
`llm.token_count.*`, `session.id`, `agent.name`, and `metadata` (a JSON object that may carry the
reference id).
"""

from __future__ import annotations

import re
from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolInvocation
from monitor.normalize.common import (
    build_agent_span,
    identity,
    indexed_message,
    json_arguments,
    loads,
    result_value,
    role_of,
    tokens,
    tool_definitions,
)

_KINDS = {"AGENT": "agent", "LLM": "llm", "TOOL": "tool"}
_INDEX = re.compile(r"^(\d+)\.(.*)$")


def is_openinference(span: Span) -> bool:
    return "openinference.span.kind" in span.attributes


def normalize_openinference(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = span.attributes
    kind = _KINDS.get(str(attrs.get("openinference.span.kind", "")).upper(), "other")
    tool = None
    if kind == "tool":
        args, args_error = json_arguments(
            loads(attrs.get("input.value")) if attrs.get("input.value") is not None else None
        )
        schema = loads(attrs.get("tool.parameters"))
        error = attrs.get("exception.type") or (
            span.status_message or "error" if span.status == "ERROR" else None
        )
        tool = ToolInvocation(
            name=str(attrs.get("tool.name") or span.name),
            call_id=attrs.get("tool_call.id") or attrs.get("tool.id"),
            arguments=args,
            arguments_error=args_error,
            result=result_value(attrs.get("output.value")),
            error=None if error is None else str(error),
            schema=schema if isinstance(schema, dict) else None,
        )
    who = identity(span, config, agent_keys=("agent.name",))
    return build_agent_span(
        span, who, "openinference", kind, tool,
        flattened_messages(attrs, "llm.input_messages."), flattened_messages(attrs, "llm.output_messages."),
        tokens(attrs, "llm.token_count.prompt"), tokens(attrs, "llm.token_count.completion"),
        _definitions(attrs, tool),
    )  # fmt: skip


def _definitions(attrs: dict[str, Any], tool: ToolInvocation | None) -> dict[str, Any]:
    listed = [
        v for k, v in sorted(attrs.items()) if k.startswith("llm.tools.") and k.endswith(".tool.json_schema")
    ]
    found = tool_definitions(*listed)
    if tool is not None and tool.schema_ is not None:
        found[tool.name] = tool.schema_
    return found


def flattened_messages(attrs: dict[str, Any], prefix: str) -> list[Message]:
    """`prefix.N.message.role`, `.content`, `.tool_call_id`, `.tool_calls.M.tool_call.{id,function.name,function.arguments}`."""
    tree = unflatten(attrs, prefix)
    out = []
    for _, node in sorted(tree.items()):
        msg = node.get("message", {}) if isinstance(node, dict) else {}
        role = role_of(msg.get("role"))
        if role is None:
            continue
        text = msg.get("content")
        if text is None and isinstance(msg.get("contents"), dict):
            text = (
                "".join(
                    str(c.get("message_content", {}).get("text", ""))
                    for _, c in sorted(msg["contents"].items())
                )
                or None
            )
        out.append(
            indexed_message(role, text, msg.get("tool_calls"), msg.get("tool_call_id"), _openinference_call)
        )
    return out


def _openinference_call(node: dict[str, Any]) -> tuple[Any, Any, Any]:
    call = node.get("tool_call", {})
    fn = call.get("function", {})
    return call.get("id"), fn.get("name"), fn.get("arguments")


def unflatten(attrs: dict[str, Any], prefix: str) -> dict[int, Any]:
    """`{prefix}0.message.role: x` → `{0: {"message": {"role": x}}}` (numeric segments become int keys)."""
    root: dict[Any, Any] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        node = root
        parts = key[len(prefix) :].split(".")
        for i, part in enumerate(parts):
            k: Any = int(part) if part.isdigit() else part
            if i == len(parts) - 1:
                node[k] = value
            else:
                nxt = node.setdefault(k, {})
                if not isinstance(nxt, dict):
                    break
                node = nxt
    return {k: v for k, v in root.items() if isinstance(k, int)}
