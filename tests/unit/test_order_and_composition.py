"""Order-invariant groups and the four composition rules."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.compare.ladder import Ladder
from monitor.config import CompositionConfig
from monitor.score.dialog import score_dialog
from tests.conftest import action, dialog

CAL = action("calendar", "Check", {"date": "2024-03-05"})
FLY = action("flights", "Search", {"to": "Paris", "date": "2024-03-05"})
HOTEL = action("hotels", "Search", {"city": "Paris"})


def swapped(tags: list[str]) -> list[dict[str, Any]]:
    return [
        {"turn_no": 1, "turn": "Tool", "gold_turn": CAL, "predict_turn": FLY, "tags": tags},
        {"turn_no": 2, "turn": "Tool", "gold_turn": FLY, "predict_turn": CAL, "tags": tags},
    ]


def test_reordered_calls_in_an_order_invariant_group_pass(ladder: Ladder) -> None:
    report = score_dialog(dialog(swapped(["OrderInvariant_plan"])), ladder)
    assert report.success_rate == 1.0
    assert [(t.turn_no, t.gold_turn_no) for t in report.turns] == [(1, 2), (2, 1)]


def test_reordered_calls_without_the_tag_fail(ladder: Ladder) -> None:
    report = score_dialog(dialog(swapped([])), ladder)
    assert report.success_rate == 0.0


def test_best_assignment_not_sorting(ladder: Ladder) -> None:
    """Three calls in a rotated order, one of them wrong: only the wrong one fails."""
    wrong_hotel = action("hotels", "Search", {"city": "London"})
    tags = ["OrderInvariant_trip"]
    turns = [
        {"turn_no": 1, "turn": "Tool", "gold_turn": CAL, "predict_turn": wrong_hotel, "tags": tags},
        {"turn_no": 2, "turn": "Tool", "gold_turn": FLY, "predict_turn": CAL, "tags": tags},
        {"turn_no": 3, "turn": "Tool", "gold_turn": HOTEL, "predict_turn": FLY, "tags": tags},
    ]
    report = score_dialog(dialog(turns), ladder)
    assert [t.success for t in report.turns] == [False, True, True]
    assert report.turns[0].gold_turn_no == 3 and report.turns[0].fields == ("city",)


def three_turns(weights: tuple[float, ...] = (1, 1, 1), critical: int | None = None) -> list[dict[str, Any]]:
    preds = [CAL, FLY, action("hotels", "Search", {"city": "London"})]
    golds = [CAL, FLY, HOTEL]
    return [
        {
            "turn_no": i + 1,
            "turn": "Tool",
            "gold_turn": g,
            "predict_turn": p,
            "weight": w,
            "critical": critical == i + 1,
        }
        for i, (g, p, w) in enumerate(zip(golds, preds, weights, strict=True))
    ]


@pytest.mark.parametrize(
    ("config", "turns", "score", "test_pass"),
    [
        (CompositionConfig(rule="mean"), three_turns(), 2 / 3, False),
        (CompositionConfig(rule="weighted"), three_turns((1, 1, 8)), 0.2, False),
        (CompositionConfig(rule="weighted"), three_turns((4, 4, 2)), 0.8, False),
        (CompositionConfig(rule="gating", gate_cap=0.0), three_turns(critical=3), 0.0, False),
        (CompositionConfig(rule="gating", gate_cap=0.5), three_turns(critical=3), 0.5, False),
        (CompositionConfig(rule="gating"), three_turns(critical=1), 2 / 3, False),
        (
            CompositionConfig(rule="sub_metric_thresholds", sub_metric_thresholds={"truthfulness": 0.6}),
            three_turns(),
            2 / 3,
            True,
        ),
        (
            CompositionConfig(rule="sub_metric_thresholds", sub_metric_thresholds={"truthfulness": 0.9}),
            three_turns(),
            2 / 3,
            False,
        ),
    ],
)
def test_composition_rules(
    ladder: Ladder, config: CompositionConfig, turns: list[dict[str, Any]], score: float, test_pass: bool
) -> None:
    report = score_dialog(dialog(turns), ladder, config)
    assert report.aem_score == pytest.approx(score, abs=1e-6)
    assert report.test_pass is test_pass
    assert report.success_rate == pytest.approx(2 / 3, abs=1e-6)  # the article's rate never changes


def test_reordered_replies_in_an_order_invariant_group_pass(ladder: Ladder) -> None:
    """A group may hold replies too: two answers given in the other order pair by what they say."""
    tags = ["OrderInvariant_answers"]
    turns = [
        {"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "Your flight is AF123."},
         "predict_turn": {"response": "Your hotel is the Ritz."}, "tags": tags},
        {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "Your hotel is the Ritz."},
         "predict_turn": {"response": "Your flight is AF123."}, "tags": tags},
    ]  # fmt: skip
    report = score_dialog(dialog(turns), ladder)
    assert report.success_rate == 1.0
    assert [(t.turn_no, t.gold_turn_no) for t in report.turns] == [(1, 2), (2, 1)]
