"""Minimal pairs of issue 17's fourth round, through the whole ladder with the real models. A blind set of
Chinese replies, written by someone who had not read the rules, scored 43 of 60: the multilingual model
passes a sentence with one word put for another at 0.96–0.99. The causes fixed, each with new instances
here (none of these pairs is in the calibration set): another surname before a title; two values of a
kind the Chinese lexicon knows at the start of a span; places swapped across 从 / 到 / 往; the same facts
in each other's places; a negation put in before the words both texts go on with; a text that asks,
offers, sets a condition or is under way against one that says it done; Chinese periods relative to now.

What the review of that round found too eager is pinned down as well: a rule that failed any Chinese
sentence with one unknown word swapped (it failed 尽快 / 尽早 and 手机号码 / 电话号码) is gone — such pairs
are left to the model, whose passes are `uncertain`; lists in another order, courtesies (`No problem, …`,
`Let me know if …`), ideographs of direction inside words (收到, 至少) and 一个 decide nothing."""

from __future__ import annotations

import pytest

from monitor.compare.facts import extract_facts
from monitor.compare.ladder import Ladder
from monitor.model import Rung


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        ("王经理明天下午会给您回电话。", "刘经理明天下午会给您回电话。"),  # another surname before a title
        (
            "退款将退回到您的支付宝账户。",
            "退款将退回到您的微信零钱。",
        ),  # two payment methods, with more words
        ("您的包裹已从广州发往成都。", "您的包裹已从成都发往广州。"),  # places across 从 / 往
        ("本次消费使用了300积分，还剩1200积分。", "本次消费使用了1200积分，还剩300积分。"),
        ("该套餐目前支持国际漫游。", "该套餐目前还不支持国际漫游。"),  # a negation with 还
        ("系统找到了您的订单。", "系统找不到您的订单。"),  # 找不到 is 找, 不, 到
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
        ("您的订单我们会尽快处理。", "您的订单我们会尽早处理。"),  # an unknown word swapped: the model's
        ("请确认您的手机号码。", "请确认您的电话号码。"),
        ("已收到您的退款申请。", "您的退款申请已收到。"),  # 到 inside 收到 gives no direction
        ("取消至少需要提前两天。", "至少需要提前两天取消。"),
        ("Tickets 4471 and 4472 are closed.", "Tickets 4472 and 4471 are closed."),  # a list
        ("上午10点和下午4点有空位。", "下午4点和上午10点有空位。"),
        ("No worries, I've refunded your order.", "I've refunded your order."),
        (
            "Your booking has been moved to Monday.",
            "I moved your booking to Monday. Let me know if that doesn't suit you.",
        ),
        ("您的退款已到账。", "退款已经到账，如有疑问请联系客服。"),
        ("这件商品需要一个小时送达。", "这件商品需要1小时送达。"),  # 一个 is 1 on both sides
        ("请拍一张照片发给我。", "请拍照片发给我。"),  # a lone 1 against no number is the article
        ("总价是人民币800元。", "总价是800元人民币。"),  # facts of two kinds may move
        # a second review's false alarms, one per cause
        ("这款商品没有库存了，预计下周到货。", "这款商品缺货了，预计下周到货。"),  # a negation said otherwise
        ("发票已发送到 billing@shop.com，请查收。", "我们已把发票发到 billing@shop.com，请注意查收。"),
        ("会议已改到 3:00 PM 开始。", "会议已改到下午3点开始。"),  # spaces beside Latin words stay
        ("收货地址已为您修改。还有其他需要吗？", "收货地址改好了，还有其他需要吗？"),
        (
            "Please bring your passport to the counter.",
            "Please don't forget to bring your passport to the counter.",
        ),
        ("Your order has shipped.", "Don't worry, your order has shipped."),
        ("我们检查后没有发现问题。", "我们检查后发现一切正常。"),
        ("已为您预订一间大床房，共2晚。", "已为您预订大床房，共2晚。"),  # 一间: the article
        (
            "Orders #1001 and #1002 were delivered on May 5.",
            "Orders #1002 and #1001 were delivered on May 5.",
        ),
        ("订单A123和订单B456已发货。", "订单B456和订单A123已发货。"),
        ("对比iPhone 15和iPhone 14", "对比iPhone 14和iPhone 15"),
        ("I've added 2 L shirts to your cart.", "I've added 2 shirts in size L to your cart."),
        ("iOS 17升级后请重启。", "升级到iOS 17后请重启。"),
        ("本月账单已减去年费。", "本月账单已扣除年费。"),
        ("东京的酒店每晚¥15000。", "东京的酒店每晚15000日元。"),
        ("请向总台出示身份证。", "请于总台出示身份证。"),
        ("找到订单了。", "已经找到订单了。"),
        ("我没能联系上快递公司的客服。", "快递公司的客服没有回应。"),  # both negated: not decided on it
        ("附近有两家每晚低于300元的酒店。", "附近有2家每晚不到300元的酒店。"),  # 不到 is "under"
    ],
)
def test_what_the_new_rules_must_not_fail(multilingual_ladder: Ladder, gold: str, predicted: str) -> None:
    c = multilingual_ladder.compare_text("reply", gold, predicted, kind="text")
    assert c.equal is not False or c.rung is Rung.EMBEDDING, c  # no rule fails them


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
        ("请在表上注明年收入", ()),  # 明年 inside 注明年收入 is no year
        ("这周围有三家店", ("number:3",)),  # 这周围 is no week
        ("一个半小时", ("number:5400|s",)),
        ("加上年费", ()),
        ("以下月份", ()),
        ("统一升级", ()),
        ("酒店每晚¥15000日元", ("frequency:day", "number:15000|jpy")),
        ("已为您创建两个工单", ("number:2",)),
        ("每天有三班", ("frequency:day", "number:3")),
    ],
)
def test_chinese_periods_and_counts_are_typed(text: str, facts: tuple[str, ...]) -> None:
    assert extract_facts(text).facts == facts


@pytest.mark.parametrize(
    ("gold", "predicted", "equal"),
    [
        ("PVG", "上海浦东国际机场", True),  # an airport by its Chinese name
        ("虹桥机场", "SHA", True),
        ("首都机场", "PKX", False),  # Beijing has two
        ("Chengdu", "成都", True),  # a city by its Chinese name
        ("Hangzhou", "杭州市", True),
    ],
)
def test_airports_and_cities_by_their_chinese_names(
    ladder: Ladder, gold: str, predicted: str, equal: bool
) -> None:
    c = ladder.compare_text("destination", gold, predicted, kind="short")
    assert c.equal is equal, c
    assert c.rung is Rung.ALIAS, c
