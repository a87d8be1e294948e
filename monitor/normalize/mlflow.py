"""MLflow Tracing exported over OTLP (`mlflow.spanType`: MLflow 3 with `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). Pure.

MLflow writes every attribute value as JSON (a string attribute is `"…"`, quotes included), its own keys
and the user's alike. Read, as recorded with mlflow-tracing 3.17 (tests/fixtures/travel/mlflow):

- `CHAT_MODEL` / `LLM` (a model call; `mlflow.openai.autolog()` writes one per call): `mlflow.spanInputs`
  the request (`{"model", "messages", "tools"}` in OpenAI chat form, or a bare list of messages),
  `mlflow.spanOutputs` the answer (a ChatCompletion, a message, or text), `mlflow.chat.tokenUsage`
  (`input_tokens` / `output_tokens`), `mlflow.chat.tools`;
- `TOOL` (`@mlflow.trace(span_type="TOOL")`): inputs the function's arguments by name, outputs its
  return value; a failure is the span's ERROR status and message;
- `AGENT`: the app's own function around a turn (its inputs and outputs are that function's, not
  messages: only the model calls' messages are read);
- the rest (`CHAIN`, `RETRIEVER`, `PARSER`, …): carried along, not read.

The conversation: `mlflow.update_current_trace(session_id=…)` stays in MLflow's trace metadata and
reaches no exported span, so an MLflow user who exports sets `session.id` on the turn's span
(`mlflow.get_current_active_span().set_attribute(...)`), which identity reads unquoted. With
`MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true` MLflow exports OTel GenAI attributes instead (genai.py reads
them), and no `session.id`.
"""

from __future__ import annotations

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
from monitor.normalize.payloads import unwrap_result

TYPE = "mlflow.spanType"
INPUTS = "mlflow.spanInputs"
OUTPUTS = "mlflow.spanOutputs"
_KINDS = {"CHAT_MODEL": "llm", "LLM": "llm", "TOOL": "tool", "AGENT": "agent"}
#: `mlflow.message.format`s whose spans hold OpenAI chat messages and completions
_CHAT_FORMATS = frozenset({"openai", "langchain"})


def is_mlflow(span: Span) -> bool:
    return TYPE in span.attributes


def normalize_mlflow(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = {k: unquoted(v) for k, v in span.attributes.items()}
    kind = _KINDS.get(str(attrs.get(TYPE)).upper(), "other")
    tool = _tool(span, attrs) if kind == "tool" else None
    # the request and the answer are read in OpenAI's chat form, which MLflow writes for `openai` and
    # `langchain`; another provider's (`anthropic`, `gemini`, …) is not read (the hint says what to set)
    llm = kind == "llm" and str(attrs.get("mlflow.message.format") or "openai").lower() in _CHAT_FORMATS
    call = model_call(
        attrs.get(INPUTS) if llm else None,
        attrs.get(OUTPUTS) if llm else None,
        attrs.get("mlflow.chat.tokenUsage"),
        attrs.get("mlflow.chat.tools") if llm else None,
    )
    return build_agent_span(
        span, identity(span, config), "mlflow", kind, tool, call.inputs, call.outputs, call.input_tokens, call.output_tokens,
        call.definitions,
    )  # fmt: skip


def _tool(span: Span, attrs: dict[str, Any]) -> ToolInvocation:
    args, args_error = json_arguments(loads(attrs.get(INPUTS)))
    raw = attrs.get(OUTPUTS)
    result = unwrap_result(raw)  # a LangChain tool's `ToolMessage` too (MLflow's LangChain autolog)
    error = (span.status_message or "error") if span.status == "ERROR" else result.error
    return ToolInvocation(
        name=span.name or str(attrs.get("mlflow.spanFunctionName") or ""),  # the name it was traced under
        call_id=result.call_id,
        arguments=args,
        arguments_error=args_error,
        result=None if raw is None else result.value,
        error=error,
    )
