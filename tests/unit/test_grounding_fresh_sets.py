"""What grounding blind sets 41 and 42 showed when they were scored before anyone read them (December 2026):
good conversations failed on how other languages write numbers, times and days, on a stay made longer, on a
system prompt's range of dates, on deadlines a reply counts itself, and on a Polish name in another case.
Each rule here fails on the code before that round and passes now; each keeps a wrong value failing."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.compare.evidence import Evidence
from monitor.compare.facts import extract_facts


def _claims(system: str, steps: list[tuple[str, Any]], reply: str, today: str) -> list[str]:
    """The texts of the reply's unsupported facts and claims after `steps` (`("user", text)`, `("call",
    (tool, args, result))`), the system prompt said first."""
    ev = Evidence(system=[system] if system else [], today=today)
    for turn, (what, step) in enumerate(steps, start=1):
        if what == "user":
            ev.add_user(turn, step)
        else:
            tool, args, result = step
            ev.provenance(tool, args)
            ev.add_call(turn, tool, args, result, failed=False, tainted=False)
    return [c.text for c in ev.unsupported(reply, ["book_slot", "get_booking"])]


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        # the rupiah and the đồng write dots between thousands and have no cents
        ("Totalnya Rp400.000, harga Rp200.000 per orang", ("number:200000|idr", "number:400000|idr")),
        ("Rp 75.000 per malam", ("number:75000|idr",)),
        ("1.250.000 đ", ("number:1250000|vnd",)),
        # two groups of thousands after dots: one number, in any currency or none
        ("the 2.500.000 users", ("number:2500000",)),
        ("$1.500.000 CLP", ("number:1500000|usd",)),
        # thousands set apart by a space before a currency that writes them so
        ("2 × 890 € = 1 780 €", ("number:1780|eur", "number:2", "number:890|eur")),
        # a time of day with a dot after a word that says so, and the times listed after it
        ("klo 17.00, 17.40 ja 18.20", ("time:17:00", "time:17:40", "time:18:20")),
        ("um 16.30 Uhr", ("time:16:30",)),
        ("jam 08.30", ("time:08:30",)),
        ("pukul 23.59 WIB", ("time:23:59",)),
    ],
)
def test_numbers_and_times_as_other_languages_write_them(text: str, facts: tuple[str, ...]) -> None:
    assert extract_facts(text).facts == facts


def test_what_the_new_readings_leave_alone() -> None:
    """An IPv4 address is no number in thousands; a decimal with no word of time before it stays a number;
    a count before an amount in English stays a count (no currency that writes spaced thousands)."""
    assert "number:10120200255" not in extract_facts("host 10.120.200.255").facts
    assert extract_facts("a rating of 4.50").facts == ("number:4.5",)
    assert extract_facts("2 100 USD notes").facts == ("number:100|usd", "number:2")


def test_a_reply_in_rupiah_is_read_as_the_results_figures() -> None:
    """Blind set 41 (race entries, Indonesian): `Rp400.000` was read as the id `RP400` and failed."""
    system = "Kategori: 10K Rp250.000. Early bird: diskon 20%."
    steps = [
        ("user", "Mau daftar 10K dua orang."),
        ("call", ("register_group", {"category": "10k"}, {"price_each_idr": 200000, "total_idr": 400000})),
    ]
    today = "2026-07-15"
    assert _claims(system, steps, "Totalnya Rp400.000 — Rp200.000 per orang.", today) == []
    assert _claims(system, steps, "Totalnya Rp450.000.", today) == ["IDR 450000"]


def test_a_dotted_number_is_also_a_time_or_a_day() -> None:
    """Blind set 42 (Finnish): `(lisäksi 16.20)` after `klo 17.00, 17.40 ja 18.20`, and `torstaina 13.11.`,
    were read as the decimals 16.2 and 13.11. A time or a day nothing states is still unsupported."""
    steps = [
        ("user", "Sopisiko näyttö torstaina?"),
        ("call", ("get_viewing_slots", {"date": "2025-11-13"}, {"slots": ["16:20", "17:00"]})),
    ]
    today = "2025-11-10"
    assert _claims("", steps, "Torstaina 13.11. vapaana klo 17.00 (lisäksi 16.20).", today) == []
    assert _claims("", steps, "Vapaana klo 17.00 (lisäksi 16.25).", today) == ["16.25"]
    assert _claims("", steps, "Torstaina 14.11. vapaana klo 17.00.", today) == ["14.11"]


def test_one_more_night_puts_a_day_after_the_stated_departure() -> None:
    """Blind set 41 (campsite): `Can we stay one more night?` and the call's new departure the day after the
    booked one. Two days after it is still not what the user asked."""
    result = {"reservation_id": "GRC-2231", "arrival": "2026-07-23", "departure": "2026-07-26"}
    steps: list[tuple[str, Any]] = [
        ("user", "We're booked in from Thursday, ref GRC-2231. Can we stay one more night?"),
        ("call", ("get_reservation", {"reservation_id": "GRC-2231"}, result)),
    ]
    ev = Evidence(today="2026-07-20")
    ev.add_user(1, steps[0][1])
    ev.add_call(2, "get_reservation", {"reservation_id": "GRC-2231"}, result, failed=False, tainted=False)
    extended = ev.provenance("modify_reservation", {"new_departure_date": "2026-07-27"})
    assert [p.source for p in extended] == ["computed"]
    assert [p.source for p in ev.provenance("modify_reservation", {"new_departure_date": "2026-07-28"})] == [
        "agent"
    ]


def test_a_day_inside_a_range_of_dates_the_system_prompt_gives_is_stated() -> None:
    """Blind set 41 (swim school): `no lessons in half-term week (27 October - 2 November)` and a reply's
    `no lesson on 1 November`. A prompt's weekdays (`open Monday to Friday`) name no days of this week."""
    system = "No lessons in half-term week (27 October - 2 November). Open Monday to Friday."
    steps = [("user", "When is the last lesson?")]
    today = "2025-08-27"  # a Wednesday
    assert _claims(system, steps, "There's no lesson on 1 November because of half-term.", today) == []
    assert _claims(system, steps, "We're closed on Thursday 28 August.", today) == ["28 August"]


def test_a_deadline_to_let_the_business_know_and_a_length_the_reply_says_itself() -> None:
    """Blind sets 41 and 42: `just let us know by 19:15 on Thursday 11 December` under `the player count can
    be changed up to 24 hours before` a Friday 19:15 game; `don't light it from 1:30pm on Wednesday 8
    October, so it's been out for 24 hours` before a Thursday 13:30 sweep. A day a day off at the same time
    with neither is still a slip (`arrive by …`, no length said)."""
    system = "The player count can be changed up to 24 hours before."
    booked = {
        "booking_ref": "CL-90314",
        "date": "2025-12-12",
        "start": "19:15",
        "start_at": "2025-12-12T19:15",
    }
    steps: list[tuple[str, Any]] = [
        ("user", "Book Friday 12 December at 19:15 please."),
        ("call", ("book_slot", {"slot_id": "GS-1915"}, booked)),
    ]
    today = "2025-12-04"
    said = (
        "Booked for Friday 12 December. If you drop to 6, just let us know by 19:15 on Thursday 11 December."
    )
    assert _claims(system, steps, said, today) == []
    assert _claims(system, steps, "Booked. Please arrive by 19:15 on Thursday 11 December.", today) == [
        "11 December"
    ]
    sweep = {"booking_ref": "HF-6021", "start": "2025-10-09T13:30"}
    steps = [("user", "Thursday half one."), ("call", ("book_slot", {"slot_id": "HF-1330"}, sweep))]
    out = "Booked for Thursday 9 October. Don't light it from 1:30pm on Wednesday 8 October, so it's been out for 24 hours."
    assert _claims("", steps, out, "2025-10-01") == []
    unsaid = "Booked for Thursday 9 October. Don't light it from 1:30pm on Wednesday 8 October."
    assert _claims("", steps, unsaid, "2025-10-01") == ["8 October"]


def test_a_polish_name_in_another_case_is_the_users() -> None:
    """Blind set 41 (campsite): `Rezerwacja na Katarzynę Wójcik` (the accusative) and a booking for
    `Katarzyna Wójcik`. Only in a text that declines names (a Slavic letter in it), and not `Martin` for
    `Martina` (a name of its own), nor an English `Ann` for `Anna`."""
    ev = Evidence(today="2026-07-01")
    ev.add_user(1, "Rezerwacja na Katarzynę Wójcik, tel. 601 234 567.")
    ev.add_user(2, "And for my sister Anna Smith and Martina Nowak.")
    assert [p.source for p in ev.provenance("book", {"guest_name": "Katarzyna Wójcik"})] == ["user"]
    assert [p.source for p in ev.provenance("book", {"guest_name": "Katarzyna Wójtek"})] == ["agent"]
    assert [p.source for p in ev.provenance("book", {"guest_name": "Ann Smith"})] == ["agent"]
    assert [p.source for p in ev.provenance("book", {"guest_name": "Martin Nowak"})] == ["agent"]


def test_more_than_n_days_before_puts_the_last_day_one_further() -> None:
    """Blind set 41 (mountain hut): `Cancellation more than 14 days before arrival: deposit refunded` and a
    reply's `so by 23 June at the latest` for an 8 July arrival: 15 days before. A day further still fails."""
    system = "Cancellation more than 14 days before arrival: deposit refunded."
    result = {"reservation_id": "VO-26-1184", "date": "2026-07-08", "nights": 2}
    steps: list[tuple[str, Any]] = [
        ("user", "Two nights from 8 July please."),
        ("call", ("book_slot", {"date": "2026-07-08"}, result)),
    ]
    today = "2026-05-18"
    assert (
        _claims(system, steps, "If you cancel by 23 June at the latest, the deposit is refunded.", today)
        == []
    )
    assert _claims(
        system, steps, "If you cancel by 21 June at the latest, the deposit is refunded.", today
    ) == ["21 June"]


