"""One fact written another way is one fact: numbers and amounts in words, a range's unit said once,
a day and month in digits, parts of an hour, durations in months and years, colloquial Chinese amounts
(issue 27, reply precision).
And what only looks like one is not: `two one-way tickets` is no 3, `300元一节` no 300.1 yuan."""

from __future__ import annotations

import pytest

from monitor.compare.calibration import ladder_with
from monitor.compare.facts import act_of, extract_facts, sentences
from monitor.compare.ladder import Ladder
from monitor.config import KindThresholds
from monitor.score.response import score_response

SAME = [
    ("$1,250", "one thousand two hundred fifty dollars"),
    ("12,500 points", "twelve thousand five hundred points"),
    ("$500", "five hundred dollars"),
    ("$42.17", "42 dollars and 17 cents"),
    ("a $10 credit", "a ten-dollar credit"),
    ("a pack of ten", "a ten-session bundle"),
    ("in 7 to 10 days", "in a week to ten days"),
    ("The extra two days cost $96.00.", "the two additional days come to 96 dollars"),
    ("by 24 hours", "one extra day"),
    ("within 30 minutes", "valid for half an hour"),
    ("checking in on May 20", "check-in 20/05"),
    ("renews on January 1", "renews on 1/1"),
    ("open Monday to Friday", "open weekdays"),
    ("每学期学费为2,400元", "学费是每学期两千四百元"),
    ("上午10:05起飞", "早上十点零五分的航班"),
    ("每月50GB流量", "每月流量50G"),
    ("预计4月18日到货", "预计4/18补货"),
    ("新号码为138 0013 8000。", "号码为138-0013-8000。"),
    ("您的新卡将在7到10天内寄到", "新卡预计一周到十天内送达"),
    ("受理，5万元将于", "扣五万元"),
    ("本期水费共计86.5元", "水费是八十六块五，麻烦"),
    ("每月费用变为20元", "月费现在是二十元"),
    ("已将发票INV-4410发送至billing@acme.cn。", "发票INV-4410已经发到billing@acme.cn这个邮箱了。"),
    ("Unlimited Plus at $65 per month", "Unlimited Plus for $65/month"),
    ("amoxicillin 500 mg is ready", "the amoxicillin 500mg refill is ready"),
    ("会员权益可使用至2025年1月31日。", "您的会员权益一直有效到2025/1/31。"),
    ("a shuttle every 30 minutes", "a shuttle every half hour"),
    ("a fee of 0.5% of the amount", "half a percent of the amount"),
    ("手续费为转账金额的0.1%", "按金额的千分之一收手续费"),
    ("每30分钟一班", "每半小时一班"),
    ("due on 3/4", "due on March 4"),
    # blind set 9's forms: a duration in months and in years, money said with its fractional unit, a
    # number said as a hyphenated adjective, 人民币 before an amount, minutes with no 分, lessons
    ("a fixed APR for 36 months", "a fixed APR, three-year term"),
    ("a 12-month contract", "a contract for 1 year"),
    ("an import duty of £23.60 must be paid", "the import duty of 23 pounds 60 is paid"),
    ("a fee of €10.50", "a fee of 10 euros and 50 cents"),
    ("your $300 deposit", "the three-hundred-dollar deposit"),
    ("总价人民币八百六十元", "总价860元"),
    ("早上7点50分到校", "早上七点五十到校"),
    ("已上8节课", "已上八节课"),
    # and sets 8 and 9's English ones: weekday abbreviations, a date after a weekday, `each day`, a
    # range from `one`, `a week` after `added`, an IBAN in groups
    ("Monday, 9 December, between 1 and 5 PM", "Mon 9 Dec, 13:00–17:00"),
    ("Mondays and Wednesdays from 9:30 to 10:45 AM", "Mon/Wed 9:30–10:45 a.m."),
    ("open Saturday and Sunday.", "open Sat and Sun."),
    ("Tuesday, April 9 at 2:30 PM", "Tue 4/9 at 14:30"),
    ("Tuesday, December 3", "Tue, Dec 3"),
    ("for an extra $12 per day", "it costs $12 more each day"),
    ("arrive in 1–2 business days", "within one or two business days"),
    ("extended by 7 days", "added a week to"),
    ("account DE89 3704 0044 0532 0130 00", "account DE89370400440532013000"),
    # and set 7's: a date with dots, amounts in financial numerals, 今晚, hours and minutes in one
    ("保障期为2024年7月1日至2025年6月30日", "保障期限：2024.7.1—2025.6.30；"),
    ("转账5,000元已成功", "转账伍仟元已经成功"),
    ("今晚7点半4人位", "今晚19:30四位的座位"),
    ("延误1小时40分钟", "延误了一小时四十分"),
    ("delayed by 1 hour and 40 minutes", "a 1h40m delay"),
    ("frozen from May 1 to June 30", "a freeze — May 1 through June 30"),
    # and set 11's: a range's meridiem after a comma, three-quarters of an hour, `one` before a unit of
    # time, 4×6, a Chinese range's 下午 for its end, 两三天, 三块五 before a verb, 期 as a measure word
    ("Thursday between 1 and 5 PM", "this Thursday, 1–5 p.m."),
    ("within 45 minutes", "in three-quarters of an hour"),
    ("suspended for 7 days", "a one-week suspension"),
    ("48 4x6 prints", "forty-eight 4×6 prints"),
    ("下午2点到4点上门", "14:00-16:00上门"),
    # and set 16's: the cent sign, a quarter hour, an hour after an adverb
    ("E-bikes are charged at $0.15 per minute", "E-bike use costs an extra 15¢/min"),
    ("We'll hold the table for 15 minutes", "we can keep the table for up to a quarter hour"),
    ("The appointment takes about 60 minutes.", "You're booked for roughly an hour."),
    ("预计2到3天送达", "大概两三天能到"),
    ("逾期费用3.5元已免除", "逾期的三块五已经给您免掉了"),
    # and set 17's: a duration in two units, a size with a spaced `x`, the euro after European thousands,
    # power and area units, tenths as 成 and 毛, a Chinese day and month in digits, a code in groups of
    # three, a range said with `between`, a share of a fee its amount stands in, a month opening a text
    ("the tour runs 75 minutes", "the tour runs 1 hour 15 minutes"),
    ("用时1小时15分钟", "用时75分钟"),
    ("It costs €1,120.", "It costs 1.120 €."),
    ("总装机容量10千瓦", "总容量10kW"),
    ("您家110平米", "您家110㎡"),
    ("按70%比例赔付", "按七成赔付"),
    ("超时后每12小时收费0.5元", "超过之后每12小时收5毛"),
    ("预订6月1日至6月3日", "6/1入住、6/3退房"),
    ("use pickup code 482 910", "pickup code: 482910"),
    ("a freeze can last 1 to 3 months", "a freeze lasts between one and three months"),
    ("25% of the $12,000 venue fee", "a quarter of the $12,000 venue fee"),
    ("Your train leaves on March 3.", "March 3, Manchester to Euston."),
    # and set 18's: days of work in weeks, a day and month that read alike both ways, `and a half` after a
    # number, `o'clock`, cents alone, a month's end, a tracking number's short last group, Chinese dotted
    # dates, the fen without 分, a terabyte as T
    ("the review takes about 10 business days", "allow roughly two business weeks for the review"),
    ("the walk lasts about 2.5 hours", "the walk runs roughly two and a half hours"),
    ("starts at 10:00 on May 9", "starts at ten o'clock on 9 May"),
    ("a dividend of $0.62 per share", "a dividend of 62 cents per share"),
    ("due by May 31", "due by the end of May"),
    ("tracking number 9400 1118 9922 3344 5566 77", "package 9400111899223344556677"),
    ("年检预约在3月14日下午2点30分", "年检约好了：3.14，下午两点半"),
    ("7月18日入住、7月21日离开，共3晚", "7.18到7.21，三个晚上"),
    ("退款18.99元今天已经发起了。", "18块9毛9今天给您退了。"),
    ("更换1TB硬盘", "换1T的硬盘"),
    ("可分6期免息", "可以分六期"),
    ("昨晚20:00到22:00", "昨晚8点到10点"),  # every part of the day a time reads carries to a range's end
    # and set 12's: a share of a price, a year from a day, a number in groups of four, a place in a
    # queue, a range's year said once for days, the end of a month or a year
    ("a 20% discount", "one-fifth off"),
    ("50% off all items", "half off all items"),
    ("expire 12 months from today", "expire a year from today"),
    ("the tracking number is 7712 3456 9981.", "tracking 771234569981"),
    ("you are number 3 on the waitlist", "you're third on the waitlist"),
    ("valid from January 1 through June 30, 2025.", "valid 1/1/2025 to 6/30/2025"),
    ("from March 3, 2025 to April 2", "from 2025-03-03 to 2025-04-02"),
    ("December 20 to January 5, 2026", "2025-12-20 to 2026-01-05"),  # the start is the year before
    ("停卡期间为7月1日至8月31日", "时间是7月1号到8月底"),
    ("有效期至2025年12月31日", "2025年年底前有效"),
    # and set 13's: Chinese durations in months and years, fractions, 一半, 第二 before a place; codes
    # written in groups; an amount written the European way; a numbered list's numbers
    ("期限 36 个月", "分3年"),
    ("保障期限为一年", "共12个月"),
    ("近 6 个月银行流水", "近半年银行流水"),
    ("医保可报销 60%", "医保报销五分之三"),
    ("订单金额的 10%", "订单金额的十分之一"),
    ("手续费为票价的 50%", "手续费是票价的一半"),
    ("心内科 2 号诊室", "心内科第二诊室"),
    ("航班 CA1831 将于", "航班CA 1831，将于"),
    ("票号 999-2145678903，请", "票号9992145678903。"),
    ("Toronto, ON M5V 2T6.", "Toronto ON M5V2T6."),
    ("London SW1A 1AA", "London SW1A1AA"),
    ("Tracking number: 1Z 999 AA1 0123 4567 84.", "track it with 1Z999AA10123456784."),
    ("The gate has changed to B22.", "now at gate B 22."),
    ("a wire of €2,500.00", "a wire of 2.500,00 EUR"),
    # and set 14's: a clock time after 下午 / 晚, a full share of a cost, half the charge
    ("8 月 16 日晚 7:30", "8月16日晚上7点半"),
    ("下午 3:30 开始", "15:30开始"),
    ("可以由父母一方 100% 扣除", "可以选择父母一方全额扣除"),
    ("up to 50% of the excess charge", "up to half the excess charge"),
    # and set 15's: ¥ before a comma, a plate's middle dot, a unit before ×, 1-3个工作日, 8日-9日,
    # `a 30-lb bag`
    ("每月额度为 ¥3,000，仅限工作日", "每月可用3000元，仅限工作日"),
    ("您的车辆（沪A·5K392）已完成保养", "沪A5K392 保养做完了"),
    ("皇家幼猫粮2kg×2袋已发货", "皇家幼猫粮2公斤，共2袋，已发货"),
    ("预计1-3个工作日到账", "一般1到3个工作日到账"),
    ("大会（11月8日-9日，深圳会展中心）", "大会11月8日至9日在深圳会展中心"),
    ("the 30 lb bag", "a 30-lb bag"),
    ("its 60,000 km service", "a 60k-km service"),
    ("每周一闭馆", "每个星期一闭馆"),
    ("需要准备：护照原件和近 6 个月银行流水", "请准备以下材料：\n1. 近半年银行流水\n2. 护照原件"),
    # set 19's: a 24-hour range's bare start, `Sat` / `Wed.` after a word of time, `(May 31)`, the card's
    # last digits after an ellipsis, `an hour long`, `fortnightly`, 20G套餐
    ("Saturday 11:00–11:30", "this Sat from 11 to 11:30"),
    ("by Friday", "by Fri."),
    ("Mar", "March"),  # a value that is only the month
    ("finish by Wednesday", "wrap up by Wed."),
    ("effective on May 31", "when the cycle ends (May 31)"),
    ("the card ending 30217", "the card (…30217)"),
    ("it lasts 60 minutes", "it is an hour long"),
    ("every 2 weeks", "fortnightly"),
    ("建议升级到20GB套餐", "可以升到20G套餐"),
    # grounding blind sets 10 and 11: an amount under a thousand with a comma before its cents, beside a
    # currency that writes it so
    ("Total: €148.20", "Total: 148,20 €"),
    ("R$ 380.50", "R$ 380,50"),
    ("costs 3.99 kr", "kostar 3,99 kr"),
    ("il costo è di €45", "il costo è di 45,00 euro"),
    ("razem 1250.50 zł", "razem 1 250,50 zł"),  # thousands set apart by a space, too
    ("148.20 EUR", "148,20EUR"),  # no space before the currency
    ("3 x €12.50 = €37.50", "3 x 12,50 € = 37,50 €"),
    ("Total: ZAR 1,280", "Total: 1280 ZAR"),  # grounding blind set 24: the rand's code
]

