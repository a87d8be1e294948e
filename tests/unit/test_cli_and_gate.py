"""The score command's outputs and the gate's three outcomes, through the real CLI."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main
from tests.conftest import EXAMPLES, article_dialog


def test_score_writes_json_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, table = tmp_path / "r.json", tmp_path / "t.csv"
    assert (
        main(["score", str(EXAMPLES / "article_sales_report.json"), "--out", str(out), "--csv", str(table)])
        == 0
    )
    report = json.loads(out.read_text())
    agg, [d] = report["aggregate"], report["dialogs"]
    assert (d["success_rate"], d["first_failure_turn"], d["root_cause"]) == (
        0.2,
        2,
        "inconsistent_parameter_values",
    )
    assert agg["root_cause_reasons"] == {"inconsistent_parameter_values": 1}
    assert agg["chain_lengths"]["3+"]["turns"] == 4
    rows = list(csv.DictReader(table.open()))
    assert [r["failure_reason"] for r in rows] == ["", "inconsistent_parameter_values"] + [
        "prior_action_failed"
    ] * 3
    assert "root causes" in capsys.readouterr().err


def test_score_reads_a_directory_and_jsonl(tmp_path: Path) -> None:
    data = article_dialog()
    (tmp_path / "a.json").write_text(json.dumps(data))
    second = copy.deepcopy(data)
    second["dialog_id"] = "second"
    (tmp_path / "more.jsonl").write_text(json.dumps(second) + "\n")
    out = tmp_path / "r.json"
    assert main(["score", str(tmp_path), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["aggregate"]["dialogs"] == 2


def scored(tmp_path: Path, name: str, dialogs: list[dict[str, Any]]) -> Path:
    src = tmp_path / f"{name}.jsonl"
    src.write_text("\n".join(json.dumps(d) for d in dialogs) + "\n")
    out = tmp_path / f"{name}.report.json"
    assert main(["score", str(src), "--out", str(out)]) in (0,)
    return out


def fleet(n_bad: int, latency_ms: float = 100.0) -> list[dict[str, Any]]:
    dialogs = []
    for i in range(10):
        d = article_dialog()
        d["dialog_id"] = f"d{i}"
        for t in d["turns"]:
            t["latency_ms"] = latency_ms
            if i >= n_bad:
                t["predict_turn"] = copy.deepcopy(t["gold_turn"])
        dialogs.append(d)
    return dialogs


def test_gate_passes_when_nothing_regressed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = scored(tmp_path, "base", fleet(2))
    assert main(["gate", "--baseline", str(base), "--report", str(base)]) == 0
    assert "gate: PASS" in capsys.readouterr().out


def test_gate_fails_on_a_success_drop_and_a_reason_rise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = scored(tmp_path, "base", fleet(2)), scored(tmp_path, "new", fleet(3))
    assert main(["gate", "--baseline", str(base), "--report", str(new)]) == 1
    out = capsys.readouterr().out
    assert "strict success rate dropped 10.00 points" in out
    assert "inconsistent_parameter_values rose 50%" in out and "gate: FAIL" in out


def test_gate_limits_are_configurable(tmp_path: Path) -> None:
    base, new = scored(tmp_path, "base", fleet(2)), scored(tmp_path, "new", fleet(3))
    args = [
        "gate",
        "--baseline",
        str(base),
        "--report",
        str(new),
        "--max-drop-points",
        "20",
        "--max-reason-rise",
        "1.0",
    ]
    assert main(args) == 0


def test_gate_warns_on_latency_but_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, new = scored(tmp_path, "base", fleet(2, 100.0)), scored(tmp_path, "new", fleet(2, 130.0))
    assert main(["gate", "--baseline", str(base), "--report", str(new)]) == 0
    assert "WARNING: mean turn latency rose 30%" in capsys.readouterr().out


def test_gate_rejects_a_file_that_is_not_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    assert main(["gate", "--baseline", str(bad), "--report", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err


def test_python_dash_m_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("score", "gate", "calibrate", "export-model"):
        with pytest.raises(SystemExit) as exit_:
            main([cmd, "--help"])
        assert exit_.value.code == 0
    assert "DIALOGS".lower() in capsys.readouterr().out.lower()
