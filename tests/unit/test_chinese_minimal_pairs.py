"""Minimal pairs of issue 17's fourth round, through the whole ladder with the real models. A blind set of
Chinese replies, written by someone who had not read the rules, scored 43 of 60: the multilingual model
passes a sentence with one word put for another at 0.96–0.99. The causes, each with new instances here
(none of these pairs is in the calibration set): one Chinese word put for another in a sentence otherwise
the same; places swapped across 从 / 到; the same facts in each other's places; a negation put in before
the words both texts go on with; Chinese periods relative to now; 一个 as the article "a"."""

from __future__ import annotations

import pytest

from monitor.facts import extract_facts
from monitor.model import Rung
from monitor.score.ladder import Ladder


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        ("已为您预订希尔顿酒店的海景房一间。", "已为您预订希尔顿酒店的园景房一间。"),  # one ideograph
        ("王经理明天下午会给您回电话。", "刘经理明天下午会给您回电话。"),  # a name
        ("验证码已经发送到您绑定的手机上。", "验证码已经发送到您绑定的邮箱上。"),
        ("退款会原路退回到您的银行卡。", "退款会原路退回到您的京东白条。"),  # four ideographs against five
        ("您的包裹已从广州发往成都。", "您的包裹已从成都发往广州。"),  # places across 从 / 往
        ("本次消费使用了300积分，还剩1200积分。", "本次消费使用了1200积分，还剩300积分。"),
        ("该套餐目前支持国际漫游。", "该套餐目前还不支持国际漫游。"),  # a negation with 还
        ("您的会员将于本月到期。", "您的会员将于下个月到期。"),  # this month / next month
    ],
)
def test_chinese_replies_that_differ_in_one_thing_fail(
    multilingual_ladder: Ladder, gold: str, predicted: str
) -> None:
    c = multilingual_ladder.compare_text("reply", gold, predicted, kind="text")
    assert c.equal is False, c
    assert c.rung in (Rung.DIFFERENTIAL, Rung.TYPED), c


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        ("I moved $300 from savings to checking.", "I moved $300 from checking to savings."),
        (
            "You paid $40 for the ticket and $15 for the bag.",
            "You paid $15 for the ticket and $40 for the bag.",
        ),
        ("The store opens at 9am and closes at 6pm.", "The store opens at 6pm and closes at 9am."),
        (
            "The premium plan is available in your region.",
            "The premium plan is still not available in your region.",
        ),
    ],
)
def test_english_replies_with_roles_turned_or_a_negation_put_in_fail(
    ladder: Ladder, gold: str, predicted: str
) -> None:
    c = ladder.compare_text("reply", gold, predicted, kind="text")
    assert c.equal is False, c


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        ("总价是人民币800元。", "总价是800元人民币。"),  # facts of two kinds may move
        ("我没能联系上快递公司的客服。", "快递公司的客服没有回应。"),  # both negated: not decided on it
        ("附近有两家每晚低于300元的酒店。", "附近有2家每晚不到300元的酒店。"),  # 不到 is "under"
    ],
)
def test_what_the_new_rules_must_not_fail(multilingual_ladder: Ladder, gold: str, predicted: str) -> None:
    c = multilingual_ladder.compare_text("reply", gold, predicted, kind="text")
    assert "negat" not in c.note and "in each other's places" not in c.note, c
    assert "one word put for another" not in c.note, c


def test_a_paraphrase_that_differs_in_several_places_is_left_to_the_model(
    multilingual_ladder: Ladder,
) -> None:
    c = multilingual_ladder.compare_text("reply", "您的订单明天就能送到。", "订单预计明日送达。", kind="text")
    assert c.rung is Rung.EMBEDDING, c


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("上个月的账单", ("period:-1|month",)),
        ("下周二上午", ("period:1|week", "weekday:2")),
        ("下星期二上午", ("period:1|week", "weekday:2")),
        ("本季度的销售额", ("period:0|quarter",)),
        ("去年的订单", ("period:-1|year",)),
        ("他上年纪了", ()),
        ("看一下周末的安排", ()),
        ("如有问题可以再提交一个", ()),  # 一个: the article, no number
        ("已为您创建两个工单", ("number:2",)),
        ("每天有三班", ("frequency:day", "number:3")),
    ],
)
def test_chinese_periods_and_counts_are_typed(text: str, facts: tuple[str, ...]) -> None:
    assert extract_facts(text).facts == facts
