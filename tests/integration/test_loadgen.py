"""The load generator and the monitor against its truth (issue 8): the fast correctness slice CI runs.

Generated traffic goes through the same commands a user runs — `loadgen`, `replay`, `loadgen --check`
— and the monitor must agree with the truth the generator built: every verdict, reason and root.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from monitor.cli import main
from monitor.compare.ladder import Ladder
from monitor.config import NormalizeConfig
from monitor.decode.otlp import decode_request
from monitor.loadgen.scenarios import FAMILIES, FAULTS, HARMLESS, REASON_OF_FAULT, make_reference, play
from monitor.loadgen.traffic import LoadConfig, Traffic
from monitor.normalize import normalize_span

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "otlp"


@pytest.fixture(scope="module")
def slice_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("loadgen")
    assert (
        main(["loadgen", "--out", str(out), "--conversations", "240", "--fault-rate", "0.7", "--seed", "3"])
        == 0
    )
    assert (
        main(
            ["replay", str(out / "traffic"), "--gold", str(out / "gold"), "--out", str(out / "reports.jsonl")]
        )
        == 0
    )
    return out


def test_monitor_agrees_with_the_generated_truth(slice_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["loadgen", "--out", str(slice_dir), "--check", str(slice_dir / "reports.jsonl")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["reported"] == result["conversations"] == 240
    assert result["verdict_accuracy"] >= 0.99, result["top_disagreements"]
    assert result["reason_accuracy"] >= 0.95, result["top_disagreements"]
    assert result["root_cause_precision"] >= 0.95 and result["root_cause_recall"] >= 0.95, result
    assert result["cascade_precision"] >= 0.95 and result["cascade_recall"] >= 0.95, result
    assert result["first_failure_turn_accuracy"] >= 0.99, result["top_disagreements"]
    # the slice exercised every fault, cascades and clean turns; a recovered attempt has no verdict of
    # its own (alignment.failed_attempts: forgive_if_recovered), it is counted in `recovery` instead
    assert set(result["by_fault"]) >= {*FAULTS, "prior_action_failed", "none"} - {"tool_error_recovered"}


def test_a_recovered_attempt_is_counted_not_failed(slice_dir: Path) -> None:
    truth = [json.loads(line) for line in (slice_dir / "truth.jsonl").read_text().splitlines()]
    latest = {}
    for line in (slice_dir / "reports.jsonl").read_text().splitlines():
        r = json.loads(line)
        latest[r["conversation_id"]] = r
    recovered = [t for t in truth if t["faults"] == ["tool_error_recovered"]]
    assert recovered, "the slice has conversations whose only fault is a recovered tool error"
    for t in recovered:
        report = latest[t["conversation_id"]]
        assert report["test_pass"] and not report["strict_test_pass"], t["conversation_id"]
        assert report["recovery"]["recovered"] == report["recovery"]["failed_attempts"] == 1
        assert [u["why"] for u in report["unmatched"] if u["type"] == "action"].count(
            "recovered_attempt"
        ) == 1


def test_the_slice_is_realistic_traffic(slice_dir: Path) -> None:
    truth = [json.loads(line) for line in (slice_dir / "truth.jsonl").read_text().splitlines()]
    reports = [json.loads(line) for line in (slice_dir / "reports.jsonl").read_text().splitlines()]
    assert {t["convention"] for t in truth} == {"genai", "genai-events", "strands", "openinference"}
    assert {t["family"] for t in truth} == {f.name for f in FAMILIES}
    adapters = Counter(r["adapter"] for r in reports)
    assert set(adapters) == {"genai", "strands", "openinference"}
    # late and out-of-order spans: some conversations were reported again with more spans
    versions = Counter(r["conversation_id"] for r in reports)
    assert any(n > 1 for n in versions.values())
    multi_trace = [t for t in truth if sum(1 for x in t["turns"] if x["role"] == "User") > 1]
    assert multi_trace, "conversations spread over several traces"


def test_same_seed_same_traffic() -> None:
    def encode(seed: int) -> list[bytes]:
        return [r.encode() for r in Traffic(LoadConfig(conversations=30, seed=seed)).requests()]

    assert encode(5) == encode(5)
    assert encode(5) != encode(6)


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_has_the_truth_its_definition_says(fault: str) -> None:
    for number in range(40):
        ref = make_reference(FAMILIES[number % 3], number, seed=1)
        conv = play(ref, [fault] * len(ref.tasks), "c", random.Random(number))
        own = [t for t in conv.truth if t.fault == fault]
        if fault not in conv.faults:  # no call of this reference takes the value fault: a harmless stand-in
            assert fault in ("near_value", "far_value", "paraphrased_value") and set(conv.faults) <= HARMLESS
            continue
        assert own, f"{fault} was not injected into {ref.reference_id}"
        for t in own:
            if fault in ("paraphrased_value", "paraphrased_reply"):
                assert t.success, f"{fault} must pass: {t}"
            elif fault == "tool_error_recovered":  # forgiven once the retry works: no verdict of its own
                assert t.success is None and t.failure_reason is None, t
            else:
                assert not t.success and t.failure_reason == REASON_OF_FAULT[fault] and t.root_turn is None
        for t in conv.truth:
            if t.failure_reason == "prior_action_failed":
                assert t.root_turn is not None and t.root_turn < t.turn_no


def test_generated_strands_spans_have_the_recorded_shape() -> None:
    """The generator's Strands tool span carries what the real Strands 1.62 recording carries."""
    recorded = decode_request(
        (FIXTURES / "strands" / "correct.000.pb").read_bytes(), "application/x-protobuf", "fixture"
    )
    real_tool = next(s for s in recorded.spans if s.name.startswith("execute_tool"))
    request = next(Traffic(LoadConfig(conversations=20, conventions=("strands",))).requests())
    generated = decode_request(request.encode(), "application/x-protobuf", "gen")
    made_tool = next(s for s in generated.spans if s.name.startswith("execute_tool"))
    core = {
        "gen_ai.operation.name",
        "gen_ai.system",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.status",
    }
    assert core <= set(real_tool.attributes) and core <= set(made_tool.attributes)
    assert [e.name for e in made_tool.events] == [e.name for e in real_tool.events]
    a, b = normalize_span(real_tool, NormalizeConfig()), normalize_span(made_tool, NormalizeConfig())
    assert (a.convention, a.kind) == (b.convention, b.kind) == ("strands", "tool")
    assert b.tool is not None and b.tool.arguments and b.tool.result