def test_the_reviews_cases_keep_failing_or_read_as_before() -> None:
    """A reviewer who had not written the rules tried to break them; each case that applied is here."""
    # a decimal is a time only in a reply that writes times with dots, a day only with its dot mid-sentence
    steps: list[tuple[str, Any]] = [
        ("user", "What do I owe?"),
        (
            "call",
            ("get_booking", {"ref": "AB-1"}, {"start": "2026-12-20T14:30", "fee": 14.8, "due": "2026-12-24"}),
        ),
    ]
    assert _claims("", steps, "The fee is 14.30.", "2026-12-01") == ["14.30"]
    assert _claims("", steps, "The fee is 24.12.", "2026-12-01") == ["24.12"]
    # a word of telling the business counts right before the deadline's `by` only
    booked = {"booking_ref": "CL-90314", "start_at": "2025-12-12T19:15"}
    steps = [("user", "Book it."), ("call", ("book_slot", {"slot_id": "GS-1915"}, booked))]
    system = "The player count can be changed up to 24 hours before."
    arrive = "Booked. We'll notify the instructor. Please arrive by 19:15 on Thursday 11 December."
    assert _claims(system, steps, arrive, "2025-12-04") == ["11 December"]
    # a length counts when the sentence gives it as one, not as a thing's kind
    sweep = {"booking_ref": "HF-6021", "start": "2025-10-09T13:30"}
    steps = [("user", "Thursday half one."), ("call", ("book_slot", {"slot_id": "HF-1330"}, sweep))]
    hire = "Booked for Thursday 9 October. Your 24-hour hire starts at 1:30pm on Wednesday 8 October."
    assert _claims("", steps, hire, "2025-10-01") == ["8 October"]
    # a closure's days ground a reply's day only where it says nothing is on it
    system = "No lessons in half-term week (27 October - 2 November)."
    assert _claims(
        system, [("user", "Next lesson?")], "Your next lesson is on 30 October.", "2025-08-27"
    ) == ["30 October"]
    # given names of their own are no cases of another
    ev = Evidence(today="2026-07-01")
    ev.add_user(1, "Marie Dvořák and Jane Dvořáková, Brno.")
    assert [p.source for p in ev.provenance("book", {"guest": "Maria Dvořák"})] == ["agent"]
    assert [p.source for p in ev.provenance("book", {"guest": "Jan Dvořák"})] == ["agent"]
    # a phone number written with dots is no number in thousands; an amount after `um` is no time
    assert extract_facts("Llámenos al 612.345.678").facts != ("number:612345678",)
    assert "number:612345678" not in extract_facts("al +34 612.345.678").facts
    assert extract_facts("Der Preis steigt um 2.50 Euro").facts == ("number:2.5|eur",)
    assert extract_facts("aperto dalle 9.30 alle 18.00, 4.50 euro").facts == (
        "number:4.5|eur",
        "time:09:30",
        "time:18:00",
    )