DIFFERENT = [
    ("two one-way tickets", "3-way tickets"),
    ("办理5G套餐", "办理5GB套餐"),  # a plan of the fifth generation, no 5 GB
    ("Gate 4 – 9:15", "Gate 04:00 – 9:15"),  # a gate, not the start of a range of hours
    ("click on Sun Life", "click on Sunday"),  # a name, not a day
    ("(Mar 3 items)", "(March 3)"),  # three items, not a date
    ("open from 9 to 17:30", "open from 10 to 17:30"),
    ("300元一节", "300.1元"),
    ("24/7 support", "July 24 support"),
    ("3 weekdays", "Monday to Friday"),
    ("in 5 to 7 days", "in a week to ten days"),
    ("one thousand two hundred fifty dollars", "$1,205"),
    ("3/4 of the amount", "March 4 of the amount"),  # a fraction, not a day
    ("he said 1/2", "he said January 2"),
    # numbers, counts and words that only look like the forms above (a review of the first round)
    ("twenty one-way tickets", "21 one-way tickets"),
    ("between ninety and one hundred dollars", "9100 dollars"),
    ("Installment 2/2 is due", "Installment February 2 is due"),
    ("Unit 4/17 George St", "Unit April 17 George St"),
    ("每晚300元，今年价格不变", "每年300元"),
    ("not weekdays", "Monday to Friday"),
    ("非工作日不发货", "周一到周五不发货"),
    ("/stats/2024/month", "2024 per month"),
    ("36 months", "3 months"),
    ("a 3-year term", "a 3-month term"),
    ("5 pounds 3 ounces", "£5.03"),  # a weight, not money
    ("twenty one-way tickets", "21-way tickets"),
    ("3点5公里", "3点50"),  # 3.5 km, not a time
    ("春节", "1节"),
    ("Sat down and waited", "Saturday"),  # a verb, not a day
    ("the Sun was out", "Sunday"),
    ("Yes, May I help", "in May"),  # a verb after a comma, not the month
    ("the one or the other", "1 or the other"),
    ("DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 01"),
    ("version 2024.7.1.5", "2024-07-01"),  # a version, not a date
    ("今晚7点", "早上7点"),
    ("a 1h40m delay", "a 1h45m delay"),
    ("the one I ordered", "1 I ordered"),  # `one` alone stays a pronoun
    ("二十三天", "2到3天"),  # 二十三 is 23, not a range
    ("三块五个", "3.5元"),  # 3 yuan, then five of something
    ("需有18周岁以上成人在场", "需在场18周"),  # an age, not 18 weeks
    ("a third off", "33% off"),  # thirds are left alone
    ("Total: 148,20 €", "Total: 148,50 €"),
    ("EUR 1,250", "EUR 1.25"),  # a comma before three digits is a thousands separator
    ("€1,500", "€1.50"),
    ("Tickets: Ron 2,3 and Harry 4", "Tickets: Ron 2.3 and Harry 4"),  # a name, not the currency RON
    ("1234 5678", "12345678"),  # two groups may be two numbers
    ("Rooms 1203 1204 1205", "Rooms 120312041205"),  # and three, where no word names one number
    ("Call January 1 or June 30, 2025", "Call 2025-01-01 or 2025-06-30"),  # `or` is no range
    ("7月1日至8月底", "7月1日至8月30日"),
    ("2024年", "24个月"),  # a year, no duration
    ("上半年", "6个月"),  # a half of the year
    ("三年级", "36个月"),  # a grade
    ("三分之一", "33%"),  # no short percent: left as said
    ("添加第二驾驶人", "添加2驾驶人"),  # a second driver, no number 2
    ("上午 9:30", "21:30"),
    ("全额退款", "100%退款"),
    ("正畸复诊每4周一次", "正畸复诊每周一"),  # every four weeks, no Monday
    (
        "每周一次",
        "每周一",
    ),  # once a week, not every Monday  # a refund in full is said 全部退款 too: no share
]


