"""Minimal pairs of issue 17's third round, through the whole ladder with the real model: a month of a
year and a time of day said in words, currencies named in Chinese, values of one kind (seats, cabins,
shipping speeds, actions on an order; shipped in `aliases.json` or set in `ladder.value_sets`), and a
reply that only asks against one that asks nothing. None of these pairs is in the calibration set."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.config import LadderConfig, ScoringConfig
from monitor.model import FailureReason, Rung
from monitor.score.dialog import score_dialog
from monitor.score.embedder import OnnxEmbedder
from monitor.score.ladder import Ladder
from tests.conftest import dialog


@pytest.mark.parametrize(
    ("gold", "predicted", "equal"),
    [
        ("sales for August 2023", "sales for 2023-08", True),
        ("sales for Aug. 2023", "sales for 08/2023", True),
        ("2023年8月的销量", "2023-08的销量", True),
        ("sales for August 2023", "sales for August 2024", False),
        ("sales for August 2023", "sales for 2023-08-01", False),  # a month is not its first day
        ("pick-up at 8 in the morning", "pick-up at 8am", True),
        ("pick-up at 8 in the evening", "pick-up at 8am", False),
        ("the show starts at 10 at night", "the show starts at 22:00", True),
        ("退款金额为200美元", "退款金额为200欧元", False),
        ("请用港币支付", "请用人民币支付", False),
    ],
)
def test_typed_rung_reads_months_of_a_year_times_in_words_and_chinese_currencies(
    ladder: Ladder, gold: str, predicted: str, equal: bool
) -> None:
    c = ladder.compare("value", gold, predicted)
    assert (c.equal, c.rung) == (equal, Rung.TYPED), c


@pytest.mark.parametrize(
    ("gold", "predicted", "equal", "why"),
    [
        ("a middle seat on BA117", "an aisle seat on BA117", False, "different values of 'seat'"),
        ("ship it overnight", "ship it by ground", False, "different values of 'shipping speed'"),
        ("ship it by rush delivery", "ship it by express delivery", True, "one value of 'shipping speed'"),
        ("exchange_order_items", "return_order_items", False, "different values of 'action on a booking"),
        ("update_shipping_address", "change_shipping_address", True, "one value of 'action on a booking"),
        ("The flight was rebooked.", "The flight was cancelled.", False, "different values of 'action"),
        ("a double room", "a suite", False, "different values of 'room'"),
        ("two twin beds", "two single beds", True, "one value of 'bed'"),  # a twin bed is a single bed
        ("a twin room", "a single room", False, "different values of 'room'"),  # the longer reading wins
        ("pay by gift card", "pay by PayPal", False, "different values of 'payment method'"),
        ("改为单程", "改为往返", False, "different values of 'trip type'"),
        ("已升级到公务舱", "已升级到商务舱", True, "one value of 'cabin class'"),
        ("已为你选了靠窗座位", "已为你选了靠过道座位", False, "different values of 'seat'"),
    ],
)
def test_differential_rung_decides_values_of_one_kind(
    ladder: Ladder, gold: str, predicted: str, equal: bool, why: str
) -> None:
    c = ladder.compare("value", gold, predicted)
    assert (c.equal, c.rung) == (equal, Rung.DIFFERENTIAL), c
    assert why in c.note


def test_a_user_value_set_replaces_the_shipped_one_and_user_opposites_decide(
    embedder: OnnxEmbedder,
) -> None:
    """A user's set of a shipped name replaces it: a plan tier list without `plus` leaves `plus` /
    `premium` to the model; a new kind and a pair of opposites decide like the shipped ones."""
    shipped = Ladder(ScoringConfig(), embedder)
    assert shipped.compare("v", "plus plan", "premium plan").rung is Rung.DIFFERENTIAL
    config = ScoringConfig(
        ladder=LadderConfig(
            value_sets={
                "plan tier": ["free", ["premium", "plus"]],  # a value: one word, or its spellings
                "warehouse": [["north hub", "NH"], ["south hub", "SH"]],
            },
            opposites=[("inbound", "returned")],
        )
    )
    custom = Ladder(config, embedder)
    plus = custom.compare("v", "plus plan", "premium plan")
    assert plus.equal and plus.rung is Rung.DIFFERENTIAL and "one value of 'plan tier'" in plus.note
    hubs = custom.compare("v", "stock at the north hub", "stock at the south hub")
    assert not hubs.equal and "different values of 'warehouse'" in hubs.note
    assert custom.compare("v", "stock at NH", "stock at the north hub").equal
    opposite = custom.compare("v", "inbound parcels", "returned parcels")
    assert not opposite.equal and opposite.rung is Rung.DIFFERENTIAL
    off = Ladder(ScoringConfig(ladder=LadderConfig(shipped_domain=False)), embedder)
    assert off.compare("v", "a middle seat", "an aisle seat").rung is not Rung.DIFFERENTIAL


@pytest.mark.parametrize(
    ("gold", "predicted", "equal"),
    [
        ("Which city are you flying from?", "I booked your flight from Boston.", False),
        ("Please confirm the delivery address.", "Your parcel is on its way to Elm Street.", False),
        ("Your refund has been issued.", "Could you tell me why you want a refund?", False),
        ("你想改到哪一天？", "已为你改到周五。", False),
        ("To proceed, please share your member number.", "I will need your member number to proceed.", None),
        ("Your order has shipped.", "Your order has shipped. Anything else I can help with?", None),
    ],
)
def test_one_text_only_asks_and_the_other_asks_nothing(
    ladder: Ladder, gold: str, predicted: str, equal: bool | None
) -> None:
    """Asking (a question, a request, a need of the user's input) against acting or telling: different.
    Two that both ask, or a reply that answers and then asks, are left to the other rungs (None)."""
    c = ladder.compare_text("reply", gold, predicted, kind="text")
    if equal is None:
        assert "asks" not in c.note, c
    else:
        assert (c.equal, c.rung) == (equal, Rung.DIFFERENTIAL), c
        assert "only asks" in c.note


def test_an_agent_that_acts_where_gold_asks_fails_truthfulness(ladder: Ladder) -> None:
    """The gold reply asks which region the report should cover; the agent builds it for all regions
    instead: the reply is inconsistent, however close its words (the model alone passed it)."""
    turn: dict[str, Any] = {
        "turn_no": 1,
        "turn": "Agent",
        "gold_turn": {"response": "Which region should the sales report cover?"},
        "predict_turn": {"response": "I have created the sales report for every region."},
    }
    [v] = score_dialog(dialog([turn]), ladder).turns
    assert v.success is False and v.failure_reason is FailureReason.INCONSISTENT_RESPONSE, v.detail
    assert "only asks" in (v.detail or "")