def test_english_done_claims_the_fresh_sets_passed() -> None:
    """Blind sets 41 and 42: `I've enrolled Oliver` after `"status": "pending", "confirmed": false`; `All moved
    —` after a failed reschedule; `I've approved the estimate` with `approve_estimate` never called; `has been
    moved` after `request_install_reschedule` answered `"status": "pending"`. Each still passes once done."""

    def claims(call: tuple[str, Any, Any, bool], reply: str, tools: list[str]) -> list[str]:
        ev = Evidence(today="2025-09-02")
        ev.add_user(1, "Please do it.")
        tool, args, result, failed = call
        ev.add_call(2, tool, args, result, failed=failed, tainted=False)
        return [c.what for c in ev.unsupported(reply, tools) if not c.unsure]

    held = {"request_id": "RLC-7724", "status": "pending", "confirmed": False}
    enrolled = {"request_id": "RLC-7724", "status": "enrolled", "confirmed": True}
    said = "I've enrolled Oliver in Stage 3, request RLC-7724."
    assert claims(("enrol_child", {"child": "Oliver"}, held, False), said, ["enrol_child"]) == ["done"]
    assert claims(("enrol_child", {"child": "Oliver"}, enrolled, False), said, ["enrol_child"]) == []
    moved = "All moved — your game MT-30551 is now on Saturday 24 January at 8:30pm."
    failed = ("reschedule_booking", {"booking_ref": "MT-30551"}, {"error": "slot taken"}, True)
    assert "done" in claims(failed, moved, ["reschedule_booking"])
    assert "done" not in claims(
        ("get_slots", {}, {"slots": []}, False), "All booked up for Saturday, sorry.", ["book_slot"]
    )
    approved = "Great — I've approved the estimate EST-9153-A."
    looked = (
        "get_estimate",
        {"request_id": "RQ-9153"},
        {"estimate_id": "EST-9153-A", "status": "awaiting_approval"},
        False,
    )
    assert claims(looked, approved, ["get_estimate", "approve_estimate"]) == ["done"]
    done = (
        "approve_estimate",
        {"estimate_id": "EST-9153-A"},
        {"estimate_id": "EST-9153-A", "status": "approved"},
        False,
    )
    assert claims(done, approved, ["get_estimate", "approve_estimate"]) == []
    request = {"request_id": "RR-3391", "status": "pending", "requested_date": "2025-11-03"}
    asked = ("request_install_reschedule", {"order_ref": "SOL-55102"}, request, False)
    tools = ["request_install_reschedule"]
    assert claims(asked, "Your installation has been moved to Monday 3 November.", tools) == ["done"]
    assert claims(asked, "I've submitted your request RR-3391 to move it to Monday 3 November.", tools) == []


