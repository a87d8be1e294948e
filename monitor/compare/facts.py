"""Normalized text and the typed facts in it: rungs 2–3 of the comparison ladder. Pure.

Shared below every stage that reads text: `assemble` (transcripts), `score` (the ladder, replies) and
`attribute` (data flow between turns) import it; it imports nothing of the monitor.

`normalize_text` folds case, Unicode compatibility forms (NFKC), punctuation and whitespace.
`extract_facts` finds the typed facts in a value — numbers with units or currency, dates and times,
quarters, weekdays, months, periods relative to now (`last quarter`), ordinals after a determiner,
currencies named alone, booleans, identifiers — as canonical strings, and returns the words left over. Two values
whose facts differ are different whatever their wording ("order A123" vs "order A124"); two values
with the same facts are compared further on what is left ("Q3 2024 revenue" vs "third quarter
revenue figures for 2024" → facts {quarter:3, number:2024} on both sides, residual "revenue" vs
"revenue figures for").

JSON values as the stages read and compare them: `parse_json` (`json.loads`, faster, the same values)
and `canonical_json` (one spelling of equal values, for keys).
"""

from __future__ import annotations

import bisect
import calendar
import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from itertools import chain
from typing import Any

import orjson
import phonenumbers
from dateutil import parser as dateparser

from monitor.compare.hints import DIGIT, fold, holds_any, stems_of, unaccented
from monitor.compare.spoken import number_runs
from monitor.compare.textcache import short_cached

_PUNCT = re.compile(r"[^\w\s]+|_+", re.UNICODE)
#: A `+` (or two) that ends a name, a word with a letter in it: S24+, C++, A+ — not +1 415, 2+2, 18+,
#: 2.1+ or john+orders@. (The word taken whole, possessively: a long word tried split at every letter
#: cost the square of its length.)
_NAME_PLUS = re.compile(r"\b(?=\w*[^\W\d_])(\w++)(\+{1,2})(?![\w.@+-])")
_SPACE = re.compile(r"\s+")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "and",
        "or",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "i",
        "you",
        "we",
        "they",
        "he",
        "she",
        "me",
        "my",
        "your",
        "our",
        "their",
        "please",
        "sure",
        "ok",
        "okay",
        "here",
        "there",
        "which",
        "what",
        "would",
        "should",
        "could",
        "can",
        "will",
        "shall",
        "may",
        "might",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "let",
        "like",
        "just",
        "so",
    ]
)

#: Cardinal words read as numbers ("four days" = "4 days"). "one" and "zero" are left out: too often
#: they are pronouns or idioms ("the one I ordered").
NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
    if i >= 2
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
#: The number words no other contains (`four`, not `fourteen`): one of them is in every number word.
_NUMBER_WORD_STEMS = stems_of(NUMBER_WORDS)
NUMBER_WORD = _NUMBER_WORD  # public: a number said in words (`twelve`), for cheap pre-tests elsewhere
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}

#: Scale words. "m" is not one: "10000 m" is metres — but after a currency it is the million of `$1.2M`
#: (`_CURRENCY_MULTIPLIERS`, with "b" for billion).
_MULTIPLIERS = {
    "k": 1e3, "thousand": 1e3, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9, "dozen": 12,
}  # fmt: skip
_CURRENCY_MULTIPLIERS = {**_MULTIPLIERS, "m": 1e6, "b": 1e9}
#: unit spelling -> (canonical unit, factor to it)
_UNITS: dict[str, tuple[str, float]] = {
    "%": ("percent", 1),
    "percent": ("percent", 1),
    "pct": ("percent", 1),
    "$": ("usd", 1),
    "usd": ("usd", 1),
    "dollars": ("usd", 1),
    "dollar": ("usd", 1),
    "€": ("eur", 1),
    "eur": ("eur", 1),
    "euros": ("eur", 1),
    "euro": ("eur", 1),
    "£": ("gbp", 1),
    "gbp": ("gbp", 1),
    "¥": ("jpy", 1),
    "jpy": ("jpy", 1),
    "cny": ("cny", 1),
    "chf": ("chf", 1),
    "cad": ("cad", 1),
    "aud": ("aud", 1),
    "inr": ("inr", 1),
    "₹": ("inr", 1),
    "krw": ("krw", 1),
    "₩": ("krw", 1),
    "sgd": ("sgd", 1),
    "hkd": ("hkd", 1),
    "zar": ("zar", 1),
    "idr": ("idr", 1),
    "rupiah": ("idr", 1),
    "vnd": ("vnd", 1),
    "rmb": ("cny", 1),
    "yuan": ("cny", 1),
    "km": ("m", 1000),
    "kilometers": ("m", 1000),
    "kilometres": ("m", 1000),
    "m": ("m", 1),
    "meters": ("m", 1),
    "metres": ("m", 1),
    "cm": ("m", 0.01),
    "mm": ("m", 0.001),
    "mi": ("m", 1609.344),
    "ft": ("m", 0.3048),
    "feet": ("m", 0.3048),
    "foot": ("m", 0.3048),
    "inch": ("m", 0.0254),
    "inches": ("m", 0.0254),
    "yd": ("m", 0.9144),
    "yards": ("m", 0.9144),
    "kilometer": ("m", 1000),
    "kilometre": ("m", 1000),
    "meter": ("m", 1),
    "metre": ("m", 1),
    "centimeters": ("m", 0.01),
    "centimetres": ("m", 0.01),
    "miles": ("m", 1609.344),
    "mile": ("m", 1609.344),
    "kg": ("g", 1000),
    "kilograms": ("g", 1000),
    "kilogram": ("g", 1000),
    "gram": ("g", 1),
    "g": ("g", 1),
    "mg": ("g", 0.001),
    "milligrams": ("g", 0.001),
    "milligram": ("g", 0.001),
    "grams": ("g", 1),
    "lb": ("g", 453.59237),
    "lbs": ("g", 453.59237),
    "pounds": ("g", 453.59237),
    "tonnes": ("g", 1e6),  # the metric tonne (a `ton` alone is short, long or metric: not read)
    "tonne": ("g", 1e6),
    "metric tons": ("g", 1e6),
    "metric ton": ("g", 1e6),
    "ms": ("s", 0.001),
    "s": ("s", 1),
    "sec": ("s", 1),
    "secs": ("s", 1),
    "seconds": ("s", 1),
    "second": ("s", 1),
    "min": ("s", 60),
    "mins": ("s", 60),
    "minutes": ("s", 60),
    "minute": ("s", 60),
    "h": ("s", 3600),
    "hr": ("s", 3600),
    "hrs": ("s", 3600),
    "hours": ("s", 3600),
    "hour": ("s", 3600),
    "day": ("s", 86400),
    "days": ("s", 86400),
    "d": ("s", 86400),
    "week": ("s", 604800),
    "weeks": ("s", 604800),
    # days of work: `10 business days` = `two business weeks` = 10个工作日 (a duration of days is compared
    # with them as the same number in another form: `_same_quantity`)
    "business days": ("bday", 1),
    "business day": ("bday", 1),
    "working days": ("bday", 1),
    "working day": ("bday", 1),
    "business weeks": ("bday", 5),
    "business week": ("bday", 5),
    "working weeks": ("bday", 5),
    "个工作日": ("bday", 1),
    "工作日": ("bday", 1),
    # a month and a year of the calendar on average (365.25 / 12 days): `36 months` = `three years`
    "month": ("s", 2_629_800),
    "months": ("s", 2_629_800),
    "year": ("s", 31_557_600),
    "years": ("s", 31_557_600),
    "天": ("s", 86400),
    "小时": ("s", 3600),
    "分钟": ("s", 60),
    "周": ("s", 604800),
    "个星期": ("s", 604800),
    "个月": ("s", 2_629_800),  # and N年 as N × 12 个月 (`_ZH_YEARS`): 2024年 is a year, not a duration
    "元": ("cny", 1),
    "块": ("cny", 1),
    "人民币": ("cny", 1),
    "美元": ("usd", 1),
    "欧元": ("eur", 1),
    "英镑": ("gbp", 1),
    "日元": ("jpy", 1),
    "港元": ("hkd", 1),
    "港币": ("hkd", 1),
    "韩元": ("krw", 1),
    "美金": ("usd", 1),
    "円": ("jpy", 1),
    "yen": ("jpy", 1),
    "公里": ("m", 1000),
    "公斤": ("g", 1000),
    "千克": ("g", 1000),
    "liter": ("l", 1),
    "liters": ("l", 1),
    "litre": ("l", 1),
    "litres": ("l", 1),
    "ml": ("l", 0.001),
    "milliliters": ("l", 0.001),
    "millilitres": ("l", 0.001),
    "升": ("l", 1),  # not in 升级 (`_UNIT_NOT`)
    "毫升": ("l", 0.001),
    "克": ("g", 1),
    "斤": ("g", 500),  # the market jin, half a kilogram
    "米": ("m", 1),
    "千米": ("m", 1000),
    "厘米": ("m", 0.01),
    "毫米": ("m", 0.001),
    "°c": ("celsius", 1),
    "℃": ("celsius", 1),
    "摄氏度": ("celsius", 1),
    "°f": ("celsius", 5 / 9),  # and 32 below (`_OFFSETS`)
    "℉": ("celsius", 5 / 9),
    # power and area: `10 kW` / 10千瓦, `110 m²` (NFKC: m2) / 110平米
    "kw": ("w", 1000),
    "kilowatts": ("w", 1000),
    "kilowatt": ("w", 1000),
    "千瓦": ("w", 1000),
    "kwh": ("wh", 1000),
    "千瓦时": ("wh", 1000),
    "m2": ("m2", 1),
    "sqm": ("m2", 1),
    "sq m": ("m2", 1),
    "square meters": ("m2", 1),
    "square metres": ("m2", 1),
    "平米": ("m2", 1),
    "平方米": ("m2", 1),
    "sq ft": ("m2", 0.09290304),
    "square feet": ("m2", 0.09290304),
    "gb": ("byte", 1e9),
    "mb": ("byte", 1e6),
    "kb": ("byte", 1e3),
    "tb": ("byte", 1e12),
}
#: Units whose zero is not the canonical unit's: °F is 32 above 0 °C.
_OFFSETS = {"°f": 32.0, "℉": 32.0}
_CURRENCY_PREFIX = "$€£¥₹₩"
_ADDRESS_BEFORE = re.compile(
    r"(?i)\b(?:apt|apartment|unit|suite|ste|flat|room|rm|seat|row|gate|floor|#)\.?\s*$"
)
#: Dollars named by their country before the sign: US$100 is USD 100.
_DOLLAR_PREFIXES = {"us$": "usd", "a$": "aud", "au$": "aud", "c$": "cad", "ca$": "cad", "hk$": "hkd",
                    "s$": "sgd", "nz$": "nzd"}  # fmt: skip
_NUM = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNIT_ALT = "|".join(
    sorted((re.escape(u) for u in _UNITS if u not in _CURRENCY_PREFIX), key=len, reverse=True)
)
_MULT_ALT = "|".join(sorted(_MULTIPLIERS, key=len, reverse=True))
_CURRENCY_MULT_ALT = "|".join(sorted(_CURRENCY_MULTIPLIERS, key=len, reverse=True))
#: ISO codes written before an amount (`JPY 5000`, `CNY 100`): the amount's unit, as after it.
_CODES = (
    "usd", "eur", "gbp", "jpy", "cny", "rmb", "chf", "cad", "aud", "inr", "krw", "sgd", "hkd", "zar", "idr", "vnd",
)  # fmt: skip
#: A word character that is not CJK (Han, kana, hangul): Chinese and Japanese have no spaces, so an
#: identifier or a number ends where the ideographs start ("订单A123物流" holds the identifier A123).
_W = r"[^\W\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]"
#: Words a unit's ideograph begins, where it is no unit: 17升级 is 17, then 升级 "upgrade"; 18周岁 is
#: an age, no 18 weeks.
_UNIT_NOT = "(?![级职值温岁])"


#: An amount: a currency sign or ISO code before it (then `M` / `B` are million / billion), a scale
#: word, a unit after it (a capital `L` is the litre where no word follows it but `of` or a container —
#: `2 L shirts` are a size; `2L bottle`, `1.5L` litres; after an address word, `Apt 5L`, a flat
#: (`_ADDRESS_BEFORE`); a lower-case `l` alone is too often a letter).
def _quantity(prefixes: str) -> re.Pattern[str]:
    """The amount pattern with these alternatives before the number (`_QUANTITY`, `_QUANTITY_CODED`)."""
    return re.compile(
        rf"(?<!{_W})(?<!\.)(?:{prefixes})?\s?"
        rf"(?P<num>{_NUM})(?:\s?(?P<mult>(?(cur)(?:{_CURRENCY_MULT_ALT})|(?(code)(?:{_CURRENCY_MULT_ALT})|(?:{_MULT_ALT}))))\b)?"
        rf"(?:\s?(?P<unit>{_UNIT_ALT}|%|€|(?-i:L)(?!\s+(?!of\b|bottles?\b|cans?\b|jugs?\b)[A-Za-z]))(?:(?<=[\u4e00-\u9fff])|(?!{_W})){_UNIT_NOT})?",
        re.IGNORECASE,
    )


_SIGN = rf"(?P<cur>[{re.escape(_CURRENCY_PREFIX)}])(?P<code>(?!))?"
_QUANTITY = _quantity(_SIGN)
#: ... and with a country's dollar (`US$`) or an ISO code (`JPY 5000`) before the number: slower to scan,
#: so run only on a text that holds a code or a letter before a `$`.
_DOLLAR_NAMED = re.compile(r"[A-Za-z]\$")
_QUANTITY_CODED = _quantity(
    rf"(?P<cur>(?:us|au|a|ca|c|hk|s|nz)\$|[{re.escape(_CURRENCY_PREFIX)}])|(?P<code>{'|'.join(_CODES)})\s?"
)
_QUARTER = re.compile(
    r"(?:\bq(?P<q1>[1-4])\b|(?<=[\u2e80-\u9fff])q(?P<q4>[1-4])\b|\b(?P<q2>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b|\bquarter\s+(?P<q3>[1-4])\b)",
    re.IGNORECASE,
)
#: A half of a year: H1, first half (of), 上半年 (half:1); the second: H2, 下半年 (half:2). Only next to
#: a year (`H1 2024`, `2024 H1`, `first half of 2024`, `second half of the year`): `Seat H1`, `Terminal
#: H2` and `pay the first half now` are no halves of a year.
_YEAR_AHEAD = r"(?:fy\s*\d{2}(?:\d{2})?|fiscal\s+(?:19|20)\d{2}|(?:19|20)\d{2})\b"
_HALF = re.compile(
    rf"\b(?:h(?P<h1>[12])(?=\s*{_YEAR_AHEAD})|(?<=(?:19|20)\d{{2}}\s)h(?P<h3>[12])"
    r"|(?<=\bin\s)h(?P<h4>[12])|(?<=\bfor\s)h(?P<h5>[12])|(?<=\bduring\s)h(?P<h6>[12])|^\s*h(?P<h7>[12])\s*$"
    rf"|(?P<h2>first|second|1st|2nd)\s+half(?=\s+(?:of\s+)?(?:{_YEAR_AHEAD}|(?:the|this|next|last)\s+year))"
    r"|^\s*(?P<h8>first|second|1st|2nd)\s+half\s*$)\b",
    re.IGNORECASE,
)
_ZH_HALF = re.compile(r"(?P<z>[上下])半年")
#: A Chinese quarter, 第二季度 / 二季度 / 第2季度 (quarter:2); 本季度 and 上季度 are periods (`_ZH_PERIOD`).
_ZH_QUARTER = re.compile(
    r"(?<![上下本这前后近每去过])第?(?P<q>[一二三四1-4])季度"
)  # not 上一季度, 过去三季度
#: A Chinese range of months said with one 月: 4-6月, 7至9月 (one fact when it is a quarter or a half).
_ZH_MONTH_RANGE = re.compile(r"(?<!\d)(?P<a>1[0-2]|[1-9])\s*[-–~到至]\s*(?P<b>1[0-2]|[1-9])月")
#: (first month, last month) of the quarters and halves of a year.
_QUARTER_MONTHS = {(1, 3): "quarter:1", (4, 6): "quarter:2", (7, 9): "quarter:3", (10, 12): "quarter:4",
                   (1, 6): "half:1", (7, 12): "half:2"}  # fmt: skip