def test_a_request_turned_down_is_no_request() -> None:
    assert act_of("您的订单已取消，不用麻烦您再提供材料了。") != "ask"
    assert act_of("麻烦您先上传一下照片。") == "ask"


def test_an_abbreviation_s_full_stop_ends_no_sentence() -> None:
    assert sentences("We don't ship to P.O. boxes. Could you give a street address?") == [
        "We don't ship to P.O. boxes.",
        "Could you give a street address?",
    ]
    assert len(sentences("Dr. Kim is out. Mr. Lee will see you.")) == 2


def test_a_gold_sentence_that_only_greets_is_not_required(multilingual_ladder: Ladder) -> None:
    """Blind set 7: `Hi! Your table for 4 …` against a reply that confirms the table and says no hello;
    the facts of the other sentence are still required."""
    gold = "Hi! Your table for 4 at 7:30 PM tonight is confirmed."
    assert not _fails(multilingual_ladder, gold, "You're all set — a table for four people tonight at 19:30.")
    assert _fails(multilingual_ladder, gold, "Hello! Your table is booked.")


@pytest.mark.parametrize(("a", "b"), SAME)
def test_the_same_fact_written_two_ways_reads_as_one(a: str, b: str) -> None:
    assert extract_facts(a).facts == extract_facts(b).facts


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_what_only_looks_like_the_same_fact_is_not(a: str, b: str) -> None:
    assert extract_facts(a).facts != extract_facts(b).facts


def _fails(ladder: Ladder, gold: str, reply: str) -> bool:
    score = score_response(ladder, gold, reply, frozenset())
    return score.completeness.passed is False or score.truthfulness.passed is False


