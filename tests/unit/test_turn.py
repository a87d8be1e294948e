"""Every failure reason a golden dialog can produce, one turn each, with the real model."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.compare.ladder import Ladder
from monitor.model import FailureReason, SubMetric
from monitor.score.dialog import score_dialog
from tests.conftest import action, dialog, tool_turn

GOLD = action("orders", "Query", {"order_id": "A123", "fields": "status"})


def one_turn(gold: Any, predicted: Any, role: str = "Tool", **extra: Any) -> dict[str, Any]:
    return {"turn_no": 1, "turn": role, "gold_turn": gold, "predict_turn": predicted, **extra}


@pytest.mark.parametrize(
    ("predicted", "reason", "sub_metric", "fields"),
    [
        (
            action("tickets", "Query", {"order_id": "A123", "fields": "status"}),
            FailureReason.TOOL_MISMATCH,
            SubMetric.STRUCTURAL,
            ("tool_id",),
        ),
        (
            action("orders", "Cancel", {"order_id": "A123", "fields": "status"}),
            FailureReason.ACTION_MISMATCH,
            SubMetric.STRUCTURAL,
            ("action",),
        ),
        (
            action("orders", "Query", {"fields": "status"}),
            FailureReason.MISSING_PARAMETERS,
            SubMetric.COMPLETENESS,
            ("order_id",),
        ),
        (
            action("orders", "Query", {"order_id": "A123", "fields": "status", "force": True}),
            FailureReason.EXTRA_PARAMETERS,
            SubMetric.COMPLETENESS,
            ("force",),
        ),
        (
            action("orders", "Query", {"order_id": "A124", "fields": "status"}),
            FailureReason.INCONSISTENT_PARAMETER_VALUES,
            SubMetric.TRUTHFULNESS,
            ("order_id",),
        ),
        (
            {"response": "Order A123 is on its way."},
            FailureReason.TOOL_MISMATCH,
            SubMetric.STRUCTURAL,
            ("turn",),
        ),
        (None, FailureReason.MISSING_ACTION, SubMetric.COMPLETENESS, ("orders.Query",)),
    ],
)
def test_action_turn_failures(
    ladder: Ladder, predicted: Any, reason: FailureReason, sub_metric: SubMetric, fields: tuple[str, ...]
) -> None:
    [verdict] = score_dialog(dialog([one_turn(GOLD, predicted)]), ladder).turns
    assert (verdict.success, verdict.failure_reason, verdict.sub_metric, verdict.fields) == (
        False,
        reason,
        sub_metric,
        fields,
    )


def test_structural_failure_skips_the_rest(ladder: Ladder) -> None:
    [v] = score_dialog(dialog([one_turn(GOLD, action("tickets", "Query", {}))]), ladder).turns
    assert [c.passed for c in v.checks] == [False, None, None]


def test_paraphrased_values_pass(ladder: Ladder) -> None:
    gold = action("flights", "Search", {"city": "NYC", "date": "2024-03-05", "budget": "$1,200"})
    pred = action(
        "flights", "Search", {"city": "New York City", "date": "March 5, 2024", "budget": "1200 USD"}
    )
    [v] = score_dialog(dialog([one_turn(gold, pred)]), ladder).turns
    assert v.success, v.detail
    assert {c.field: c.rung for c in v.comparisons} == {"city": "alias", "date": "typed", "budget": "typed"}


REPLY = "Your order A123 is delayed by 4 days. I created ticket T9008 to chase the delivery."


@pytest.mark.parametrize(
    ("predicted", "success", "reason"),
    [
        (
            "Order A123 is running four days late, so I opened ticket T9008 to follow up on the delivery.",
            True,
            None,
        ),
        (
            "Your order A124 is delayed by 4 days. I created ticket T9008 to chase the delivery.",
            False,
            FailureReason.INCONSISTENT_RESPONSE,
        ),
        ("Your order A123 is delayed by 4 days.", False, FailureReason.INCOMPLETE_RESPONSE),
        ("Your order has been delivered and everything is fine.", False, FailureReason.INCOMPLETE_RESPONSE),
    ],
)
def test_response_turns(ladder: Ladder, predicted: str, success: bool, reason: FailureReason | None) -> None:
    [v] = score_dialog(
        dialog([one_turn({"response": REPLY}, {"response": predicted}, role="Agent")]), ladder
    ).turns
    assert (v.success, v.failure_reason) == (success, reason), v.detail


def test_wrong_metric_in_a_fluent_reply_is_inconsistent(ladder: Ladder) -> None:
    """Slot words come from the dialog's arguments: 'profit' for 'revenue' is a wrong fact."""
    turns = [
        tool_turn(
            1,
            action("reports", "Filter", {"metric": "revenue"}),
            action("reports", "Filter", {"metric": "revenue"}),
        ),
        tool_turn(
            2,
            {"response": "Here is the EU revenue chart for 2024."},
            {"response": "Here is the EU profit chart for 2024."},
            role="Agent",
        ),
    ]
    v = score_dialog(dialog(turns), ladder).turns[1]
    assert v.failure_reason is FailureReason.INCONSISTENT_RESPONSE
    assert "revenue" in v.detail and "profit" in v.detail