_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|"
    "september|october|november|december"
)
#: A dash between a day and the month of the next date of a range (`Nov 15-Apr 1`, `15-Apr 1`).
_DASH_BEFORE_MONTH = re.compile(
    r"(?<=\d)[-–—](?=(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?\s+\d)"
)
_DATE = re.compile(
    rf"(?<!{_W})(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}(?:[T ]\d{{1,2}}:\d{{2}}(?::\d{{2}})?(?:\.\d+)?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?"
    r"|\d{4}[/.]\d{1,2}[/.]\d{1,2}(?![.\d])"
    r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}})(?!{_W})",
    re.IGNORECASE,
)
#: A month of a year, the ISO reduced date `date:2024-04`: April 2024, Apr. 2024, March of 2027, 2024-04,
#: 04/2024, 2024年4月. Read after full dates, so `April 5, 2024` and `2024-04-05` stay days.
_MONTH_YEAR = re.compile(
    rf"(?<![-/])(?<!{_W})(?:(?P<name>{_MONTHS})\.?,?\s+(?:of\s+)?(?P<y1>(?:19|20)\d{{2}})"
    r"|(?P<y2>(?:19|20)\d{2})-(?P<m2>0[1-9]|1[0-2])|(?P<m3>0?[1-9]|1[0-2])/(?P<y3>(?:19|20)\d{2}))"
    rf"(?![-/])(?!{_W})"
    r"|(?<!\d)(?P<y4>(?:19|20)\d{2})年(?P<m4>十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])月(?!\d{1,2}[日号])",
    re.IGNORECASE,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(r"\b(?P<d>" + "|".join(_WEEKDAYS) + r")s?\b", re.IGNORECASE)
#: `Mon 9 Dec`, `Mon/Wed`, `Tue 4/9`: a weekday's abbreviation, capitalised, where a date, a time or
#: another day goes on (`_weekday_abbreviation`), never `Sat down` or `the Sun`.
_WEEKDAY_ABBR = re.compile(r"(?<!\w)(?P<d>Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?(?!\w)")
_WEEKDAY_ABBR_GOES_ON = re.compile(
    r"\s*(?:\d|/|,|[-–&]|(?:and|to|through|or)\b|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))"
)
_WEEKDAY_ABBRS = tuple(d[:3] for d in _WEEKDAYS)
_WEEKDAY_ABBR_AFTER = re.compile(r"(?:[/&–-]|\b(?:and|or|to|through))\s*$")
#: A word of time before an abbreviation (`this Sat`, `by Wed.`), when no name goes on after it (`Sun
#: Life`, `Wed.com`).
_WEEKDAY_ABBR_WORD = re.compile(r"\b(?:this|next|last|on|by|until|till|every)\s+$")
_WEEKDAY_ABBR_NAMES = re.compile(r"\.?\w|\s+[A-Z]")
_WEEKDAY_ABBR_NAMES_AFTER_DOT = re.compile(r"\.?\w")  # `by Wed. Could you`: a sentence begins
MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)  # fmt: skip
#: A month alone ("in April"). "may" and "march" are words too: they count only capitalised after the
#: start of the text, and so do the abbreviations ("Jan", "Sept.").
_MONTH = re.compile(
    r"(?i:\b(?P<m>january|february|april|june|july|august|september|october|november|december)\b)"
    r"|(?<=\w[\s,(])(?P<c>May|March|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?"
    r"|(?<=\w,\s)(?P<a>Jan|Feb|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?(?=\s*\d)"  # `Mon, Apr 9`
    r"|(?<=\()(?P<p>May|March|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?"
    r"(?=\s*\d{1,2}(?:st|nd|rd|th)?\s*(?:[),;–—-]|$))"  # `(May 31)`, `(Aug 1 – Oct 31)`
    r"|(?:(?<=[—–:(.!?-]\s)|^\s*)(?P<d>May|March|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?(?=\s*\d)"
    r"|^\s*(?P<w>May|March|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?\s*$"  # the whole value
)
#: A time of day: 9am, 3 pm, 3:30 p.m., 15:00, noon, midnight (time:15:00); Chinese with its part of
#: the day (下午3点 = 15:00, 上午9点半 = 09:30) or an hour past noon (15点); 3点 alone is left a number.
#: Three patterns, each run only on a text that can hold its kind (the ladder's hot path).
_TIME = re.compile(
    r"(?<![A-Za-z\d:])(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?\s?(?P<ap>[ap])\.?m\b\.?"
    r"|(?i:^\s*|\b(?:at|by|from|until|till|before|after|around|about|past)\s+)"  # `at 9 in the morning`, not `$9 …`
    r"(?P<hp>\d{1,2})(?::(?P<mp>[0-5]\d))?\s+(?:o['’]clock\s+)?"
    r"(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night))\b"
    r"|(?<![\d:.])(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?!\d|:\w)"  # `Sunday, 14:00: 12 kids`, not `12:34:ab`
    r"|(?<![\d:.$])(?P<oc>[1-9]|1[0-2])\s?o['’]clock\b"  # `ten o'clock`: the hour, as `10:00` says it
    r"(?:\s+(?:in\s+the\s+(?P<ocpart>morning|afternoon|evening)|at\s+(?P<ocnight>night)))?",
    re.IGNORECASE,
)
_TIME_WORD = re.compile(r"\b(?P<word>noon|midday|midnight)\b", re.IGNORECASE)
_TIME_WORD_HINT = re.compile(r"(?i)noon|mid")
#: Chinese parts of the day a time of day may follow (下午3点); `_ZH_PM` are the afternoon's and evening's.
_ZH_DAY_PARTS = "凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明晚|昨晚|今早|明早|昨早|今晨|明晨"
#: Minutes are the number after 点 that no measure word follows: 晚 6 点 10 人 is ten people at six.
_ZH_TIME = re.compile(
    "(?P<zp>" + _ZH_DAY_PARTS + ")?"
    r"(?P<zh>\d{1,2})[点时]"
    r"(?:(?P<zm>\d{1,2})分|(?P<zm2>[1-5]\d)(?![\d.%]|[万千百元块个公里斤米克升GMT位名张份间桌台辆件岁层]|人(?!均)|次(?!日)|楼(?![上下]))"
    r"|(?P<half>半)|(?P<ke>[一三13])刻(?!钟))?"
)
_ZH_PM = frozenset({"中午", "下午", "傍晚", "晚上", "今晚", "明晚", "昨晚"})
#: How often: daily / every day / 每天 (frequency:day) ≠ monthly / 每月 (frequency:month).
_FREQUENCY_WORDS = {
    "hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter",
    "yearly": "year", "annual": "year", "annually": "year",
}  # fmt: skip
_ZH_PERIODS = {"天": "day", "日": "day", "晚": "day", "周": "week", "星期": "week", "月": "month", "季度": "quarter",
               "年": "year"}  # fmt: skip
_FREQUENCY = re.compile(
    r"\b(?:(?P<w>"
    + "|".join(_FREQUENCY_WORDS)
    + r")|(?:every|per|each)\s+(?P<u>hour|day|week|month|quarter|year))\b",
    re.IGNORECASE,
)
#: `$65/month`, `$65/mo`: after an amount, a slash and a period say `per`.
_SLASH_PERIOD = re.compile(
    r"(?i)(?<![/\w])(?P<amount>\d[\d,.]{0,24}(?:\s?[a-z€$£¥]+)?)\s?/\s?(?P<unit>mo|month|wk|week|day|yr|year|hr|hour)\b"
)
_SLASH_UNITS = {"mo": "month", "wk": "week", "yr": "year", "hr": "hour"}
#: `$10 a day`, `twice a week` say `per day`, `per week`: after an amount or a count, `a` is `per`.
_PER_A_PERIOD = re.compile(
    r"(?i)(?P<amount>(?<!\d)\d[\d,.]{0,24}(?:\s?[%a-z€$£¥]+)?|\btwice|\bonce)\s+an?\s+(?P<unit>hour|day|week|month|year)\b"
)
#: `within a day`, `in an hour`, `a year from today`: a duration of one (`within 24 hours` is `within a
#: day`, `12 months from today` is `a year from today`).
_A_PERIOD = re.compile(
    r"(?i)\b(?P<pre>within|in|for|under|over|after|about|around|than|only|by|add|adds|added)\s+"
    r"(?P<adv>(?:roughly|about|around|approximately|nearly|almost|just|up to|at least|at most)\s+)?(?:an?|one)\s+"
    r"(?P<unit>hour|day|week|month|year)\b"
    r"|\b(?:an?|one)\s+(?P<unit_from>hour|day|week|month|year)(?=\s+(?:from|after|later|ago|before|earlier|long)\b)"
)
#: 八个G, 50G: colloquial Chinese for gigabytes (grams are 克 there).
_ZH_GIGABYTES = re.compile(
    r"(?<!\d)(?P<n>\d+(?:\.\d+)?)个?(?P<u>G(?!网|手机|信号|基站|用户|时代|技术|覆盖)"
    r"|T(?=的|硬盘|固态|存储|空间|容量))(?![A-Za-z])"
)  # 8个G, 1T的硬盘, 20G套餐: gigabytes, terabytes (a 5G套餐 is a plan of the fifth generation)
#: 每月, 每个季度; and a fee named by its period: 月费, 年费, 月租, 月供, 月保费 (a monthly fee).
_ZH_FREQUENCY = re.compile(
    r"每个?(?P<z>季度|星期|[天日晚周月年])|(?<![\d个一二两三四五六七八九十本这上下每今去明当前后节假])(?P<f>[日周月年])(?=保?费|租|供)"
)
#: 99元一个月 / 99元/月 / 99元每月 say what 每月99元 says: the period is moved before the amount.
_ZH_PER_PERIOD = re.compile(
    r"(?<!\d)(?P<amount>\d+(?:\.\d+)?元)(?:/|每|一个?)(?P<p>季度|星期|[天日晚周月年])"
)
_MONTH_ABBR = {"sept": 9, **{m[:3]: i for i, m in enumerate(MONTH_NAMES, start=1)}}
#: Periods relative to now: "last quarter" (period:-1|quarter) ≠ "next quarter" (period:1|quarter); as
#: an adjective too (`your prior-year return`).
_RELATIVE = {
    "last": -1, "previous": -1, "past": -1, "prior": -1,
    "this": 0, "current": 0,
    "next": 1, "coming": 1, "following": 1, "upcoming": 1,
}  # fmt: skip
_PERIOD = re.compile(
    r"\b(?P<rel>" + "|".join(_RELATIVE) + r")(?:\s+|-)(?P<unit>quarter|week|month|year|weekend)\b",
    re.IGNORECASE,
)
#: The same in Chinese: 上个月 = last month (period:-1|month), 下周 = next week, 本季度 = this quarter, 今年 /
#: 去年 / 明年. Only the relative word is the match, the unit is looked ahead at, so 下周二 is also
#: weekday:2 and 上个月 never reads as a month.
_ZH_RELATIVE = {"上": -1, "本": 0, "这": 0, "下": 1}
_ZH_YEAR_RELATIVE = {"去": -1, "今": 0, "明": 1}
_ZH_PERIOD_UNITS = {
    "季度": "quarter", "星期": "week", "礼拜": "week", "周末": "weekend", "周": "week", "月": "month", "年": "year",
}  # fmt: skip
_ZH_PERIOD = re.compile(
    r"(?<![一上下加以减写注证说表声标查透发文聪光分简阐清鲜英马早晚过出回留放如成日基])(?P<rel>[上本这下])(?:一个|一|个)?(?=(?P<unit>季度|星期|礼拜|周末|周(?![围期边到])|月|年(?![级纪])))"
    r"|(?<![加以减写注证说表声标查透发文聪光分简阐清鲜英过出回])(?P<yrel>[去今明])(?=年(?![级纪]))"
)
#: Word ordinals after a determiner ("the third flight" = "the 3rd flight", both number:3) or a day of
#: the month after `on the` ("due on the fifteenth." = "due on the 15th"); alone they are too often
#: discourse words ("First, I checked …").
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
# twenty-first … thirty-first, as the number words have been read by then: 20-first
_ORDINAL_WORDS |= {f"{tens}-{w}": tens + n for tens in (20, 30) for w, n in list(_ORDINAL_WORDS.items())[:9]
                   if tens + n <= 31}  # fmt: skip
_ORDINAL_ALT = "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True))
_ORDINAL = re.compile(
    rf"\b(?:(?:the|my|your|our|his|her|its|their)\s+(?P<o>{_ORDINAL_ALT})\b(?=\s+\w)"
    rf"|on\s+the\s+(?P<d>{_ORDINAL_ALT})\b"
    rf"|(?P<q>{_ORDINAL_ALT})(?=\s+(?:in|on)\s+(?:the\s+)?(?:line|queue|wait(?:ing)?[\s-]?list)\b))",
    re.IGNORECASE,
)  # a place in a queue is its number: `third in line` = `number 3 in the queue`
_ORDINAL_DIGITS = re.compile(r"\b(?P<n>\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
#: Chinese weekdays (星期二 = 周二 = 礼拜二 = Tuesday) and months (四月 = 4月 = April), as the English.
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
#: (not before 次: 每4周一次, 每周一次 are counts of weeks; 每周一, 下个星期三, 9:00-18:00周一 are days)
_ZH_WEEKDAY = re.compile(r"(?:星期|周|礼拜)(?P<d>[一二三四五六日天1-6])(?!次)")
_ZH_MONTH = re.compile(
    r"(?:(?<![\d一二三四五六七八九十])(?=[一二三四五六七八九十])|(?<!\d)(?=\d))"  # 周六6月: a digit's month
    r"(?P<m>十[一二]?|[一二三四五六七八九]|1[0-2]|[1-9])月(?!份?内)"
)
#: A run of Chinese numerals read as a number: one with a place word, starting with a digit or 十 (两千,
#: 十五, 一百二十; not 万一 "in case", 千万 "by all means", 十分 "very"), or a digit before a unit or
#: measure word (三天, 五个). Other numerals are mostly parts of words (一起, 统一, 一下).
#: The measure words and units a numeral is read as a number before (一个 too, as 1 on both sides, the
#: way `one` is in English: 一个小时 = 1小时).
_ZH_MEASURES = (
    "天|个|件|张|位|家|份|条|台|次|元|块|年|小时|分钟|周|人|公里|公斤|千克|毫升|升(?!级)|克|斤|米"
    "|单|晚|点|日|号|班|间|辆|套|双|瓶|箱|节(?!日)|期|GB|MB|TB"
)
#: Measure words of things counted, where 一 after a price is `a` (22元一桶) and 一 after 同, 万, 第, 这, 上…
#: is part of a word (同一 `same`, 万一 `in case`, 第一 `first`, 这一 `this`, 上一 `previous`); 三包 is a
#: warranty.
_ZH_THING_MEASURES = (
    "桶|饼|袋|盒|包(?![括含邮装])|杯|碗|本(?![人地次月周年来正])|支(?![付持])|只(?![是需要有能好])|棵|盆|罐|颗|粒|片"
    "|枚|副|页|封|层|册"
)
_ZH_ALL_MEASURES = _ZH_MEASURES + "|" + _ZH_THING_MEASURES
_ZH_NUMBER = re.compile(
    r"[〇零一二三四五六七八九]{4}(?=年)|(?<=点)(?:[一二两三四五六七八九]?十[一二三四五六七八九]?|零[一二三四五六七八九])(?=分)|(?<!星期)(?<!礼拜)(?<![周哪某每])(?:(?:[一二两三四五六七八九][十百千万]|十)[零〇一二两三四五六七八九十百千万]*(?!分(?!钟))"
    r"|[一二两三四五六七八九](?=" + _ZH_MEASURES + ")"
    r"|(?:(?<![同统唯元块钱万第这何之初每哪某其上下])(?<![元块][一二三四五六七八九])一|[二两三四五六七八九](?!(?<=三)包))(?="
    + _ZH_THING_MEASURES
    + ")"
    r"|[一二两三四五六七八九](?=[到至~\-–][一二两三四五六七八九十]))"  # the first of a range: 一到三天
)
#: A Chinese date, 2024年3月5日 (after numerals are read as digits): the same fact as 2024-03-05.
_ZH_DATE = re.compile(r"(?P<y>\d{4})年(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?P<d>\d{1,2})[日号]")
#: 两个小时 is 2小时: the measure word between a number and 小时 carries nothing (十二个多小时, `twelve-odd
#: hours`, is 12小时 too).
_ZH_HOURS = re.compile(r"(?<=\d)个多?(?=小时)")
#: A currency named without an amount ("in USD", "euros"): currency:usd.
_CURRENCY = re.compile(
    r"\b(?P<c>usd|eur|gbp|jpy|cny|rmb|chf|cad|aud|nzd|inr|krw|sgd|hkd|sek|nok|dkk|mxn|brl|yuan|"
    r"dollars?|euros?|yen|renminbi)\b",
    re.IGNORECASE,
)
_CURRENCY_WORDS = {"dollar": "usd", "dollars": "usd", "euro": "eur", "euros": "eur", "yen": "jpy", "rmb": "cny",
                   "yuan": "cny", "renminbi": "cny"}  # fmt: skip
#: The same, in Chinese (no word boundaries there): 用欧元支付 names currency:eur; the codes are the
#: units' (`_UNITS`: 100美元 is number:100|usd).
_ZH_CURRENCY = re.compile("(?P<c>人民币|美元|美金|欧元|英镑|日元|港元|港币|韩元)")
#: Fact kinds a paraphrase may leave out ("12% year over year" / "12% compared with last year"): they
#: differ only against a fact of the same kind on the other side, and their words stay in the residual.
SOFT_FACT_KINDS = frozenset({"period", "weekday", "month", "currency", "frequency", "dial"})
#: An email address; its characters are those of `_W` (no ideograph: 发送至a@b.cn这个邮箱 holds a@b.cn).
_EMAIL = re.compile(rf"(?<!{_W})(?:{_W}|[.+-]){{1,64}}@(?:{_W}|-)+(?:\.(?:{_W}|-)+)+(?!{_W})")
#: A telephone number: an international one (`+44 20 7946 0958`) or one in groups with a separator or an
#: area code in parentheses (`020 7946 0958`, `(415) 555-0100`), 7 to 15 digits (`_canon_phone`).
_PHONE = re.compile(
    r"(?<![A-Za-z0-9_+.,/-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]\d{2,8}){1,4}"
    r"(?![\w.,/-]?\d)(?![A-Za-z0-9_])"  # a Chinese word may touch it: 号码为138 0013 8000
)
#: What a text needs to hold a phone number (`_PHONE`), cheaper to look for: a `+` or an area code in
#: parentheses before digits, three groups of digits, or two after a trunk 0.
_PHONE_HINT = re.compile(r"\+\d|\(\d|\d{2}[\s.-]\d{2,}[\s.-]\d{2}|\b0\d{1,4}[\s.-]\d{4}")
#: What looks like a phone number and is a date (`12-05-2024`, `2024.05.12`), a number in groups of
#: thousands (`1 000 000`) or a decimal (`453.59237`).
_NOT_PHONE = re.compile(
    r"\d{1,2}[-.]\d{1,2}[-.]\d{2,4}|\d{4}[-.]\d{1,2}[-.]\d{1,2}|\d{1,3}(?:[ .]\d{3})+|\d+\.\d+"
)
#: An identifier: letters and digits, in parts joined by `-`, `_`, `/` (a digit and a letter among the
#: first 64 characters: a lookahead that scanned a whole run of dashes and digits at each of its dashes
#: cost the square of the run).
_IDENT = re.compile(
    rf"(?<!{_W})(?=(?:{_W}|-){{0,63}}\d)(?=(?:{_W}|-){{0,63}}[a-zA-Z]){_W}+(?:[-_/]{_W}+)*(?!{_W})"
)
#: A code of two capitals (or a capital and a digit) and a number written apart: `CA 1837` is CA1837,
#: as airlines' flight numbers and such codes are written both ways.
_SPACED_IDENT = re.compile(
    rf"(?<!{_W})(?<!-)(?!(?:ID|NO|NR|PO|OK|AM|PM|IS|IN|ON|AT|TO|OF|BY|OR|IF|MY|WE|HE|ME|SO|DO|GO|UP|US) )"
    r"[A-Z][A-Z\d] (?=\d{2,4}(?!\w|\.\d|,\d{1,3}(?!\d)))\d{2,4}(?![\w])"
)  # not `ID 4821`, `NO 12`: a label and its number; `航班CA 1831，2024年` is one
#: Codes written in groups, the same run together: a postal code (`M5V 2T6`, `SW1A 1AA`), a UPS
#: tracking number (`1Z 999 AA1 0123 4567 84`), a gate or a seat's letter and number (`gate B 22`), a
#: ticket's airline prefix and number (`999-2145678903`).
_GROUPED_CODE = re.compile(
    r"(?P<code>\b[A-Z]\d[A-Z] \d[A-Z]\d\b|\b[A-Z]{1,2}\d[A-Z\d]? \d(?!AM\b|PM\b)[A-Z]{2}\b"
    r"|\b1Z ?(?:[A-Z\d] ?){15}[A-Z\d](?![A-Za-z\d])"  # 1Z and 16 more, each perhaps after a space: linear
    r"|(?<![\d+-])(?!0)\d{3}-\d{10}(?![\d-]))"  # an airline's 3 digits and a 10-digit ticket, no phone
    r"|(?P<word>(?i:\b(?:gate|seat|platform|bay|pier|zone|section|dock|stand)\s+))(?P<seat>[A-Z]) (?P<n>\d{1,3})\b"
    r"(?!\s*(?:minutes?|mins?|hours?|hrs?|days?|%|:|\.\d))"
)
_PERIOD_UNITS = ("quarter", "week", "month", "year")  # every unit _PERIOD reads contains one
_BOOLS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False,
          "是": True, "是的": True, "对": True,
          "否": False, "不是": False, "不对": False}  # fmt: skip