@pytest.mark.parametrize(
    ("gold", "reply"),
    [
        (
            "Done — I've updated your shipping address to 22 Oak Street, Apt 5B, Portland.",
            "Your shipping address is now 22 Oak St., Apartment 5B, Portland.",
        ),
        (
            "处方药需要凭医生处方购买，请上传处方照片。",
            "这款是处方药，麻烦您先上传一下医生开的处方照片才能购买。",
        ),
        (
            "请您提供一下商品破损的照片，方便我们为您处理。",
            "麻烦您拍一张商品损坏处的照片发给我们，以便尽快处理。",
        ),
        ("您的手机号已成功办理副卡，新号码为138 0013 8000。", "副卡已开通，号码是13800138000。"),
        (  # a count and a duration of the same number (set 12)
            "Your $600 balance will be split into 4 monthly payments of $150, starting May 1.",
            "Your balance of $600 is now on a payment plan — $150 a month for four months, from 1 May.",
        ),
        (  # a question that only asks for a choice, asked otherwise (set 13)
            "We can deliver your sofa on Tuesday the 17th or Thursday the 19th, between 8 AM and noon. "
            "Which do you prefer?",
            "There are two delivery slots for the sofa, both 8:00–12:00: Thursday 19th or Tuesday 17th. "
            "Which works better for you?",
        ),
        (  # the same time written two ways beside another (set 14)
            "每天施工时间限于 8:00 到 18:00。",
            "每日施工时段8点到18点。",
        ),
        (  # nothing to pay, said in words (set 14)
            "您向尾号 8843 的账户转账 20,000 元已成功，手续费 0 元，实时到账。",
            "转账成功：20000元已转入尾号8843的账户，免手续费，实时到账。",
        ),
        (  # the same amount with and without its currency, beside a year said as months (set 16)
            "您的家财险保单 PH88120457 已生效，保障期间为 2024 年 9 月 1 日至 2025 年 8 月 31 日。房屋主体保额 150 万元，"
            "室内财产保额 20 万元。",
            "保单 PH88120457 已经生效，保期一年：2024.9.1–2025.8.31。房屋主体保额 150 万，室内财产 20 万。",
        ),
        (  # a duration and a frequency the reader does not know in the reply's form, its part there (set 16)
            "Your Flex membership at our Shoreditch location starts on May 1. It includes 10 days per month of "
            "hot-desk access and 4 hours of meeting-room credit.",
            "Welcome aboard! Flex at Shoreditch kicks off 1 May: 10 hot-desk days a month plus 4 hrs of meeting "
            "room credit.",
        ),
        (  # this Saturday said as Saturday (set 16)
            "您的试听课安排在本周六下午 2 点，地点是 3 楼 305 教室，授课老师是 Emma。试听免费，时长 40 分钟。",
            "周六 14:00 试听，免费，40 分钟，在 3 层 305 教室，Emma 老师上课。",
        ),
        (  # ten people at six: no time of 6:10 (set 16)
            "您预订的 3 月 8 日晚 6 点 10 人包间“牡丹厅”已确认，包间最低消费 2,000 元。请在前一天下午 5 点前确认菜单。",
            "牡丹厅包间订好了，3 月 8 号晚上 6 点，10 位。包间低消 2000 元，菜单请在前一天下午 5 点之前定下来。",
        ),
        (  # a fee of $0 waived in words beside an amount the reply repeats: no conflict of the two
            "Your total is $45 and the booking fee is $0.",
            "Your total is $45. We've waived the booking fee, so $45 is all you pay.",
        ),
        (  # a count said as `both`, a range said with `between` (set 17)
            "Tomasz will assemble your wardrobe and two dressers for $189. A freeze can last 1 to 3 months.",
            "For a flat $189 Tomasz puts together the wardrobe plus both dressers. You can freeze for between "
            "one and three months.",
        ),
        (  # a share of a fee beside the balance the reply adds: no conflict of 25% and $9,000 (set 17)
            "To confirm, we need a deposit of $3,000, which is 25% of the $12,000 venue fee. The balance is due "
            "60 days before the event.",
            "Send a $3,000 deposit (a quarter of the $12,000 venue fee) to confirm. The remaining $9,000 is "
            "payable 60 days before the event.",
        ),
        (  # a day's number is no part of `48 hours` when the facts are masked (set 17)
            "The code was redeemed on January 4. Our fraud team will reply by email within 48 hours.",
            "That code was redeemed on 4 Jan, and the fraud team will email you back within two days.",
        ),
        (  # a question that only asks which one (set 17)
            "You can upgrade to the 500 GB tier or turn on archiving. Which would you prefer?",
            "Option A: the 500 GB tier. Option B: archiving. Which one works for you?",
        ),
        (  # a Chinese day and month in digits; a list's enclosed numbers (set 17)
            "已为您预约4月20日（周六）上午9点的保洁，费用880元。7天流量包98元，或者日包每天28元。",
            "保洁约好了：周六4/20早上九点，880元。①7天包，98元；②日包，28元/天。",
        ),
        (  # an offset from a time said as the moment it gives; miles said with no unit (set 18)
            "Your road test is on Tuesday, April 22 at 10:45 AM. Arrive 15 minutes early with your permit. "
            "Your balance is now 58,900 miles.",
            "Road test: Tue Apr 22, 10:45 in the morning. Be there by 10:30 with your permit. That brings your "
            "balance to 58,900.",
        ),
        ("请在开船前1小时到港检票，开船时间早上7:30。", "早上七点半开船，请六点半之前到码头检票。"),
        (  # days of work said as weeks, and as days (set 18)
            "The review takes about 15 business days. Refunds arrive in 5 business days.",
            "The review takes roughly three business weeks. Refunds arrive in 5 days.",
        ),
        (  # `at no cost` negates nothing: it is `free of charge` (set 19)
            "Your certificate was posted on 12 October. If it hasn't arrived by 9 November, we'll issue a "
            "replacement free of charge.",
            "We sent your certificate on Oct 12. Not there by Nov 9? We'll send a replacement at no cost.",
        ),
        (  # one identifier grouped by other separators (set 20)
            "Your claim CLM-30592 was approved; the cheque goes out this week.",
            "Claim CLM 30592 is approved, and the cheque is sent this week.",
        ),
        ("Member ID 7730-212 is valid until 30 June.", "Member ID 7730212, valid through June 30."),
        ("Container MSKU 482911-7 left Shanghai on 2 May.", "Container MSKU4829117 departed Shanghai May 2."),
        ("您的取件码是 6-2-3018，请在今天取走。", "取件码623018，今天来拿就行。"),
        ("尾款9000元请在入住当天付清。", "剩下的9千入住那天付清就可以。"),
        ("游戏账号（角色ID：20481937）已补发。", "已补发至角色ID 2048 1937。"),
        ("The deposit of £25 is refundable.", "The 25 pounds deposit is refundable."),  # sterling, no weight
        (
            "The day rate is $480, and 50% is due now to confirm.",
            "It is $480 for the day; pay half now to confirm.",
        ),
        (  # a word of four letters and its inflection: `need` / `needed` (set 20)
            "Your plan renews on 1 October at $54 per month; you don't need to do anything.",
            "No action needed: the plan renews October 1 at $54 a month.",
        ),
        (  # a duration said as the range it spans, of times and of days
            "Your lane is booked for 6 people on Friday at 8 p.m. for one hour. Closed-toe shoes are required.",
            "One lane, six throwers, Friday 20:00–21:00. Please wear closed-toe shoes — it's mandatory.",
        ),
        (
            "The sign will be done on site over two days, 4–5 March, weather permitting. The quote of £1,250 "
            "includes gold leaf on the lettering.",
            "We'll paint it on site on the 4th and 5th of March if the weather allows. Gold leaf lettering is "
            "included in the 1250-pound quote.",
        ),
        ("3桶农夫山泉今天下午4点前送到，每桶22元。", "三桶农夫山泉今天16:00之前送达，22元一桶。"),
        ("买一提(7饼)打九折。", "整提七饼一起买可以享受9折。"),
        ("Extra minutes are charged at 15p per minute.", "Extra minutes cost £0.15 a minute."),
        (  # set 23: a date in numbers read in the order gold's date says (`11 April` / `11/04`)
            "Your bike is booked in for a Gold Service on 11 April at 9 am, ready by 5 pm the same day.",
            "Gold Service booked: drop-off 09:00 on 11/04, ready for pickup by 17:00 that day.",
        ),
        (  # an amount in sterling said in words in a part the model does not match
            "Your initial assessment with Dr Patel is on Wednesday 3 July at 14:15 and lasts 45 minutes; the "
            "fee is £70.",
            "You're seeing Dr Patel for an initial assessment at 2:15 pm on Wednesday 3rd July. It's a "
            "forty-five minute session costing seventy pounds.",
        ),
        (
            "Your fortnightly maintenance visit covers a 25% water change, glass cleaning and filter rinse, "
            "at $65 per visit.",
            "Every two weeks we'll come in, swap out a quarter of the water, clean the glass and rinse the "
            "filter — $65 each time.",
        ),
        (
            "温泉区开放时间为每天早上7点至晚上11点，1.2米以下儿童须由成人陪同。",
            "泡池每天07:00—23:00开放；身高不足一米二的小朋友需要大人陪着。",
        ),
        (  # `no fees will be charged` is `no fees` (review of the set-22 change)
            "There will be no additional fees for the date change.",
            "No additional fees will be charged for the date change.",
        ),
        (
            "已为您使用八折优惠券，订单金额由500元降为400元。",
            "已帮您用券减了20%，500元的订单现在只需付400元。",
        ),
        (  # a negation said otherwise: `don't` is no word the reply must repeat (set 12)
            "The maintenance team will fix your leaking sink tomorrow morning. You don't need to be home; "
            "they'll use the master key.",
            "Tomorrow morning maintenance will come repair the sink leak. No need for you to be there — "
            "they'll let themselves in with the master key.",
        ),
    ],
)
def test_a_reply_written_otherwise_does_not_fail(multilingual_ladder: Ladder, gold: str, reply: str) -> None:
    """Abbreviations word for word, a request opened by 麻烦您 or with an adverb, a phone number written
    in one run of digits: no evidence of a difference, so no failure (at most `uncertain`)."""
    assert not _fails(multilingual_ladder, gold, reply)


