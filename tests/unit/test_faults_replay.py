"""`replay` under poison input (issue 15): the bad conversation is counted or reported unscored with the
reason, every good conversation beside it is reported whole and once, and no traceback is printed."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main
from tests import poison

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "otlp"
GOLD = ROOT / "monitor" / "data" / "demo" / "gold"


def replay(tmp_path: Path, inputs: list[Path], *extra: str) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    out = tmp_path / "reports.jsonl"
    out.unlink(missing_ok=True)
    policy = tmp_path / "policy.yaml"
    policy.write_text(poison.POLICY_YAML)
    code = main(
        ["replay", *map(str, inputs), "--gold", str(GOLD), "--policy", str(policy), "--out", str(out), *extra]
    )
    by_id: dict[str, list[dict[str, Any]]] = {}
    for line in out.read_text().splitlines() if out.exists() else []:
        report = json.loads(line)
        by_id.setdefault(report["conversation_id"], []).append(report)
    return code, by_id


def good_traffic(into: Path) -> Path:
    """The recorded fixtures (8 conversations, every convention) copied into `into`."""
    shutil.copytree(FIXTURES, into)
    return into


def verdicts(by_id: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    keep = ("scored", "success_rate", "test_pass", "root_cause", "spans", "tool_calls", "version")
    return {cid: [{k: r.get(k) for k in keep} for r in reports] for cid, reports in by_id.items()}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("clean")
    code, by_id = replay(tmp, [good_traffic(tmp / "traffic")])
    assert code == 0 and len(by_id) == 8
    # report fields are not secrets: the `token` key pattern redacts inside arguments and results only
    assert all(isinstance(r["input_tokens"], int) for [r] in by_id.values())
    return verdicts(by_id)


@pytest.mark.parametrize("case", poison.cases(), ids=lambda c: c.name)
def test_poison_is_isolated_in_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clean: dict[str, Any], case: poison.Case
) -> None:
    traffic = good_traffic(tmp_path / "traffic")
    suffix = ".json" if case.content_type == "application/json" else ".pb"
    (traffic / f"0-poison{suffix}").write_bytes(case.payload)  # read first: everything after it still counts
    code, by_id = replay(tmp_path, [traffic])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    good = {cid: v for cid, v in verdicts(by_id).items() if cid in clean}
    assert good == clean  # nothing lost, nothing cut: each good conversation once, whole, same verdict
    assert [r["scored"] for r in by_id[poison.beside(case)]] == [True]  # the one beside it, in its request
    if case.outcome == "unscored":
        [bad] = by_id[poison.poisoned(case)]
        assert bad["scored"] is False and case.reason in (bad["unscored_reason"] or "")
        assert code == 2 and f"not scored: conversation {poison.poisoned(case)!r}" in err
    elif case.outcome == "cut":  # cut and counted (attribute_values_truncated), like an over-long value
        assert [r["scored"] for r in by_id[poison.poisoned(case)]] == [True] and code == 0
    else:
        assert poison.poisoned(case) not in by_id and code == 2
        assert (
            f"span not used: {traffic / '0-poison.json'}: resourceSpans[0] span #1" in err
            and case.reason in err
        )
    assert set(by_id) == {
        *clean,
        poison.beside(case),
        *([] if case.outcome == "rejected" else [poison.poisoned(case)]),
    }


def test_a_second_gzip_member_is_read(tmp_path: Path, clean: dict[str, Any]) -> None:
    traffic = tmp_path / "traffic"
    traffic.mkdir()
    for f in sorted(FIXTURES.glob("*/*.pb")):  # one .jsonl.gz, one gzip member per request
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        from tests.unit.spans import to_otlp_json

        line = to_otlp_json(ExportTraceServiceRequest.FromString(f.read_bytes())) + b"\n"
        with (traffic / "all.jsonl.gz").open("ab") as fh:
            fh.write(gzip.compress(line))
    code, by_id = replay(tmp_path, [traffic])
    assert code == 0 and verdicts(by_id) == clean


def test_one_bad_gz_does_not_abort_the_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clean: dict[str, Any]
) -> None:
    traffic = good_traffic(tmp_path / "traffic")
    (traffic / "0-broken.pb.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    code, by_id = replay(tmp_path, [traffic])
    err = capsys.readouterr().err
    assert code == 2 and "0-broken.pb.gz: cannot read" in err and "Traceback" not in err
    assert verdicts(by_id) == clean


def test_a_gz_bomb_is_capped_like_the_receiver(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clean: dict[str, Any]
) -> None:
    traffic = good_traffic(tmp_path / "traffic")
    with gzip.open(traffic / "0-bomb.pb.gz", "wb") as fh:
        for _ in range(40):
            fh.write(b"\0" * (1 << 20))  # 40 MiB of zeros, 40 kB on disk
    bomb_lines = traffic / "0-bomb.jsonl.gz"
    with gzip.open(bomb_lines, "wb") as fh:
        fh.write(b"[" * (20 << 20) + b"\n")
    code, by_id = replay(tmp_path, [traffic])
    err = capsys.readouterr().err
    assert code == 2 and "0-bomb.pb.gz: larger than 16777216 bytes once decompressed" in err
    assert "0-bomb.jsonl.gz:1: larger than 16777216 bytes" in err and "Traceback" not in err
    assert verdicts(by_id) == clean


def test_a_gold_file_with_tool_schemas_as_a_list_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = json.loads((GOLD / "sales-report-eu.json").read_text())
    gold.setdefault("metadata", {})["tool_schemas"] = [{"name": "reports.FilterData"}]
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold))
    for argv in (["replay", str(FIXTURES), "--gold", str(path)], ["score", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert str(path) in err and "metadata.tool_schemas" in err and "Traceback" not in err


def test_replay_reads_the_environment_like_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_MONITOR_SERVER__MAX_REQUEST_BYTES", "2048")  # smaller than every fixture
    code, by_id = replay(tmp_path, [FIXTURES / "strands" / "correct.000.pb"])
    assert code == 2 and not by_id and "larger than 2048 bytes" in capsys.readouterr().err