def plus_word(text: str) -> str:
    """A `+` that ends a name is the word `Plus` (`Galaxy S24+` = `Galaxy S24 Plus`, `Disney+`, `C++`);
    not `+1 415 …`, `2+2`, `18+` / `5+ years` / `2.1+` (a number and more) or `john+orders@…`."""
    return _NAME_PLUS.sub(lambda m: m.group(1) + " Plus" * len(m.group(2)), text) if "+" in text else text


@short_cached(maxsize=32_768)
def normalize_text(value: str) -> str:
    """Rung 2: NFKC, case-folded, a name's `+` as `plus`, punctuation to spaces, whitespace collapsed.
    Cached: the same values and replies come back in every conversation of a reference and at every
    stage."""
    text = plus_word(unicodedata.normalize("NFKC", value)).casefold()
    text = _PUNCT.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


#: Ideographs and kana: each carries a word's meaning, and no space marks where a word ends.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK = re.compile(f"[{CJK_CHARS}]")
#: Parts of an hour said in words: 一刻钟 is 15分钟, 半小时 30分钟.
_ZH_PART_HOURS = {"一刻钟": "15分钟", "半个小时": "30分钟", "半小时": "30分钟", "半个钟头": "30分钟"}
_ZH_PART_HOUR = re.compile("|".join(_ZH_PART_HOURS))
_ZH_TWO_NUMERALS = re.compile(
    r"(?<![〇零一二两三四五六七八九十百千万\d])(?P<a>[两二三四])(?P<b>[三四五])(?=[天周个次年月日晚小分])"
)
_ZH_TIME_RANGE = re.compile(
    "(?P<p>" + _ZH_DAY_PARTS + ")"
    r"(?P<a>\d{1,2}[点时](?:\d{1,2}分?|半)?)"
    r"(?P<j>到|至|-|–|~)(?P<b>\d{1,2}[点时])"
)
_ZH_HOURS_MINUTES = re.compile(
    r"(?P<h>\d+)个?小时(?P<m>[1-5]?\d|[一二三四五]?十[一二三四五六七八九]?|[一二三四五六七八九])分(?!钟)"
)
_ZH_AND_A_HALF = re.compile(r"(?P<n>\d+)个?半(?:小时|钟头)")
_CJK_SPACE = re.compile(
    f"(?<=[{CJK_CHARS}])\\s+(?=\\d)|(?<=\\d)\\s+(?=[{CJK_CHARS}])"
)  # digits only: not in `到 a@b.com`
_MYRIADS = {"千": 1000, "万": 10_000, "亿": 100_000_000, "千万": 10_000_000, "千亿": 100_000_000_000}
#: 5万 is 50000, 9千 9000, 3千万 30000000 (not after a digit and a comma: the rest of 1,5万 is not a number; a comma
#: alone, as NFKC makes of ，, is a clause's end; 千 not of a unit: 5千克, 3千米, 2千瓦, 千分之). No float
#: overflow: 15 digits at most.
_MYRIAD = re.compile(
    r"(?<!\d)(?<!\d,)(?P<n>\d[\d,]{0,14}(?:\.\d+)?)(?P<x>千万|千亿|[万亿]|千(?![克米瓦卡焦帕赫兆百\d零一二两三四五六七八九]|分之))"
)
#: What says a text is about Japan, where ¥ is the yen: kana, the yen named, Japan or a Japanese city.
_JAPANESE = re.compile(
    "[\u3040-\u30ff]|日元|日币|日本|円|东京|大阪|京都|名古屋|札幌|福冈|冲绳|横滨|神户|奈良"
)
#: 百分之二十 is 20% (after numerals are read as digits); 一点五升 is 1.5升: 点 is the decimal point
#: before a unit (3点15 alone is a time of day).
#: 一百二十八元五角 is 128.50元: 角 and 分 (毛 colloquially) are tenths and hundredths of a yuan.
_ZH_JIAO = re.compile(
    r"(?<!\d)(?P<y>\d+)[元块](?P<j>[一二三四五六七八九\d])[角毛]"
    r"(?:(?P<f>[一二三四五六七八九\d])(?:分|(?![\d零一二两三四五六七八九十百千万]|"
    + _ZH_ALL_MEASURES
    + r")))?"
)  # and 18块9毛9: the fen said without 分 where the amount ends
#: 八十六块五: the tenths said without 角 / 毛, where the amount ends (300元一节, 22元一桶 are 300 yuan a
#: lesson, 22 a bucket; 2块5一平 is 2.5 yuan a square metre).
_ZH_JIAO_BARE = re.compile(
    r"(?<!\d)(?P<y>\d+)[元块](?P<j>[一二三四五六七八九\d])"
    r"(?!(?<=一)[\u4e00-\u9fff])(?![02-9零二两三四五六七八九十百千万毛角分A-Za-z]|1(?![\u4e00-\u9fff])|1\d|一(?![\u4e00-\u9fff])|"
    + _ZH_ALL_MEASURES
    + ")"
)
#: 5毛 alone (no yuan before it) where it is money — paid or charged (收5毛), 5毛钱, or ending a clause —
#: tenths of a yuan (not 一毛不拔; 角 is as often an angle or a corner: 三角形, 冰山一角).
_ZH_JIAO_ALONE = re.compile(
    r"(?<=[收付退花赔补减省价费要仅共每钟里斤])(?P<j>[1-9一二两三四五六七八九])毛(?!钱?[\d零一二两三四五六七八九])"
    r"|(?<![\d.零一二两三四五六七八九十百千万元块])(?P<k>[1-9一二两三四五六七八九])毛(?=钱|[，。,.;；！!？?）)\s]|$)"
)
#: 按七成赔付, 退两成: tenths as a share paid (not 八成 "probably", 一成不变, 九成九).
_ZH_TENTHS = re.compile(
    r"(?<=[按占赔退返付收打])(?P<n>[1-9一二两三四五六七八九])成(?![一二三四五六七八九十\d])"
)
#: A discount in tenths of the price paid, where it is said as one (打, 享 or 受 before it; 优惠, 券 or 价
#: after it): 九折 and 9折 read `9折`; 八五折, 8.5折 and 85折 `8.5折`; 打对折 `5折` — the number of tenths
#: paid, which a share taken off makes whole (八折 / 减20%). Not a fold (三折伞, 折成三折), 七折八扣, nor a
#: range (五六折, 5到8折).
_ZH_DISCOUNT = re.compile(
    r"(?<![\d.一二三四五六七八九十到至~\-–])"
    r"(?:(?P<d>[1-9](?:\.[1-9]|5)?)|(?P<z>[一二三四五六七八九]五?)|(?<=[打享])(?P<half>对))"
    r"折(?![叠伞扣算成]|[一二三四五六七八九]扣)"
)
_ZH_DISCOUNT_CUE = re.compile(r"优惠|券|价|促销|特惠|卡")


def discounts_paid(text: str) -> frozenset[str]:
    """The tenths of the price paid that a text states as discounts, as facts read them (打八折 is
    `number:8`)."""
    if "折" not in text:
        return frozenset()
    found = (_zh_tenths_paid(m) for m in _ZH_DISCOUNT.finditer(text))
    return frozenset(f"number:{tenths}" for tenths in found if tenths is not None)


def _zh_discount(m: re.Match[str]) -> str:
    tenths = _zh_tenths_paid(m)
    return m.group(0) if tenths is None else tenths + "折"


def _zh_tenths_paid(m: re.Match[str]) -> str | None:
    """The tenths of the price a `_ZH_DISCOUNT` match says are paid (八五折 `8.5`), None where it is not said
    as a discount (no cue beside it)."""
    if m["half"]:
        return "5"
    cued = (m.start() > 0 and m.string[m.start() - 1] in "打享受") or _ZH_DISCOUNT_CUE.match(
        m.string, m.end()
    )
    if not cued:
        return None
    if m["d"]:
        return m["d"][0] + ".5" if len(m["d"]) == 2 and m["d"][1] == "5" else m["d"]
    tenths = [zh_number(c) for c in m["z"]]
    return f"{tenths[0]}{'.5' if len(tenths) > 1 else ''}"


_ZH_NUMERALS = "零〇一二两三四五六七八九十百千万"
_ZH_PERCENT = re.compile(rf"百分之(?P<n>[{_ZH_NUMERALS}\d]+(?:[点.][零〇一二三四五六七八九\d]+)?)")
_ZH_PERMILLE = re.compile(rf"千分之(?P<n>[{_ZH_NUMERALS}\d]+(?:[点.][零〇一二三四五六七八九\d]+)?)")
#: Not after a time of day: 下午三点五元一位 is 3 pm, then 5 yuan.
_ZH_DECIMAL = re.compile(
    rf"(?<![午晨晚早])(?<!早上)(?<!晚上)(?<![{_ZH_NUMERALS}\d.])(?P<i>[{_ZH_NUMERALS}\d]+)点(?P<f>[零〇一二三四五六七八九\d]+)"
    r"(?=毫升|升|公斤|千克|克|斤|公里|千米|厘米|毫米|米|元|块|倍|万|亿|GB|MB|TB)"
)
#: (the amount's commas are between thousands: `¥3,000，仅限` is read after NFKC as `¥3,000,仅限`)
_RMB_BEFORE = re.compile(r"人民币\s*(?=(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?P<yuan>\s*[元块])?)")
_YUAN_SIGN = re.compile(r"¥\s*(?P<n>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)")


def script_of(char: str) -> str:
    """The script of a letter from its Unicode name: LATIN, CYRILLIC, CJK (Han, kana, Hangul), ARABIC, …"""
    first = unicodedata.name(char, "").split(" ", 1)[0]
    return "CJK" if first in {"CJK", "HIRAGANA", "KATAKANA", "HANGUL"} else first


def is_currency(unit: str) -> bool:
    """Whether a fact's unit (`number:140|usd`) is a currency: ISO codes are three letters, every other
    unit a fact carries (`s`, `g`, `m`, `percent`, `byte`) is not."""
    return len(unit) == 3 and unit.isalpha()


def has_cjk(value: str) -> bool:
    return not value.isascii() and _CJK.search(value) is not None  # `isascii` reads a flag: no scan


def language_of(value: str) -> str:
    """`zh` when the value has ideographs, `en` when its letters are Latin (or it has none), else the
    script of most of its letters in lower case (`cyrillic`): what calibration reports accuracy by."""
    if has_cjk(value):
        return "zh"
    scripts = [script_of(c) for c in value if c.isalpha()]
    top = max(set(scripts), key=scripts.count) if scripts else "LATIN"
    return "en" if top == "LATIN" else top.lower()


def stated(wanted: Sequence[str], have: Sequence[str]) -> bool:
    """Every canonical fact of `wanted` is among `have` (a number without a unit by the same number with
    one)."""
    present = set(have)
    return all(f in present or any(h.startswith(f + "|") for h in present) for f in wanted)


def content_words(value: str) -> list[str]:
    return [w for w in normalize_text(value).split() if w not in STOPWORDS]


@dataclass(frozen=True)
class Facts:
    """Typed facts of a value as canonical strings (`number:4|s`, `date:2024-03-05`, `id:a123` …)."""

    facts: tuple[str, ...]
    residual: str  # the words that are no fact; the words of soft facts (SOFT_FACT_KINDS) stay in it
    spans: tuple[tuple[str, str], ...] = ()  # (canonical, original text) for reporting
    bare: str = ""  # the words that are no fact, soft facts' words taken out too
    labels: tuple[str, ...] = ()  # per span: the last word before it that is no fact, list word or stopword


#: Sentence ends: Latin ones before whitespace; Chinese ones (。！？；) need none (Chinese puts no space).
#: Where a sentence ends: not after an abbreviation's full stop (`P.O. box`, `Dr. Kim`, `e.g.`, `No. 5`).
_SENTENCE = re.compile(
    r"(?<=[.!?;])"
    + "".join(
        f"(?<!\\b{re.escape(a)})"
        for a in ("P.O.", "e.g.", "i.e.", "Dr.", "Mr.", "Ms.", "Mrs.", "Apt.", "vs.")
    )
    + r"(?!(?<=\bNo\.)\s+\d)\s+|(?<=[。！？；])\s*|\n+"  # `No. 5` goes on; `No. Please …` is two
)
#: A sentence that asks for something without a question mark: a request to give, tell, confirm or
#: choose (`Please confirm the address.`, `Enter your PIN.`, `麻烦提供一下你的订单号。`), after an opening
#: clause too (`To continue, please provide …`).
_REQUEST = re.compile(
    r"(?i)^(?:[^,，]{1,40}[,，]\s*)?"
    r"(?:(?:please|kindly)\s+(?:provide|share|confirm|tell|send|specify|reply|indicate|give (?:me|us))\b"
    r"|(?:could|can|would|will) you\b|may i (?:have|get|ask)\b|(?:tell|send|give) (?:me|us)\b"
    r"|(?:[^,，。a-z]{1,8}?)?(?<!不用)(?<!无需)(?<!不必)(?<!不要)(?<!别)(?:请|麻烦)(?:你|您)?(?:先|再|尽快|及时|稍后)?"
    r"(?:提供|告诉|确认|发送|给|说明|回复|填写|上传))"
)
#: Sentences that neither plainly ask nor plainly tell, so that no verdict rests on them: a need of the
#: user's input (`I need your account ID to continue.`, `需要您耐心等待`), an offer (`I can book it for
#: you.`, `Shall I book it?`), an open invitation (`Let me know if …`, `Anything else?`), a request to
#: wait (`Could you hold on a moment?`), a duty (`You need to submit …`), and Chinese 能否 / 是否; and
#: (`_PLEASE`) an instruction, with `please` / 请 / 麻烦您 or without (`Please allow 3-5 business days.`,
#: `Choose a new password on the next screen.`).
_UNCLEAR = re.compile(
    r"(?i)\b(?:let (?:me|us) know|feel free|don['’]t hesitate|if you (?:want|like|need|prefer|['’]d like)|"
    r"anything else|(?:i|we)(?:['’]ll|['’]d| will| would)? (?:need|require)|(?:is|are) (?:required|needed)|"
    r"(?:i|we)(?:['’]d| would) (?:like|love) to (?:hear|know|see)|"
    r"(?:i|we) (?:can|could)(?![’']t|not)|i['’]d be happy|shall i|should i|do you want me|would you like me|"
    r"you(?:['’]ll| will)? (?:need|have|must) to|"
    r"hold on|bear with|wait|be patient|give me a (?:moment|minute|second))\b"
    r"|需要(?:你|您)|(?:你|您)需要|还有(?:其他|别的|什么)|能否|能不能|可否|是否|可以吗|稍等|耐心"
)
_PLEASE = re.compile(
    r"(?i)^(?:please|kindly)\b|^请(?!问)|^麻烦(?:你|您)"  # 请问 is "may I ask": a question
    r"|^(?:choose|select|enter|click|tap|type|confirm|upload|visit|go to|open|check|use|call|reply|text)\b"
)
_SENTENCE_END = re.compile(r"[.!?。！？]$")


@short_cached(maxsize=65_536)
def act_of(sentence: str) -> str:
    """`ask` (a question or a request for the user's information or decision), `tell`, or `unclear`
    (module constants above). A fragment without a sentence end and under five words (`weather in
    Paris`) tells nothing."""
    s = sentence.strip()
    if _UNCLEAR.search(s) is not None:
        return "unclear"
    if _REQUEST.search(s) is not None:
        return "ask"
    if _PLEASE.search(s) is not None:
        return "unclear"
    if s.endswith(("?", "？")):
        return "ask"
    if not _SENTENCE_END.search(s) and len(s.split()) < 5 and not has_cjk(s):
        return "unclear"
    return "tell"


#: Signs that `normalize_text` drops but that change a value: currencies and the percent sign.
_VALUE_SIGNS = frozenset("$€£¥₹₩%")


def value_signs(text: str) -> frozenset[str]:
    """The currency and percent signs in a text: `$10` and `€10` normalize alike but differ."""
    return frozenset(c for c in text if c in _VALUE_SIGNS)


#: A sentence that only greets or thanks (`Hi!`, `Thanks for waiting.`, `您好！`): it states nothing.
_GREETING_ONLY = re.compile(
    r"(?i)^\s*(?:(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))(?: there)?(?: [A-Z]\w+)?"
    r"|thanks?(?: you)?(?: (?:so|very) much)?(?: for (?:waiting|your patience|reaching out|contacting us|"
    r"your message|getting in touch))?"
    r"|您好|你好|亲|感谢您的耐心等待|谢谢(?:您)?(?:的耐心等待)?)[\s,.!~，。！～]*$"
)


def only_greeting(sentence: str) -> bool:
    """The sentence only greets or thanks (`_GREETING_ONLY`)."""
    return bool(_GREETING_ONLY.match(sentence))


def sentences(text: str) -> list[str]:
    """The sentences (and `;`-separated parts) of a text, stripped."""
    return [p.strip() for p in _SENTENCE.split(text) if p and p.strip()]


def asks(sentence: str) -> bool:
    """A question or a request (`Please tell me your booking reference.`)."""
    return act_of(sentence) == "ask"