@pytest.mark.parametrize(
    ("gold", "reply"),
    [
        (
            "Your shipping address is now 22 Oak Street, Apt 5B, Portland.",
            "Your shipping address is now 22 Elm St., Apartment 5B, Portland.",
        ),
        ("您的手机号已成功办理副卡，新号码为138 0013 8000。", "副卡已开通，号码是13800138001。"),
        ("Your refund of $42.17 has been issued.", "I've refunded 42 dollars and 71 cents."),
        ("The clinic is open Monday to Friday.", "The clinic is open Monday to Saturday."),
        (
            "Your $600 balance will be split into 4 monthly payments of $150.",
            "Your $600 balance is now $150 a month for three months.",
        ),
        ("Your permit is valid from January 1 through June 30, 2025.", "Permit valid 1/2/2025 to 6/30/2025."),
        ("The transfer fee is $0.", "The transfer fee is $5."),
        ("E-bikes are charged at $0.15 per minute.", "E-bike use costs an extra 51¢/min."),
        ("We can seat you at 6 PM or 9:30 PM.", "We could seat you at 7:00 or 9:30 PM instead."),
        # what a part must state even when its words are there: an amount, a percentage, a date, a time,
        # a dose, a data allowance, a term, a number that names (review of the qualifying-fact rule)
        ("Late submissions lose 10% per day.", "Late submissions lose marks for each day."),
        ("Take 500 mg of amoxicillin twice a day.", "Take amoxicillin twice a day."),
        ("Your plan includes 50GB of data each month.", "Your plan includes data each month."),
        ("You get a fixed rate for 36 months.", "You get a fixed rate."),
        ("Your refund arrives in 5 business days.", "Your refund arrives in business days."),
        ("You'll depart from Terminal 5 at Heathrow.", "You'll depart from Terminal 3 at Heathrow."),
        ("Your refund of $45 has been issued.", "Your refund has been issued."),
        ("The office reopens on January 6 at 9 AM.", "The office reopens in the morning."),
        # the forms read since set 17, each with another value
        (
            "Be at the terminal 30 minutes before the 7:15 AM sailing.",
            "Be at the terminal by 6:30 for the 7:15 AM sailing.",
        ),
        ("The review takes about 10 business days.", "The review takes about three business weeks."),
        ("退款18.99元今天已经发起了。", "18块9毛今天给您退了。"),
        ("年检预约在3月14日下午2点30分。", "年检约好了：3.15，下午两点半。"),
        # an offset is a moment only in the direction gold gives it; a `double` is no count of two
        (
            "Your flight departs at 10:00 from gate B12. Please be at the gate 30 minutes before departure.",
            "Your flight departs at 10:00 from gate B12. Please be at the gate by 10:30.",
        ),
        (
            "The pool opens at 6:00 and closes at 22:00. Lessons last 45 minutes.",
            "The pool opens at 6:00 and closes at 22:45. Lessons are 45 minutes long.",
        ),
        (
            "Each member can bring 2 guests. Please double-check your booking.",
            "Each member can bring guests. Please double-check your booking.",
        ),
        ("Today's rate is 1 USD = 0.921 EUR.", "Today's rate is 1 USD = 921 EUR."),
        ("There is no fee to change the date.", "There is a fee to change the date."),
        # a fact missing beside others of its kind the reader did read is not said another way
        ("退款7个工作日内到账，押金扣除一个月租金作为违约金。", "退款7个工作日内到账，押金全额退还。"),
        ("请在3天宽限期内（即11月23日前）补足款项。", "请尽快补足，超过11月23日会产生罚息。"),
        ("术后一年内复查免费。", "术后半年内复查免费。"),
        (
            "The scholarship is $8,000 per year for four years.",
            "The scholarship is $8,000 in total over four years.",
        ),
        ("The guided tour lasts 75 minutes.", "The guided tour lasts 1 hour 30 minutes."),
        ("Use pickup code 482 910 by Friday.", "Use pickup code 482 901 by Friday."),
        # regrouped, but not the same letters and digits
        ("Your claim CLM-30592 was approved.", "Claim CLM 30529 is approved."),
        ("Member ID 7730-212 is valid until 30 June.", "Member ID 7730213, valid through June 30."),
        ("您的取件码是 6-2-3018，请在今天取走。", "取件码623019，今天来拿就行。"),
        ("尾款9000元请在入住当天付清。", "剩下的8千入住那天付清就可以。"),
        # a review: a number beside a regrouped one, decimals, a run grown or cut, a list, a word for letters
        ("Your claim CLM-30592 was approved for 1 night.", "Your claim CLM 30592 was approved for 3 nights."),
        ("尾款9000元，取件码6-2-3018，柜号2。", "尾款9000元，取件码623018，柜号8。"),
        ("Your balance is 125.50 points.", "Your balance is 12550 points."),
        ("Your pickup code is 482910.", "Your pickup code is 5 482 910."),
        ("Member ID 7730-212-1 is valid.", "Member ID 7730212 is valid."),
        ("Rooms 1203 and 1204 are booked; your booking ref is 12031204.", "Rooms 1203 1204 are booked."),
        ("Use code SPRING2024 at checkout for 20% off.", "The Spring 2024 sale gives 20% off at checkout."),
        ("保险的赔偿上限是3千万元。", "保险的赔偿上限是3000元。"),
        ("The room is 12 by 8 ft.", "The room is 12 by 8 m."),
        # a second review: a group boundary moved (two other numbers), a dose halved to another unit
        (
            "Please quote both claim numbers, 48213 - 77120, when you call.",
            "Please quote both claim numbers, 4821 - 377120, when you call.",
        ),
        ("Your gift vouchers are 4821 - 9930.", "Your gift vouchers are 482 - 19930."),
        ("Reduce the dose by half to 5 mg twice a day.", "Reduce the dose by half to 5 g twice a day."),
        (
            "We refund 50% of the fee if you cancel.",
            "We refund the whole fee if you cancel within half a day.",
        ),
        ("扣除免赔额后按70%比例赔付。", "扣除免赔额后按六成赔付。"),
        ("超时后每12小时收费0.5元。", "超时后每12小时收5块。"),
        ("已为您预约4月20日上午9点的保洁。", "保洁约好了：4/21早上九点。"),
        ("The fee is €1,120.", "The fee is 1.210 €."),
        (
            "Tomasz will assemble your wardrobe and two dressers.",
            "Tomasz will assemble your wardrobe and three dressers.",
        ),
        ("Your lane is booked on Friday at 8 p.m. for one hour.", "Your lane is booked Friday 20:00–22:00."),
        ("The work takes two days, 4–5 March.", "The work takes two days, 4–6 March."),
        ("There is no fee for late returns.", "There is a fee for late returns."),
        ("The heating is turned on.", "The heating is turned off."),
        ("整提七饼打九折。", "整提七饼打八折。"),
        ("已为您使用八折优惠券。", "已帮您用券减了30%。"),
        ("房东同意您养一只猫。", "房东同意您最多养两只猫。"),
        ("优惠券可以打8折。", "优惠券可以减80%。"),  # 8 tenths paid is not 80 % off
        ("全场商品打八折。", "全场商品打二折。"),
        ("Your lesson is at 2 pm for one hour.", "Your lessons are at 2 pm and 3 pm."),  # two times, no range
        (
            "We'll transfer the £40 from your savings account.",
            "The £40 will be transferred to your savings account.",
        ),
        ("Extra minutes are charged at 15p per minute.", "Extra minutes cost £1.50 a minute."),
        ("Your bike is booked in on 12 April.", "Your bike is booked in on 11/04."),  # neither order agrees
        ("Swap out 25% of the water.", "Swap out three quarters of the water."),
        ("1.2米以下儿童免票。", "一米五以下儿童免票。"),
        # a review of the set-23 reading: each of these still fails
        ("Your stay runs from November 4 to December 25.", "Your stay runs from 04/11 to 12/25."),
        ("The total comes to $40. Thanks for shopping.", "You earned 40 points. Thanks for shopping."),
        ("Members get 25% off this week.", "Members get seats for a quarter-final this week."),
        ("您订的是一米高的架子。", "您订的是一米三高的架子。"),
        # forms that only look like the set-22 ones: each reads as before
        ("The shed base is 2 m x 3 m.", "The shed base is 2 ft x 3 ft."),
        ("The heating is switched on.", "The heating is turned off."),
        ("本店不打折，定金是总价的30%。", "本店不打折，定金是总价的70%。"),
        ("停车费10元一小时。", "停车费10元两小时。"),
        (  # a duration replaced by one the reply states twice (set 16)
            "The panels come with a 25-year product warranty, and our workmanship warranty covers the "
            "installation for 10 years. The inverter warranty is 12 years.",
            "You get a 25-year product warranty on the panels, 10 years on our workmanship, and 10 years on "
            "the inverter too.",
        ),
    ],
)
def test_a_reply_with_another_fact_still_fails(multilingual_ladder: Ladder, gold: str, reply: str) -> None:
    assert _fails(multilingual_ladder, gold, reply)


