"""Root cause vs cascade on whole dialogs: data flow, explicit depends_on, independent errors."""

from __future__ import annotations

from monitor.compare.ladder import Ladder
from monitor.model import FailureReason
from monitor.score.dialog import score_dialog
from tests.conftest import WRONG_LOOKUP, action, article_dialog, dialog, tool_turn


def test_independent_error_inside_a_cascade_is_a_second_root_cause(ladder: Ladder) -> None:
    data = article_dialog()
    # turn 4 also exports as png instead of pdf: nothing to do with turn 2's wrong metric
    data["turns"][3]["predict_turn"]["args"]["format"] = "png"
    report = score_dialog(dialog(data["turns"]), ladder)
    by_no = {t.turn_no: t for t in report.turns}
    assert by_no[4].failure_reason is FailureReason.INCONSISTENT_PARAMETER_VALUES
    assert by_no[4].root_turn is None
    assert report.root_cause_count == 2 and report.root_causes == (2, 4)
    assert by_no[3].failure_reason is FailureReason.PRIOR_ACTION_FAILED


def test_explicit_depends_on_without_results(ladder: Ladder) -> None:
    """No tool results recorded: an annotated dependency on a failed turn is trusted for values."""
    turns = [
        {
            "turn_no": 1,
            "turn": "Tool",
            "gold_turn": action("crm", "Find", {"name": "Acme"}),
            "predict_turn": action("crm", "Find", {"name": "Apex"}),
        },
        {
            "turn_no": 2,
            "turn": "Tool",
            "gold_turn": action("crm", "Open", {"account": "ACC-1001"}),
            "predict_turn": action("crm", "Open", {"account": "ACC-2002"}),
            "depends_on": [1],
        },
    ]
    report = score_dialog(dialog(turns), ladder)
    assert report.turns[1].failure_reason is FailureReason.PRIOR_ACTION_FAILED
    assert report.turns[1].root_turn == 1 and report.cascading_count == 1


def test_unrelated_failure_after_a_failure_is_not_a_cascade(ladder: Ladder) -> None:
    turns = [
        WRONG_LOOKUP,
        tool_turn(
            2,
            action("mail", "Send", {"to": "ops@example.com"}),
            action("mail", "Send", {"to": "sales@example.com"}),
        ),
    ]
    report = score_dialog(dialog(turns), ladder)
    assert report.turns[1].failure_reason is FailureReason.INCONSISTENT_PARAMETER_VALUES
    assert report.turns[1].depends_on == ()
    assert report.root_cause_count == 2 and report.cascading_count == 0


def test_wrong_tool_after_a_failure_stays_a_root_cause(ladder: Ladder) -> None:
    turns = [
        WRONG_LOOKUP,
        tool_turn(
            2,
            action("crm", "Open", {"account": "ACC-1001"}),
            action("crm", "Delete", {"account": "ACC-2002"}),
            depends_on=[1],
        ),
    ]
    report = score_dialog(dialog(turns), ladder)
    assert report.turns[1].failure_reason is FailureReason.ACTION_MISMATCH


def test_data_flow_dependency_is_inferred(ladder: Ladder) -> None:
    data = article_dialog()
    report = score_dialog(dialog(data["turns"]), ladder)
    assert {t.turn_no: t.depends_on for t in report.turns}[3] == (2,)