def only_one_asks(a: str, b: str) -> str:
    """Two texts of which one only asks (every sentence a question or request) and the other only tells:
    `gold` or `predicted` for the side that asks, else "". A reply that answers and then asks (`…
    Anything else?`), a need, an offer or an invitation (`unclear` sentences) decide nothing."""
    acts_a, acts_b = [act_of(x) for x in sentences(a)], [act_of(x) for x in sentences(b)]
    if not acts_a or not acts_b:
        return ""
    if set(acts_a) == {"ask"} and set(acts_b) == {"tell"}:
        return "gold"
    if set(acts_b) == {"ask"} and set(acts_a) == {"tell"}:
        return "predicted"
    return ""


#: The words a request opens with (`Could you share your …`, `What is your …`, `Can you give me the …`),
#: taken off the front of it; and the words that say nothing anywhere in it. What is left, in order, is
#: what it asks for: `Can you send me the invoice?` is not `Can I send you the invoice?`, and `from Paris
#: to London` is not `from London to Paris`.
_ASK_OPENING = frozenset({
    "please", "kindly", "could", "can", "would", "will", "you", "what", "whats", "which", "s", "is", "are",
    "tell", "give", "me", "us", "provide", "share", "let", "know", "may", "have", "get", "the", "a", "an",
    "your", "yours", "do", "does",
})  # fmt: skip
_ASK_FILLER = frozenset({"please", "the", "a", "an", "your", "yours"})
_ZH_ASK_WORDS = re.compile(
    "请问|麻烦|能否|能不能|可否|可以|提供|告诉|一下|是多少|是什么|多少|什么|哪个|给我|您的|你的|请|您|你|吗|呢|吧|的"
)


def asked_for(text: str) -> tuple[str, ...]:
    """What a text that only asks asks for: its words in order, the request's opening and its filler
    words taken out (empty when some sentence of it does not ask)."""
    parts = sentences(text)
    if not parts or not all(map(asks, parts)):
        return ()
    words = normalize_text(_ZH_ASK_WORDS.sub(" ", text)).split()
    start = 0
    while start < len(words) and words[start] in _ASK_OPENING:
        start += 1
    return tuple(w for w in words[start:] if w not in _ASK_FILLER)


#: A report that something did not happen (not in a condition: `If the payment fails, …`; not a noun:
#: `failure rate`); a plain claim that it did; and any word that says no, or says it went wrong.
_FAILED = re.compile(
    r"(?i)\b(?:failed(?! (?:orders?|payments?|attempts?|deliveries|logins?))|fails|unable|couldn['’]t|"
    r"could not|can['’]t|cannot|can not|unsuccessful)\b|失败|未能|无法|没能|不了"
)
_CONDITION = re.compile(r"(?i)\b(?:if|unless|in case|whether|when|should)\b|如果|若|万一|一旦|假如")
_DONE = re.compile(
    r"(?i)\b(?:successfully|successful|succeeded|went through|all set|(?:has|have) been|(?:is|are) now|"
    r"(?:is|are|was|were) (?:complete|completed|confirmed|done|paid|active|booked|reserved|processed|"
    r"updated|cancell?ed|renewed|reset|sent|issued|refunded|delivered|approved|scheduled)|"
    r"(?:i|we)(?:['’]ve| have)? (?:booked|reserved|updated|changed|cancell?ed|reset|created|processed|"
    r"issued|sent|added|removed|scheduled|found|completed|confirmed|renewed|upgraded|refunded))\b"
    r"|成功|已为你|已经为你|已为您|我已|已(?:经)?(?:帮(?:您|你)|确认|完成|发货|发出|寄出|到账|更新|取消|预订|办理|"
    r"发起|修改|退款|退回|审核通过|通过|提交|发送|安排|开通|生效|开具)"
)
_NEGATIVE = re.compile(
    r"(?i)\b(?:no|not|never|none|nothing|without|declined|rejected|denied|refused|unfortunately|sorry|"
    r"unavailable|fail(?:ed|s|ure)?|unable|cannot|unsuccessful|invalid|expired|sold out|full|"
    r"bounced|errored|error|too late|zero|out of stock|only)\b|n['’]t\b|[不没未无非拒]|失败|抱歉|遗憾|售罄|已满|满员|过期|退回"
)


#: A thing under way, not done (`Your application is under review.`, `审核中`; not `awaiting pickup`).
_PENDING = re.compile(
    r"(?i)\b(?:pending|in progress|under review|being (?:processed|reviewed)|not yet)\b"
    r"|审核中|处理中|待审核|待处理|尚未|还未"
)


#: A condition the thing waits on (not `should` or `when`, which are also modal and temporal words).
_IF = re.compile(r"(?i)\b(?:if|unless)\b|如果|假如")
#: A sentence of courtesy, which says nothing of the thing (`Let me know if that doesn't work.`, `If you
#: didn't request this, please contact support.`, `如有疑问请联系客服`): a condition or a question there
#: leaves the thing as the other sentences say.
_COURTESY = re.compile(
    r"(?i)\b(?:let (?:me|us) know|contact|reach out|get in touch|anything else|questions?|help)\b"
    r"|联系|客服|疑问|问题|帮助|随时|还有(?:其他|别的|什么)|需要我"
)


_CLAUSE = re.compile(r"[,，—–]|\s-\s")


def _not_yet(text: str) -> str:
    """What says a text leaves the thing not done yet: every clause but courtesies (`_COURTESY`) a question
    (`Would you like me to cancel it?`, an offer too), a condition (`… will be waived if you pay by
    Friday.`), or a thing under way (`under review`); else ""."""
    # clause by clause: `收货地址改好了，还有其他需要吗？` tells before it asks
    parts = [c for p in sentences(text) for c in _CLAUSE.split(p) if c.strip() and not _COURTESY.search(c)]
    if not parts:
        return ""
    if all(p.endswith(("?", "？")) for p in parts):
        return "only asks or offers"
    if all(_IF.search(p) for p in parts):
        return "makes it depend on a condition"
    if all(_PENDING.search(p) for p in parts):
        return "says it is under way"
    return ""


def _reports_failure(text: str) -> str:
    """The failure a text reports outright (in a sentence with no condition), else ""."""
    for sentence in sentences(text):
        found = _FAILED.search(sentence)
        if found and not _CONDITION.search(sentence):
            return found.group(0)
    return ""


# cached: the same gold reply meets the same kinds of reply, conversation after conversation
@short_cached(maxsize=32_768)
def compare_acts(gold: str, predicted: str) -> tuple[bool, str] | None:
    """What the two texts do, where that decides: one only asks and the other only tells (different);
    one reports a failure outright and the other plainly claims the thing done, with no word that says
    no or says it went wrong (different: `I could not find your account.` / `Your password has been
    reset.`); one that claims nothing done only asks or offers, sets a condition or says the thing is
    under way, where the other plainly claims it done (different: `Would you like me to cancel it?` /
    `I've cancelled it.`, `正在审核中` / `已审核通过`); both only ask, for the same words in the same
    order (the same: `请问你的订单号是多少？` / `麻烦提供一下你的订单号。`). None when none of these
    applies — and for most pairs none does."""
    side = only_one_asks(gold, predicted)
    if side:
        other = "predicted" if side == "gold" else "gold"
        return False, f"{side} only asks (a question or request) where {other} asks nothing"
    for side, text, other_side, other in (
        ("gold", gold, "predicted", predicted),
        ("predicted", predicted, "gold", gold),
    ):
        done_there = _DONE.search(other) is not None and not _NEGATIVE.search(other)
        if not done_there or _DONE.search(text):
            continue
        failed = _reports_failure(text)
        if failed:
            return False, f"{side} reports a failure ({failed!r}) where {other_side} says it was done"
        undone = _not_yet(text)
        if undone and not _not_yet(other):
            return False, f"{side} {undone} where {other_side} says it was done"
    wanted = asked_for(gold)
    if wanted and wanted == asked_for(predicted):
        return True, f"both ask for the same: {' '.join(wanted)!r}"
    return None


#: `42 dollars and 17 cents` is `$42.17`.
_DOLLARS_AND_CENTS = re.compile(
    r"(?i)\b(?P<d>\d+)\s+(?P<cur>dollars?|pounds?|euros?),?\s+(?:and\s+)?(?P<c>\d{1,2})"
    r"(?:\s+(?:cents?|pence|p)\b|(?=\s*(?:[.,;:!?)]|$)|\s+(?:is|are|was|will|has|have|must|and|to|for|in|on|by|per|each|due)\b))"
)  # `23 pounds 60 is due` too, never `5 pounds 3 ounces`
_CENTS_SIGN = {"d": "$", "p": "£", "e": "€"}
#: Cents alone are a dollar's: `15¢` and `62 cents` are $0.15 and $0.62 (not the cents of `42 dollars and
#: 17 cents`, read whole above).
_CENTS = re.compile(r"(?i)(?<![\d.,$])(?:(?P<c>\d{1,2})\s?¢|(?<!\band )(?P<w>\d{1,2})\s+cents?\b)")
#: Pence alone are a pound's: `15p` and `15 pence` are £0.15 in a text where money is said beside one of
#: them (`costs 15p`, `15p per minute`, `10p, 20p and 50p coins`: then every one); never `4p.m.`, `5:30p`
#: or `1080p`, and not `Gate 12p`, `kick-off at 3p` where nothing says money.
_PENCE = re.compile(r"(?i)(?<![\d.,:£$€])(?P<p>\d{1,2})(?:p\b(?![.\s]?m\b)|\s+(?P<word>pence)\b)")
_PENCE_BEFORE = re.compile(r"(?i)\s*(?:per|each|a|an|off|coins?|apiece)\b")
_PENCE_AFTER = re.compile(r"(?i)\b(?:costs?|only|just|pay|paid|charged?|priced|price|fee|deposit)\s+$")
#: An amount said as an adjective of a charge: `the twenty-pound entry`, `a 1250-pound quote` are £20 and
#: £1,250 (`a 10-pound bag` stays a weight).
_POUND_ADJECTIVE = re.compile(
    r"(?i)\b(?P<n>\d+)-pound\s+(?=(?:entry|fee|quote|charge|deposit|fine|voucher|note|credit|ticket|refund|bill"
    r"|payment|surcharge|discount|price|supplement|top-up|balance|cashback|bonus|admin)\b)"
)
#: `under-18s`, `over-65s`: the age is a number, not a code.
_AGE_GROUP = re.compile(r"(?i)(?<![\w-])(?P<w>under|over)-(?P<n>\d{1,3})s?\b")
#: `an hour and 15 minutes`, `one hour 15 minutes` is 75 minutes (`an hour` alone is left as said).
_AN_HOUR_AND = re.compile(r"(?i)\b(?:an|one|1)\s+hour,?\s+(?:and\s+)?(?P<m>[1-5]?\d)\s+(?:minutes?|mins?)\b")
#: `seven and a half hours` (`seven` a digit by then) is 7.5 hours.
_AND_A_HALF = re.compile(r"(?i)\b(?P<n>\d+)\s+and\s+a\s+half\s+(?P<u>(?:hour|day|week|month|year)s?)\b")
#: `by the end of May` is May 31.
_MONTH_END = re.compile(
    r"(?i)\b(?:the\s+)?end\s+of\s+(?P<m>january|february|march|april|may|june|july|august|september|october"
    r"|november|december)\b(?:\s+(?P<y>(?:19|20)\d{2})\b)?"
)


def _month_end(m: re.Match[str]) -> str:
    month = _month_number(m["m"])
    year = int(m["y"]) if m["y"] else 2001  # a year with no 29 February: a month's end said with no year
    return f"{m['m']} {calendar.monthrange(year, month)[1]}" + (f", {m['y']}" if m["y"] else "")


#: `a ten-dollar credit`, `a ten-session pack`: the count said as an adjective, joined to its noun.
_AMOUNT_ADJECTIVE = re.compile(  # and `a 30-lb bag`, `60k-km` (not `2-to-3`, `2-in-1`)
    r"\b(?P<n>\d+k?)-(?P<u>[a-z]{3,}|lb|kg|km|mi|oz|ft|cm|mm|gb|mb|hr)\b"
)
#: `two additional days`, `one extra night`: a word between a count and its unit of time.
_COUNT_MORE_WORDS = ("extra", "additional", "more", "further", "full", "whole", "consecutive")  # its words
_COUNT_MORE = re.compile(
    r"(?i)\b(?P<n>\d+|one)\s+(?P<w>extra|additional|more|further|full|whole|consecutive)\s+"
    r"(?P<u>(?:minute|hour|day|night|week|month|year)s?)\b"
)
#: Parts of an hour in words: `half an hour` is 30 minutes, `an hour and a half` 90; `half a percent`.
_HOUR_PARTS = {
    "half an hour": "30 minutes", "half a hour": "30 minutes", "a quarter of an hour": "15 minutes",
    "quarter of an hour": "15 minutes", "an hour and a half": "90 minutes", "one and a half hours": "90 minutes",
    "1 and a half hours": "90 minutes", "a half hour": "30 minutes", "half hour": "30 minutes",
    "a quarter hour": "15 minutes", "quarter hour": "15 minutes", "quarter-hour": "15 minutes",
    "half a percent": "0.5%", "half a per cent": "0.5%",
    "3-quarters of an hour": "45 minutes", "3 quarters of an hour": "45 minutes",  # `three` is a digit by then
    "a third of an hour": "20 minutes", "1 third of an hour": "20 minutes", "2 thirds of an hour": "40 minutes",
}  # fmt: skip
_HOUR_PART = re.compile(  # not inside `two and a half hours`
    r"(?i)(?<!\band )(?<!\band a )\b(?:" + "|".join(sorted(_HOUR_PARTS, key=len, reverse=True)) + r")\b"
)
#: `weekdays` / 工作日 said for the days they are (not a count: `3 weekdays`, 3个工作日).
_WEEKDAYS_WORD = re.compile(r"(?i)(?<!\d )(?<!\d)(?<!\bnot )(?<!\bnon-)\bweekdays\b|(?<![\d个两几非])工作日")
#: A range whose unit is said once, after its second number: `7 to 10 days` is 7 days to 10 days.
_RANGE_UNIT = re.compile(
    r"(?i)(?P<between>\bbetween\s+)?(?<![\d.,:/])(?P<a>\d+(?:\.\d+)?)\s*"
    r"(?P<join>(?(between)and|(?!))|to|or|-|–|~)\s*(?P<b>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>(?:business\s+|working\s+)?(?:days?|nights?|weeks?|months?|years?|hours?|minutes?))\b"
)
_ZH_RANGE_UNIT = re.compile(
    r"(?<![\d.,:/])(?P<a>\d+(?:\.\d+)?)(?P<join>到|至|~|-|–)(?P<b>\d+(?:\.\d+)?)"
    r"(?P<unit>个?工作日|天|周|个?星期|个月|年|个?小时|分钟)"
)
#: A day and month with no year, in digits (`20/05`, `4/18`, `1/1`): read only where one reading is
#: possible (or both are the same day), or, after a word that introduces a date (`on 3/4`), as
#: `day_first` says when both are (`3/4 of the amount`, `1/2` are fractions); `24/7` is no day.
_MONTH_SLASH_DAY = re.compile(
    r"(?<![\d/.])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?![\d/])(?!\s*(?:of|the|inch|inches|in|mm|cm|stars?|points?)\b)",
    re.IGNORECASE,
)
#: before a `4/17` that is no day: an address's unit and street number, a step of a count
_NOT_A_DAY_BEFORE = re.compile(r"(?i)\b(?:unit|apt|no|step|part|page|item|suite|flat|installment)\.?\s*$")


def _weekday_abbreviation(m: re.Match[str]) -> str | None:
    """`weekday:N` of an abbreviation a date, a time or another day follows, or that follows another
    (`Mon/Wed`, `Sat and Sun`)."""
    after = _WEEKDAY_ABBR_GOES_ON.match(m.string, m.end())
    before = m.string[max(0, m.start() - 9) : m.start()]
    alone = not m.string[: m.start()].strip() and not m.string[m.end() :].strip()  # the whole value
    names = _WEEKDAY_ABBR_NAMES_AFTER_DOT if m.group(0).endswith(".") else _WEEKDAY_ABBR_NAMES
    named = _WEEKDAY_ABBR_WORD.search(before) and not names.match(m.string, m.end())
    if not (after or alone or named or _WEEKDAY_ABBR_AFTER.search(before)):
        return None
    return f"weekday:{_WEEKDAY_ABBRS.index(m['d'][:3].lower()) + 1}"


def _month_slash_day(day_first: bool, zh: bool) -> Callable[[re.Match[str]], str]:
    def said(m: re.Match[str]) -> str:
        a, b = int(m["a"]), int(m["b"])
        readings = [(mo, d) for mo, d in ((a, b), (b, a)) if 1 <= mo <= 12 and 1 <= d <= 31]
        before = m.string[max(0, m.start() - 16) : m.start()]
        if (a, b) == (24, 7) or not readings or _NOT_A_DAY_BEFORE.search(before):
            return m.group(0)
        if zh and (a, b) in readings and _ZH_DATE_AFTER.match(m.string, m.end()):
            readings = [(a, b)]  # Chinese writes the month first: 周六6/8早上, 6/1入住 (not 评分4/5, 3/10节)
        if (
            len(readings) > 1
        ):  # 3/4, 2/2: a day only after a word that introduces one (else a fraction, a count)
            if not _DATE_CUE.search(before):
                return m.group(0)
            readings = [(b, a)] if day_first else [(a, b)]
        month, day = readings[0]
        return f"{month}月{day}日" if zh else f"{MONTH_NAMES[month - 1].capitalize()} {day}"

    return said


#: What follows a Chinese day and month in digits (6/8早上, 6/1入住, 4/20（周六）), not a fraction.
_ZH_DATE_AFTER = re.compile(
    r"\s*[（(]?(?:周|星期|礼拜|上午|下午|早上|晚上|中午|凌晨|傍晚|今晚|入住|退房|离店|离开|到店|出发|开课|开始|截止)"
    r"|\s*(?:[到至~\-–—]\s*\d|\d{1,2}[:点])"
)
_DATE_CUE = re.compile(
    r"(?i)\b(?:on|by|from|until|till|through|due|before|after|since|starting|effective|expires?|renews?)\s*$"
    r"|\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?\.?,?\s*$"
    r"|[于至到在从]$|日期[:：]?\s*$"
)


def _pence(text: str) -> str:
    """Each `15p` of `text` as £0.15, where one of them is money by what is said beside it (`_PENCE`)."""
    found = list(_PENCE.finditer(text))
    if not any(
        m["word"]
        or _PENCE_AFTER.search(text, max(0, m.start() - 12), m.start())
        or _PENCE_BEFORE.match(text, m.end())
        for m in found
    ):
        return text
    return _PENCE.sub(lambda m: f"£{int(m['p']) / 100:.2f}", text)


