"""Normalize stage: one adapter per convention family, one internal model out. Pure.

`normalize_span` picks the adapter by what the span carries, most specific first: OpenInference
(`openinference.span.kind`), LiteLLM's callback (`litellm.call_id`, scope `litellm`),
OpenLLMetry/Traceloop (`traceloop.*`, indexed `gen_ai.prompt.N`),
Strands Agents (`gen_ai.system` / `gen_ai.provider.name` = `strands-agents`), Haystack's own tracer
(`haystack.*`), Vercel AI SDK before 7 (`ai.*`), the Langfuse SDK (`langfuse.observation.*`), MLflow
Tracing (`mlflow.spanType`), OTel GenAI (`gen_ai.*`). A span of an unknown
convention still comes out (convention `unknown`, kind `other`) with its conversation identity, so
nothing is dropped. Tool names with a plugin prefix are split where
their instrumentation puts it (names.py). Convention keys appear only in this package.
"""

from __future__ import annotations

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Span
from monitor.normalize.common import bare, identity, unread_tool
from monitor.normalize.genai import is_genai, normalize_genai
from monitor.normalize.haystack import is_haystack, normalize_haystack
from monitor.normalize.langfuse import is_langfuse, normalize_langfuse
from monitor.normalize.litellm import is_litellm, normalize_litellm
from monitor.normalize.mlflow import is_mlflow, normalize_mlflow
from monitor.normalize.names import split_plugin_names
from monitor.normalize.openinference import is_openinference, normalize_openinference
from monitor.normalize.strands import is_strands, normalize_strands
from monitor.normalize.traceloop import is_traceloop, normalize_traceloop
from monitor.normalize.vercel import is_vercel, normalize_vercel


def normalize_span(span: Span, config: NormalizeConfig | None = None) -> AgentSpan:
    config = config or NormalizeConfig()
    return split_plugin_names(_adapt(span, config), config)


def _adapt(span: Span, config: NormalizeConfig) -> AgentSpan:
    if is_openinference(span):
        return normalize_openinference(span, config)
    if is_litellm(
        span
    ):  # before Traceloop: LiteLLM writes OpenLLMetry's `llm.request.type` beside GenAI messages
        return normalize_litellm(span, config)
    if is_traceloop(span):
        return normalize_traceloop(span, config)
    if is_strands(span):
        return normalize_strands(span, config)
    if is_haystack(span):
        return normalize_haystack(span, config)
    if is_vercel(span):  # before GenAI: AI SDK 6 writes a few gen_ai.* keys beside its ai.* content
        return normalize_vercel(span, config)
    if is_langfuse(span):
        return normalize_langfuse(span, config)
    if is_mlflow(span):
        return normalize_mlflow(span, config)
    if is_genai(span):
        return normalize_genai(span, config)
    who = identity(span, config)
    return AgentSpan(
        span=bare(span),
        convention="unknown",
        kind="other",
        conversation_id=who.conversation_id,
        reference_id=who.reference_id,
        agent=who.agent,
        release=who.release,
        end_marker=who.end_marker,
        evidence=who.evidence,
        attribute_prefixes=tuple(sorted({key.split(".", 1)[0] for key in span.attributes})),
        unread_tool=unread_tool(span),
    )


__all__ = ["normalize_span"]
