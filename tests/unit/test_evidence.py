"""Grounding's evidence (`compare/evidence.py`, `compare/spoken.py`) and its verdicts under the built-in
policy: values said in other forms are grounded, look-alikes are not, a reply's facts and done-claims need
support, and nothing a user sends can crash it or make it slow.

Each case is one a person would write; the review of the first version (false alarms on phone formats,
numbers sent as strings, booking confirmations; amounts "computed" from any big result) is here, each
failing before its fix."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from monitor.compare import evidence as evidence_module
from monitor.compare.evidence import _EU_OPENER, Evidence, computable, done_claims
from monitor.model import ActionContent, DialogTurn, FailureReason, ResponseContent
from monitor.reference.policy import BUILTIN
from monitor.score.grounding import AFFIRMATION, ConversationEvidence
from monitor.score.policy import check_policy

TODAY = "2025-03-14"  # a Friday


def source(
    users: list[str], tool: str, args: dict[str, Any], calls: Sequence[tuple[str, Any, Any]] = ()
) -> dict[str, str]:
    """Each argument's source after the user messages and the earlier successful calls."""
    ev = Evidence(today=TODAY)
    for i, text in enumerate(users, start=1):
        ev.add_user(i, text)
    for j, (name, a, result) in enumerate(calls, start=len(users) + 1):
        ev.add_call(j, name, a, result, failed=False, tainted=False)
    return {p.path: p.source for p in ev.provenance(tool, args)}


@pytest.mark.parametrize(
    ("said", "args"),
    [
        ("my phone is (415) 555-0132", {"phone": "+14155550132"}),
        ("她手机号 138 0013 8000", {"phone": "13800138000"}),
        ("pay my landlord five hundred dollars", {"amount": 500}),
        ("can I come in tomorrow?", {"date": "2025-03-15"}),
        ("next Tuesday works", {"date": "2025-03-18"}),
        ("book it for the 3rd", {"date": "2025-04-03"}),
        ("around half past two", {"time": "14:30"}),
        ("pick it up after 5", {"pickup_time": "17:00"}),
        ("my email is JOHN.DOE@EXAMPLE.COM", {"email": "john.doe@example.com"}),
        ("the PIN is 839 214", {"transfer_pin": "839214"}),
        ("我想在成都取车", {"city": "成都"}),
        ("fly me to Seattle", {"destination": "SEA"}),
        ("booking ref is L T G 7 H 2 K 9 P", {"booking_ref": "LTG7H2K9P"}),
        ("account M G zero zero nine one three seven", {"account_number": "MG009137"}),
        # grounding blind set 4 (read after its first scoring)
        ("about 180 feet of gutter", {"linear_feet": 180}),  # its fact is in metres: 180 as said too
        ("we're moving out June 5th and 6th", {"start_date": "2025-06-05", "end_date": "2025-06-06"}),
        ("改到13号晚上", {"date": "2025-03-13"}),
        ("l'étiquette à marie point lefebvre arobase orange point fr", {"email": "marie.lefebvre@orange.fr"}),
        ("send it to john dot smith at gmail dot com", {"email": "john.smith@gmail.com"}),
        # blind set 11: a sentence's full stop after a dictated address is no dot of its domain
        ("Marcus, marcus at oyelaran dot music. phone's 347 555 0182", {"email": "marcus@oyelaran.music"}),
        # grounding blind set 5 (read after its held-out scoring)
        ("booking T R M dash 3 3 0 8 5", {"booking_id": "TRM-33085"}),
        ("五一那天想带家里人去", {"date": "2025-05-01"}),
        ("on Christmas Eve, please", {"date": "2025-12-24"}),
        # grounding blind set 6 (read after its held-out scoring)
        ("un cours particulier après-demain", {"date": "2025-03-16"}),
        ("übermorgen bitte", {"date": "2025-03-16"}),
        ("mañana por la tarde", {"date": "2025-03-15"}),
        ("名片，90×54的标准尺寸", {"size": "90x54mm"}),
        ("Mon numéro : 07 81 55 32 09", {"contact_phone": "+33781553209"}),
        ("the November senior monthly pass", {"start_date": "2025-11-01", "end_date": "2025-11-30"}),
        # grounding blind set 7 (read after its held-out scoring)
        ("una betoniera da giovedì, per tre giorni", {"start": "2025-03-20T07:30"}),
        ("volgende zaterdag graag", {"date": "2025-03-15"}),
        # grounding blind set 8 (read after its held-out scoring)
        ("Mondays, Wednesdays and Fridays around noon", {"weekdays": ["MON", "WED", "FRI"]}),
        ("这周末出差，周六周日每天遛两次", {"weekdays": ["SAT", "SUN"]}),
        ("half day, starting around 10.", {"start_time": "10:00"}),
        ("Sunday morning, say 9 to 11.", {"start_time": "09:00", "end_time": "11:00"}),
        ("Y si se puede, ¿a las 8?", {"start_time": "20:00"}),
        # grounding blind set 12 (read after its first scorings): the day words and weekday names of the
        # calendar table (CLDR), and addresses dictated in more languages
        ("내일 오후 세 시에 예약하고 싶어요", {"date": "2025-03-15"}),
        ("kan vi ta det i morgon?", {"date": "2025-03-15"}),
        ("pojutrze rano", {"date": "2025-03-16"}),
        ("明後日の午後でお願いします", {"date": "2025-03-16"}),
        ("yarın akşam 8 kişiyiz", {"date": "2025-03-15"}),
        ("Yarın akşam", {"date": "2025-03-15"}),  # Turkish capital Y, dotless ı
        ("ve čtvrtek odpoledne", {"date": "2025-03-20"}),
        ("på torsdag", {"date": "2025-03-20"}),
        ("l'email è giulia punto ferri chiocciola libero punto it", {"email": "giulia.ferri@libero.it"}),
        ("anna kropka nowak małpa wp kropka pl", {"email": "anna.nowak@wp.pl"}),
        # a list of days whose month comes last (grounding blind set 29: 11月23、24号)
        ("想申请11月23、24号两天的加大摊位", {"dates": ["2025-11-23", "2025-11-24"]}),
        ("I'm away and back on 4, 6 and 11 Nov", {"dates": ["2025-11-04", "2025-11-06"]}),
        ("the 3rd, 4th or 5th May would work", {"date": "2025-05-03"}),
    ],
)
def test_a_value_the_user_said_in_another_form_is_the_users(said: str, args: dict[str, Any]) -> None:
    assert set(source([said], "t", args).values()) == {"user"}


@pytest.mark.parametrize(
    ("said", "args"),
    [
        ("on 3, 4 and 5 May", {"date": "2025-05-06"}),  # the days listed, not the next one
        ("at 10:30, 5 May", {"date": "2025-05-10"}),  # a time before a date is no day of it
        ("$4, 5 May", {"date": "2025-05-04"}),  # nor an amount
        ("11月23日，2人", {"date": "2025-11-02"}),  # nor a count after a Chinese day
        # review: counts, times, numbers and things numbered before a day and its month
        ("Table for 4, 12 May at 7pm", {"date": "2025-05-04"}),
        ("flight BA12, 15 May", {"date": "2025-05-12"}),
        ("at 10, 12 May", {"date": "2025-05-10"}),
        ("Order 7 and 12 May", {"date": "2025-05-07"}),
        ("party of 6 & 14 June", {"date": "2025-06-06"}),
        ("11月25，5号线地铁站见", {"date": "2025-11-05"}),  # metro line 5
        ("11月25，3号门", {"date": "2025-11-03"}),  # gate 3
    ],
)
def test_what_only_looks_like_a_list_of_days_lists_none(said: str, args: dict[str, Any]) -> None:
    assert set(source([said], "t", args).values()) == {"agent"}


def test_a_date_a_stated_duration_from_a_stated_date_is_computed() -> None:
    assert source(["from April 10 for two weeks"], "t", {"end_date": "2025-04-24"}) == {
        "end_date": "computed"
    }
    assert source(["Aug 20, five days"], "t", {"end_date": "2025-08-24"}) == {"end_date": "computed"}
    assert source(["from April 10 for two weeks"], "t", {"end_date": "2025-04-27"}) == {"end_date": "agent"}


def test_a_date_a_policy_duration_from_a_stated_date_is_computed_and_only_that_duration() -> None:
    """The system prompt's durations put days between dates too (grounding blind set 3: a refill ready
    2 days after today, a fine due 21 days after its issue date) — exactly: not one less, as a user's
    `5 days` counting the first may be."""
    ev = Evidence(system=["Refills are ready no earlier than 2 days after the request."], today=TODAY)
    ev.add_user(1, "refill my prescription as soon as possible")
    assert {p.path: p.source for p in ev.provenance("refill", {"pickup_date": "2025-03-16"})} == {
        "pickup_date": "computed"
    }
    assert {p.path: p.source for p in ev.provenance("refill", {"pickup_date": "2025-03-15"})} == {
        "pickup_date": "agent"
    }


def test_conversations_with_one_system_prompt_share_only_what_the_prompt_says() -> None:
    """An agent's prompt is read once for all of its conversations (`_prompted`): what one conversation's
    user, results and replies state grounds nothing in the next, and the prompt's own facts, durations and
    numbers ground each of them."""
    prompt = ["Refunds for order ORD-31415 are paid 2 days after the return. A flat fee of $4.95 applies."]
    first = Evidence(system=prompt, today=TODAY)
    first.add_user(
        1, "booking ZX9K2P to 2025-03-20 please; call 415 555 0132; I have 200 points and a 12.50 voucher"
    )
    first.add_call(2, "get_booking", {"booking_id": "ZX9K2P"}, {"seat": "14C", "fare": 212.5}, False, False)
    first.unsupported("Done: your seat is 14C and the fare is $212.50.", ["get_booking"])
    assert {p.path: p.source for p in first.provenance("t", {"id": "ZX9K2P", "seat": "14C"})} == {
        "id": "user",
        "seat": "tool_result",
    }
    second = Evidence(system=prompt, today=TODAY)
    second.add_user(1, "a refund for my return of 2025-03-20, please")
    got = second.provenance(
        "t",
        {"id": "ZX9K2P", "seat": "14C", "phone": "+14155550132", "order": "ORD-31415", "paid": "2025-03-22"},
    )
    assert {p.path: p.source for p in got} == {
        "id": "agent", "seat": "agent", "phone": "agent", "order": "system", "paid": "computed",
    }  # fmt: skip
    assert [c.text for c in second.unsupported("The fare is $212.50, plus the $4.95 fee.", [])] == ["$212.50"]


def _mutable_parts(value: object, out: set[int], seen: set[int]) -> None:
    """The ids of every container and mutable dataclass in `value`, however deep."""
    if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None), frozenset)):
        return
    seen.add(id(value))
    is_data = dataclasses.is_dataclass(value) and not isinstance(value, type)
    if isinstance(value, (list, dict, set)) or (is_data and not type(value).__dataclass_params__.frozen):  # type: ignore[attr-defined]
        out.add(id(value))
    if isinstance(value, dict):
        children: Iterable[object] = value.values()
    elif isinstance(value, (list, tuple, set)):
        children = value
    elif is_data:
        children = [getattr(value, f.name) for f in dataclasses.fields(value)]  # type: ignore[arg-type]
    else:
        children = ()
    for child in children:
        _mutable_parts(child, out, seen)


def test_a_conversation_starts_from_the_prompt_alone_and_shares_nothing_that_changes() -> None:
    """The prompt's template (`_prompted`) is copied, not shared: after a whole conversation has grown its
    evidence (user facts, a result, a reply's look-alike, slips), a new conversation with the same prompt
    starts exactly where one built from an empty cache does, and no list, dict, set or mutable record is
    shared between the template, the first conversation and the second."""
    prompt = [
        "Refunds for order ORD-31415 are paid 2 days after the return; repairs take 3 working days. Times are "
        "Europe/London. Billed on the 1st of each month. A flat fee of $4.95 applies; tax 10%."
    ]

    def state(e: Evidence) -> dict[str, object]:
        return {k: v for k, v in vars(e).items() if k != "_airports"}

    evidence_module._prompted.cache_clear()
    fresh = state(Evidence(system=prompt, today=TODAY))
    first = Evidence(system=prompt, today=TODAY)
    first.add_user(
        1, "order ORD-31415, booking ZX9K2P, any day next week, 3 nights, $4.95 and 10%; call 415 555 0132"
    )
    first.provenance("get_booking", {"booking_id": "ZX9K2P", "order": "ORD-31415"})
    result = {"seat": "14C", "fare": 212.5, "tax": 4.95, "day": "Wednesday", "check_in": "2025-03-20",
              "check_out": "2025-03-23", "prices": [1.5, 2.5]}  # fmt: skip
    first.add_call(2, "get_booking", {"booking_id": "ZX9K2P"}, result, False, False)
    first.unsupported(
        "Your fare of $212.50 plus $4.95 is ready 2 days after 2025-03-20, seat 14C, ZX9K2Q.", ["x"]
    )
    first.provenance("x", {"id": "ZX9K2Q", "code": "JFK"})
    second = Evidence(system=prompt, today=TODAY)
    assert state(second) == fresh
    parts: list[set[int]] = []
    for fields in (vars(evidence_module._prompted(TODAY, tuple(prompt))), state(first), state(second)):
        found: set[int] = set()
        _mutable_parts(fields, found, set())
        parts.append(found - {id(fields)})
    template, one, two = parts
    assert not (two & template) and not (two & one) and not (one & template)


@pytest.mark.parametrize(
    "said",
    [
        "we get back on the 14th, could someone come the next morning?",  # grounding blind set 11
        "on the 14th, and the following evening too",
    ],
)
def test_a_day_next_to_a_stated_one_is_computed_when_the_user_puts_it_there(said: str) -> None:
    got = source([said], "t", {"first": "2025-03-14", "next": "2025-03-15"})
    assert got == {"first": "user", "next": "computed"}
    assert source(["on the 14th, please"], "t", {"next": "2025-03-15"}) == {"next": "agent"}


def test_the_weekend_of_a_friday_is_the_saturday_and_sunday_after_it() -> None:
    """`the weekend of the 14th`, the 14th a Friday (the second review)."""
    got = source(["a balloon ride the weekend of the 14th"], "t", {"sat": "2025-03-15", "sun": "2025-03-16"})
    assert got == {"sat": "computed", "sun": "computed"}


@pytest.mark.parametrize("said", ["a balloon ride the weekend of the 15th", "周末，15号"])
def test_a_weekend_said_makes_its_saturday_and_sunday_each_others(said: str) -> None:
    """`the weekend of the 14th` (grounding blind set 11: a search from Saturday to Sunday); not a day
    either side of every stated date (`I work weekends. Book me for the 19th`: not the 18th or 20th)."""
    got = source([said], "t", {"saturday": "2025-03-15", "sunday": "2025-03-16"})
    assert got == {"saturday": "user", "sunday": "computed"}
    assert source([said], "t", {"friday": "2025-03-14"}) != {"friday": "computed"}
    got = source(["I work weekends. Book me for the 19th"], "t", {"a": "2025-03-18", "b": "2025-03-20"})
    assert got == {"a": "agent", "b": "agent"}


def test_working_days_a_policy_says_skip_the_weekend_and_nothing_else() -> None:
    """`ready 2 working days after drop-off` (grounding blind sets 10 and 12): from Friday the 14th that is
    Tuesday the 18th — not the 16th (a Sunday), not the 17th or 19th; from today with no weekend between,
    two days on."""
    ev = Evidence(system=["Express is ready 2 working days after drop-off."], today=TODAY)
    ev.add_user(1, "I'll drop them off today, express please")
    sources = {p.path: p.source for p in ev.provenance("t", {"a": "2025-03-18", "b": "2025-03-17"})}
    assert sources == {"a": "computed", "b": "agent"}
    assert [p.source for p in ev.provenance("t", {"c": "2025-03-16"})] == ["agent"]
    ev = Evidence(system=["Express is ready 2 working days after drop-off."], today="2025-06-23")  # a Monday
    ev.add_user(1, "I can bring it in tomorrow")
    assert [p.source for p in ev.provenance("t", {"ready": "2025-06-26"})] == ["computed"]
    assert [p.source for p in ev.provenance("t", {"ready": "2025-06-27"})] == ["agent"]  # set 10's error


def test_working_days_land_on_a_working_day() -> None:
    """Two working days after Thursday the 13th is Monday the 17th, not the weekend between (review);
    after a Saturday drop-off, Tuesday."""
    ev = Evidence(system=["Express is ready 2 working days after drop-off."], today=TODAY)
    ev.add_user(1, "I dropped them off on March 13")
    got = {
        p.path: p.source
        for p in ev.provenance("t", {"a": "2025-03-15", "b": "2025-03-16", "c": "2025-03-17"})
    }
    assert got == {"a": "agent", "b": "agent", "c": "computed"}
    ev = Evidence(system=["Express is ready 2 working days after drop-off."], today=TODAY)
    ev.add_user(1, "I'll drop them off on Saturday March 15")
    assert [p.source for p in ev.provenance("t", {"ready": "2025-03-18"})] == ["computed"]


def test_working_days_run_the_way_the_policy_says() -> None:
    """After drop-off, the days run forward from a stated date only: two working days before a stated
    Tuesday the 25th is no ready date (grounding blind set 14's planted `Friday 10 July`, a week before the
    stated completion date, passed when they ran both ways). Before an appointment, they run back."""
    ev = Evidence(system=["Express is ready 2 working days after drop-off."], today=TODAY)
    ev.add_user(1, "the wedding is on March 25")
    assert [p.source for p in ev.provenance("t", {"ready": "2025-03-21"})] == ["agent"]
    ev = Evidence(system=["Cancel at least 2 working days before your appointment."], today=TODAY)
    ev.add_user(1, "my appointment is on March 20")
    assert [p.source for p in ev.provenance("t", {"cancel_by": "2025-03-18"})] == ["computed"]
    assert [p.source for p in ev.provenance("t", {"cancel_by": "2025-03-24"})] == ["agent"]


def _claims_under(policy: str, said: str, reply: str) -> list[str]:
    ev = Evidence(system=[policy], today=TODAY)
    ev.add_user(1, said)
    return [c.what + ": " + c.text for c in ev.unsupported(reply, ["create_order"])]


def test_working_days_a_policy_says_in_any_form_count_for_a_reply_that_says_them_too() -> None:
    """`Express (3 working days)`, `within 5 to 7 business days` (grounding blind set 25): the date they
    put after a stated one is worked out when the reply says that duration itself; a reply that only
    names a date a week on is not backed by a refund policy it never mentions (tau-bench's `5 to 7
    business days` would put every date a week from a stated one next to it)."""
    express = "Standard turnaround: 7 working days from drop-off; express (3 working days) +£25."
    said = "I'll drop the ring off today"  # Friday 14 March
    assert _claims_under(express, said, "Express takes 3 working days: ready Wednesday 19 March.") == []
    assert _claims_under(express, said, "Express is £25 more and ready Wednesday 19 March.") == [
        "fact: 19 March"
    ]
    refunds = "Refunds go back to the original card within 5 to 7 business days."
    cancelled = "Please cancel my order, it was placed today"
    window = "Refunds take 5 to 7 business days, so expect it between Friday 21 and Tuesday 25 March."
    assert _claims_under(refunds, cancelled, window) == []
    assert _claims_under(refunds, cancelled, "Your order is cancelled; the refund lands on 21 March.") == [
        "fact: 21 March"
    ]
    assert _claims_under(refunds, cancelled, "Refunds take 5 to 7 business days: by 26 March.") == [
        "fact: 26 March"
    ]
    # the duration counts in the sentence that says it only (review)
    apart = "Refunds take 5 to 7 business days. Your order is cancelled; you'll see it on 21 March."
    assert _claims_under(refunds, cancelled, apart) == ["fact: 21 March"]
    words = "Refunds go back within three to five business days."
    assert _claims_under(words, cancelled, "Refunds take 3 to 5 business days: by Wednesday 19 March.") == []


def test_calendar_days_before_a_stated_date_are_days_before_it() -> None:
    """`Enrolment closes 5 calendar days before a term starts` (grounding blind set 25)."""
    policy = "Enrolment closes 5 calendar days before a term starts."
    said = "The spring term starts on Monday 24 March, right?"
    assert _claims_under(policy, said, "Yes, and enrolment closes on Wednesday 19 March.") == []
    assert _claims_under(policy, said, "Yes, and enrolment closes on Thursday 20 March.") == [
        "fact: 20 March"
    ]


def test_a_policys_days_or_more_before_a_date_put_that_many_days_before_it() -> None:
    """`full refund 30 or more days before arrival`, `14 days or more before` (grounding blind set 27): the
    last day of a full refund, 30 days before a stated arrival, is worked out; a day after it is not."""
    for policy in (
        "Cancellation: full refund 30 or more days before arrival.",
        "Full refund 30 days or more before.",
    ):
        said = "We arrive on August 8, what if we cancel?"
        assert _claims_under(policy, said, "Cancel by July 9 and you get it all back.") == []
        assert _claims_under(policy, said, "Cancel by July 10 and you get it all back.") == ["fact: July 10"]
    # a length, not a time before a date (review): `7 days or more` of a hire puts no week after the start
    hire = "Hires of 7 days or more from the Leeds depot include free delivery."
    assert _claims_under(hire, "I need it from 12 May", "So from 12 May, with delivery on 19 May.") == [
        "fact: 19 May"
    ]


def test_free_cancellation_up_to_a_time_on_the_day_before_a_booking_is_its_deadline() -> None:
    """`Cancellations 24 hours or more before the start: full refund` and a booking at 16:00 on Thursday 6
    March (grounding blind set 29): `Free cancellation up to 16:00 on Wednesday 5 March` is its deadline;
    the same day with another time is not."""
    ev = Evidence(
        system=["Cancellations 24 hours or more before the start: full refund."], today="2025-03-04"
    )
    ev.add_user(1, "Can I book a bay Thursday 4pm till 6pm?")
    booking = {"date": "2025-03-06", "start_time": "16:00", "duration_mins": 120}
    ev.add_call(2, "create_booking", booking, {"booking_ref": "SR-250306-214"}, failed=False, tainted=False)
    assert (
        ev.unsupported("Booked, SR-250306-214. Free cancellation up to 16:00 on Wednesday 5 March.", []) == []
    )
    wrong = ev.unsupported("Booked, SR-250306-214. Free cancellation up to 18:00 on Wednesday 5 March.", [])
    assert [c.text for c in wrong] == ["5 March"]
    # `up to` before a count or an amount is no deadline's (review): the wrong day of a booking still fails
    for reply in (
        "Booked, SR-250306-214: a bay for up to 4 players on Wednesday 5 March, 16:00 to 18:00.",
        "Booked SR-250306-214. Save up to 20% on Wednesday 5 March, 16:00 to 18:00.",
    ):
        assert [c.text for c in ev.unsupported(reply, [])] == ["5 March"]


def test_words_between_a_stated_value_and_another_qualify_the_stated_one() -> None:
    """`for a September 19 arrival the deadline is Friday, September 12` (grounding blind set 28): `arrival`
    names the September 19 the reply states right before the deadline, not the deadline; a reply that
    gives the arrival as September 12 is still contradicted by the result's `arrival`."""
    ev = Evidence(
        system=["Meal orders must be placed at least 7 days before the arrival date."], today="2025-09-08"
    )
    ev.add_user(1, "We're at Rockwall, booking RW-3318. Can we still order meals?")
    booking = {"booking_code": "RW-3318", "arrival": "2025-09-19", "departure": "2025-09-21"}
    ev.add_call(2, "get_hut_booking", {"booking_code": "RW-3318"}, booking, failed=False, tainted=False)
    deadline = "Yes! Orders need to be in 7 days ahead, so for a September 19 arrival the deadline is Friday, September 12."
    assert ev.unsupported(deadline, []) == []
    [wrong] = ev.unsupported("Yes, your arrival is Friday, September 12, so there is time.", [])
    assert "gives arrival '2025-09-19'" in wrong.detail
    # only in the same part of the clause (review): a recap's right date before a wrong one helps nothing
    recap = "I found RW-3318 for September 19. To confirm, your arrival is September 20."
    assert [c.text for c in ev.unsupported(recap, [])] == ["September 20"]
    hotel = {"booking_code": "HB-5512", "check_in": "2025-09-19", "check_out": "2025-09-22"}
    ev.add_call(3, "get_hotel_booking", {"booking_code": "HB-5512"}, hotel, failed=False, tainted=False)
    lands = "Your flight lands September 19, and your hotel check-in is September 20."
    [wrong] = ev.unsupported(lands, [])
    assert "gives check_in '2025-09-19'" in wrong.detail


def test_whole_days_said_in_hours_put_days_between_dates_from_two_days_up() -> None:
    """`48 hours` from a deadline, `at least 72 hours before` a start (grounding blind set 4); not `24
    hours`, which in every cancellation policy would put each one-day slip next to a stated date."""
    assert source(["deadline is May 18; extend it by 48 hours"], "t", {"new": "2025-05-20"}) == {
        "new": "computed"
    }
    ev = Evidence(system=["Signs must be posted at least 72 hours before the permit starts."], today=TODAY)
    ev.add_user(1, "the permit is for June 5")
    assert [p.source for p in ev.provenance("t", {"post_by": "2025-06-02"})] == ["computed"]
    assert [p.source for p in ev.provenance("t", {"post_by": "2025-06-01"})] == ["agent"]
    ev = Evidence(system=["Cancellations less than 24 hours before the start incur a fee."], today=TODAY)
    ev.add_user(1, "book me on March 20")
    assert [p.source for p in ev.provenance("t", {"date": "2025-03-21"})] == ["agent"]


def test_an_id_with_the_prefix_the_prompt_declares_is_the_users_digits() -> None:
    """`member 38204` sent as `MBR-38204` where the prompt says `MBR- followed by 5 digits` (blind set 4);
    not another prefix, not other digits, and not without the prompt saying so."""
    ev = Evidence(system=["Member IDs have the format MBR- followed by 5 digits."], today=TODAY)
    ev.add_user(1, "cancel my class tonight, member 38204")
    found = {
        p.path: p.source for p in ev.provenance("t", {"a": "MBR-38204", "b": "MBX-38204", "c": "MBR-38240"})
    }
    assert found == {"a": "user", "b": "agent", "c": "agent"}
    assert source(["cancel my class tonight, member 38204"], "t", {"a": "MBR-38204"}) == {"a": "agent"}


def test_a_reply_in_the_local_forms_of_its_language_says_what_the_results_say() -> None:
    """Set 5: `às 9h30` is the result's `09:30`; `der 14.11.` a day and month, not the number 14.11; `12 元×3`
    a multiplier, no id `x3`. A day the results do not give still fails beside a stated one."""
    ev = Evidence(today="2025-10-15")
    ev.add_user(1, "quando?")
    result = {"slots": ["09:30", "11:00"], "dates": ["2025-10-31", "2025-11-14"], "price": 12, "total": 36}
    ev.add_call(2, "find_slots", {"post": "SAO"}, result, failed=False, tainted=False)
    assert ev.unsupported("Há vagas às 9h30 e às 11h00.", ["find_slots"]) == []
    assert ev.unsupported("Danach folgen der 31.10. und der 14.11.", ["find_slots"]) == []
    assert ev.unsupported("衬衫水洗 12 元×3 = 36 元。", ["find_slots"]) == []
    assert [c.text for c in ev.unsupported("Danach folgt der 15.11.", ["find_slots"])] == ["15.11"]
    # only the day-month itself is no number: a count beside it whose digits it holds still is one
    assert [c.text for c in ev.unsupported("Am Freitag, 14.11., sind 11 Plätze frei.", ["find_slots"])] == [
        "11"
    ]


def test_what_only_looks_like_a_stated_value_grounds_nothing() -> None:
    """The review's cases: a duration's number is no amount (`45 minutes`, `within 30 days`), a one-letter
    or zero-led prefix is no declared id, a number that names a thing (2号航站楼) is no date, a count of
    people after a date is no day."""
    ev = Evidence(system=["Refunds are paid within 30 days. You are a helpful assistant."], today=TODAY)
    ev.add_user(1, "the delivery took 45 minutes; my member number is 38204; it took 42 minutes")
    args = {"credit": 45, "refund": 30, "member": "A38204", "order": "ORD-0042"}
    found = {p.path: p.source for p in ev.provenance("t", args)}
    assert found == {"credit": "agent", "refund": "agent", "member": "agent", "order": "agent"}
    assert source(["我在2号航站楼"], "t", {"date": "2025-04-02"}) == {"date": "agent"}
    assert source(["can we do June 5, 8 to 10 of us"], "t", {"date": "2025-06-10"}) == {"date": "agent"}


def test_a_reply_may_say_a_utc_time_in_the_local_time_the_prompt_asks_for() -> None:
    """A result's `14:05:00Z` told as `15:05` where the prompt says `UTC+1` (blind set 4); `16:05` is not."""
    ev = Evidence(system=["Times in tool results are UTC; tell customers UK local time (BST, UTC+1)."])
    ev.add_user(1, "where is my parcel?")
    ev.add_call(2, "track", {"id": "SB1"}, {"deadline": "2025-05-18T14:05:00Z"}, failed=False, tainted=False)
    assert ev.unsupported("Pick it up by 18 May at 15:05.", ["track"]) == []
    assert [c.text for c in ev.unsupported("Pick it up by 18 May at 16:05.", ["track"])] == ["16:05"]
    ev = Evidence(system=["Business hours are 09:00-17:00 UTC, 7 days a week."])  # `,` is no sign
    ev.add_user(1, "when does it leave?")
    ev.add_call(
        2, "get_train", {"id": "G1"}, {"departs": "2025-05-18T14:05:00Z"}, failed=False, tainted=False
    )
    assert [c.text for c in ev.unsupported("It departs at 21:05.", ["get_train"])] == ["21:05"]


def test_a_frequency_or_opening_time_in_the_system_prompt_puts_no_days_between_dates() -> None:
    for policy in (
        "Our clinic is open 7 days a week.",
        "Support is available 24 hours a day.",
        "Loans last a week.",
    ):
        ev = Evidence(system=[policy], today=TODAY)
        ev.add_user(1, "book me on March 20")
        assert [p.source for p in ev.provenance("book", {"date": "2025-03-27"})] == ["agent"]


def test_a_german_weekday_is_the_users_date() -> None:
    assert source(["Ich brauche am Freitag einen Raum"], "t", {"date": "2025-03-21"}) == {"date": "user"}
    assert source(["nächsten Dienstag bitte"], "t", {"date": "2025-03-18"}) == {"date": "user"}
    assert source(["Guy Montag calling about my order"], "t", {"date": "2025-03-17"}) == {"date": "agent"}