def in_digits(text: str) -> str:
    """English numbers and amounts said in words, in digits: `one thousand two hundred fifty` → 1250,
    `twelve` → 12 (not `one`: `NUMBER_WORDS`), `42 dollars and 17 cents` → $42.17, `a ten-dollar
    credit` → 10 dollar, `two extra days` → 2 days extra, `half an hour` → 30 minutes, `weekdays` →
    Monday to Friday."""
    low = fold(text)  # the gates below: their patterns match case-insensitively (`hints.fold`)
    if "dozen" in low:  # `half a dozen` is 6, `a dozen` 12
        text = _DOZEN.sub(lambda m: "6" if m["half"] else "12", text)
    if holds_any(low, _NUMBER_RUN_STEMS) and _NUMBER_RUN_HINT.search(text):
        for start, end, number in reversed(number_runs(text)):
            text = f"{text[:start]}{number}{text[end:]}"
    # what follows turns words into digits or reorders them, and makes no stem `low` did not hold
    if holds_any(low, _NUMBER_WORD_STEMS):
        text = _NUMBER_WORD.sub(lambda m: str(NUMBER_WORDS[_fold(m.group(0))]), text)
    if "one" in low:
        text = _ONE_UNIT.sub("1", _ONE_OF_RANGE.sub("1", text))
    if "dollar" in low or "pound" in low or "euro" in low:
        text = _DOLLARS_AND_CENTS.sub(
            lambda m: f"{_CENTS_SIGN[m['cur'][0].lower()]}{m['d']}.{int(m['c']):02d}", text
        )
    if "¢" in text or "cent" in low:
        text = _CENTS.sub(lambda m: f"${int(m['c'] or m['w']) / 100:.2f}", text)
    if "p" in low and _PENCE_HINT.search(text):
        text = _pence(text)
    if "-" in text:
        dashed = fold(text)  # each pattern's words, joined by its dash: the text as the words made it
        if "under-" in dashed or "over-" in dashed:
            text = _AGE_GROUP.sub(r"\g<w> \g<n>", text)
        if "-pound" in dashed:
            text = _POUND_ADJECTIVE.sub(r"£\g<n> ", text)
        text = _AMOUNT_ADJECTIVE.sub(r"\g<n> \g<u>", text)
    if holds_any(low, _COUNT_MORE_WORDS):
        text = _COUNT_MORE.sub(
            lambda m: f"{1 if m['n'].lower() == 'one' else m['n']} {m['u']} {m['w']}", text
        )
    folded = fold(text)
    if "half" in folded or "quarter" in folded or "fifth" in folded or "tenth" in folded or "third" in folded:
        text = _AND_A_HALF.sub(r"\g<n>.5 \g<u>", text)
        text = _FRACTION_OF_PRICE.sub(_fraction_as_percent, text)
        text = _HOUR_PART.sub(lambda m: _HOUR_PARTS[_fold(m.group(0))], text)
        text = _PAST_THE_HOUR.sub(_past_the_hour, text)
    if "hour" in folded and "min" in folded:
        text = _AN_HOUR_AND.sub(lambda m: f"{60 + int(m['m'])} minutes", text)
    if "end of" in folded:  # `the end of May` is May 31
        text = _MONTH_END.sub(_month_end, text)
    if "weekdays" in folded or "工作日" in text:
        text = _WEEKDAYS_WORD.sub(lambda m: "Monday to Friday" if m[0][-1] == "s" else "周一到周五", text)
    if "fortnight" in folded:  # `fortnightly`, `$50 a fortnight` are every 2 weeks; `in a fortnight` 2 weeks
        text = _FORTNIGHT.sub(lambda m: "2 weeks" if m["span"] else "every 2 weeks", text)
    return text


#: `half past 10`, `quarter past 3`, `quarter to 8` (number words are digits by then): 10:30, 3:15, 7:45 —
#: not `by half to 5 mg`, `by a quarter to 12 dollars`: never after `by` or `in`, nor before a word that
#: is no word of time.
_PAST_THE_HOUR = re.compile(
    r"(?i)(?<!\bby\s)(?<!\bby\sa\s)(?<!\bin\s)(?<!\bin\sa\s)"
    r"\b(?P<p>half(?=\s+p)|quarter)\s+(?P<d>past|after|to)\s+(?P<h>1[0-2]|[1-9])\b(?![:.,]?\d|\s*[%$€£¥])"
    r"(?!\s+(?!(?:a\.?m|p\.?m|in|on|at|and|or|until|till|to|tonight|tomorrow|today|this|next|every|sharp"
    r"|o['’]?clock|on\s+the\s+dot)\b)[A-Za-z])"
)


def _past_the_hour(m: re.Match[str]) -> str:
    hour = int(m["h"])
    if m["d"].lower() == "to":  # only `quarter to`: `half` is read before `past` alone
        return f"{(hour - 2) % 12 + 1}:45"
    return f"{hour}:{30 if m['p'].lower() == 'half' else 15}"


_DOZEN = re.compile(r"(?i)\b(?:(?P<half>half\s+a)|an?|one)\s+dozen\b")
#: A width by a length after `a` or a parenthesis (`a 10 by 10`, as `10x10` says), never before a month
#: or a unit of time (`a 5 by 10 June`), nor before a unit of length: `10x10 ft` is read without its unit,
#: and `12 by 8 ft` / `12 by 8 m` must stay apart.
_BY_DIMENSIONS = re.compile(
    r"(?i)(?:(?<=\ban\s)|(?<=\ba\s)|(?<=\())(?P<a>\d{1,3})\s+by\s+(?P<b>\d{1,3})\b(?![.,:/]?\d)"
    r"(?!\s*(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|days?|weeks?|months?|years?|hours?|minutes?"
    r"|nights?|ft|feet|foot|m|metres?|meters?|cm|mm|inch(?:es)?|in|yards?)\b)"
)
_FORTNIGHT = re.compile(
    r"(?i)\bfortnightly\b|\b(?:per|every|each)\s+fortnight\b|(?<=\d\s)an?\s+fortnight\b|(?P<span>\b(?:(?:an?|one)\s+)?fortnight\b)"
)


#: `one-fifth off`, `half off`, `a quarter of the price`: a share of a price is its percent (20 %, 50 %,
#: 25 %); thirds are left alone (33 % and 33.3 % are both said for them).
_FRACTION_OF_PRICE = re.compile(
    r"(?i)\b(?:(?P<n>an?|one|\d)[\s-]+)?(?P<f>half|quarters?|fifths?|tenths?)(?=\s+off\b|(?<=half)(?<!\d\shalf)(?<!\d-half)[\s-]+(?:price|refund|fare)\b"
    r"|\s+(?:of\s+)?(?:the|your|its|their)\s+(?:(?:[a-z]+|[$€£¥]?\d[\d,.]*)\s+){0,2}(?:price|cost|fee|fare|bill|total|amount|balance|order|rent"
    r"|charges?|difference|deposit|refund)\b)"
)
_FRACTIONS = {"half": 50, "quarter": 25, "fifth": 20, "tenth": 10}


def _fraction_as_percent(m: re.Match[str]) -> str:
    count = int(m["n"]) if m["n"] and m["n"].isdigit() else 1
    return f"{count * _FRACTIONS[_fold(m['f']).rstrip('s')]}%"


#: `one or two days`, `one to three weeks`: `one` is a number where a range starts with it.
_ONE_OF_RANGE = re.compile(
    r"(?i)(?:\bone(?=\s+(?:or|to)\s+)|(?<=\bbetween\s)one(?=\s+and\s+))"
    r"(?=\s+\w+\s+(?:\d|two|three|four|five|six|seven|eight|nine|ten)\b)"
)
#: `one week`, `a one-year term`: `one` before a week, a month or a year is the count (not `one day`,
#: which is as often `some day`, nor `one hour`, which a reply may give as `an hour` or `60 minutes`).
_ONE_UNIT = re.compile(r"(?i)\bone(?=[\s-]+(?:week|month|year)s?\b)")
#: × after a unit (`2kg×2袋`): a measure, then a count; between digits (`4×6`) a size.
_UNIT_TIMES = re.compile(r"(?<=[A-Za-z])×(?=\d)")
#: The middle dot inside a code (沪A·5K392, a licence plate): no break in it.
_CODE_DOT = re.compile(r"(?<=[A-Za-z\d])·(?=[A-Za-z\d])")
#: `1. `, `2) `, `3、` opening a line: the number of an item of a list.
_LIST_NUMBER = re.compile(r"(?m)^[ \t]*\d{1,2}[.)、](?=[ \t]|[\u4e00-\u9fff])")
#: An amount written the European way: dots between thousands, a comma before the cents — read so only
#: beside a currency that writes it (NFKC makes 汇率为7.125，12月 look the same).
_EUROPEAN_DECIMAL = re.compile(r"(?<![\d.,])(?P<i>\d{1,3}(?:\.\d{3})+),(?P<f>\d{2})(?![\d,])")
#: currencies written the European way: their words, and their codes in capitals (`Ron` is a name)
_EU_CURRENCY_WORDS = r"eur|euros?|chf|sek|nok|dkk|pln|kr|reais"
_EU_CURRENCY_CODES = r"CZK|HUF|RON"
_EURO_CUE = re.compile(
    rf"(?i)€|R\$|zł|kč|(?<![^\W\d_])(?:{_EU_CURRENCY_WORDS})\b|(?-i:\b(?:{_EU_CURRENCY_CODES})\b)"
)
#: An amount with a comma before its cents and no thousands dots (`148,20 €`, `R$ 380,50`, `3,99 kr`,
#: `1 250,50 zł`: thousands set apart by spaces): read so only right beside a currency that writes it,
#: before or after, with or without a space (`148,20EUR`); a comma before three digits is a thousands
#: separator (`1,250 USD`, `EUR 1,250`), and an English list has no currency beside it. `RON`, `HUF`,
#: `CZK` only in capitals (`Ron` is a name).
_EU_CURRENCY = (
    rf"(?:€|R\$|(?<![^\W\d_])(?:{_EU_CURRENCY_WORDS}|zł|kč)\b|(?<![^\W\d_])(?-i:{_EU_CURRENCY_CODES})\b)"
)
_EU_WHOLE = r"\d{1,3}(?: \d{3})+|\d{1,9}"  # `1 250`, `148`
_EU_CENTS = re.compile(
    rf"(?i)(?P<pre>{_EU_CURRENCY}\s?)(?P<i>{_EU_WHOLE}),(?P<f>\d{{1,2}})(?![\d]|[.,]\d)"
    rf"|(?<![\d.,])(?P<i2>{_EU_WHOLE}),(?P<f2>\d{{1,2}})(?=\s?{_EU_CURRENCY})"
)


#: A whole amount with its thousands set apart by spaces right before a currency that writes it so (`1 780 €`,
#: `12 500 zł`, `3 200 kr`; NFKC makes a no-break space a space): one amount, not a count and an amount.
_SPACED_THOUSANDS = re.compile(rf"(?i)(?<![\d.,])\d{{1,3}}(?: \d{{3}})+(?![\d.,]\d)(?=\s?{_EU_CURRENCY})")
_SPACED_THOUSANDS_HINT = re.compile(r"\d \d{3}")


def _eu_cents(m: re.Match[str]) -> str:
    if m["i"]:
        return f"{m['pre']}{m['i'].replace(' ', '')}.{m['f']}"
    return f"{m['i2'].replace(' ', '')}.{m['f2']}"


#: An IBAN written in groups of four (`DE89 3704 0044 0532 0130 00`) is the one written run together.
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: [A-Z\d]{4}){2,7}(?: [A-Z\d]{1,3})?(?![\w])")
#: A number written in groups of four digits, three groups or more, after a word that names one (a
#: tracking or card number: `tracking number is 7712 3456 9981`, 卡号 6222 0212 3456 7890), is the one
#: written run together; `Rooms 1203 1204 1205`, 房间号 1203 1204 1205 are three numbers.
_DIGIT_GROUPS = re.compile(
    r"(?i)(?P<cue>(?:\b(?:tracking|card|account|acct|reference|ref|confirmation|policy|membership|member"
    r"|serial|imei|number|no\.?|id)|#|[卡单账编]号|码)(?:\s+(?:number|no\.?|is|was))*[\s:#：]*)"
    r"(?P<n>\d{4}(?: \d{4}){2,}(?: \d{1,3})?)(?!\d|[.,]\d|\s\d)"
)
#: `1h40m`, `1 hr 40 min`: hours and minutes in one, as `1 hour and 40 minutes` says them.
_HOURS_MINUTES = re.compile(r"(?i)\b(?P<h>\d+)\s?(?:h|hrs?)\s?(?P<m>[1-5]?\d)\s?(?:m|mins?)\b")
_NUMBER_RUN_HINT = re.compile(r"(?i)hundred|thousand|million|ty\b|ty-")
#: what `_NUMBER_RUN_HINT` needs, cheaper to look for
_NUMBER_RUN_STEMS = ("ty", "hundred", "thousand", "million")
#: An enclosed number opening an item of a list (①, ⑵, ❸): NFKC makes it a digit that joins the number
#: after it (`①7天包` read 17天).
#: An ellipsis before digits elides what came before them (`…30217`, the card's last digits).
_ELIDED = re.compile(r"(?<![\d.])\.{3}(?=\d)")
_ENCLOSED_NUMBER = re.compile("[\u2460-\u24ff\u2776-\u2793]")
#: Two-factor authentication is no count of two (`2FA`, `two-step verification`).
_TWO_FACTOR = re.compile(
    r"(?i)\b(?:two|2)[-\s]?(?:factor|step)\b(?:\s+(?:authentication|verification|auth))?|\b2fa\b|\b2sv\b"
)
#: `24/7` is always, no 24 and no 7.
_ALWAYS = re.compile(r"(?<![\d/])24\s?/\s?7(?![\d/])")
#: Thousands after dots where the euro follows, as continental Europe writes it (`1.120 €`, `2.500 EUR`;
#: its decimals take a comma). Not `€1.659` or `0.285 EUR`: a fuel or power price has three decimals.
_EURO_THOUSANDS = re.compile(
    r"(?i)(?<![\d.,])(?P<n>[1-9]\d{0,2}(?:\.\d{3})+)(?![\d.,]*\d)(?=\s?(?:€|eur\b|euros?\b))"
)
#: A number with two groups of thousands or more after dots (`1.500.000`, `$2.300.000 CLP`): one number,
#: since no number has two decimal points — not an IPv4 address (`10.120.200.255`: four parts, none above 255).
_DOT_THOUSANDS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3}){2,}(?![\d.,]*\d)")
#: Amounts in the currencies written with dots between thousands and no cents, the rupiah's and the đồng's
#: (`Rp400.000`, `Rp 75.000`, `IDR 1.500.000`, `250.000₫`, `1.250.000 đ`, `75.000 rupiah`): their figures.
_DOT_CURRENCY = re.compile(
    r"(?<![^\W\d_])(?:Rp\.?|IDR)\s?(?P<n>\d{1,3}(?:\.\d{3})+|\d+)(?:,(?P<f>\d{2}))?(?![\d.,]*\d)"
    r"|(?<![\d.,])(?P<n2>\d{1,3}(?:\.\d{3})+|\d+)(?:,(?P<f2>\d{2}))?\s?(?P<c>₫|đ|VND|đồng|rupiah)(?![^\W\d_])"
)
_DOT_CURRENCY_HINT = ("rp", "idr", "₫", "đ", "vnd", "rupiah")
#: A time of day written with a dot after a word that says a time follows (`klo 17.00`, `kl. 9.30`, `um 16.30`,
#: `jam 08.30`, `pukul 23.59`, `alle 16.30`, `om 16.30`) with the times listed after it (`klo 17.00, 17.40 ja
#: 18.20`), or before a word that says it was one (`16.30 Uhr`, `16.30 uur`): as `17:00`.
_CLOCK_DOT = r"(?:[01]?\d|2[0-3])\.[0-5]\d"
#: (no unit or currency after it: `steigt um 2.50 Euro`, `om 2.45 km`, `alle 18.00, 4.50 euro` are no times)
_NO_UNIT_AFTER = r"(?![\d.,]*\d)(?!\s?(?:%|€|\$|£|¥|₫|euros?\b|eur\b|kr\b|zł|kč|ft\b|lei\b|km\b|kg\b|cm\b|mm\b|m\b|l\b|g\b))"
_DOT_CLOCK = re.compile(
    rf"(?i)\b(?:klo|kl\.?|um|jam|pukul|alle|dalle|ore|om)\s+{_CLOCK_DOT}{_NO_UNIT_AFTER}"
    r"(?:\s*(?:,|–|-|—|ja|tai|og|och|eller|dan|atau|sampai|und|oder|bis|e|o|en|of|and|or)\s*"
    rf"{_CLOCK_DOT}{_NO_UNIT_AFTER})*"
    rf"|(?<![\d.,]){_CLOCK_DOT}(?=\s?(?:Uhr|uur)\b)"
)
_DOT_CLOCK_HINT = ("klo", "kl", "um", "jam", "pukul", "alle", "ore", "om", "uhr", "uur")
_CLOCK_DOT_PART = re.compile(r"(\d{1,2})\.(\d{2})")


def writes_dotted_times(text: str) -> bool:
    """Whether a text writes a time of day with a dot after a word that says one (`_DOT_CLOCK`: `klo 17.00`)."""
    return holds_any(fold(text), _DOT_CLOCK_HINT) and _DOT_CLOCK.search(text) is not None


def _dotted(text: str, low: str) -> str:
    """`_DOT_THOUSANDS`, `_DOT_CURRENCY` and `_DOT_CLOCK` read (each where its words or digits are; `low`: the
    text folded before the readings above, which add none of their words)."""
    if "." in text and _DOT_THOUSANDS_HINT.search(text):
        text = _DOT_THOUSANDS.sub(_undotted, text)
    if holds_any(low, _DOT_CURRENCY_HINT):
        text = _DOT_CURRENCY.sub(_dot_currency, text)
    if holds_any(low, _DOT_CLOCK_HINT):
        text = _DOT_CLOCK.sub(lambda m: _CLOCK_DOT_PART.sub(r"\1:\2", m.group(0)), text)
    return text


_DOT_THOUSANDS_HINT = re.compile(r"\d\.\d{3}\.\d{3}")