@pytest.mark.parametrize(
    ("gold", "reply", "why"),
    [
        (
            "The 30-day trial lets you return it for a full refund, minus the $40 setup fee.",
            "The 30-day trial lets you return it for a full refund, including the $40 setup fee.",
            "gold says 'minus', reply says 'including'",
        ),
        (
            "Transfers to a bank are free; card transfers cost $3.",
            "Transfers to a card are free; bank transfers cost $3.",
            "the same words in another order",
        ),
    ],
)
def test_the_model_alone_passes_no_other_words(
    multilingual_ladder: Ladder, gold: str, reply: str, why: str
) -> None:
    """The model scores these alike (0.98); their words differ, so the reply is not passed: uncertain
    (wording alone never fails), with the words that differ (set 21: nine wrong replies had passed). The
    shipped English text `accept` is 1.0 (nothing passes on the model alone); a user's calibration may set
    one below these scores, as the shipped one was (0.9559), and this is what holds then."""
    calibrated = KindThresholds(threshold=0.7086, reject=0.4632, accept=0.9559)
    score = score_response(ladder_with(multilingual_ladder, {"text": calibrated}), gold, reply, frozenset())
    assert score.completeness.passed and score.truthfulness.passed
    assert score.comparisons[0].uncertain and why in score.comparisons[0].note