@pytest.mark.parametrize(
    ("said", "args"),
    [
        ("I need fİve seats", {"seats": 5}),  # a dotted capital I, as a Turkish keyboard writes it
        ("book it for fıve nights from the 3rd", {"nights": 5}),  # a dotless i
        ("twenty-fıve of them", {"quantity": 25}),
        ("on Frİday please", {"date": "2025-03-21"}),
        ("am Mİttwoch", {"date": "2025-03-19"}),
        ("half past fİve", {"time": "17:30"}),
    ],
)
def test_a_users_words_with_turkish_is_are_read_as_re_reads_them_not_crashed_on(
    said: str, args: dict[str, Any]
) -> None:
    """`re`'s IGNORECASE takes `İ` and `ı` for `i`: the words match, and their table look-ups must too
    (they raised KeyError and ValueError, and the conversation went unscored)."""
    assert set(source([said], "t", args).values()) == {"user"}


def test_an_integer_id_in_a_result_grounds_the_same_id_sent_as_a_string() -> None:
    got = source(["cancel my last order"], "cancel_order", {"order_id": "88231"},
                 [("list_orders", {}, {"orders": [{"order_id": 88231}]})])  # fmt: skip
    assert got == {"order_id": "tool_result"}


@pytest.mark.parametrize(
    ("said", "args"),
    [
        ("reservation ZFA04Y please", {"reservation_id": "ZFA04X"}),  # one character off
        ("my user id is mia_li_3668", {"user_id": "mia_li_3669"}),
        ("call me at (415) 555-0132", {"phone": "+14155550133"}),
        ("can I come in tomorrow?", {"date": "2025-03-16"}),  # a day off
        ("Guten Morgen, ich brauche einen Termin", {"date": "2025-03-15"}),  # `Morgen`: the morning
        ("heute morgen habe ich angerufen", {"date": "2025-03-15"}),  # this morning
        ("Hier ist meine Kundennummer", {"date": "2025-03-13"}),  # German `hier`: here
        ("I'd like to book a table in May", {"date": "2025-05-31"}),  # a table runs over no month
        ("Call me on 06 12 90 54 33", {"size": "90x54mm"}),
        ("Mon numéro : 07 81 55 32 09", {"contact_phone": "+447781553209"}),  # another number
        ("por la mañana, por favor", {"date": "2025-03-15"}),
        ("名片，90×55的尺寸", {"size": "90x54mm"}),
        ("Mondays please", {"weekdays": ["TUE"]}),
        ("can we join the Monday group", {"weekdays": ["THU"]}),  # `join` holds no Romanian `joi`
        ("Hi, I'm Martin, set my weekly class", {"weekdays": ["TUE"]}),  # nor `Martin` a Romanian `marți`
        ("por la manana, por favor", {"date": "2025-03-15"}),  # `mañana` typed without its tilde
        ("I'm in Portland, Maine", {"date": "2025-03-15"}),  # no Romanian `mâine` without its accent
        ("minggu depan saja", {"date": "2025-03-16"}),  # Indonesian `minggu`: a week, not Sunday here
        ("we are 9 to 11 people", {"start_time": "09:00"}),
        ("the November pass", {"start_date": "2025-11-15"}),  # a month grounds its first and last days
        ("on June 5th", {"date": "2025-06-01"}),  # and none of a month with its day said
    ],
)
def test_a_look_alike_is_the_agents_own(said: str, args: dict[str, Any]) -> None:
    assert set(source([said], "t", args).values()) == {"agent"}


def test_a_long_result_makes_no_amount_computable() -> None:
    """500 prices: any sum is some difference of two of them, so none of them combine (review, 4)."""
    flights = {"flights": [{"price": 100 + 7 * i} for i in range(500)]}
    assert source(["refund me"], "refund", {"amount": 123456.78}, [("search", {}, flights)]) == {
        "amount": "agent"
    }
    assert source(["refund me"], "refund", {"amount": 2177}, [("search", {}, flights)]) == {"amount": "agent"}


def test_computed_amounts_of_a_small_result() -> None:
    quote = {"daily": 52.0, "days": 3, "base_total": 156.0, "taxes": 24.18}
    assert source(["quote me"], "pay", {"amount": 180.18}, [("get_quote", {}, quote)]) == {
        "amount": "computed"
    }
    assert computable(56 * 4, set(), [], scaled={56.0})  # $56 a day, four days
    assert not computable(152, {150.0, 2.0}, [])  # an amount and a count add up to nothing


def evidence_after(steps: list[tuple[str, Any]]) -> Evidence:
    """The evidence of these steps: `("user", text)`, or `("call", (tool, args, result, failed))`."""
    ev = Evidence(today=TODAY)
    for i, (kind, what) in enumerate(steps, start=1):
        if kind == "user":
            ev.add_user(i, what)
        else:
            name, args, result, failed = what
            ev.add_call(i, name, args, result, failed=failed, tainted=False, error="Error" if failed else "")
    return ev


def reply_claims(steps: list[tuple[str, Any]], reply: str, tools: Sequence[str] = ()) -> list[str]:
    tools = tools or ["cancel_reservation", "book_reservation", "get_reservation"]
    return [c.what + ": " + c.text for c in evidence_after(steps).unsupported(reply, tools)]


def passed_over(steps: list[tuple[str, Any]], reply: str, tools: Sequence[str]) -> list[Any]:
    """The claims of a failure the reply passes over (`_unreported_failure`), with whether each is unsure."""
    return [c for c in evidence_after(steps).unsupported(reply, tools) if c.kind == "passed_over"]


def done_of(claims: list[str]) -> list[str]:
    """The done-claims among `reply_claims`."""
    return [c for c in claims if c.startswith("done: ")]


def test_a_booking_confirmation_names_the_id_the_result_gave() -> None:
    steps = [("user", "book HAT001 on 2025-05-17"),
             ("call", ("book_reservation", {"flight": "HAT001"}, {"reservation_id": "ZX9Q2L"}, False))]  # fmt: skip
    assert reply_claims(steps, "Reservation ZX9Q2L has been booked.") == []


def test_a_claim_after_a_failed_call_or_no_call_is_unsupported() -> None:
    failed = [("user", "cancel ABC123"), ("call", ("cancel_reservation", {"id": "ABC123"}, None, True))]
    assert reply_claims(failed, "I've cancelled reservation ABC123.") == [
        "done: I've cancelled reservation ABC123."
    ]
    assert reply_claims([("user", "cancel ABC123")], "Your reservation has been cancelled.") != []


def test_an_opener_that_says_done_needs_a_tool_that_acts_and_a_lookup_named_by_its_object_is_none() -> None:
    """`Done!` with nothing done since the user's request is unsupported when the agent has a tool that
    acts; `order_status` and `enrollment_status` name an action's object, not the action (`may_act`), so an
    agent with only those has nothing it could have done."""
    asked = [("user", "Can you cancel order 5521 please?")]
    reply = "Done! Order 5521 shipped yesterday, so it can no longer be changed."
    assert reply_claims(asked, reply, ["cancel_order", "order_status"]) == ["done: Done!"]
    assert reply_claims(asked, reply, ["order_status", "enrollment_status"]) == []
    # a verb that opens the name and the thing it sets before the word (review): `update_contact_details`
    # acts, so "Done!" with no call of it since the request is unsupported
    email = [("user", "Please change my email to a@b.com")]
    assert reply_claims(email, "Done! Your email is now a@b.com.", ["update_contact_details"]) == [
        "done: Done!"
    ]


def test_a_reply_that_gives_a_failed_calls_values_and_says_nothing_of_the_failure_is_unsupported() -> None:
    """The first reply after a call that acts failed, with no later call of that tool that did it, which gives
    the call's own values and says nothing of the failure: its outcome presented as done, whatever the words
    (`a sua estadia PL-7734 vai até domingo` is no claim the reply's wording is read for; grounding
    blind sets 14, 26, 29: `your homestay is extended until Sunday 30 August` after an error)."""
    tools = ["get_placement", "extend_placement"]
    failed = [("user", "Can I stay two more weeks, until 30 August?"),
              ("call", ("extend_placement", {"placement_id": "PL-7734", "until": "2026-08-30"}, None, True))]  # fmt: skip
    for reply, claimed, unsure in (
        ("안녕하세요. 숙박(PL-7734)이 연장되었습니다.", "숙박(PL-7734)", False),
        # no word that says it was done either (`vai até domingo`: runs until Sunday): for review, not failed
        ("Ótimas notícias: a sua estadia PL-7734 vai até domingo.", "Ótimas notícias", True),
    ):
        [claim] = passed_over(failed, reply, tools)
        assert claimed in claim.text and claim.unsure is unsure
    # said done in a sentence before the one that gives the value, or by a passive's auxiliary (`a été`, `foi`)
    for reply in (
        "Great news — that's confirmed! Stay PL-7734: the Walsh family.",
        "Le paiement du séjour PL-7734 a bien été effectué.",
    ):
        [claim] = passed_over(failed, reply, tools)
        assert not claim.unsure
    # in English the claim's words are read already (`is extended`): that rule's claim is the reply's one
    assert done_of(
        reply_claims(failed, "Good news! Your homestay is extended until Sunday 30 August.", tools)
    )
    # it says so (a negation, a regret, a question), in the languages read: no claim
    for reply in (
        "Unfortunately the Walsh family is away from 23 August, so I couldn't extend it to 30 August.",
        "Leider ist die Familie ab dem 23. August verreist; eine Verlängerung bis zum 30. August geht nicht.",
        "很抱歉，寄宿家庭8月23日起不在，无法延长到8月30日。",
        "Shall I look for another host until 30 August?",
        # τ-bench: a booking refused for its payment, the next reply a new breakdown, or the retry announced
        "The stay until 30 August is £420. Please confirm if you would like to proceed with this payment.",
        "It seems there was an oversight: the total until 30 August is £420. I will proceed with that amount.",
    ):
        assert done_of(reply_claims(failed, reply, tools)) == []
    # a reply that gives none of the call's values speaks of something else
    assert done_of(reply_claims(failed, "Your course runs on as planned.", tools)) == []
    # a closing courtesy neither says so nor asks (review): the claim before it stands
    closing = "숙박(PL-7734)이 연장되었습니다. Let me know if you need anything else!"
    assert done_of(reply_claims(failed, closing, tools)) != []
    # a later call that acted and carried the value did it: the same call retried, or another tool (review)
    done = {"placement_id": "PL-7734", "until": "2026-08-30"}
    for tool, args, reply in (
        ("extend_placement", done, "Your homestay is extended until Sunday 30 August."),
        ("create_placement", {"until": "2026-08-30"}, "I've found you the Brown family until 30 August."),
    ):
        recovered = [*failed, ("call", (tool, args, {"ok": 1}, False))]
        assert done_of(reply_claims(recovered, reply, [*tools, "create_placement"])) == []


def test_a_second_review_of_a_failure_the_reply_passes_over() -> None:
    """Failure words the lists lacked (`tried`, `invalid`, `ungültig`, 期限切れ); a courtesy read without its
    courtesy words, not dropped (`Sorry, …, but let me know …` says so; `… - enjoy the extra two weeks!`
    still claims); a part's status is no undoing of a call whose name says no action; a number a later call
    carried as a string."""
    tools = ["extend_placement", "apply_promo_code", "renew_membership", "issue_refund", "issue_store_credit"]
    failed = [("user", "Can I stay until 30 August?"),
              ("call", ("extend_placement", {"placement_id": "PL-7734", "until": "2026-08-30"}, None, True))]  # fmt: skip
    for reply in (
        "I tried to extend PL-7734 to 30 August, but the host family is away from 23 August.",
        "Your placement PL-7734 ends on 16 August. Sorry, the host is away after that, but let me know if "
        "you'd like a different host.",
    ):
        assert passed_over(failed, reply, tools) == []
    [claim] = passed_over(
        failed, "Your stay PL-7734 now runs until 30 August - enjoy the extra two weeks!", tools
    )
    assert not claim.unsure
    promo = [("user", "Use SAVE20 on #W123"),
             ("call", ("apply_promo_code", {"order_id": "#W123", "code": "SAVE20"}, None, True))]  # fmt: skip
    for reply in (
        "The code SAVE20 is invalid for order #W123.",
        "Der Code SAVE20 ist ungültig.",
        "SAVE20は期限切れです。",
    ):
        assert passed_over(promo, reply, tools) == []
    renewed = [("user", "Renew M-12 please"),
               ("call", ("renew_membership", {"membership_id": "M-12"},
                         {"status": "renewed", "reminder_sms_status": "not_sent"}, False))]  # fmt: skip
    assert passed_over(renewed, "Membership M-12 is renewed until March 2026.", tools) == []
    credit = [("user", "Refund me $45.50"),
              ("call", ("issue_refund", {"amount": 45.5}, None, True)),
              ("call", ("issue_store_credit", {"amount": "45.50"}, {"ok": True}, False))]  # fmt: skip
    assert passed_over(credit, "You'll receive $45.50 as store credit, done.", tools) == []


def test_a_third_review_of_a_failure_the_reply_passes_over() -> None:
    """An error that says it was done already; a done word in an explanation (`I've checked`, `your booked
    stay`, the infinitive `annuler`) is no claim; a value an earlier call that acted set; a bank's approval
    step; a stop-gap reply (`One moment, please.`) leaves the failure to the next reply."""
    tools = ["cancel_reservation", "extend_placement", "update_email", "send_confirmation", "pay_invoice"]
    already = [("user", "Cancel ABC123"),
               ("call", ("cancel_reservation", {"reservation_id": "ABC123"},
                         {"error": "Reservation ABC123 is already cancelled"}, True))]  # fmt: skip
    assert passed_over(already, "Reservation ABC123 was already cancelled on 2 March.", tools) == []
    failed = [("user", "Can I stay until 30 August?"),
              ("call", ("extend_placement", {"placement_id": "PL-7734", "until": "2026-08-30"}, None, True))]  # fmt: skip
    for reply in (
        "I've checked with the host: the Walsh family is away from 23 August, so PL-7734 ends on 22 August.",
        "Your booked stay PL-7734 ends on 16 August, as the host has other guests.",
        "Pour prolonger le séjour PL-7734, il faut contacter directement la famille.",
    ):
        assert all(c.unsure for c in passed_over(failed, reply, tools))
    email = [("user", "New email ana@example.com, and send me the confirmation"),
             ("call", ("update_email", {"email": "ana@example.com"}, {"ok": True}, False)),
             ("call", ("send_confirmation", {"to": "ana@example.com"}, None, True))]  # fmt: skip
    assert passed_over(email, "I've updated your email to ana@example.com.", tools) == []
    bank = [("user", "Pay INV-88"),
            ("call", ("pay_invoice", {"invoice": "INV-88", "amount": 120}, {"status": "requires_action"}, False))]  # fmt: skip
    reply = "I've sent a $120 payment request for INV-88 to your bank app - approve it there to finish."
    assert passed_over(bank, reply, tools) == []
    ev = evidence_after(failed)
    assert ev.unsupported("One moment, please.", tools) == []
    [claim] = [
        c for c in ev.unsupported("Your stay PL-7734 is extended to 30 August.", tools) if c.what == "done"
    ]
    assert not claim.unsure


def test_a_failure_the_reply_passes_over_is_read_value_by_value_and_in_more_languages() -> None:
    """Review of the rule above: a lone word or a count is said of too many things to tie a reply to the
    call; a refusal, an error and a need in other languages say so (a polite `bitte`, 请, ください is not:
    confirmations give instructions)."""
    tools = ["cancel_reservation", "get_reservation"]
    two = [("user", "Please cancel ABC123 and DEF456"),
           ("call", ("cancel_reservation", {"reservation_id": "ABC123"}, None, True)),
           ("call", ("cancel_reservation", {"reservation_id": "DEF456"}, {"status": "cancelled"}, False))]  # fmt: skip
    reply = "All done: reservations ABC123 and DEF456 are off your account."
    # the one recovery model: a later success of the tool recovers its failure, on another thing too (left)
    assert passed_over(two, reply, tools) == []
    bags = [("user", "Add 2 bags in economy to ZFA04Y"),
            ("call", ("update_bags", {"cabin": "economy", "passengers": 2}, None, True))]  # fmt: skip
    for reply in ("Economy fares on that route start at $120.", "I see 2 reservations on your profile."):
        assert done_of(reply_claims(bags, reply, ["update_bags"])) == []
    failed = [("user", "Can I stay until 30 August?"),
              ("call", ("extend_placement", {"placement_id": "PL-7734", "until": "2026-08-30"}, None, True))]  # fmt: skip
    for reply in (
        "La prolongation de PL-7734 jusqu'au 30 août a été refusée par la famille.",
        "Es imposible extender PL-7734 hasta el 30 de agosto.",
        "延长PL-7734到8月30日时系统出错了。",
        "Für die Verlängerung von PL-7734 brauche ich eine andere Karte.",
    ):
        assert done_of(reply_claims(failed, reply, ["extend_placement"])) == []


def test_a_result_that_says_the_call_was_not_done_is_a_failure_the_reply_must_report() -> None:
    """`"status": "waitlisted"`: the booking was not made; `You're in for Friday's firing (October 3)` gives
    the call's firing and says nothing of the waiting list (grounding blind set 18). The next reply, after the
    user's next message, answers that message, not the failure."""
    tools = ["check_firing_schedule", "book_firing"]
    steps = [("user", "Book me 3 half shelves in Friday's firing please"),
             ("call", ("book_firing", {"firing_id": "F-1003-C6", "date": "2025-10-03", "half_shelves": 3},
                       {"status": "waitlisted", "position": 2}, False))]  # fmt: skip
    reply = "You're in for Friday's cone 6 firing (October 3): 3 half shelves at $15 each."
    assert done_of(reply_claims(steps, reply, tools)) == [f"done: {reply}"]
    waiting = "You're number 2 on the waitlist for the October 3 firing."
    assert done_of(reply_claims(steps, waiting, tools)) == []
    later = [*steps, ("user", "What time should I drop them off?")]
    assert done_of(reply_claims(later, "Drop your 3 half shelves off by 6 pm on October 3.", tools)) == []


def test_a_claim_names_the_tools_that_could_have_done_it_not_a_lookup_named_by_its_object() -> None:
    """`order_status` orders nothing (`may_act`): a claim to have ordered, with no order placed, names
    `place_order` as the call missing."""
    ev = Evidence(today=TODAY)
    ev.add_user(1, "My parcel never came. Can you send another?")
    ev.add_call(2, "order_status", {"order_id": "5521"}, {"status": "lost"}, failed=False, tainted=False)
    [claim] = ev.unsupported("I've ordered a replacement for you.", ["order_status", "place_order"])
    assert claim.detail.endswith("no successful call of place_order precedes it")


def test_a_claim_needs_the_ids_of_its_own_clause_only() -> None:
    """`I reported E-40917 (ticket MT-57740), and the fare has been refunded`: the refund is of the ride,
    not of the bike the other clause names (grounding blind set 3)."""
    steps = [("user", "the bike E-40917 was dead"),
             ("call", ("report_issue", {"bike_id": "E-40917"}, {"ticket_id": "MT-57740"}, False)),
             ("call", ("refund_ride", {"ride_id": "RD-5120044"}, {"status": "refunded"}, False))]  # fmt: skip
    reply = "All done: I reported E-40917 (ticket MT-57740), and the fare has been refunded to your card."
    tools = ["report_issue", "refund_ride"]
    assert reply_claims(steps, reply, tools) == []
    assert reply_claims(steps[:2], reply, tools) != []  # no refund call: still unsupported
    looked_up = [("user", "cancel XYZ789"),
                 ("call", ("get_reservation", {"id": "XYZ789"}, {"id": "XYZ789"}, False)),
                 ("call", ("cancel_reservation", {"id": "ABC123"}, {"status": "cancelled"}, False))]  # fmt: skip
    assert reply_claims(looked_up, "I found reservation XYZ789, and it has been cancelled.") != []
    assert reply_claims(looked_up, "Reservation XYZ789: I've cancelled it for you.") != []
    booked = [
        ("user", "book UA123"),
        ("call", ("book_reservation", {"flight": "UA999"}, {"id": "ABC123"}, False)),
    ]
    reply = "I've reserved a seat on flight UA123, and your booking ABC123 is confirmed."
    assert reply_claims(booked, reply) != []  # the clause that says it books is the one with UA123
    cancelled = [("user", "cancel ABC123 and XYZ789"),
                 ("call", ("cancel_reservation", {"id": "ABC123"}, {"status": "cancelled"}, False))]  # fmt: skip
    assert reply_claims(cancelled, "Reservations ABC123 and XYZ789 have been cancelled.") != []
    assert reply_claims(cancelled, "I have cancelled ABC123, DEF456, and XYZ789.") != []  # a list: one clause
    both = [*cancelled, ("call", ("cancel_reservation", {"id": "DEF456"}, {"status": "cancelled"}, False))]
    assert reply_claims(both, "I have cancelled ABC123, DEF456, and XYZ789 as you have asked.") != []
    assert reply_claims(both, "I have cancelled ABC123, DEF456 and that is all.") == []
    two = {"message": "You have 2 reservations: ABC123 (Thu) and XYZ789 (Fri)"}
    listed = [("user", "cancel the Friday one"),
              ("call", ("get_reservations", {"user": "u1"}, two, False)),
              ("call", ("cancel_reservation", {"id": "ABC123"}, {"status": "cancelled"}, False))]  # fmt: skip
    assert reply_claims(listed, "I've cancelled reservation XYZ789.") != []  # no address: an object
    # `, and` before a clause with its own verb (grounding blind set 2, after set 6's `Done.` openers)
    paid = [
        ("user", "pay it and do the order"),
        (
            "call",
            ("pay_hold", {"hold_type": "library_fine"}, {"status": "paid", "receipt": "RC-77120"}, False),
        ),
        (
            "call",
            (
                "order_transcript",
                {"copies": 2},
                {"order_id": "TR-2025-04-1183", "status": "processing"},
                False,
            ),
        ),
    ]
    reply = (
        "Done. The $8.00 fine is paid (receipt RC-77120), and transcript order TR-2025-04-1183 is processing."
    )
    assert reply_claims(paid, reply, ["pay_hold", "order_transcript"]) == []
    unpaid = reply_claims([paid[0], paid[2]], reply, ["pay_hold", "order_transcript"])  # no payment
    assert [c for c in unpaid if c.startswith("done:")] != []


def test_a_claim_ends_where_and_then_begins_the_next_action() -> None:
    """`so I cancelled Monday's reservation first (8 credits refunded) and then booked Summit … —
    reservation RS-55391`: the booking's id is no id of the cancellation (blind set 4)."""
    steps = [("user", "move my room from Monday to Tuesday"),
             ("call", ("cancel_reservation", {"reservation_id": "RS-55120"}, {"status": "cancelled"}, False)),
             ("call", ("book_resource", {"date": "2026-06-02"}, {"reservation_id": "RS-55391"}, False))]  # fmt: skip
    reply = "Done: I cancelled Monday's reservation first and then booked Summit for Tuesday — reservation RS-55391."
    tools = ["cancel_reservation", "book_resource"]
    assert reply_claims(steps, reply, tools) == []
    assert reply_claims([steps[0], steps[2]], reply, tools) != []  # no cancellation: still unsupported
    # naming nothing after `and then`, the action is on the subject before it (τ-bench: no cancel call)
    upgraded = [("user", "upgrade XEHM4B, then cancel it"),
                ("call", ("update_reservation_flights", {"reservation_id": "XEHM4B"}, {"cabin": "economy"}, False))]  # fmt: skip
    reply = "Reservation XEHM4B was successfully upgraded to economy class and then canceled."
    assert reply_claims(upgraded, reply, ["update_reservation_flights", "cancel_reservation"]) != []


def test_a_hold_placed_after_the_call_failed_is_unsupported() -> None:
    """`placed` is an order's verb, and a hold's: `place_hold` does it (grounding blind set 3)."""
    steps = [("user", "put a hold on it"),
             ("call", ("place_hold", {"item_id": "I-720045"}, None, True))]  # fmt: skip
    assert reply_claims(steps, "Your hold has been placed for pickup at Harbor.", ["place_hold"]) != []


def test_a_state_a_lookup_showed_is_reported_not_claimed() -> None:
    steps = [("user", "what happened to ABC123?"),
             ("call", ("get_reservation", {"id": "ABC123"}, {"id": "ABC123", "status": "cancelled"}, False))]  # fmt: skip
    assert reply_claims(steps, "Reservation ABC123 has already been cancelled.") == []


def test_a_typed_value_fails_beside_a_stated_look_alike_and_is_only_uncertain_alone() -> None:
    """`$310` where `$300` was stated is a slip and fails, naming `300`; `$1,750` with nothing like it
    stated may be a computation no rule follows: uncertain (no claim), never a failure."""
    steps = [("user", "how much?"), ("call", ("get_reservation", {}, {"price": 300}, False))]
    ev = Evidence(today=TODAY)
    ev.add_user(1, "how much?")
    ev.add_call(2, "get_reservation", {}, {"price": 300}, failed=False, tainted=False)
    [slip] = ev.unsupported("It costs $310.", [])
    assert not slip.unsure and "300" in slip.detail
    [alone] = ev.unsupported("You will get $1,750 back.", [])
    assert alone.unsure
    assert reply_claims(steps, "It costs $310.") == ["fact: $310"]


def test_a_date_a_reply_states_days_off_a_stated_one_fails_where_an_arguments_is_only_uncertain() -> None:
    """τ-bench's garbled reply dates (`May 24` said as `May 28`): in a reply, a date up to nine days from a
    stated one and stated nowhere is a slip, and fails naming the stated one; the same date as a call's
    argument is only uncertain (agents compute the dates of calls: a stay's end, a deadline)."""
    ev = Evidence(today=TODAY)
    ev.add_user(1, "what is on my reservation?")
    ev.add_call(2, "get_reservation", {}, {"flights": [{"date": "2025-05-24"}]}, failed=False, tainted=False)
    [slip] = ev.unsupported("Your flight is on May 28.", [])
    assert not slip.unsure and "05-24" in slip.detail
    [far] = ev.unsupported("Your voucher expires on June 30.", [])
    assert far.unsure  # five weeks away: a date of its own, perhaps computed
    assert ev.lookalike_of("2025-05-28", "date") is None  # an argument's window is one day
    assert ev.lookalike_of("2025-05-26", "date") is None
    assert ev.lookalike_of("2025-05-25", "date") == "2025-05-24"


def test_a_reply_value_beside_the_look_alike_it_names_is_worked_from_it_and_only_uncertain() -> None:
    """A reply's unstated day or amount fails when it stands where the evidence gives another one, a slip
    away, that the reply leaves out (the result's `next_ship_date: 2025-10-16`, the reply's `October 23`;
    a £38 slot said as £32). When the only such look-alikes are ones the reply names itself, it works from
    them (`the box after it on October 21`, `£38 per person against the £32 each you paid`) in a way
    grounding may not follow, and is only uncertain (grounding blind sets 2-26)."""
    ev = Evidence(today="2025-10-09")
    ev.add_user(1, "please pause my coffee until the 14th")
    ev.add_call(
        2, "pause", {"resume": "2025-10-14"}, {"next_ship_date": "2025-10-16"}, failed=False, tainted=False
    )
    [replaced] = ev.unsupported("Paused until October 14; your next shipment goes out on October 23.", [])
    assert not replaced.unsure and "10-16" in replaced.detail
    [counted] = ev.unsupported("Paused until October 14; your next shipment goes out on October 16, "
                               "and the box after it on October 21.", [])  # fmt: skip
    assert counted.unsure and counted.text == "October 21"
    prices = Evidence(today=TODAY)
    prices.add_user(1, "can we move to the 12:40 slot?")
    prices.add_call(2, "get_slot", {"time": "12:40"}, {"price_gbp": 38}, failed=False, tainted=False)
    [garbled] = prices.unsupported("That slot is £32 per person.", [])
    assert not garbled.unsure and "38" in garbled.detail
    [beside] = prices.unsupported("That slot is £38 per person against the £32 each you paid.", [])
    assert beside.unsure and beside.text == "£32"