def _undotted(m: re.Match[str]) -> str:
    """One number, but an IPv4 address, a phone number after its country's code (`+34 612.345.678`), and three
    groups of three with no currency beside them (`612.345.678`: a phone number as Spain writes it)."""
    parts = m.group(0).split(".")
    if len(parts) == 4 and all(int(p) <= 255 for p in parts):  # an IPv4 address
        return m.group(0)
    before = m.string[max(0, m.start() - _BESIDE) : m.start()]
    if _CALLING_CODE_BEFORE.search(before):
        return m.group(0)
    if len(parts[0]) == 3 and not (
        _CURRENCY_BEFORE.search(before) or _CURRENCY_AFTER.match(m.string, m.end())
    ):
        return m.group(0)
    return "".join(parts)


_BESIDE = 8
_CALLING_CODE_BEFORE = re.compile(r"\+\d{1,3}[\s.-]?$")
_CURRENCY_BEFORE = re.compile(r"(?:[$€£¥₹₩₫]|R\$|Rp\.?|\b[A-Z]{3})\s?$")
_CURRENCY_AFTER = re.compile(r"\s?(?:[$€£¥₹₩₫]|đ\b|[A-Z]{3}\b|(?i:euros?|pesos?|dollars?|rupiah|đồng)\b)")


def _dot_currency(m: re.Match[str]) -> str:
    if m["n"]:
        return f"IDR {m['n'].replace('.', '')}{'.' + m['f'] if m['f'] else ''}"
    code = "IDR" if m["c"].casefold() == "rupiah" else "VND"
    return f"{m['n2'].replace('.', '')}{'.' + m['f2'] if m['f2'] else ''} {code}"


#: A code said in groups of three or four digits after a word that names a code (`pickup code 482
#: 910`, 取件码 620 418) is the one written run together.
_CODE_GROUPS = re.compile(
    r"(?i)(?P<cue>\b(?:code|pin|passcode)|取件码|提货码|验证码)(?P<sep>(?:\s+(?:is|was))?[\s:：]*)"
    r"(?P<n>\d{3,4}(?: \d{3,4}){1,3})(?!\d|[.,]\d|\s?(?:[秒分天]|小时|s\b|sec|min|hour|day))"
)  # at most four groups; not `验证码 4829 120秒内有效`


def _grouped_code(m: re.Match[str]) -> str:
    """`M5V 2T6` → `M5V2T6`, `999-2145678903` → `9992145678903`, `gate B 22` → `gate B22`."""
    if m["code"]:
        return m["code"].replace(" ", "").replace("-", "")
    return f"{m['word']}{m['seat']}{m['n']}"


def _zh_gigabytes(m: re.Match[str]) -> str:
    """`8个G` → 8GB; not the 2G–5G of a plan (5G套餐 is a plan of the network's fifth generation)."""
    if m["n"] in ("2", "3", "4", "5") and m["u"] == "G" and m.string.startswith("套餐", m.end()):
        return m.group(0)
    return f"{m['n']}{m['u']}B"


def _a_period(m: re.Match[str]) -> str:
    """`within a day` → `within 1 day`, `a year from` → `1 year from` (`_A_PERIOD`)."""
    return f"{m['pre']} {m['adv'] or ''}1 {m['unit']}" if m["pre"] else f"1 {m['unit_from']}"


def extract_facts(value: str, day_first: bool = False) -> Facts:
    """Find typed facts left to right; what is not a fact is the residual text. One cache for every way
    of calling it (`f(x)` and `f(x, False)` are two keys to `lru_cache`: a text read by gold scoring and
    by grounding was read twice)."""
    return _extract_facts(value, day_first)


@short_cached(maxsize=65_536)
def _extract_facts(value: str, day_first: bool) -> Facts:
    if _ENCLOSED_NUMBER.search(value):
        value = _ENCLOSED_NUMBER.sub(" ", value)
    text = unicodedata.normalize("NFKC", value)
    if "..." in text:  # `card ending …30217` (… is `...` now): the digits after an ellipsis are no decimals
        text = _ELIDED.sub(" ", text)
    folded = fold(text)
    if "fa" in folded or "factor" in folded or "step" in folded or "2sv" in folded:
        text = _TWO_FACTOR.sub("twofactor", text)
    if "24" in text:
        text = _ALWAYS.sub("around-the-clock", text)
    if "-" in text or "–" in text:  # `Nov 15–Apr 1` is a range of two dates, not the code `15-Apr`
        text = _DASH_BEFORE_MONTH.sub(" - ", text)
    if "×" in text:  # 4×6 = 4x6; 2kg×2袋 is 2kg, then 2 bags
        text = _UNIT_TIMES.sub(" x ", text).replace("×", "x")
    if " by " in text and _BY_HINT.search(text):  # `a 10 by 10` is 10x10
        text = _BY_DIMENSIONS.sub(r"\g<a>x\g<b>", text)
    if "·" in text:  # 沪A·5K392 is the plate 沪A5K392
        text = _CODE_DOT.sub("", text)
    text = in_digits(plus_word(text))
    # what follows adds no digit to a text without one, so this answers for every digit pattern below
    digits = DIGIT.search(text) is not None
    # the literals each pattern below needs, tested before its scan: `h` and `m` of `2h 30m`, a space
    # between an IBAN's groups, a grouped code's space or dash (or the 18 characters of a UPS number)
    if digits and "h" in (hm := fold(text)) and "m" in hm and _HOURS_MINUTES.search(text):
        text = _HOURS_MINUTES.sub(r"\g<h> hours \g<m> minutes", text)
    if digits and " " in text and _IBAN.search(text):
        text = _IBAN.sub(lambda m: m.group(0).replace(" ", ""), text)
    if (
        digits
        and (" " in text or "-" in text or len(text) >= _UPS_CHARS)
        and _grouped_code_hint(text)
        and _GROUPED_CODE.search(text)
    ):
        text = _GROUPED_CODE.sub(_grouped_code, text)
    if "\n" in text:  # a numbered list's numbers are no facts
        text = _LIST_NUMBER.sub("", text)
    if "," in text and _EUROPEAN_DECIMAL.search(text) and _EURO_CUE.search(text) and not has_cjk(text):
        text = _EUROPEAN_DECIMAL.sub(lambda m: m["i"].replace(".", "") + "." + m["f"], text)  # 2.500,00 EUR
    if "," in text and _EURO_CUE.search(text) and not has_cjk(text):
        text = _EU_CENTS.sub(_eu_cents, text)  # 148,20 €, R$ 380,50
    if " " in text and _SPACED_THOUSANDS_HINT.search(text) and _EURO_CUE.search(text):
        text = _SPACED_THOUSANDS.sub(lambda m: m.group(0).replace(" ", ""), text)  # 1 780 €, 12 500 zł
    if digits and " " in text and _DIGIT_GROUPS_HINT.search(text) and _DIGIT_GROUPS.search(text):
        text = _DIGIT_GROUPS.sub(lambda m: m["cue"] + m["n"].replace(" ", ""), text)
    if ("code" in folded or "pin" in folded or "码" in text) and _CODE_GROUPS.search(text):
        text = _CODE_GROUPS.sub(lambda m: m["cue"] + m["sep"] + m["n"].replace(" ", ""), text)
    if "€" in text or "eur" in folded:
        text = _EURO_THOUSANDS.sub(lambda m: m["n"].replace(".", ""), text)
    if "." in text or holds_any(folded, _DOT_CURRENCY_HINT):  # `1.500.000`, `Rp400.000`, `klo 17.00`
        text = _dotted(text, folded)
    if holds_any(fold(text), _PERIOD_WORDS):
        text = _A_PERIOD.sub(_a_period, _PER_A_PERIOD.sub(r"\g<amount> per \g<unit>", text))
    if "/" in text:
        per = _SLASH_PERIOD.sub(
            lambda m: f"{m['amount']} per {_SLASH_UNITS.get(m['unit'].lower(), m['unit'])}", text
        )
        text = per
        text = _MONTH_SLASH_DAY.sub(_month_slash_day(day_first, has_cjk(text)), text)
    if holds_any(fold(text), _RANGE_UNIT_WORDS) and _RANGE_UNIT_HINT.search(text):
        text = _RANGE_UNIT.sub(r"\g<between>\g<a> \g<unit> \g<join> \g<b> \g<unit>", text)
    if "元" in text:
        text = _ZH_PER_PERIOD.sub(r"每\g<p>\g<amount>", text)
    if has_cjk(text):
        text = _ZH_RANGE_UNIT.sub(r"\g<a>\g<unit>至\g<b>\g<unit>", _zh_text(text))  # no minus sign: 1-3天
        if "G" in text or "T" in text:
            text = _ZH_GIGABYTES.sub(_zh_gigabytes, text)
    found: list[tuple[int, int, str]] = []
    # found's spans in order: they never overlap, so their ends are in order too
    taken: list[tuple[int, int]] = []

    def take(pattern: re.Pattern[str], canon: Callable[[re.Match[str]], str | None]) -> None:
        for m in pattern.finditer(text):
            start, end = m.span()
            before = bisect.bisect_left(taken, (end,))  # the spans that start before this match ends
            if before and taken[before - 1][1] > start:  # the last of them ends after it starts
                continue
            c = canon(m)
            if c:
                found.append((start, end, c))
                bisect.insort(taken, (start, end))

    # each pattern runs only where it can match: a Chinese pattern needs a CJK character, a pattern
    # with a digit in every match a digit, a weekday "day", … (the same facts, far fewer scans)
    low = fold(text)
    cjk = has_cjk(text)
    digit = DIGIT.search(text) is not None
    if "@" in text:
        take(_EMAIL, lambda m: f"id:{m.group(0).casefold()}")
    # a phone number has a separator, a `+` or a parenthesis: none in a text of letters, digits and `_`
    phone = digit and not text.replace("_", "").isalnum() and _PHONE_HINT.search(text) is not None
    if cjk and digit:
        take(_ZH_DATE, lambda m: f"date:{int(m['y']):04d}-{zh_number(m['m']):02d}-{int(m['d']):02d}")
    if digit:
        if _DATE_HINT.search(text):
            take(_DATE, lambda m: _canon_date(m.group(0), day_first))
        if ("-" in text or "/" in text or "年" in text or holds_any(low, MONTH_STEMS)) and _YEAR_HINT.search(
            text
        ):  # a year beside a month's name, a dash, a slash or 年
            take(_MONTH_YEAR, _canon_month_year)
        if holds_any(low, _TIME_STEMS) and _TIME_HINT.search(text):
            take(_TIME, _canon_time)
        # `às 9h30`, `à 14h40`: a clock time as French and Portuguese write it
        if "h" in low and _H_TIME_HINT.search(text):
            take(_H_TIME, lambda m: f"time:{int(m['h']):02d}:{m['m']}")
        if cjk:
            take(_ZH_TIME, _canon_zh_time)
    if _TIME_WORD_HINT.search(text):
        take(_TIME_WORD, lambda m: "time:00:00" if m["word"].casefold() == "midnight" else "time:12:00")
    if "q" in low:
        take(_QUARTER, _canon_quarter)
    if "half" in low or "h1" in low or "h2" in low:
        take(_HALF, _canon_half)
    if "季度" in text:
        take(_ZH_QUARTER, lambda m: f"quarter:{zh_number(m['q'])}")
    if "半年" in text:
        take(_ZH_HALF, lambda m: f"half:{1 if m['z'] == '上' else 2}")
    if cjk and digit:
        take(_ZH_MONTH_RANGE, lambda m: _QUARTER_MONTHS.get((int(m["a"]), int(m["b"]))))
    if any(unit in low for unit in _PERIOD_UNITS):
        take(_PERIOD, lambda m: f"period:{_RELATIVE[_fold(m.group('rel'))]}|{_fold(m.group('unit'))}")
    if "day" in low:
        take(_WEEKDAY, lambda m: f"weekday:{_WEEKDAYS.index(_fold(m.group('d'))) + 1}")
    if holds_any(text, _WEEKDAY_ABBR_STEMS):
        take(_WEEKDAY_ABBR, _weekday_abbreviation)
    if holds_any(low, MONTH_STEMS):
        take(_MONTH, _canon_month)
    if cjk:
        take(_ZH_WEEKDAY, lambda m: f"weekday:{_zh_weekday(m.group('d'))}")
        take(_ZH_MONTH, lambda m: f"month:{zh_number(m.group('m'))}")
        take(_ZH_PERIOD, _canon_zh_period)
    if holds_any(low, _FREQUENCY_STEMS):
        take(_FREQUENCY, _canon_frequency)
    if "每" in text or "费" in text or "租" in text or "供" in text:
        take(_ZH_FREQUENCY, lambda m: f"frequency:{_ZH_PERIODS[m['z'] or m['f']]}")
    if holds_any(low, _ORDINAL_STEMS):
        take(_ORDINAL, lambda m: f"number:{_ORDINAL_WORDS[_fold(m['o'] or m['d'] or m['q'])]}")
    if phone:
        take(_PHONE, _canon_phone)
    if digit:
        if holds_any(low, _ORDINAL_SUFFIXES):
            take(_ORDINAL_DIGITS, lambda m: f"number:{int(m.group('n'))}")
        if " " in text:
            take(_SPACED_IDENT, lambda m: f"id:{_alnum(m.group(0))}")
        take(_IDENT, _canon_ident)
        coded = any(c in low for c in _CODES) or ("$" in text and _DOLLAR_NAMED.search(text) is not None)
        take(_QUANTITY_CODED if coded else _QUANTITY, _canon_quantity)
    if holds_any(low, _CURRENCY_STEMS):
        take(
            _CURRENCY,
            lambda m: f"currency:{_CURRENCY_WORDS.get(_fold(m.group('c')), _fold(m.group('c')))}",
        )
    if cjk:
        take(_ZH_CURRENCY, lambda m: f"currency:{_UNITS[m.group('c')][0]}")
    if phone:  # an international number's country, a fact of its own (`_canon_phone`)
        found += [(e, e, c.split("|", 1)[1]) for s, e, c in found if c.startswith("phone:") and "|" in c]
        found[:] = [(s, e, c.split("|", 1)[0] if c.startswith("phone:") else c) for s, e, c in found]
    found.sort()
    if len(found) > 1:  # a period said twice is one (日租费用为每天25元): a frequency is no count
        periods = [i for i, f in enumerate(found) if f[2].startswith("frequency:")]
        repeated = {i for i in periods if any(found[j][2] == found[i][2] for j in periods if j < i)}
        found[:] = [f for i, f in enumerate(found) if i not in repeated]
    if len(found) > 1:  # what joins two facts: a range of hours, of months, a quarter said as months
        kinds = {c.partition(":")[0] for _, _, c in found}
        if "number" in kinds:
            _durations_summed(text, found)
        if "time" in kinds:
            _meridiem_for_ranges(text, found)
        if "month" in kinds and "date" in kinds:
            _year_for_days(text, found)
        if "month" in kinds or "date" in kinds:
            _year_for_months(text, found)
            _quarters_of_months(text, found)
    residual = _words_between(text, found, keep=SOFT_FACT_KINDS)
    bare = _words_between(text, found, keep=frozenset())
    if len(residual.split()) == 1 and residual in _BOOLS and len(normalize_text(text).split()) == 1:
        found.append((len(text), len(text), f"bool:{_BOOLS[residual]}"))
        residual = bare = ""
    spans = tuple((c, text[s:e]) for s, e, c in found)
    labels: list[str] = []
    for (_, end, _), (start, _, _) in zip([(0, 0, ""), *found], found, strict=False):
        words = [_label_word(w) for w in normalize_text(text[end:start]).split() if w not in _LIST_WORDS]
        words = [w for w in words if w]
        labels.append(words[-1] if words else labels[-1] if labels else "")  # a list: its first item's
    return Facts(
        facts=tuple(sorted(c for _, _, c in found)),
        residual=residual,
        spans=spans,
        bare=bare,
        labels=tuple(labels),
    )


#: a clock time written with `h` between hours and minutes (`9h30`, `14h40`, `11h00`); `2h` alone is none
_H_TIME = re.compile(r"(?<![\w.,:])(?P<h>[01]?\d|2[0-3])h(?P<m>[0-5]\d)(?![\w:])")
_H_TIME_HINT = re.compile(r"\dh\d")
#: a multiplier after an amount: `12 元×3`, `€25 x2` (× is read as x); `code X1` stays an id
_MULTIPLIER = re.compile(r"[xX]\d{1,2}")
_AMOUNT_BEFORE = re.compile(r"(?:\d|元|块|€|\$|£|¥)\s*$")

#: The cheap tests `_extract_facts` makes before a pattern's scan (`hints`). The strings each pattern
#: cannot match without, in the folded text (`hints.fold`; `_WEEKDAY_ABBR`'s in the text as written: its
#: abbreviations are capitalised); tests/unit/test_fact_pattern_hints.py checks each pattern's words.
MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAY_ABBR_STEMS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_ORDINAL_STEMS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "teenth", "tieth",
)  # fmt: skip
_CURRENCY_STEMS = (
    "usd", "eur", "gbp", "jpy", "cny", "rmb", "chf", "cad", "aud", "nzd", "inr", "krw", "sgd", "hkd", "sek",
    "nok", "dkk", "mxn", "brl", "yuan", "dollar", "yen", "renminbi",
)  # fmt: skip
_FREQUENCY_STEMS = (
    "hourly", "daily", "weekly", "monthly", "quarterly", "yearly", "annual", "every", "per", "each",
)  # fmt: skip
_PERIOD_WORDS = ("hour", "day", "week", "month", "year")  # `_A_PERIOD` and `_PER_A_PERIOD` need one
_GROUPED_CODE_WORDS = ("gate", "seat", "platform", "bay", "pier", "zone", "section", "dock", "stand")
#: What a pattern's every match holds, a far cheaper scan than the pattern's own: `_DATE`'s year or a
#: digit, a `/` or `.` and a digit; `_MONTH_YEAR`'s year; `_TIME`'s `9 am`, `14:30`, `o'clock` or part of
#: the day; `_RANGE_UNIT`'s `2-3`, `2 to 3`, `between 2 and 3`; `_DIGIT_GROUPS`' three groups of four;
#: `_GROUPED_CODE`'s postcode (a letter, a digit, a space), `1Z`, a ticket's `123-1234567890` (or a word).
_DATE_HINT = re.compile(r"\d{4}|\d[/.]\d")
_YEAR_HINT = re.compile(r"(?:19|20)\d\d")
_TIME_HINT = re.compile(r"(?i)\d\s?[ap]\.?m|\d:\d|o['’]clock|morning|afternoon|evening|night")
#: and the strings `_TIME_HINT` needs, cheaper still: the m of `am`, a colon, its words (`morning` has an m)
_TIME_STEMS = ("m", ":", "clock", "afternoon", "evening", "night")
#: what `_BY_DIMENSIONS` needs (two numbers and `by`), and `_PENCE` (a number and `p` or `pence`)
_BY_HINT = re.compile(r"(?i)\d\s+by\s+\d")
_PENCE_HINT = re.compile(r"(?i)\d(?:p|\s+pence)")
_RANGE_UNIT_HINT = re.compile(r"(?i)\d\s*(?:and|to|or|-|–|~)\s*\d")
_DIGIT_GROUPS_HINT = re.compile(r"\d{4} \d{4} \d{4}")
_GROUPED_CODE_HINT = re.compile(r"[A-Z]\d[A-Z\d]? \d|1Z|\d{3}-\d{10}")
_UPS_CHARS = 18  # `1Z` and 16 more: a grouped code with no space or dash is this long
#: `_RANGE_UNIT`'s units and `_ORDINAL_DIGITS`' suffixes (`7 to 10 days`, `21st`): each match holds one
_RANGE_UNIT_WORDS = ("day", "night", "week", "month", "year", "hour", "minute")
_ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")


