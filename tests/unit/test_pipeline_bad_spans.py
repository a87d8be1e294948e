"""Bad spans inside a good request: counted or explained, the rest of the conversation still reported."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig
from monitor.runtime.pipeline import Pipeline


def request(*spans: dict[str, Any]) -> bytes:
    req = ExportTraceServiceRequest()
    scope = req.resource_spans.add().scope_spans.add()
    for i, s in enumerate(spans, start=1):
        span = scope.spans.add()
        span.trace_id = bytes.fromhex("ab" * 16)
        span.span_id = s.get("span_id", i.to_bytes(8, "big"))
        span.name = s["name"]
        span.start_time_unix_nano = int(i * 1e9)
        span.end_time_unix_nano = int(i * 1e9 + 5e8)
        for k, v in s["attrs"].items():
            span.attributes.add(key=k).value.string_value = v
    return req.SerializeToString()


def run(ladder: Ladder, payload: bytes) -> tuple[list[dict[str, Any]], Pipeline]:
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, {}, reports.append)
    pipeline.ingest(payload, "application/x-protobuf", "test")
    pipeline.flush()
    return reports, pipeline


def tool(name: str, args: str, result: str, call_id: str) -> dict[str, Any]:
    return {"name": f"execute_tool {name}", "attrs": {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.call.arguments": args, "gen_ai.tool.call.result": result, "session.id": "c1"}}  # fmt: skip


def test_tool_span_without_its_call_and_bad_arguments_still_reported(ladder: Ladder) -> None:
    payload = request(
        tool("lookup", '{"id": "A1"}', '{"ok": true}', "orphan-1"),  # no model ever requested this call
        tool("update", "{id: A1, status", "null", "k2"),  # arguments that are not JSON
        {"name": "no ids", "attrs": {"session.id": "c1"}, "span_id": b""},  # rejected: no span id
    )
    [report], pipeline = run(ladder, payload)
    assert report["tool_calls"] == 2 and report["references"] == ["policy:builtin"]
    # no user message was recorded: the id A1 that nothing states is uncertain, never a failure
    assert report["test_pass"] and report["uncertain_comparisons"] >= 1
    lookup, update = report["observed_turns"]
    assert lookup["predicted"]["args"] == {"id": "A1"}
    assert update["predicted"]["args"] == {"_raw": "{id: A1, status"} and "not valid JSON" in update["error"]
    assert pipeline.stats["spans_rejected_no_id"] == 1 and pipeline.stats["spans_received"] == 3


def test_ten_megabyte_attribute_is_cut_and_counted(ladder: Ladder) -> None:
    payload = request(tool("upload", '{"id": "A1"}', "x" * 10_000_000, "k1"))
    [report], pipeline = run(ladder, payload)
    assert pipeline.stats["attribute_values_truncated"] == 1
    assert len(report["observed_turns"][0]["predicted"]["result"]) == 1_000_000


def test_unknown_convention_is_still_a_reported_conversation(ladder: Ladder) -> None:
    [report], pipeline = run(
        ladder, request({"name": "db.query", "attrs": {"session.id": "c9", "db.statement": "select 1"}})
    )
    assert (report["conversation_id"], report["adapter"], report["scored"]) == ("c9", "unknown", False)
    # never scored as a failure by the built-in policy: nothing was understood, and the report says why
    assert report["unscored_reason"] == "no_agent_activity_recognized"
    assert "adapters: unknown" in report["unscored_detail"] and "db" in report["unscored_detail"]
    assert pipeline.stats["spans_unknown"] == 1


def travel_gold() -> dict[str, Any]:
    from pathlib import Path

    from monitor.reference.golden import load_dialogs

    gold = Path(__file__).resolve().parents[1] / "fixtures" / "travel" / "gold" / "travel-booking.json"
    return {d.dialog_id: d for d in load_dialogs(gold).dialogs}


def _chat(user: str, reply: str, span_id: bytes) -> dict[str, Any]:
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": user}]}])
    output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": reply}]}])
    return {"name": "chat m", "span_id": span_id, "attrs": {
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": messages, "gen_ai.output.messages": output,
        "session.id": "c1", "aem.reference_id": "travel-booking"}}  # fmt: skip


def test_spans_nobody_understood_are_unscored_even_with_gold(ladder: Ladder) -> None:
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, travel_gold(), reports.append)
    unknown = {"session.id": "c1", "aem.reference_id": "travel-booking", "acme.agent.step": "plan"}
    pipeline.ingest(request({"name": "acme.step", "attrs": unknown}), "application/x-protobuf", "test")
    pipeline.flush()
    [report] = reports
    # gold asks for three calls, but nothing was read: no alert storm of missing_action, a reason instead
    assert (report["scored"], report["unscored_reason"]) == (False, "no_agent_activity_recognized")
    assert "adapters: unknown; attribute prefixes seen: acme, aem, session" in report["unscored_detail"]


def test_gold_calls_missing_while_tool_spans_went_unread_is_unscored_not_failed(ladder: Ladder) -> None:
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, travel_gold(), reports.append)
    payload = request(
        _chat(
            "What's the weather in Paris today?",
            "It is sunny and 21 degrees in Paris today.",
            b"\x00" * 7 + b"\x01",
        ),
        {"name": "get_weather.__call__", "attrs": {"session.id": "c1", "dspy.args": '{"city": "Paris"}'}},
    )
    pipeline.ingest(payload, "application/x-protobuf", "test")
    pipeline.flush()
    [report] = reports
    assert (report["scored"], report["unscored_reason"]) == (False, "no_agent_activity_recognized")
    assert "span 'get_weather.__call__'" in report["unscored_detail"]
    # the same conversation where the call was read is scored, and fails what gold misses
    reports.clear()
    pipeline = Pipeline(ScoringConfig(), ladder, travel_gold(), reports.append)
    payload = request(
        _chat("What's the weather in Paris today?", "It is sunny and 21 degrees in Paris today.", b"\x00" * 7 + b"\x01"),
        {**tool("get_weather", '{"city": "Paris"}', '{"forecast": "sunny"}', "k1"),
         "attrs": {**tool("get_weather", '{"city": "Paris"}', '{"forecast": "sunny"}', "k1")["attrs"],
                   "aem.reference_id": "travel-booking"}},
    )  # fmt: skip
    pipeline.ingest(payload, "application/x-protobuf", "test")
    pipeline.flush()
    [report] = reports
    assert report["scored"] and not report["test_pass"]


def test_a_tool_output_python_cannot_write_as_json_costs_no_other_conversation(ladder: Ladder) -> None:
    """A tool output written as a Python repr holding bytes (`{'body': b'…'}`) is kept as text; the
    conversation closing beside it is reported too."""
    png = tool("fetch", '{"url": "x"}', "{'body': b'\\x89PNG'}", "k1")
    other = {
        **_chat("hi", "hello", b"\x00" * 7 + b"\x09"),
        "attrs": {**_chat("hi", "hello", b"\x00" * 7 + b"\x09")["attrs"], "session.id": "c2"},
    }
    [first, second], _ = run(ladder, request(png, other))
    assert {first["conversation_id"], second["conversation_id"]} == {"c1", "c2"}
    fetch = next(r for r in (first, second) if r["conversation_id"] == "c1")
    assert fetch["observed_turns"][0]["predicted"]["result"] == "{'body': b'\\x89PNG'}"
