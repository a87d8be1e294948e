"""Verdicts as OTLP `gen_ai.evaluation.result` events on the spans they judge (issue 28), sent to an
in-process OTLP/HTTP receiver: the real recorded Strands and openai-agents conversations replayed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from bench.otlp_sink import otlp_sink

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "otlp"
GOLD = ROOT / "monitor" / "data" / "demo" / "gold"


def recorded_spans(*folders: str) -> set[tuple[str, str]]:
    out = set()
    for folder in folders:
        for f in (FIXTURES / folder).glob("*.pb"):
            body = ExportTraceServiceRequest.FromString(f.read_bytes())
            out |= {
                (s.trace_id.hex(), s.span_id.hex())
                for r in body.resource_spans
                for scope in r.scope_spans
                for s in scope.spans
            }
    return out


def replay(tmp_path: Path, endpoint: str, *folders: str, **env: str) -> tuple[list[dict[str, Any]], str]:
    out = tmp_path / "r.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "monitor", "replay", *(str(FIXTURES / f) for f in folders),
         "--gold", str(GOLD), "--out", str(out), "--evaluation-events", endpoint],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={"PATH": "/usr/bin:/bin", **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()], done.stderr


def test_every_scored_turn_gets_an_event_on_the_span_it_came_from(tmp_path: Path) -> None:
    with otlp_sink() as sink:
        reports, err = replay(tmp_path, sink.url, "strands", "openai-agents")
        records = sink.records()
    assert {name for name, *_ in records} == {"gen_ai.evaluation.result"}
    turns = [r for r in records if r[3]["gen_ai.evaluation.name"] == "aem.correctness"]
    scored = sum(len(r["turns"]) for r in reports)
    assert len(turns) == scored == 16  # one per scored turn, each once
    spans = recorded_spans("strands", "openai-agents")
    assert all((trace, span) in spans for _, trace, span, _ in records)  # a span that was in the input
    assert f"{len(records)} sent to {sink.url}, 0 dropped" in err

    wrong = {r[3]["aem.turn_no"]: r for r in turns if r[3]["aem.conversation_id"] == "strands-wrong-metric"}
    root = wrong[4][3]
    assert root["gen_ai.evaluation.score.label"] == "fail" and root["gen_ai.evaluation.score.value"] == 0.0
    assert root["error.type"] == "inconsistent_parameter_values" and root["aem.attribution"] == "root_cause"
    assert "metric: expected 'revenue', got 'profit'" in root["gen_ai.evaluation.explanation"]
    for later in (5, 6):
        cascade = wrong[later][3]
        assert cascade["aem.attribution"] == "cascade" and cascade["aem.root_cause_turn"] == 4
        assert cascade["error.type"] == "prior_action_failed"
    report = next(r for r in reports if r["conversation_id"] == "strands-wrong-metric")
    call = next(t for t in report["observed_turns"] if t["turn_no"] == 4)
    assert wrong[4][1:3] == (call["trace_id"], call["span_id"])  # the tool call's own span
    truth = [r for r in records if r[3]["gen_ai.evaluation.name"] == "aem.truthfulness"]
    assert {r[3]["aem.turn_no"] for r in truth if r[3]["aem.conversation_id"] == "strands-wrong-metric"} == {
        4,
        5,
        6,
    }
    conversation = [r for r in records if r[3]["gen_ai.evaluation.name"] == "aem.conversation"]
    assert len(conversation) == len(reports) == 4
    failed = next(r for r in conversation if r[3]["aem.conversation_id"] == "strands-wrong-metric")
    assert failed[1:3] == (report["trace_id"], report["span_id"])  # the conversation's root span
    assert failed[3]["aem.root_cause_turn"] == 4 and failed[3]["gen_ai.evaluation.score.label"] == "fail"


def test_with_the_endpoint_down_reports_go_on_and_the_lost_events_are_counted(tmp_path: Path) -> None:
    with otlp_sink(status=503) as down:
        reports, err = replay(tmp_path, down.url, "strands", AGENT_MONITOR_EVALUATION_EVENTS__TIMEOUT_S="1")
    assert [r["scored"] for r in reports] == [True, True]  # every conversation reported, whole
    assert {r["spans"] for r in reports} == {12}
    assert f"0 sent to {down.url}, 13 dropped" in err


def test_the_queue_is_bounded_and_what_does_not_fit_is_counted_not_waited_for(tmp_path: Path) -> None:
    """An endpoint that takes the connection and never answers: `__call__` only queues, the queue holds
    `max_queue` records, the rest are dropped and counted at once; at close, the stuck ones too."""
    import socket

    from monitor.config import EvaluationEventsConfig
    from monitor.publish.evaluation_events import EvaluationEvents, events_of

    reports, _ = replay(tmp_path, "http://127.0.0.1:9", "strands")  # port 9: nothing listens
    report = next(r for r in reports if r["conversation_id"] == "strands-wrong-metric")
    n = len(events_of(report))
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        config = EvaluationEventsConfig(
            endpoint=f"http://127.0.0.1:{silent.getsockname()[1]}", max_queue=3, batch_size=3,
            schedule_delay_s=0.05, timeout_s=1,
        )  # fmt: skip
        events = EvaluationEvents(config)
        events(report)
        counts = events.counts()
        assert (counts["evaluation_events_sent"], counts["evaluation_events_dropped"]) == (0.0, n - 3.0)
        events.close()
    counts = events.counts()
    assert (counts["evaluation_events_sent"], counts["evaluation_events_dropped"]) == (0.0, float(n))
    assert counts["evaluation_events_cpu_seconds"] > 0  # queueing them took some: it is counted


def test_the_attribute_length_limit_an_operator_sets_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT` bounds every string attribute, as the SDK's own
    logger would (the explanation of a failing turn is the long one)."""
    from monitor.config import EvaluationEventsConfig
    from monitor.publish.evaluation_events import EvaluationEvents

    reports, _ = replay(tmp_path, "http://127.0.0.1:9", "strands")
    report = next(r for r in reports if r["conversation_id"] == "strands-wrong-metric")
    monkeypatch.setenv("OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", "12")
    with otlp_sink() as sink:
        events = EvaluationEvents(EvaluationEventsConfig(endpoint=sink.url, schedule_delay_s=0.05))
        events(report)
        events.close()
        records = sink.records()
    assert records and events.counts()["evaluation_events_sent"] == len(records)
    failing = next(a for *_, a in records if a["gen_ai.evaluation.score.label"] == "fail")
    assert failing["gen_ai.evaluation.explanation"] == "inconsistent"  # 12 characters of the reason
    assert all(len(v) <= 12 for *_, a in records for v in a.values() if isinstance(v, str))