def _grouped_code_hint(text: str) -> bool:
    return _GROUPED_CODE_HINT.search(text) is not None or holds_any(fold(text), _GROUPED_CODE_WORDS)


#: What joins the items of a list (with the stopwords): two facts it joins share their label.
_LIST_WORDS = STOPWORDS | frozenset({"and", "or", "then", "also", "plus", "as", "well", "以及", "或者"})
_ZH_LIST_SPLIT = re.compile("[和与及或跟、]")  # ideographs that join a list
_RUNS = re.compile(f"[{CJK_CHARS}]+|[^{CJK_CHARS}]+")


def _label_word(word: str) -> str:
    """A word as a fact's label: a Chinese run's last piece after a list ideograph (`和订单` → `订单`), ""
    when that is one ideograph (the 日 of 3月5日, 减 of 满100减20: part of how the value is said)."""
    if not has_cjk(word):
        return word
    last: str = _RUNS.findall(word)[-1]  # `对比iphone`: the Latin run it ends with
    if not has_cjk(last):
        return last
    last = _ZH_LIST_SPLIT.split(last)[-1]
    return last if len(last) > 1 else ""


def _words_between(text: str, found: list[tuple[int, int, str]], keep: frozenset[str]) -> str:
    """The normalized words of `text` outside the facts found, except facts of the kinds in `keep`
    (kept in the words too: "Thursday" is also what a reply says)."""
    parts, last = [], 0
    for s, e, c in found:
        if c.split(":", 1)[0] in keep:
            continue
        parts.append(text[last:s])
        last = e
    parts.append(text[last:])
    return normalize_text(" ".join(parts))


#: The numerals of amounts on cheques and transfers (伍仟元 = 五千元 = 5000元).
_ZH_FINANCIAL = str.maketrans("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟", "一二二三三四五六六七八九十百千")
_ZH_FINANCIAL_HINT = re.compile("[壹贰貳叁參肆伍陆陸柒捌玖拾佰仟]")


#: A month and day with a dot and no year (3.14, 7.18到7.21): a date only where a date's words follow — a
#: range before a stay (7.18到7.21，三个晚上; not 1.5-2.5小时, 汇率7.18到7.21), one day before a weekday or a
#: part of the day (3.14，下午; not 评分4.8（周五更新）).
_ZH_MONTH_DOT_DAY = r"(?<![\d.])(1[0-2]|[1-9])\.(3[01]|[12]\d|[1-9])(?![\d.])"
_ZH_DOT_DATE_RANGE = re.compile(
    _ZH_MONTH_DOT_DAY
    + r"\s*([到至~\-–—])\s*"
    + _ZH_MONTH_DOT_DAY
    + r"(?=[,，、]?\s*(?:共|住|入住|[一二两三四五六七八九十\d]+\s*个?[晚天夜]))"
)
_ZH_DOT_DATE = re.compile(
    _ZH_MONTH_DOT_DAY
    + r"(?=(?:周|星期|礼拜)[一二三四五六日天]|[,，、]?\s*(?:上午|下午|早上|晚上|中午|凌晨|傍晚))"
)


#: A length in metres and tenths, as a height is said (一米二, 一米五: 1.2 and 1.5 metres), where no numeral,
#: 米 or measure word follows (not 一米二十, 一米三层: a metre, then three shelves).
_ZH_METRE_AND_TENTHS = re.compile(
    r"(?<![\d一二两三四五六七八九十百千万])(?P<m>[一两二三])米(?P<d>[一二三四五六七八九])(?![\d一二三四五六七八九十百千万米]|"
    + _ZH_ALL_MEASURES
    + ")"
)


def _zh_text(text: str) -> str:
    """Chinese text as the fact patterns read it: no space between a digit and an ideograph (`3 月 12 日`
    is how some write 3月12日), numerals as digits (两千 = 2000), 5万 as 50000, ¥ as 元 (the yuan sign,
    unless `_JAPANESE` says the yen), and parts of an hour in digits (一个半小时 = 1.5小时)."""
    text = _CJK_SPACE.sub("", text)
    if "." in text:
        text = _ZH_DOT_DATE_RANGE.sub(r"\1月\2日\3\4月\5日", text)
        text = _ZH_DOT_DATE.sub(r"\1月\2日", text)
    if _ZH_FINANCIAL_HINT.search(text):
        text = text.translate(_ZH_FINANCIAL)
    text = _ZH_DECIMAL.sub(lambda m: _zh_decimal(f"{m['i']}点{m['f']}"), text)
    text = _ZH_PERCENT.sub(lambda m: _zh_decimal(m["n"]) + "%", text)
    if "千分之" in text:  # 千分之一 is 0.1%
        text = _ZH_PERMILLE.sub(lambda m: _digits(float(_zh_decimal(m["n"])) / 10) + "%", text)
    if "分之" in text:  # 五分之三 is 60%, 十分之一 10%
        text = _ZH_FRACTION.sub(_zh_fraction, text)
    if "日-" in text or "号-" in text:  # 11月8日-9日: a range of days, no minus nine
        text = _ZH_DAY_DASH.sub("至", text)
    if "一半" in text:
        text = text.replace("一半", "50%")
    if "米" in text:  # 一米二 is 1.2米, as a height is said
        text = _ZH_METRE_AND_TENTHS.sub(lambda m: f"{zh_number(m['m'])}.{zh_number(m['d'])}米", text)
    if "第" in text:  # 第二诊室 is room 2, as 2号诊室 says
        text = _ZH_ORDINAL.sub(lambda m: f"第{zh_number(m['n'])}", text)
    if "三" in text or "四" in text or "五" in text:  # 两三天 is 2到3天
        text = _ZH_TWO_NUMERALS.sub(_zh_two_numerals, text)
    text = _ZH_NUMBER.sub(_zh_numerals_in_digits, text)
    text = _ZH_JIAO.sub(lambda m: f"{m['y']}.{zh_number(m['j'])}{zh_number(m['f'] or '0')}元", text)
    text = _ZH_JIAO_BARE.sub(lambda m: f"{m['y']}.{zh_number(m['j'])}元", text)
    if "毛" in text:  # 收5毛 is 0.5元
        text = _ZH_JIAO_ALONE.sub(lambda m: f"0.{zh_number(m['j'] or m['k'])}元", text)
    if "成" in text:  # 七成 is 70%
        text = _ZH_TENTHS.sub(lambda m: f"{zh_number(m['n']) * 10}%", text)
    if "折" in text:  # 打九折 is 90% of the price
        text = _ZH_DISCOUNT.sub(_zh_discount, text)
    text = _MYRIAD.sub(lambda m: _digits(float(m["n"].replace(",", "")) * _MYRIADS[m["x"]]), text)
    if "¥" in text and not _JAPANESE.search(text):
        text = _YUAN_SIGN.sub(lambda m: m["n"] + "元", text)
    if "人民币" in text:  # 人民币860元 is 860元; 人民币860 too
        text = _RMB_BEFORE.sub(lambda m: "" if m["yuan"] else "¥", text)
        text = _YUAN_SIGN.sub(lambda m: m["n"] + "元", text)
    text = _ZH_AND_A_HALF.sub(r"\g<n>.5小时", text)  # 1个半小时 is 1.5 hours, not 半小时
    if ":" in text and ("午" in text or "晚" in text):  # 下午 3:30 is 15:30, 16日晚 7:30 19:30
        text = _ZH_PM_CLOCK.sub(_zh_pm_clock, text)
    if "全额" in text:  # 全额扣除 is 100%扣除: a share of a cost (not 全额退款, said as 全部退款 too)
        text = _ZH_FULL_SHARE.sub("100%", text)
    if "点" in text or "时" in text:  # 下午2点到4点: the end of the range is the afternoon's too
        text = _ZH_TIME_RANGE.sub(r"\g<p>\g<a>\g<j>\g<p>\g<b>", text)
    text = _ZH_HOURS_MINUTES.sub(lambda m: f"{m['h']}小时{zh_number(m['m'])}分钟", text)  # 1小时四十分
    if "年" in text:  # 3年 is 36个月, 半年 6个月 (上半年 is a half: `_ZH_HALF`)
        text = _ZH_YEARS.sub(
            lambda m: f"{_digits((float(m['n'] or 0.5) + 0.5 * bool(m['half'])) * 12)}个月", text
        )
    if "底" in text:  # 8月底 is 8月31日, 2025年年底 2025年12月31日
        text = _ZH_MONTH_END.sub(_zh_month_end, _ZH_YEAR_END.sub(r"\g<y>年12月31日", text))
    return _ZH_HOURS.sub("", _ZH_PART_HOUR.sub(lambda m: _ZH_PART_HOURS[m.group(0)], text))


#: A count of years (one or two digits, or 半): 3年, 半年 — not 2024年, 上半年, 3年级, 年底, 年度.
_ZH_YEARS = re.compile(
    r"(?:(?<![\d.])(?P<n>\d{1,2}(?:\.\d)?)|(?<![上下前后\d])半|(?<=[前后])半(?=年[以之]?内))年(?P<half>半)?"
    r"(?![\d级底初末中度双])"
)  # 1年半 is 18个月; 25年1月1日 and 24年双十一 are years; 术后半年内 is within six months
#: 8月底 / 八月底, 2025年年底 / 2025年底: the month's or the year's last day.
_ZH_MONTH_END = re.compile(r"(?:(?P<y>\d{4})年)?(?P<m>1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])月份?底")
_ZH_YEAR_END = re.compile(r"(?P<y>\d{4})年年?底")


def _zh_month_end(m: re.Match[str]) -> str:
    month = zh_number(m["m"])
    last = calendar.monthrange(int(m["y"] or 2001), month)[1]  # no year: February's 28 days
    return f"{m['y'] + '年' if m['y'] else ''}{month}月{last}日"


_ZH_FULL_SHARE = re.compile("全额(?=扣除|报销|抵扣|承担)")
#: A clock time after a part of the day past noon: its hour is the afternoon's or the evening's (not the
#: 晚 of 最晚 "at the latest" or 早晚).
_ZH_PM_CLOCK = re.compile(
    "(?P<p>"
    + "|".join(sorted(_ZH_PM, key=len, reverse=True))
    + r"|(?<![最早])晚)(?P<h>\d{1,2}):(?P<m>[0-5]\d)"
)
_ZH_DAY_DASH = re.compile(r"(?<=\d[日号])-(?=\d)")
#: 第二 before a word that numbers a place or an item (诊室, 号, 楼, 期 …); not 第二驾驶人 "a second driver".
_ZH_ORDINAL = re.compile(
    r"第(?P<n>[一二两三四五六七八九十百]+)(?=[号楼层排座站室诊厢窗台期届批轮道条项章节页])"
)
#: A fraction (N分之M); 百分之 and 千分之 are read before it.
_ZH_FRACTION = re.compile(
    r"(?<![百千万])(?P<d>[一二两三四五六七八九十\d]+)分之(?P<n>[一二两三四五六七八九十\d]+)"
)


def _zh_pm_clock(m: re.Match[str]) -> str:
    """下午 3:30 → 15:30; 晚上12:00 and 今晚0:30 are past midnight, 中午12:30 is noon's (`_ZH_PM_CLOCK`)."""
    hour = int(m["h"])
    if hour in (0, 12):
        hour = 12 if m["p"] in ("中午", "下午") else 0
    elif hour < 12:
        hour += 12
    return f"{m['p']}{hour}:{m['m']}"


def _zh_fraction(m: re.Match[str]) -> str:
    """五分之三 → 60%; a share with no short percent (三分之一) is left as said."""
    numerator, denominator = zh_number(m["n"]), zh_number(m["d"])
    percent = 100 * numerator / denominator if denominator else 0.0
    return f"{_digits(percent)}%" if percent and round(percent, 1) == percent else m.group(0)


def _zh_two_numerals(m: re.Match[str]) -> str:
    """两三天 = 2到3天: two numerals one apart before a measure word are a range (not 二十, not 一二三)."""
    a, b = _ZH_DIGITS[m["a"]], _ZH_DIGITS[m["b"]]
    return f"{a}到{b}" if b == a + 1 else m.group(0)


_NUMBER_OR_UNIT_BEFORE = re.compile(r"\d(?:[A-Za-z]{1,3})?$")  # not a name's letters: iPhone十五 is iphone15


def _zh_numerals_in_digits(m: re.Match[str]) -> str:
    """Numerals as digits, kept apart from a number or a unit just before them (19:30四位 is 19:30 and 4位,
    25kg一袋 25kg and 1袋)."""
    apart = _NUMBER_OR_UNIT_BEFORE.search(m.string, max(0, m.start() - 4), m.start()) is not None
    return (" " if apart else "") + str(zh_number(m.group(0)))


def _zh_decimal(numerals: str) -> str:
    """A number said in numerals or digits, with a decimal part after 点 or `.` (三点五 = 3.5)."""
    whole, _, fraction = numerals.replace(".", "点").partition("点")
    digits = "".join(str(_ZH_DIGITS[c]) if c in _ZH_DIGITS else c for c in fraction)
    return f"{zh_number(whole)}.{digits}" if digits else str(zh_number(whole))


def _digits(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _canon_zh_period(m: re.Match[str]) -> str:
    if m["yrel"]:
        return f"period:{_ZH_YEAR_RELATIVE[m['yrel']]}|year"
    return f"period:{_ZH_RELATIVE[m['rel']]}|{_ZH_PERIOD_UNITS[m['unit']]}"


def _zh_weekday(day: str) -> int:
    """星期一 … 星期六 are 1–6 (as digits too: 周2); 星期日 and 星期天 are Sunday, 7."""
    return 7 if day in "日天" else int(day) if day.isdigit() else "一二三四五六".index(day) + 1


def zh_number(numerals: str) -> int:
    """A number in Chinese numerals or Arabic digits: 两千 = 2000, 十五 = 15, 一百二十 = 120, 三万 = 30000."""
    if numerals.isdigit():
        return int(numerals)
    if len(numerals) > 1 and all(ch in _ZH_DIGITS for ch in numerals):  # 二〇二四: digit by digit
        return int("".join(str(_ZH_DIGITS[ch]) for ch in numerals))
    total = section = digit = 0
    unit = 0  # the place word just before the last digit: 一万二 is 12000, 三千五 3500 (一万零二 is 10002)
    for ch in numerals:
        if ch in _ZH_DIGITS:
            digit, unit = _ZH_DIGITS[ch], unit if digit == 0 and ch not in "零〇" else 0
        elif ch in _ZH_UNITS:
            section += (digit or 1) * _ZH_UNITS[ch]
            digit, unit = 0, _ZH_UNITS[ch]
        elif ch == "万":
            total += (section + digit) * 10_000
            section = digit = 0
            unit = 10_000
    if digit and unit > 10 and numerals[-1] in _ZH_DIGITS:
        digit *= unit // 10
    return total + section + digit


def canonical_scalar(value: object) -> str | None:
    """The typed canonical form of a non-string scalar (number or bool), or None."""
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, int):
        return f"number:{value}"  # every digit: ten significant digits would merge long ids
    if isinstance(value, float):
        return f"number:{_fmt(value)}"
    return None


#: A number and one capital written together (a seat, a row, a network: `14D`, `5G`): a code, though the
#: letter in lower case is a unit (`14d`, `5g`); not a scale (`500M`, `10K`, `2B`, `1T`) nor the litre's L.
_LETTER_CODE = re.compile(r"\d{1,3}(?![KLMBT])[A-Z]")


def _canon_ident(m: re.Match[str]) -> str | None:
    """An identifier mixes letters and digits (A123, ORD-5567); a quantity such as 10km is not one, nor a
    multiplier (`12 元×3`, `x2`: × is read as x)."""
    raw = m.group(0)
    if _MULTIPLIER.fullmatch(raw) and _AMOUNT_BEFORE.search(m.string[max(0, m.start() - 12) : m.start()]):
        return None
    if m.start() and m.string[m.start() - 1] in _CURRENCY_PREFIX:
        return None  # `$5b`: an amount
    if m.start() > 1 and m.string[m.start() - 1] == "." and m.string[m.start() - 2].isdigit():
        return None  # `1.5L`: the decimals of an amount
    if (
        raw[-1:] == "L"
        and raw[:-1].isdigit()
        and _ADDRESS_BEFORE.search(m.string[max(0, m.start() - 12) : m.start()])
    ):
        return f"id:{_alnum(raw)}"  # `Apt 5L`: a flat, not five litres
    if raw.casefold() in _UNITS and re.search(r"\d\s?$", m.string[max(0, m.start() - 2) : m.start()]):
        return None  # `139 m2`: the unit of the number before it
    quantity = _QUANTITY.fullmatch(raw)
    if quantity and _LETTER_CODE.fullmatch(raw):
        return f"id:{_alnum(raw)}"  # `seat 14D`, `5G`: a number and a capital, no days or grams
    if quantity or raw.casefold() in ORDINALS or re.fullmatch(r"\d+(st|nd|rd|th)", raw, re.I):
        return None
    return f"id:{_alnum(raw)}"


def _canon_half(m: re.Match[str]) -> str:
    digit = next((m[g] for g in ("h1", "h3", "h4", "h5", "h6", "h7") if m[g]), None)
    return f"half:{digit or ORDINALS[_fold(m['h2'] or m['h8'])]}"


