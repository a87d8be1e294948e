"""Minimal pairs of issue 17's third round, through the whole ladder with the real model: a month of a
year and a time of day said in words, currencies named in Chinese, values of one kind (seats, cabins,
shipping speeds, actions on an order; shipped in `aliases.json` or set in `ladder.value_sets`), a reply
that only asks against one that asks nothing, a failure against a success, and two that ask for the
same thing. None of these pairs is in the calibration set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from monitor.compare.embedder import OnnxEmbedder
from monitor.compare.ladder import Ladder
from monitor.config import LadderConfig, ScoringConfig, load_config
from monitor.errors import ConfigError
from monitor.model import FailureReason, Rung
from monitor.score.dialog import score_dialog
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
        ("overnight shipping", "standard shipping", False, "different values of 'shipping speed'"),
        ("ship it by rush delivery", "ship it by express delivery", True, "one value of 'shipping speed'"),
        ("exchange_order_items", "return_order_items", False, "different values of 'action on a booking"),
        ("update_shipping_address", "amend_shipping_address", True, "one value of 'action on a booking"),
        ("median basket size", "average basket size", False, "different values of 'aggregate'"),
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
    """A user's set of a shipped name replaces it: a plan tier list that makes `plus` a spelling of
    `premium` and leaves `enterprise` out; a new kind and a pair of opposites decide like the shipped
    ones."""
    shipped = Ladder(ScoringConfig(), embedder)
    assert shipped.compare("v", "basic plan", "enterprise plan").rung is Rung.DIFFERENTIAL
    config = ScoringConfig(
        ladder=LadderConfig(
            value_sets={
                "plan tier": ["basic", ["premium", "plus"]],  # a value: one word, or its spellings
                "warehouse": [["north hub", "NH"], ["south hub", "SH"]],
            },
            opposites=[("inbound", "returned")],
        )
    )
    custom = Ladder(config, embedder)
    plus = custom.compare("v", "plus plan", "premium plan")
    assert plus.equal and plus.rung is Rung.DIFFERENTIAL and "one value of 'plan tier'" in plus.note
    assert "plan tier" not in custom.compare("v", "basic plan", "enterprise plan").note
    hubs = custom.compare("v", "stock at the north hub", "stock at the south hub")
    assert not hubs.equal and "different values of 'warehouse'" in hubs.note
    assert custom.compare("v", "stock at NH", "stock at the north hub").equal
    opposite = custom.compare("v", "inbound parcels", "returned parcels")
    assert not opposite.equal and opposite.rung is Rung.DIFFERENTIAL
    off = Ladder(ScoringConfig(ladder=LadderConfig(shipped_domain=False)), embedder)
    assert off.compare("v", "a middle seat", "an aisle seat").rung is not Rung.DIFFERENTIAL


@pytest.mark.parametrize(
    ("gold", "predicted", "kind", "equal"),
    [
        ("How do I reset my password?", "how to reset my password", "short", True),  # a query, not a reply
        ("Tickets cost $10 in the evening.", "Tickets cost €10 in the evening.", "text", False),
        ("$10", "€10", "short", False),  # normalization drops the signs; the typed rung reads them
        ("10%", "10", "short", False),
        ("January to March 2024", "January 2024 to March 2024", "short", True),
        ("2024年1月至3月", "January 2024 to March 2024", "short", True),
        ("100日元", "100 yen", "short", True),
        ("退款100美元", "退款100美金", "short", True),
        ("I have cancelled your return flight.", "I have changed your return flight.", "text", False),
        # the second review
        ("I can't cancel the order because it has shipped.", "I have cancelled the order.", "text", False),
        ("I can't find your booking.", "What is your booking reference?", "text", False),
        ("3/2024", "March 2024", "short", True),
        ("9am", "9 in the morning", "short", True),
        ("December to February 2025", "December 2024 to February 2025", "short", True),
        ("$10-$20", "$10-20", "short", True),
        # the same words moved across a direction (the model alone passes these at 0.97-0.99)
        ("flights from Boston to Denver", "flights from Denver to Boston", "short", False),
        ("Transfer $50 from checking to savings.", "Transfer $50 from savings to checking.", "text", False),
        ("Is the charge higher than the quote?", "Is the quote higher than the charge?", "text", False),
        # found by the fourth round's blind short values: a word added that makes another value of a set
        ("economy", "premium economy", "short", False),
        ("经济舱", "超级经济舱", "short", False),
        ("coach", "economy class", "short", True),
        ("I booked economy for 2 passengers.", "I booked premium economy for 2 passengers.", "text", False),
    ],
)
def test_what_the_first_review_found_stays_fixed(
    ladder: Ladder, gold: str, predicted: str, kind: str, equal: bool
) -> None:
    """Fresh reviews of this round found each of these decided wrongly (or, for the signs, an older
    bug); each is now right."""
    c = ladder.compare_text("value", gold, predicted, kind=kind)
    assert c.equal is equal, c


@pytest.mark.parametrize(
    ("gold", "predicted", "kind", "not_by"),
    [
        ("Please allow 3-5 business days for the refund.", "The refund takes 3-5 business days.", "text", "asks"),
        ("I need your account ID to continue.", "Your account ID is required to continue.", "text", "asks"),
        ("Could you hold on a moment while I check.", "One moment while I check.", "text", "asks"),
        ("Shall I book it for you?", "I can book it for you.", "text", "asks"),
        ("Please keep the change.", "Please keep the update.", "text", "one value"),
        ("the books", "the reserves", "short", "one value"),
        ("ticket open", "ticket new", "short", "one value"),
        ("regular coffee", "ground coffee", "short", "one value"),
        ("Can I change this shirt for a bigger size?", "Can I exchange this shirt for a bigger size?", "text",
         "different values"),
        # the second review: failures said without a failure word, or a failure word about no outcome
        ("The payment failed.", "Your payment bounced.", "text", "failure"),
        ("无法下单，该商品已售罄。", "该商品已售罄。", "text", "failure"),
        ("If the payment fails, we will retry it.", "Your payment has been retried.", "text", "failure"),
        ("The failure rate dropped to 2% this week.", "The error rate dropped to 2% this week.", "text", "failure"),
        ("Unable to reach you earlier, so I emailed the receipt.", "I emailed the receipt to you.", "text", "failure"),
        ("预订成功。如果支付失败，系统会自动重试。", "预订成功。系统会自动重试扣款。", "text", "failure"),
        # requests in another order, other roles
        ("Are you flying from Paris to London?", "Are you flying from London to Paris?", "text", "both ask"),
        ("Can you send me the invoice?", "Can I send you the invoice?", "text", "same content words"),
        ("Should the money go from checking to savings?", "Should the money go from savings to checking?",
         "text", "same content words"),
        ("You can choose a new password on the next screen.", "Choose a new password on the next screen.",
         "text", "asks"),
        ("Your order is being processed.", "Your order is processing.", "text", "different values"),
        # lists turn around freely, and two sentences swapped are no move across a direction
        ("Is that a one-way or a round trip?", "Is that a round trip or a one-way?", "text", "another order"),
        ("I booked the hotel. I sent the receipt to you.", "I sent the receipt to you. I booked the hotel.",
         "text", "another order"),
    ],
)  # fmt: skip
def test_generic_words_and_pleasantries_decide_nothing(
    ladder: Ladder, gold: str, predicted: str, kind: str, not_by: str
) -> None:
    """Pleasantries, offers, needs, waits and instructions are neither asking nor telling; generic words
    (`change`, `new`, `book`, `regular`) spell no value of a set; a failure said without a failure word,
    or a failure word about no outcome, is no failure against a success; words in another order with
    other roles are not "the same content words": none of these rules decides them."""
    c = ladder.compare_text("value", gold, predicted, kind=kind)
    assert not_by not in c.note, c


ASKS, FAILS, SAME = "only asks", "reports a failure", "both ask for the same"


@pytest.mark.parametrize(
    ("gold", "predicted", "equal", "why"),
    [
        # asking (a question, a request, a need of the user's input) against acting or telling
        ("Which city are you flying from?", "I booked your flight from Boston.", False, ASKS),
        ("Please confirm the delivery address.", "Your parcel is on its way to Elm Street.", False, ASKS),
        ("Your refund has been issued.", "Could you tell me why you want a refund?", False, ASKS),
        ("你想改到哪一天？", "已为你改到周五。", False, ASKS),
        ("To proceed, please share your member number.", "I will need your member number to proceed.", None, ASKS),
        ("Your order has shipped.", "Your order has shipped. Anything else I can help with?", None, ASKS),
        # a failure against no word that says no
        ("I could not renew your membership.", "Your membership has been renewed.", False, FAILS),
        ("Your seat change went through.", "The seat change failed.", False, FAILS),
        ("订单无法取消。", "已经为你取消了这个订单。", False, FAILS),
        ("I couldn't renew your membership.", "Sorry, your membership was not renewed.", None, FAILS),
        ("The upload failed.", "Unfortunately the upload did not finish.", None, FAILS),
        # both only ask, for the same thing once the asking words are out
        ("Could you tell me your loyalty number?", "What is your loyalty number?", True, SAME),
        ("请问你的会员号是多少？", "麻烦提供一下你的会员号。", True, SAME),
        ("What is your loyalty number?", "What is your passport number?", None, SAME),
    ],
)  # fmt: skip
def test_what_the_texts_do_decides(
    ladder: Ladder, gold: str, predicted: str, equal: bool | None, why: str
) -> None:
    """One only asks and the other asks nothing, or one reports a failure and the other says nothing
    failed: different; both ask for the same thing: the same. None: the rule must not decide (both ask,
    a reply that answers and then asks, two failures in other words, two requests for different things)."""
    c = ladder.compare_text("reply", gold, predicted, kind="text")
    if equal is None:
        assert why not in c.note, c
    else:
        assert (c.equal, c.rung) == (equal, Rung.DIFFERENTIAL), c
        assert why in c.note


def test_from_and_to_are_no_stopword_difference(ladder: Ladder) -> None:
    """`flying from` / `flying to` once passed as "same content words" (both are stopwords)."""
    c = ladder.compare_text("reply", "Which airport are you flying from?", "Which airport are you flying to?")
    assert (c.equal, c.rung) == (False, Rung.DIFFERENTIAL) and "opposite particles" in c.note, c


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        # gold asks which region; the agent builds the report for all instead (the model alone passed it)
        ("Which region should the sales report cover?", "I have created the sales report for every region."),
        # the signs normalize away; the reply scorer once passed these before any fact was read
        ("Your fee is $10.", "Your fee is €10."),
    ],
)
def test_a_reply_that_does_or_says_something_else_fails_truthfulness(
    ladder: Ladder, gold: str, predicted: str
) -> None:
    turn: dict[str, Any] = {
        "turn_no": 1,
        "turn": "Agent",
        "gold_turn": {"response": gold},
        "predict_turn": {"response": predicted},
    }
    [v] = score_dialog(dialog([turn]), ladder).turns
    assert v.success is False and v.failure_reason is FailureReason.INCONSISTENT_RESPONSE, v.detail


def test_a_value_set_whose_spelling_says_two_values_is_refused(tmp_path: Path) -> None:
    """`[[aisle, window], [window]]` would quietly make aisle and window one seat: refused at start,
    with the kind, the spelling and the values named."""
    cfg = tmp_path / "monitor.yaml"
    cfg.write_text('ladder: {value_sets: {seat: [[aisle, window], [window]], x: ["--"]}}\n')
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    message = str(err.value)
    assert str(cfg) in message and "value_sets.seat: 'window' spells values 1 and 2" in message
    assert "value_sets.x: value 1 has a spelling with no letter or digit" in message
    cfg.write_text("ladder: {value_sets: {x: [[]]}, opposites: [[up, Up]]}\n")
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    assert "value_sets.x: value 1 has no spelling" in str(err.value)
    assert "opposites: 'up' / 'Up' are not two different words" in str(err.value)
