"""Setup hints from a conversation's normalized spans: was the content captured, and how to give the
spans a conversation id. Pure.

`conversation_id_hint`: a conversation no span names (grouped by trace, or traces joined by their
resent history) says so, and names the setting of the instrumentation that wrote it.

Most instrumentations record message content and tool arguments only when asked to (it may hold
personal data). Without it a conversation still shows which tools ran, but nothing to score: every
turn would fail as `missing_action`, blaming the agent for a setting. `content_capture_hint` tells
that case apart — tool names, model calls or agent runs seen, yet no message text, no tool arguments and no tool
results anywhere — and names the setting that turns capture on for the instrumentation that wrote the spans
(by its instrumentation scope).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from monitor.model import AgentSpan

#: which spans a hint is for: those an adapter read (`convention`: tracers whose scope name the user
#: chooses) or an instrumentation wrote (`scope`: a prefix of its scope name); the first that matches wins
Hints = tuple[tuple[Literal["convention", "scope"], str, str], ...]

#: how to turn content capture on, most specific first
_HINTS: Hints = (
    (
        "convention",
        "haystack",
        "set HAYSTACK_CONTENT_TRACING_ENABLED=true (Haystack's tracer records content only then)",
    ),
    (
        "convention",
        "vercel",
        "set experimental_telemetry.recordInputs and recordOutputs to true (Vercel AI SDK)",
    ),
    (
        "scope",
        "agent_framework",
        "call agent_framework.observability.enable_instrumentation(enable_sensitive_data=True), or set "
        "ENABLE_SENSITIVE_DATA=true (Microsoft Agent Framework)",
    ),
    (
        "scope",
        "opentelemetry.instrumentation.openai_v2",
        "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; this instrumentation then sends the "
        "content as log records (GenAI events): export logs to the monitor's /v1/logs as well",
    ),
    # OpenLLMetry's Vertex AI and OpenAI Agents instrumentations share the contrib ones' scope names
    ("convention", "traceloop", "set TRACELOOP_TRACE_CONTENT=true (OpenLLMetry)"),
    (
        "scope",
        "opentelemetry.instrumentation.google_genai",
        "set OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental and "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (the Google Gen AI SDK's OTel "
        "instrumentation; EVENT_ONLY sends the content as log records: export them to /v1/logs as well)",
    ),
    (
        "scope",
        "opentelemetry.instrumentation.vertexai",
        "set OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental and "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (the Vertex AI SDK's OTel instrumentation)",
    ),
    (
        "scope",
        "opentelemetry.instrumentation.openai_agents",
        "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (the OpenAI Agents SDK's OTel "
        "instrumentation)",
    ),
    ("scope", "opentelemetry.instrumentation.", "set TRACELOOP_TRACE_CONTENT=true (OpenLLMetry)"),
    (
        "scope",
        "openlit.",
        "pass capture_message_content=True to openlit.init (its default), and leave "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT unset or true (OpenLIT)",
    ),
    (
        "scope",
        "gcp.vertex.agent",
        "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (Google ADK 2.x; SPAN_AND_EVENT also "
        "sends log records: export them to /v1/logs)",
    ),
    (
        "scope",
        "openinference.",
        "unset OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS (OpenInference)",
    ),
    (
        "scope",
        "strands",
        "Strands records content by default; check that no span processor strips event attributes",
    ),
    (
        "scope",
        "com.anthropic.sdk",
        "set ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content, or pass open_telemetry={'traces': "
        "{'content_mode': 'content'}} to the client (the Anthropic SDK's own spans); where an instrumentation "
        "(OpenLLMetry, OpenInference) already records these calls, ANTHROPIC_OPEN_TELEMETRY=false turns the "
        "SDK's spans off instead",
    ),
    (
        "scope",
        "autogen",
        "AutoGen's own spans carry no arguments or messages: add an instrumentation of its model client that "
        "captures them, e.g. opentelemetry-instrumentation-openai-v2 with "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true and a log exporter to /v1/logs",
    ),
    # SDKs that record content by default come last: beside another instrumentation, that one's setting is the cause
    (
        "convention",
        "langfuse",
        "Langfuse records input and output unless told not to: unset LANGFUSE_OBSERVE_DECORATOR_IO_CAPTURE_ENABLED "
        "or set it to true, drop capture_input=False / capture_output=False from @observe, and check that the "
        "client's mask function keeps them",
    ),
    (
        "convention",
        "litellm",
        "LiteLLM records messages unless litellm.turn_off_message_logging is True, and writes them on its spans "
        "when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is unset, SPAN_ONLY or SPAN_AND_EVENT (true "
        "sends them to log records only, which LiteLLM emits with LITELLM_OTEL_INTEGRATION_ENABLE_EVENTS=true)",
    ),
    (
        "scope",
        "mlflow.",
        "MLflow records span inputs and outputs by default: check that mlflow.tracing.configure(span_processors=…) "
        "does not remove mlflow.spanInputs / mlflow.spanOutputs; MLflow's own attributes are read in the OpenAI and "
        "LangChain message formats only: for another provider's, set MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true",
    ),
)
_DEFAULT = (
    "turn content capture on in the instrumentation: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true "
    "(OTel GenAI instrumentations; with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental the content "
    "goes on the spans), and export log records to /v1/logs if the instrumentation sends content as events"
)


def content_capture_hint(spans: Sequence[AgentSpan]) -> str | None:
    """A hint naming the capture setting when the spans name tools but carry no content; else None."""
    tools_named = False  # or models called: either way the agent did something we cannot see
    for s in spans:
        tools_named = tools_named or s.kind == "llm" or (s.kind == "agent" and not s.setup)
        if s.tool is not None:
            tools_named = True
            if s.tool.arguments not in (None, {}, "") or s.tool.result not in (None, ""):
                return None
        for m in (*s.input_messages, *s.output_messages):
            if m.role in ("user", "assistant") and (m.text or "").strip():
                return None
            for call in m.tool_calls:
                tools_named = True
                if call.arguments not in (None, {}, ""):
                    return None
    if not tools_named:
        return None
    return _hint(spans, _HINTS, _DEFAULT)


#: how to give the spans a conversation id, most specific first
_ID_HINTS: Hints = (
    (
        "scope",
        "agent_framework",
        "pass options={'conversation_id': <id>} to Agent.run (Microsoft Agent Framework then writes "
        "gen_ai.conversation.id on its invoke_agent spans)",
    ),
    (
        "scope",
        "opentelemetry.instrumentation.openai_agents",
        "RunConfig(group_id=…) does not reach these spans: set session.id on a span of yours around each "
        "Runner.run",
    ),
    (
        "convention",
        "vercel",
        "pass experimental_telemetry.metadata.sessionId (AI SDK 6; AI SDK 7: runtimeContext {sessionId} with "
        "telemetry.includeRuntimeContext)",
    ),
    (
        "scope",
        "gen_ai",
        "AI SDK 7: pass runtimeContext {sessionId} with telemetry.includeRuntimeContext {sessionId: true}",
    ),
    ("scope", "openinference.", "wrap each turn in openinference.instrumentation.using_session(<id>)"),
    (
        "convention",
        "langfuse",
        "wrap each turn in langfuse.propagate_attributes(session_id=<id>) (Langfuse then writes session.id on "
        "every span of it)",
    ),
    (
        "scope",
        "com.anthropic.sdk",
        "pass open_telemetry={'conversation_id': <id>} to the Anthropic client (its own spans then carry "
        "gen_ai.conversation.id), or set session.id on a span of yours around each turn",
    ),
    (
        "convention",
        "haystack",
        "set session.id on a span of yours around each run (Haystack has no conversation id)",
    ),
    (
        "scope",
        "openlit.",
        "set session.id on a span of yours around each turn (OpenLIT has no conversation id)",
    ),
    (
        "scope",
        "logfire",
        "set gen_ai.conversation.id on a span around each turn (logfire.span(…, **{'gen_ai.conversation.id': <id>})); "
        "Logfire scrubs the value of any attribute whose key says session, so session.id never arrives",
    ),
    (
        "convention",
        "litellm",
        "set session.id on a span of yours around each turn: LiteLLM exports no conversation id "
        "(litellm_session_id stays in its own logs), and writes each call onto that span (under it, one span "
        "per call, with USE_OTEL_LITELLM_REQUEST_SPAN=true)",
    ),
    (
        "scope",
        "mlflow.",
        "mlflow.update_current_trace(session_id=…) reaches no exported span: set session.id on each turn's span "
        "(mlflow.get_current_active_span().set_attribute('session.id', <id>))",
    ),
)
_ID_DEFAULT = (
    "set gen_ai.conversation.id or session.id on the spans, or name the attribute that carries it in "
    "normalize.conversation_attribute"
)


def conversation_id_hint(spans: Sequence[AgentSpan], second: frozenset[str] = frozenset()) -> str:
    """How many traces a conversation without an id was built from, and how to give it one. Traces of
    only copies of its model calls (`call_copy`) joined it by their response ids, and those of only second
    recordings of its model calls (`second`: another instrumentation's, each call a trace of its own):
    said apart."""
    traces = {s.span.trace_id for s in spans if not s.call_copy} - second
    copies = len({s.span.trace_id for s in spans} - traces - second)
    how = (
        "grouped by its trace"
        if len(traces) <= 1
        else f"{len(traces)} traces joined by the history each resends"
    )
    if copies and traces:
        how += f", and {copies} of its model calls' copies by their response ids"
    if second and traces:
        how += f", and {len(second)} second recordings of its model calls (another instrumentation's)"
    return f"no conversation id on any span: {how}; to set one, {_hint(spans, _ID_HINTS, _ID_DEFAULT)}"


def _hint(spans: Sequence[AgentSpan], table: Hints, default: str) -> str:
    """The first hint of `table` for these spans, else `default`. The instrumentations that wrote what was
    read as agent activity decide, where there is any: an HTTP client's spans beside them (OpenLIT
    instruments httpx, under an `opentelemetry.instrumentation.` scope) name no setting of the agent's."""
    conventions = {s.convention for s in spans}
    scopes = {s.span.scope for s in spans if s.span.scope and s.kind != "other"} or {
        s.span.scope for s in spans if s.span.scope
    }
    for kind, key, hint in table:
        if key in conventions if kind == "convention" else any(scope.startswith(key) for scope in scopes):
            return hint
    return default