def _national_phone(raw: str, digits: str) -> bool:
    """Digit groups that are a phone number written without its country: at least 9 digits in three or
    more groups of unequal length (`415-555-0100`, `415 555-0100`, `020 7946 0958`, `138 0013 8000`), or
    two after a trunk 0 (`030 1234567`); dots only as the one separator (`415.555.0100`). Not a range
    (`2020-2024`), a list of numbers or room numbers (`1203 1204 1205`), prices (`12.99 14.99`), dates or
    thousands (`_NOT_PHONE`). Shorter national numbers (`1234 5678`) are read against an international one
    on the other side (the ladder's typed rung)."""
    groups = re.split(r"[\s.-]+", raw)
    separators = {"." if "." in sep else "-" if "-" in sep else " " for sep in re.findall(r"[\s.-]+", raw)}
    if len(digits) < 9 or ("." in separators and len(separators) > 1) or _NOT_PHONE.fullmatch(raw):
        return False
    if len(groups) == 2:
        return groups[0].startswith("0")
    return len({len(g) for g in groups}) > 1


def _canon_phone(m: re.Match[str]) -> str | None:
    """`phone:` and the national number without its trunk 0 (`020 7946 0958` and `+44 20 7946 0958` are
    both phone:2079460958; `(415) 555-0100`, `1-415-555-0100` and `+1 415 555 0100` phone:4155550100).
    The country an international number names (libphonenumber's table, `phonenumberslite`) is one more
    fact, `dial:44`, a soft kind: it differs only from another country code."""
    raw = m.group(0)
    digits = re.sub(r"\D", "", raw)
    if not 7 <= len(digits) <= 15:
        return None
    if not raw.startswith(("+", "(")) and not _national_phone(raw, digits):
        return None
    if not raw.startswith("+"):
        if len(digits) == 11 and re.match(r"1[\s.(-]", raw):  # North America's trunk 1, not 138 0013 8000
            digits = digits[1:]
        return f"phone:{digits.removeprefix('0')}"
    try:
        number = phonenumbers.parse(raw, None)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(number):
        return None
    return f"phone:{number.national_number}|dial:{number.country_code}"


def _canon_quantity(m: re.Match[str]) -> str | None:
    raw = m.group("num").replace(",", "")
    if raw.isdigit() and not (m.group("mult") or m.group("unit") or m.group("cur") or m.group("code")):
        return f"number:{_integer(raw)}"  # an integer alone: every digit
    try:
        number = float(raw)
    except ValueError:
        return None
    mult = _fold(m.group("mult") or "")
    number *= _CURRENCY_MULTIPLIERS.get(mult, 1.0)
    unit_raw = _fold(m.group("cur") or m.group("code") or m.group("unit") or "")
    unit_raw = _DOLLAR_PREFIXES.get(unit_raw, unit_raw)
    if unit_raw:
        unit, factor = _UNITS.get(unit_raw, (unit_raw, 1.0))
        return f"number:{_fmt((number - _OFFSETS.get(unit_raw, 0.0)) * factor)}|{unit}"
    return f"number:{_fmt(number)}"


def _canon_quarter(m: re.Match[str]) -> str:
    q = m.group("q1") or m.group("q4") or m.group("q3") or str(ORDINALS[_fold(m.group("q2"))])
    return f"quarter:{q}"


def _canon_time(m: re.Match[str]) -> str | None:
    if m["oc"]:  # `8 o'clock at night` is 20:00
        hour, part = int(m["oc"]), _fold(m["ocpart"] or m["ocnight"] or "")
        pm = part in ("afternoon", "evening") or (part == "night" and 6 <= hour <= 11)
        return f"time:{hour % 12 + (12 if pm else 0) if part else hour:02d}:00"
    if m["h24"]:
        return f"time:{int(m['h24']):02d}:{m['m24']}"
    if m["hp"]:  # 9 in the morning = 9am, 3 in the afternoon = 3pm, 11 at night = 11pm (1-4 at night: am)
        hour, part = int(m["hp"]), _fold(m["part"] or m["night"])
        if not 1 <= hour <= 12:
            return None
        pm = part in ("afternoon", "evening") or (part == "night" and 6 <= hour <= 11)
        return f"time:{hour % 12 + (12 if pm else 0):02d}:{m['mp'] or '00'}"
    hour = int(m["h"])
    if not 1 <= hour <= 12:
        return None
    return f"time:{hour % 12 + (12 if m['ap'].casefold() == 'p' else 0):02d}:{m['m'] or '00'}"


def _canon_zh_time(m: re.Match[str]) -> str | None:
    quarters = 0 if not m["ke"] else 1 if m["ke"] in "一1" else 3
    hour, minute = int(m["zh"]), 30 if m["half"] else 15 * quarters or int(m["zm"] or m["zm2"] or 0)
    said = m["zm"] or m["zm2"] or m["half"] or m["ke"]
    if hour > 24 or minute > 59 or (not m["zp"] and hour <= 12 and not said):
        return None  # 3点 alone: a time, or 3 points; with its minutes (3点一刻) it is 3:15 as `3:15` is
    if m["zp"] in _ZH_PM and hour < 12:
        hour += 12
    return f"time:{hour % 24:02d}:{minute:02d}"


def _canon_frequency(m: re.Match[str]) -> str:
    if m["w"]:
        return f"frequency:{_FREQUENCY_WORDS[_fold(m['w'])]}"
    return f"frequency:{m['u'].casefold()}"


def _canon_month(m: re.Match[str]) -> str:
    return f"month:{_month_number(m['m'] or m['c'] or m['a'] or m['p'] or m['d'] or m['w'])}"


def _month_number(name: str) -> int:
    """A month's number from its name or abbreviation as matched (`April`, `Sept`, `jan`)."""
    folded = _fold(name)
    return MONTH_NAMES.index(folded) + 1 if folded in MONTH_NAMES else _MONTH_ABBR[folded]


#: What joins the two ends of a range of months: `January to March 2024`, `2024年1月至3月`.
_RANGE_JOIN = re.compile(r"\s*(?:to|through|thru|until|till|-|–|—|~|至|到)\s*", re.IGNORECASE)


def _year_for_months(text: str, found: list[tuple[int, int, str]]) -> None:
    """A year said once for a range of months holds for both ends (`January to March 2024` = `January
    2024 to March 2024` = `2024年1月至3月`); a range that crosses new year takes the year before for its
    start (`December to February 2025`: December 2024). Only a month joined to a month of a year by a
    range word is read so."""
    for i in range(len(found) - 1):
        (s1, e1, c1), (s2, e2, c2) = found[i], found[i + 1]
        (y1, m1), (y2, m2) = _month_of(c1), _month_of(c2)
        if not (m1 and m2) or bool(y1) == bool(y2) or not _RANGE_JOIN.fullmatch(text[e1:s2]):
            continue  # two months, one of them of a year, joined by a range word
        if y2:
            found[i] = (s1, e1, f"date:{int(y2) - (m1 > m2):04d}-{m1:02d}")
        else:
            found[i + 1] = (s2, e2, f"date:{int(y1) + (m2 < m1):04d}-{m2:02d}")


_DAY_SUFFIX = re.compile(r"^(?:日|号|(?:st|nd|rd|th)\b)?,?")


def _year_for_days(text: str, found: list[tuple[int, int, str]]) -> None:
    """A year said once for a range of days holds for both ends: `January 1 through June 30, 2025` is
    `1/1/2025 to 6/30/2025`, as `March 3, 2025 to April 2` is `2025-03-03 to 2025-04-02`; a range that
    crosses new year takes the year before for its start. A day with no year is a month fact and a
    number written together (`January 1`, `7月1日`)."""
    i = 0
    while i < len(found) - 2:
        a, b, c = found[i], found[i + 1], found[i + 2]
        if (
            _month_day(text, a, b)
            and _is_day(c)
            and _RANGE_JOIN.fullmatch(_DAY_SUFFIX.sub("", text[b[1] : c[0]]))
        ):
            month, day = int(a[2][6:]), int(b[2][7:])
            year = int(c[2][5:9]) - ((month, day) > (int(c[2][10:12]), int(c[2][13:15])))
            if valid_day(year, month, day):
                found[i : i + 2] = [(a[0], b[1], f"date:{year:04d}-{month:02d}-{day:02d}")]
        elif (
            _is_day(a)
            and _month_day(text, b, c)
            and _RANGE_JOIN.fullmatch(_DAY_SUFFIX.sub("", text[a[1] : b[0]]))
        ):
            month, day = int(b[2][6:]), int(c[2][7:])
            year = int(a[2][5:9]) + ((month, day) < (int(a[2][10:12]), int(a[2][13:15])))
            if valid_day(year, month, day):
                found[i + 1 : i + 3] = [(b[0], c[1], f"date:{year:04d}-{month:02d}-{day:02d}")]
        i += 1


def _month_day(text: str, month: tuple[int, int, str], day: tuple[int, int, str]) -> bool:
    """A month fact and the number written after it as its day (`January 1`, `7月1`)."""
    return (
        month[2].startswith("month:")
        and day[2].startswith("number:")
        and day[2][7:].isdigit()
        and 1 <= int(day[2][7:]) <= 31
        and not text[month[1] : day[0]].strip()
    )


def _is_day(fact: tuple[int, int, str]) -> bool:
    return fact[2].startswith("date:") and len(fact[2]) == 15


def valid_day(year: int, month: int, day: int) -> bool:
    """Whether there is such a date (no 29 February in 2026)."""
    try:
        datetime(year, month, day)
    except ValueError:
        return False
    return True


_HOURS_JOIN = re.compile(r"\s*(?:and|to|until|till|-|–|—)\s*", re.IGNORECASE)
_BARE_HOUR = re.compile(r"(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?")
_MERIDIEM = re.compile(r"(?i)[ap]\.?m\b")
_RANGE_OPENS = re.compile(r"(?i)\b(?:from|between)\s+$")  # not `Gate 4 – 9:15`, `Table for 2 - 8:30`


def _meridiem_for_ranges(text: str, found: list[tuple[int, int, str]]) -> None:
    """A range of hours says its am / pm once, at its end: `between 1 and 5 PM` is 13:00 to 17:00, as
    `between 1:00 and 5:00 p.m.` is. The start is an hour without a meridiem joined to a time with one.
    On a 24-hour clock the start's bare hour after `from` or `between` is that hour (`from 11 to 11:30`),
    where it is no later than the end and within twelve hours of it."""
    for i in range(len(found) - 1):
        (s1, e1, _), (s2, e2, c2) = found[i], found[i + 1]
        if not c2.startswith("time:"):
            continue
        start = _BARE_HOUR.fullmatch(text[s1:e1].strip())  # `Thursday, 1–5 p.m.`: the number took the space
        if start is None or not _HOURS_JOIN.fullmatch(text[e1:s2]):
            continue
        if not _MERIDIEM.search(text[s2:e2]):
            end, opened = int(c2[5:7]), _RANGE_OPENS.search(text[max(0, s1 - 9) : s1])
            if opened and start["m"] is None and ":" in text[s2:e2] and 0 <= end - int(start["h"]) <= 12:
                found[i] = (s1, e1, f"time:{int(start['h']):02d}:00")
            continue
        if not 1 <= int(start["h"]) <= 12:
            continue
        pm, hour = int(c2[5:7]) >= 12, int(start["h"]) % 12
        if pm and hour + 12 > int(c2[5:7]):
            continue  # `11 to 1 pm`: the start is the morning's
        found[i] = (s1, e1, f"time:{hour + 12 * pm:02d}:{start['m'] or '00'}")


_DURATION_JOIN = re.compile(r"\s*(?:and\s+)?", re.IGNORECASE)


def _durations_summed(text: str, found: list[tuple[int, int, str]]) -> None:
    """A duration said in two units, the larger first (`1 hour 15 minutes`, `2 days and 3 hours`,
    1小时15分钟), is one duration, as `75 minutes` says it — not two in one unit (`60 minutes and 30
    minutes`, `between 9 and 5 days`), nor a smaller unit's count above the larger unit."""
    i = 0
    while i < len(found) - 1:
        (s1, e1, c1), (s2, e2, c2) = found[i], found[i + 1]
        durations = (
            c1.startswith("number:") and c1.endswith("|s") and c2.startswith("number:") and c2.endswith("|s")
        )
        if durations and _DURATION_JOIN.fullmatch(text[e1:s2]):
            larger, smaller = _seconds_per_unit(text[s1:e1]), _seconds_per_unit(text[s2:e2])
            first, second = float(c1[7:-2]), float(c2[7:-2])
            if smaller >= 0 and larger > smaller and second < larger:
                found[i : i + 2] = [(s1, e2, f"number:{_fmt(first + second)}|s")]
                continue
        i += 1


def _seconds_per_unit(duration: str) -> float:
    """The seconds of the unit a duration's text ends with (`15 minutes` → 60): 0 for a word no unit
    names, -1 where no word ends it."""
    unit = _UNIT_WORD.search(duration)
    return _UNITS.get(_fold(unit.group(0)), ("", 0.0))[1] if unit else -1.0


_UNIT_WORD = re.compile(r"[^\W\d_]+\s*$")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_BETWEEN = re.compile(r"(?i)\bbetween\s+$")


def _quarters_of_months(text: str, found: list[tuple[int, int, str]]) -> None:
    """A range of months that is a quarter or a half of a year is that quarter or half (`April to June
    2025` = `Q2 2025`: quarter:2 and the year, number:2025; `January–June` = `H1`); other ranges stay
    months."""
    i = 0
    while i < len(found) - 1:
        (s1, e1, c1), (s2, e2, c2) = found[i], found[i + 1]
        ends = _month_of(c1), _month_of(c2)
        period = _QUARTER_MONTHS.get((ends[0][1], ends[1][1]))
        joined = period is not None and (
            _RANGE_JOIN.fullmatch(text[e1:s2]) or (_AND.fullmatch(text[e1:s2]) and _BETWEEN.search(text[:s1]))
        )
        if period is None or not joined or ends[0][0] != ends[1][0]:
            i += 1
            continue
        found[i : i + 2] = [(s1, e2, period)] + ([(e2, e2, f"number:{ends[0][0]}")] if ends[0][0] else [])
        i += 1


def _month_of(canon: str) -> tuple[str, int]:
    """(year or "", month) of a month fact (`date:2025-04`, `month:4`); (“”, 0) for any other fact."""
    if canon.startswith("month:"):
        return "", int(canon[6:])
    if canon.startswith("date:") and len(canon) == 12:
        return canon[5:9], int(canon[10:12])
    return "", 0


def _canon_month_year(m: re.Match[str]) -> str:
    if m["name"]:
        return f"date:{m['y1']}-{_month_number(m['name']):02d}"
    if m["y4"]:
        return f"date:{m['y4']}-{zh_number(m['m4']):02d}"
    return f"date:{m['y2'] or m['y3']}-{int(m['m2'] or m['m3']):02d}"


#: a date written the ISO way, and nothing else: read without dateutil's tokenizer (what it would give)
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _canon_date(raw: str, day_first: bool) -> str | None:
    if not day_first and _ISO_DAY.fullmatch(raw):  # (day-first, dateutil reads 2025-06-01 as 6 January)
        try:
            return f"date:{date(int(raw[:4]), int(raw[5:7]), int(raw[8:10])).isoformat()}"
        except ValueError:  # no such day, as dateutil finds too
            return None
    default = datetime(1900, 1, 1)
    try:
        parsed = dateparser.parse(raw, default=default, dayfirst=day_first)
    except (ValueError, OverflowError):
        return None
    has_time = bool(re.search(r"\d{1,2}:\d{2}", raw))
    if has_time:
        return f"datetime:{parsed.isoformat()}"
    return f"date:{parsed.date().isoformat()}"


def _fold(word: str) -> str:
    """A matched word as its table key. The patterns match case-insensitively the Unicode way, so
    `Frİday` (dotted capital I) is Friday and `fıve` (dotless i) five (`hints.fold`)."""
    return unaccented(fold(word))


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def _fmt(number: float) -> str:
    """Ten significant digits, written out when that is a whole number (`$16.1 billion` and
    `$16,100,000,000` are both 16100000000). An integer as written keeps all its digits (`_integer`)."""
    rounded = float(f"{number:.10g}")
    if rounded.is_integer() and abs(rounded) < 1e15:
        return str(int(rounded))
    return f"{number:.10g}"


def _integer(digits: str) -> str:
    """An integer as written, every digit kept: `13800138000` and `13800138001` are two numbers (ten
    significant digits would make them one)."""
    return digits.lstrip("0") or "0"


# -- JSON values ----------------------------------------------------------------------------------


def parse_json(text: str) -> Any:
    """`json.loads`, by orjson (several times faster on the hot path); what orjson refuses and the
    standard library reads (NaN, integers past 64 bits, lone surrogates) still reads the same, and the
    standard library's error, with its line and column, is what a caller sees (nesting deeper than the
    interpreter reads is a ValueError too, not RecursionError: an unreadable text). orjson reads integers
    past 64 bits as floats, so a text whose reading holds a float and that has a run of 19 digits goes
    to the standard library. (The float first: that scan of the whole text cost four times orjson's
    parse on the message histories frameworks resend, which hold strings and counts, not floats.)"""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _standard_json(text)
    if _holds_float(value) and _LONG_DIGITS.search(text) is not None:
        return _standard_json(text)
    return value


def _standard_json(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested deeper than can be read") from None


_LONG_DIGITS = re.compile(r"\d{19}")


def _holds_float(value: Any) -> bool:
    """Whether a JSON value (as orjson reads it: exact types) holds a float anywhere. Read a level at a time,
    the types of a level's items taken at once (`map(type, …)`): a long list of numbers or of records
    costs a few passes in C, not a Python step per item."""
    level = [value]
    while level:
        kinds = set(map(type, level))
        if float in kinds:
            return True
        if dict not in kinds and list not in kinds:
            return False
        dicts = [x for x in level if type(x) is dict] if dict in kinds else []
        lists = [x for x in level if type(x) is list] if list in kinds else []
        level = [*chain.from_iterable(map(dict.values, dicts)), *chain.from_iterable(lists)]
    return False


def canonical_json(value: Any) -> bytes | str:
    """Equal values, equal keys: sorted-key JSON (orjson; the standard library for what it refuses, such
    as keys that are not strings). orjson spells NaN and the infinities `null`, so a spelling with a
    `null` in it is made by the standard library, which keeps NaN, Infinity and null apart."""
    try:
        found = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)
        if b"null" not in found:
            return found
    except (TypeError, orjson.JSONEncodeError):
        pass
    return json.dumps(value, sort_keys=True, default=str)