def test_the_second_reviews_cases_of_the_done_claims() -> None:
    """A second reviewer's cases: an opener's claim leaves the sentence's other claims read; a waiting
    approval is none; `confirmed: false` beside a status that says it done, or on an update, undoes nothing;
    a request tool that does the action itself (`submit_order`, `request_refund`) does it; `All booked, I'm
    afraid` says full."""

    def claims(calls: list[tuple[str, Any, Any, bool]], reply: str, tools: list[str]) -> list[str]:
        ev = Evidence(today="2025-09-02")
        ev.add_user(1, "Please do it.")
        for turn, (tool, args, result, failed) in enumerate(calls, start=2):
            ev.add_call(turn, tool, args, result, failed=failed, tainted=False)
        return [c.what for c in ev.unsupported(reply, tools) if not c.unsure]

    moved = (
        "reschedule_booking",
        {"booking_ref": "MT-30551"},
        {"booking_ref": "MT-30551", "status": "rescheduled"},
        False,
    )
    both = "All moved — MT-30551 is on the new day now, and I've cancelled your Friday lesson."
    assert claims([moved], both, ["reschedule_booking", "cancel_lesson"]) == ["done"]
    waiting = ("approve_estimate", {"estimate_id": "EST-1"}, {"status": "pending_second_approval"}, False)
    assert claims([waiting], "I've approved estimate EST-1.", ["approve_estimate"]) == ["done"]
    for result in ({"status": "booked", "confirmed": False}, {"status": "reserved", "is_confirmed": False}):
        booked = ("book_table", {"party": 4}, result, False)
        assert claims([booked], "Your table is booked — I've booked it for 7pm.", ["book_table"]) == []
    email = (
        "update_email",
        {"email": "ana@example.com"},
        {"email": "ana@example.com", "confirmed": False},
        False,
    )
    assert claims([email], "I've updated your email address to ana@example.com.", ["update_email"]) == []
    order = ("submit_order", {"sku": "A1"}, {"order_id": "ORD-4410", "status": "pending_fulfilment"}, False)
    assert claims([order], "I've placed your order ORD-4410.", ["submit_order"]) == []
    refund = ("request_refund", {"charge": "ch_1"}, {"refund_id": "re_9", "status": "pending"}, False)
    assert claims([refund], "I've refunded $20.00 to your card (refund re_9).", ["request_refund"]) == []
    full: tuple[str, Any, Any, bool] = ("get_availability", {"date": "2025-09-06"}, {"slots": []}, False)
    assert claims([full], "All booked, I'm afraid — Saturday has no free slots.", ["book_slot"]) == []


def test_a_currency_named_in_words_grounds_its_code() -> None:
    """Blind set 43 (bureaux de change): `I'd like 400 euros`, `Swiss francs` and the call's `currency: "EUR"`,
    `"CHF"` failed as codes nothing states. The CLDR's names of each currency in the calendar's languages
    ground its ISO code (`monitor/data/currencies.tsv`); another currency's code still fails."""
    for said, code in (
        ("I'd like 400 euros for Saturday.", "EUR"),
        ("Do you have Swiss francs?", "CHF"),
        ("Хочу купить 500 швейцарских франков.", "CHF"),
        ("我想换澳大利亚元。", "AUD"),
    ):
        ev = Evidence(today="2025-10-11")
        ev.add_user(1, said)
        assert [p.source for p in ev.provenance("get_rate", {"currency": code})] == ["user"], said
        assert [p.source for p in ev.provenance("get_rate", {"currency": "GBP"})] == ["agent"], said