def test_incomplete_reply_names_what_is_missing(ladder: Ladder) -> None:
    [v] = score_dialog(
        dialog(
            [
                one_turn(
                    {"response": REPLY}, {"response": "Your order A123 is delayed by 4 days."}, role="Agent"
                )
            ]
        ),
        ladder,
    ).turns
    assert any("T9008" in f for f in v.fields)


def test_unreadable_reply_is_unscorable(ladder: Ladder) -> None:
    [v] = score_dialog(
        dialog([one_turn({"response": "订单已经发货"}, {"response": "您的订单已发货"}, role="Agent")]), ladder
    ).turns
    assert v.failure_reason is FailureReason.UNSCORABLE and v.unscorable
    assert "unscorable" in v.detail


@pytest.mark.parametrize(
    "redacted",
    [
        {"order_id": "[Scrubbed due to 'session']", "fields": "status"},  # Logfire's default scrubbing
        {"order_id": "****", "fields": "status"},  # the Collector's redaction processor
        {"order_id": "A123", "fields": {"which": "status", "token": "[REDACTED]"}},  # inside an object
    ],
)
def test_a_value_redacted_before_export_is_uncertain_never_a_wrong_value(
    ladder: Ladder, redacted: Any
) -> None:
    gold = action("orders", "Query", {"order_id": "A123", "fields": redacted["fields"]})
    if isinstance(redacted["fields"], dict):
        gold = action("orders", "Query", {"order_id": "A123", "fields": {"which": "status", "token": "tk-9"}})
    [v] = score_dialog(dialog([one_turn(gold, action("orders", "Query", redacted))]), ladder).turns
    assert (v.success, v.failure_reason, v.uncertain) == (True, None, True)
    assert any("redacted" in c.note for c in v.comparisons)
    other = dict(redacted, fields="history") if not isinstance(redacted["fields"], dict) else None
    if other is not None:  # what was not redacted still counts
        [w] = score_dialog(dialog([one_turn(gold, action("orders", "Query", other))]), ladder).turns
        assert w.failure_reason == FailureReason.INCONSISTENT_PARAMETER_VALUES and w.fields == ("fields",)


def test_value_outside_the_schema_enum_is_invalid(ladder: Ladder) -> None:
    gold = action("tickets", "Create", {"order_id": "A123", "type": "urge_delivery"})
    pred = action("tickets", "Create", {"order_id": "A123", "type": "hurry_up"})
    schemas = {"tickets.Create": {"properties": {"type": {"enum": ["urge_delivery", "refund", "complaint"]}}}}
    [v] = score_dialog(dialog([one_turn(gold, pred)], metadata={"tool_schemas": schemas}), ladder).turns
    assert (v.failure_reason, v.sub_metric, v.fields) == (
        FailureReason.INVALID_PARAMETER_VALUES,
        SubMetric.TRUTHFULNESS,
        ("type",),
    )
    assert "not one of the tool schema's values" in v.detail