def test_a_call_date_one_day_off_a_stated_one_fails_and_one_a_weekend_off_is_only_uncertain() -> None:
    """The 16th booked for the user's Friday 17th is a slip and fails; the Monday after a stated Friday
    (a week's start, the next business day) is a date agents compute into calls, and is only uncertain —
    held out, argument dates three days off failed 11 good conversations for 1 planted error."""
    turns, errors = policy_turns([
        ("User", "Can you book the test for Friday, October 17?"),
        ("Tool", ("book_test", {"date": "2025-10-16"}, {"booking_id": "T-1"}, None)),
        ("Tool", ("book_follow_up", {"week_start": "2025-10-20"}, {"booking_id": "T-2"}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {})
    assert outcome.scores[2].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert "the conversation states 10-17" in (outcome.scores[2].detail or "")
    assert outcome.scores[3].success and [c.uncertain for c in outcome.scores[3].comparisons] == [True]


def test_a_replys_facts_need_support_but_its_measures_and_questions_do_not() -> None:
    steps = [("user", "how much?"), ("call", ("get_reservation", {}, {"price": 300}, False))]
    assert reply_claims(steps, "It costs $300. Refunds take 7 to 10 business days; support is 24/7.") == []
    assert reply_claims(steps, "It costs $310.") == ["fact: $310"]
    assert reply_claims(steps, "Would you like it on Friday, April 4 instead?") == []


@pytest.mark.parametrize(
    "text",
    [
        "我已经为您取消了预订。",
        "Reservation XEHM4B was successfully upgraded to economy class and then canceled.",
        "The upgrade and cancellation of reservation XEHM4B have been successfully completed.",
        "Claim DC-33018 is submitted. I've also scheduled a free re-clean pickup.",  # grounding blind set 3
        "You're booked with Kim for a blowout on Saturday at 1:15 PM.",
        "No problem — I've extended it by 48 hours.",  # a courtesy, no negation (grounding blind set 4)
        "All done, Callum — your night drive is booked for Tuesday 11 November at 19:00.",  # blind set 6
        "All done! The buffet and the late bar are both added to your booking.",
        # grounding blind set 8: claims in other languages, and `you're both booked`
        "Le ho anche prenotato il gommone per venerdì 24 luglio.",
        "Ich habe das Kennzeichen in Ihrer Buchung auf L-MV 1907 geändert.",
        "Pronto! A encomenda SV-2291 foi atualizada para 45 pessoas.",
        "J’ai annulé votre réservation.",
        "He reservado la mesa para las 8.",
        "Uw afspraak is geannuleerd.",
        "You're both booked for Saturday, Oct 25.",
        # the review of set 8's round
        "我已经为您把预订取消了。",
        "Pas de problème, j’ai annulé votre réservation.",
        "J’ai réservé une chambre au The Westin.",
        "Je vous ai envoyé la confirmation.",
        "Votre réservation a bien été annulée.",
        "Le créneau réservé hier a été annulé.",
        "Se ha cancelado su reserva.",
        "All done! Your seats are booked, one for each of you.",
        # grounding blind sets 13 and 14: Chinese claims of adding, changing to and arranging, and a
        # longer object after 将
        "已为您添加5月2日至4日两人份早餐。",
        "已为您将明天订单中的菠萝包改为80个。",
        "好的，已帮您改到 11 月 21 日。",
        "已为您安排好完工后的保价快递寄回。",
        # grounding blind sets 15-30 (read): for whom, an object in any script, Japanese and Korean
        "已为您母亲预约好了：7月10日下午 14:30。",
        "可以，已为您全额退还本次车费3元。",
        "已将报价单SJ-Q250520-08发送至 chen.yu@163.com。",
        "LSN-30418はキャンセルいたしました。",
        "ご予約が完了しました！",
        "예약을 취소했습니다.",
        "已为王女士取消预约。",
        "如您所愿，已为您取消订单。",
        "已为您取消过期的订单。",
        "Le hemos devuelto 45 €.",  # first person: a refund (`ha devuelto el artículo` is the user's return)
        "Ho fissato l'appuntamento per giovedì.",
        "Ik heb de bevestiging naar u verzonden.",
        "キャンセル手続きが完了しました。",  # blind set 35
        "일시정지가 완료되었습니다.",
        "취소 처리되었습니다.",
        # more European participles, Polish, and a present passive that says `now`
        "Ihre Buchung SKF-30917 ist jetzt storniert.",
        "E o passe do Rafael já foi transferido para a Júlia Santos.",
        "Perfetto: ho programmato la consegna per giovedì 16 ottobre.",
        "Zlecenie KR-5531 zostało anulowane.",
        "Przełożyłam Pani wizytę WZ-3318 na piątek, 21 listopada, na 10:20.",
        "J'ai ajouté les deux invitées à votre réservation AE-0621-03.",
    ],
)
def test_done_claims_as_people_write_them(text: str) -> None:
    assert done_claims(text)


def test_claims_a_lookup_or_one_call_does_not_back() -> None:
    """Grounding blind set 4: `you're upgraded` after only `get_upgrade_quote` (a lookup does no action its
    name or arguments mention); `cancelled both appointments` after one cancellation (one call on a list
    does both); `resent both tickets` with no resend; `All set — your tune-up is moved to Friday` after the
    reschedule failed; and the review's states and rules that are no claims."""

    def done(steps: list[tuple[str, Any]], reply: str, tools: list[str]) -> list[str]:
        return [c for c in reply_claims(steps, reply, tools) if c.startswith("done:")]

    quote = [
        ("user", "upgrade me"),
        ("call", ("get_upgrade_quote", {"ref": "NSR9P3LC"}, {"price": 45}, False)),
    ]
    assert done(quote, "Done — you're upgraded to First Class.", ["get_upgrade_quote", "upgrade_booking"])
    upgraded = [*quote, ("call", ("upgrade_booking", {"ref": "NSR9P3LC"}, {"status": "upgraded"}, False))]
    assert not done(upgraded, "Done — you're upgraded to First Class.", ["upgrade_booking"])
    one = [
        ("user", "cancel both"),
        ("call", ("cancel_appointment", {"id": "AP-71092"}, {"status": "cancelled"}, False)),
    ]
    assert done(one, "I've cancelled both appointments — July 9 and July 23.", ["cancel_appointment"])
    two = [*one, ("call", ("cancel_appointment", {"id": "AP-71340"}, {"status": "cancelled"}, False))]
    assert not done(two, "I've cancelled both appointments — July 9 and July 23.", ["cancel_appointment"])
    flights = {"flights": [{"flight_number": "HAT001"}, {"flight_number": "HAT002"}]}
    booked = [
        ("user", "book both"),
        ("call", ("book_reservation", flights, {"reservation_id": "ZX9Q2L"}, False)),
    ]
    assert not done(booked, "I've booked both flights — reservation ZX9Q2L.", ["book_reservation"])
    resent = [
        ("user", "again"),
        ("call", ("resend_verification_code", {"to": "sms"}, {"status": "sent"}, False)),
    ]
    assert not done(
        resent, "I've resent the verification code.", ["resend_verification_code", "send_receipt"]
    )
    looked = [
        ("user", "new address"),
        ("call", ("get_warranty", {"plan": "extended"}, {"warranty_id": "W-1"}, False)),
    ]
    assert done(looked, "I've updated your address.", ["get_warranty", "update_address"])
    email = [
        ("user", "fix it"),
        ("call", ("update_order_email", {"email": "k@g.com"}, {"status": "updated"}, False)),
    ]
    said = "Fixed — I've updated the email on your order and resent both tickets."
    assert done(email, said, ["update_order_email", "resend_tickets"]) == [f"done: {said}"]
    failed = [("user", "move it"), ("call", ("reschedule_booking", {"slot": "SL-5127"}, None, True))]
    assert done(failed, "You're all set — your tune-up is moved to Friday.", ["reschedule_booking"])
    assert not done_claims("Your card is charged when you book.")  # a rule, not a claim
    for state in (
        "Both reservations are booked in economy class.",
        "Both flights are scheduled to depart on time.",
        "Both 3pm and 4pm are booked on Tuesday.",
        "Fixed-term plans are renewed automatically each year.",
        "已将您的需求转交同事安排。",  # passed on to a colleague to arrange: no booking claimed (review)
    ):
        assert not done_claims(state), state
    assert done_claims("**Done** — your appointment is moved to Friday.")
    for rule in (  # after a lone opener too (the review of grounding blind set 6's round)
        "All done! Both flights are scheduled to depart on time.",
        "Done! Refunds are issued within 5–7 business days.",
        "All set. Boarding passes are sent 24 hours before departure.",
        "All set! Checked bags are charged at $35 each.",
    ):
        assert not done_claims(rule), rule


def test_an_extension_claimed_with_no_call_of_the_tool_that_extends_is_unsupported() -> None:
    """`extend_pickup` extends: an update a reply may claim (blind set 4)."""
    steps = [
        ("user", "48 please"),
        ("call", ("track_parcel", {"id": "SB2093771640"}, {"status": "in_locker"}, False)),
    ]
    tools = ["track_parcel", "extend_pickup"]
    assert reply_claims(steps, "No problem — I've extended it by 48 hours.", tools) != []
    extended = [*steps, ("call", ("extend_pickup", {"id": "SB2093771640"}, {"status": "extended"}, False))]
    assert reply_claims(extended, "No problem — I've extended it by 48 hours.", tools) == []


def test_what_a_reply_works_out_from_stated_lengths_of_time_is_computed() -> None:
    """Grounding blind set 6: a session's end (`10:00–11:30` for 90 minutes), a lesson's (`14:00–16:00`, 2
    hours), a free-cancellation deadline (`bis Mittwoch, 12.03., 16:30 Uhr`, 24 hours before the lesson).
    A range whose length nobody stated, or a deadline whose time disagrees, is still unsupported."""
    steps = [
        ("user", "Saturday mornings, 90 minutes each"),
        (
            "call",
            (
                "get_availability",
                {"date": "2025-03-15"},
                {"free": [{"start": "10:00", "end": "12:00"}]},
                False,
            ),
        ),
    ]
    assert reply_claims(steps, "Booked: Saturday 10:00–11:30 with Grace.") == []
    assert reply_claims(steps, "Booked: Saturday 10:00–11:45 with Grace.") == ["fact: 11:45"]
    hours = [
        ("user", "English is fine, 2 hours from 2pm."),
        (
            "call",
            (
                "book_private_lesson",
                {"date": "2026-03-13", "start_time": "14:00", "hours": 2},
                {"booking_ref": "SUM-40955"},
                False,
            ),
        ),
    ]
    assert (
        reply_claims(hours, "Done: Friday 13 March, 14:00–16:00, ref SUM-40955.", ["book_private_lesson"])
        == []
    )
    ev = Evidence(["Stornierungen sind bis 24 Stunden vor Beginn kostenlos."], today="2025-03-10")
    ev.add_user(1, "Halb fünf bei Herrn Yilmaz, bitte.")
    booked = {"booking_id": "BK-55310", "start": "2025-03-13T16:30:00+01:00"}
    ev.add_call(2, "book_lesson", {"slot_id": "SL-8816"}, booked, failed=False, tainted=False)
    assert ev.unsupported("Kostenlos stornieren können Sie bis Mittwoch, 12.03., 16:30 Uhr.", []) == []
    assert [c.text for c in ev.unsupported("Kostenlos stornieren bis 11.03., 16:30 Uhr.", [])] == ["11.03"]
    assert [c.text for c in ev.unsupported("Kostenlos stornieren bis 12.03., 15:30 Uhr.", [])][:1] == [
        "12.03"
    ]
    assert [c.text for c in ev.unsupported("Ihre Stunde ist am 14.03., 16:30 Uhr.", [])] == ["14.03"]  # after
    no_until = ev.unsupported("Your lesson is booked for 12.03., 16:30.", [])  # no deadline: a day off
    assert [c.text for c in no_until] == ["12.03"]


def test_a_time_a_stated_length_of_time_from_a_stated_one_is_computed() -> None:
    """Grounding blind set 7: when to arrive (`8:40`, 30 minutes before a 9:10 slot, as the prompt asks),
    a free-cancellation cut-off (`until 9:00am`, an hour before a 10:00 start), the fast before a scan
    (`nothing after midnight`, 8 hours before 8:00am) — each from a time the same reply states. A time no
    stated length away from one, or from nothing the reply names, is still claimed (review of set 8's round:
    `booked for 3:00 PM` of a 14:00 booking under `Appointments last 60 minutes`)."""
    ev = Evidence(
        ["请患者提前30分钟到院取号。", "Free cancellation up to 1 hour before the start."], today=TODAY
    )
    ev.add_user(1, "9点10分吧")
    booked = {"appointment_id": "MZ-1", "start": "2025-03-17T09:10:00+08:00"}
    ev.add_call(2, "book_appointment", {"slot_id": "S-0910"}, booked, failed=False, tainted=False)
    assert ev.unsupported("您约的是9:10，请提前30分钟，也就是早上8:40前到医院取号。", []) == []
    assert [c.text for c in ev.unsupported("请提前30分钟，也就是早上8:40前到医院取号。", [])] == [
        "8:40"
    ]  # from what?
    assert [c.text for c in ev.unsupported("请早上8:35前到医院取号。", [])] == ["8:35"]
    car = {"reservation_id": "RZ-5530871"}
    ev.add_call(3, "create_reservation", {"start": "2025-03-15T10:00"}, car, failed=False, tainted=False)
    assert (
        ev.unsupported(
            "Booked for 10:00am! You can cancel for free until 9:00am on Saturday.", ["create_reservation"]
        )
        == []
    )
    fast = [
        ("user", "text please"),
        (
            "call",
            ("send_prep_instructions", {"start": "2025-03-17T08:00"}, {"summary": {"fast_hours": 8}}, False),
        ),
    ]
    assert (
        reply_claims(fast, "For your 8:00 scan: nothing to eat after midnight.", ["send_prep_instructions"])
        == []
    )


def test_a_sum_of_the_products_a_reply_works_out_is_computed() -> None:
    """`2 × $42 + $22 = $106` (grounding blind set 27): the product and the amount make the total; another
    total is still unsupported, beside the look-alike `105°F` too."""
    ev = Evidence(system=["Adults $42, children 4-12 $22. Heat index above 105°F."], today=TODAY)
    ev.add_user(1, "Two adults and a kid of 7")
    assert ev.unsupported("That is 2 × $42 + $22 = $106, tax included.", []) == []
    assert ev.unsupported("That is 2 × $42 + 1 × $22 = $106, tax included.", []) == []
    assert [c.text for c in ev.unsupported("That is 2 × $42 + $22 = $107, tax included.", [])] == ["$107"]
    # a count nobody said, a difference (review): still unsupported, in a conversation of their own
    for wrong, total in (("3 × $42 + $22 = $148", "$148"), ("2 × $42 + $22 = $62", "$62")):
        ev = Evidence(system=["Adults $42, children 4-12 $22."], today=TODAY)
        ev.add_user(1, "Two adults and a kid of 7")
        assert [c.text for c in ev.unsupported(f"That is {wrong}.", [])] == [total]


def test_small_amounts_in_a_currency_add_up_as_amounts_do() -> None:
    """Grounding blind set 8: `$62 plus the $6 gift delivery fee, so $68` — a fee under ten is an amount,
    not a count; six bags still add nothing to $62."""
    gifts = {"boxes": [{"sku": "HOLIDAY-25", "price": 62.0}], "gift_delivery_fee": 6.0}
    steps = [("user", "a gift box"), ("call", ("get_gift_options", {"date": "2025-12-18"}, gifts, False))]
    assert reply_claims(steps, "It is $62 plus the $6 gift delivery fee, so $68 in total.") == []
    assert reply_claims(steps, "It is $62 plus 6 bags, so $68 in total.") == ["fact: $68"]


def test_a_claim_of_booking_is_judged_by_the_tool_that_schedules() -> None:
    """Grounding blind set 8: `I've booked you into the afternoon window` after `schedule_visit` failed —
    a tool that schedules books, so the claim is judged, and unsupported."""
    failed = [
        ("user", "Wednesday please"),
        ("call", ("schedule_visit", {"window": "12:00-16:00"}, None, True)),
    ]
    reply = "The morning slot was just taken, so I've booked you into the afternoon window instead."
    assert reply_claims(failed, reply, ["get_slots", "schedule_visit"]) == [f"done: {reply}"]
    done = [
        failed[0],
        ("call", ("schedule_visit", {"window": "12:00-16:00"}, {"status": "scheduled"}, False)),
    ]
    assert reply_claims(done, reply, ["get_slots", "schedule_visit"]) == []


def test_a_time_apart_needs_its_anchor_in_the_reply_and_its_half_of_the_day() -> None:
    """The review of set 8's round: under `Appointments last 60 minutes`, a 14:00 booking told as `3:00 PM`
    is no computed end (the reply names no 14:00); `9:00 AM–10:30 PM` after `90 minutes` is no range."""
    ev = Evidence(["Appointments last 60 minutes."], today=TODAY)
    ev.add_user(1, "Tuesday at 2pm")
    ev.add_call(2, "book", {"start": "2025-03-18T14:00"}, {"id": "APT-1"}, failed=False, tainted=False)
    assert [c.text for c in ev.unsupported("You're booked for Tuesday at 3:00 PM.", ["book"])] == ["3:00 PM."]
    assert ev.unsupported("You're booked for Tuesday, 2:00–3:00 PM.", ["book"]) == []
    spa = [
        ("user", "90 minutes, 9am please"),
        ("call", ("book", {"start": "2025-03-18T09:00"}, {"id": "S-1"}, False)),
    ]
    assert reply_claims(spa, "Booked: 9:00 AM–10:30 AM.", ["book"]) == []
    assert reply_claims(spa, "Booked: 9:00 AM–10:30 PM.", ["book"]) == ["fact: 10:30 PM."]


@pytest.mark.parametrize(
    ("said", "args"),
    [
        ("April 3-5.", {"time": "15:00"}),  # a range of days, not hours (the review of set 8's round)
        ("the kids are aged 4 to 7.", {"time": "16:00"}),
        ("alle 2 Wochen bitte", {"time": "14:00"}),
        ("jusqu'à 3 nuits", {"time": "15:00"}),
        ("每周三次", {"weekdays": ["WED"]}),  # three times a week
        ("on Friday please", {"country": "FR"}),  # a weekday's code only under a key of days
        ("a boarding pass for my June trip", {"date": "2025-06-01"}),
        ("we plan to visit in June", {"date": "2025-06-30"}),
    ],
)
def test_what_only_looks_like_a_time_a_weekday_or_a_month_grounds_nothing(
    said: str, args: dict[str, Any]
) -> None:
    assert set(source([said], "t", args).values()) == {"agent"}


def test_a_number_a_reply_says_in_groups_is_the_one_a_result_gave_whole() -> None:
    steps = [
        ("user", "I lost my card"),
        (
            "call",
            (
                "report_lost_card",
                {"card_number": "310077245518"},
                {"replacement_card_number": "310077251040"},
                False,
            ),
        ),
    ]
    assert reply_claims(steps, "Your replacement (number 3100 7725 1040) is being mailed.") == []
    assert reply_claims(steps, "Your replacement (number 3100 7725 1041) is being mailed.") != []


def test_a_claim_is_backed_by_the_call_that_did_it_whatever_else_the_sentence_names() -> None:
    """Grounding blind set 6: the postcode of a centre's address (`You're booked: … Bond Court, LS1 2JZ`)
    is no booking a call must have made; a result's flag (`"pass_transferred": true`) says the call did
    that too (`Your April pass has been moved to it`)."""
    centers = {"centers": [{"center_id": "C-LDS-01", "address": "Bond Court, LS1 2JZ"}]}
    booked = [("user", "Friday at 10 please"),
              ("call", ("list_centers", {"city": "Leeds"}, centers, False)),
              ("call", ("book_appointment", {"center_id": "C-LDS-01"}, {"appointment_id": "AP-40551"}, False))]  # fmt: skip
    reply = "You're booked: platelet donation on Friday 17 October at 10:00, Leeds Donor Centre, Bond Court, LS1 2JZ."
    tools = ["list_centers", "book_appointment"]
    assert [c for c in reply_claims(booked, reply, tools) if c.startswith("done")] == []
    assert [c for c in reply_claims(booked[:2], reply, tools) if c.startswith("done")] != []  # no booking
    lost = [
        ("user", "I lost it"),
        (
            "call",
            (
                "report_lost_card",
                {"card_number": "310077245518"},
                {"blocked": True, "pass_transferred": True},
                False,
            ),
        ),
    ]
    tools = ["report_lost_card", "set_autorenew"]
    assert reply_claims(lost, "Your April pass has been moved to the new card.", tools) == []
    unmoved = [
        lost[0],
        (
            "call",
            (
                "report_lost_card",
                {"card_number": "310077245518"},
                {"blocked": True, "pass_transferred": False},
                False,
            ),
        ),
    ]
    assert reply_claims(unmoved, "Your April pass has been moved to the new card.", tools) != []


def test_a_booking_a_lookup_lists_or_a_result_says_it_sent_is_reported_not_claimed() -> None:
    """Grounding blind set 7: `You're booked for this Thursday, March 19 at 2:00pm` of an appointment the
    lookup listed among the client's upcoming ones; `the e-tickets have been emailed` after a purchase whose
    result says `"tickets_sent_to": "deb@…"`. A slot a lookup only offered, a cancellation of a listed
    reservation, and tickets a result says were not sent are still claims."""
    tools = ["lookup_client", "book_appointment", "cancel_appointment", "list_slots"]
    upcoming = {
        "upcoming_appointments": [{"appointment_id": "APT-51208", "start": "2026-03-19T14:00:00-04:00"}]
    }
    listed = [
        ("user", "I have an appointment this Thursday"),
        ("call", ("lookup_client", {"email": "s@me.com"}, upcoming, False)),
    ]
    assert reply_claims(listed, "You're booked for this Thursday, March 19 at 2:00pm.", tools) == []
    cancel = "Your appointment on March 19 has been cancelled."
    assert reply_claims(listed, cancel, tools) == [f"done: {cancel}"]
    both = {"existing_bookings": [{"start": "2026-03-19T10:00:00-04:00"}],
            "available_slots": [{"start": "2026-03-19T14:00:00-04:00"}]}  # fmt: skip
    tried = [("user", "2pm that day"), ("call", ("lookup_client", {"email": "s@me.com"}, both, False)),
             ("call", ("book_appointment", {"start": "2026-03-19T14:00"}, None, True))]  # fmt: skip
    mine = "I've booked your colour for March 19 at 2:00 PM."
    assert reply_claims(tried, mine, tools) == [f"done: {mine}"]  # first person: an action, never a state
    assert reply_claims(tried, "You're booked for March 19.", tools) != []  # the list has times: say one
    slots = {"slots": [{"slot_id": "S-1", "start": "2026-03-19T14:00:00-04:00"}]}
    offered = [("user", "Thursday please"), ("call", ("list_slots", {"date": "2026-03-19"}, slots, False))]
    assert reply_claims(offered, "You're booked for this Thursday, March 19 at 2:00pm.", tools) != []
    tools = ["purchase_tickets", "send_tickets"]
    paid = {"order_id": "RP-604511", "status": "paid", "tickets_sent_to": "deb.kowalczyk@gmail.com"}
    bought = [("user", "charge my Visa"), ("call", ("purchase_tickets", {"hold_id": "H-55120"}, paid, False))]
    said = "The e-tickets have been emailed to deb.kowalczyk@gmail.com."
    assert reply_claims(bought, said, tools) == []
    flagged = {"status": "cancelled", "notification_sent": True}
    notified = [
        ("user", "cancel it and send a new one"),
        ("call", ("cancel_order", {"order_id": "O-1"}, flagged, False)),
    ]
    sent = "I've cancelled the order and sent a replacement."
    assert reply_claims(notified, sent, ["cancel_order", "send_replacement"]) == [f"done: {sent}"]
    unsent = [
        bought[0],
        ("call", ("purchase_tickets", {"hold_id": "H-55120"}, {**paid, "tickets_sent_to": "none"}, False)),
    ]
    assert [c for c in reply_claims(unsent, said, tools) if c.startswith("done:")] == [f"done: {said}"]
    # the review of set 8's round: a failure said in the value, a channel word, a lookup's old state
    bounced = [
        bought[0],
        ("call", ("purchase_tickets", {"hold_id": "H-1"}, {"email_sent": "failed: mailbox full"}, False)),
    ]
    assert reply_claims(bounced, "I've emailed you the tickets.", tools) == [
        "done: I've emailed you the tickets."
    ]
    reset = [
        ("user", "the invoice"),
        ("call", ("reset_password", {"user": "u1"}, {"reset_email_sent": True}, False)),
    ]
    mailed = "I've emailed you the March invoice."
    assert reply_claims(reset, mailed, ["reset_password", "send_invoice"]) == [f"done: {mailed}"]
    old = {"order_id": "RP-1", "tickets_sent_to": "deb.kowalczyk@gmail.com"}
    retried = [("user", "resend them"), ("call", ("get_order", {"order_id": "RP-1"}, old, False)),
               ("call", ("resend_tickets", {"order_id": "RP-1"}, None, True))]  # fmt: skip
    assert reply_claims(retried, "I've resent the tickets.", ["get_order", "resend_tickets"]) != []


def test_a_size_a_reply_says_as_a_plural_is_the_size_the_user_asked_for() -> None:
    steps = [
        ("user", "I'm looking for a 10x10 climate controlled unit"),
        (
            "call",
            (
                "search_units",
                {"size": "10x10"},
                {"results": [{"unit_id": "OP-1142", "size": "10x10"}]},
                False,
            ),
        ),
    ]
    assert reply_claims(steps, "I found two climate-controlled 10x10s: unit OP-1142 is one.") == []
    assert reply_claims(steps, "I found two climate-controlled 10x15s: unit OP-1142 is one.") != []


@pytest.mark.parametrize(
    "text",
    [
        "I may have cancelled it.",
        "Your order will be placed once you confirm.",
        "None of the flights were canceled.",
        "It was booked more than 24 hours ago.",
        "Je n’ai pas annulé votre réservation.",
        "Das Zimmer ist reserviert.",  # a state, as `the room is reserved`
        "Si je réserve, ça coûte 20 €.",
        "He revisado su pedido.",  # `pedido`: the order, a noun
        "He wants to reserve a table.",
        "已过取消时限，无法取消。",  # the review of set 8's round
        "已收到退款申请。",
        "我已为您查询退款进度。",
        "Ich habe noch nichts storniert.",
        "Nenhuma reserva foi cancelada.",
        "Als u bevestigt, heb ik het geannuleerd.",
        "You're scheduled to depart at 9:05.",
        "キャンセルできませんでした。",
        "ご予約しましたら、確認メールが届きます。",
        "취소하지 못했습니다.",
        "您的订单已过可取消的时间。",
        "Nie zostało anulowane.",
        "Die Buchung ist storniert.",  # a state, as `the booking is cancelled`, without `jetzt`
        # the review of this round: the agent's own verb, a state, a relative clause, the user's own action
        "已为您核实退款进度：退款正在处理中。",
        "已帮您确认取消政策。",
        "已删除的照片无法恢复。",
        "您已申请的退款正在处理中。",
        "您的航班CA1234已延期至15:30起飞。",
        "ご注文の商品は5月10日に発送しました。",
        "「予約しました」というメールが届いていない場合はご連絡ください。",
        "先ほどお送りしましたメールをご確認ください。",
        "해당 시간은 이미 예약되었습니다.",
        "예약이 취소되었다면 환불은 3일 내에 처리됩니다.",
        "예약했다고 말씀하셨는데, 예약 내역이 보이지 않습니다.",
        "Veo que ya ha devuelto el artículo.",
        "Votre commande A-1 a été expédiée le 12 mai.",
        "Der Fahrer ist jetzt nur noch 5 Minuten entfernt.",
        "Il limite massimo è stato fissato a 3 prenotazioni per cliente.",
        "Jeśli zamówienie zostało anulowane, zwrot nastąpi w ciągu 3 dni.",
        # the third review: a condition after 如, a Korean bare passive (a fare changed, a seat someone else booked)
        "如航班已取消，您可以申请全额退款。",
        "요금이 변경되었습니다.",
        "해당 좌석은 다른 고객님께 예약되었습니다.",
        "예약이 취소되었습니다라고 표시되면 다시 연락 주세요.",
    ],
)
def test_no_done_claim_in_conditions_negations_or_states(text: str) -> None:
    assert done_claims(text) == ()


def test_odd_json_never_crashes_and_long_text_stays_cheap() -> None:
    ev = Evidence(today=TODAY)
    deep: Any = "x"
    for _ in range(3000):
        deep = {"a": deep}
    ev.add_user(1, "hi " + "9" * 200_000)
    ev.add_call(2, "t", {"n": 10**400, "deep": deep}, {"price": 10**400, "deep": deep, "text": "A1 " * 100_000},
                failed=False, tainted=False)  # fmt: skip
    started = time.perf_counter()
    ev.provenance("t", {"n": 10**400, "deep": deep, "id": "ZZ999"})
    ev.unsupported("It costs $5. " * 10_000, ["t"])
    ev.unsupported("Free until March 3 at 10:00, " * 400, ["t"])  # days and times paired: not n⁴ (review)
    assert time.perf_counter() - started < 30  # a guard against a hang, not a speed target


def policy_turns(steps: list[tuple[str, Any]]) -> tuple[list[DialogTurn], dict[int, str | None]]:
    turns, errors = [], {}
    for i, (role, what) in enumerate(steps, start=1):
        if role == "Tool":
            tool, args, result, error = what
            call = ActionContent(tool_id=tool, action=tool, args=args, result=result)
            turns.append(DialogTurn(turn_no=i, turn="Tool", predict_turn=call))
            errors[i] = error
        else:
            turns.append(DialogTurn(turn_no=i, turn=role, predict_turn=ResponseContent(response=what)))
    return turns, errors


def test_a_retry_on_another_reservation_in_a_later_exchange_is_no_recovery() -> None:
    turns, errors = policy_turns([
        ("User", "cancel AAA111"), ("Tool", ("cancel_reservation", {"reservation_id": "AAA111"}, None, "not allowed")),
        ("Agent", "Sorry, AAA111 cannot be cancelled."), ("User", "cancel BBB222 then"),
        ("Tool", ("cancel_reservation", {"reservation_id": "BBB222"}, {"status": "cancelled"}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN.model_copy(update={"after_tool_error": "retry"}), {})
    assert outcome.metrics.recovery.recovered == 0 and outcome.metrics.recovery.unrecovered == 1


@pytest.mark.parametrize(
    ("answer", "adopted"),
    [
        ("ok", False),
        ("Yes, please book it.", False),
        ("Yes, go ahead and book the London LHR flight.", True),  # the user chose the invented destination
    ],
)
def test_a_yes_makes_a_proposal_the_users_but_not_what_only_an_invented_value_found(
    answer: str, adopted: bool
) -> None:
    """The user's `ok` to `I found flight AF1680 to LHR` (a search of a destination the user never named) does
    not make AF1680 the user's: the booking still consumes the invented search. A user who names the invented
    value in the answer has adopted it, and what it found with it (recorded LangGraph memory-window run and
    τ-bench's tau-10-3: `Yes, let's book the JFK to SFO flight` after a search of SFO for `the West Coast`)."""
    turns, errors = policy_turns([
        ("User", "Find me a flight from Paris to New York."),
        ("Tool", ("search_flights", {"origin": "CDG", "destination": "LHR"}, {"flights": [{"flight_id": "AF1680"}]}, None)),
        ("Agent", "I found flight AF1680 from CDG to LHR, departing 10:30."), ("User", answer),
        ("Tool", ("book_flight", {"flight_id": "AF1680"}, {"booking_id": "BK-77"}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {})
    assert outcome.scores[2].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    booking = outcome.scores[5]
    assert booking.success is adopted
    if not adopted:
        [mismatch] = booking.mismatches
        assert (mismatch.field, mismatch.source_turn) == ("flight_id", 2)


def test_a_second_yes_does_not_make_what_only_an_invented_value_found_the_users() -> None:
    """`ok` to a reply that names the invented destination, then `yes` to `Shall I book AF1680?`: the first
    confirmation is no words of the user's, so it does not adopt the invented search (a review found the
    second `yes` grounding the booking)."""
    turns, errors = policy_turns([
        ("User", "Find me a flight from Paris to New York."),
        ("Tool", ("search_flights", {"origin": "CDG", "destination": "LHR"}, {"flights": [{"flight_id": "AF1680"}]}, None)),
        ("Agent", "I found flight AF1680 from CDG to LHR."), ("User", "ok"),
        ("Agent", "Shall I book AF1680 for you?"), ("User", "yes"),
        ("Tool", ("book_flight", {"flight_id": "AF1680"}, {"booking_id": "BK-77"}, None)),
    ])  # fmt: skip
    booking = check_policy(turns, errors, BUILTIN, {}).scores[7]
    assert not booking.success
    assert [(m.field, m.source_turn) for m in booking.mismatches] == [("flight_id", 2)]


def test_incomplete_evidence_makes_a_value_uncertain_and_taints_nothing() -> None:
    turns, errors = policy_turns([
        ("User", "look up my booking"),
        ("Tool", ("get_reservation", {"reservation_id": "QQ7788"}, {"user_id": "u_55"}, None)),
        ("Tool", ("get_user", {"user_id": "u_55"}, {"name": "Ann"}, None)),
    ])  # fmt: skip
    context = ConversationEvidence(why_incomplete="evidence incomplete: 3 spans were dropped")
    outcome = check_policy(turns, errors, BUILTIN, {}, context)
    assert all(s.success for s in outcome.scores.values())
    assert [c.uncertain for c in outcome.scores[2].comparisons] == [True]
    complete = check_policy(turns, errors, BUILTIN, {})
    assert complete.scores[2].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert (
        complete.scores[3].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    )  # the cascade's own view


def test_a_time_nothing_states_is_only_uncertain_even_beside_a_look_alike() -> None:
    """Every two on-the-hour times of 10:00–19:00 are one digit apart, and agents compute times (a walk's
    end from its start and length, another zone's time, the conversation's own clock): held out, failing
    times flagged 19 good conversations and caught 13 planted errors. A time nothing states is for
    review — in a reply and in a call alike — and the detail still names the look-alike."""
    turns, errors = policy_turns([
        ("User", "Can you move Rufus's walk to Thursday at 3pm?"),
        ("Tool", ("book_walk", {"dog": "Rufus", "day": "Thursday", "start": "15:00"},
                  {"booking_id": "WLK-90187", "start": "15:00"}, None)),
        ("Agent", "Done: Rufus is booked for Thursday, 15:00–16:00 (WLK-90187)."),
        ("Tool", ("send_reminder", {"booking_id": "WLK-90187", "at": "14:00"}, {"sent": True}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {})
    assert all(s.success for s in outcome.scores.values())
    [end] = [c for c in outcome.scores[3].comparisons if c.uncertain]
    assert end.predicted == "16:00" and "15:00" in (end.note or "")
    [reminder] = [c for c in outcome.scores[4].comparisons if c.uncertain]
    assert reminder.predicted == "14:00" and "a time of day may be computed" in (reminder.note or "")


def test_a_two_letter_code_nothing_states_is_uncertain_and_a_longer_one_fails() -> None:
    """`CA` for a Californian plate, `BR` for a Brazilian: the standard code of a name said, which grounding
    does not look up — uncertain. An airport code nobody said (`LHR` when the user asked for JFK) is
    invented and fails, naming the stated code it garbles when there is one (`JFX` beside `JFK`)."""
    turns, errors = policy_turns([
        ("User", "My plate is 7ABC123, a California plate. Fly me to JFK on Friday."),
        ("Tool", ("register_plate", {"plate": "7ABC123", "plate_region": "CA"}, {"ok": True}, None)),
        ("Tool", ("search_flights", {"destination": "LHR", "date": "2025-03-14"}, {"flights": []}, None)),
        ("Tool", ("search_flights", {"destination": "JFX", "date": "2025-03-14"}, {"flights": []}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {})
    assert outcome.scores[2].success and [c.predicted for c in outcome.scores[2].comparisons] == ["CA"]
    assert outcome.scores[3].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert outcome.scores[4].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert "the conversation states JFK" in (outcome.scores[4].detail or "")


def test_an_id_a_reply_states_fails_unless_it_is_a_reading_that_names_no_identifier() -> None:
    """A confirmation number one slip from the one the result gave (`BK-54988` for `BK-54898`) fails,
    naming the stated one as written; so does one nothing is like (`FRY-88231`: a made-up confirmation
    number, the reply's classic invention) and an address nobody gave. What a reply's reading takes for
    an id but names none (`230x2`: two at 230) is uncertain — held out, such readings flagged 4 good
    conversations and caught nothing — and a stated id's plural (`two RTX4090s`) is stated."""
    ev = Evidence(today=TODAY)
    ev.add_user(1, "book the ferry for two, and is the RTX4090 in stock?")
    result = {"reservation_id": "BK-54898", "price": 230, "sku": "RTX4090"}
    ev.add_call(2, "book_reservation", {"seats": 2}, result, failed=False, tainted=False)
    [slip] = ev.unsupported("Your booking number is BK-54988.", [])
    assert not slip.unsure and "the conversation states BK-54898" in slip.detail
    [invented] = ev.unsupported("Done! Your confirmation number is FRY-88231.", [])
    assert not invented.unsure
    [email] = ev.unsupported("The tickets went to ann.lee@example.com.", [])
    assert not email.unsure
    [reading] = ev.unsupported("That is 230x2 for the two of you.", [])
    assert reading.unsure
    assert ev.unsupported("We have two RTX4090s in stock.", []) == []


def test_a_reply_may_say_a_results_e164_phone_in_national_form_and_an_amount_in_spaced_thousands() -> None:
    """Results store phone numbers as E.164 (`+16235550148`), which the fact reader takes for an amount;
    a reply says it as people write it, `(623) 555-0148`. And `1 250 zł`, `18 400 Kč`: thousands set apart
    by a space, the result's 1250 (blind sets 9 and 10). Another number or amount still fails."""
    steps = [("user", "who installs, and what does it cost?"),
             ("call", ("get_quote", {}, {"installer_phone": "+16235550148", "total": 1250}, False))]  # fmt: skip
    assert reply_claims(steps, "The installer will call from (623) 555-0148. Razem: 1 250 zł.") == []
    assert reply_claims(steps, "The installer will call from (623) 555-0184.") == ["fact: (623) 555-0184"]
    assert reply_claims(steps, "Razem: 1 260 zł.") == ["fact: 1 260"]


def test_a_models_number_before_a_size_is_no_spaced_thousand() -> None:
    """`4 × Hankook Kinergy Eco 2 195/55 R16` (blind set 13): the model's `2` and the size's `195` are no
    2,195; a size after a number is read as written."""
    steps = [("user", "four tyres, mid-range"),
             ("call", ("search_tyres", {"size": "195/55 R16"}, {"name": "Kinergy Eco 2", "price": 68.5}, False))]  # fmt: skip
    assert reply_claims(steps, "4 × Hankook Kinergy Eco 2 195/55 R16, 68,50 € each.") == []
    assert reply_claims(steps, "Razem: 1 260 zł.") == ["fact: 1 260"]


def test_a_phone_number_before_a_slash_is_read_whole_or_not_at_all() -> None:
    """`030 1234 5678/79` (review): not its first groups alone, `030 1234`, as a number nothing states."""
    steps = [("user", "what's the number?"), ("call", ("get_branch", {}, {"phone": "030 1234 5678"}, False))]
    assert reply_claims(steps, "Call 030 1234 5678/79.") == []


def test_a_weekday_a_reply_gives_a_date_must_be_that_dates() -> None:
    """`Friday, June 18` where June 18 is a Thursday (grounding blind sets 7, 13 and 14 planted it): wrong
    whatever the evidence. The year is a stated date's with that day, else the coming one; a range of days
    (`Saturday-Sunday, March 14-15`) pairs no weekday with one date."""

    def slips(reply: str, today: str | None = "2026-06-10", stated: str = "") -> list[str]:
        ev = Evidence(today=today)
        ev.add_user(1, stated or "move the assembly, please")
        return [c.detail for c in ev.unsupported(reply, ["reschedule_job"]) if ", but " in c.detail]

    assert slips("Done — the job is now on Friday, June 18.") == [
        "the reply says 'Friday, June 18', but 2026-06-18 is a Thursday"
    ]
    assert slips("Done — the job is now on Thursday, June 18.") == []
    assert slips("Done — the job is now on Thu 18 June 2026.") == []
    assert slips("The Swiss is Saturday-Sunday, March 14-15.", today="2026-03-04") == []
    assert slips("已为您改到4月26日（周六）。", today="2025-04-20") == []
    assert slips("已为您改到4月26日（周日）。", today="2025-04-20") != []
    # a wedding next December, stated with its year: that year's weekday, not this one's
    assert slips("The Orangery is free on Friday 5 December.", stated="Friday 5 December 2025?") == []
    assert slips("See you Friday, June 18.", today=None) == []  # no date to count from
    # the second review: a past date, the prompt's own date, a stated date of another year, a street
    # number after the date, words that only look like months, lists, the next clause; and a change `to`
    assert slips("Your order was placed Tuesday, March 3.") == []
    ev = Evidence(system=["The current date is 2024-05-15."], today="2026-06-10")
    ev.add_user(1, "book me for the 17th")
    assert [c for c in ev.unsupported("Booked for Friday, May 17.", ["book"]) if ", but " in c.detail] == []
    assert slips("Booked: Thursday, June 18 again.", stated="my last visit was 2025-06-18") == []
    assert slips("Saturday, June 20, 1500 Broadway.") == []
    assert slips("We could do Saturday, maybe 2 pm? Or Sunday marathon 10 km.") == []
    assert slips("Open Saturday & Sunday, June 13 & 14; Mon, Tue, Wed, June 15, 16, 17.") == []
    assert slips("6月18日，周六和周日不发货。") == []
    assert slips("I've moved it to Friday, June 19.") == []
    assert slips("I've moved it to Saturday, June 19.") != []


def test_a_reply_may_say_an_amount_with_a_comma_before_its_cents() -> None:
    """`Total: 148,20 €` was read as 148 and 20 €, and failed beside the result's 148.2 (blind sets 10 and
    11, in Portuguese); `R$ 380,50` likewise. Another amount still fails, naming the stated one."""
    steps = [
        ("user", "quanto fica?"),
        ("call", ("get_quote", {}, {"total_eur": 148.2, "polish": 380.5}, False)),
    ]
    assert reply_claims(steps, "Total: 148,20 €, e o polimento R$ 380,50, pago à parte.") == []
    [other] = reply_claims(steps, "Total: 148,90 €.")
    assert other.startswith("fact:") and "148.90 €" in other  # as read: the comma is the decimal point


def test_a_made_up_id_fails_however_it_begins_and_only_readings_are_uncertain() -> None:
    """A second review: booking codes, order numbers and plates that begin with digits or an `x`
    (`4UGWJK`, `12345ABC`, `X482913`, `123-ABC`) are identifiers and fail; sizes, multipliers and a number
    joined to a word in lower case are readings, and only uncertain."""
    ev = Evidence(today=TODAY)
    ev.add_user(1, "book the ferry for two")
    ev.add_call(
        2, "book_reservation", {"seats": 2}, {"reservation_id": "BK-54898"}, failed=False, tainted=False
    )
    for made_up in ("4UGWJK", "88231-FRY", "12345ABC", "X482913", "123-ABC"):
        [claim] = ev.unsupported(f"Done! Your confirmation number is {made_up}.", [])
        assert not claim.unsure, made_up
    for reading in ("230x2", "x3", "240-Liter-Tonne", "2x200ml", "2-Zimmer-Wohnung", "5kg-Sack"):
        [claim] = ev.unsupported(f"That is {reading} for you.", [])
        assert claim.unsure, reading


def test_a_capital_s_after_a_stated_id_is_another_id_and_its_look_alike_is_named_as_written() -> None:
    """`two RTX4090s` is the stated id's plural; `RTX4090S` is another product, and fails naming the stated
    one as the conversation wrote it — in Chinese text and written apart too (`CA 1837`)."""
    ev = Evidence(today=TODAY)
    ev.add_user(1, "我的订单号是BK54898，航班是 CA 1837")
    ev.add_call(2, "stock", {"sku": "RTX4090"}, {"sku": "RTX4090", "n": 2}, failed=False, tainted=False)
    assert ev.unsupported("We have two RTX4090s in stock.", []) == []
    [other] = ev.unsupported("I ordered the RTX4090S for you.", [])
    assert not other.unsure and "(the conversation states RTX4090)" in other.detail
    [order] = ev.unsupported("您的订单BK54988已确认。", [])
    assert "(the conversation states BK54898)" in order.detail
    [flight] = ev.unsupported("Your flight CA1873 is confirmed.", [])
    assert "(the conversation states CA 1837)" in flight.detail


def test_a_code_stated_after_the_first_look_up_is_named() -> None:
    ev = Evidence(today=TODAY)
    ev.add_user(1, "hello")
    assert ev.lookalike_of("JFX", "code") is None
    ev.add_user(3, "fly me to JFK")
    assert ev.lookalike_of("JFX", "code") == "JFK"


def test_an_uncertain_value_says_why_it_is_not_failed() -> None:
    """The note a reviewer reads names the reason of each kind: a code is a name's standard code, a reading
    is no identifier, a time may be computed."""
    turns, errors = policy_turns([
        ("User", "Register my California plate 7ABC123, and book the 3pm walk."),
        ("Tool", ("register_plate", {"plate": "7ABC123", "plate_region": "CA"}, {"ok": True}, None)),
        ("Tool", ("book_walk", {"start": "15:00"}, {"booking_id": "WLK-1", "price": 230}, None)),
        ("Agent", "Booked WLK-1 until 16:00: that is 230x2 for the two dogs."),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {})
    assert all(s.success for s in outcome.scores.values())
    notes = {c.predicted: c.note or "" for t in (2, 4) for c in outcome.scores[t].comparisons if c.uncertain}
    assert "standard code of a name" in notes["CA"]
    assert "not an identifier" in notes["230x2"] and "may be computed" in notes["16:00"]


def _contradictions(steps: list[tuple[str, Any]], reply: str, system: Sequence[str] = ()) -> list[str]:
    """The details of the reply's facts that a result field named beside them gives otherwise."""
    ev = Evidence(system=system, today="2026-08-05")
    for i, (kind, what) in enumerate(steps, start=1):
        if kind == "user":
            ev.add_user(i, what)
        else:
            name, args, result = what
            ev.add_call(i, name, args, result, failed=False, tainted=False)
    return [c.detail for c in ev.unsupported(reply, ["book_hire"]) if "result gives" in c.detail]


def test_a_value_a_reply_names_by_a_result_fields_words_must_be_that_fields() -> None:
    """Grounding blind set 15: a wrong deposit, fee, resume date or departure time that nothing states was
    only uncertain (the agent may have computed it). Beside the words of a result's key (`damage deposit`,
    `resumes`, `fee`, `check-out`), it fails, naming the field: the field is the evidence it is wrong."""
    quote = {
        "quote_id": "HQ-45832",
        "hire_gbp": 210.0,
        "damage_deposit_gbp": 150,
        "fee_paid_gbp": 35.0,
        "resume_date": "2027-03-05",
        "check_out_by": "12:00",
    }
    steps = [("user", "an 8-person tub please"), ("call", ("get_quote", {"size": 8}, quote))]
    wrong = {
        "There's also a £120 refundable damage deposit taken when you book.": "damage_deposit_gbp 150",
        "It resumes automatically on April 5, 2027.": "resume_date '2027-03-05'",
        "If it is cancelled now, the £45 fee can't be refunded.": "fee_paid_gbp 35.0",
        "Check-out is by 11:00 on the Monday.": "check_out_by '12:00'",
    }
    for reply, field in wrong.items():
        assert [d.rpartition("gives ")[2] for d in _contradictions(steps, reply)] == [field], reply
    right = [
        "There's also a £150 refundable damage deposit taken when you book.",
        "It resumes automatically on March 5, 2027.",
        "If it is cancelled now, the £35 fee can't be refunded.",
        "Check-out is by 12:00 on the Monday.",
    ]
    for reply in right:
        assert _contradictions(steps, reply) == [], reply
    # a value something states is not contradicted: the prompt's £100 is another tub's deposit, but which
    # role a stated value has is beyond these words (measured: as many false alarms as catches)
    prompt = ["Deposits: £100 for 4-6 person tubs, £150 for 8-person tubs."]
    assert _contradictions(steps, "There's also a £100 refundable damage deposit.", prompt) == []


@pytest.mark.parametrize(
    ("result", "reply"),
    [
        # a whole is named by a key that says so: `Hire total` is no `hire_gbp`
        ({"hire_gbp": 189.0, "gazebo_gbp": 35.0}, "Hire total £230.00, all in."),
        # a joining word ends the words of a value: the £624 is not the deposit's
        ({"deposit_gbp": 156.0}, "Deposit kept and remaining £631 refunded."),
        ({"ref": "MT-2208", "saida_ate": "11:00"}, "Check-in a partir das 14h30 e saída até às 11h00."),
        ({"gst_aud": 18.0, "total_inc_gst_aud": 198.0}, "- $199 inc GST"),
        # a range's bounds are the reply's span, not a field's one value
        (
            {"screenings": [{"start_time": "11:00"}]},
            "We can start screenings anywhere from 10:30 AM to 8:00 PM.",
        ),
        # after a value, a preposition starts another part: the time to arrive is no launch time
        ({"flight_id": "BR-88", "launch_time": "05:45"}, "Please arrive by 5:00 AM at the launch site."),
        # a value said to have changed: the result before it gives the old one (blind set 9)
        ({"nights": 5, "total": 365.0}, "That's $146 more, so a new total of $513. Shall I extend it?"),
        # an amount is no count: `package: $740` beside `package_days_remaining: 1`
        ({"package_days_remaining": 1}, "- 20-day package: $740 + HST"),
    ],
)
def test_a_value_beside_a_fields_words_that_is_not_that_field_is_not_contradicted(
    result: dict[str, Any], reply: str
) -> None:
    """Each a false alarm of the first version, on blind sets 2, 9, 11 and 15 (the same replies with the
    values nothing states): each of these rules stops one."""
    assert _contradictions([("user", "hello"), ("call", ("look_up", {}, result))], reply) == []


def test_an_accented_word_names_the_unaccented_key_it_is() -> None:
    steps: list[tuple[str, Any]] = [("call", ("reserva", {}, {"ref": "MT-2208", "saida_ate": "12:00"}))]
    assert _contradictions(steps, "Check-in a partir das 14h00 e saída até às 11h00.") == [
        "the reply says '11h00', but turn 1's result gives saida_ate '12:00'"
    ]


@pytest.mark.parametrize(
    ("said", "args", "expected"),
    [
        ("Monday to Wednesday next week please", {"date": "2025-03-18"}, "user"),
        ("我想给豆豆订下周一到周三的全天托", {"dates": ["2025-03-17", "2025-03-18"]}, "user"),
        ("check in April 3 - April 6", {"night": "2025-04-04"}, "user"),
        ("April 3 to 6, two of us", {"check_out": "2025-04-06"}, "user"),
        ("May 5th to the 8th", {"date": "2025-05-07"}, "user"),
        # the day number first, its month after the second (a review's case)
        ("vom 3. bis 6. April, bitte", {"date": "2025-04-04"}, "user"),
        ("3 to 6 April please", {"check_in": "2025-04-03"}, "user"),
        # no range: two days said apart, a range of hours, a range of room numbers
        ("Monday or Wednesday next week", {"date": "2025-03-18"}, "agent"),
        ("Friday 3 to 5 pm", {"date": "2025-03-16"}, "agent"),
        ("rooms 3 to 6 on the first floor", {"date": "2025-03-05"}, "agent"),
        ("für übermorgen von 9 bis 13 Uhr", {"start": "2025-03-18T09:00"}, "agent"),  # blind set 7
    ],
)
def test_the_days_inside_a_range_a_user_says_are_the_users(
    said: str, args: dict[str, Any], expected: str
) -> None:
    """Grounding blind set 15: `下周一到周三` (Monday to Wednesday) booked the Tuesday too, and failed: only
    the range's two ends were read."""
    assert set(source([said], "t", args).values()) == {expected}


def test_an_addresss_house_number_and_the_people_a_call_lists_must_be_stated() -> None:
    """Grounding blind set 16: the pickup sent to `1408 Folsom St, San Francisco, CA` for the user's `1480
    Folsom St`, and a guest listed as `Leila Mansoor` for the user's `Leila Mansour`, passed: the address
    read as free text (five words), the list under `guests` as no name. An address's number one slip from a
    stated one fails; the city an agent adds does not; a postcode nothing states is only uncertain."""
    turns, errors = policy_turns([
        ("User", "Rush pickup from 1480 Folsom St to 333 Bush St. Guests are Zoe Hart and Leila Mansour."),
        ("Tool", ("create_delivery", {"pickup_address": "1408 Folsom St, San Francisco, CA"}, {"id": "D-1"}, None)),
        ("Tool", ("create_delivery", {"pickup_address": "1480 Folsom St, San Francisco, CA"}, {"id": "D-2"}, None)),
        ("Tool", ("create_delivery", {"pickup_address": "1480 Folsom St, San Francisco, CA 94103"}, {"id": "D-3"}, None)),
        ("Tool", ("create_booking", {"guests": ["Zoe Hart", "Leila Mansoor"]}, {"id": "B-1"}, None)),
        ("Tool", ("create_booking", {"guests": ["Zoe Hart", "Leila Mansour"]}, {"id": "B-2"}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {})
    assert outcome.scores[2].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert "pickup_address: 1408" in (outcome.scores[2].detail or "")
    assert "the conversation states 1480" in (outcome.scores[2].detail or "")
    assert outcome.scores[3].success and outcome.scores[4].success
    assert [c.predicted for c in outcome.scores[4].comparisons if c.uncertain] == [94103]
    assert outcome.scores[5].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert "guests[1]: 'Leila Mansoor'" in (outcome.scores[5].detail or "")
    assert outcome.scores[6].success


@pytest.mark.parametrize(
    "yes", ["はい、お願いします。", "네, 그렇게 해주세요", "Oui, parfait", "Sí, por favor", "Ja, bitte"]
)
def test_a_users_yes_in_another_language_makes_the_proposal_the_users(yes: str) -> None:
    """Blind set 16 (in Japanese): the agent proposed a return on 7月6日, the user said `はい、お願いします`, and
    the call used 2026-07-07 — one day off what the user agreed to, so a slip, which failed only after an
    English `yes`."""
    turns, errors = policy_turns([
        ("User", "I need it for the 4th of July"),
        ("Agent", "Picked up on July 4, it is due back on July 6 by 6 pm. Shall I book it?"),
        ("User", yes),
        ("Tool", ("create_reservation", {"pickup_date": "2026-07-04", "return_date": "2026-07-07"}, {"id": "R-1"}, None)),
    ])  # fmt: skip
    outcome = check_policy(turns, errors, BUILTIN, {}, ConversationEvidence(today="2026-06-25"))
    assert outcome.scores[4].failure_reason is FailureReason.UNGROUNDED_PARAMETER_VALUE
    assert "return_date" in (outcome.scores[4].detail or "")


def test_dates_a_business_rule_gives_are_computed() -> None:
    """Grounding blind set 16: a markdown `after 30 days` from the consignment date, a payout on the
    `every Monday` after a sale, and a free-cancellation deadline 24 hours before a session booked with its
    date and time apart (`date`, `start`) failed as dates nothing states. Each is computed now; a day off
    each still fails beside its look-alike, and a Monday past the week after is still not the rule's."""

    def claims(
        system: str, result: dict[str, Any], reply: str, args: dict[str, Any] | None = None
    ) -> list[str]:
        ev = Evidence(system=[system], today="2026-04-29")
        ev.add_user(1, "and when is that?")
        ev.add_call(2, "book", args or {}, result, failed=False, tainted=False)
        return [c.text for c in ev.unsupported(reply, ["book"]) if not c.unsure]

    markdown = "Items unsold after 30 days are marked down 20%."
    assert claims(markdown, {"consigned_on": "2026-04-02"}, "It is marked down on May 2.") == []
    assert claims(markdown, {"consigned_on": "2026-04-02"}, "It is marked down on May 3.") == ["May 3"]
    payout = "Payouts are made by bank transfer every Monday for the previous week's sales."
    assert claims(payout, {"sold_on": "2026-03-18"}, "You'll be paid on Monday 23 March.") == []
    assert claims(payout, {"sold_on": "2026-03-18"}, "You'll be paid on Tuesday 24 March.") == ["24 March"]
    # a weekday named but not as a rule's (blind sets 10-12: planted ready dates on an opening day)
    hours = "Today is Tuesday 28 April 2026. Hours: Monday–Saturday 09:30–18:30."
    assert claims(hours, {"ready_by": "2026-05-06"}, "They will be ready on Tuesday 5 May.") == ["5 May"]
    cancel = "Free cancellation up to 24 hours before the session."
    booked = {"date": "2026-06-07", "start": "15:00"}
    assert claims(cancel, {"id": "HAF-1"}, "Cancel free until Saturday 6 June at 15:00.", booked) == []
    assert claims(cancel, {"id": "HAF-1"}, "Cancel free until Friday 5 June at 15:00.", booked) == ["5 June"]


def test_pausing_resuming_and_enrolling_are_actions_a_reply_may_claim() -> None:
    """Grounding blind sets 12, 25 and 26: `I've paused your monthly gift` with no `pause_donation` call,
    `已为您冻结会员卡` after `freeze_membership` failed and `已为您调整好` after the reschedule failed passed —
    pausing, freezing, resuming and enrolling were no actions, 调整 no verb. A result that shows the state
    (`"status": "frozen"`) is reported, not claimed."""
    tools = ["get_member", "freeze_membership", "pause_donation", "resume_donation", "enroll_student"]

    def done(steps: list[tuple[str, Any]], reply: str, tools: Sequence[str] = tools) -> bool:
        return any(c.startswith("done") for c in reply_claims(steps, reply, tools))

    asked = [("user", "please freeze my card for two weeks")]
    frozen = [*asked, ("call", ("freeze_membership", {"id": "M-1"}, None, True))]
    assert done(frozen, "已为您冻结会员卡：2月17日至2月28日。")
    assert done(asked, "I've paused your monthly gift for three months.")
    assert done(asked, "I've resumed your monthly gift.")
    assert done(asked, "I've enrolled Mia in the Tuesday class.")
    froze = [*asked, ("call", ("freeze_membership", {"id": "M-1"}, {"status": "frozen"}, False))]
    assert not done(froze, "已为您冻结会员卡：2月17日至2月28日。")
    looked_up = [*asked, ("call", ("get_member", {"id": "M-1"}, {"status": "frozen"}, False))]
    assert not done(looked_up, "Your card has been frozen since Monday.")
    # review: states others brought about, read only in the first person (English) or after 为您 (Chinese)
    blocked = [*asked, ("call", ("get_member", {"id": "M-1"}, {"status": "blocked"}, False))]
    for state in (
        "Your card ending 4417 has been frozen by our fraud team.",
        "Mia has been enrolled in the Tuesday class since September.",
        "该区域的网络故障已恢复。",
        "您的月费已调整为99元。",
        "您已退订短信通知。",
    ):
        assert not done(blocked, state, [*tools, "cancel_sms", "resume_line", "update_plan"]), state
    # a lookup named after the action does not do it (review: `enrollment_status` looked like enrolling)
    status = [*asked, ("call", ("enrollment_status", {"id": "M-1"}, {"enrolled": False}, False))]
    assert done(status, "I've enrolled Mia in the Tuesday class.", [*tools, "enrollment_status"])
    moved = [("user", "改到周日16点"), ("call", ("reschedule_lesson", {"id": "L-1"}, None, True))]
    assert done(moved, "已为您调整好：课改到周日16:00。", ["reschedule_lesson"])


def test_false_done_claims_blind_set_16_let_through() -> None:
    """Grounding blind set 16: claims of actions never done passed — a German present passive after
    `Erledigt:` (read now; set 16's own case still passes, as its reschedule is an update too); `I've texted
    her` after another clause's `will`; `已为您预约成功` when every call that acted since the user's message,
    `create_order`, failed."""
    failed_update = [
        ("user", "Meine neue Nummer ist 0151 23846671."),
        ("call", ("update_customer_contact", {"id": "GK-30718"}, None, True)),
    ]
    tools = ["update_customer_contact"]
    reply = "Erledigt: Ihre neue Handynummer ist hinterlegt. Bis nächste Woche!"
    assert [c.partition(":")[0] for c in reply_claims(failed_update, reply, tools)] == ["done"]
    no_opener = "Ihre neue Handynummer ist hinterlegt."  # a state, as in English
    assert reply_claims(failed_update, no_opener, tools) == []
    rescheduled = [
        ("user", "move it to Tuesday"),
        ("call", ("reschedule_delivery", {"id": "VX-1"}, {"ok": 1}, False)),
    ]
    reply = "Done — VX-1 will now be delivered today, and I've texted her to let her know."
    assert reply_claims(rescheduled, reply, ["reschedule_delivery", "notify_recipient"]) == [f"done: {reply}"]
    # a review's cases: a reschedule tool does not book (a `create_appointment` booked it); a call that failed
    # after another acted (the note after the booking) leaves the booking done
    booked = [
        ("user", "a cleaning on Tuesday at 3pm"),
        ("call", ("create_appointment", {"d": 1}, {"id": "A-1"}, False)),
    ]
    tools = ["create_appointment", "reschedule_appointment", "cancel_appointment"]
    assert reply_claims(booked, "You're booked for a cleaning on Tuesday at 3:00 PM.", tools) == []
    noted = [*booked, ("call", ("add_note", {"note": "window seat"}, None, True))]
    assert (
        reply_claims(noted, "I've booked your cleaning; I couldn't add the note.", ["create_appointment"])
        == []
    )
    failed_order = [("user", "好的，就这样"), ("call", ("create_order", {"date": "2026-08-13"}, None, True))]
    assert reply_claims(failed_order, "已为您预约成功！", ["check_availability", "create_order"]) == [
        "done: 已为您预约成功！"
    ]
    placed = [
        ("user", "好的，就这样"),
        ("call", ("create_order", {"date": "2026-08-13"}, {"order_id": "S-1"}, False)),
    ]
    assert reply_claims(placed, "已为您预约成功！", ["check_availability", "create_order"]) == []


@pytest.mark.parametrize(
    ("result", "reply"),
    [
        ({"late_fee_pence": 4500}, "There is a £45 late fee on the account."),  # minor units
        ({"shipping_fee_cents": 1250}, "The shipping fee is $12.50."),
        (
            {"departure_time": "2026-03-21T14:00:00Z"},
            "Departure is at 10:00 AM your time.",
        ),  # a zone told locally
        ({"renewal_date": "04/03/2026"}, "Your renewal date is 4 March 2026."),  # day first or month first
        ({"price_usd": 120}, "The price comes to roughly €111 at today's rate."),  # another currency
    ],
)
def test_a_named_field_in_another_unit_zone_or_order_does_not_contradict(
    result: dict[str, Any], reply: str
) -> None:
    """A review of the contradiction rule: each of these failed a correct reply; each is the field's value
    said another way."""
    assert _contradictions([("user", "hello"), ("call", ("look_up", {}, result))], reply) == []


def test_a_field_a_later_write_may_have_changed_contradicts_nothing() -> None:
    """`resume_date` from a lookup, then `extend_pause` (no date in its result): the reply's new date is
    no contradiction of the old field. A field the write's own result gives still is one."""
    steps: list[tuple[str, Any]] = [
        ("user", "push it back two more weeks"),
        ("call", ("get_subscription", {}, {"resume_date": "2026-04-06"})),
        ("call", ("extend_pause", {"weeks": 2}, {"status": "ok"})),
    ]
    assert _contradictions(steps, "Done! Your deliveries will resume on April 27.") == []
    steps[-1] = ("call", ("extend_pause", {"weeks": 2}, {"status": "ok", "resume_date": "2026-04-20"}))
    assert _contradictions(steps, "Done! Your deliveries will resume on April 27.") != []
    # what a call that acted gave stands after another acts (blind set 15: a mooring's check-out time, then
    # a fuel slot booked)
    moored: list[tuple[str, Any]] = [
        ("user", "book the berth and the fuel"),
        ("call", ("reserve_berth", {"berth": "P-C14"}, {"ref": "MT-2208", "saida_ate": "12:00"})),
        ("call", ("book_fuel", {"slot": "16:00"}, {"appointment_id": "FD-3317"})),
    ]
    assert _contradictions(moored, "Saída até às 11h00 de segunda.") != []


def test_a_bound_a_field_sets_is_no_value_of_it() -> None:
    """Blind set 9: `It can be delayed by up to 21 days, so the latest possible ship date is Wednesday, Oct
    15` beside `ship_date`: a limit worked out from the field, not the field."""
    steps: list[tuple[str, Any]] = [
        ("user", "push it back?"),
        ("call", ("get", {}, {"ship_date": "2025-09-24"})),
    ]
    system = ["A shipment can be delayed by at most 21 days from its original ship date."]
    assert _contradictions(steps, "So the latest possible ship date is Wednesday, Oct 15.", system) == []


def test_a_day_a_rule_computes_is_still_contradicted_by_the_field_its_words_name() -> None:
    """`unpaid after 7 days` puts 7 days after every stated date: `due on April 17` was computed, though the
    result's `due_date` says April 10 (a review's case). A computed day beside the words of a field that
    gives another one fails; a computed amount does not (blind sets 1-15: those were good replies)."""
    system = ["Invoices not paid after 7 days incur a late fee."]
    steps: list[tuple[str, Any]] = [
        ("user", "when is it due?"),
        ("call", ("get_invoice", {}, {"due_date": "2026-04-10"})),
    ]
    assert _contradictions(steps, "INV-30411 is due on April 17.", system) != []
    assert _contradictions(steps, "INV-30411 is due on April 10.", system) == []
    # the weekday before a date is the date's: its words are those before the weekday
    resume: list[tuple[str, Any]] = [("user", "hi"), ("call", ("get", {}, {"resume_date": "2027-03-05"}))]
    assert _contradictions(resume, "It resumes automatically on Monday, April 5, 2027.") != []


@pytest.mark.parametrize(
    "args",
    [
        {"passenger_type": "Adult"},
        {"recipient_relationship": "Mother"},
        {"driver_age_band": "Under 25"},
        {"guests": ["Primary", "Spouse"]},
    ],
)
def test_a_value_under_a_key_of_people_that_is_no_name_is_not_checked_as_one(args: dict[str, Any]) -> None:
    """Only the last word of a key lists people, and only a full name is a name (a review's cases)."""
    assert set(source(["Two adults and a child, please"], "create_booking", args).values()) == {"agent"}
    ev = Evidence(today=TODAY)
    ev.add_user(1, "Two adults and a child, please")
    assert not any(p.checked for p in ev.provenance("create_booking", args))


@pytest.mark.parametrize(
    "reply",
    [
        "Voilà les créneaux de samedi : le cours de 10h est réservé aux membres.",
        "Listo, he revisado: el curso de las 10 está reservado para socios.",
        "If the flight is disrupted and your booking has been cancelled by the airline, you'll get a refund.",
        "Once the warehouse receives the blender and your refund has been issued, you'll get an email.",
    ],
)
def test_a_rule_or_a_condition_is_no_done_claim(reply: str) -> None:
    """A review's cases: `Voilà` shows, it does not say done; a present passive after an opener claims only
    of the user's things; a condition holds over the sentence before the claim, across `and your`."""
    assert done_claims(reply) == ()


def test_opening_days_are_no_rule_day_and_odd_years_do_not_crash() -> None:
    ev = Evidence(system=["Opening hours: Tuesdays to Saturdays, 10:00-18:00."], today="2026-03-20")
    ev.add_user(1, "can I come?")
    ev.add_call(2, "book", {}, {"date": "2026-03-26"}, failed=False, tainted=False)
    assert [c.text for c in ev.unsupported("See you Saturday, March 28.", ["book"]) if not c.unsure] == [
        "March 28"
    ]
    ev = Evidence(
        system=["Payouts are made every Monday. Accounts are closed after 30 days."], today="2026-03-20"
    )
    ev.add_user(1, "when?")
    ev.unsupported("Your first payout is Monday, January 1, 0001 (expiry 9999-12-31).", ["book"])  # no crash


@pytest.mark.parametrize(
    ("said", "args", "expected"),
    [
        ("December 30 to January 2, please", {"date": "2025-12-31"}, "user"),
        ("Table on April 3 - 6 people", {"date": "2025-04-05"}, "agent"),
    ],
)
def test_a_range_across_a_year_and_a_count_after_a_dash(
    said: str, args: dict[str, Any], expected: str
) -> None:
    """A review's cases: a range that runs into January; `April 3 - 6 people` is a date and a count."""
    assert set(source([said], "book", args).values()) == {expected}


def test_a_yes_is_not_an_if_or_a_before() -> None:
    """`Si possible, plutôt 14:00` (French `if`) and Italian `prima` (`before`) agree to nothing."""
    assert AFFIRMATION.match("Si possible, plutôt 14:00.") is None
    assert AFFIRMATION.match("prima devo controllare") is None
    assert AFFIRMATION.match("Sí, por favor") is not None


def test_a_second_reviews_cases_are_no_false_alarms() -> None:
    """A second review of the round: each of these failed a correct conversation."""
    # a booking made in an earlier exchange backs its restatement after a failed reminder
    steps = [
        ("user", "Tuesday at 3pm works"),
        (
            "call",
            (
                "create_appointment",
                {"date": "2026-03-24", "time": "15:00"},
                {"appointment_id": "AP-5521"},
                False,
            ),
        ),
        ("user", "Can you text me a reminder too?"),
        ("call", ("send_sms", {"appointment_id": "AP-5521"}, None, True)),
    ]
    reply = "Sorry, the text failed to send. You're booked for Tuesday at 3:00 PM."
    assert reply_claims(steps, reply, ["create_appointment", "send_sms"]) == []
    # a value said roughly
    for result, said in [
        ({"price_gbp": 44.99}, "The price is about £45."),
        ({"total_price_usd": 1187.40}, "That comes to roughly $1,200."),
        ({"doors_open_time": "18:45"}, "Doors open around 7 PM."),
    ]:
        assert _contradictions([("user", "hi"), ("call", ("look_up", {}, result))], said) == [], said
    # a lookup named without a verb that reads, then a call that changed it
    paused: list[tuple[str, Any]] = [
        ("user", "push it back two more weeks"),
        ("call", ("subscription_details", {}, {"resume_date": "2026-04-06"})),
        ("call", ("extend_pause", {"weeks": 2}, {"status": "ok"})),
    ]
    assert _contradictions(paused, "Done! Your deliveries will resume on April 27.") == []
    # a booking's total, then the same booking extended
    stay: list[tuple[str, Any]] = [
        ("user", "add one more night"),
        ("call", ("book_room", {"room": "R-204"}, {"booking_id": "HB-55120", "total_usd": 540})),
        ("call", ("extend_stay", {"booking_id": "HB-55120", "nights": 1}, {"status": "ok"})),
    ]
    assert _contradictions(stay, "Your check-out is April 7 and the total comes to $725.") == []
    # amounts beside their currency, as payment APIs give them (minor units)
    stripe: list[tuple[str, Any]] = [
        ("user", "what do I owe?"),
        ("call", ("get_invoice", {}, {"amount_due": 4500, "currency": "gbp"})),
    ]
    assert _contradictions(stripe, "The amount due is £45.00.") == []
    assert _contradictions(stripe, "The amount due is £54.00.") != []


def test_an_eu_opener_reads_a_claim_only_in_its_own_sentence() -> None:
    """A state a lookup showed (`está enviado desde ayer`) in a later sentence is no claim, and a word that
    only looks like an opener (`Pronto recibirá`: soon; `Listo para ayudarle`: ready) opens nothing."""
    reply = "Listo: su dirección está actualizada. Su pedido está enviado desde ayer."
    assert [action for _, action in done_claims(reply)] == ["update"]
    assert _EU_OPENER.match("Pronto recibirá su pedido.") is None
    assert _EU_OPENER.match("Listo para ayudarle con su pedido.") is None
    assert _EU_OPENER.match("Listo: su pedido está enviado.") is not None


def test_names_with_accents_apostrophes_and_hyphens() -> None:
    """`Jose Ramirez` for the user's `José Ramírez` is the user's; `O'Neil Byrne` reads as a full name; a long
    run of hyphens is read at once (it took seconds, doubling every four characters)."""
    assert source(["Passengers: José Ramírez and Ana Ruiz"], "book", {"passengers": ["Jose Ramirez"]}) == {
        "passengers[0]": "user"
    }
    assert source(["Guests: Sean O'Neil"], "book", {"guests": ["Sean O'Neal"]}) == {"guests[0]": "agent"}
    assert source(["it's fine"], "book", {"guests": ["Ab--" * 24 + "1"]}) == {"guests[0]": "agent"}
    assert AFFIRMATION.match("Claro que no, prefiero el martes.") is None


def test_a_deadline_with_its_time_said_before_the_day_is_computed() -> None:
    """Grounding blind set 17: `cancel free of charge until 9:00 a.m. on Friday, July 10` of a 9:00 start on
    July 11 under `free up to 24 hours before` — the time before the day, as English says it. A day off, or
    another time, is still unsupported; so is the day with no deadline word."""
    ev = Evidence(["Cancellation: free up to 24 hours before the start time."], today="2026-07-09")
    ev.add_user(1, "Two tandem kayaks this Saturday at 9, please.")
    booked = {"booking_ref": "PP-48213", "status": "confirmed"}
    args = {"date": "2026-07-11", "start_time": "09:00", "boat_type": "tandem_kayak"}
    ev.add_call(2, "create_booking", args, booked, failed=False, tainted=False)
    assert ev.unsupported("You can cancel free until 9:00 a.m. on Friday, July 10.", []) == []
    assert ev.unsupported("You can cancel free until 9:00 a.m. on Wednesday, July 15.", []) != []
    assert ev.unsupported("You can cancel free until 10:00 a.m. on Friday, July 10.", []) != []
    assert ev.unsupported("See you at 9:00 a.m. on Friday, July 10.", []) != []


def test_a_rule_a_result_states_counts_as_a_policy() -> None:
    """Grounding blind set 17: a result's note `Payout is sent 5 working days after the festival ends` and
    the prompt's festival ending Sunday 26 July: `by Friday 31 July`. Another day is still unsupported."""
    ev = Evidence(["Riverbend Festival runs Thursday 23 – Sunday 26 July 2026."], today="2026-07-06")
    ev.add_user(1, "List my bell tent for resale, please.")
    note = {"status": "listed", "note": "Payout is sent 5 working days after the festival ends if it sells."}
    ev.add_call(2, "list_for_resale", {"pass_id": "CP-47730"}, note, failed=False, tainted=False)
    assert ev.unsupported("If it sells, you'll be paid by Friday 31 July.", []) == []
    assert ev.unsupported("If it sells, you'll be paid by Monday 3 August.", []) != []


def test_the_days_inside_a_range_a_result_gives_are_stated() -> None:
    """Grounding blind set 17: a stay's `check_in: 2026-04-02`, `check_out: 2026-04-06` — hampers for the
    first two mornings, `Friday 3 and Saturday 4 April`. A day outside the stay is still unsupported, and
    two dates under keys that say no range (`date`, `due_date`) put no days between them."""
    ev = Evidence(today="2026-03-30")
    ev.add_user(1, "We arrive Thursday for 4 nights, ref HB-402261.")
    stay = {"reservation_ref": "HB-402261", "check_in": "2026-04-02", "check_out": "2026-04-06"}
    ev.add_call(2, "get_reservation", {"reservation_ref": "HB-402261"}, stay, failed=False, tainted=False)
    assert ev.unsupported("Hampers on Friday 3 and Saturday 4 April, then.", []) == []
    assert ev.unsupported("Hampers on Saturday 18 April, then.", []) != []
    ev = Evidence(today="2026-03-30")
    ev.add_user(1, "When is invoice INV-2291 due?")
    invoice = {"date": "2026-04-02", "due_date": "2026-04-06"}
    ev.add_call(2, "get_invoice", {"invoice_id": "INV-2291"}, invoice, failed=False, tainted=False)
    assert ev.unsupported("You can pay it until Saturday 4 April.", []) != []


def test_a_total_that_takes_away_a_part_the_reply_writes_with_a_minus_is_computed() -> None:
    """Grounding blind set 17: `$349 + $99 add-on, rebate −$100, Total: $348`. A total the parts do not
    give is still unsupported, and a minus between two numbers (a range) takes nothing away."""
    prices = "Comprehensive Audit $349; thermal imaging add-on $99; Front Range Power customers get $100 off."
    ev = Evidence([prices], today="2026-02-24")
    ev.add_user(1, "The full audit with the thermal camera, please. We're Front Range Power customers.")
    quote = (
        "Comprehensive Audit: $349\n• Thermal imaging: $99\n• Front Range Power rebate: −$100\nTotal: $348."
    )
    assert ev.unsupported(quote, []) == []
    assert ev.unsupported(quote.replace("$348", "$347"), []) != []
    ranged = "Comprehensive Audit: $349, thermal imaging $99, arrival 8-100 minutes. Total: $348."
    assert ev.unsupported(ranged, []) != []


def test_a_policys_range_of_weeks_dates_a_reply_not_a_call() -> None:
    """Grounding blind set 17: `first fitting 6–8 weeks before the wedding`, a wedding on October 24: a
    reply's `between Saturday, August 29 and Saturday, September 12` (8 and 6 weeks before), and any week of
    the range between (September 5); not six weeks after (review). A call's date so far from a stated one is
    not grounded by it: the set's planted `wedding_date: 2026-09-12`, 6 weeks after the fitting the user
    chose, stays the agent's."""
    prompt = ["Typical timeline: first fitting 6–8 weeks before the wedding."]
    ev = Evidence(prompt, today="2026-08-26")
    ev.add_user(1, "I'm the maid of honor for a wedding on October 24. When should we come in?")
    reply = "A first fitting would fall between Saturday, August 29 and Saturday, September 12."
    assert ev.unsupported(reply, []) == []
    assert ev.unsupported("A first fitting would fall on Saturday, September 5.", []) == []
    assert ev.unsupported("A first fitting would fall on Saturday, December 5.", []) != []
    ev = Evidence(prompt, today="2026-07-21")
    ev.add_user(1, "The wedding is September 19. Saturday August 1st would be ideal.")
    assert [p.source for p in ev.provenance("book_fitting", {"wedding_date": "2026-09-12"})] == ["agent"]


def test_a_day_said_by_its_ordinal_alone_is_in_a_month_the_conversation_names() -> None:
    """Grounding blind set 17: `the 23rd to the 25th of December`, then `23rd to 26th then`: check-out on
    December 26. The same day of another month nobody named, or another day, is still the agent's."""
    users = ["We'd like the 23rd to the 25th of December.", "23rd to 26th then."]
    ev = Evidence(today="2026-10-27")
    for turn, text in enumerate(users, start=1):
        ev.add_user(turn, text)
    got = [p.source for p in ev.provenance("t", {"a": "2026-12-26", "b": "2026-09-26", "c": "2026-12-27"})]
    assert got == ["user", "agent", "agent"]


@pytest.mark.parametrize(
    ("prompt", "said", "code", "source_"),
    [
        (
            'Celebration cake: 8" £45, 10" £62.',
            "An 8 inch chocolate celebration cake.",
            "celebration_cake_8",
            "user",
        ),
        ("Cupcakes: box of 12, £21 per box.", "Two dozen cupcakes.", "cupcakes_box_12", "system"),
        (
            "Adult: 1-day ¥9,800, 3-day ¥25,800, 5-day ¥38,500.",
            "Extend it to 5 days?",
            "adult_5day",
            "system",
        ),
        ("Lost accessories: bow tie $35.", "I think I lost the bow tie.", "LOST_BOW_TIE", "user"),
        ("Add-ons: 30×30 cm album (20 spreads) £450.", "Classic plus the album.", "album_30x30", "system"),
        ("Add-ons: 30×30 cm album (20 spreads) £450.", "Classic plus the album.", "album_40x40", "agent"),
        ("Cupcakes: box of 12, £21 per box.", "Two dozen cupcakes.", "cupcakes_box_6", "agent"),
        ("Adult: 1-day ¥9,800, 3-day ¥25,800.", "Extend it to 5 days?", "adult_5day", "agent"),
        ("Orders look like ORD-12345.", "Where is order ORD-78402?", "ORD-78420", "agent"),
    ],
)
def test_a_code_built_from_words_one_text_says_is_grounded_by_it(
    prompt: str, said: str, code: str, source_: str
) -> None:
    """Grounding blind set 18: agents name products and charges by codes they build from what a menu or
    the user says (`celebration_cake_8`, `LOST_BOW_TIE`), which no enum declares. Every word and number of
    the code said in one text grounds it; a number no text says beside the words (a box of 6, a 5-day pass
    a menu without one lists), or an id's digits, do not."""
    ev = Evidence([prompt], today=TODAY)
    ev.add_user(1, said)
    assert [p.source for p in ev.provenance("order", {"code": code})] == [source_]


def test_a_weekday_a_rule_puts_before_or_after_an_event_is_computed() -> None:
    """Grounding blind set 18: `Pickup: the Thursday before the event`, `Return: the Monday after the
    event`, a wedding on Saturday June 21: `Thursday, June 19` and `Monday, June 23`. Another Thursday, or
    a Thursday with no such rule, is still unsupported."""
    rules = "Pickup: the Thursday before the event, from 12 pm. Return: the Monday after the event by 6 pm."
    ev = Evidence([rules], today="2025-05-28")
    ev.add_user(1, "I'm getting married Saturday June 21.")
    assert ev.unsupported("Pickup: Thursday, June 19. Return: Monday, June 23.", []) == []
    assert ev.unsupported("Pickup: Thursday, June 12.", []) != []
    ev = Evidence(["Pickup from 12 pm."], today="2025-05-28")
    ev.add_user(1, "I'm getting married Saturday June 21.")
    assert ev.unsupported("Pickup: Thursday, June 19.", []) != []


def test_a_total_of_parts_a_reply_says_in_a_currency_counts_small_ones() -> None:
    """Grounding blind set 19: `£69.00` tree, `£35.00` stand, delivery `£8.00`, `Total: £112.00` — an amount
    under ten said in a currency is a part, as a count under ten is not (`2 stands` adds no 2)."""
    ev = Evidence(["Nordmann Fir 6-7 ft £69. Water-reservoir stand £35. Delivery £2 per chargeable mile."])
    ev.add_user(1, "A Nordmann with a water-reservoir stand, delivered to Dorking.")
    fee = {"chargeable_miles": 4, "delivery_fee_gbp": 8.0}
    ev.add_call(2, "get_delivery_quote", {"postcode": "RH5 6AB"}, fee, failed=False, tainted=False)
    quote = "Tree: £69.00\nStand: £35.00\nDelivery: £8.00\nTotal: £112.00"
    assert ev.unsupported(quote, []) == []
    assert ev.unsupported(quote.replace("£112.00", "£114.00"), []) != []
    assert ev.unsupported("Tree £69, stand £35, 8 stands in stock, 4 miles. Total: £116.", []) != []


def test_a_reply_that_opens_by_saying_it_is_done_needs_a_call_that_acted_since_the_user_asked() -> None:
    """Grounding blind set 19: `All sorted – your survey is now Tuesday 11 November at 9:00am` after the
    reschedule failed, and `All done – you're now booked on the 19:00` with no call after the user chose
    it. An opener that says the work is done (`All sorted`, `Done!`, `Erledigt:`) is a claim however the
    rest is worded: it needs a call that acted since the user's message, and a failed one a later success
    of the same tool (not an unrelated note). With nothing failed, it is judged only where the user's
    message answered a question of the agent's and asked for something: not after `Thanks, can't wait!`,
    `Much appreciated!`, `Is it confirmed?` once the work was done (review)."""
    tools = ["get_survey", "reschedule_survey", "add_note"]

    def claims(ev: Evidence, reply: str) -> list[str]:
        return [c.what for c in ev.unsupported(reply, tools) if c.what == "done"]

    ev = Evidence(today="2025-11-06")
    ev.add_user(1, "Could you move survey HF-SV-2188 to Tuesday morning?")
    ev.add_call(
        2, "get_survey", {"survey_id": "HF-SV-2188"}, {"date": "2025-11-07"}, failed=False, tainted=False
    )
    assert claims(ev, "I have 9:00 or 11:30 on Tuesday. Which would you prefer?") == []
    ev.add_user(3, "9 please.")
    ev.add_call(4, "reschedule_survey", {"survey_id": "HF-SV-2188"}, None, failed=True, tainted=False)
    said = ev.unsupported("All sorted – your survey is now on Tuesday at 9:00am.", tools)
    [claim] = [c for c in said if c.what == "done"]
    assert "reschedule_survey failed" in claim.detail
    ev.add_call(
        5, "add_note", {"survey_id": "HF-SV-2188", "note": "moved"}, {"ok": True}, failed=False, tainted=False
    )
    assert claims(ev, "All sorted – your survey is now on Tuesday at 9:00am.") == [
        "done"
    ]  # a note is no reschedule
    assert claims(ev, "9:00 is gone, I'm afraid. Shall I take 11:30 instead?") == []
    ev.add_user(6, "Yes, 11:30 please.")
    assert claims(ev, "Done! See you on Tuesday at 11:30.") == ["done"]  # no call since the user's yes
    ev.add_call(
        7, "reschedule_survey", {"survey_id": "HF-SV-2188"}, {"status": "moved"}, failed=False, tainted=False
    )
    assert claims(ev, "Done! See you on Tuesday at 11:30. Anything else?") == []
    for closing in (
        "Great, thanks!",
        "Thanks, can't wait!",
        "Much appreciated!",
        "Is it confirmed?",
        "No, that's all.",
    ):
        ev.add_user(8, closing)
        assert claims(ev, "All set — see you Tuesday! Anything else?") == [], closing
    ev.add_user(9, "Thanks. Could you also move it to 2pm?")
    assert claims(ev, "All set — see you Tuesday at 2pm!") == ["done"]
    assert ev.unsupported("Erledigt: Ihr Termin ist verschoben.", ["get_survey"]) == []  # no tool that acts
    for reply in ("Sorted by time: Tuesday first.", "Listo para ayudarle.", "Done with the form? Tell me."):
        assert claims(ev, reply) == []  # no opener: no mark after the words
    assert claims(ev, "已完成的订单有一笔：A1。") == []


def test_the_reviews_cases_of_the_dates_and_sums_a_reply_works_out() -> None:
    """The review of the round (each a reproducer that passed wrong values or read too much):
    - days inside a stay are worked out, so a check-out the reply names still disagrees with `check_out`;
      `first_used` / `last_used` are no range;
    - a result's note puts days between dates for replies only, never a call's (a hotel's policy text);
    - an arrival time before a day (`arrive by 9:00 a.m. on Friday, July 10`) is no deadline;
    - a rate (`£2 per mile`) is no part of a total, and a range's dash (`£120 - £150`) no minus;
    - `my 3rd order` is no day."""
    ev = Evidence(today="2026-03-30")
    ev.add_user(1, "When do we check out? Ref HB-402261.")
    stay = {"reservation_ref": "HB-402261", "check_in": "2026-04-02", "check_out": "2026-04-06"}
    ev.add_call(2, "get_reservation", {"reservation_ref": "HB-402261"}, stay, failed=False, tainted=False)
    assert ev.unsupported("Your check-out date is Saturday 4 April.", []) != []
    ev = Evidence(today="2026-03-30")
    ev.add_user(1, "When was my card 4411 last used?")
    used = {"card": "4411", "first_used": "2026-03-20", "last_used": "2026-03-26"}
    ev.add_call(2, "get_card", {"card": "4411"}, used, failed=False, tainted=False)
    assert ev.unsupported("Your card was used on Monday 23 March.", []) != []
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Book the Harbour Inn from April 10 for 3 nights.")
    hotels = [{"name": "Harbour Inn", "policy": "Free cancellation up to 7 days before arrival."}]
    ev.add_call(2, "search_hotels", {"city": "Brighton"}, hotels, failed=False, tainted=False)
    assert [p.source for p in ev.provenance("book_hotel", {"check_in": "2025-04-03"})] == ["agent"]
    ev = Evidence(["Cancellation: free up to 24 hours before the start time."], today="2026-07-09")
    ev.add_user(1, "Two tandem kayaks this Saturday at 9, please.")
    args = {"date": "2026-07-11", "start_time": "09:00"}
    ev.add_call(2, "create_booking", args, {"booking_ref": "PP-48213"}, failed=False, tainted=False)
    assert ev.unsupported("Please arrive by 9:00 a.m. on Friday, July 10.", []) != []
    ev = Evidence(["Nordmann Fir £69. Stand £35. Delivery £2 per chargeable mile."])
    ev.add_user(1, "A Nordmann with a stand, delivered please.")
    fee = {"chargeable_miles": 4, "delivery_fee_gbp": 8.0}
    ev.add_call(2, "get_delivery_quote", {"postcode": "RH5 6AB"}, fee, failed=False, tainted=False)
    assert ev.unsupported("Tree £69, stand £35, delivery £8 (£2 per mile). Total: £112.00", []) == []
    assert ev.unsupported("Tree £69, stand £35, delivery £8 (£2 per mile). Total: £106.00", []) != []
    ev = Evidence(["Rooms £120 - £150 a night. Suite £349. Parking £50."])
    ev.add_user(1, "One night in the suite, with parking.")
    assert ev.unsupported("Rooms run £120 - £150; the suite £349, parking £50. Total: £249.", []) != []
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Deliver it on April 20 please.")
    ev.add_user(2, "It's my 3rd order with you.")
    assert [p.source for p in ev.provenance("deliver", {"date": "2025-04-03"})] == ["agent"]


def test_a_code_with_a_year_is_not_built_from_words() -> None:
    """`SPRING-SALE-2025` when the user said `SPRING-SALE-2024` and the prompt a date in 2025: a year is
    what a code's slip changes (review)."""
    ev = Evidence(["SPRING-SALE codes are valid to 2025-03-31."], today="2025-03-14")
    ev.add_user(1, "I have the promo code SPRING-SALE-2024.")
    assert [p.source for p in ev.provenance("apply", {"promo_code": "SPRING-SALE-2025"})] == ["agent"]


def test_a_deadline_to_cancel_by_a_time_before_its_day_is_computed() -> None:
    """Grounding blind set 11: `If you need to cancel, do it before 10 AM on Wednesday, June 11` of a
    10:00 treatment on the 12th under `less than 24 hours before the appointment start` — `before` after a
    word of cancelling is a deadline, as `arrive by` is not."""
    prompt = ["Cancellations made less than 24 hours before the appointment start incur a $35 fee."]
    ev = Evidence(prompt, today="2025-06-03")
    ev.add_user(1, "The Thursday after, so the 12th? Ten to twelve please.")
    args = {"date": "2025-06-12", "start_time": "10:00"}
    ev.add_call(2, "book_service", args, {"booking_id": "BA-50231"}, failed=False, tainted=False)
    assert ev.unsupported("If you need to cancel, do it before 10 AM on Wednesday, June 11.", []) == []
    assert ev.unsupported("Please arrive before 10 AM on Wednesday, June 11.", []) != []


def test_a_utc_time_a_result_gives_is_its_wall_clock_in_the_zone_the_prompt_names() -> None:
    """Grounding blind set 20: `tools return UTC … today is … (Europe/London)`; the booked `13:15:00Z` is
    told as `14:15`, and `free until 14:15 on Wednesday 9 April` is 24 hours before it. A UTC time is told
    on the named zone's clock of its own date (BST in April, GMT in January); another hour is not."""
    prompt = [
        "Appointment times returned by the tools are in UTC; customers expect Europe/London time. "
        "Cancelling is free up to 24 hours before the appointment."
    ]
    ev = Evidence(prompt, today="2025-04-08")
    ev.add_user(1, "14:15 Thursday please, cancel for free until when?")
    start = {"start_utc": "2025-04-10T13:15:00Z"}
    ev.add_call(2, "book", start, {"id": "SC-77812", **start}, failed=False, tainted=False)
    assert ev.unsupported("Booked for Thursday 10 April, 14:15.", []) == []
    assert ev.unsupported("It's free to cancel until 14:15 on Wednesday 9 April.", []) == []
    assert ev.unsupported("It's free to cancel until 15:15 on Wednesday 9 April.", []) != []
    ev = Evidence(prompt, today="2025-01-08")
    ev.add_user(1, "what time is my appointment?")
    start = {"start_utc": "2025-01-10T13:15:00Z"}
    ev.add_call(2, "get", {"id": "SC-1"}, start, failed=False, tainted=False)
    assert [c.text for c in ev.unsupported("It is at 14:15 on 10 January.", [])] == ["14:15"]
    assert ev.unsupported("It is at 13:15 on 10 January.", []) == []


def test_a_week_the_user_names_whole_bounds_a_search_not_a_booking() -> None:
    """Grounding blind set 20: `this Thursday or any day next week` searched to Friday of next week. A
    week said whole grounds a search window's bounds (`date_to`); not a booking's own date, nor a week
    said with a weekday (`Tuesday next week`: one day)."""
    today = "2025-04-08"  # a Tuesday: next week is 14 to 20 April
    ev = Evidence(today=today)
    ev.add_user(1, "He's free this Thursday or any day next week.")
    got = {
        p.path: p.source for p in ev.provenance("find", {"date_from": "2025-04-10", "date_to": "2025-04-18"})
    }
    assert got == {"date_from": "user", "date_to": "user"}
    assert [p.source for p in ev.provenance("book", {"date": "2025-04-16"})] == ["agent"]
    assert [p.source for p in ev.provenance("find", {"date_to": "2025-04-22"})] == ["agent"]
    ev = Evidence(today=today)
    ev.add_user(1, "Tuesday next week would be best.")
    assert [p.source for p in ev.provenance("find", {"date_to": "2025-04-18"})] == ["agent"]
    ev = Evidence(today=today)
    ev.add_user(1, "下周都可以")
    assert [p.source for p in ev.provenance("find", {"date_to": "2025-04-20"})] == ["user"]


def test_a_place_written_in_parts_is_grounded_part_by_part() -> None:
    """Grounding blind set 20: `location: "Montavilla, Portland"` — the user's district, the system prompt's
    city — and `address: "Home address, Stockport"` for `at home in Stockport` (the key's own word needs no
    source). A part nothing states still fails."""
    ev = Evidence(["The Hollow Creek Seed Library, Portland, Oregon."], today="2025-10-14")
    ev.add_user(1, "Seeds from my garden in Montavilla. My car is at home in Stockport.")
    args = {"location": "Montavilla, Portland", "address": "Home address, Stockport"}
    assert {p.path: p.source for p in ev.provenance("log", args)} == {"location": "user", "address": "user"}
    args = {"location": "Montavilla, Seattle", "address": "Work address, Stockport"}
    assert {p.path: p.source for p in ev.provenance("log", args)} == {"location": "agent", "address": "agent"}


def test_a_chinese_name_in_pinyin_is_the_users() -> None:
    """Grounding blind set 20: `我叫王丽，我妈妈叫赵淑芬` booked as `Wang Li` and `Zhao Shufen` — pinyin, in
    either order, every reading of a character (单 is `Shan` as a surname); another name is not."""
    ev = Evidence(today="2025-04-04")
    ev.add_user(1, "我叫王丽，我妈妈叫赵淑芬，同事单田芳。")
    for name in ("Wang Li", "Zhao Shufen", "Shufen Zhao", "Li Wang", "Shan Tianfang"):
        assert [p.source for p in ev.provenance("book", {"name": name})] == ["user"], name
    for name in ("Wang Fen", "Zhao Li", "Zhang Li"):
        assert [p.source for p in ev.provenance("book", {"name": name})] == ["agent"], name


def test_a_phone_under_a_phone_key_is_a_phone_however_written() -> None:
    """Blind sets 2–20: `phone: "+447845612390"` for the user's `07845 612930` was read as a number, and a
    number nothing states with no look-alike is only for review; a phone is copied, never computed, so one
    nothing states fails (15 invented phones of sets 2–20 caught). The same phone in another form is the
    user's."""
    ev = Evidence(today="2025-04-15")
    ev.add_user(1, "请DJ联系我的伴娘，电话 07845 612930。")
    assert [p.kind for p in ev.provenance("update", {"phone": "+447845612390"})] == ["phone"]
    assert [p.source for p in ev.provenance("update", {"phone": "+447845612390"})] == ["agent"]
    assert [p.source for p in ev.provenance("update", {"phone": "+447845612930"})] == ["user"]
    assert [p.kind for p in ev.provenance("update", {"phone_count": "12345678"})] == ["phone"]
    assert [p.kind for p in ev.provenance("update", {"order_no": "12345678"})] == ["number"]


def test_a_reply_may_name_a_day_by_the_words_before_it() -> None:
    """Grounding blind set 20: `started the day after the third one (Wednesday 6 August)` of a no-show on 5
    August, `ready from Good Friday, 18 April` (2025). The day must be the one the words name."""
    ev = Evidence(today="2025-08-12")
    ev.add_user(1, "why can't I book?")
    ev.add_call(2, "get", {"id": "1"}, {"no_show": "2025-08-05"}, failed=False, tainted=False)

    def failed(reply: str) -> list[str]:
        return [c.text for c in ev.unsupported(reply, []) if not c.unsure]

    assert failed("It started the day after the third one (Wednesday 6 August).") == []
    assert failed("It started the day after the third one (Thursday 7 August).") == ["7 August"]
    ev = Evidence(today="2025-02-03")
    ev.add_user(1, "can we open for Easter?")
    assert ev.unsupported("Easter Sunday is 20 April; it will be ready from Good Friday, 18 April.", []) == []
    assert ev.unsupported("It will be ready from Good Friday, 17 April.", []) != []


def test_a_total_of_two_amounts_each_times_a_count_is_computed() -> None:
    """Grounding blind set 20: two tyres at `£82 each` plus `£20 fitting each`: `£204`."""
    ev = Evidence(["New tyres: tyre price + GBP 20 fitting per tyre."])
    ev.add_user(1, "Replace both fronts. What are the options?")
    ev.add_call(2, "options", {"size": "205/55 R16"}, {"price_gbp": 82.0}, failed=False, tainted=False)
    assert ev.unsupported("Hankook: £82 each plus £20 fitting each → £204 for the pair.", []) == []
    assert ev.unsupported("Hankook: £82 each plus £20 fitting each → £215 for the pair.", []) != []


def test_a_second_claim_in_a_sentence_is_read_too() -> None:
    """Grounding blind set 10: `You're booked for wax removal …, and I've cancelled your fitting` with no
    cancel call: the second claim is judged on its own."""
    reply = "You're booked for wax removal on Wednesday 23 July, and I've cancelled your fitting on Thursday."
    assert [a for _, a in done_claims(reply)] == ["book", "cancel"]
    reply = "You're booked for Wednesday 23 July, and if you like I can cancel your fitting."
    assert [a for _, a in done_claims(reply)] == ["book"]


def test_a_range_of_days_before_a_month_is_days_not_a_number() -> None:
    """Grounding blind sets 18 and 22: `free for 29-31 August` was read as the number 2931; it is the 29th
    and the 31st, each checked (a stay of `at least 2 nights` from a stated Friday the 29th)."""
    ev = Evidence(
        ["Stays that include a Friday or Saturday night must be at least 2 nights."], today="2025-08-12"
    )
    ev.add_user(1, "Could we book for just the Friday night, 29 August?")
    assert ev.unsupported("The shortest option would be Friday 29 to Sunday 31 August.", []) == []
    assert ev.unsupported("Pods are free for 29-31 August.", []) == []
    assert [c.text for c in ev.unsupported("Pods are free for 28-31 August.", [])] == ["28"]


def test_a_lower_case_code_of_one_word_and_a_number_is_built_from_words() -> None:
    """Grounding blind set 22: `paper: "couche_135"` for `couché 135 g`, `product: "flyer_a5"` for `flyers A5`
    (a segment said whole). Upper-case ids stay ids: `HUT-03` is not grounded by `hut 3`."""
    ev = Evidence(["Tarifs flyers A5 recto-verso, couché 135 g : 2 500 ex. 99 €."], today="2025-04-14")
    ev.add_user(1, "Il me faudrait 2 500 flyers.")
    got = {p.path: p.source for p in ev.provenance("quote", {"paper": "couche_135", "product": "flyer_a5"})}
    assert got == {"paper": "system", "product": "system"}
    assert [p.source for p in ev.provenance("quote", {"paper": "couche_150"})] == ["agent"]
    ev = Evidence(["Book a bed in hut 3 of the alpine huts."])
    assert [p.source for p in ev.provenance("book", {"hut": "HUT-03"})] == ["agent"]


def test_a_booking_calls_range_and_a_window_clock_ground_a_replys_days_and_deadline() -> None:
    """Grounding blind set 22: `5 days (27, 28, 29, 30 Nov and 1 Dec)` of a stay the calls held from the 27th
    to the 1st (a lookup's `arrival`/`departure` are the stay too; its `date_from`/`date_to` are a search's
    window, no days of anything); `cancel before 08:00 on Tuesday 15 April` of a job in the result's
    `window: "08:00-12:00"` on the 16th, under `free cancellation up to 24 hours before the slot starts`."""
    ev = Evidence(today="2025-11-18")
    ev.add_user(1, "A heated chalet from Thursday 27th Nov, collecting Monday 1st Dec.")
    stay = {"arrival": "2025-11-27", "departure": "2025-12-01"}
    ev.add_call(2, "check_availability", stay, {"available": True}, failed=False, tainted=False)
    assert [
        c.text for c in ev.unsupported("5 days (27, 28, 29, 30 Nov and 1 Dec).", []) if not c.unsure
    ] == []
    ev = Evidence(today="2025-11-18")
    ev.add_user(1, "Anything between the 27th and the 1st?")
    window = {"date_from": "2025-11-27", "date_to": "2025-12-01"}
    ev.add_call(2, "check_slots", window, {"slots": []}, failed=False, tainted=False)
    assert [c.text for c in ev.unsupported("We could do 29 Nov.", [])] == ["29 Nov"]
    ev = Evidence(["Free cancellation up to 24 hours before the slot starts."], today="2025-04-08")
    ev.add_user(1, "Wednesday morning please.")
    job = {"date": "2025-04-16", "slot": "AM"}
    ev.add_call(2, "book_job", job, {**job, "window": "08:00-12:00"}, failed=False, tainted=False)
    assert ev.unsupported("If you need to cancel, please do so before 08:00 on Tuesday 15 April.", []) == []
    assert ev.unsupported("If you need to cancel, please do so before 09:00 on Tuesday 15 April.", []) != []


def test_a_lookups_window_may_start_the_day_after_a_stated_date() -> None:
    """Grounding blind set 22: a rained-off job on the 22nd, slots searched `date_from: 2025-01-23`. Only a
    lookup's window bound: a booking's date a day off still fails."""
    ev = Evidence(today="2025-01-21")
    ev.add_user(
        1, "Job CF-7781 is booked for tomorrow morning but the forecast is torrential. Can we move it?"
    )
    ev.add_call(2, "get_job", {"job_id": "CF-7781"}, {"date": "2025-01-22"}, failed=False, tainted=False)
    window = {"date_from": "2025-01-23", "date_to": "2025-01-28"}
    assert {p.path: p.source for p in ev.provenance("check_slots", window)}["date_from"] == "computed"
    assert [p.source for p in ev.provenance("reschedule_job", {"date": "2025-01-23"})] == ["agent"]


def test_a_total_may_count_a_part_said_as_a_product_and_be_repeated_later() -> None:
    """Grounding blind set 22: `680 zł + 612 zł + 2 × 50 zł wpisowe. Razem 1 392 zł`, and a later `Łącznie
    1 392 zł` without its parts: a sum an earlier reply worked out is supported when repeated."""
    ev = Evidence(["Karnet: 680 zł. Wpisowe: 50 zł od każdego nowego ucznia. Rodzeństwo: 10% zniżki."])
    ev.add_user(1, "Dwójka dzieci, oboje raz w tygodniu.")
    reply = "Karnet 680 zł za Zosię, karnet Antka 612 zł, plus wpisowe 2 × 50 zł. Razem 1 392 zł."
    assert ev.unsupported(reply, []) == []
    assert ev.unsupported("Łącznie 1 392 zł.", []) == []
    assert [c.text for c in ev.unsupported("Łącznie 1 492 zł.", []) if not c.unsure] == ["1 492"]


def test_a_class_day_a_result_gives_dates_the_first_and_last_classes() -> None:
    """Grounding blind set 22: `"day": "środa"` and a term from Monday 6 October: `start_date: 2025-10-08`
    (the first Wednesday), and a reply's `last classes … Wednesday 10 December` before a term's end on
    Saturday the 13th. A Wednesday a week later is no first class."""
    ev = Evidence(["Winter term: Monday 6 October 2025 to Saturday 13 December 2025."], today="2025-09-16")
    ev.add_user(1, "Antek (8 lat) na breakdance, raz w tygodniu.")
    found = {"day": "środa", "time": "16:00"}
    ev.add_call(2, "list_classes", {"style": "breakdance"}, found, failed=False, tainted=False)
    assert [p.source for p in ev.provenance("enrol", {"start_date": "2025-10-08"})] == ["computed"]
    assert [p.source for p in ev.provenance("enrol", {"start_date": "2025-10-15"})] == ["agent"]
    assert ev.unsupported("The last class of term is Wednesday 10 December.", []) == []
    assert ev.unsupported("The last class of term is Wednesday 3 December.", []) != []


def test_a_surname_in_its_other_gender_is_the_users() -> None:
    """Grounding blind set 22: `Jestem Agnieszka Nowicka … Antek` enrolled as `Antek Nowicki`. Only the last
    word, and only Slavic endings: `Martin` is not `Martina`."""
    ev = Evidence(today="2025-09-16")
    ev.add_user(1, "Jestem Agnieszka Nowicka, zapisuję syna Antek i Martina Kowalska.")
    assert [p.source for p in ev.provenance("enrol", {"student_name": "Antek Nowicki"})] == ["user"]
    assert [p.source for p in ev.provenance("enrol", {"student_name": "Martin Nowicki"})] == ["agent"]


def test_portuguese_weekdays_as_people_say_them() -> None:
    """Grounding blind set 21: `na terça ou quarta da próxima semana` (no `-feira`); `a quarta sessão` is
    the fourth session, no Wednesday."""
    got = source(
        ["Tem vaga na terça ou quarta da próxima semana?"], "t", {"a": "2025-03-18", "b": "2025-03-19"}
    )
    assert got == {"a": "user", "b": "user"}
    assert source(["É a quarta sessão."], "t", {"a": "2025-03-19"}) == {"a": "agent"}


def test_a_reply_may_name_the_days_of_a_week_it_names() -> None:
    """Grounding blind set 21: `so next week (19–24 May) is a little too early` after `sometime next week`."""
    ev = Evidence(today="2025-05-15")
    ev.add_user(1, "I'd like to book my next donation, ideally sometime next week.")
    assert ev.unsupported("So next week (19–24 May) is a little too early, I'm afraid.", []) == []
    assert [
        c.text for c in ev.unsupported("So next week (12–17 May) is too early.", []) if not c.unsure
    ] != []


def test_a_lookups_window_bound_may_be_a_day_off_but_not_the_day_it_looks_up() -> None:
    """Grounding blind sets 21–23: a search's `date_from` the day after a stated date is the agent's choice
    of where to look. A lookup's own day a day off is not (review of this rule: a search for the 21st after
    the user's 20th returns the 21st, which a booking then repeats — the search must fail and the booking be
    its cascade), nor a call that acts."""
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Cheapest flight JFK to LAX on Thursday, March 20, 2025.")
    assert [p.source for p in ev.provenance("search_flights", {"date_from": "2025-03-21"})] == ["computed"]
    assert [p.source for p in ev.provenance("search_flights", {"departure_date": "2025-03-21"})] == ["agent"]
    assert [p.source for p in ev.provenance("hold_deliveries", {"resume_after": "2025-03-21"})] == ["agent"]


def test_hours_notice_is_a_deadline_before_the_visit() -> None:
    """Grounding blind set 21: `Cancellations are free with more than 48 hours' notice` — `free until 11:00
    on Wednesday 4 June` of a visit booked for Friday 6 June at 11:00."""
    ev = Evidence(["Cancellations are free with more than 48 hours' notice."], today="2025-06-02")
    ev.add_user(1, "Friday at 11 please.")
    visit = {"date": "2025-06-06", "slot": "11:00"}
    ev.add_call(2, "book_visit", visit, {"booking_ref": "KPC-4471", **visit}, failed=False, tainted=False)
    assert ev.unsupported("It's free until 11:00 on Wednesday 4 June (48 hours before).", []) == []
    assert ev.unsupported("It's free until 11:00 on Thursday 5 June.", []) != []


def test_a_range_of_seats_written_short_is_its_two_ends() -> None:
    """Grounding blind set 23: `H1-H4` of `UB-H1` … `UB-H4`, `seats 14-15` of `DC-C14`, `DC-C15`; ends no
    result gives, or out of order, are not."""
    ev = Evidence(today="2026-01-10")
    ev.add_user(1, "Four seats together please.")
    seats = {"seats": ["UB-H1", "UB-H2", "UB-H3", "UB-H4", "DC-C14", "DC-C15"]}
    ev.add_call(2, "get_available_seats", {"section": "UB"}, seats, failed=False, tainted=False)
    assert ev.unsupported("I can hold H1-H4, or a pair in row C (C14-C15), seats 14-15.", []) == []
    assert [c.text for c in ev.unsupported("I can hold H1-H6.", [])] == ["H1-H6"]


def test_the_days_a_chinese_month_day_lists_after_it() -> None:
    """Grounding blind set 23: `10月18号、19号两天` — the 19th is October's too."""
    got = source(["我们公司10月18号、19号两天办家庭日"], "t", {"dates": ["2025-10-18", "2025-10-19"]})
    assert set(got.values()) == {"user"}


def test_a_yes_to_a_weekday_the_agent_proposed_is_that_day() -> None:
    """Grounding blind set 23: `returning Sunday by noon?` — `Yes, book it`: `return_date` that Sunday. A
    weekday said with its date is that date only (blind set 7: `Wednesday, September 10` is no other
    Wednesday)."""
    ev = Evidence(today="2025-08-20")
    ev.add_user(1, "This Saturday please.")
    ev.unsupported("Want me to book it for Saturday night, returning Sunday by noon?", [])
    ev.add_user(2, "Yes, book it.")
    ev.add_confirmed(2, "Want me to book it for Saturday night, returning Sunday by noon?")
    assert [p.source for p in ev.provenance("create_rental", {"return_date": "2025-08-24"})] == ["user"]
    ev = Evidence(today="2025-09-04")
    ev.add_user(1, "Move my cleaning to Thursday the 18th.")
    ev.add_user(2, "yes please")
    ev.add_confirmed(2, "Your next cleaning is Wednesday, September 10. Shall I move it?")
    assert [p.source for p in ev.provenance("reschedule", {"new_date": "2025-09-17"})] == ["agent"]


def test_a_reply_counts_business_days_from_a_day_it_names() -> None:
    """Grounding blind set 23: `if you dropped it off this Thursday (March 13) it would be ready Thursday,
    March 27` under `the standard 10 business days after drop-off`, `within 4 business days … ready by
    Wednesday, March 19`: the coming Thursday, then days counted from it."""
    prompt = ["Rush: ready within 4 business days after drop-off instead of the standard 10 business days."]
    ev = Evidence(prompt, today="2025-03-11")
    ev.add_user(1, "I'm giving it to my brother on the 21st - can that work?")
    reply = "Dropped off this Thursday (March 13), it's ready Thursday, March 27; with rush by Wednesday, March 19."
    assert ev.unsupported(reply, []) == []
    assert (
        ev.unsupported(
            "Dropped off this Thursday (March 13), with rush it's ready by Thursday, March 20.", []
        )
        != []
    )


def test_a_monthly_rule_of_the_prompt_dates_a_reply() -> None:
    """Grounding blind set 23: `billed on the 1st of each month`, `dispatched on the second Tuesday of the
    month`: 1 February and Tuesday 10 February 2026."""
    prompt = [
        "Plans are billed on the 1st of each month. Boxes are dispatched on the second Tuesday of the month."
    ]
    ev = Evidence(prompt, today="2026-01-23")
    ev.add_user(1, "I'd like to join with the Classic box.")
    assert (
        ev.unsupported("Your first box is billed on 1 February and dispatched Tuesday 10 February.", []) == []
    )
    assert ev.unsupported("Your first box is dispatched Tuesday 17 February.", []) != []


def test_a_results_fraction_is_a_percentage_a_reply_may_take() -> None:
    """Grounding blind set 24: `coverage: {"diagnostic": 0.8}` — `$95 + $30 = $125, your share 20%: $25`, and
    `$25` again in a later reply."""
    ev = Evidence(["Emergency visit: limited exam $95 + periapical X-ray $30."], today="2025-06-17")
    ev.add_user(1, "Can I be seen today? I have Delta Dental PPO.")
    ev.add_call(
        2,
        "verify_insurance",
        {"carrier": "Delta"},
        {"coverage": {"diagnostic": 0.8}},
        failed=False,
        tainted=False,
    )
    assert ev.unsupported("The visit is $95 + $30 = $125, so your share would be: $25.", []) == []
    assert ev.unsupported("Your estimated share is $25, payable at the visit.", []) == []
    assert [c.text for c in ev.unsupported("Your estimated share is $35.", []) if not c.unsure] == ["$35"]


def test_a_failed_calls_error_message_in_its_result_is_evidence() -> None:
    """Grounding blind set 24: `{"error": "NO_SITTER", "message": "… Nearest: 2025-11-07 16:30, 2025-11-08
    10:00"}` — the reply offers Saturday 8 November."""
    ev = Evidence(today="2025-11-05")
    ev.add_user(1, "A meet & greet Friday at 5:30pm?")
    error = {
        "error": "NO_SITTER",
        "message": "No sitter free at 17:30. Nearest: 2025-11-07 16:30, 2025-11-08 10:00",
    }
    ev.add_call(
        2, "book_meet_greet", {"date": "2025-11-07"}, error, failed=True, tainted=False, error="NO_SITTER"
    )
    assert ev.unsupported("Nobody's free then; the nearest is Saturday 8 November at 10:00 am.", []) == []


def test_a_list_of_dates_in_a_week_the_user_named_whole() -> None:
    """Grounding blind set 24: `every weekday next week` booked as `dates: [10, 11, 12, 13, 14 November]`; a
    single booking's date in that week still needs a source."""
    ev = Evidence(today="2025-11-05")
    ev.add_user(1, "Walk my dog at noon every weekday next week.")
    days = ["2025-11-10", "2025-11-11", "2025-11-12", "2025-11-13", "2025-11-14"]
    assert {p.source for p in ev.provenance("book_walks", {"dates": days})} == {"user"}
    assert [p.source for p in ev.provenance("book_walk", {"date": "2025-11-13"})] == ["agent"]


def test_a_full_name_whose_words_were_said_apart() -> None:
    """Grounding blind set 24: `Name's Jamal Wright` then `His name's Malik` — `client_name: "Malik Wright"`.
    A word nobody said still fails."""
    ev = Evidence(today="2025-01-14")
    ev.add_user(1, "A skin fade for me and a cut for my boy. Name's Jamal Wright.")
    ev.add_user(2, "Yeah go on. His name's Malik.")
    assert [p.source for p in ev.provenance("book", {"client_name": "Malik Wright"})] == ["user"]
    assert [p.source for p in ev.provenance("book", {"client_name": "Malik Wrigley"})] == ["agent"]


def test_hours_with_a_plus_are_a_deadlines_length() -> None:
    """Grounding blind set 24: `full refund if cancelled 48+ hours before the start time` — `by 1:00 pm on
    Wednesday, March 5` of a room booked Friday March 7 from 13:00."""
    ev = Evidence(
        ["Full prepayment; full refund if cancelled 48+ hours before the start time."], today="2025-03-04"
    )
    ev.add_user(1, "Room A this Friday 1–4pm.")
    room = {"date": "2025-03-07", "start": "13:00", "end": "16:00"}
    ev.add_call(2, "book_room", room, {"booking_id": "HSP-A-0307-13"}, failed=False, tainted=False)
    assert ev.unsupported("Full refund if you cancel by 1:00 pm on Wednesday, March 5.", []) == []
    assert ev.unsupported("Full refund if you cancel by 1:00 pm on Thursday, March 6.", []) != []


def test_the_reviews_cases_of_the_rules_of_sets_20_to_24() -> None:
    """Each rule added for sets 20–24 hid a real error in the review's first cases; each is held here."""
    ok: dict[str, Any] = {"failed": False, "tainted": False}
    # a week's opening hours name every weekday: no class's day
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Book me a haircut next Thursday.")
    hours = {"hours": [{"day": d, "open": "09:00"} for d in ("Monday", "Tuesday", "Wednesday", "Thursday")]}
    ev.add_call(2, "get_opening_hours", {}, hours, **ok)
    assert [p.source for p in ev.provenance("book_appointment", {"date": "2025-03-22"})] == ["agent"]
    # a failed call that used an invented id: its error's words do not ground the id
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Cancel my booking, surname Smith.")
    error = {"error": "NOT_FOUND", "message": "No reservation ZX9K2P under that name"}
    ev.add_call(2, "get_reservation", {"confirmation": "ZX9K2P"}, error, failed=True, tainted=True)
    assert [p.source for p in ev.provenance("cancel_reservation", {"confirmation": "ZX9K2P"})] == ["agent"]
    # a probability is no percentage
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Cancel kayak tour KT-5512.")
    ev.add_call(2, "get_booking", {"booking_id": "KT-5512"}, {"total_paid": 240}, **ok)
    ev.add_call(3, "get_weather", {}, {"precip_probability": 0.5}, **ok)
    assert [c.text for c in ev.unsupported("Cancelled - a refund of $120 is on its way.", [])] == ["$120"]
    # a name from the user's first name and a doctor's surname
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "I'm Sarah Johnson, booking for my son.")
    ev.add_call(2, "list_doctors", {}, {"doctors": [{"name": "Dr. Emily Carter"}]}, **ok)
    assert [p.source for p in ev.provenance("book", {"patient_name": "Sarah Carter"})] == ["agent"]
    # a range's ends from the user's words, not a call's ids
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Two seats in row C, and dinner for 12 after.")
    ev.add_call(2, "book_seats", {"seats": ["DC-C18", "DC-C19"]}, {"ref": "HAM-8812"}, **ok)
    assert ev.unsupported("Done! Seats 12-15.", []) != []
    # (a + b) × a count nobody said
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "Seaview cottage, 3 nights from March 20.")
    ev.add_call(2, "get_listing", {}, {"nightly_rate": 180, "cleaning_fee": 30}, **ok)
    reply = "$180 per night plus a one-off $30 cleaning fee: 3 nights come to $420."
    assert "$420" in [c.text for c in ev.unsupported(reply, [])]
    # a monthly rule's day for another thing
    ev = Evidence(["Rent is due on the 1st of each month."], today="2025-03-14")
    ev.add_user(1, "I want to move in on April 3.")
    assert [c.text for c in ev.unsupported("I've noted your move-in date as April 1.", [])] == ["April 1"]
    # a chain of computed days grounds no next one
    ev = Evidence(["Repairs are ready 2 working days after drop-off."], today="2025-03-14")
    ev.add_user(1, "Drop-off Thursday, March 20.")
    reply = "Drop-off March 20; ready Monday, March 24; pickup deadline Wednesday, March 26."
    assert [c.text for c in ev.unsupported(reply, [])] == ["March 26"]
    # a one-word code needs its parts said together
    ev = Evidence(today="2025-03-14")
    ev.add_user(1, "A table for 4 at 8pm please.")
    assert [p.source for p in ev.provenance("reserve_table", {"table_id": "table_4"})] == ["agent"]
    # a prompt's Chinese words are no names
    ev = Evidence(["订房请提供客人姓名和入住时间。"], today="2025-03-14")
    ev.add_user(1, "Book a room please.")
    assert [p.source for p in ev.provenance("book", {"guest_name": "Ke Ren"})] == ["agent"]


@pytest.mark.parametrize(
    ("system", "today", "reply"),
    [
        (["Staff times are America/Indiana."], "2025-03-14", "OK."),  # a zone database folder, no zone
        (["Billing: the last Friday of each month."], "2025-03-14", "Valid until Friday 9999-12-31."),
        (["sys"], "9999-12-31", "Any day next week; tomorrow, March 15, 2025."),
    ],
)
def test_dates_at_the_calendars_ends_and_odd_zones_raise_nothing(
    system: list[str], today: str, reply: str
) -> None:
    ev = Evidence(system, today=today)
    ev.add_user(1, "Any day next week, please.")
    ev.unsupported(reply, [])
    ev.provenance("find", {"date_from": "9999-12-31"})


def test_a_window_is_read_only_from_a_value_that_is_one() -> None:
    """A result's `window: "08:00-12:00"` gives its start for a deadline; a note that opens with a range of
    hours (`10:00 - 11:30 guided walk`) is no window (the first version read the first 13 characters of
    any string)."""
    ev = Evidence(["Free cancellation up to 24 hours before the slot starts."], today="2025-04-08")
    ev.add_user(1, "Wednesday please.")
    job = {"date": "2025-04-16"}
    ev.add_call(2, "book_job", job, {**job, "note": "10:00 - 11:30 guided walk"}, failed=False, tainted=False)
    assert ev.unsupported("If you need to cancel, please do so before 10:00 on Tuesday 15 April.", []) != []


def test_a_contradicted_value_names_the_same_field_every_run() -> None:
    """`check-out Monday, April 14` names both `check_in` (`in` is a generic word) and `check_out`: the failure
    names the field its words name most, and the same one in every process, whatever the order of a set of
    strings there (`PYTHONHASHSEED`): a report read twice must say the same (blind set 1's hotel-003, whose
    detail named either)."""
    code = """
from monitor.compare.evidence import Evidence
ev = Evidence(today="2025-03-14")
ev.add_user(1, "Hello, I'd like to push my reservation HX-4471-KQ back by one day. Last name Okafor.")
args = {"confirmation": "HX-4471-KQ", "last_name": "Okafor"}
ev.provenance("get_reservation", args)
result = {"confirmation": "HX-4471-KQ", "check_in": "2025-04-11", "check_out": "2025-04-13"}
ev.add_call(2, "get_reservation", args, result, failed=False, tainted=False)
reply = "Moving it one day later makes it check-in Saturday, April 12 and check-out Monday, April 14. Shall I?"
print([c.detail for c in ev.unsupported(reply, ["get_reservation"])])
"""
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in range(6)
    }  # fmt: skip
    assert runs == {
        "[\"the reply says 'April 12', but turn 2's result gives check_in '2025-04-11'\", "
        "\"the reply says 'April 14', but turn 2's result gives check_out '2025-04-13'\"]\n"
    }


def test_one_search_of_the_texts_joined_finds_what_a_test_of_each_finds() -> None:
    """`_Sources.holding`, the index every look-up of a value in the evidence goes through: the same texts
    as testing each in turn, each once and in order, with texts added between searches and accents taken
    off (`plain`) — a value said across two texts' seam is said by neither."""
    import random

    from monitor.compare.hints import unaccented

    rng = random.Random(7)
    words = ["cd", "ab", "josé", "jose", "zürich", "cd ab", "x", "ab-cd", "2024", "ab_cd"]
    where = evidence_module._Sources()
    for round_ in range(40):
        for _ in range(rng.randint(0, 3)):
            where.add_text(
                "tool_result", round_, " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
            )
        for needle in (" cd ", " ab cd ", "cd ab", " jose ", " zurich", "d\x00 a", " cd  ab "):
            for plain in (False, True):
                wanted = [
                    k
                    for k, (_, _, text) in enumerate(where.texts)
                    if needle in (unaccented(text) if plain else text)
                ]
                assert where.holding(needle, plain=plain) == wanted, (needle, plain)
    assert where.holding(" cd ") and where.holding(" jose ", plain=True) != where.holding(" jose ")
    seam = evidence_module._Sources()
    seam.add_text("user", 1, "abc")
    seam.add_text("user", 2, "def")
    assert seam.holding("c  d") == [] and seam.holding("c \x00 d") == [] and seam.holding(" def ") == [1]
    assert seam.holding("") == [0, 1] and seam.holding("", plain=True) == [0, 1]  # as `"" in text`
    dense = evidence_module._Sources()  # held by the first 40 texts, then by every seventh: tested each
    for k in range(200):
        dense.add_text("tool_result", k, "José available" if k < 40 or k % 7 == 0 else "sold out")
    wanted = [k for k in range(200) if k < 40 or k % 7 == 0]
    assert dense.holding(" available ") == wanted and dense.holding(" jose ", plain=True) == wanted


def test_what_a_reply_only_asks_is_no_claim_however_its_fact_is_written() -> None:
    """A reply is read whole once (the reading the data flow shares) and again without its questions only
    when one may hold a fact: by a digit or a number word (`Would 3 pm work?`, `twelve instalments`), or
    by a fact read in it without either (`the first` of grounding blind set 2's utility bill, `noon` of
    set 16's notary: reading the whole alone made both a claim). `Would you like to proceed?` needs no
    second reading and changes nothing."""
    said = "My bill is £412.37, can I pay it in instalments?"
    bill = "Your bill is £412.37 and due on 5 June."
    told = _claims_under("", said, bill)
    assert told == ["fact: 5 June"]
    assert _claims_under("", said, f"{bill} When should the first one be taken?") == told
    assert _claims_under("", said, f"{bill} Would 3 pm work for the first one?") == told
    assert _claims_under("", said, f"{bill} Would you like to proceed?") == told
    assert _claims_under("", said, f"{bill} Would you like twelve instalments?") == told
    for written_otherwise in ("a dozen", "one hundred", "ｎｏｏｎ"):  # facts `_may_hold_facts` does not see
        assert _claims_under("", said, f"{bill} Would {written_otherwise} work?") == told, written_otherwise
    assert _claims_under("", said, f"{bill} The first one is taken at 3 pm. Would you like to proceed?") == [
        *told,
        "fact: The first",
        "fact: 3 pm.",
    ]


def test_a_reply_s_fact_at_the_start_of_a_sentence_is_checked_against_the_result_it_contradicts() -> None:
    """A reply whose question states nothing is read whole: its facts are as written, so a contradiction is
    found (`120 GBP` held where the result gives 175). Read without the question, the fact was `\n120 GBP`,
    a text the reply does not hold, so the check never ran and the wrong deposit was only for review."""
    ev = Evidence(today=TODAY)
    ev.add_user(1, "What deposit is held on booking BK-5521?")
    ev.add_call(2, "get_booking", {"booking_id": "BK-5521"}, {"damage_deposit_gbp": 175}, False, False)
    reply = "Found it! 120 GBP damage deposit is held. Which card would you like it refunded to?"
    claims = ev.unsupported(reply, ["get_booking"])
    assert [(c.text.strip(), c.unsure) for c in claims] == [("120 GBP", False)]
    assert "damage_deposit_gbp 175" in claims[0].detail


def test_a_value_another_tool_declares_for_the_same_argument_is_the_schemas() -> None:
    """Grounding blind set 29: a search declares `pitch_type`'s values, the booking takes a plain string; the
    value the search's enum lists is the system's word. The called tool's own list stays the one that counts,
    and another argument's list grounds nothing."""
    schemas = {
        "check_pitches": {
            "type": "object",
            "properties": {"pitch_type": {"enum": ["standard_2x2", "large_3x3"]}},
        },
        "submit": {
            "type": "object",
            "properties": {"pitch_type": {"type": "string"}, "zone": {"type": "string"}},
        },
        "upgrade": {"type": "object", "properties": {"pitch_type": {"enum": ["premium_4x4"]}}},
    }

    def where(tool: str, args: dict[str, Any], searched: bool = True) -> dict[str, str]:
        ev = Evidence(today=TODAY, schemas=schemas)
        ev.add_user(1, "two days of a big pitch for my leather goods, please")
        if searched:
            ev.add_call(2, "check_pitches", {"pitch_type": "large_3x3"}, {"available": True}, False, False)
        return {p.path: p.source for p in ev.provenance(tool, args)}

    assert where("submit", {"pitch_type": "large_3x3"}) == {"pitch_type": "tool_definition"}
    assert where("submit", {"pitch_type": "large_3x3"}, searched=False) == {
        "pitch_type": "agent"
    }  # not called
    assert where("submit", {"zone": "large_3x3"}) == {"zone": "agent"}  # another argument's list
    assert where("upgrade", {"pitch_type": "large_3x3"}) == {
        "pitch_type": "agent"
    }  # its own list says otherwise


def test_each_action_a_chinese_sentence_claims_is_read_as_the_action_it_names() -> None:
    """Grounding blind sets 4-30 (read): `办理` only says the work was handled, the action is what follows it; a
    sentence that cancels and refunds claims both (each was judged as its first: a refund nobody made passed)."""
    assert [a for _, a in done_claims("好的，已为您办理冻结：7月1日至7月31日。")] == ["pause"]
    assert [a for _, a in done_claims("已办好续租，原来的5套改为12月28日归还。")] == ["update"]
    assert (
        done_claims("我已经安排退款专员联系您。") == ()
    )  # 安排 a person, not a refund (the review of this round)
    assert [a for _, a in done_claims("订单 TY-036 已取消，并已为您退款 ¥2,484。")] == ["cancel", "refund"]
    assert [a for _, a in done_claims("已帮您取消订单，但没有退款。")] == [
        "cancel"
    ]  # a negation before the second


def test_a_claim_is_judged_by_tools_named_in_the_users_language() -> None:
    """Grounding blind sets 23-28 (read): `anuluj_zlecenie`, `wijzig_reservering`, `enviar_confirmacao` do what the
    claim says, so a claim with no successful call of them fails; `zoek_reservering`, a lookup, backs nothing."""
    looked = [
        ("user", "Proszę anulować zlecenie KR-5531."),
        ("call", ("pobierz_zlecenie", {"id": "KR-5531"}, {}, False)),
    ]
    tools = ["pobierz_zlecenie", "anuluj_zlecenie"]
    assert reply_claims(looked, "Zlecenie KR-5531 zostało anulowane.", tools) != []
    done = [*looked, ("call", ("anuluj_zlecenie", {"id": "KR-5531"}, {"status": "anulowane"}, False))]
    assert reply_claims(done, "Zlecenie KR-5531 zostało anulowane.", tools) == []
    moved = [("user", "kan het naar zondag?"), ("call", ("zoek_reservering", {"ref": "VS-4471"}, {}, False))]
    reply = "Ik heb je reservering verplaatst naar zondag 22 juni."
    assert reply_claims(moved, reply, ["zoek_reservering", "wijzig_reservering"]) != []
    assert (
        reply_claims(moved, "Ik heb je reservering verplaatst.", ["zoek_reservering"]) == []
    )  # nothing moves


def test_a_verb_that_is_no_noun_acts_on_what_follows_it() -> None:
    """Blind set 18 (read): `send_quote` sends (it was a lookup of quotes, like `order_status`), so a reply saying
    the quote was sent before any call of it fails; `order_status` and `transfer_balance` still only read."""
    assert evidence_module.may_act("send_quote") and evidence_module.may_act("approve_estimate")
    assert not evidence_module.may_act("order_status") and not evidence_module.may_act("transfer_balance")
    # a refund, an update: nouns too (the review of this round)
    assert not evidence_module.may_act("refund_status") and not evidence_module.may_act("update_history")
    # setting what a lookup reads acts (the second review)
    assert evidence_module.may_act("update_details") and evidence_module.may_act("pay_balance")
    assert not evidence_module.may_act("pay_status") and not evidence_module.may_act("update_status_history")
    steps = [
        ("user", "email me the quote"),
        ("call", ("calc_quote", {"metres": 12}, {"quote_id": "SJ-Q8"}, False)),
    ]
    assert reply_claims(steps, "I've sent quote SJ-Q8 to your email.", ["calc_quote", "send_quote"]) != []


@pytest.mark.parametrize(
    ("reply", "actions"),
    [
        # grounding blind sets 1-13 (read): the action is the noun's, the verb only says it was done
        ("I've issued a refund of $289.00 to your original card.", ["refund"]),
        ("Order LC-7103 is cancelled, and your £96 refund has been issued to your card.", ["refund"]),
        ("I've sent a renewal request to Dr. Anita Patel.", ["send"]),  # what is sent may be about an action
        ("I've sent a copy of our refund policy to your email.", ["send"]),
        ("I've processed the refund for order 1234 (RF-1).", ["refund"]),  # its head noun, not every noun
        ("I've processed the cancellation of your booking B-1.", ["cancel"]),
        # the second review of this round: an action's own noun before a thing's, adjectives, a long subject
        ("I've processed your booking cancellation for B-1.", ["cancel"]),
        ("Your refund for order #1234 has been processed.", ["refund"]),
        ("The payment for your booking B-1 has been processed.", ["pay"]),
        ("I've issued a prorated refund of $45.", ["refund"]),
        ("I've sent the $45 refund to your card.", ["refund"]),
        ("your refund of $45 for the cancelled order has been issued.", ["refund"]),
        # the third review: a noun that modifies another is no head; an earlier clause's noun is not the subject's
        ("I've sent refund instructions to your email.", ["send"]),
        ("I've sent your refund request to billing.", ["send"]),
        ("Following your cancellation last week, your new booking has been processed.", ["book"]),
        ("I've processed your refund of $42.50 to your Visa ending 5512.", ["refund"]),
        ("The refund has been processed to the original payment method.", ["refund"]),  # not a payment
        ("- Refund: $3,925 has been processed back to your gift card.", ["refund"]),
        ("Your invoice has been issued.", ["send"]),
        ("I've sent the order confirmation to you.", ["send"]),
        ("I've processed that for you.", []),
    ],
)
def test_a_claim_whose_verb_only_says_it_was_done_claims_its_nouns_action(
    reply: str, actions: list[str]
) -> None:
    assert [a for _, a in done_claims(reply)] == actions


def test_a_refund_claimed_as_issued_needs_the_tool_that_refunds() -> None:
    steps = [
        ("user", "please cancel and refund"),
        ("call", ("cancel_reservation", {"id": "SKYR-23104"}, {"refundable": 289.0}, False)),
    ]
    reply = (
        "Your reservation SKYR-23104 is cancelled, and I've issued a refund of $289.00 to your original card."
    )
    assert reply_claims(steps, reply, ["cancel_reservation", "issue_refund"]) != []
    refunded = [*steps, ("call", ("issue_refund", {"id": "SKYR-23104"}, {"refund_id": "RF-1"}, False))]
    assert reply_claims(refunded, reply, ["cancel_reservation", "issue_refund"]) == []


def test_a_claim_in_another_language_is_backed_by_any_effect_a_result_reports() -> None:
    """Grounding blind set 32 (its one false alarm after Japanese claims were read): the booking's result says
    it sent the payment link; the Japanese reply's words name it in no word an English key holds."""
    steps = [
        ("user", "23日の講座を3人でお願いします。"),
        ("call", ("book_workshop", {"workshop_id": "SH-0323"}, {"booking_ref": "MD-7731", "payment_link_sent": True}, False)),
    ]  # fmt: skip
    tools = ["book_workshop", "send_invoice"]
    assert reply_claims(steps, "決済リンクをメールでお送りしました。", tools) == []
    assert reply_claims(steps[:1], "決済リンクをメールでお送りしました。", tools) != []  # nothing sent it


@pytest.mark.parametrize(
    ("reply", "claimed"),
    [
        # grounding blind sets 6 and 23 (read): a present passive of the user's own thing, named as `your …`
        # or by its id, claims cancelling, booking, ordering, submitting or changing it
        ("Your prints are ordered: one 8x10 of photo 12 and two 5x7s of photo 31.", True),
        ("Your astro rig reservation is cancelled at no charge.", True),
        ("That's sorted — visit GD-5521 is cancelled and the €45 late-cancellation fee applies.", True),
        # paying, sending and scheduling so said are as often rules; a thing that is not the user's, a state
        ("The remaining £116.55 is paid on the day.", False),
        ("The permit is issued once the fee is paid.", False),
        ("Your cancellation is scheduled.", False),
        ("This Thursday the morning is booked up.", False),
        ("The optional 12.5% service charge is added on board.", False),
    ],
)
def test_a_present_passive_of_the_users_own_thing_claims_what_it_says(reply: str, claimed: bool) -> None:
    assert bool(done_claims(reply)) is claimed


def test_a_tool_named_in_another_language_does_what_its_whole_words_say() -> None:
    """The review of this round: a foreign verb is a whole word of a tool's name, not a prefix
    (`stornogebuehr_berechnen` works out a fee; `boekhouding_export`), and lists and statuses read."""
    assert evidence_module.does("termin_stornieren", "cancel") and evidence_module.does(
        "anuluj_zlecenie", "cancel"
    )
    assert not evidence_module.does("stornogebuehr_berechnen", "cancel")
    assert not evidence_module.does("boekhouding_export", "book")
    assert not evidence_module.may_act("bestellingen_overzicht") and not evidence_module.may_act(
        "buchung_abrufen"
    )


@pytest.mark.parametrize("flag", ["refund_issued", "refund_processed", "refund_initiated"])
def test_a_cancellation_that_says_it_refunded_backs_the_refund_claimed(flag: str) -> None:
    steps = [
        ("user", "cancel ABC123 please"),
        ("call", ("cancel_reservation", {"id": "ABC123"}, {"status": "cancelled", flag: True}, False)),
    ]
    reply = "I've cancelled reservation ABC123 and your refund has been issued to your card."
    assert reply_claims(steps, reply, ["cancel_reservation", "issue_refund"]) == []


def test_the_open_day_next_to_a_closed_day_a_user_asked_for_is_worked_out() -> None:
    """A user asks for a day the system prompt says the business is closed; the agent checks the first
    open day after it, or the last one before (grounding blind sets 11, 13, 17, 21 and 29: `next Monday`
    at a clockmaker closed on Mondays, a touch-up deadline on a closed Sunday). Any other day stays the
    agent's, and without the closure so does the day after."""
    hours = "Hours: Tuesday-Saturday 10:00-17:00 (closed Sunday and Monday)."
    ev = Evidence(system=[hours], today=TODAY)  # Friday 14 March 2025
    ev.add_user(1, "Could I bring it in next Monday?")  # 17 March
    dates = {"tue": "2025-03-18", "sat": "2025-03-15", "wed": "2025-03-19", "sun": "2025-03-16"}
    got = {p.path: p.source for p in ev.provenance("check_slots", dates)}
    assert got == {"tue": "computed", "sat": "computed", "wed": "agent", "sun": "agent"}
    ev = Evidence(system=["Hours: Tuesday-Saturday 10:00-17:00."], today=TODAY)
    ev.add_user(1, "Could I bring it in next Monday?")
    assert [p.source for p in ev.provenance("check_slots", {"date": "2025-03-18"})] == ["agent"]
    ev = Evidence(system=["Open weekends, closed Mondays."], today=TODAY)  # the weekend is open
    ev.add_user(1, "Could I bring it in next Monday?")
    got = {p.path: p.source for p in ev.provenance("check_slots", {"sun": "2025-03-16", "sat": "2025-03-15"})}
    assert got == {"sun": "computed", "sat": "agent"}
    assert (
        _claims_under(hours, "Could I come next Monday?", "We're closed then; Tuesday 18 March is free.")
        == []
    )
    assert _claims_under(hours, "Could I come next Monday?", "Wednesday 19 March is free.") == [
        "fact: 19 March"
    ]


def test_a_weekday_beside_a_closed_date_closes_that_date_only() -> None:
    """`Closed on Thanksgiving Day (Thursday, November 27, 2025)` (grounding blind set 13) closes that day:
    `tomorrow` on the 26th moves to Friday the 28th; a Thursday of another week is open."""
    holiday = "Closed, with no deliveries, on Thanksgiving Day (Thursday, November 27, 2025)."
    ev = Evidence(system=[holiday], today="2025-11-26")
    ev.add_user(1, "I need rolls for tomorrow")
    assert [p.source for p in ev.provenance("t", {"date": "2025-11-28"})] == ["computed"]
    ev = Evidence(system=[holiday], today="2025-11-26")
    ev.add_user(1, "I need rolls for Thursday December 4")
    assert [p.source for p in ev.provenance("t", {"date": "2025-12-05"})] == ["agent"]


def test_a_policy_deadline_at_its_own_time_days_before_a_date_is_worked_out() -> None:
    """`before 17:00 the day before the tour`, `three days before`, `until 15:00 two days (48 hours) before
    the arrival date` (grounding blind sets 13 and 23): a reply's deadline at the policy's time that many
    days before a stated date is worked out; at another time, or another day, it is not."""
    policy = (
        "Full refund if cancelled before 17:00 three days before the tour date. "
        "50% refund if cancelled after that but before 17:00 the day before the tour."
    )
    ev = Evidence(system=[policy], today="2025-03-09")  # a Sunday
    ev.add_user(1, "The full day tour this Saturday for 4 of us, please")  # 15 March

    def claims(reply: str) -> list[str]:
        return [c.text for c in ev.unsupported(reply, [])]

    assert (
        claims("Free cancellation until 17:00 on Wednesday 12 March; 50% until 17:00 Friday 14 March.") == []
    )
    assert "14 March" in claims("50% refund until 12:00 Friday 14 March.")
    assert claims("50% refund until 17:00 Thursday 13 March.") == ["13 March"]
    hostel = "Free cancellation until 15:00 two days (48 hours) before the arrival date."
    ev = Evidence(system=[hostel], today="2026-07-20")
    ev.add_user(1, "Beds for this Friday and Saturday night")  # Friday 24 July
    assert [c.text for c in ev.unsupported("You can cancel free until Wednesday 22 July at 15:00.", [])] == []
    assert [c.text for c in ev.unsupported("You can cancel free until Tuesday 21 July at 15:00.", [])] != []


def test_a_stay_said_by_its_nights_ends_the_morning_after() -> None:
    """`beds this Friday and Saturday night` (grounding blind set 13) is a stay from Friday to Sunday
    morning: `check_out` the day after a stated night is worked out (blind set 23's Saturday-night
    telescope rental `return_date` too). Only a key that names an end, only the day after, only when the
    user spoke of nights."""
    ev = Evidence(today="2026-07-20")  # a Monday
    ev.add_user(1, "Three of us want beds this Friday and Saturday night")  # 24 and 25 July
    stay = {"check_in": "2026-07-24", "check_out": "2026-07-26"}
    assert {p.path: p.source for p in ev.provenance("check_availability", stay)} == {
        "check_in": "user",
        "check_out": "computed",
    }
    assert [p.source for p in ev.provenance("t", {"check_out": "2026-07-27"})] == ["agent"]
    assert [p.source for p in ev.provenance("t", {"check_in": "2026-07-26"})] == ["agent"]
    ev = Evidence(today="2026-07-20")
    ev.add_user(1, "Three of us want beds this Friday and Saturday")
    assert [p.source for p in ev.provenance("t", {"check_out": "2026-07-26"})] == ["agent"]


def test_a_call_whose_result_says_it_did_not_happen_backs_no_claim_that_it_did() -> None:
    """`enrol_student` → `"status": "waitlisted"`, `pay_permit_fee` → `"status": "requires_action"`,
    `cancel_visit` → `"status": "cancellation_requested"`, a cancellation whose `refund_status` is
    `pending_manual_review` (grounding blind sets 10, 22, 29, 30 and 35): the reply that says enrolled,
    paid, cancelled or refunded is unsupported. A status that only waits on something else backs it: a
    booking `pending_deposit` is booked."""
    tools = ["enrol_student", "pay_fee", "cancel_visit", "book_table"]

    def claims(tool: str, result: Any, reply: str) -> list[str]:
        steps = [("user", "go ahead please"), ("call", (tool, {"id": "AB-123"}, result, False))]
        return reply_claims(steps, reply, tools)

    assert (
        claims("enrol_student", {"status": "waitlisted", "position": 2}, "I've enrolled you in Salsa 1.")
        != []
    )
    assert claims("enrol_student", {"status": "enrolled"}, "I've enrolled you in Salsa 1.") == []
    assert claims("pay_fee", {"status": "requires_action"}, "Your payment of €38 has been made.") != []
    assert (
        claims("cancel_visit", {"status": "cancellation_requested"}, "Visit AB-123 has been cancelled.") != []
    )
    assert claims("cancel_visit", {"status": "cancelled"}, "Visit AB-123 has been cancelled.") == []
    assert claims("book_table", {"status": "pending_deposit"}, "I've booked table AB-123 for you.") == []
    # a request filed waits on a decision: that is what filing it does (blind sets 1, 3, 12 and 20)
    filed = [
        ("user", "please file it"),
        ("call", ("submit_request", {"id": "AB-123"}, {"status": "pending_approval"}, False)),
    ]
    assert (
        reply_claims(filed, "I've submitted request AB-123; it's pending approval.", ["submit_request"]) == []
    )
    refund = {"status": "cancelled", "refund_status": "pending_manual_review"}
    steps = [("user", "cancel it"), ("call", ("cancel_booking", {"id": "AB-123"}, refund, False))]
    tools = ["cancel_booking", "refund_booking"]
    assert reply_claims(steps, "Booking AB-123 has been cancelled.", tools) == []
    assert (
        reply_claims(steps, "Booking AB-123 has been cancelled and your refund has been issued.", tools) != []
    )


def test_youre_enrolled_is_a_claim_as_youre_booked_is() -> None:
    """`Good news — you're enrolled in BIO 214 section 01` after an enrolment that came back `waitlisted`
    (grounding blind sets 4 and 22) claims the enrolment; after one that enrolled it is backed."""
    tools = ["enroll_section", "get_enrollment"]
    waitlisted = [
        ("user", "enrol me please"),
        ("call", ("enroll_section", {"id": "S-41207"}, {"status": "waitlisted"}, False)),
    ]
    enrolled = [
        ("user", "enrol me please"),
        ("call", ("enroll_section", {"id": "S-41207"}, {"status": "enrolled"}, False)),
    ]
    reply = "Good news — you're enrolled in section S-41207."
    assert reply_claims(waitlisted, reply, tools) == [f"done: {reply}"]
    assert reply_claims(enrolled, reply, tools) == []
    assert done_claims("Students enrolled in BIO 214 get lab access.") == ()


def test_both_or_all_of_them_done_needs_that_many_calls_that_did_it() -> None:
    """`Both appointments are cancelled` after one cancellation of two, `All three viewings are booked`
    after two bookings (grounding blind sets 4, 5 and 20): the count the reply says needs that many calls
    that did it, or one on a list. Said with no call of that action since the user's message, the same
    words report a state (`both courts are booked at 6pm`), not a claim."""
    tools = ["cancel_appointment", "book_viewing", "get_courts"]

    def claims(calls: list[tuple[str, str]], reply: str) -> list[str]:
        steps: list[tuple[str, Any]] = [("user", "please do it")]
        steps += [("call", (tool, {"id": ident}, {"status": "ok"}, False)) for tool, ident in calls]
        return reply_claims(steps, reply, tools)

    one = [("cancel_appointment", "AP-71092")]
    both = [*one, ("cancel_appointment", "AP-71340")]
    assert claims(one, "Both appointments are cancelled.") == ["done: Both appointments are cancelled."]
    assert claims(both, "Both appointments are cancelled.") == []
    two = [("book_viewing", "V-1"), ("book_viewing", "V-2")]
    assert claims(two, "All three viewings are booked.") == ["done: All three viewings are booked."]
    assert claims([*two, ("book_viewing", "V-3")], "All three viewings are booked.") == []
    assert claims([("get_courts", "C-1")], "Sorry, both courts are booked then.") == []


def test_the_reviews_cases_of_closures_deadlines_nights_and_statuses() -> None:
    """A review of the readers of closed days, policy deadlines, nights and results' statuses found each of
    these read wrong by their first version."""

    def done(tool: str, result: Any, reply: str, tools: Sequence[str] = ()) -> list[str]:
        steps = [("user", "please go ahead"), ("call", (tool, {"id": "D-881"}, result, False))]
        return reply_claims(steps, reply, tools or [tool])

    # a status that says the action done and something else pending; a draft invoice; an order on hold
    assert done("cancel_order", {"status": "cancelled_pending_refund"}, "I've cancelled order D-881.") == []
    assert done("book_table", {"status": "booked_pending_deposit"}, "I've booked table D-881 for you.") == []
    assert done("create_invoice", {"status": "draft"}, "Done — I've created invoice D-881 for Acme.") == []
    assert (
        done("place_order", {"status": "on-hold"}, "I've placed order D-881; it waits for your transfer.")
        == []
    )
    # a wait on a decision is what opening a dispute or sending for approval does
    assert (
        done("open_dispute", {"status": "under_review"}, "I've opened dispute D-881; it's under review.")
        == []
    )
    assert (
        done("send_approval_request", {"status": "pending_approval"}, "I've sent request D-881 for approval.")
        == []
    )
    # `you're enrolled` after a lookup reports a state
    looked = [
        ("user", "am I on autopay?"),
        ("call", ("get_account", {"id": "D-881"}, {"autopay": True}, False)),
    ]
    assert (
        reply_claims(looked, "You're enrolled in autopay already.", ["get_account", "enroll_autopay"]) == []
    )
    # the deadline's time is the one right before its days, not another of the sentence's
    ev = Evidence(
        system=["Cancel free of charge up to 24 hours before, by phone until 18:00."], today="2025-03-10"
    )
    ev.add_user(1, "Book me Thursday 13 March at 10:00")
    assert [
        c.text for c in ev.unsupported("You can cancel free until 18:00 on Wednesday 12 March.", [])
    ] != []
    # a closure of part of a day, or of a range's hours, closes no day
    ev = Evidence(system=["Closed for lunch 12:00-13:00 Monday to Friday."], today=TODAY)
    ev.add_user(1, "Can I come in Friday 21 March?")
    assert [p.source for p in ev.provenance("t", {"date": "2025-03-22"})] == ["agent"]
    # `tonight` is no stay's night
    ev = Evidence(today=TODAY)
    ev.add_user(1, "I land tonight. I need a car from Saturday 15 March, returning Monday 17 March.")
    assert [p.source for p in ev.provenance("t", {"return_date": "2025-03-18"})] == ["agent"]


def test_the_second_reviews_cases_of_counts_statuses_enrolments_closures_and_nights() -> None:
    """A second review, of the first one's fixes, found these read wrong."""

    def done(calls: list[tuple[str, Any, Any]], reply: str, tools: Sequence[str]) -> list[str]:
        steps: list[tuple[str, Any]] = [("user", "please go ahead")]
        steps += [("call", (tool, args, result, False)) for tool, args, result in calls]
        return reply_claims(steps, reply, tools)

    # one call that did several things: a count it gives, a list of what it did, the ids it names
    two = [("cancel_order", {"order_id": "ORD-5512"}, {"status": "cancelled", "tickets_cancelled": 2})]
    assert done(two, "Done! Both tickets are cancelled.", ["cancel_order"]) == []
    listed = [("cancel_appointments", {"week": "next"}, {"cancelled": ["AP-1", "AP-2", "AP-3"]})]
    assert done(listed, "All three appointments are cancelled.", ["cancel_appointments"]) == []
    named = [("cancel_appointments", {"ids": "AP-1,AP-2"}, {"status": "ok"})]
    assert done(named, "Both appointments are cancelled.", ["cancel_appointments"]) == []
    one = [("cancel_appointments", {"ids": "AP-1"}, {"status": "ok"})]
    assert done(one, "Both appointments are cancelled.", ["cancel_appointments"]) != []
    # `not_sent` is not sent; a decision pending holds back a refund, a draft holds back a mail
    assert (
        done(
            [("send_email", {"id": "D-881"}, {"status": "not_sent"})],
            "I've sent email D-881.",
            ["send_email"],
        )
        != []
    )
    refund = [("issue_refund", {"id": "D-881"}, {"status": "pending_approval"})]
    assert done(refund, "I've refunded order D-881.", ["issue_refund"]) != []
    assert (
        done([("send_email", {"id": "D-881"}, {"status": "draft"})], "I've sent email D-881.", ["send_email"])
        != []
    )
    # `you're enrolled` with no call at all, or `now` after a lookup, is a claim
    tools = ["get_account", "enroll_autopay"]
    assert reply_claims([("user", "enrol me in autopay")], "You're enrolled in autopay.", tools) != []
    looked = [("user", "enrol me"), ("call", ("get_account", {"id": "A-1"}, {"autopay": False}, False))]
    assert reply_claims(looked, "Great news — you're now enrolled in autopay!", tools) != []
    # a note in brackets or a reopening is no part of the closure; a deadline's time a few words before
    ev = Evidence(system=["Closed Sundays and Mondays (reopening Tuesday 9am)."], today=TODAY)
    ev.add_user(1, "Could I come next Monday?")  # 17 March
    assert [p.source for p in ev.provenance("t", {"date": "2025-03-18"})] == ["computed"]
    ev = Evidence(
        system=["Free cancellation until 17:00 local time, two days before arrival."], today="2025-03-10"
    )
    ev.add_user(1, "We arrive Friday 14 March")
    assert [c.text for c in ev.unsupported("Cancel free until 17:00 on Wednesday 12 March.", [])] == []
    # a room tonight ends tomorrow morning
    ev = Evidence(today="2025-03-10")
    ev.add_user(1, "I need a room tonight, one guest.")
    assert [p.source for p in ev.provenance("book_room", {"check_out": "2025-03-11"})] == ["computed"]


def test_the_third_reviews_cases_of_gated_waits_counts_nights_and_the_calendars_ends() -> None:
    """A third review, of the second one's fixes, found these read wrong."""

    def done(tool: str, args: Any, result: Any, reply: str) -> list[str]:
        return reply_claims(
            [("user", "please go ahead"), ("call", (tool, args, result, False))], reply, [tool]
        )

    # a thing's state after an update is no wait on the update; a draft updated is updated
    claim = {"claim_id": "CLM-2231", "repair_cost": 450}
    assert done("update_claim", claim, {"status": "in_review"}, "I've updated claim CLM-2231.") == []
    draft = {"draft_id": "D-881", "subject": "Quarterly report"}
    assert done("update_draft", draft, {"status": "draft"}, "I've updated draft D-881.") == []
    # an amount, an hour or nights are no count of things; a list of channels is no list of ids
    assert (
        done(
            "refund_order",
            {"order_id": "ORD-1001"},
            {"amount_refunded": 25},
            "Both orders have been refunded.",
        )
        != []
    )
    hour = {"status": "cancelled", "cancelled_at_hour": 14}
    assert done("cancel_booking", {"booking_id": "BK-1"}, hour, "Both bookings are cancelled.") != []
    notify = {"booking_id": "BK-1", "notify": "EM-1,SMS-2"}
    assert done("cancel_booking", notify, {"status": "cancelled"}, "Both bookings are cancelled.") != []
    # a night's day after the night word, or a few words away
    for said in ("Je voudrais une chambre pour la nuit du samedi 15 mars.",
                 "A double room for Saturday 15 March, ideally with a sea view, just for the night."):  # fmt: skip
        ev = Evidence(today="2025-03-10")
        ev.add_user(1, said)
        assert [p.source for p in ev.provenance("book_room", {"check_out": "2025-03-16"})] == ["computed"]
    # `you're enrolled` after a lookup in an earlier turn reports that state
    steps = [("user", "am I on autopay?"), ("call", ("get_account", {"id": "A-1"}, {"autopay": True}, False)),
             ("user", "when is my next payment?")]  # fmt: skip
    assert (
        reply_claims(steps, "You're enrolled in autopay, so it's taken automatically.", ["enroll_autopay"])
        == []
    )
    # a bracketed part of a day still makes a closure partial
    ev = Evidence(system=["Closed Mondays (mornings only)."], today=TODAY)
    ev.add_user(1, "Could I come next Monday?")
    assert [p.source for p in ev.provenance("t", {"date": "2025-03-18"})] == ["agent"]
    # a conversation dated at the calendar's end reads no relative day, and does not crash
    ev = Evidence(today="9999-12-31")
    ev.add_user(1, "Saturday night, or tomorrow")
    assert [p.source for p in ev.provenance("book", {"check_out": "2025-03-15"})] == ["agent"]


@pytest.mark.parametrize(
    ("reply", "claimed"),
    [
        ("Alles klar – dein Termin IW-6650 ist storniert.", ["cancel"]),
        ("Ihre Buchung BF-7731 ist storniert.", ["cancel"]),
        ("Su reserva está cancelada.", ["cancel"]),
        ("Votre commande CK-8812 est enregistrée :", []),  # a record exists: a new order, or a change
        ("Ihre Anmeldung ist gebucht, sobald die Zahlung eingeht.", []),  # a rule
        ("Die Buchung ist storniert.", []),  # not the user's own: a state
        ("Ihre Buchung ist nicht storniert.", []),
    ],
)
def test_the_users_own_thing_in_a_european_present_passive_is_a_claim_as_in_english(
    reply: str, claimed: list[str]
) -> None:
    """`Your reservation AVH-58812 is cancelled` is a claim in English (`_yours_now`); its German, French,
    Spanish … forms are now too (blind sets 11 and 18: `dein Termin IW-6650 ist storniert` after a lookup)."""
    assert [action for _, action in done_claims(reply)] == claimed


def test_a_phone_in_a_claimed_change_is_carried_by_the_call_that_did_it() -> None:
    """`I've also updated your contact number to 07984 112650` when the only update was to the booking's
    services (blind set 14): the call that did an update carried no such number, in any of its forms."""
    tools = ["update_booking_services", "update_contact_details"]
    reply = "I've also updated your contact number to 07984 112650."
    services = [
        ("user", "Add the stairs please, and my new number is 07984 112650."),
        ("call", ("update_booking_services", {"id": "FW-1", "add": ["stairs"]}, {"total": 104}, False)),
    ]
    assert reply_claims(services, reply, tools) == [f"done: {reply}"]
    contact = [
        *services,
        ("call", ("update_contact_details", {"id": "FW-1", "phone": "+447984112650"}, {"ok": True}, False)),
    ]
    assert reply_claims(contact, reply, tools) == []


def test_a_value_said_to_hold_now_needs_a_call_that_carried_it() -> None:
    """`your booking is now for 4 guests` after the update failed (blind set 17): the user asked for 4, no
    result states it and no call that acts carried it, so the change was not made. The same words after the
    update carried it, or where a lookup states the value (a state reported), pass; so do a parenthesis's sum
    parts, a value no user said (a new total), and an agent with no tool that acts."""
    tools = ["get_booking", "modify_booking"]
    looked = [
        ("user", "Can we make booking BT-1 4 guests instead of 2?"),
        (
            "call",
            ("get_booking", {"id": "BT-1"}, {"guests": 2, "date": "2025-08-16", "time": "12:00"}, False),
        ),
    ]
    reply = "Updated — your booking is now for 4 guests on Saturday, August 16 at noon."
    failed = [*looked, ("call", ("modify_booking", {"id": "BT-1", "guests": 4}, None, True))]
    assert reply_claims(failed, reply, tools) == [f"done: {reply}"]
    assert reply_claims(looked, "Ihre Buchung ist jetzt für 4 Personen.", tools) == [
        "done: Ihre Buchung ist jetzt für 4 Personen."
    ]
    # a system prompt's small numbers (`four tasters`, `4:00 pm`) are no rule that the booking holds 4
    ev = Evidence(system=["Tours at 4:00 pm; tickets include four tasters."], today=TODAY)
    ev.add_user(1, "Can we make booking BT-1 4 guests instead of 2?")
    ev.add_call(
        2, "modify_booking", {"id": "BT-1", "guests": 4}, None, failed=True, tainted=False, error="Error"
    )
    assert [c.text for c in ev.unsupported(reply, tools) if c.what == "done"] == [reply]
    carried = [*looked, ("call", ("modify_booking", {"id": "BT-1", "guests": 4}, {"ok": True}, False))]
    assert reply_claims(carried, reply, tools) == []
    stated = [
        ("user", "Is booking BT-1 for 4 guests now?"),
        ("call", ("get_booking", {"id": "BT-1"}, {"guests": 4}, False)),
    ]
    assert reply_claims(stated, "Yes, your booking is now for 4 guests.", tools) == []
    assert reply_claims(looked, reply, ["get_booking", "booking_status"]) == []  # nothing could change it
    declared = [
        ("user", "Please add the ring, £6,400."),
        ("call", ("get_policy", {"id": "P-1"}, {"value": 18500}, False)),
    ]
    # the first value is the new one; what follows is context (the user's trip, no change)
    trip = [
        ("user", "My trip is on 18 July. Any news?"),
        ("call", ("get_application", {"id": "V-1"}, {"decision": "2025-07-09"}, False)),
    ]
    ahead = "The decision date is now 9 July 2025, well ahead of your trip on 18 July."
    assert reply_claims(trip, ahead, ["get_application", "pay_surcharge"]) == []
    parts = "Your declared value is now £24,900 (£18,500 + £6,400)."
    assert reply_claims(declared, parts, ["get_policy", "update_policy"]) == []


def test_a_thing_described_by_an_actions_word_is_no_state_of_that_action() -> None:
    """`"size": "raised_bed"` in a plot's lookup read as a request already raised (blind set 11: `I've
    submitted a maintenance request` passed with submit_maintenance_request never called). A state is the
    action's word that ends the value or comes before a preposition (`cancelled_by_user`)."""
    tools = ["get_plot", "submit_maintenance_request"]
    plot = [("user", "The tap by plot ES-R-04 leaks."),
            ("call", ("get_plot", {"plot_id": "ES-R-04"}, {"size": "raised_bed", "tap": "TAP-ES-2"}, False))]  # fmt: skip
    reply = "I've submitted a maintenance request for tap TAP-ES-2."
    assert reply_claims(plot, reply, tools) == [f"done: {reply}"]
    tools = ["get_booking", "cancel_booking"]
    for status in ("cancelled", "cancelled_by_user", "already_cancelled"):
        looked = [
            ("user", "Is BK-1 still on?"),
            ("call", ("get_booking", {"id": "BK-1"}, {"status": status}, False)),
        ]
        assert reply_claims(looked, "Booking BK-1 has been cancelled.", tools) == []


def test_the_review_of_the_now_phone_and_european_passive_rules() -> None:
    """A review's cases (137753e, 41f30a5, 41c9451). Good replies that must pass: a phone a call wrote
    without spaces or a bracketed area code; a count an update made from its own number (`add_guests: 2`);
    an update since the user asked that wrote the value otherwise (a slot's id); a `now` that reports a state
    (`is now available on 16 March`, `now number 3`); a phone that is not the changed value (a lookup's
    number, a helpline); a booking in a European present passive after a lookup showed it; a German status
    in a result. False claims that must fail: a negation of another thing after the claim (`es fallen keine
    Gebühren an`), `Gut,` / `Okay,` before it."""
    phone = [("user", "My new number is +44 7984 112650."),
             ("call", ("update_contact", {"phone": "07984112650"}, {"ok": True}, False))]  # fmt: skip
    assert reply_claims(phone, "Your phone number is now +44 7984 112650.", ["update_contact"]) == []
    area = [
        ("user", "Use (415) 555-0132 please."),
        ("call", ("update_contact", {"phone": "4155550132"}, {"ok": True}, False)),
    ]
    assert reply_claims(area, "Your phone number is now (415) 555-0132.", ["update_contact"]) == []
    added = [("user", "Can booking BT-1 be 4 guests?"), ("call", ("get_booking", {"id": "BT-1"}, {"guests": 2}, False)),
             ("call", ("add_guests", {"id": "BT-1", "count": 2}, {"ok": True}, False))]  # fmt: skip
    assert reply_claims(added, "Your booking BT-1 is now for 4 guests.", ["get_booking", "add_guests"]) == []
    slot = [("user", "Please move my table TB-4 to 8pm."),
            ("call", ("modify_booking", {"id": "TB-4", "slot": "S9"}, {"ok": True}, False))]  # fmt: skip
    assert reply_claims(slot, "Your table is now at 8pm.", ["get_availability", "modify_booking"]) == []
    free = [
        ("user", "A table for 4 on 16 March?"),
        ("call", ("check_availability", {"date": "2025-03-16"}, {"available": True}, False)),
    ]
    assert (
        reply_claims(
            free,
            "Good news — a table for 4 is now available on 16 March.",
            ["check_availability", "book_table"],
        )
        == []
    )
    queue = [("user", "I'm 3rd in line?"), ("call", ("queue", {"id": "Q"}, {"ahead_of_you": 2}, False))]
    assert reply_claims(queue, "Yes, you are now number 3 in the queue.", ["queue", "book_table"]) == []
    helpline = [
        ("user", "Cancel BT-1 please."),
        ("call", ("cancel_booking", {"id": "BT-1"}, {"status": "cancelled"}, False)),
    ]
    reply = "Your booking BT-1 has been cancelled — any questions, call 0800 123 4567."
    assert [c for c in reply_claims(helpline, reply, ["cancel_booking"]) if c.startswith("done")] == []
    tools = ["get_booking", "cancel_booking", "book_table"]
    shown = [
        ("user", "Is my table reserved?"),
        ("call", ("get_booking", {"id": "BF-7731"}, {"status": "confirmed", "date": "2025-03-16"}, False)),
    ]
    assert reply_claims(shown, "Oui, votre table est réservée pour le 16 mars.", tools) == []
    german = [
        ("user", "Ist BF-7731 storniert?"),
        ("call", ("get_booking", {"id": "BF-7731"}, {"status": "storniert"}, False)),
    ]
    assert reply_claims(german, "Ihre Buchung BF-7731 ist storniert.", tools) == []
    failed = [
        ("user", "Bitte stornieren Sie BF-7731."),
        ("call", ("cancel_booking", {"id": "BF-7731"}, None, True)),
    ]
    for reply in ("Ihre Buchung BF-7731 ist storniert, es fallen keine Gebühren an.",
                  "Gut, Ihre Buchung BF-7731 ist storniert.", "Okay, Ihre Buchung BF-7731 ist storniert."):  # fmt: skip
        assert reply_claims(failed, reply, tools) == [f"done: {reply}"]


def test_the_second_review_of_the_now_phone_and_state_rules() -> None:
    """A second review's cases (cadf8d4). Good replies that must pass: the user's own news (`Understood -
    your flight is now at 14:30`); a change made by calls that do not say `update` (a class cancelled and
    another booked, a loan renewed); a number to reach the user on where no tool keeps contact details; a
    state a lookup showed as `refund_issued`, `cancellation_confirmed`, `CANCELLED`; a rule that runs
    automatically. False claims that must fail: a count in words, a European amount, a second `now`."""
    flight = [("user", "The airline moved my flight to 14:30. Can you push my transfer TR-12 later?"),
              ("call", ("get_booking", {"id": "TR-12"}, {"pickup": "11:00"}, False))]  # fmt: skip
    assert (
        reply_claims(flight, "Understood - your flight is now at 14:30.", ["get_booking", "modify_booking"])
        == []
    )
    spin = [("user", "Can you switch me from the 9:00 spin class to the 10:30 one on Friday?"),
            ("call", ("cancel_class", {"class_id": "SPIN-FRI-0900"}, {"ok": True}, False)),
            ("call", ("book_class", {"class_id": "SPIN-FRI-1030"}, {"ok": True}, False))]  # fmt: skip
    assert reply_claims(spin, "Your Friday spin class is now at 10:30.", ["cancel_class", "book_class"]) == []
    loan = [
        ("user", "Can I renew loan L-4 so it's due on 28 March?"),
        ("call", ("renew_loan", {"id": "L-4"}, {"ok": True}, False)),
    ]
    assert reply_claims(loan, "Loan L-4 is now due on 28 March.", ["get_loan", "renew_loan"]) == []
    ring = [("user", "Can you move booking BK-1 to 8pm? Best number to reach me today is 07984 112650."),
            ("call", ("modify_booking", {"id": "BK-1", "time": "20:00"}, {"ok": True}, False))]  # fmt: skip
    reply = "I've moved booking BK-1 to 8pm - we'll ring you on 07984 112650 if there's any problem."
    assert reply_claims(ring, reply, ["get_booking", "modify_booking"]) == []
    for status, reply, tools in (
        ("refund_issued", "Your refund for order 55123 has been issued.", ["get_order", "refund_order"]),
        ("cancellation_confirmed", "Your order 55123 has been cancelled.", ["get_order", "cancel_order"]),
        ("CANCELLED", "Ja, Ihre Bestellung 55123 ist storniert.", ["get_order", "cancel_order"]),
    ):
        looked = [
            ("user", "Any news on order 55123?"),
            ("call", ("get_order", {"id": "55123"}, {"id": "55123", "status": status}, False)),
        ]
        assert reply_claims(looked, reply, tools) == []
    unpaid = [
        ("user", "Et si je ne paie pas la commande 55123 ?"),
        ("call", ("get_order", {"id": "55123"}, {"status": "awaiting_payment"}, False)),
    ]
    rule = "Votre commande 55123 est annulée automatiquement sans paiement."
    assert reply_claims(unpaid, rule, ["get_order", "cancel_order"]) == []
    failed = [
        ("user", "Can you change booking BK-1 to 4 guests?"),
        ("call", ("modify_booking", {"id": "BK-1", "guests": 4}, None, True)),
    ]
    for reply in (
        "Your booking BK-1 is now for four guests.",
        "Your booking BK-1 is now confirmed, and it is now for 4 guests.",
    ):
        assert reply_claims(failed, reply, ["get_booking", "modify_booking"]) == [f"done: {reply}"]
    limit = [
        ("user", "Bitte erhöhen Sie mein Tageslimit auf 1.500,00 €."),
        ("call", ("set_card_limit", {"id": "C-1", "limit": 1500}, None, True)),
    ]
    assert reply_claims(limit, "Ihr Tageslimit ist jetzt 1.500,00 €.", ["get_card", "set_card_limit"]) == [
        "done: Ihr Tageslimit ist jetzt 1.500,00 €."
    ]


def test_the_third_review_of_the_now_rule_and_the_european_passive() -> None:
    """A third review's cases (ceea77f). A `now` after a non-breaking space, in Dutch (`is nu voor`) and in
    Polish (`jest teraz na`) is read; a European present passive of a change or a deletion, which others
    make as often (`Ihr Flug LH-123 ist verschoben`: the airline; `Ihre Adresse ist geändert`: the user,
    online), or after a `Ja,` that answers a question, is no claim — as `Yes, your booking …` is none."""
    failed = [
        ("user", "Can you change booking BK-1 to 4 guests?"),
        ("call", ("modify_booking", {"id": "BK-1", "guests": 4}, None, True)),
    ]
    tools = ["get_booking", "modify_booking"]
    for reply in ("Your booking BK-1 is\u00a0now for 4 guests.", "Uw reservering BK-1 is nu voor 4 personen.",
                  "Pana rezerwacja BK-1 jest teraz na 4 osoby."):  # fmt: skip
        assert reply_claims(failed, reply, tools) == [f"done: {reply}"]
    delayed = [("user", "Was ist mit meinem Flug LH-123?"),
               ("call", ("get_flight", {"id": "LH-123"}, {"status": "delayed", "new_departure": "16:30"}, False))]  # fmt: skip
    for reply in ("Ihr Flug LH-123 ist verschoben, neue Abflugzeit 16:30.", "Ihre Adresse ist geändert."):
        assert reply_claims(delayed, reply, ["get_flight", "change_flight", "update_address"]) == []
    asked = [
        ("user", "Ist Buchung BF-7731 storniert?"),
        ("call", ("cancel_booking", {"id": "BF-7731"}, None, True)),
    ]
    assert done_claims("Ja, Ihre Buchung BF-7731 ist storniert.") == ()
    assert reply_claims(asked, "Ihre Buchung BF-7731 ist storniert.", ["cancel_booking"]) != []


def test_a_day_written_with_its_months_name_in_another_language_is_that_day() -> None:
    """Blind sets 9, 14, 18, 21, 25 and 28 wrote dates as their languages do (`31. Mai`, `vendredi 13
    février`, `terça-feira, 16 de junho`): such a day is that day of that month, as `August 30` is. The
    call's date the user said so is the user's, and a reply that gives the results' day passes. A reply's
    day nothing states is for review, never failed: the lengths of time such a day may be counted by
    (`hasta el martes 3 de marzo (72 horas antes)`) are read in English only — blind sets 11–35 had 18 such
    good replies, and the English `15 December 2025` is failed as before."""
    ev = Evidence(today="2025-08-01")
    ev.add_user(1, "Je voudrais réserver pour le samedi 30 août, s'il vous plaît.")
    assert {p.path: p.source for p in ev.provenance("book", {"date": "2025-08-30"})} == {"date": "user"}
    result = {"booking_id": "BK-1", "date": "2025-08-30"}
    ev.add_call(2, "book", {"date": "2025-08-30"}, result, failed=False, tainted=False)
    good = (
        "C'est réservé pour le samedi 30 août.",
        "Reservado para el 30 de agosto de 2025.",
        "Gebucht für Samstag, den 30. August.",
        "8월 30일로 예약되었습니다.",
        "Foglalva: augusztus 30.",
    )
    for reply in good:
        assert ev.unsupported(reply, ["book"]) == [], reply
    for reply, said in (
        ("C'est réservé pour le dimanche 31 août.", "31 août"),
        ("Reservado para el 31 de agosto de 2025.", "31 de agosto de 2025"),
        ("Gebucht für Sonntag, den 31. August.", "31. August"),
        ("8월 31일로 예약되었습니다.", "8월 31일"),
    ):
        assert [(c.text, c.unsure, c.kind) for c in ev.unsupported(reply, ["book"])] == [
            (said, True, "written_day")
        ], reply
    english = ev.unsupported("It is booked for Sunday, 31 August 2025.", ["book"])
    assert [(c.text, c.unsure) for c in english] == [("31 August 2025", False)]
    # one claim a date: not its month's number (`11월`) or its month and year (`November 2025`) besides
    for reply, said in (
        ("11월 20일로 예약되었습니다.", "11월 20일"),
        ("Gebucht für den 30. November 2025.", "30. November 2025"),
    ):
        assert [c.text for c in ev.unsupported(reply, ["book"])] == [said], reply


def test_a_day_and_time_a_stated_length_before_a_booked_time_is_computed() -> None:
    """Grounding blind set 13 (a good conversation, flagged): `8 hours of fasting` before a blood test
    booked for Tuesday 3 March at 07:50 — `eat nothing from 23:50 on Monday 2 March`. The day and its time
    are worked out together across midnight; another day or another time is not."""
    prompt = ["Glucose and lipid profile need 8 hours of fasting (water allowed)."]
    visit = {"appointment_id": "CITA-55120", "date": "2026-03-03", "time": "07:50"}

    def claims(reply: str) -> list[str]:
        ev = Evidence(prompt, today="2026-02-25")
        ev.add_user(1, "Can you move CITA-55120 to next Tuesday, first thing?")
        ev.add_call(2, "reschedule_appointment", visit, {**visit, "status": "confirmed"}, False, False)
        return [c.text for c in ev.unsupported(reply, []) if not c.unsure]

    assert claims("Booked for Tuesday 3 March at 07:50. Eat nothing from 23:50 on Monday 2 March.") == []
    assert claims("Booked. Fasting starts at 23:50 the evening before, Monday 2 March.") == []
    assert claims("Booked. Eat nothing from 23:50 on Sunday 1 March.") == ["1 March"]
    assert claims("Booked. Eat nothing from 21:50 on Monday 2 March.") == ["2 March"]
    es = Evidence(["Para glucosa se requieren 8 horas de ayuno."], today="2026-02-25")
    es.add_user(1, "¿Me la podéis pasar al martes que viene a primera hora?")
    es.add_call(2, "reschedule_appointment", visit, {**visit, "status": "confirmada"}, False, False)
    assert es.unsupported("No comas nada desde las 23:50 del lunes 2 de marzo.", []) == []


def test_an_amount_one_slip_from_what_the_replys_own_figures_give_fails() -> None:
    """Grounding blind sets 1-39: a total, a net or a VAT-inclusive price the reply works out from the amounts
    it has just said, written with a digit changed or two swapped, was only for review (nothing similar is
    stated): `£60.45 including VAT` of `£50.45` under `VAT is 20%` (£60.54), `net spend $151.74` after
    `$165.23` and a `$12.49` refund ($152.74), `50% of the £688.50 booking, so £334.25` (£344.25). Right,
    they pass; a total worked out in two steps (`£65 each plus the £30 fee, so £160`, two horses) is no
    slip of its one-step `£130`; the amounts before the result are not checked against it."""

    def failing(reply: str, texts: bool = False) -> list[str]:
        ev = Evidence(["VAT is 20%. Yard visit fee £30. Routine exam £65 per horse."], today="2025-11-05")
        ev.add_user(1, "Two horses please, and what do we pay on FL-C-1874?")
        ev.add_call(2, "get_contract", {"contract_id": "FL-C-1874"}, {"monthly_ex_vat": 50.45}, False, False)
        ev.add_call(3, "get_booking", {"booking_id": "EVB-50731"}, {"total_ex_vat": 688.5}, False, False)
        return [c.text if texts else c.detail for c in ev.unsupported(reply, []) if not c.unsure]

    assert failing("That's £50.45 a month ex VAT, or £60.45 including VAT.") == [
        "the reply states '£60.45', but its own figures give 60.54"
    ]
    assert failing("That's £50.45 a month ex VAT, or £60.54 including VAT.") == []
    assert failing("The fee would be 50% of the £688.50 booking, so £334.25 + VAT.") == [
        "the reply states '£334.25', but its own figures give 344.25"
    ]
    assert failing("The fee would be 50% of the £688.50 booking, so £344.25 + VAT.") == []
    spent = "Your purchases total $165.23, and you got a $12.49 refund, so your net spend is ${}."
    assert failing(spent.format("151.74"), texts=True) == ["$151.74"]
    assert failing(spent.format("152.74"), texts=True) == []
    assert failing("Two routine exams are £65 each plus the £30 visit fee, so £160 in total.") == []
    # an adjustment the sentence gives before the result is part of the work (blind set 1)
    paid = "Claim approved for $2,400.00. After your $750 collision deductible, you'll receive ${}."
    assert failing(paid.format("1,750.00"), texts=True) == ["$1,750.00"]
    assert failing(paid.format("1,650.00"), texts=True) == []
    # a word of rounding elsewhere in the sentence is none of the amount's (blind set 10)
    deposit = "Total £17,100 inc VAT. The 30% deposit would be £{}, and the lead time is about 6 weeks."
    assert failing(deposit.format("5,310"), texts=True) == ["£5,310"]
    assert failing(deposit.format("5,130"), texts=True) == []


def test_a_two_digit_number_or_a_month_and_day_swapped_is_no_look_alike() -> None:
    """Tried on blind sets 1-40 and dropped: `84` croissants after the stated `48` and three dozen more
    (any number and a multiple of nine swap its digits), `1958-12-03` for a birth date said `03/12/1958`
    (read month first, so an agent's right reading looks swapped), the 31st for the 13th (the 31st is
    a month's end, the day most often computed). Each stays for review."""
    ev = Evidence(today="2026-03-02")
    ev.add_user(1, "Pause it from the 13th to the end of the month. It's 48 croissants, born 03/12/1958.")
    assert ev.lookalike_of(84, "number") is None
    assert ev.lookalike_of("1958-12-03", "date") is None
    assert ev.lookalike_of("2026-03-31", "date") is None


@pytest.mark.parametrize(
    ("reply", "claimed"),
    [
        # grounding blind set 40 (each a planted false claim that read as nothing): an opener that says the
        # work is done in other words, a thing named by a possessive, Chinese 购买, a Korean bare passive of
        # a reservation named by its id
        ("All sorted: tomorrow's visit MED-7702 is cancelled, with the £30 late fee.", True),
        ("That's all confirmed - Dancer is booked in for remedial shoeing on Wednesday at 3pm.", True),
        ("疗程已购买成功,6次复诊都已经记在您的账户上了。", True),
        ("내일 오전 10시 진료 예약(HSG-7720)이 취소되었습니다.", True),
        # not claims: a slot taken, news, a rule, a possessive (as often a state: `Sarah's appointment APT-2231
        # is booked for Friday, so I can't give you that slot`), the user's own purchase
        ("해당 시간은 이미 예약되었습니다.", False),
        ("KE-123편 예약은 기상 악화로 취소되었습니다.", False),
        ("Tomorrow's visit MED-7702 is cancelled.", False),
        ("Today's slots are booked up, I'm afraid.", False),
        ("Friday's class is scheduled to start at 6pm.", False),
        ("您已购买6次疗程，目前还剩3次。", False),
    ],
)
def test_claims_said_with_other_openers_possessives_and_in_chinese_and_korean(
    reply: str, claimed: bool
) -> None:
    assert bool(done_claims(reply)) is claimed


def test_a_result_that_says_the_action_is_false_or_a_failure_passed_over_with_no_cost_is_caught() -> None:
    """Grounding blind set 40: `cancel_appointment` → `"cancelled": false` (a late fee to agree first), then
    `… 취소되었습니다`; `reschedule_job` failed, then `All moved - job FF-26-0461 is now on Wednesday 17 June …,
    and there's no charge for the change` — `no charge` says no failure."""
    undone = {"ref": "HSG-7720", "cancelled": False, "status": "late_cancellation_fee_consent_required"}
    steps = [("user", "취소해 주세요"), ("call", ("cancel_appointment", {"ref": "HSG-7720"}, undone, False))]
    assert reply_claims(steps, "예약(HSG-7720)이 취소되었습니다.", ["cancel_appointment"]) != []
    done = {"ref": "HSG-7720", "cancelled": True}
    steps = [("user", "취소해 주세요"), ("call", ("cancel_appointment", {"ref": "HSG-7720"}, done, False))]
    assert reply_claims(steps, "예약(HSG-7720)이 취소되었습니다.", ["cancel_appointment"]) == []
    ev = Evidence(today="2026-06-14")
    ev.add_user(1, "The forecast is awful - can we move FF-26-0461?")
    args = {"job_ref": "FF-26-0461", "new_date": "2026-06-17"}
    ev.add_call(2, "reschedule_job", args, {"error": "SLOT_CONFLICT"}, True, False, error="SLOT_CONFLICT")
    reply = "All moved - job FF-26-0461 is now on Wednesday 17 June, and there's no charge for the change."
    # read as the claim it is since blind set 41 (`All moved —`), or as a failure passed over: it fails
    claims = [c for c in ev.unsupported(reply, ["reschedule_job"]) if not c.unsure]
    assert any(c.what == "done" or c.kind == "passed_over" for c in claims)
    assert evidence_module._says_so("Sorry, there's no slot left on the 17th.")


def test_the_reviews_cases_of_the_rounds_amounts_claims_and_failure_words() -> None:
    """The review of the round (a reader who had not written the rules), each failing on its first version:
    a reply's correct totals that must not fail (VAT on a subtotal; a credit said after the total; two
    currencies); possessives that are contractions or news, a slot taken, a Korean attempt; a charge that did
    not happen is still a failure word; `"is_cancelled": false` undoes a cancellation."""

    def failing(reply: str) -> list[str]:
        ev = Evidence(["VAT is 20%."], today="2026-03-02")
        ev.add_user(1, "How much for the shirt and the cap, and can you confirm RZ-4410 is still on?")
        ev.add_call(2, "get_reservation", {"ref": "RZ-4410"}, {"status": "confirmed"}, False, False)
        return [
            c.text for c in ev.unsupported(reply, ["get_reservation", "cancel_reservation"]) if not c.unsure
        ]

    assert failing("All confirmed: your table RZ-4410 for 4 is on Friday at 7pm.") == []
    assert failing("The shirt is £25 and the cap £20; with 20% VAT that's £54.") == []
    assert failing("The coat is $120 and the scarf $45, so you pay $163 after your $2 loyalty credit.") == []
    assert failing("The tour costs €85 and the transfer €40 — about $135 in total.") == []
    assert failing("Your purchases come to $165.23; less a $12.49 return that's $152.74.") == []
    assert failing("Your purchases come to $165.23 and a $12.49 return, so you paid $151.74.") == ["$151.74"]
    # the second review: a count times a rate and a fee, in the reply or the user's words; a rounding
    assert failing("2 × $200 + $48 = $448.") == []
    assert failing("At $200 a night plus the $48 cleaning fee, two nights come to $448.") == []
    assert failing("The coat is $120 and the scarf $43.40, so about $163 all in.") == []
    for news in (
        "Here's the latest: flight BA117 is cancelled by the airline, and I've rebooked you on BA119.",
        "Sunday's class YG-204 is cancelled due to weather, so I can't move you into it.",
        "Tomorrow's 9am visit (MED-7702) is booked solid.",
        "HSG-7720 예약을 화요일 10시로 변경하려고 했지만 해당 시간은 이미 예약되었습니다.",
    ):
        assert not [a for _, a in done_claims(news) if a in ("cancel", "book")], news
    for failure in (
        "No charge went through - the card was returned.",
        "No fees have been refunded yet.",
        "There's no charge for the booking because it didn't go through.",
    ):
        assert evidence_module._says_so(failure), failure
    # a setting turned off is no action undone (`"enabled": false` after `I've updated … autopay is now off`)
    off = [
        ("user", "turn autopay off"),
        ("call", ("update_autopay", {"id": "AC-1"}, {"enabled": False}, False)),
    ]
    assert reply_claims(off, "I've updated account AC-1 so autopay is now off.", ["update_autopay"]) == []
    undone = {"ref": "AB-123", "is_cancelled": False}
    steps = [("user", "cancel it"), ("call", ("cancel_booking", {"ref": "AB-123"}, undone, False))]
    assert reply_claims(steps, "Booking AB-123 has been cancelled.", ["cancel_booking"]) != []