def test_a_route_turned_round_fails_even_when_the_sentence_is_reworded(multilingual_ladder: Ladder) -> None:
    """`from Dallas to Seattle` / `from Seattle to Dallas` beside `will be shipped` / `will ship`: the
    move of the same words around a direction is found among the other differences (blind set 7)."""
    gold = "Your package will be shipped from Dallas to Seattle on Monday."
    assert _fails(multilingual_ladder, gold, "Your package will ship from Seattle to Dallas on Monday.")
    assert not _fails(multilingual_ladder, gold, "Your package will ship from Dallas to Seattle on Monday.")


def test_a_chinese_measure_phrase_moved_is_no_turned_round_route(multilingual_ladder: Ladder) -> None:
    gold = "您的积分余额为12,500分，可以兑换一张国内往返机票。"
    assert not _fails(multilingual_ladder, gold, "您现在有1.25万积分，足够兑换国内往返机票一张。")


def test_check_in_and_checkout_are_opposites(multilingual_ladder: Ladder) -> None:
    assert multilingual_ladder.compare("value", "checkout", "check-in").equal is False


def test_a_text_is_read_for_facts_once() -> None:
    """Scoring, grounding and attribution read the same tool results and replies: the facts of a text
    are kept, not read again (reading them is the largest cost of exact scoring; a helper defined
    between the cache and this function once took the cache from it and halved `replay exact`)."""
    text = "Your refund of $42.17 for order A123 will arrive by 3/4."
    assert extract_facts(text) is extract_facts(text)


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        # a review of the sets-12-to-15 rules, each read wrong by their first version
        ("运单号：1Z 999 AA1 0123 4567 84已发货", ("id:1z999aa10123456784",)),
        ("Your size is EU 42.5.", ("number:42.5",)),  # a decimal, no code `EU 42`
        ("call +86-13812345678", ("number:13812345678", "number:86")),  # a phone, no ticket
        ("电话：0755-12345678", ("phone:75512345678",)),
        ("汇率为7.125，12月1日生效", ("month:12", "number:1", "number:7.125")),  # no European decimal
        ("最晚11:00前退房", ("time:11:00",)),  # 最晚 is `at the latest`, no evening
        ("今晚0:30发车", ("time:00:30",)),
        ("晚上12:00关门", ("time:00:00",)),
        ("客服时间9:00-18:00周一至周五", ("time:09:00", "time:18:00", "weekday:1", "weekday:5")),
        ("2024/12/16周一", ("date:2024-12-16", "weekday:1")),
        ("25年1月1日起", ("month:1", "number:1", "number:25")),  # a year, no 25 years
        ("有效期1年半", extract_facts("有效期18个月").facts),
        ("Half the fee is refunded.", ("number:50|percent",)),
        ("arrives in 2-to-3 business days", ("id:2to3",)),
        ("Meet at gate A1 3PM.", ("id:a1", "time:15:00")),
        ("Pick-up at Zone A 15 minutes before departure", ("number:900|s",)),
        ("房间号 1203 1204 1205", ("number:1203", "number:1204", "number:1205")),
        ("seats 14C 14D", ("id:14c", "id:14d")),  # a seat, no 14 days
        ("a 5G network", ("id:5g",)),
        ("within 14d", ("number:1209600|s",)),
        # an enclosed list number is no digit of the number after it (①7天 is no 17 days)
        ("①7天包98元；②日包28元/天", ("frequency:day", "number:28|cny", "number:604800|s", "number:98|cny")),
        ("reception is open 24/7", ()),  # always: no 24, no 7
        ("a 2 days and 3 hours delay", ("number:183600|s",)),
        ("周六6/8早上八点", ("month:6", "number:8", "time:08:00", "weekday:6")),  # 六 before the month
        ("一成不变", ()),  # no tenth
        ("1/2的份额", ("number:1", "number:2")),  # a fraction, no January 2
        ("May I help?", ()),
        ("用了1小时分", ("number:3600|s",)),  # no minutes said is no `0 minutes`
        ("re-enable two-factor authentication", ()),  # no count of two
        ("预计1.5-2.5小时", ("number:5400|s", "number:9000|s")),  # hours, no dates
        ("评分4.5，周一", ("number:4.5", "weekday:1")),  # a score, no 4月5日
        # set 20: a price per unit after the yuan, 千 after a digit, 毛 after a rate, a metric tonne, a
        # dozen, a half refund, a width by a length, a period as an adjective
        ("22元一桶", ("number:22|cny",)),  # no 22.1元
        ("物业费2块5一平", ("number:2.5|cny",)),
        ("剩下的9千", ("number:9000",)),
        ("5千克大米", ("number:5000|g",)),  # a unit, no 5000
        ("按每分钟5毛收费", ("number:0.5|cny",)),
        ("1.2 tonnes", ("number:1200000|g",)),
        ("half a dozen keys", ("number:6",)),
        ("a half refund", ("number:50|percent",)),
        ("a 10 by 10 unit", ("id:10x10",)),
        ("pay $5 by 10 June", ("month:6", "number:10", "number:5|usd")),  # no 5x10
        ("your prior-year return", ("period:-1|year",)),
        ("no later than half past ten in the morning", ("time:10:30",)),
        ("Reduce the dose by half to 5 mg.", ("number:0.005|g",)),  # no time of day
        ("cut by a quarter to 12 dollars", ("number:12|usd",)),
        # what a review of these found misread: 千万, a count of half-price tickets, a day after `a N by M`,
        # a unit of length after one
        ("保额3千万元", ("number:30000000|cny",)),
        ("We booked 2 half-price tickets.", ("number:2",)),
        ("a 5 by 10 June slot", ("month:6", "number:10", "number:5")),
        ("The room is 12 by 8 ft.", ("number:12", "number:2.4384|m")),
        ("the last-minute change", ()),
        # and what a review of these rules found read wrong: a fraction, a score, a rate, an angle, `probably`,
        # a code beside a duration, a fuel price, two durations of one unit, the night's hours, a dose
        ("评分4/5", ("number:4", "number:5")),
        ("completed 3/3 modules", ("number:3", "number:3")),
        ("汇率7.18到7.21", ("number:7.18", "number:7.21")),
        ("评分4.8（周五更新）", ("number:4.8", "weekday:5")),
        ("三角形和冰山一角", ()),
        ("一毛不拔", ()),
        ("他八成忘了带钥匙", ()),
        ("验证码 4829 120秒内有效", ("number:120", "number:4829")),
        ("1 USD = 0.921 EUR", ("number:0.921|eur", "number:1|usd")),
        ("60 minutes and 30 minutes sessions", ("number:1800|s", "number:3600|s")),
        ("at 8 o'clock at night", ("time:20:00",)),
        ("Take 2 x 500 mg", ("number:0.5|g", "number:2")),
        # set 22: a time before a colon, a numeral before a measure word, a discount in tenths, pence, an
        # amount as an adjective of a charge, pounds and pence in words, an age group
        ("Sunday, 14:00: 12 kids", ("number:12", "time:14:00", "weekday:7")),
        ("at 10:15:30", ("number:10", "number:15", "number:30")),  # a time to the second is not read
        ("三桶农夫山泉", ("number:3",)),
        ("整提七饼打9折", ("number:7", "number:9")),  # tenths of the price paid
        ("帆布画打八五折", ("number:8.5",)),
        ("打对折", ("number:5",)),
        ("折扣已用", ()),  # no number before 折
        ("猫和狗住在同一层", ()),  # 同一 is `the same`
        ("彩印一块五一页", ("number:1.5|cny",)),  # a price per page
        ("25kg一袋", ("number:1", "number:25000|g")),  # no code 25kg1
        ("charged at 15p per minute", ("number:0.15|gbp",)),
        ("open until 4p.m. today", ("time:16:00",)),
        ("the twenty-pound entry", ("number:20|gbp",)),
        ("a 10-pound bag of flour", ("number:10",)),  # no money
        ("5 pounds 3 ounces", ("number:2267.96185|g", "number:3")),
        ("free for under-16s and over-60s", ("number:16", "number:60")),
        ("2 m x 3 m", ("number:2|m", "number:3|m")),  # a size keeps its unit (`2 ft x 3 ft` differs)
        # forms that only look like those above (review of the set-22 change)
        ("The bus leaves at 5:30p, the fare is £2", ("number:2|gbp", "time:05:30")),
        ("open at 7p, entry £3", ("id:7p", "number:3|gbp")),
        ("Gate 12p, fare £2", ("id:12p", "number:2|gbp")),
        ("It costs 15p.", ("number:0.15|gbp",)),
        ("€15, or €20 with the tour", ("number:15|eur", "number:20|eur")),
        ("a 5-pound gift box", ("number:5",)),
        ("MAC 12:34:ab", ("number:12", "number:34")),
        ("对折一下再放进信封", ()),  # fold in half
        ("三折叠伞", ()),
        ("过程一波三折", ()),
        ("七折八扣之后", ()),
        ("享受95折", ("number:9.5",)),
        ("这款伞是三折伞", ()),
        ("满两件打五六折", ("number:2",)),  # 五六折 is a range
        ("Setup is 50 dollars and 20 a month", ("frequency:month", "number:20", "number:50|usd")),
        ("we accept 10p, 20p and 50p coins", ("number:0.1|gbp", "number:0.2|gbp", "number:0.5|gbp")),
        ("Kick-off is 3p; tickets are £10", ("id:3p", "number:10|gbp")),
        ("15 pence per minute", ("number:0.15|gbp",)),
        ("iPhone十五", ("id:iphone15",)),
        ("carry-over-2 days", ("id:carryover2",)),
        ("这一层和上一页", ()),
        # set 23 read
        ("a reminder in March of 2027", ("date:2027-03",)),
        (
            "$650 flat for the season (Nov 15–Apr 1)",
            ("month:11", "month:4", "number:1", "number:15", "number:650|usd"),
        ),
        ("it takes a third of an hour", ("number:1200|s",)),
        ("身高不足一米二的小朋友", ("number:1.2|m",)),
        ("一米二十", ("number:1|m", "number:20")),  # not a height in metres and tenths
        ("您订的是一米高的三层架子", ("number:1|m", "number:3")),
        ("高一米三层的架子", ("number:1|m", "number:3")),  # a metre, then three shelves
        ("Route 15-Market 5", ("id:15market", "number:5")),
        ("您提前了十二个多小时通知", ("number:43200|s",)),
        ("明早十点的预约", ("time:10:00",)),
        ("值得一提的是一本正经", ()),
        ("万一只是误会", ()),
        ("第一只需登记", ()),
        ("享受三包服务", ()),
        ("停车费10元一小时", ("number:10|cny", "number:3600|s")),  # an hour is a duration still
    ],
)
def test_a_form_read_as_it_is_meant(text: str, facts: tuple[str, ...]) -> None:
    assert extract_facts(text).facts == facts