def test_user_turns_bound_chains_and_are_not_scored(ladder: Ladder) -> None:
    lookup = action("orders", "Query", {"order_id": "A123"}, {"status": "delayed", "delay_days": 4})
    ticket = action(
        "tickets", "Create", {"order_id": "A123", "type": "urge_delivery"}, {"ticket_id": "T9008"}
    )
    reply = {"response": "Order A123 is 4 days late; I opened ticket T9008."}
    turns = [
        tool_turn(1, {"response": "Where is order A123?"}, None, role="User"),
        tool_turn(2, lookup, lookup),
        tool_turn(3, ticket, ticket),
        tool_turn(4, reply, reply, role="Agent"),
        tool_turn(5, {"response": "Thanks, and my other order B77?"}, None, role="User"),
        tool_turn(
            6, action("orders", "Query", {"order_id": "B77"}), action("orders", "Query", {"order_id": "B77"})
        ),
    ]
    report = score_dialog(dialog(turns), ladder)
    assert [t.turn_no for t in report.turns] == [2, 3, 4, 6]
    assert [(c.turns, c.length) for c in report.chains] == [((2, 3, 4), 2), ((6,), 1)]
    assert set(report.chain_lengths) == {"1", "2"} and report.success_rate == 1.0
    assert report.turns[2].depends_on == (3,)  # the reply reports the ticket the call created


def test_the_right_call_that_failed_is_a_tool_execution_error(ladder: Ladder) -> None:
    from monitor.model import ActionContent
    from monitor.score.turn import score_turn

    gold = ActionContent(
        tool_id="orders", action="apply_credit", args={"amount": 10}, result={"credit_id": "cr_1"}
    )
    failed = ActionContent(tool_id="orders", action="apply_credit", args={"amount": 10}, error="TimeoutError")
    assert score_turn(ladder, gold, failed).failure_reason == FailureReason.TOOL_EXECUTION_ERROR
    # a wrong argument that made it fail is the more specific cause
    wrong = failed.model_copy(update={"args": {"amount": 100}})
    assert score_turn(ladder, gold, wrong).failure_reason == FailureReason.INCONSISTENT_PARAMETER_VALUES
    # a failed attempt with no reference turn left (the one before a retry) says it failed
    assert score_turn(ladder, None, failed).failure_reason == FailureReason.TOOL_EXECUTION_ERROR
    # and reports of calls that worked do not grow an `error` field
    assert "error" not in gold.model_dump() and failed.model_dump()["error"] == "TimeoutError"


def test_a_value_redacted_before_export_is_not_grounded_nor_failed_without_gold() -> None:
    """No gold: the evidence cannot say where `****` came from, and it is no value the agent invented."""
    from monitor.compare.evidence import Evidence

    evidence = Evidence()
    evidence.add_user(1, "Look up order A123 please")
    for value in ("[Scrubbed due to 'session']", "****", "[REDACTED]"):
        [p] = evidence.provenance("get_order", {"order_id": value})
        assert (p.source, p.checked, p.grounded) == ("redacted", False, True)
    [invented] = evidence.provenance("get_order", {"order_id": "A124"})
    assert (invented.source, invented.checked) == ("agent", True)


@pytest.mark.parametrize(
    ("key", "gold", "predicted", "enum"),
    [
        ("mode", "full", "redacted", ["full", "redacted"]),  # an export tool's own mode
    ],
)
def test_a_schema_value_that_looks_like_a_mask_is_still_compared(
    ladder: Ladder, key: str, gold: str, predicted: str, enum: list[str]
) -> None:
    schemas = {"docs.Export": {"properties": {key: {"enum": enum}}}}
    turn = {"turn_no": 1, "turn": "Tool", "gold_turn": action("docs", "Export", {key: gold}),
            "predict_turn": action("docs", "Export", {key: predicted})}  # fmt: skip
    [v] = score_dialog(dialog([turn], metadata={"tool_schemas": schemas}), ladder).turns
    assert (v.success, v.failure_reason) == (False, FailureReason.INCONSISTENT_PARAMETER_VALUES)


def test_a_gold_value_that_looks_like_a_mask_does_not_crash_the_scoring(ladder: Ladder) -> None:
    """A gold made from exported traces keeps what the pipeline wrote (`****`); a hotel's stars are `***`.
    `unmasked` puts gold's value in place of the mask and `_compare_argument` calls itself with it, which is
    masked again: endless recursion (RecursionError), the conversation is never scored."""
    for gold, predicted in (("****", "****"), ("*****", "***")):
        turn = {"turn_no": 1, "turn": "Tool", "gold_turn": action("auth", "Login", {"password": gold}),
                "predict_turn": action("auth", "Login", {"password": predicted})}  # fmt: skip
        [v] = score_dialog(dialog([turn]), ladder).turns
        assert v.uncertain
