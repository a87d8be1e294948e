"""Poison inputs from issue 15, each inside traffic with good conversations beside it.

Every case is one OTLP request (protobuf or JSON) holding a poison span in conversation `poison-<case>`
and a good span in conversation `beside-<case>` of the same request, so a test can check that the bad
one is counted (or reported unscored with the reason) and that the rest of the request still counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.unit.spans import to_otlp_json

S = 1_000_000_000
BASE_NS = 1_750_000_000 * S  # June 2025: recorded, old traffic
POISON_AGENT = "poison-agent"
#: a policy for the agent of the bad-schema case: schemas come from the spans (and one is broken)
POLICY_YAML = f"policies:\n  - agent: {POISON_AGENT}\n    schemas_from_spans: true\n"


@dataclass(frozen=True)
class Case:
    name: str
    payload: bytes
    content_type: str
    outcome: (
        str  # "unscored": reported with the reason; "cut": the value cut and counted; "rejected": the span
    )
    reason: str  # what its unscored_reason (or the rejection) says


def add_span(req: ExportTraceServiceRequest, conv: str, n: int, attrs: dict[str, Any], **times: int) -> None:
    scope = req.resource_spans[0].scope_spans[0] if req.resource_spans else None
    if scope is None:
        rs = req.resource_spans.add()
        rs.resource.attributes.add(key="service.name").value.string_value = "poison-test"
        scope = rs.scope_spans.add()
    span = scope.spans.add()
    span.trace_id = (conv.encode() * 16)[:16]
    span.span_id = n.to_bytes(8, "big")
    span.name = str(attrs.get("gen_ai.operation.name", "span"))
    span.start_time_unix_nano = times.get("start", BASE_NS + n * S)
    span.end_time_unix_nano = times.get("end", BASE_NS + n * S + S // 2)
    for key, value in {"session.id": conv, "gen_ai.agent.name": POISON_AGENT, **attrs}.items():
        v = span.attributes.add(key=key).value
        if isinstance(value, bool):
            v.bool_value = value
        elif isinstance(value, int):
            v.int_value = value
        else:
            v.string_value = value


def _chat(req: ExportTraceServiceRequest, conv: str, n: int) -> None:
    add_span(req, conv, n, {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(
        [{"role": "assistant", "parts": [{"type": "text", "content": "All done."}]}])})  # fmt: skip


def _tool(req: ExportTraceServiceRequest, conv: str, n: int, **times: int) -> None:
    add_span(req, conv, n, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": f"c{n}",
        "gen_ai.tool.call.arguments": '{"id": "A1"}', "gen_ai.tool.call.result": '{"ok": true}'}, **times)  # fmt: skip


def openinference_type_error() -> Case:
    req = ExportTraceServiceRequest()
    prefix = "llm.output_messages.0.message.tool_calls"
    add_span(req, "poison-openinference", 1, {
        "openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
        f"{prefix}.0.tool_call.function.name": "lookup", f"{prefix}.x.tool_call.function.name": "other"})  # fmt: skip
    _chat(req, "beside-openinference", 2)
    return Case("openinference", req.SerializeToString(), "application/x-protobuf", "unscored", "TypeError")


def end_before_start() -> Case:
    req = ExportTraceServiceRequest()
    _tool(req, "poison-end-before-start", 1, start=BASE_NS + 10 * S, end=BASE_NS + 5 * S)
    _chat(req, "beside-end-before-start", 2)
    return Case(
        "end-before-start", req.SerializeToString(), "application/x-protobuf", "unscored", "ValidationError"
    )


def bad_tool_schema() -> Case:
    req = ExportTraceServiceRequest()
    definitions = [{"type": "function", "name": "lookup", "parameters": {"type": "objekt", "required": 7}}]
    add_span(req, "poison-bad-schema", 1, {"gen_ai.operation.name": "chat",
                                        "gen_ai.tool.definitions": json.dumps(definitions)})  # fmt: skip
    _tool(req, "poison-bad-schema", 2)
    _chat(req, "beside-bad-schema", 3)
    return Case("bad-schema", req.SerializeToString(), "application/x-protobuf", "unscored", "UnknownType")


def _json_with(conv: str, attribute_json: str) -> bytes:
    """An OTLP/JSON request: a good chat span of `beside-…`, and a span of `conv` whose attribute `x`
    has the given (raw JSON) AnyValue."""
    req = ExportTraceServiceRequest()
    _chat(req, f"beside-{conv.removeprefix('poison-')}", 2)
    _chat(req, conv, 1)
    doc = json.loads(to_otlp_json(req))
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"].append(
        {"key": "x", "value": {"stringValue": "PLACEHOLDER"}}
    )
    return json.dumps(doc).replace('{"stringValue": "PLACEHOLDER"}', attribute_json).encode()


def deep_array() -> Case:
    deep = '{"stringValue": "bottom"}'
    for _ in range(10_000):
        deep = '{"arrayValue": {"values": [' + deep + "]}}"
    return Case("deep-array", _json_with("poison-deep-array", deep), "application/json", "cut", "")


def huge_number() -> Case:
    payload = _json_with("poison-huge-number", '{"intValue": ' + "9" * 100_000 + "}")
    return Case("huge-number", payload, "application/json", "rejected", "Couldn't parse integer")


def cases() -> list[Case]:
    return [openinference_type_error(), end_before_start(), bad_tool_schema(), deep_array(), huge_number()]


def beside(case: Case) -> str:
    return f"beside-{case.name}"


def poisoned(case: Case) -> str:
    return f"poison-{case.name}"