def test_a_long_run_after_1z_is_read_at_once() -> None:
    """The UPS pattern once split a run of letters and digits in every way before failing: 36 characters
    took 5 s, each more twice as long. This one would not end."""
    assert extract_facts("see /1Z" + "4F9A8B7C6D5E" * 5 + "_x").facts


def test_a_sentence_after_no_is_its_own() -> None:
    assert sentences("Is this the right one? No. Please send the receipt.") == [
        "Is this the right one?",
        "No.",
        "Please send the receipt.",
    ]
    assert sentences("Room No. 5 is ready.") == ["Room No. 5 is ready."]


def test_a_question_about_a_thing_is_not_covered_by_another_question(multilingual_ladder: Ladder) -> None:
    gold = "Your order has been cancelled. Would you like a refund?"
    assert _fails(multilingual_ladder, gold, "Your order has been cancelled. What is your order number?")


def test_a_date_read_in_the_other_order_is_never_a_silent_pass(multilingual_ladder: Ladder) -> None:
    """`05/06/2025` read day first, as the reply's `June 5, 2025` says, agrees — but the configured order
    reads 6 May: the comparison stays in doubt, for review (a review of the set-23 reading)."""
    gold = "Your refund will reach your card by 05/06/2025. You will get an email shortly."
    reply = "Your refund will reach your card by June 5, 2025. You will get an email shortly."
    score = score_response(multilingual_ladder, gold, reply, frozenset())
    assert not _fails(multilingual_ladder, gold, reply)
    assert any(c.uncertain and c.field == "response.date" for c in score.comparisons)
