"""OTLP decode on payloads encoded by the real OpenTelemetry SDK encoder, as protobuf and OTLP/JSON."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, Status, StatusCode

from monitor.decode.otlp import decode_request
from monitor.errors import InputError
from tests.unit.spans import to_otlp_json


def sdk_request() -> Any:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agent", "service.version": "1.2.0"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test-agent")
    with tracer.start_as_current_span("invoke_agent travel") as agent:
        agent.set_attribute("gen_ai.conversation.id", "conv-1")
        with tracer.start_as_current_span(
            "execute_tool search_flights", links=[Link(agent.get_span_context())]
        ) as tool:
            tool.set_attribute("gen_ai.tool.name", "search_flights")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"to": "Paris"}')
            tool.set_attribute("gen_ai.usage.input_tokens", 42)
            tool.set_attribute("tags", ["a", "b"])
            tool.add_event("gen_ai.tool.message", {"content": "3 flights"})
            tool.set_status(Status(StatusCode.ERROR, "timeout"))
    return encode_spans(exporter.get_finished_spans())


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_sdk_spans_decode_the_same_from_both_encodings(encoding: str) -> None:
    request = sdk_request()
    payload = request.SerializeToString() if encoding == "protobuf" else to_otlp_json(request)
    content_type = "application/x-protobuf" if encoding == "protobuf" else "application/json"
    decoded = decode_request(payload, content_type, "test")
    assert decoded.rejected == []
    by_name = {s.name: s for s in decoded.spans}
    agent, tool = by_name["invoke_agent travel"], by_name["execute_tool search_flights"]
    assert (
        tool.parent_span_id == agent.span_id and tool.trace_id == agent.trace_id and len(tool.trace_id) == 32
    )
    assert tool.attributes["gen_ai.usage.input_tokens"] == 42  # intValue, a string in JSON, comes back an int
    assert tool.attributes["tags"] == ["a", "b"]
    assert tool.status == "ERROR" and tool.status_message == "timeout"
    assert tool.events[0].name == "gen_ai.tool.message" and tool.events[0].attributes == {
        "content": "3 flights"
    }
    assert tool.links[0].span_id == agent.span_id
    assert tool.resource["service.version"] == "1.2.0" and tool.scope == "test-agent"
    assert agent.attributes["gen_ai.conversation.id"] == "conv-1"


def test_both_encodings_agree() -> None:
    request = sdk_request()
    a = decode_request(request.SerializeToString(), "application/x-protobuf", "p").spans
    b = decode_request(to_otlp_json(request), "application/json", "j").spans
    assert [s.model_dump(exclude={"origin"}) for s in a] == [s.model_dump(exclude={"origin"}) for s in b]


@pytest.mark.parametrize(
    ("payload", "content_type", "fragment"),
    [
        (b"\x0a\xff\xff\xff", "application/x-protobuf", "not an OTLP protobuf"),
        (b"{not json", "application/json", "malformed JSON at line 1"),
        (b'{"hello": 1}', "application/json", "JSON that is not OTLP"),
        (b"\xff\xfe", "application/json", "not UTF-8"),
        (b"{}", "text/plain", "unsupported content type"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz", "spanId": "01"}]}]}]}',
            "application/json",
            "not a hex id",
        ),
    ],
)
def test_undecodable_payloads_name_the_origin(payload: bytes, content_type: str, fragment: str) -> None:
    with pytest.raises(InputError) as err:
        decode_request(payload, content_type, "http 127.0.0.1:4318/v1/traces")
    assert "127.0.0.1:4318" in str(err.value) and fragment in str(err.value)


def test_spans_without_ids_are_rejected_the_rest_kept() -> None:
    request = sdk_request()
    request.resource_spans[0].scope_spans[0].spans[0].span_id = b""
    decoded = decode_request(request.SerializeToString(), "application/x-protobuf", "f.pb")
    assert (
        len(decoded.spans) == 1
        and len(decoded.rejected) == 1
        and "no trace or span id" in decoded.rejected[0]
    )


def test_huge_attribute_values_are_cut_and_counted() -> None:
    request = sdk_request()
    span = request.resource_spans[0].scope_spans[0].spans[0]
    span.attributes.add(key="big").value.string_value = "x" * 10_000_000
    decoded = decode_request(
        request.SerializeToString(), "application/x-protobuf", "f.pb", max_value_chars=1000
    )
    big = next(s for s in decoded.spans if "big" in s.attributes)
    assert len(big.attributes["big"]) == 1000 and decoded.truncated_values == 1


def test_invalid_utf8_in_one_attribute_keeps_the_request() -> None:
    """Strict protobuf parsing rejects the whole request; the lenient path keeps every span."""
    request = sdk_request()
    span = request.resource_spans[0].scope_spans[0].spans[0]
    span.attributes.add(key="note").value.string_value = "MARKER"
    payload = request.SerializeToString().replace(b"MARKER", b"bad\xff\xfe!")
    decoded = decode_request(payload, "application/x-protobuf", "f.pb")
    assert len(decoded.spans) == 2
    noted = next(s for s in decoded.spans if "note" in s.attributes)
    assert noted.attributes["note"] == "bad\ufffd\ufffd!"
    assert noted.attributes["gen_ai.tool.name"] == "search_flights"