def test_a_row_renumbered_by_the_alignment_gets_the_event_of_its_own_span() -> None:
    """Alignment with gold renumbers rows (a gold call no live turn made is a row of its own): each
    event goes on the span of the observed turn its row judges (`live_turn_no`), a gold turn nobody
    made on the conversation's root span."""
    from monitor.publish.evaluation_events import events_of

    report = {
        "conversation_id": "c", "scored": True, "version": 1, "trace_id": "a" * 32, "span_id": "0" * 16,
        "test_pass": False, "success_rate": 0.5,
        "observed_turns": [
            {"turn_no": 1, "trace_id": "a" * 32, "span_id": "1" * 16},
            {"turn_no": 2, "trace_id": "a" * 32, "span_id": "2" * 16},
        ],
        "turns": [
            {"turn_no": 1, "live_turn_no": 1, "success": True, "checks": []},
            {"turn_no": 2, "live_turn_no": None, "success": False, "failure_reason": "missing_action", "checks": []},
            {"turn_no": 3, "live_turn_no": 2, "success": True, "checks": []},
        ],
    }  # fmt: skip
    spans = {
        e.attributes["aem.turn_no"]: e.span_id for e in events_of(report) if "aem.turn_no" in e.attributes
    }
    assert spans == {1: "1" * 16, 2: "0" * 16, 3: "2" * 16}


def test_an_id_that_is_no_span_id_loses_its_event_only(tmp_path: Path) -> None:
    """A report whose span id was rewritten (too long, signed, not hex): that turn's event is dropped and
    counted; every other event of the batch still arrives (the encoder would refuse the whole batch)."""
    from monitor.config import EvaluationEventsConfig
    from monitor.publish.evaluation_events import EvaluationEvents, events_of

    reports, _ = replay(tmp_path, "http://127.0.0.1:9", "strands")
    good = next(r for r in reports if r["conversation_id"] == "strands-correct")
    bad = json.loads(json.dumps(next(r for r in reports if r["conversation_id"] == "strands-wrong-metric")))
    rewritten: list[Any] = ["-1", "ff" * 20, "0x_1f", ["1" * 16]]  # a list too: no text, no key (review)
    for i, turn in enumerate(bad["observed_turns"]):
        turn["span_id"] = rewritten[i % 4]
    spoiled = sum(1 for e in events_of(bad) if e.span_id in rewritten)
    assert spoiled >= 4
    with otlp_sink() as sink:
        events = EvaluationEvents(EvaluationEventsConfig(endpoint=sink.url, schedule_delay_s=0.05))
        events(good)
        events(bad)
        events.close()
        records = sink.records()
    total = len(events_of(good)) + len(events_of(bad))
    counts = events.counts()
    assert (counts["evaluation_events_sent"], counts["evaluation_events_dropped"]) == (
        total - spoiled,
        spoiled,
    )
    assert len(records) == total - spoiled


def test_after_close_and_with_the_sdk_disabled_nothing_is_sent_or_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from monitor.config import EvaluationEventsConfig
    from monitor.publish.evaluation_events import EvaluationEvents

    reports, _ = replay(tmp_path, "http://127.0.0.1:9", "strands")
    with otlp_sink() as sink:
        events = EvaluationEvents(EvaluationEventsConfig(endpoint=sink.url, schedule_delay_s=0.05))
        events(reports[0])
        events.close()
        final = events.counts()
        events(reports[1])  # a report after close: the summary printed at close stays true
        events.close()  # and a second close does nothing
        assert events.counts() == final and final["evaluation_events_sent"] > 0
        monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
        disabled = EvaluationEvents(EvaluationEventsConfig(endpoint=sink.url, schedule_delay_s=0.05))
        disabled(reports[1])
        disabled.close()
        assert len(sink.records()) == final["evaluation_events_sent"]  # nothing more arrived
    assert disabled.counts()["evaluation_events_sent"] == disabled.counts()["evaluation_events_dropped"] == 0
