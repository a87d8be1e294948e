"""OpenLLMetry / Traceloop adapter (traceloop-sdk, opentelemetry-instrumentation-openai). Pure.

Reads `traceloop.span.kind` (workflow, task, agent, tool), `traceloop.entity.name`,
`traceloop.entity.input` (`{"args": [...], "kwargs": {...}}`) / `traceloop.entity.output`,
`traceloop.association.properties.*` (the conversation as `session_id`, the reference id), and the
OpenAI instrumentation's indexed prompt/completion attributes (`gen_ai.prompt.N.role|content|
tool_call_id|tool_calls.M.{id,name,arguments}`, `gen_ai.completion.N...`) of older releases. Current
OpenLLMetry instrumentations (0.5x+, recorded: opentelemetry-instrumentation-openai 0.62.3) write the
GenAI spec form (`gen_ai.input.messages` with parts); those spans, recognised by their
instrumentation scope, are read by genai.py and labelled `traceloop`.
"""

from __future__ import annotations

from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolInvocation
from monitor.normalize.common import (
    build_agent_span,
    genai_messages,
    identity,
    indexed_message,
    json_arguments,
    loads,
    role_of,
    tokens,
)
from monitor.normalize.genai import normalize_genai
from monitor.normalize.openinference import unflatten
from monitor.normalize.payloads import called_with, unwrap_arguments, unwrap_result

_KINDS = {"workflow": "agent", "agent": "agent", "tool": "tool", "task": "other"}


#: OpenLLMetry's instrumentation scopes (`opentelemetry.instrumentation.openai.v1`, `...anthropic`, …);
#: the contrib package's is `opentelemetry.instrumentation.openai_v2`, which is plain GenAI.
_OPENLLMETRY_SCOPE = "opentelemetry.instrumentation."
#: GenAI instrumentations of opentelemetry-python-contrib, under the same scope prefix as OpenLLMetry's:
#: their spans are plain OTel GenAI (the `_v2` packages; openai-agents-v2 names its scope without it)
_CONTRIB_SCOPES = ("_v2", ".openai_agents", ".google_genai", ".vertexai")


def is_traceloop(span: Span) -> bool:
    a = span.attributes
    legacy = "gen_ai.prompt.0.role" in a or "gen_ai.completion.0.role" in a or "llm.request.type" in a
    scope = (
        span.scope.startswith(_OPENLLMETRY_SCOPE)
        and not span.scope.endswith(_CONTRIB_SCOPES)
        and "gen_ai.operation.name" in a
    )
    return "traceloop.span.kind" in a or legacy or scope


def _legacy(span: Span) -> bool:
    a = span.attributes
    return (
        "traceloop.span.kind" in a
        or "gen_ai.prompt.0.role" in a
        or "gen_ai.completion.0.role" in a
        or "llm.request.type" in a
    )


def normalize_traceloop(span: Span, config: NormalizeConfig) -> AgentSpan:
    if not _legacy(
        span
    ):  # current OpenLLMetry writes the GenAI spec form: read it as GenAI, label it Traceloop
        return normalize_genai(span, config, convention="traceloop")
    attrs = span.attributes
    kind = _KINDS.get(str(attrs.get("traceloop.span.kind", "")).lower(), "other")
    if "gen_ai.prompt.0.role" in attrs or "gen_ai.completion.0.role" in attrs or "llm.request.type" in attrs:
        kind = "llm"
    tool = _tool(span) if kind == "tool" else None
    inputs = indexed_messages(attrs, "gen_ai.prompt.") or genai_messages(attrs.get("gen_ai.input.messages"))
    outputs = indexed_messages(attrs, "gen_ai.completion.") or genai_messages(
        attrs.get("gen_ai.output.messages"), "assistant"
    )
    who = identity(span, config, agent_keys=("traceloop.workflow.name",))
    return build_agent_span(
        span, who, "traceloop", kind, tool, inputs, outputs,
        tokens(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
        tokens(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
    )  # fmt: skip


def indexed_messages(attrs: dict[str, Any], prefix: str) -> list[Message]:
    out = []
    for _, node in sorted(unflatten(attrs, prefix).items()):
        role = role_of(node.get("role")) or ("assistant" if prefix.endswith("completion.") else None)
        if role is None:
            continue
        read = lambda c: (c.get("id"), c.get("name"), c.get("arguments"))  # noqa: E731
        out.append(
            indexed_message(role, node.get("content"), node.get("tool_calls"), node.get("tool_call_id"), read)
        )
    return out


def _tool(span: Span) -> ToolInvocation:
    """traceloop-sdk's `{"args", "kwargs"}` entity input, or OpenLLMetry's LangChain callback payload
    (payloads.py), whose `kwargs.tool_call_id` and ToolMessage output link it to the model's call."""
    attrs = span.attributes
    # OpenLLMetry's entity input and output; its newer instrumentations (OpenAI Agents) write the GenAI keys
    entry = loads(attrs.get("traceloop.entity.input", attrs.get("gen_ai.tool.call.arguments")))
    given = unwrap_arguments(entry)
    raw: Any = given.value
    if raw is entry:
        raw = called_with(raw)
    args, args_error = json_arguments(raw)
    result = unwrap_result(attrs.get("traceloop.entity.output", attrs.get("gen_ai.tool.call.result")))
    error = (
        attrs.get("error.type")
        or (span.status_message or "error" if span.status == "ERROR" else None)
        or result.error
    )
    name = str(
        attrs.get("traceloop.entity.name") or attrs.get("gen_ai.tool.name") or span.name.removesuffix(".tool")
    )
    return ToolInvocation(
        name=name,
        call_id=attrs.get("gen_ai.tool.call.id") or given.call_id or result.call_id,
        arguments=args,
        arguments_error=args_error,
        result=result.value,
        error=None if error is None else str(error),
    )
