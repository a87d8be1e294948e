"""Real spans from real agent libraries, replayed through the whole pipeline against the gold reference."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.cli import load_references, main
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig
from monitor.runtime.pipeline import Pipeline
from tests.unit.spans import to_otlp_json

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "otlp"
GOLD = ROOT / "monitor" / "data" / "demo" / "gold"
LIBRARIES = {
    "strands": "strands",
    "strands-latest": "strands",
    "openai-agents": "openinference",
    "traceloop": "traceloop",
}


def replay(ladder: Ladder, payloads: list[tuple[bytes, str]]) -> list[dict[str, Any]]:
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, load_references(GOLD), reports.append)
    for data, content_type in payloads:
        pipeline.ingest(data, content_type, "test")
    pipeline.flush()
    return reports


def pb(library: str, conversation: str) -> list[tuple[bytes, str]]:
    return [
        (p.read_bytes(), "application/x-protobuf")
        for p in sorted((FIXTURES / library).glob(f"{conversation}.*.pb"))
    ]


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_correct_conversation_rebuilds_and_passes(ladder: Ladder, library: str) -> None:
    [report] = replay(ladder, pb(library, "correct"))
    assert report["conversation_id"] == f"{library}-correct"
    assert report["adapter"] == LIBRARIES[library]
    assert (report["agent"], report["release"], report["reference_id"]) == (
        "reports-agent",
        "1.4.0",
        "sales-report-eu",
    )
    turns = report["observed_turns"]
    assert [t["role"] for t in turns] == ["User", "Agent", "User", "Tool", "Tool", "Agent"]
    assert turns[0]["predicted"]["response"] == "Create a sales report for me."
    assert turns[1]["predicted"]["response"].strip() == "Which region should the report cover?"
    assert turns[3]["predicted"] == {
        "tool_id": "filter_data",
        "action": "filter_data",
        "args": {"metric": "revenue", "region": "EU"},
        "result": {"dataset_id": "ds_eu_revenue_2024", "rows": 412},
    }
    assert turns[4]["predicted"]["args"] == {"dataset_id": "ds_eu_revenue_2024", "chart_type": "bar"}
    assert turns[4]["predicted"]["result"] == {"chart_id": "ch_reve_77"}
    assert turns[5]["predicted"]["response"].strip() == "Your EU revenue chart is ready: ch_reve_77"
    assert report["scored"] is True and report["success_rate"] == 1.0 and report["test_pass"] is True
    assert report["tool_calls"] == 2 and report["tool_errors"] == 0


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_wrong_metric_is_one_root_cause_and_its_cascades(ladder: Ladder, library: str) -> None:
    [report] = replay(ladder, pb(library, "wrong-metric"))
    assert report["root_cause"] == "inconsistent_parameter_values" and report["root_cause_count"] == 1
    by_no = {t["turn_no"]: t for t in report["turns"]}
    root = report["first_failure_turn"]
    assert by_no[root]["fields"] == ["metric"]
    assert report["cascading_count"] == 2
    assert all(
        t["root_turn"] == root for t in report["turns"] if t["failure_reason"] == "prior_action_failed"
    )
    assert report["success_rate"] == 0.25  # the question passes; the call, the chart and the reply fail


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_otlp_json_gives_the_same_reports(ladder: Ladder, library: str) -> None:
    payloads = pb(library, "wrong-metric")
    from_json = replay(
        ladder,
        [(to_otlp_json(ExportTraceServiceRequest.FromString(d)), "application/json") for d, _ in payloads],
    )
    assert from_json == replay(ladder, payloads)


def test_spans_out_of_order_and_one_per_request_give_the_same_reports(ladder: Ladder) -> None:
    payloads = pb("strands", "wrong-metric") + pb("openai-agents", "correct")
    single: list[tuple[bytes, str]] = []
    for data, _ in payloads:
        request = ExportTraceServiceRequest.FromString(data)
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    one = ExportTraceServiceRequest()
                    r = one.resource_spans.add()
                    r.resource.CopyFrom(rs.resource)
                    s = r.scope_spans.add()
                    s.scope.CopyFrom(ss.scope)
                    s.spans.add().CopyFrom(span)
                    single.append((one.SerializeToString(), "application/x-protobuf"))
    random.Random(7).shuffle(single)
    key = lambda r: r["conversation_id"]  # noqa: E731
    assert sorted(replay(ladder, single), key=key) == sorted(replay(ladder, payloads), key=key)


def test_replay_cli_writes_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reports.jsonl"
    assert main(["replay", str(FIXTURES), "--gold", str(GOLD), "--out", str(out)]) == 0
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(reports) == 8 and all(r["scored"] for r in reports)
    assert "8 conversation reports (8 scored" in capsys.readouterr().err


def test_replay_without_gold_is_scored_by_the_builtin_policy(tmp_path: Path) -> None:
    """Zero configuration: no gold, no policy file, and each conversation still gets a verdict, with the
    provenance of every argument value (the user said `EU`; turn 4's result gave the dataset id)."""
    out = tmp_path / "reports.jsonl"
    assert main(["replay", str(FIXTURES / "strands"), "--out", str(out)]) == 0
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["scored"], r["references"]) for r in reports] == [(True, ["policy:builtin"])] * 2
    calls = {t["turn_no"]: t for t in reports[0]["turns"] if t["type"] == "action"}
    assert calls[4]["provenance"]["region"] == {"source": "user", "kind": "code", "turn": 3, "checked": True}
    assert calls[5]["provenance"]["dataset_id"] == {
        "source": "tool_result",
        "kind": "id",
        "turn": 4,
        "checked": True,
    }
    assert calls[4]["provenance"]["metric"] == {"source": "agent", "kind": "other"}  # a plain word: unchecked
    assert reports[0]["tool_calls"] == 2 and len(reports[0]["observed_turns"]) == 6


def test_replay_without_gold_and_builtin_policy_off_still_reports(tmp_path: Path) -> None:
    out = tmp_path / "reports.jsonl"
    assert main(["replay", str(FIXTURES / "strands"), "--no-builtin-policy", "--out", str(out)]) == 0
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["scored"] for r in reports] == [False, False]
    assert "no reference" in reports[0]["unscored_reason"] or "not found" in reports[0]["unscored_reason"]
    assert reports[0]["tool_calls"] == 2 and len(reports[0]["observed_turns"]) == 6


def test_bad_files_are_reported_and_the_rest_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.pb").write_bytes((FIXTURES / "strands" / "correct.000.pb").read_bytes())
    (tmp_path / "truncated.pb").write_bytes((FIXTURES / "strands" / "correct.000.pb").read_bytes()[:50])
    (tmp_path / "nototlp.jsonl").write_text('{"hello": 1}\n{broken\n')
    out = tmp_path / "r.jsonl"
    assert main(["replay", str(tmp_path), "--gold", str(GOLD), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "truncated.pb" in err and "nototlp.jsonl:1" in err and "nototlp.jsonl:2" in err
    assert "Traceback" not in err
    assert len(out.read_text().splitlines()) == 1
