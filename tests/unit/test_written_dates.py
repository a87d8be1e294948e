"""Dates written with their month's name in the calendar table's languages (`spoken.day_months`): the day
and month each says, the date when the year is written, and what only looks like one."""

from __future__ import annotations

import pytest

from monitor.compare.spoken import day_months


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("jusqu'au 2 décembre", ["md:12-02"]),  # blind set 30
        ("el martes 4 de noviembre", ["md:11-04"]),  # blind set 9
        ("terça-feira, 16 de junho de 2026", ["md:06-16", "date:2026-06-16"]),
        ("Mittwoch, 13. Mai", ["md:05-13"]),  # blind set 15
        ("piątek, 21 listopada, na 10:20", ["md:11-21"]),  # blind set 23: Polish names a date's month so
        ("21 listopad", ["md:11-21"]),  # and so when it stands alone
        ("maandag 11 mei", ["md:05-11"]),  # blind set 8
        ("domenica 23 marzo", ["md:03-23"]),  # blind set 24
        ("30 августа 2025 г.", ["md:08-30", "date:2025-08-30"]),
        ("2025년 8월 30일", ["md:08-30", "date:2025-08-30"]),  # Korean: year, month, day
        ("8월30일", ["md:08-30"]),
        ("2025. augusztus 30.", ["md:08-30", "date:2025-08-30"]),  # Hungarian: the month first
        ("ngày 30 tháng 8", ["md:08-30"]),  # Vietnamese: the month is `tháng 8`
        ("le 30 aout", ["md:08-30"]),  # typed without its accent
        ("3 Kasım", ["md:11-03"]),
        ("2025년12월 25일", ["md:12-25", "date:2025-12-25"]),  # the year joined to its month: not `2월`
        ("예약은12월25일", ["md:12-25"]),
        ("15 Μαΐου", ["md:05-15"]),  # a letter folding would decompose
        ("le 1er août", ["md:08-01"]),  # an ordinal's mark
        ("1º de agosto", ["md:08-01"]),
    ],
)
def test_a_day_and_its_months_name_are_that_day(text: str, keys: list[str]) -> None:
    assert [key for key, _ in day_months(text)] == keys


@pytest.mark.parametrize(
    "text",
    [
        "31 de junho",  # June has 30 days
        "3 out of 5",  # Portuguese `out.` is October only abbreviated
        "augusztus 2025",  # a month and a year: no day
        "Kasım 3",  # Turkish puts the day first
        "ORD-83439",
        "le 30",  # a day alone
        "8월 3박 4일",  # three nights in August: Korean writes a day with its `일`
        "12월 2명",
        "ORD-30 mai",  # an id's digits
        "#12 mai",
    ],
)
def test_what_only_looks_like_a_day_and_its_month_is_none(text: str) -> None:
    assert day_months(text) == []


def test_the_date_is_given_as_written() -> None:
    assert day_months("Reservado para el 30 de agosto de 2025.") == [
        ("md:08-30", "30 de agosto de 2025"),
        ("date:2025-08-30", "30 de agosto de 2025"),
    ]
