"""LiteLLM's OpenTelemetry callback (`litellm.callbacks = ["otel"]`). Pure.

LiteLLM writes each model call's attributes in a mix of conventions, as recorded with litellm 1.110
(tests/fixtures/travel/litellm*):

- the messages as OTel GenAI `gen_ai.input.messages` / `gen_ai.output.messages`, each item `{role, parts}`
  with the OpenAI chat fields beside the parts: the assistant's `tool_calls` (`[{id, function: {name,
  arguments}}]`) and the `tool_call_id` a tool message answers (common.genai_messages reads both);
- the answer's tool calls again as the older OpenLLMetry keys `gen_ai.completion.N.function_call.{name,
  arguments}`, without their ids — the output message itself keeps only the words the model said beside
  them (empty parts when none), so those keys are where a call is read from, beside those words (the call's
  id comes with the next call's history);
- the tools offered as `llm.request.functions.N.{name, description, parameters}`, the call type as
  OpenLLMetry's `llm.request.type` (`completion`, `acompletion`, `responses`, …), the system prompt of
  APIs that take it apart as `gen_ai.system_instructions`, usage as `gen_ai.usage.*`;
- for the Responses API, its input items that are no message (`function_call`, `function_call_output`) as
  empty `user` messages: left out (those calls and results are only in the raw request span, unread);
- `litellm.call_id` and `litellm.provider.model` on every call (what says a span is LiteLLM's), and a
  `raw_gen_ai_request` child span with the provider's request and response as Python reprs
  (`llm.<provider>.messages`, `.choices`): the same content again, carried along unread.

Where the call runs inside a span of the app's own, LiteLLM by default writes these attributes onto *that*
span (no `litellm_request` span; `USE_OTEL_LITELLM_REQUEST_SPAN=true` keeps one per call): each call of a
turn overwrites the last, so the app's span holds the turn's last call — its history has every earlier call
of the turn — and may keep a `gen_ai.completion.0.function_call` an earlier call left. So those keys are read
only for an answer that called tools (finish reason `tool_calls`) or that says nothing (a server that finishes
a tool call with `stop`), never beside a reply.

LiteLLM exports no conversation id (`litellm_session_id` stays in LiteLLM's own logs): the app's span
around each turn carries one (`session.id`), else traces are joined by the history each call resends.
"""

from __future__ import annotations

from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolCallRef
from monitor.normalize.common import (
    build_agent_span,
    identity,
    json_arguments,
    loads,
    tokens,
    tool_definitions,
)
from monitor.normalize.genai import genai_content
from monitor.normalize.openinference import unflatten

#: LiteLLM's tracer name (`OTEL_TRACER_NAME` renames it)
SCOPE = "litellm"
_MARKS = ("litellm.call_id", "litellm.provider.model")
#: `llm.request.type` of the calls that are a model answering messages (LiteLLM's `CallTypes`; embeddings,
#: images, a stored response fetched or deleted, … are not)
_MODEL_CALLS = frozenset(
    f"{a}{kind}"
    for a in ("", "a")
    for kind in ("completion", "text_completion", "responses", "anthropic_messages", "generate_content",
                 "generate_content_stream")
)  # fmt: skip
#: the finish reasons of an answer that called tools
_CALLED = frozenset({"tool_calls", "function_call", "tool_call", "tool_use"})


def is_litellm(span: Span) -> bool:
    return span.scope == SCOPE or any(k in span.attributes for k in _MARKS)


def normalize_litellm(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = span.attributes
    who = identity(span, config)
    call_type = str(attrs.get("llm.request.type", "")).lower()
    if not any(k in attrs for k in _MARKS) or call_type not in _MODEL_CALLS:
        # `raw_gen_ai_request` (the same call's content again, as reprs), or a call that is not a model's answer
        return build_agent_span(span, who, "litellm", "other", None, (), (), None, None)
    inputs, outputs = genai_content(span)
    # a Responses API request's `function_call` / `function_call_output` items come out as empty `user`
    # messages (LiteLLM reads every item as a chat message): nothing was said
    inputs = [m for m in inputs if m.role != "user" or m.text or m.tool_calls]
    # an answer that called tools (by its finish reason), or that says nothing (servers that finish a tool call
    # with `stop`: Ollama, vLLM, Gemini's OpenAI-compatible endpoint)
    said_nothing = not any(m.text or m.tool_calls for m in outputs)
    if not any(m.tool_calls for m in outputs) and (said_nothing or _called_tools(attrs)):
        calls = _function_calls(attrs)
        said = "".join(m.text or "" for m in outputs if m.role == "assistant") or None
        outputs = [Message(role="assistant", text=said, tool_calls=calls)] if calls else outputs
    functions = unflatten(attrs, "llm.request.functions.")
    listed = [
        {"name": f.get("name"), "parameters": loads(f.get("parameters"))}
        for _, f in sorted(functions.items())
    ]
    return build_agent_span(
        span, who, "litellm", "llm", None, inputs, outputs,
        tokens(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
        tokens(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
        tool_definitions(listed, attrs.get("gen_ai.tool.definitions")),
    )  # fmt: skip


def _called_tools(attrs: dict[str, Any]) -> bool:
    """Whether the answer called tools, by its finish reasons (`gen_ai.response.finish_reasons`, or the output
    messages' `finish_reason`): `gen_ai.completion.N.function_call` keys beside any other answer are an earlier
    call's, left on the app's span."""
    reasons = loads(attrs.get("gen_ai.response.finish_reasons"))
    found = {str(r).lower() for r in reasons} if isinstance(reasons, list) else set()
    outputs = loads(attrs.get("gen_ai.output.messages"))
    for item in outputs if isinstance(outputs, list) else []:
        if isinstance(item, dict) and item.get("finish_reason"):
            found.add(str(item["finish_reason"]).lower())
    return bool(found & _CALLED)


def _function_calls(attrs: dict[str, Any]) -> tuple[ToolCallRef, ...]:
    """`gen_ai.completion.N.function_call.{name, arguments}` as the assistant's calls (no ids)."""
    calls = []
    for _, node in sorted(unflatten(attrs, "gen_ai.completion.").items()):
        fn = node.get("function_call") if isinstance(node, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            args, _ = json_arguments(fn.get("arguments"))
            calls.append(ToolCallRef(call_id=None, name=str(fn["name"]), arguments=args))
    return tuple(calls)