@pytest.mark.parametrize("scheme", ["http", "grpc"])
def test_loadgen_sends_live_traffic_to_run(
    scheme: str, tmp_path: Path, ladder: Ladder, capsys: pytest.CaptureFixture[str]
) -> None:
    """`loadgen --send` paces generated traffic in real time into a running service, over either
    receiver, and the service's reports agree with the truth."""
    from monitor.cli import load_references
    from monitor.config import WindowConfig
    from tests.integration.test_run_service import start, wait_for

    args = [
        "--conversations",
        "24",
        "--seed",
        "5",
        "--rate",
        "40",
        "--time-scale",
        "0.02",
        "--references",
        "4",
    ]
    assert main(["loadgen", "--out", str(tmp_path / "files"), *args]) == 0  # the same seed: the same gold
    # the default windows: a trace's children wait for the root that names them (exported seconds later)
    service = start(ladder, windows=WindowConfig())
    try:
        service.pipeline.references = load_references(tmp_path / "files" / "gold")
        target = service.http if scheme == "http" else f"grpc://127.0.0.1:{service.grpc_port}"
        assert main(["loadgen", "--out", str(tmp_path / "live"), *args, "--send", target]) == 0
        wait_for(service.reports, 24)
    finally:
        service.shutdown()
    (tmp_path / "reports.jsonl").write_text("".join(json.dumps(r) + "\n" for r in service.reports))
    capsys.readouterr()
    assert main(["loadgen", "--out", str(tmp_path / "live"), "--check", str(tmp_path / "reports.jsonl")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["reported"] == result["conversations"] == 24
    assert result["verdict_accuracy"] == 1.0, result["top_disagreements"]


def test_bad_loadgen_input_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loadgen", "--out", str(tmp_path), "--fault-rate", "3"]) == 2
    assert "--fault-rate: 3.0 is out of range" in capsys.readouterr().err
    assert main(["loadgen", "--out", str(tmp_path), "--conventions", "genai,zipkin"]) == 2
    assert "zipkin" in capsys.readouterr().err
    (tmp_path / "truth.jsonl").write_text('{"conversation_id": "c"}\n')
    (tmp_path / "reports.jsonl").write_text('{"conversation_id": "c"}\nnot json\n')
    assert main(["loadgen", "--out", str(tmp_path), "--check", str(tmp_path / "reports.jsonl")]) == 2
    assert f"{tmp_path / 'reports.jsonl'}:2: not JSON" in capsys.readouterr().err
    (tmp_path / "reports.jsonl").write_text('{"conversation_id": "c"}\n')
    assert main(["loadgen", "--out", str(tmp_path), "--check", str(tmp_path / "reports.jsonl")]) == 2
    assert "not a loadgen truth file" in capsys.readouterr().err
