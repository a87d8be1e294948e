"""Bad golden dialogs: a clear message naming file, dialog, turn and field; exit 2; no traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main
from tests.conftest import action

GOOD_TURN = {
    "turn_no": 1,
    "turn": "Tool",
    "gold_turn": action("t", "a", {"x": 1}),
    "predict_turn": action("t", "a", {"x": 1}),
}


def turns_with(**change: Any) -> list[dict[str, Any]]:
    return [{**GOOD_TURN, **change}]


CASES = [
    ("malformed", '{"dialog_id": "d1", "turns": [', ["line 1", "malformed JSON"]),
    (
        "missing field",
        {"dialog_id": "d1", "turns": [{"turn": "Tool", "gold_turn": GOOD_TURN["gold_turn"]}]},
        ["'d1'", "turn #1", "turn_no", "Field required"],
    ),
    ("mistyped", {"dialog_id": "d1", "turns": turns_with(turn_no="one")}, ["turn_no", "valid integer"]),
    (
        "unknown role",
        {"dialog_id": "d1", "turns": turns_with(turn="Robot")},
        ["turn 1", "unknown turn role 'Robot'"],
    ),
    (
        "duplicate turn_no",
        {"dialog_id": "d1", "turns": [GOOD_TURN, GOOD_TURN]},
        ["'d1'", "duplicate turn numbers [1]"],
    ),
    (
        "depends_on forward",
        {"dialog_id": "d1", "turns": [{**GOOD_TURN, "depends_on": [2]}, {**GOOD_TURN, "turn_no": 2}]},
        ["turn 1", "depends_on", "not earlier"],
    ),
    (
        "depends_on nowhere",
        {"dialog_id": "d1", "turns": turns_with(depends_on=[9])},
        ["turn 1", "depends_on", "turn 9 does not exist"],
    ),
    (
        "args not an object",
        {
            "dialog_id": "d1",
            "turns": turns_with(gold_turn={"tool_id": "t", "action": "a", "args": [["x", 1]]}),
        },
        ["turn 1", "gold_turn.args", "dictionary"],
    ),
    (
        "typo in a field",
        {"dialog_id": "d1", "turns": turns_with(predict_turn={"tool_id": "t", "action": "a", "arg": {}})},
        ["turn 1", "predict_turn.arg", "unknown field"],
    ),
    (
        "deeply nested",
        {
            "dialog_id": "d1",
            "turns": turns_with(
                gold_turn={"tool_id": "t", "action": "a", "args": {"x": json.loads("[" * 40 + "]" * 40)}}
            ),
        },
        ["nested deeper than 32"],
    ),
    (
        "huge value",
        {
            "dialog_id": "d1",
            "turns": turns_with(gold_turn={"tool_id": "t", "action": "a", "args": {"x": "y" * 1_000_001}}),
        },
        ["exceeds 1000000"],
    ),
    (
        "Tool turn with a reply",
        {"dialog_id": "d1", "turns": turns_with(gold_turn={"response": "hi"})},
        ["turn 1", "gold_turn", "Tool turn needs"],
    ),
    ("not a dialog", 42, ["a dialog is a JSON array of turns"]),
    (
        "unrecorded reply in a dialog",  # the monitor's mark on live replies no span recorded, no input field
        {
            "dialog_id": "d1",
            "turns": [
                {
                    "turn_no": 1,
                    "turn": "Agent",
                    "gold_turn": {"response": "Booked."},
                    "predict_turn": {"response": "", "unrecorded": "made up"},
                }
            ],
        },
        ["turn 1", "predict_turn.unrecorded", "never in a golden dialog"],
    ),
]


@pytest.mark.parametrize(("name", "content", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_dialog_is_named_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: Any, expected: list[str]
) -> None:
    path = tmp_path / "dialogs.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err
    for fragment in expected:
        assert fragment in err, (fragment, err)


def test_keep_going_scores_the_rest_and_lists_the_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dialogs.jsonl"
    good = {"dialog_id": "good", "turns": [GOOD_TURN]}
    path.write_text(
        "\n".join(
            [
                json.dumps(good),
                "{not json",
                json.dumps({"dialog_id": "bad", "turns": turns_with(turn="Robot")}),
            ]
        )
        + "\n"
    )
    out = tmp_path / "report.json"
    assert main(["score", str(path), "--keep-going", "--out", str(out)]) == 2
    report = json.loads(out.read_text())
    assert [d["dialog_id"] for d in report["dialogs"]] == ["good"]
    rejected = report["aggregate"]["rejected"]
    assert len(rejected) == 2 and f"{path}:2" in rejected[0] and f"{path}:3" in rejected[1]
    assert "Traceback" not in capsys.readouterr().err


def test_without_keep_going_nothing_is_scored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"dialog_id": "good", "turns": [GOOD_TURN]}) + "\n{oops\n")
    assert main(["score", str(path), "--out", str(tmp_path / "r.json")]) == 2
    assert not (tmp_path / "r.json").exists()
    assert "--keep-going" in capsys.readouterr().err


def test_missing_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_bad_config_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "thresholds:\n  short: {threshold: 0.5, reject: 0.9, accept: 0.95}\ncomposition: {rule: median}\n"
    )
    dialogs = tmp_path / "d.json"
    dialogs.write_text(json.dumps([GOOD_TURN]))
    assert main(["score", str(dialogs), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert str(cfg) in err and "thresholds.short" in err and "composition.rule" in err
