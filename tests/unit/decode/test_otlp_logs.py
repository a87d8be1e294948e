"""OTLP logs decode: GenAI events sent as log records become a child span of the span they name."""

from __future__ import annotations

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from monitor.decode.otlp import decode_logs_request
from monitor.errors import InputError
from monitor.normalize import normalize_span

TRACE, SPAN = bytes.fromhex("ab" * 16), bytes.fromhex("cd" * 8)
PB = "application/x-protobuf"


def request(*records: tuple[str, dict[str, str], bool]) -> ExportLogsServiceRequest:
    """(event name, body, has ids) per record, all in one scope."""
    out = ExportLogsServiceRequest()
    rl = out.resource_logs.add()
    rl.resource.attributes.append(KeyValue(key="service.name", value=AnyValue(string_value="travel")))
    sl = rl.scope_logs.add()
    sl.scope.name = "opentelemetry.instrumentation.openai_v2"
    for i, (name, body, ids) in enumerate(records):
        record = sl.log_records.add(time_unix_nano=1_000 + i, event_name=name)
        record.attributes.append(KeyValue(key="gen_ai.system", value=AnyValue(string_value="openai")))
        for k, v in body.items():
            record.body.kvlist_value.values.append(KeyValue(key=k, value=AnyValue(string_value=v)))
        if ids:
            record.trace_id, record.span_id = TRACE, SPAN
    return out


def test_the_records_of_one_span_become_one_child_span_with_them_as_events() -> None:
    data = request(
        ("gen_ai.user.message", {"content": "Weather in Paris?"}, True),
        ("gen_ai.choice", {"finish_reason": "stop"}, True),
        ("", {"content": "an application log line"}, True),
        ("gen_ai.user.message", {"content": "orphan"}, False),
    ).SerializeToString()
    decoded = decode_logs_request(data, PB, "logs.pb")
    [span] = decoded.spans
    assert (span.trace_id, span.parent_span_id) == (TRACE.hex(), SPAN.hex())
    assert span.span_id.startswith(SPAN.hex() + ":")
    assert [e.name for e in span.events] == ["gen_ai.user.message", "gen_ai.choice"]
    assert span.attributes == {"gen_ai.system": "openai"} and span.resource == {"service.name": "travel"}
    assert decoded.ignored == 1  # no event name: not a GenAI event
    assert decoded.rejected == [
        "logs.pb: resourceLogs[0] log record #3 'gen_ai.user.message': no trace or span id, "
        "so it cannot be joined to its span"
    ]
    normalized = normalize_span(span)
    assert [m.text for m in normalized.input_messages] == ["Weather in Paris?"]
    # a re-delivered request is the same span (deduplicated downstream), not new content
    assert decode_logs_request(data, PB, "again").spans[0].span_id == span.span_id


@pytest.mark.parametrize(
    ("payload", "content_type", "message"),
    [
        (b"\x0a\xff", PB, "logs.pb: not an OTLP protobuf ExportLogsServiceRequest"),
        (b'{"resourceSpans": []}', "application/json", "expected an object with 'resourceLogs'"),
        (b"{broken", "application/json", "malformed JSON at line 1 column 2"),
        (b"x", "text/plain", "unsupported content type 'text/plain'"),
    ],
)
def test_bad_logs_requests_name_the_origin_and_the_problem(
    payload: bytes, content_type: str, message: str
) -> None:
    with pytest.raises(InputError) as err:
        decode_logs_request(payload, content_type, "logs.pb")
    assert message in str(err.value)
