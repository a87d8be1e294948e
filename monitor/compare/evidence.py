"""Evidence: what a conversation states, and where each value an agent uses came from. Pure.

In: a conversation's turns in order (user messages, tool calls with their results and errors, replies),
its system prompt(s), its date and the declared tool schemas. Out: for each leaf of each call's
arguments its `Provenance` (source and turn), and for each reply the facts and done-claims nothing
supports. docs/streaming.md ("Grounding") is the user's account of the same rules.

What counts as evidence, up to the moment a value is used:
- `user`: every user message before it, as words and as typed facts (`facts`), and what those words mean
  beyond that (`spoken`: "tomorrow", "half past two", "five hundred"); the reply a user's "yes" agreed to;
- `tool_result`: the keys and values of every earlier call that did not fail, and a failed call's error
  message; the result of a call whose own values failed grounding is `tainted` (a value from it is a
  cascade of that call);
- `system`: the system prompt, the configured evidence attributes, the conversation's date;
- `tool_definition`: an `enum`, `const` or `default` of the tool's declared JSON Schema (or, where that
  declares none for the argument, of the same argument of another tool called before);
- `computed`: arithmetic over amounts (`computable`), a date a duration the user or the system prompt
  states from a stated date; in a reply also a result note's rule, a policy's weeks, the days inside a
  range a result gives (`_range_days`);
- `agent`: none of these.
A code an agent builds from words one text says (`celebration_cake_8`, `_composed_parts`) is that text's.

Which values must be grounded (`checked`, `value_kind`): ids and codes, emails, phone numbers, numbers
from 10 up, dates, times, names under a key that says so. Never: free text, counts under ten, booleans,
plain lower-case words. A reply's facts (`_reply_facts`: amounts, numbers, dates, month-and-day, times,
ids, phone numbers; no measures, nothing in a question) need the same evidence or the successful calls'
own arguments, and one nothing states must not be named by words that name a result field giving another
value (`_contradicted`: `resumes on April 5` after `resume_date: 2027-03-05`); its done-claims
(`done_claims`) a successful earlier call of a tool whose verb is that action, and a reply that opens by
saying the work is done (`_COMPLETION`) a call that acted since the user's message. Reading is bounded:
`MAX_DEPTH` of JSON, `MAX_FACT_CHARS` of a string for facts.
"""

from __future__ import annotations

import bisect
import calendar
import copy
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import cache, lru_cache
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from monitor.compare.facts import (
    MONTH_NAMES,
    MONTH_STEMS,
    NUMBER_WORD,
    act_of,
    extract_facts,
    has_cjk,
    is_currency,
    normalize_text,
    sentences,
    valid_day,
    writes_dotted_times,
    zh_number,
)
from monitor.compare.hints import DIGIT, fold, holds_any, unaccented
from monitor.compare.lexicon import Airports, load_airports, load_currencies
from monitor.compare.redaction import masked
from monitor.compare.spoken import (
    WEEKDAY_CODES,
    WEEKDAY_NAMES,
    any_of,
    clock_key,
    day_months,
    digits_of,
    named_days,
    number_words,
    relative_dates,
    spoken_keys,
    weekday_dates,
    weekday_names,
)
from monitor.compare.textcache import short_cached

#: `redacted`: a scrubber or a redaction replaced the value before export (compare/redaction.py): nothing to
#: ground, never checked
Source = Literal["user", "tool_result", "system", "tool_definition", "computed", "agent", "redacted"]
#: What a value is, for whether it must be grounded (module docstring).
Kind = Literal[
    "id", "code", "email", "phone", "number", "date", "time", "name", "count", "free_text", "other"
]
CHECKED_KINDS: frozenset[str] = frozenset({"id", "code", "email", "phone", "number", "date", "time", "name"})

#: Argument names whose value is free text, never required to be grounded (also as the last word of a
#: longer name: `cancel_reason`, `search_query`).
FREE_TEXT_KEYS = frozenset(
    {
        "summary", "message", "messages", "reason", "query", "q", "description", "note", "notes",
        "comment", "comments", "content", "text", "body", "question", "instructions", "title",
        "subject", "prompt", "thought", "thoughts", "explanation", "feedback", "details", "expression",
        "input", "request", "keywords", "search", "topic",
    }
)  # fmt: skip
#: Argument names (or their last word) whose value names a person or a place.
NAME_KEYS = frozenset(
    {
        "name", "first", "last", "firstname", "lastname", "surname", "city", "country", "origin",
        "destination", "airport", "location", "place", "address", "address1", "address2", "street",
        "province", "state", "from", "to",
    }
)  # fmt: skip
#: The last word of a key that lists people (`guests: ["Zoe Hart", "Leila Mansour"]`): a value there that
#: reads as a person's full name (`_FULL_NAME`) is a name; `passenger_type: "Adult"`, `guests: ["Spouse"]`
#: are not
_PEOPLE_KEYS = frozenset(
    {
        "guest", "guests", "attendee", "attendees", "passenger", "passengers", "participant", "participants",
        "traveler", "travelers", "traveller", "travellers", "rider", "riders", "player", "players",
        "student", "students", "recipient", "recipients", "sender", "driver", "drivers", "holder", "patient",
        "occupants", "members",
    }
)  # fmt: skip
_NAME_WORD = r"[A-ZÀ-ÖØ-Þ][^\W\d_]*(?:['’-][^\W\d_]+)*\.?"  # `Zoe`, `O'Neil`, `Smith-Jones`, `J.`
_FULL_NAME = re.compile(rf"{_NAME_WORD}(?:\s+{_NAME_WORD})+|[\u4e00-\u9fff]{{2,4}}")
#: Key words of a phone number: a value of digits under one is a phone (`phone: "+447845612390"`), copied
#: from what someone said, never computed, however it is written
_PHONE_KEY_WORDS = frozenset(
    {"phone", "mobile", "tel", "telephone", "cell", "cellphone", "msisdn", "whatsapp", "fax"}
)
_PHONE_VALUE = re.compile(r"\+?[\d\s().-]+")
#: Key words of an address: its house number and postcode are checked even when it reads as free text
_ADDRESS_KEY_WORDS = frozenset({"address", "address1", "address2", "street", "addr"})
_ADDRESS_NUMBER = re.compile(r"(?<![\w.,-])\d{2,6}(?![\w.,-]?\d)(?![^\W\d_])")  # not `221B` (an id)
#: Key words under which a number is an amount (`computable` combines those).
MONEY_WORDS = frozenset(
    {
        "price", "prices", "amount", "amounts", "cost", "costs", "fee", "fees", "total", "balance", "fare",
        "fares", "refund", "charge", "charges", "paid", "payment", "subtotal", "sum", "tax", "taxes", "credit",
        "debit", "value", "compensation", "daily", "nightly", "weekly", "monthly", "yearly", "annual", "rate",
        "rates", "premium", "premiums", "deposit", "surcharge", "discount", "cents", "salary", "wage",
    }
)  # fmt: skip
#: Key words that say a value identifies something, whatever its shape (`reservation_id`: `HXDUBJ`).
ID_WORDS = frozenset(
    {"id", "ids", "number", "code", "ref", "reference", "sku", "uuid", "pnr", "confirmation"}
)
_WORDS_OF_FREE_TEXT = 5
_SMALL_COUNT = 10


def _is_count(number: float) -> bool:
    """A whole number under `_SMALL_COUNT`: a count (`passengers: 2`), said of too many things to identify one."""
    return number.is_integer() and abs(number) < _SMALL_COUNT


_UPPER_CODE = re.compile(r"[A-Z]{2,10}")
_CLOCK = re.compile(r"(?<![\d:])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d)?(?:\+\d)?(?![\d:])")
#: Words of a user who puts a day next to another (`the day after`, `the next morning`, 次日): with them,
#: a date a day from a stated date is `computed`
_RELATIVE_DAY = re.compile(
    r"(?i)\b(?:(?:next|previous|following|prior) (?:day|morning|afternoon|evening|night)|"
    r"(?:day|morning|night) (?:after|before|earlier|later)|"
    r"(?:one|a|1) day (?:later|earlier|after|before|back|forward))\b|前一天|后一天|第二天|次日"
)
#: a weekday a reply names as the coming one, right before its date (`this Thursday (March 13)`)
_THIS_WEEKDAY = re.compile(
    r"(?i)\b(?:this|coming)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\W{0,3}$"
)
_EARLIER = re.compile(r"(?i)previous|prior|before|earlier|back|前")  # which way `_RELATIVE_DAY` counts
_BESIDE_REACH = 50  # characters before a reply's day read for the words that name it (`the day after …`)
_RELATIVE_DAY_HINT = re.compile(
    r"(?i)day|morning|afternoon|evening|night|前一天|后一天|第二天|次日"
)  # what it needs
#: a weekend said (`the weekend of the 14th`, `am Wochenende`, `fin de semana`, 周末): a Saturday next to a
#: stated Sunday is `computed`, and the other way round
_WEEKEND = re.compile(
    r"(?i)\b(?:weekends?|week-ends?|wochenende|fin de semana|fine settimana|fim de semana)\b|周末|週末|주말"
)
_WEEKEND_STEMS = ("week", "wochenende", "semana", "settimana", "周末", "週末", "주말")
#: after a policy's duration, or at its end: the duration runs back from the date (`3 business days before
#: the event`)
_BEFORE = re.compile(r"(?i)\s*(?:before|prior|in\s+advance|ahead)\b")
_DURATION_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "a": 1, "an": 1,
}  # fmt: skip
_DURATION_UNITS = ("day", "night", "week", "hour", "hr")


def _count_said(word: str) -> int:
    """A count as said, in figures or in words (`3`, `three`: `_DURATION_WORDS`)."""
    return int(word) if word.isdigit() else _DURATION_WORDS[fold(word)]


# `_DURATION` and `_POLICY_DURATION` need one
_DURATION = re.compile(
    r"(?i)\b(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|an?)[\s-]+"
    r"(?:(?:more|extra|additional|further)\s+)?"  # `one more night`, `two extra days`: a stay made longer
    r"(?:(?P<work>working|business)\s+|calendar\s+)?(?P<unit>days?|nights?|weeks?)\b"
    r"|\b(?P<h>\d{2,3})[\s-]*(?:hours?|hrs?)\b"
)
#: A policy's duration between two dates (`2 days after the request`, `30 or more days before arrival`,
#: `14 days or more before`, `within 21 days of the issue date`, `on the shelf for 7 days`, `unsold after
#: 30 days`, a stay of `at least 2 nights`) — not a frequency or an opening time (`open 7 days a week`,
#: `24 hours a day`, `once a day`).
_POLICY_DURATION = re.compile(
    r"(?i)\b(?:(?P<lo>\d{1,2})\s*[–-]\s*)?"  # a range's first number: `6–8 weeks before the wedding`
    r"(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)(?:\s+or\s+more)?[\s-]+"
    r"(?:(?P<work>working|business)\s+|calendar\s+)?(?P<unit>days?|weeks?)\s+(?:or\s+more\s+)?"
    r"(?:after|before|of|from|prior|later|in\s+advance|ahead)\b"
    r"|\b(?:within|for|up\s+to|at\s+least|after)\s+(?P<n2>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)"
    r"[\s-]+(?:(?P<work2>working|business)\s+|calendar\s+)?(?P<unit2>days?|nights?|weeks?)\b"
    r"(?!\s+(?:a|per|each|every)\s+(?:day|week|month|year)\b)"
    r"|\b(?P<h>\d{2,3})[\s-]*(?:hours?|hrs?)\s+(?:after|before|prior|later|in\s+advance|ahead|from|of)\b"
    r"|\b(?:within|for|up\s+to|at\s+least)\s+(?P<h2>\d{2,3})[\s-]*(?:hours?|hrs?)\b"
    r"(?!\s+(?:a|per|each|every)\s+(?:day|week|month|year)\b)"
)
_OR_MORE = re.compile(r"(?i)\bor\s+more\b")
#: `more than` right before a policy's days (`cancel more than 14 days before arrival`)
_MORE_THAN = re.compile(r"(?i)\b(?:more|longer)\s+than\s+$")
_MORE_THAN_REACH = 14
#: working days said with or without a preposition, as a figure or a range's bounds (`Express (3 working
#: days)`, `1-3 business days to metro areas`, `within 5 to 7 business days`): a span between dates, never
#: a frequency (not `5 working days a week`)
_WORKING_DURATION = re.compile(
    r"(?i)\b(?:(?:between\s+)?(?P<lo>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\s*(?:[–-]|to|and)\s*)?"
    r"(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
    r"[\s-]+(?:working|business)[\s-]+days?\b(?!\s*(?:/|a\s|per\s|each\s|every\s)\s*(?:week|month|year)\b)"
)
#: hours put whole days between dates from this many: 24 hours is a day, but a one-day offset from every
#: `cancel up to 24 hours before` would put most slips of a date by a day next to a stated one
_MIN_HOURS_OFFSET = 48
_MAX_OFFSET = 31
#: a day of the month said by its ordinal with no month after it (`the 26th`, `23rd to 26th`)
_BARE_ORDINAL = re.compile(
    r"(?i)(?<![\w/.:-])(\d{1,2})(?:st|nd|rd|th)\b(?!\s*(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))"
    r"(?!\s+(?!(?:to|and|or|then|please|at|through|till|until|works?|is|would|if|instead)\b)[^\W\d_])"
)
_MAX_POLICY_WEEKS = 12  # a policy's `6–8 weeks before the wedding`: weeks it may put between dates
_MAX_NOTE = 300  # a tool result's string read for a rule (`Payout is sent 5 working days after …`)
_KEY_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*|\d+")


@dataclass(frozen=True)
class Provenance:
    """Where one leaf value of a call's arguments came from."""

    path: str  # `flights[0].flight_number`
    value: Any
    kind: Kind
    source: Source
    turn: int | None = None  # the turn whose message or result states it
    checked: bool = False  # identifying or typed: an `agent` source is a failure (or uncertain)
    tainted_by: int | None = None  # stated only by the result of this turn, whose call was ungrounded

    @property
    def grounded(self) -> bool:
        return self.source != "agent" and self.tainted_by is None

    def as_report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "kind": self.kind}
        if self.checked:
            out["checked"] = True
        if self.turn is not None:
            out["turn"] = self.turn
        if self.tainted_by is not None:
            out["tainted_by"] = self.tainted_by
        return out


@dataclass(frozen=True)
class Claim:
    """A fact or a done-claim in a reply that the evidence does not support."""

    what: Literal["fact", "done"]
    text: str  # the fact as the reply says it, or the claiming sentence
    detail: str
    tainted_by: int | None = None  # supported only by the result of this (ungrounded) turn
    #: a fact grounding does not fail (`only_uncertain`: a number or a date with no look-alike stated, a
    #: time; a reading that is no identifier, `_NO_IDENTIFIER`): reported uncertain, for review
    unsure: bool = False
    #: a fact's kind (`number`, `date`, `md`, `time`, `id`, `phone`, `digits`; `reading`: `_NO_IDENTIFIER`)
    kind: str = ""


@dataclass(frozen=True)
class _Done:
    """A call that succeeded, with the strings of its arguments and result (walked once, when added)."""

    turn: int
    tool: str
    result: Any
    arg_strings: tuple[str, ...]  # the strings among the arguments' leaves
    result_strings: tuple[str, ...]  # the result's keys and strings (`_result_leaves`)
    args: Any = None


@dataclass(frozen=True)
class _Unreported:
    """A call that acts and did not do it: its turn, tool, arguments, and why (`it failed ('…')`)."""

    turn: int
    tool: str
    args: Any
    why: str


@dataclass
class _Field:
    """The values a key of the successful calls' results gives (`damage_deposit_gbp: 150`), as they compare with
    a reply's facts (`_comparable`: `("money", 150.0)`, `("day", "03-05")`, `("time", "12:00")`)."""

    key: str
    stems: frozenset[str]  # of its words but the generic ones and the qualifiers: each must be said
    currency: str  # what its amounts are in (`gbp` of `fee_gbp`, of `£35`), "" when it does not say
    said: set[tuple[str, Any]] = field(default_factory=set)
    turn: int = 0  # the latest result that gave it, and its value there (for the failure's detail)
    value: Any = None
    looked_up: bool = True  # only lookups gave it (a later call that acts may have changed it)


@dataclass
class _Slips:
    """Words (ids, codes) indexed by their one-character deletions, so that the words one slip from a word
    (`_one_slip`) are found without comparing it with every word: a changed, added, dropped or swapped
    character leaves the two a deletion in common."""

    by_deletion: dict[str, list[str]] = field(default_factory=dict)
    words: set[str] = field(default_factory=set)

    def add(self, word: str) -> None:
        if word in self.words:
            return
        self.words.add(word)
        for variant in {word, *_deletions(word)}:
            self.by_deletion.setdefault(variant, []).append(word)

    def near(self, mine: str) -> str | None:
        """The first word (in sorted order) one slip from `mine`, both of `_SLIP_ID_CHARS` characters or more."""
        candidates = {o for v in {mine, *_deletions(mine)} for o in self.by_deletion.get(v, ())}
        return next((o for o in sorted(candidates) if _one_slip(mine, o, _SLIP_ID_CHARS)), None)


def _deletions(text: str) -> list[str]:
    return [text[:i] + text[i + 1 :] for i in range(len(text))]


#: what `_Sources.holding` puts between two texts it joins
_GAP = "\x00"
#: hits after which `_Sources.holding` tests each text left, when a third of the texts so far held the needle
_DENSE_HITS = 32
#: as many texts as `_Sources.holding` tests each of rather than join (a short conversation's evidence)
_FEW_TEXTS = 24


@dataclass
class _Join:
    """Texts joined (`_GAP` before each) and the start of each in the join: what `_Sources.holding` searches."""

    text: str = ""
    starts: list[int] = field(default_factory=list)

    def grow(
        self, texts: Sequence[tuple[Source, int | None, str]], form: Callable[[str], str] | None
    ) -> None:
        """The texts added since it was last grown joined too (each in `form`, when given)."""
        new = texts[len(self.starts) :]
        if not new:
            return
        parts = [text for _, _, text in new] if form is None else [form(text) for _, _, text in new]
        at = len(self.text)
        starts = self.starts
        for part in parts:
            starts.append(at + 1)
            at += 1 + len(part)
        self.text += _GAP + _GAP.join(parts)


@dataclass
class _Sources:
    """Everything stated so far, indexed for look-up: normalized texts, typed facts, numbers."""

    texts: list[tuple[Source, int | None, str]] = field(default_factory=list)  # padded normalized
    facts: dict[str, list[tuple[Source, int | None]]] = field(default_factory=dict)
    numbers: dict[float, list[tuple[Source, int | None]]] = field(default_factory=dict)
    operands: set[float] = field(default_factory=set)  # amounts arithmetic may combine (`computable`)
    #: the users' and the system's texts squashed (`squash`): ids dictated with spaces or digit words
    squashed: list[tuple[Source, int | None, str]] = field(default_factory=list)
    percents: set[float] = field(default_factory=set)  # percentages stated (`10%`, `百分之五`)
    runs: list[tuple[int | None, list[float]]] = field(
        default_factory=list
    )  # numbers of one result, in order
    #: the texts as written, for an id's written form (`as_written`)
    raw: list[str] = field(default_factory=list)
    #: the ids stated (`id:` facts, without the prefix), in order, and those of them indexed for `id_slip`
    #: (how many: grown when a slip is first asked for)
    ids: list[str] = field(default_factory=list)
    slips: _Slips = field(default_factory=_Slips)
    slips_read: int = 0
    #: `texts` joined for `holding`, as they are and in their `_unaccented` forms
    joined: _Join = field(default_factory=_Join)
    plain_joined: _Join = field(default_factory=_Join)

    def holding(self, needle: str, plain: bool = False) -> list[int]:
        """The indices into `texts` of the texts that contain `needle` (of their `_unaccented` forms when
        `plain`), in order: one search of the texts joined, not a test of each — a conversation's evidence
        is thousands of result strings, and each argument value is looked for in them several ways. A hit
        of a needle without `_GAP` crosses no gap, so it lies in the one text its start is in."""
        if not needle or _GAP in needle or len(self.texts) <= _FEW_TEXTS:  # "" is in every text; a needle
            return self._testing(needle, plain, 0)  # with the gap, or a few texts: by a test of each
        join = self.plain_joined if plain else self.joined
        join.grow(self.texts, _unaccented if plain else None)
        starts = join.starts
        find, after, last = join.text.find, bisect.bisect_right, len(starts) - 1
        out: list[int] = []
        at = find(needle)
        while at >= 0:
            k = after(starts, at) - 1
            out.append(k)
            if k == last:
                break
            # held by most texts (each flight's `available`): a test of each costs less than a search each
            if len(out) >= _DENSE_HITS and 3 * len(out) > k:
                return out + self._testing(needle, plain, k + 1)
            at = find(needle, starts[k + 1])  # on from the next text
        return out

    def _testing(self, needle: str, plain: bool, first: int) -> list[int]:
        """`holding` by a test of each text from `first` on."""
        texts = self.texts
        if plain:
            return [k for k in range(first, len(texts)) if needle in _unaccented(texts[k][2])]
        return [k for k in range(first, len(texts)) if needle in texts[k][2]]

    def add_text(self, source: Source, turn: int | None, text: str) -> None:
        self.raw.append(text)
        norm = normalize_text(text)
        if norm:
            self.texts.append((source, turn, f" {norm} "))
        if source in ("user", "system") and len(text) <= MAX_FACT_CHARS:
            self.squashed.append((source, turn, squash(text)))
        if ("x" in text or "×" in text or "*" in text or "X" in text) and _SIZE_HINT.search(text):
            # `90×54`, `10x10`: the size a tool takes as `90x54mm`
            for d in _DIMENSIONS.finditer(text[:MAX_FACT_CHARS]):
                self.add_fact(_size_key(d), source, turn)
        for canon in _fact_keys(text):
            self.add_fact(canon, source, turn)

    def add_number(self, source: Source, turn: int | None, number: float, operand: bool = True) -> None:
        self.numbers.setdefault(_round(number), []).append((source, turn))
        if operand:
            self.operands.add(_round(number))

    def add_fact(self, canon: str, source: Source, turn: int | None) -> None:
        percent, md, number = _fact_parts(canon)
        if canon.startswith("id:") and canon not in self.facts:
            self.ids.append(canon[3:])
        self.facts.setdefault(canon, []).append((source, turn))
        if percent is not None:
            self.percents.add(percent)
        if md is not None:
            self.facts.setdefault(md, []).append((source, turn))
        if number is not None:  # (rounded already: `_round` of it is itself)
            self.add_number(source, turn, number)

    def copy(self) -> _Sources:
        """A copy that grows apart from this one (`Evidence`'s prompt template): every field through `_own`,
        but `facts` and `numbers`, the large ones, copied flat (lists of immutable `(source, turn)`)."""
        flat = ("facts", "numbers")
        copied: dict[str, Any] = {
            f.name: {k: list(v) for k, v in getattr(self, f.name).items()} if f.name in flat
            else _own(getattr(self, f.name))
            for f in fields(self)
        }  # fmt: skip
        return _Sources(**copied)

    def id_slip(self, mine: str) -> str | None:
        """A stated id one slip from `mine` (`_Slips`)."""
        for other in self.ids[self.slips_read :]:
            self.slips.add(other)
        self.slips_read = len(self.ids)
        return self.slips.near(mine)

    def as_written(self, canon: str) -> str:
        """An id's fact (`bk54898`) as a text wrote it (`BK-54898`, `CA 1837`), for a failure's detail: the
        latest text that states it, read as facts are (`extract_facts`: its reading is cached)."""
        tail = canon[-3:]  # in every text that states it, however separated and cased
        for text in reversed(self.raw):
            if tail not in text.casefold():
                continue
            for key, original in extract_facts(text[:MAX_FACT_CHARS], False).spans:
                if key == f"id:{canon}":
                    return original.strip()
        return canon


#: how many system prompts (with a date) `_prompted` keeps read: an agent's per day, for a few dozen agents
PROMPTS_KEPT = 64


@lru_cache(maxsize=PROMPTS_KEPT)
def _prompted(today: str | None, system: tuple[str, ...]) -> Evidence:
    """An `Evidence` with nothing but its system prompt and date read: the template every conversation with
    that prompt and date starts from (`Evidence.__init__` copies it: the template itself never grows)."""
    template = Evidence.__new__(Evidence)
    template._start(system, today)
    return template


#: values `_own` shares as they are: nothing can change them
_IMMUTABLE = (str, bytes, int, float, type(None), frozenset, date, tzinfo)
_EMPTIED = (dict, list, set)


def _own(value: Any) -> Any:
    """`value` as a field of a new `Evidence`: copied as deep as it holds anything that can change, so that
    the template's stays as it is; immutable values shared. (A set holds hashable, immutable items.) A type
    not named here — a subclass of a container, a dataclass that `replace` would not copy exactly, a field
    added later — is deep-copied."""
    if isinstance(value, _IMMUTABLE):
        return value
    kind = type(value)
    if kind in _EMPTIED and not value:  # most fields are still empty
        return kind()
    if kind is dict:
        return {key: _own(item) for key, item in value.items()}
    if kind is list:
        return [_own(item) for item in value]
    if kind is set:
        return set(value)
    if kind is tuple:
        return value if all(isinstance(x, _IMMUTABLE) for x in value) else tuple(_own(x) for x in value)
    if kind is _Sources:
        return value.copy()
    if is_dataclass(kind) and _copied_by_fields(kind):
        return replace(value, **{f.name: _own(getattr(value, f.name)) for f in fields(value)})
    return copy.deepcopy(value)


@cache
def _copied_by_fields(kind: type) -> bool:
    """A dataclass that `replace` copies exactly: every field set by `__init__`, no `__post_init__` to run
    again, nothing but fields among its declarations (no init-only variable, no class variable)."""
    declared = fields(kind)
    return (
        all(f.init for f in declared)
        and not hasattr(kind, "__post_init__")
        and len(declared) == len(kind.__dataclass_fields__)  # type: ignore[attr-defined]
    )


class Evidence:
    """The evidence of one conversation, grown turn by turn in order (`add_user`, `add_result`), asked
    where a value came from (`provenance`) and whether a reply's facts are supported (`unsupported`)."""

    def __init__(
        self,
        system: Iterable[str] = (),
        schemas: Mapping[str, Any] | None = None,
        airports: Airports | None = None,
        today: str | None = None,
    ) -> None:
        # what the system prompt and the date give is read once per prompt (`_prompted`), not per
        # conversation: an agent's prompt is the same in all of its conversations, and often long (with
        # none, there is nothing to reuse: a fresh start is cheaper than a copy)
        prompt = tuple(system)
        if prompt:
            self.__dict__.update(
                {name: _own(value) for name, value in vars(_prompted(today, prompt)).items()}
            )
        else:
            self._start(prompt, today)
        self._schemas = dict(schemas or {})
        self._airports = airports if airports is not None else load_airports()

    def _start(self, system: Sequence[str], today: str | None) -> None:
        """Every field, grown from the system prompt and the date alone (`_prompted`)."""
        self._sources = _Sources()
        self._today = today  # the conversation's date (ISO): what `tomorrow` and `Sunday` count from
        if today:
            self._sources.add_text("system", None, today)
        self._tainted: set[int] = set()
        #: per tainted turn, its values no evidence stated and the tainted turns its other failing values came from
        self._invented: dict[int, tuple[tuple[str, ...], tuple[int, ...]]] = {}
        #: the user's own messages, normalized and padded (not the proposals a user confirmed: `_adopted`)
        self._user_said: list[str] = []
        self._done: list[_Done] = []  # calls that succeeded
        self._failed: list[tuple[int, str]] = []  # the calls that failed: turn, tool
        #: the calls that act and did not do it (failed, or a status that says so: `_status_undone`) since the
        #: latest user message or reply, with their arguments and what they said: what the next reply must
        #: not pass over (`_unreported_failure`)
        self._unreported: list[_Unreported] = []
        self._places: list[str] = []  # results' addresses, squashed: the ids in them are places (`LS1 2JZ`)
        self._last_user = 0  # the turn of the latest user message
        self._last_user_text = ""  # and its text
        self._arguments = _Sources()  # what successful calls used: evidence for replies only
        self._offsets: set[int] = set()  # days the user put between dates (`the day after`, `3 nights`)
        #: a policy's weeks past `_MAX_OFFSET` days (`first fitting 6–8 weeks before the wedding`): what a
        #: reply may count (`between Saturday, August 29 and …`), not a call (a wedding's date is no fitting's)
        self._long_offsets: set[int] = set()  # signed: -42 is 42 days before a stated date
        self._reply_working: set[int] = set()  # working days a result's note puts between dates (signed)
        #: the days strictly inside a range a result gives (`check_in`/`check_out`): a reply's mornings of a
        #: stay are computed from it (and so still contradicted by a field the words name)
        self._inside: set[date] = set()
        #: working days said between dates, signed: a policy's from its direction (`ready 2 working days
        #: after drop-off`: 2, `at least 3 business days before`: -3), a user's both ways
        self._working: set[int] = set()
        #: working days a policy or a result's note says in any form (`Express (3 working days)`, `refunds
        #: in 5 to 7 business days`, `_WORKING_DURATION`), signed: they count for a reply's date only when
        #: that reply says them too (`takes 1–3 business days, so expect it between Monday 13 and Wednesday
        #: 15 October`), as a policy's refund time would otherwise put every date a week on from any
        #: stated one next to it
        self._said_working: set[int] = set()
        self._weekend = False  # a user said a weekend: its Saturday and Sunday are each other's
        #: the mornings after the nights a user named by their day (`Friday and Saturday night`, `is Saturday a
        #: good night?`, `a room tonight`): a stay's or a rental's end then is worked out (`check_out`,
        #: `return_date`), as `YYYY-MM-DD`
        self._mornings: set[str] = set()
        #: the Mondays of the weeks a user named as a whole (`any day next week`), with the turn: each day of
        #: them is the user's. Not facts: a reply's date near one is no slip of it (`spoken`)
        self._weeks: dict[date, int] = {}
        self._week_lists: set[str] = set()  # the lists of the call being asked about that hold such a week
        self._window = False  # the call being asked about searches a window (`_LOWER_WORDS`, `_UPPER_WORDS`)
        #: the weekdays results give as values (`"day": "Wednesday"`, `"środa"`, `"WED"`): what a class, a
        #: round or a route runs on each week (`_weekly_day`)
        self._class_days: set[int] = set()
        #: the system prompt's days of each month (`billed on the 1st of each month`: (0, 1); `dispatched on
        #: the second Tuesday of the month`: (2, 1) — nth, weekday), with the words of the sentence that says
        #: what happens then (`billed`): a reply's day that is one, beside one of them (`_monthly_day`)
        self._monthly: list[tuple[int, int, frozenset[str]]] = []
        #: the weekdays and the days of the year (`MM-DD`) the system prompt says the business is closed
        #: (`closed Sunday and Monday`, `Closed on Thanksgiving Day (Thursday, November 27, 2025)`): the
        #: open day next to a stated closed one is where an agent moves a request (`_beside_closed`)
        self._closed_weekdays: set[int] = set()
        self._closed_days: set[str] = set()
        #: the days (`MM-DD`) strictly inside a range of written dates the system prompt gives (`no lessons in
        #: half-term week (27 October - 2 November)`): a reply's day among them that its sentence says there is
        #: nothing on is the prompt's (`no lesson on 1 November because of half-term`), not one it booked
        self._closed_range: set[str] = set()
        #: the numbers said plainly (`_spoken`) as read so far, and the replies whose numbers are not read yet
        self._spoken_read: set[float] = set()
        self._unread_replies: list[str] = []
        self._reply_numbers: set[float] | None = None  # `_reply`, once read
        #: the facts an earlier reply worked out and grounding followed (`Razem 1 392 zł` from its parts):
        #: a later reply that repeats one without its parts is supported
        self._worked_out: set[str] = set()
        #: the ends of the ids successful calls give (`dc-c14`: `dc-c14`, `c14`, `14`), read when a reply's
        #: range first needs them (`_ends_stated`), and how many calls they hold
        self._id_ends: set[str] = set()
        self._ends_read = 0
        #: the days the reply being checked has grounded so far (`md:` keys): a later day of it may count from
        #: one (`drop-off this Thursday (March 13) … ready by Wednesday, March 19`, 4 business days on)
        self._reply_days: set[str] = set()
        #: and its days with the time of day said right after them: (`MM-DD`, `HH:MM`), read when needed
        self._reply_facts: tuple[tuple[str, str], ...] = ()
        self._reply_pairs: set[tuple[str, str]] | None = None
        #: and its days and times that are a length of time from a call's date-and-time (`_lengths_apart`)
        self._reply_lengths: set[tuple[str, str]] | None = None
        self._reply_weekdays: list[tuple[str, int, int, int, int | None]] | None = None  # `weekday_dates`
        #: the working days each of its sentences says, by the days it states (`_working_days_by_day`)
        self._reply_working_said: dict[str, set[int]] | None = None
        self._reply_text = ""  # and its text: the amounts it says in a currency, read when a sum needs them
        self._answering = False  # the user's latest message answers a question of the agent's latest reply
        self._asked: tuple[Any, list[tuple[str, str, Any]]] | None = None  # the last `provenance`'s leaves
        #: the zones the system prompt tells the agent to give times in, by name or offset (`times are
        #: Europe/London`, `UTC+1`): a result's `2025-04-10T13:15:00Z` is also their wall clock (`_local_keys`)
        self._tzs: list[tzinfo] = []
        offsets: set[int] = set()
        #: what the user and the system said, as said: read for lengths of time when a reply needs them
        self._said: list[tuple[str, bool]] = []  # (text, whether the system said it)
        #: lengths of time said (`90 minutes`, `2 hours`, a policy's `24 hours before`) or in calls
        #: (`duration_min: 90`, `hours: 2`), in minutes, and the calls' date-and-times
        #: (`2025-03-13T16:30:00+01:00` as (date, HH:MM)): what puts a range's end after its start, a
        #: deadline before a start. Read from `_said` and `_done` when a reply first needs them (`_timing`)
        self._durations: set[int] = set()
        #: the system prompt's deadlines at a time of day some days before a date (`before 17:00 the day
        #: before the tour`, `until 15:00 two days (48 hours) before the arrival date`): (`HH:MM`, days)
        self._policy_deadlines: set[tuple[str, int]] = set()
        self._datetimes: set[tuple[str, str]] = set()
        self._read: tuple[int, int] = (0, 0)  # how much of `_said` and of `_done` they hold
        #: the codes the conversation states in capitals (`JFK`), read from `_said` and `_done` when a code's
        #: look-alike is first asked for, and how much of each they hold
        self._codes = _Slips()
        self._codes_read: tuple[int, int] = (0, 0)
        #: the successful calls' results as named values (`deposit_gbp: 150`), by the stems of their keys'
        #: words (`_named_fields`): what a reply's value beside those words must be one of
        self._fields: dict[str, dict[str, _Field]] = {}
        self._fields_read = 0  # how many of `_done` they hold
        for text in system:  # the system prompt's numbers are said plainly too (a flat fee of $4.95),
            # and its durations put days between dates (`ready 2 days after the request`, `paid within
            # 21 days of the issue date`, `on the shelf for 7 days`)
            self._sources.add_text("system", None, text)
            self._speak(text)
            self._add_offsets(text, counting_first=False)
            offsets |= _utc_offsets(text)
            self._monthly += _monthly_rules(text)
            self._policy_deadlines |= _policy_deadlines(text)
            weekdays, days = _closures(text)
            self._closed_weekdays |= weekdays
            self._closed_days |= days
            # `closed 24-27 December`: the days inside, for a reply that says there is nothing on one
            self._closed_range |= {key[-5:] for key in _days_between(text, today, relative=False)}
            self._tzs += _zones_named(text)
            self._said.append((text, True))
        self._tzs += [timezone(timedelta(minutes=m)) for m in sorted(offsets)]

    @property
    def _year(self) -> str:
        """The conversation's year: what a day said with none is in (`md:` keys, `_day_of`)."""
        return (self._today or "2000")[:4]

    @property
    def _spoken(self) -> set[float]:
        """Numbers said plainly — by the user, an error message, a calculator, the agent's earlier replies:
        what arithmetic may combine (a big tool result's numbers would make any sum possible). The
        replies' numbers are read when first asked for: a reply's whole text is read again for them
        (`_reply_facts` reads what it tells, not what it asks), and few conversations ever ask."""
        if self._unread_replies:
            for reply in self._unread_replies:
                self._spoken_read.update(_numbers(reply))
            self._unread_replies = []
        return self._spoken_read

    @property
    def _reply(self) -> set[float]:
        """Every number the reply being checked says, measures too: the parts of its sums (read when asked)."""
        if self._reply_numbers is None:
            self._reply_numbers = set(_numbers(self._reply_text))
        return self._reply_numbers

    # -- growing ---------------------------------------------------------------------------------

    def add_user(self, turn: int, text: str) -> None:
        self._last_user = turn
        self._unreported = []
        self._last_user_text = text[:MAX_FACT_CHARS]
        # what the agent said last asked something (`Shall I book it?`, `Which would you prefer?`): this answers
        self._answering = "?" in self._reply_text or "？" in self._reply_text
        self._sources.add_text("user", turn, text)
        self._user_said.append(f" {normalize_text(text)} ")
        spoken = spoken_keys(text, self._today)  # `tomorrow`, `half past two`, `five hundred`
        for key in spoken:
            self._sources.add_fact(key, "user", turn)
        if _RELATIVE_DAY_HINT.search(text) and _RELATIVE_DAY.search(text):
            self._offsets.add(1)
        if holds_any(fold(text), _NIGHT_STEMS):
            self._mornings |= _mornings_after(text, self._today)
        if holds_any(fold(text), _WEEKEND_STEMS) and _WEEKEND.search(text):
            self._weekend = True
        self._add_offsets(text, counting_first=True)
        self._said.append((text, False))
        keys = _fact_keys(text)
        for key in _whole_months(text, keys, self._today):  # `the November pass`: November 1st to 30th
            self._sources.add_fact(key, "user", turn)
        for key in _days_between(text, self._today):  # `Monday to Wednesday`: the Tuesday too
            self._sources.add_fact(key, "user", turn)
        for key in self._ordinal_days(text):  # `23rd to 26th then`, after `the 23rd to the 25th of December`
            self._sources.add_fact(key, "user", turn)
        for monday in _weeks_named(text, self._today):  # `any day next week`: a search's `date_to`
            self._weeks.setdefault(monday, turn)
        self._say((*keys, *spoken))  # the dates `today` adds are no numbers

    def _ordinal_days(self, text: str) -> list[str]:
        """A day of the month a user says by its ordinal alone (`the 26th`, `23rd to 26th then`; not `my 3rd
        order`, `the 2nd floor`: `_BARE_ORDINAL`), as that day of each month the user has named a day of
        (`spoken_keys` gives the coming one): `md:` keys."""
        if not DIGIT.search(text):
            return []
        days = [int(m[1]) for m in _BARE_ORDINAL.finditer(text[:MAX_FACT_CHARS]) if 1 <= int(m[1]) <= 31]
        if not days:
            return []
        months = {
            key[3:5]
            for key, found in self._sources.facts.items()
            if key.startswith("md:") and any(source == "user" for source, _ in found)
        }
        return [f"md:{month}-{day:02d}" for month in sorted(months) for day in days]

    def _add_offsets(self, text: str, counting_first: bool, replies_only: bool = False) -> None:
        """The days a duration said here puts between two dates (`3 nights`, `2 weeks`, `48 hours`; a user's
        in days also one less, counting the first day: `5 days` from the 3rd to the 7th). A policy's (the system prompt's
        `within 21 days of the issue date`, `_POLICY_DURATION`: not `open 7 days a week`) is exact: with
        the weekdays' two readings, one less too would put most dates of a month near a stated one. A
        policy's range of weeks (`6–8 weeks before the wedding`) gives every week of it, past `_MAX_OFFSET`
        days in its own direction and for replies only (`_long_offsets`); so does every rule of
        `replies_only` text (a tool result's note: `Payout is sent 5 working days after the festival ends`)."""
        if not holds_any(fold(text), _DURATION_UNITS):
            return
        if not counting_first:  # a policy's working days, whatever word comes before them
            self._said_working |= _working_days_said(text)
        for m in (_DURATION if counting_first else _POLICY_DURATION).finditer(text):
            hours = m["h"] or m.groupdict().get("h2")
            before = bool(_BEFORE.match(text, m.end()) or _BEFORE.search(m.group(0)))
            if not before and _OR_MORE.search(m.group(0)):
                continue  # `hires of 7 days or more from …`: a length, no time between dates
            if hours:  # `48 hours`, `at least 72 hours before`: whole days, exactly (no first day counted)
                if int(hours) % 24 == 0 and _MIN_HOURS_OFFSET <= int(hours) <= 24 * _MAX_OFFSET:
                    days = int(hours) // 24
                    if replies_only:
                        self._long_offsets.add(-days if before else days)
                    else:
                        self._offsets.add(days)
                continue
            said, unit = m["n"] or m["n2"], m["unit"] or m["unit2"]
            n = _count_said(said)
            if (m["work"] or m.groupdict().get("work2")) and unit.lower().startswith("day"):
                if 0 < n <= _MAX_OFFSET:  # `2 working days`: Monday to Friday
                    working = self._reply_working if replies_only else self._working
                    working |= {n, -n} if counting_first else {-n if before else n}
                continue
            weeks = unit.lower().startswith("week")
            if counting_first:
                n *= 7 if weeks else 1
                if 0 < n <= _MAX_OFFSET:
                    self._offsets |= {n, n - 1} - {0}
                continue
            lo = int(m.groupdict().get("lo") or n)
            # `more than 14 days before arrival`: the last day that is, 15 days before, too
            beyond = not weeks and _MORE_THAN.search(text, max(0, m.start() - _MORE_THAN_REACH), m.start())
            for k in range(lo, n + 1) if weeks and lo < n else {lo, n} | ({n + 1} if beyond else set()):
                days = k * 7 if weeks else k
                if not 0 < days <= (_MAX_POLICY_WEEKS * 7 if weeks else _MAX_OFFSET):
                    continue
                if replies_only or days > _MAX_OFFSET:
                    self._long_offsets.add(-days if before else days)
                else:
                    self._offsets.add(days)

    def add_confirmed(self, turn: int, proposal: str) -> None:
        """The user agreed (`yes friday`) to what the agent's last reply proposed (`Friday, April 4
        instead?`): its values are the user's from this turn on — but a value only the result of a call that
        used an ungrounded value gave stays that call's (`I found flight AF1680 to LHR` — `ok`: the booking of
        AF1680 still consumes the invented search), so it is left out of what the user is taken to have said."""
        if self._tainted:
            for canon, original in extract_facts(proposal[:MAX_FACT_CHARS]).spans:
                found = self._fact_source(canon, original)
                if (
                    original.strip()
                    and found is not None
                    and found[1] is not None
                    and not self._adopted(found[1])
                ):
                    proposal = proposal.replace(original, " ")
        self._sources.add_text("user", turn, proposal)
        # `returning Sunday by noon?` — `Yes`: that Sunday; a weekday with its date is that date only (not
        # every Wednesday for `Wednesday, September 10`)
        unpaired = proposal
        for written, *_ in weekday_dates(proposal[:MAX_FACT_CHARS]):
            unpaired = unpaired.replace(written, " ")
        for key in spoken_keys(unpaired, self._today):
            self._sources.add_fact(key, "user", turn)
        self._speak(proposal)

    def _adopted(self, turn: int) -> bool:
        """Whether the user has since said every value the tainted call of `turn` invented (and of the calls
        whose results it used), in the user's own messages (a proposal confirmed is no words of the user's):
        `Yes, book the JFK to SFO flight` after a search of SFO the user never named makes that search the
        user's, and what it found too. Said as written (`the London one` for an invented LHR is not)."""
        invented, inherited = self._invented.get(turn, ((), ()))
        said = all(any(f" {value} " in text for text in self._user_said) for value in invented if value)
        return said and all(self._adopted(t) for t in inherited if t < turn)

    def _speak(self, text: str) -> None:
        """A text's numbers are said plainly: its facts' and those said in words (`five hundred`) — of the
        keys `spoken_keys` reads, the only ones that hold a number."""
        self._say(_fact_keys(text))
        self._spoken_read.update(_round(float(n)) for n in number_words(text))  # (its gate beats a cache)

    def _say(self, keys: Iterable[str]) -> None:
        """The numbers of these fact keys are said plainly."""
        for key in keys:
            number = _number_of(key)
            if number is not None:
                self._spoken_read.add(_round(number))

    def add_call(
        self,
        turn: int,
        tool: str,
        args: Any,
        result: Any,
        failed: bool,
        tainted: bool,
        error: str = "",
        invented: Sequence[Any] = (),
        inherited: Iterable[int] = (),
    ) -> None:
        """A call made: its result becomes evidence unless it failed (its error message does: `total price
        is 375`); an ungrounded call taints it. `invented`: the values of a tainted call no evidence
        stated; `inherited`: the tainted turns the results its other failing values came from (`_adopted`)."""
        if failed:
            self._failed.append((turn, tool))
            # `already cancelled` (its error, or its result's words): the call failed, but the thing is done
            if may_act(tool) and _ALREADY.search(f"{error} {result}"[:_MAX_ALREADY_CHARS]) is None:
                quoted = f" ({error[:_MAX_WHY]!r})" if error else ""
                self._unreported.append(_Unreported(turn, tool, args, f"it failed{quoted}"))
            said = [error] if error else []
            # its result's own words too (`{"error": "NO_SITTER", "message": "… Nearest: …"}`), unless the call
            # used an ungrounded value (`No reservation ZX9K2P`: the invented id again)
            if not tainted:
                said += [x for x, _, _ in _result_leaves(result) if isinstance(x, str) and " " in x]
            for text in dict.fromkeys(said):
                self._sources.add_text("tool_result", turn, text)
                self._speak(text)
            return
        asked, self._asked = self._asked, None  # used once: it holds no call's arguments after it
        leaves = asked[1] if asked is not None and asked[0] is args else _leaves(args)
        arg_strings = tuple(leaf for _, _, leaf in leaves if isinstance(leaf, str))
        for text in arg_strings:
            self._arguments.add_text("tool_result", turn, text)
            for key in _local_keys(text, self._tzs):
                self._arguments.add_fact(key, "tool_result", turn)
        for number in _leaf_numbers(leaves):
            self._arguments.add_number("tool_result", turn, number)
        if tainted:
            self._tainted.add(turn)
            self._invented[turn] = (tuple(normalize_text(str(v)) for v in invented), tuple(inherited))
        amounts: dict[str, list[float]] = {}  # the amounts of one key (each flight's `price`), in order
        result_leaves = _result_leaves(result)
        result_strings = tuple(x for x, _, _ in result_leaves if isinstance(x, str))
        self._done.append(_Done(turn, tool, result, arg_strings, result_strings, args))
        if may_act(tool) and _call_undone(tool, result):
            self._unreported.append(_Unreported(turn, tool, args, "its result says it was not done"))
        self._class_days |= _class_days(result_leaves)
        if any(key and _rate_key(key) for _, _, key in result_leaves):  # `coverage: 0.8`: 80% (20% left)
            self._sources.percents.update(_round(x * 100) for x in _rates(result))
        # a string a result repeats (each flight's `"status": "available"`) is read once
        read: set[str] = set()
        for leaf, money, key in result_leaves:
            if isinstance(leaf, str):
                if leaf not in read:
                    read.add(leaf)
                    self._sources.add_text("tool_result", turn, leaf)
                    for local in _local_keys(leaf, self._tzs):  # `13:15Z` said as London's `14:15`
                        self._sources.add_fact(local, "tool_result", turn)
                    if " " in leaf and len(leaf) <= _MAX_NOTE:  # a note's rule (`sent 5 working days …`)
                        self._add_offsets(leaf, counting_first=False, replies_only=True)
                if key and _place_key(key):  # `address: "Bond Court, LS1 2JZ"`
                    self._places.append(normalize_text(leaf).replace(" ", ""))
            else:
                self._sources.add_number("tool_result", turn, leaf, operand=False)
                if money:
                    amounts.setdefault(key, []).append(_round(leaf))
                if not key:  # a bare number: a calculator's result, said as plainly as a user's
                    self._spoken_read.add(_round(leaf))
        # `check_in: 04-02, check_out: 04-06` in a result or a call's grounded arguments: the 3rd to the 5th
        # (a lookup's `date_from` / `date_to` are a search's window, no stay: `stays`); read only when a
        # first-day and a last-day key hold dates (a list of flights' `date`s has no range to walk)
        for keyed, value, stays in (
            (((key, x) for x, _, key in result_leaves), result, False),
            (((key, x) for _, key, x in leaves), args, looks_read_only(tool)),
        ):
            dated = [key for key, x in keyed if isinstance(x, str) and _iso_dated(x)]
            ends = [_range_key(key) for key in dated]
            if not tainted and len(dated) > 1 and any(f for f, _ in ends) and any(la for _, la in ends):
                self._inside.update(_range_days(value, stays_only=stays))
        # a result's amounts are arithmetic's operands only when it has few: any sum is some difference of
        # a long list's prices, so a long list grounds its amounts as they are, never their combinations
        if sum(len(run) for run in amounts.values()) <= _MAX_OPERANDS_PER_RESULT:
            self._sources.operands |= {x for run in amounts.values() for x in run}
            self._sources.runs += [(turn, run) for run in amounts.values() if len(run) > 1]

    # -- asking ----------------------------------------------------------------------------------

    def provenance(self, tool: str, args: Any) -> list[Provenance]:
        """The provenance of every leaf of a call's arguments, before the call's own result is added."""
        schema = self._schemas.get(tool)
        leaves = _leaves(args)
        self._asked = (args, leaves)  # `add_call` of the same call walks them no more
        self._week_lists = self._lists_in_named_weeks(leaves) if self._weeks else set()
        # a search's window: a lookup's, or a call's with both its ends (`from_date` and `to_date`)
        bounds = {w for _, key, _ in leaves for w in key_words(key)}
        self._window = looks_read_only(tool) or bool(bounds & _LOWER_WORDS and bounds & _UPPER_WORDS)
        return [self._leaf(tool, path, key, value, schema) for path, key, value in leaves]

    def _leaf(self, tool: str, path: str, key: str, value: Any, schema: Any) -> Provenance:
        if masked(value):  # `[Scrubbed due to 'session']`, `****`: what the agent passed, nobody can see
            return Provenance(path, value, "free_text", "redacted")
        kind = value_kind(key, value)
        checked = kind in CHECKED_KINDS
        allowed = _schema_values(schema, path)
        if _allows(allowed, value):
            return Provenance(path, value, kind, "tool_definition", None, checked)
        said = self._weekday_said(key, value) if kind == "code" else None
        if said is not None:  # `weekdays: ["MON"]` for `Mondays`
            return Provenance(path, value, kind, said[0], said[1], checked)
        if (
            kind == "free_text"
            and isinstance(value, str)
            and not _ADDRESS_KEY_WORDS.isdisjoint(key_words(key))
        ):
            number = self._unstated_address_number(value)  # `1408 Folsom St, …` for the user's 1480
            if number is not None:
                return Provenance(path, number, "number", "agent", None, True)
        found = self._find(value, kind, self._sources)
        if found is None and kind == "name" and isinstance(value, str) and "," in value and _place_key(key):
            found = self._find_place(value, key)
        if found is None and checked and not allowed and self._declared_elsewhere(tool, path, value):
            return Provenance(path, value, kind, "tool_definition", None, checked)
        if found is None:
            computed = self._computed(value) if kind in ("number", "count") else False
            if kind == "date":
                keys = [k for k in _fact_keys(str(value)) if k.startswith("date:")]
                # a lookup's window (`date_from`), or a day of a list of three or more days of that week
                # (`dates: [every weekday next week]`); not a call's single day (`resume_after`)
                bound = not _BOUND_WORDS.isdisjoint(key_words(key)) and self._window
                listed = path.endswith("]") and path.rpartition("[")[0] in self._week_lists
                weekly = bound or listed
                week = (
                    next((t for k in keys if (t := self._week_of(k)) is not None), None) if weekly else None
                )
                if week is not None:
                    return Provenance(path, value, kind, "user", week, checked)
                computed = (
                    any(self._near(k) or self._weekly_day(k) or self._beside_closed(k) for k in keys)
                    or (bound and any(self._next_to_stated(k) for k in keys))
                    or (_end_key(key) and any(k[5:] in self._mornings for k in keys))
                )
            return Provenance(path, value, kind, "computed" if computed else "agent", None, checked)
        (source, turn), tainted = found
        return Provenance(path, value, kind, source, turn, checked, tainted)

    def _declared_elsewhere(self, tool: str, path: str, value: Any) -> bool:
        """Whether another tool the conversation called before lists `value` for the same argument (an `enum`,
        `const` or `default` at `path`): an API often declares a field's values on one call only (a search's
        `pitch_type` enum, then a booking's plain string), and a value from that list, used in that call, is
        the system's own word, not one the agent made up. Asked only where the called tool declares no values
        itself; a tool declared but not called grounds nothing (a search's airport list is no origin said)."""
        called = {d.tool for d in self._done} | {t for _, t in self._failed}
        return any(
            _allows(_schema_values(self._schemas.get(name), path), value) for name in called if name != tool
        )

    def _find_place(self, value: str, key: str) -> tuple[tuple[Source, int | None], int | None] | None:
        """A place written in parts (`Montavilla, Portland`: the user's district, the system prompt's city;
        `Home address, Stockport` for `at home in Stockport`), each part stated on its own; the words of
        the key itself need no source (`address`). Reported by a tainted part's source (a cascade), else the
        user's, else the last part's."""
        own = set(key_words(key))
        found = []
        for part in value.split(",")[:_MAX_PLACE_PARTS]:
            words = [w for w in part.split() if normalize_text(w) not in own]
            if not words:
                continue
            where = self._find(" ".join(words), "name", self._sources)
            if where is None:
                return None
            found.append(where)
        tainted = [f for f in found if f[1] is not None]
        users = [f for f in found if f[0][0] == "user"]
        return (tainted or users or found)[-1] if found else None

    def _unstated_address_number(self, address: str) -> int | None:
        """The first house number or postcode of two digits or more in an address that nothing states: an
        address is a place's name, though it reads as free text (its words may be added to: `…, San
        Francisco, CA`), and its numbers are what a slip changes."""
        for m in _ADDRESS_NUMBER.finditer(address[:MAX_FACT_CHARS]):
            number = int(m.group(0))
            if next(_stated(number, "number", self._sources, self._airports), None) is None:
                return number
        return None

    def _weekday_slips(self, reply: str) -> list[Claim]:
        """A weekday the reply gives a date that falls on another day (`Friday, June 18` in a year whose June
        18 is a Thursday): wrong whatever the evidence, so it fails. The year is the one written (within 30
        years of the conversation's); else the weekday must fall on that day in none of the years it may
        be in — a year the conversation states a date of (the system prompt's `The current date is
        2024-05-15` too), the year of its closest occurrence to the conversation's date, and the other
        side's when that one is months away (`Tuesday, March 3` of an order placed last March)."""
        pairs = weekday_dates(reply)
        if not pairs:
            return []
        today = date.fromisoformat(self._today) if self._today else None
        stated = {
            k[5:] for where in (self._sources, self._arguments) for k in where.facts if k[:5] == "date:"
        }
        stated_years = {int(d[:4]) for d in stated if d[:4].isdigit()}
        claims = []
        for written, weekday, month, day, year in pairs:
            if year is not None and (today is None or abs(year - today.year) > 30):
                year = None  # `Saturday, June 20, 1500 Broadway`: a street number
            years = {year} if year else set(stated_years)
            if not year and today is not None:
                near = sorted(
                    (abs((date(y, month, day) - today).days), y)
                    for y in (today.year - 1, today.year, today.year + 1)
                    if valid_day(y, month, day)
                )
                years |= {y for gap, y in near[:1]} | {y for gap, y in near[1:2] if gap < 240}
            dates = [date(y, month, day) for y in sorted(years) if valid_day(y, month, day)]
            if dates and all(d.weekday() != weekday for d in dates):
                said = min(dates, key=lambda d: abs((d - today).days) if today else 0)
                detail = (
                    f"the reply says {written!r}, but {said.isoformat()} is a {WEEKDAY_NAMES[said.weekday()]}"
                )
                claims.append(Claim("fact", written, detail, kind="date"))
        return claims

    def _weekday_said(self, key: str, value: Any) -> tuple[Source, int | None] | None:
        """Where the weekday a code under a key that names days (`weekdays: ["MON"]`, `day: "SAT"`) was
        said by its name (`Mondays`, 周六; not 每周三次, three times a week) — not `country: FR`."""
        day = WEEKDAY_CODES.get(fold(str(value).strip()))
        if day is None or not _day_key(key):
            return None
        names = [normalize_text(name) for name in weekday_names(day)]
        for source, turn, evidence in self._sources.texts:
            if source != "tool_result" and any(_names_weekday(evidence, n) for n in names):
                return source, turn
        return None

    def _find(
        self, value: Any, kind: str, where: _Sources
    ) -> tuple[tuple[Source, int | None], int | None] | None:
        """The sources that state `value`, the best first: an untainted one (user first, then the latest
        tool result, then the system), else a tainted tool result, reported with the turn that taints it."""
        found = list(_stated(value, kind, where, self._airports))
        return self._pick(found) if found else None

    def _computed(self, value: Any) -> bool:
        target = _as_number(value)
        sources = self._sources
        return target is not None and computable(
            target, sources.operands | self._spoken, sources.runs, percents=sources.percents
        )

    def unsupported(self, reply: str, known_tools: Iterable[str], tools_declared: bool = True) -> list[Claim]:
        """The facts and done-claims of a reply that nothing before it supports. A done-claim is judged when
        a known tool does that action, or — when the agent's tools are not declared at all — whenever the
        agent made calls and none of them did it."""
        claims: list[Claim] = []
        facts = _reply_facts(reply)
        self._reply_numbers = None  # read when a check needs them (`_reply`)
        self._reply_facts = facts  # what `_deadline` pairs, when a date needs it
        self._reply_pairs = None
        self._reply_lengths = None
        self._reply_weekdays = None
        self._reply_working_said = None
        self._reply_text = reply
        for canon, original in facts:
            found = self._fact_source(canon, original)
            if found is None and (slip := self._miscounted(canon)):
                detail = f"the reply states {original!r}, but its own figures give {slip}"
                claims.append(Claim("fact", original, detail, kind="number"))
                continue
            # a day computed from a rule's offset too (`due 7 days after`): the field the words name says which
            # (blind sets 1-15: computed days so contradicted were all planted errors; computed sums were not)
            computed_day = (
                found is not None and found[0][0] == "computed" and canon.startswith(("date:", "md:"))
            )
            contradicted = (
                self._contradicted(canon, original, reply) if found is None or computed_day else None
            )
            if found == (("computed", None), None) and canon.startswith(("number:", "digits:")):
                self._worked_out.add(canon)  # a sum this reply worked out: a later reply may repeat it
            if found is not None and found[0][0] != "computed" and found[1] is None and contradicted is None:
                self._remember_day(canon)  # a stated day of the reply: a later day of it may count from it
            if contradicted is not None:
                claims.append(contradicted)
            elif found is None:
                kind = canon.partition(":")[0]
                weighed = kind in _TYPED_KINDS or kind == "id"
                similar = self._replaced(canon, facts) if weighed else None
                detail = f"the reply states {original!r}; nothing before it does"
                if similar:
                    detail += f" (the conversation states {similar})"
                reading = kind == "id" and not similar and bool(_NO_IDENTIFIER.fullmatch(original.strip()))
                # a day written in another language (`hasta el martes 3 de marzo (72 horas antes)`): the
                # lengths of time it may be counted by are read in English only (`_DURATION`, `_deadline`)
                written = kind in ("date", "md") and any(
                    said == original for _, said in _written_days(reply[:MAX_FACT_CHARS])
                )
                unsure = only_uncertain(kind, similar) or reading or written
                claims.append(
                    Claim(
                        "fact",
                        original,
                        detail,
                        unsure=unsure,
                        kind="reading" if reading else "written_day" if written else kind,
                    )
                )
            elif found[1] is not None:
                claims.append(
                    Claim(
                        "fact",
                        original,
                        f"the reply states {original!r}, which only turn {found[1]}'s result gave, "
                        "and that call used an ungrounded value",
                        tainted_by=found[1],
                    )
                )
        claims += self._weekday_slips(reply)
        read = done_claims(reply)
        for sentence, verb in (*read, *self._counted_claims(reply, read)):
            tools = sorted({t for t in known_tools if does(t, verb) and may_act(t)})
            doing = [  # a lookup does no action its name or arguments mention (`get_upgrade_quote`,
                # `enrollment_status`); a call whose result says it did not happen (`"status": "waitlisted"`)
                # does none
                d
                for d in self._done
                if may_act(d.tool)
                and (does(d.tool, verb) or _says(d.arg_strings, verb))
                and not _status_undone(d.result, verb)
                and not _requested_only(d.tool, d.result, verb)
            ]
            # `XEHM4B and 59XX6W have been cancelled`: each by a call that does it; the ids of the clause
            # that says it (`I reported E-40917 (ticket MT-57740), and $1.60 has been refunded`: no refund
            # of E-40917). A clause that names none (`…, and it has been cancelled`): the sentence's ids,
            # each used by some call that wrote (a lookup of XYZ789 is no cancellation of it)
            clause = _clause_of(sentence, verb)
            named = self._objects(_named_ids(clause))
            by = doing
            if not named and clause != sentence:
                named = self._objects(_named_ids(sentence))
                by = [d for d in self._done if may_act(d.tool)]  # `doing` among them
            used = {normalize_text(v) for d in by for v in (*d.arg_strings, *d.result_strings)}
            # `Both appointments are cancelled`, `All three viewings are booked`: calls that did that many
            # (`_things_done`: a list, a count, the ids one argument lists)
            wanted = _how_many(clause, verb)
            calls = {d.arg_strings: d for d in doing}.values()  # each distinct call once
            enough = bool(doing) and (wanted == 1 or sum(_things_done(d, verb) for d in calls) >= wanted)
            # `I've updated your contact number to 07984 112650`: a phone the user gave (not a helpline, nor one a
            # lookup showed) that the clause gives, where a tool that does it keeps contact details
            # (`update_contact_details`): carried by a call that did it (digit by digit, as `_same_phone`
            # compares), else that call changed something else — not a number to reach the user on (`I've moved
            # it to 8pm - we'll ring you on 07984 112650`) where no such tool is
            lost = next(
                (
                    said
                    for said in (_named_phones(clause) if any(_keeps_contact(t) for t in tools) else ())
                    if self._asked_at(said, "phone") is not None and not self._carried(said, "phone", doing)
                ),
                "",
            )
            if enough and named <= used and not lost:
                continue
            if self._state_reported(verb, named, doing):  # `… has already been cancelled`, as a lookup showed
                continue
            if verb in ("book", "schedule") and self._listed(sentence):
                continue  # `You're booked for Thursday, March 19`, as a lookup listed it
            if self._effect_reported(verb, clause, named, doing):
                continue  # `"pass_transferred": true`: another call did it too
            since_user = [d.tool for d in self._done if d.turn > self._last_user]
            if enough and lost:
                which = (
                    f"the calls that did it ({' / '.join(sorted({d.tool for d in doing}))}) carried no {lost}"
                )
            elif tools:
                which = f"no successful call of {' / '.join(tools)} precedes it"
            elif (
                not tools_declared
                and self._done
                and all(looks_read_only(t) for t in since_user)
                and verb not in _CONSEQUENCES
            ):  # the agent's tools unknown: a claim of an action after no call, or only lookups, since the user
                which = (
                    "no successful call before it does that (the agent's tools are not declared in its spans)"
                )
            elif (failed := self._failed_acting_since_user()) and all(
                looks_read_only(d.tool) for d in self._done
            ):
                # no tool of this agent is named for it (`已为您预约成功` after `create_order`), but a call that
                # acted since the user's message failed, and no call that acts ever succeeded: nothing was done
                turn, tool = failed[-1]
                which = f"turn {turn}'s {tool} failed, and no call since the user's message did anything"
            else:  # no tool of this agent does it: a claim about something else, not judged
                continue
            claims.append(Claim("done", sentence, f"the reply says {verb!r} is done ({sentence!r}); {which}"))
        if not any(c.what == "done" for c in claims) and (opener := _COMPLETION.match(reply)):
            why = self._nothing_done_since_user(known_tools)
            if why:
                first = next(iter(sentences(reply)), reply)
                claims.append(
                    Claim(
                        "done",
                        first,
                        f"the reply opens by saying it is done ({opener.group(0).strip()!r}); {why}",
                    )
                )
        if not any(c.what == "done" for c in claims):  # one claim of the reply's work is enough to fail it
            claims += self._unchanged(reply, known_tools)
        pending = False
        if not any(c.what == "done" for c in claims):
            passed, pending = self._unreported_failure(reply)
            claims += passed
        if not pending:  # this reply had its say on them: the next one answers the user's next message
            self._unreported = []
        # what the agent said, a later reply may build on (read now if this reply's check needed them)
        if self._reply_numbers is not None:
            self._spoken_read |= self._reply_numbers
        else:
            self._unread_replies.append(reply)
        self._reply_days = set()
        return claims

    def _unreported_failure(self, reply: str) -> tuple[list[Claim], bool]:
        """The first reply after a call that acts failed (or its result says it was not done: `waitlisted`,
        `requires_action`; not an error that says it was done already), and no later call of that tool
        succeeded (the one recovery model), which gives one of that call's own values that no other call that
        acted carried (`your homestay is extended until Sunday 30 August` after `extend_placement(
        new_departure_date: 2026-08-30)` returned an error; not once `create_placement(until: 2026-08-30)`
        succeeded, nor an email an earlier update set) and says nothing of the failure: no negation, refusal,
        regret, wait, mistake, step to come or need in any language it reads (`_SAYS_SO`), and no question
        (`act_of`: `Please confirm if you would like to proceed`) — a courtesy read without its courtesy
        words (`_says_so`). It presents the call's outcome as done, whatever words it uses for the thing.
        It fails when the sentence says it was done (`_said_done`: `is extended`, `a bien été effectué`,
        되었습니다) or the reply opens so (`Great news —`, `All done!`) and no other call acted since; else it
        is for review (`unsure`): a list of failure words is never complete (`I tried to extend it, but …`).
        The values are those that say which thing and what of it (`_stated_values`). Returns the claims and
        whether the failures wait for the next reply: one that gives none of their values (`One moment,
        please.`) leaves them to it. Blind sets 1-30 and 35: every one of 32 good replies after such a failure
        said so; 101 planted false claims did not."""
        if not self._unreported:
            return [], False
        parts = sentences(reply)
        if any(_says_so(x) for x in parts):
            return [], False  # it says so, or asks the user (`Please confirm if you would like to proceed`)
        acting = [d for d in self._done if may_act(d.tool) and not _call_undone(d.tool, d.result)]
        values_of = [(d.turn, _stated_values(d.args)) for d in acting]
        gave = False
        for u in self._unreported:
            if any(d.tool == u.tool and d.turn > u.turn for d in acting):
                continue  # a later call of the tool succeeded: recovered (the one recovery model)
            # a value another call that acted carried, before or after, is that call's (`create_placement`
            # after `extend_placement` failed; an email updated before a confirmation to it failed)
            carried = [v for turn, values in values_of if turn != u.turn for v in values]
            values = [v for v in _stated_values(u.args) if not _same_value(v, carried)]
            for sentence in parts:
                if not _gives_any(sentence, values):
                    continue
                gave = True
                # said as done (`is extended`, `Great news —`, `a bien été`, 되었습니다), with no other call that
                # acted since (which may have done it another way): it fails; else it is for review
                done = (
                    _said_done(sentence)
                    or _DONE_OPENER.match(reply) is not None
                    or _COMPLETION.match(reply) is not None
                )
                unsure = not done or any(d.turn > u.turn for d in acting)
                detail = (
                    f"the reply gives turn {u.turn}'s {u.tool} as done ({sentence.strip()!r}), but {u.why}, "
                    "no later call of it succeeded, and the reply does not say so"
                )
                return [Claim("done", sentence, detail, unsure=unsure, kind="passed_over")], False
        # a reply that gives none of their values (`One moment, please.`) leaves them to the next one
        return [], not gave

    def _unchanged(self, reply: str, known_tools: Iterable[str]) -> list[Claim]:
        """A sentence saying something now holds a value (`your booking is now for 4 guests`, `Your email is
        now …`, `Ihre Buchung ist jetzt für 4 Personen`: `_NOW_STATE`) that the user asked for, when no call
        that may act carried it: the change it reports was not made (a failed or a missing update, then `… is
        now …`). The value is the one right after `now` (`_NOW_GAP`: `for`, `on Sunday,`): `is now available
        on 16 March`, `you are now number 3 in the queue` say a state, not what it changed to; so does the
        user's news the reply builds on (`Since your flight is now at 14:30`: `_PREMISE`). It must be the
        user's (`_asked_at`): one a result states is a state the reply reports, one no user stated the fact
        checks' to judge. A call carried it when its arguments state it, or a count it makes with a stated
        number (`add_guests: 2` to a booking of 2: `now for 4 guests`); a call that acts, made since the user
        asked, did it however it wrote it. Only where the agent has a tool that may act: with none, it could
        change nothing and says what is. Every `now` of a sentence is read."""
        if not holds_any(fold(reply), _NOW_HINTS) or not any(may_act(t) for t in known_tools):
            return []  # (the cheap test first: `_NOW_STATE` costs 50 µs a reply)
        acting = [d for d in self._done if may_act(d.tool)]
        out = []
        for sentence in sentences(reply):
            if act_of(sentence) == "ask":
                continue
            for m in _NOW_STATE.finditer(sentence):  # `… is now confirmed, and it is now for 4 guests`
                claim = self._unchanged_at(sentence, m, acting)
                if claim is not None:
                    out.append(claim)
                    break
        return out

    def _unchanged_at(self, sentence: str, m: re.Match[str], acting: Sequence[_Done]) -> Claim | None:
        """`_unchanged` of one `now` of a sentence."""
        start = _clause_start(sentence, m.start())
        if _CONDITION.search(sentence, 0, m.start()) or _NOT_DONE.search(sentence, start, m.end()):
            return None
        # `Since your flight is now at 14:30, …`: the user's news the reply builds on
        if _PREMISE.search(sentence, start, m.start()):
            return None
        rest = sentence[m.end() :]
        end = _CLAUSE_BREAK.search(rest)
        # not what parentheses add: the sum's parts, a rule (`is now £24,900 (£18,500 + £6,400)`)
        said = _ASIDE.sub(" ", rest[: end.start()] if end else rest)
        values = _new_values(said)
        if not values:
            return None
        original, kind = values[0]
        at = said.find(original)
        if at < 0:  # read otherwise than written (`four`, `1.500,00 €`): from its first digit or number word
            first = [x.start() for x in (DIGIT.search(said), NUMBER_WORD.search(said)) if x is not None]
            at = min(first, default=0)
        if not all(w in _NOW_GAP or w in _weekday_names() for w in normalize_text(said[:at]).split()):
            return None
        asked = self._asked_at(original, kind)
        if asked is None or self._carried(original, kind, acting):
            return None
        # a call that acts since the user asked: done, however it wrote the value (a slot's id, an epoch, `row:
        # 14, seat: "C"`; a class cancelled and another booked; a loan renewed)
        if any(d.turn > asked for d in acting):
            return None
        detail = (
            f"the reply says {original!r} now holds ({sentence.strip()!r}); the user asked for it, but no call "
            "that acts carried it or was made since, and no result states it"
        )
        return Claim("done", sentence.strip(), detail)

    def _asked_at(self, original: str, kind: str) -> int | None:
        """The first turn the user stated a value that no tool result and no system prompt states
        (`_unchanged`): what the user asked a thing to change to, not a state a lookup showed, a helpline, or
        a plan's price; else None. A small count a system prompt states counts as the user's: prompts state
        many (`four 4-oz tasters`)."""
        found = list(_stated(original, kind, self._sources, self._airports))
        sources = {s for s, _ in found}
        if "user" not in sources or "tool_result" in sources or ("system" in sources and kind != "count"):
            return None
        if kind == "phone" and _phone_in(original, (v for d in self._done for v in d.result_strings)):
            return None  # a result's number written without spaces (`07984112650`) is no phone fact
        return min(t or 0 for s, t in found if s == "user")

    def _carried(self, original: str, kind: str, calls: Sequence[_Done]) -> bool:
        """Whether one of `calls` carried a value in its arguments: stated there, as the same phone's digits,
        or as a count it makes with another stated number (`add_guests: 2` to a booking of 2 makes 4,
        `adults: 2` and `children: 2` make 4)."""
        turns = {d.turn for d in calls}
        if any(turn in turns for _, turn in _stated(original, kind, self._arguments, self._airports)):
            return True
        if kind == "phone":
            return _phone_in(original, (v for d in calls for v in d.arg_strings))
        target = _as_number(original)
        if kind != "count" or target is None:
            return False
        carried = {n for n, found in self._arguments.numbers.items() if any(t in turns for _, t in found)}
        stated = carried | set(self._sources.numbers)
        return any(a + b == target or abs(a - b) == target for a in carried for b in stated)

    def _counted_claims(self, reply: str, read: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """(sentence, action) of each sentence `done_claims` does not read that claims an action only where
        the agent tried it: a counted present passive (`Both appointments are cancelled`, `All three viewings
        are booked`: `_COUNTED_PASSIVE`) or `you're enrolled in …` (`_YOU_ENROLLED`), when a call that does
        that action was made since the user's message (it succeeded, or failed) — `you're enrolled` also
        with no call at all in the conversation, or said `now`. Otherwise the same words report a state:
        `both courts are booked at 6pm`, `you're enrolled in autopay` after a lookup."""
        folded = reply.casefold()
        if "both" not in folded and "all " not in folded and "enrol" not in folded:
            return []
        claimed = {sentence for sentence, _ in read}  # (`done_claims` of the reply)
        tried = [d.tool for d in self._done if d.turn > self._last_user]
        tried += [tool for turn, tool in self._failed if turn > self._last_user]
        out = []
        for sentence in sentences(reply):
            if sentence in claimed:
                continue
            counted = _COUNTED_PASSIVE.search(sentence)
            m = counted or _YOU_ENROLLED.search(sentence)
            if m is None or act_of(sentence) == "ask" or _CONDITION.search(sentence, 0, m.start()):
                continue
            if _NOT_DONE.search(sentence, _clause_start(sentence, m.start()), m.end()):
                continue
            verb = _CLAIM_VERBS.get(m["v"].casefold())
            # `you're enrolled` with no call at all in the conversation claims it too: no lookup showed a
            # state (`you're now enrolled`, said of a change, is always one)
            unlooked = counted is None and (not (self._done or self._failed) or m["now"] is not None)
            if verb and (unlooked or any(may_act(tool) and does(tool, verb) for tool in tried)):
                out.append((sentence, verb))
        return out

    def _nothing_done_since_user(self, known_tools: Iterable[str]) -> str:
        """Why a reply that opens by saying the work is done (`All sorted –`, `Done!`, `Erledigt:`) is
        unsupported, or "". A call that acts failed since the user's latest message and no later call of
        that tool succeeded; or no call that acts succeeded since that message, which asked for something
        or answered a question of the agent's (`Which would you prefer?` — `9 please.`) — not one that
        closes or asks (`Great, thanks!`, `No, that's all`, `Is it confirmed?`) — while the agent has a tool
        that acts. Blind sets 1-19: such an opener with nothing done since the user's message was in no good
        conversation, and in 35 planted false claims. A call counts as done unless its name says it reads
        (lenient: no false alarm for a tool named otherwise); a tool the agent could have used must say an
        action."""
        failed = [
            (turn, tool)
            for turn, tool in self._failed_acting_since_user()
            if not any(d.tool == tool and d.turn > turn for d in self._done)
        ]
        if failed:
            turn, tool = failed[-1]
            return f"turn {turn}'s {tool} failed, and no later call of it succeeded"
        if any(d.turn > self._last_user and not looks_read_only(d.tool) for d in self._done):
            return ""
        said = next((text for text, system in reversed(self._said) if not system), "")
        request = _REQUEST.search(said) is not None
        if not (self._answering or request) or (
            (_CLOSING.search(said) or act_of(said) == "ask") and not request
        ):
            return ""
        acting = sorted({t for t in known_tools if _acts(t)})
        if not acting:
            return ""
        named = " / ".join(acting[:3]) + (", …" if len(acting) > 3 else "")
        return f"no call that acts ({named}) succeeded since the user's message"

    def _fact_source(self, canon: str, original: str) -> tuple[tuple[Source, int | None], int | None] | None:
        """Where a reply's fact is stated (as `_find`), the arguments of successful calls included."""
        kind = canon.partition(":")[0]
        number = _number_of(canon)
        if kind == "digits" and len(canon) <= 14:  # `1 392 zł`: an amount in spaced thousands, for sums
            number = float(canon[7:])
        said = _said_number(original) if kind == "number" else None
        padded = f" {normalize_text(original)} "
        for where in (self._sources, self._arguments):
            hits: list[tuple[Source, int | None]] = []
            if said is not None:  # `4 days` as said: 4 (its fact is in seconds)
                hits += where.numbers.get(_round(said), [])
            hits += where.facts.get(canon, [])
            if kind == "date":
                hits += where.facts.get(f"md:{canon[-5:]}", [])
            if kind == "time" and len(canon) == 10:
                hits += [h for key in self._same_times(canon) for h in where.facts.get(key, ())]
            if number is not None:
                hits += where.numbers.get(_round(number), [])
            if kind == "id":
                hits += [where.texts[k][:2] for k in where.holding(padded)]
                hits += _same_size(original, where)  # `two 10x10s`
                if original.endswith("s") and not original[-2:-1].islower():  # `two RTX4090s`, not `ABC12S`
                    hits += where.facts.get(canon[:-1], [])
            if kind == "phone":
                hits += list(_same_phone(canon[6:], where))
            if kind in ("phone", "digits", "id") and len(flat := squash(original)) >= _SQUASHED_ID:
                hits += [(source, turn) for source, turn, said in where.squashed if flat in said]
                if kind != "id" and flat.isdigit():  # `3100 7725 1040`, a result's `310077251040`
                    hits += [where.texts[k][:2] for k in where.holding(f" {flat} ")]
            if kind == "digits":  # `1 250 zł`, `18 400`: thousands set apart by a space, a result's 1250
                hits += where.numbers.get(_round(float(canon[7:])), [])
            if said is not None and said.is_integer() and 1 <= said <= 31:  # `the 18th`: a stated date's day
                day = f"-{int(said):02d}"
                hits += [
                    h
                    for key, found in where.facts.items()
                    if key.startswith("md:") and key.endswith(day)
                    for h in found
                ]
            if hits:
                return self._pick(hits)
        if canon in self._worked_out:
            return ("computed", None), None
        if kind == "number" and "|" not in canon:  # `lisäksi 16.20`, `torstaina 13.11.`: a time, a day
            for reading in _dotted_readings(original, self._reply_text):
                if (found := self._fact_source(reading, original)) is not None:
                    return found
        if kind in ("id", "digits") and (m := _ID_RANGE.fullmatch(original.strip())) and self._ends_stated(m):
            return ("computed", None), None
        if kind in ("date", "md") and self._monthly_day(canon, original):
            return ("computed", None), None
        if kind in ("date", "md") and self._named_beside(canon, original):
            return ("computed", None), None
        if kind in ("date", "md") and self._near(canon, reply=True):
            return ("computed", None), None
        if kind in ("date", "md") and self._beside_closed(canon):
            return ("computed", None), None
        if kind in ("date", "md") and canon[-5:] in self._closed_range and self._nothing_on(original):
            return ("system", None), None
        if kind in ("date", "md") and self._deadline(canon[-5:]):
            return ("computed", None), None
        if kind in ("date", "md", "time") and _said_in(canon, self._lengths_apart()):
            return ("computed", None), None
        if kind in ("date", "md") and self._rule_weekday(canon[-5:]):
            return ("computed", None), None
        if kind == "time" and len(canon) == 10 and self._time_apart(canon[5:], _dial(original)):
            return ("computed", None), None
        if number is None:
            return None
        money = _money_said(self._reply_text)
        if computable(
            number,
            self._spoken | self._reply,  # a reply's sums are of what was said (its own parts too)
            self._sources.runs,
            scaled=self._sources.operands,  # a result's amount times a count: $56 a day, 4 days
            percents=self._sources.percents,
            money=money,
            counts=self._counts_said(),
        ):
            return ("computed", None), None
        parts = money - _rates_said(self._reply_text)  # the amounts a total may add up
        if self._product_plus_amount(number, parts):
            return ("computed", None), None
        products = _products_said(self._reply_text)
        if _subset_sum(number, self._reply | products, _minus_amounts(self._reply_text), parts | products):
            return ("computed", None), None
        return None

    def _miscounted(self, canon: str) -> str | None:
        """An amount of the reply's (`number:151.74|usd`) that nothing supports (no source, and no arithmetic
        `_fact_source` follows), the last amount of its currency in its sentence, one slip (`_one_slip`, in
        cents, of three digits or more: `€86` for `€76` is as often a discount unsaid) from what the amounts
        of its currency the reply says before it give as a result (`_results`: the last two taken apart, or
        a percentage stated in the evidence or before it in the reply, of the last), and itself no figure
        they give in a step or two (`_figures`), nor a share of them by a count: the reply worked it out and
        wrote it wrong. `net spend $151.74` after `$165.23` and a `$12.49` refund ($152.74), `£60.45
        including VAT` after `£50.45` under `VAT 20%` (£60.54), `50% of the £688.50 booking, so £334.25`
        (£344.25). Not where its sentence names an adjustment it does not give before it, or rounds it
        (`_unquantified_adjustment`). The figure, as written plainly; None for any other fact. Only what
        comes before it counts: a reply shows its work, then the result (checked against amounts after it,
        a wrong net would make the right total look garbled). Blind sets 1-39: any one-step figure as the
        slip's source failed 10 good conversations for 12 catches, each a coincidence (`£75 plus £45 for
        each of the other two, so £165` beside 3 × £45); the parts' sum too (`2 × $200 + $48 = $448` is one
        digit from `$248`)."""
        number, unit = _number_of(canon), canon.partition("|")[2]
        if number is None or not is_currency(unit) or number <= 0:
            return None
        before: list[float] = []
        percents = set(self._sources.percents)
        found = False
        for part in sentences(self._reply_text[:MAX_FACT_CHARS]):
            for key, said in extract_facts(part, False).spans:
                n = _number_of(key)
                if n is None or n <= 0:
                    continue
                if found:  # an amount after it in its sentence: it is no result
                    if key.partition("|")[2] == unit:
                        return None
                elif key == canon:
                    found = True
                    if _unquantified_adjustment(part, said):
                        return None
                elif key.endswith("|percent"):
                    percents.add(n)
                elif key.partition("|")[2] == unit:
                    before.append(n)
            if found:
                break
        if not found or not before or len(before) > _MAX_FIGURES:
            return None
        # the counts it says, however many (`1,000円 × 22名 = 22,000円`), and shares of them (`$79.60 — $19.90
        # each for the four of you`)
        plain = (self._reply | set(_numbers(self._last_user_text))) - _money_said(self._reply_text)
        counts = self._counts_said() | {int(n) for n in plain if n.is_integer() and 2 <= n < _MAX_COUNT}
        shares = {a / n for a in before for n in counts}
        if any(abs(number - x) <= _CENT for x in _figures(sorted(set(before)), percents, counts) | shares):
            return None
        for result in sorted(_results(before, percents), key=lambda x: abs(x - number)):  # the nearest
            if 0.5 <= number / result <= 2 and _one_slip(*_in_cents(number, result), _SLIP_DIGITS):
                return _plain(result)
        return None

    def _product_plus_amount(self, number: float, parts: set[float]) -> bool:
        """A reply's total of a product it works out and an amount it says in a currency (`parts`), or
        another such product (`2 × $42 + $22 = $106`, `2 × $42 + 1 × $22`), each product's count said before
        the reply: a count the reply makes up (`3 × $42 + $22` for two adults) backs nothing."""
        counted = _products_said(self._reply_text, counts=self._spoken)
        return any(_round(number - p) in (parts | counted) - {p} for p in counted)

    def _same_times(self, canon: str) -> list[str]:
        """The keys a reply's `time:HH:MM` is also stated under: the same time on a 12-hour dial (`6:00` in a
        reply, `18:00` in a result). (A result's UTC time told in the prompt's zone is stated as that zone's
        wall clock: `_local_keys`.)"""
        return [clock_key(int(canon[5:7]), int(canon[8:10]))]

    def _failed_acting_since_user(self) -> list[tuple[int, str]]:
        """The calls that act (not lookups) and failed since the latest user message: turn, tool."""
        return [
            (turn, tool)
            for turn, tool in self._failed
            if turn > self._last_user and not looks_read_only(tool)
        ]

    def _contradicted(self, canon: str, original: str, reply: str) -> Claim | None:
        """A reply's amount, day or time that nothing states, whose words name a result field that gives
        another value: `it resumes automatically on April 5, 2027` after `resume_date: 2027-03-05`, `the
        £120 deposit` after `damage_deposit_gbp: 150`. Such a value is otherwise only uncertain (`only_uncertain`:
        the agent may have computed it); the field its words name is the evidence that it is wrong.

        The words are those right beside the value in its part of the clause (`_cues`). A field is named
        when every word of its key but the generic ones (`_GENERIC_KEY_WORDS`: `date`, `amount`; a currency)
        and the qualifiers (`_QUALIFIER_KEY_WORDS`: `paid`, `due`) is among them, stemmed alike (`resumes`,
        `resume_date`); a whole (`Hire total`) names only a key that says it too, and a value said to have
        changed or a bound (`a new total of $511`, `the latest possible date`: `_CHANGED`) none. Fields are
        compared in their own terms (`_field_values`), and only what a later call that acted cannot have
        changed (`_named_fields`). It fails when fields are named and none of them holds the value (one of a
        list's is enough). Called for a value nothing states, and for a day a rule's offset computes (`due
        on April 17` under `after 7 days` beside `due_date: 2026-04-10`); not for a plain number (a count,
        points), nor for anything stated or another computation: a first version that contradicted those
        too newly flagged 24 good conversations of blind sets 1–15 and 7 good τ-bench runs, for 15 more
        planted errors caught."""
        said = _comparable(canon)
        if said is None or said[0] == "number":  # a plain number: a count or points, too often a sum
            return None
        fields = self._named_fields()
        if not fields:
            return None
        kind = said[0]
        currency = canon.partition("|")[2] if kind == "money" else ""
        wanted = {said}
        if kind == "time":
            wanted |= {
                ("clock", k) if k[:6] == "clock:" else ("time", k[5:]) for k in self._same_times(canon)
            }
        start = reply.find(original)
        while start >= 0:
            end = start + len(original)
            cues = _cues(reply, start, end)
            named = [
                f
                for stem in sorted(cues)  # in an order of its own: the failure's detail the same every run
                for f in fields.get(stem, {}).values()
                if f.stems <= cues
                and not (cues & _AGGREGATES) - f.stems
                and any(k == kind for k, _ in f.said)
                and not (currency and f.currency and f.currency != currency)  # `€111` is no `price_usd`
            ]
            if named:  # a field whose single value the reply states right before this one is that value's:
                # the words between qualify it (`for a September 19 arrival the deadline is Friday, September 12`)
                stated = _stated_before(reply, start, self._reply_facts) - wanted
                named = [f for f in named if not (len(f.said) == 1 and f.said <= stated)]  # a list holds more
            if named and not any(f.said & wanted for f in named):  # the latest, the one its words name most
                last = max(named, key=lambda f: (f.turn, len(f.stems)))  # (`check_out`, not `check_in`)
                detail = (
                    f"the reply says {original!r}, but turn {last.turn}'s result gives "
                    f"{last.key} {last.value!r}"
                )
                return Claim("fact", original, detail, kind=canon.partition(":")[0])
            start = reply.find(original, end)
        return None

    def _named_fields(self) -> dict[str, dict[str, _Field]]:
        """`_fields` (a field's stems → its key → the field), grown by the results added since it was last
        asked for. A successful call that acts (`_acts`) drops what only lookups before it gave, and what calls
        that acted on the same thing gave (an id of its arguments, `_ID_LIKE`, in theirs): it may have changed it
        (`resume_date` before `extend_pause`; `book_room`'s total before `extend_stay` of that room; not a
        berth's check-out time before a fuel slot is booked)."""
        for d in self._done[self._fields_read :]:
            stripe = _currency_beside(d.result)  # `{"amount_due": 4500, "currency": "gbp"}`
            lookup = not _acts(d.tool)
            if not lookup:  # it may have changed what lookups gave, and what calls on the same thing gave
                same = {x for x in d.arg_strings if _ID_LIKE.fullmatch(x)}  # `HB-55120`: not a name or a date
                touched = {
                    e.turn
                    for e in self._done
                    if e.turn < d.turn and same & {*e.arg_strings, *e.result_strings}
                }
                self._fields = {
                    stem: kept
                    for stem, by_key in self._fields.items()
                    if (
                        kept := {k: f for k, f in by_key.items() if not f.looked_up and f.turn not in touched}
                    )
                }
            for _, key, leaf in _leaves(d.result):
                if isinstance(leaf, bool) or leaf is None:
                    continue
                words = key_words(key)
                named = [w for w in words if w not in _GENERIC_KEY_WORDS and w not in _CURRENCY_KEY_WORDS]
                stems = frozenset(_stem(w) for w in named if len(w) >= 3)
                said = self._field_values(words, leaf, stripe) if stems else set()
                if not said:
                    continue
                required = frozenset(_stem(w) for w in named if len(w) >= 3 and w not in _QUALIFIER_KEY_WORDS)
                currency = next((w for w in words if w in _CURRENCY_KEY_WORDS), "") or stripe
                currency = currency or next((k[2] for k in said if k[0] == "money" and k[2]), "")
                for stem in stems:
                    found = self._fields.setdefault(stem, {}).setdefault(
                        key, _Field(key, required or stems, currency)
                    )
                    found.said |= {k[:2] for k in said}
                    found.turn, found.value = d.turn, leaf
                    found.looked_up = found.looked_up and lookup
        self._fields_read = len(self._done)
        return self._fields

    def _field_values(
        self, words: Sequence[str], leaf: Any, minor_too: str = ""
    ) -> set[tuple[str, Any, str]]:
        """(kind, value, currency) of a result leaf as `_comparable` gives a reply's facts: a number under a key
        that says money is an amount (in minor units under `cents`, `pence`: `late_fee_pence: 4500` is 45); a
        short string's facts, a numeric date of two readings (`04/03/2026`) read both ways. Not a time or a
        date given in UTC or another zone the prompt does not name: a reply may tell it in the user's own.
        `minor_too`: the result names its currency beside its amounts (`"currency": "gbp"`, as payment
        APIs write them, often in minor units): a whole amount is read as hundredths too."""
        if isinstance(leaf, int | float):
            number = _finite(leaf)
            if number is None:
                return set()
            money = not _CURRENCY_KEY_WORDS.isdisjoint(words) or not MONEY_WORDS.isdisjoint(words)
            if not _MINOR_UNIT_WORDS.isdisjoint(words):
                number, money = number / 100, True
            amounts: set[tuple[str, Any, str]] = {("money" if money else "number", _round(number), "")}
            if money and minor_too and number.is_integer():
                amounts.add(("money", _round(number / 100), ""))
            return amounts
        if not isinstance(leaf, str) or len(leaf) > _FIELD_CHARS or not DIGIT.search(leaf):
            return set()
        zoned = _ZONED.search(leaf)
        if zoned and (not self._tzs or not _UTC.search(zoned.group(0))):
            return set()  # told in the user's zone, or given in a zone of its own
        out: set[tuple[str, Any, str]] = set()
        for k in (*_fact_keys(leaf), *_local_keys(leaf, self._tzs)):
            if k.startswith("clock:"):
                out.add(("clock", k, ""))
            elif (c := _comparable(k)) is not None:
                out.add((*c, k.partition("|")[2] if c[0] == "money" else ""))
        for m in _TWO_READINGS.finditer(leaf):
            a, b = int(m[1]), int(m[2])
            if a <= 12 and b <= 12:
                out |= {("day", f"{a:02d}-{b:02d}", ""), ("day", f"{b:02d}-{a:02d}", "")}
        return out

    def lookalike_of(self, value: Any, kind: str) -> str | None:
        """`lookalike` of an argument value of a kind (`number`, `date`, `time`, `code`)."""
        if kind == "number":
            n = _as_number(value)
            return self.lookalike(f"number:{n}") if n is not None else None
        if kind == "code":
            return self._code_lookalike(str(value).strip())
        wanted = "date:" if kind == "date" else "time:"
        key = next((k for k in _fact_keys(str(value)) if k.startswith(wanted)), None)
        return self.lookalike(key) if key else None

    def _replaced(self, key: str, facts: Sequence[tuple[str, str]]) -> str | None:
        """The stated value a reply's unstated fact `key` stands in place of: one the reply does not say
        itself, a slip away (`lookalike`; a day up to `_REPLY_SLIP_DAYS` off). A reply that says the
        look-alike too works from it (`£38 per person against the £32 each you paid`, `($174 + $30) × 0.85
        = $173.40`, `paused until October 14; the box after next on October 21`) in a way grounding may not
        follow: None then — only uncertain. On grounding blind sets 1–26 such days and amounts failed 7 good
        conversations and caught one planted error, for another reason; on held-out set 28, 1 good one.
        τ-bench's garbled reply values replace the one stated, and are all still caught."""
        kind = key.partition(":")[0]
        if kind in ("date", "md"):  # a day none of the reply's (`key`'s own among them)
            said = {k[-5:] for k, _ in facts if k.startswith(("date:", "md:"))}
            return self._stated_near(key, _REPLY_SLIP_DAYS, said)
        if kind == "number":
            return self.lookalike(key, besides=self._reply)
        return self.lookalike(key)

    def _stated_near(self, key: str, reach: int, skip: set[str]) -> str | None:
        """The first day the conversation or a successful call's arguments state (`date:`, `md:`) up to
        `reach` days from `key`'s month and day, none of `skip` (`MM-DD`)."""
        try:
            day = date.fromisoformat(f"2000-{key[-5:]}")
        except ValueError:
            return None
        for other in itertools.chain(self._sources.facts, self._arguments.facts):
            if not other.startswith(("date:", "md:")) or other[-5:] in skip:
                continue
            try:
                near = date.fromisoformat(f"2000-{other[-5:]}")
            except ValueError:
                continue
            if abs((near - day).days) <= reach:
                return other.partition(":")[2]
        return None

    def lookalike(self, key: str, besides: set[float] | frozenset[float] = frozenset()) -> str | None:
        """A stated number, date, time or id one slip away from `key` (a fact key: `number:140|usd`,
        `date:2024-05-25`, `md:05-25`, `time:19:15`, `id:bk54988`): a number of three digits or more, of
        like size, with one digit changed, added, dropped or two swapped (none of `besides`; not two digits
        swapped in a number of two: `84` croissants are the stated `48` and three dozen, as any number and a
        multiple of nine may be); a date up to `_SLIP_DAYS` off (a reply's: `_replaced`); a time one digit
        off; an id one character changed, added, dropped or two swapped.
        What garbling a stated value looks like — where a value with no such neighbour may be a computation
        grounding does not follow."""
        kind = key.partition(":")[0]
        if kind == "number":
            n = _number_of(key)
            if n is None:
                return None
            mine = _digit_form(n)
            shortest = 2 if "|" in key and len(key.partition("|")[2]) == 3 else _SLIP_DIGITS  # `$50`/`$53`
            stated = (set(self._sources.numbers) | self._spoken | set(self._arguments.numbers)) - besides
            alike = (x for x in stated if x != n and x and 0.5 <= n / x <= 2)  # `19.90` is no slip of `3.99`
            return next((_plain(x) for x in alike if _one_slip(mine, _digit_form(x), shortest)), None)
        if kind in ("date", "md"):
            return self._stated_near(key, _SLIP_DAYS, {key[-5:]})
        if kind == "time" and len(key) == 10:
            for other in (k for k in self._sources.facts if k.startswith("time:") and len(k) == 10):
                if other != key and _one_slip(key[5:], other[5:]):
                    return other[5:]
        if kind == "id":
            for where in (self._sources, self._arguments):
                slip = where.id_slip(key[3:])
                if slip is not None:
                    return where.as_written(slip)
        return None

    def _code_lookalike(self, code: str) -> str | None:
        """A code the conversation states in capitals, as codes are written (`JFK`: what the user and the
        system said, a successful call's arguments and result), one letter changed, added, dropped or two
        swapped from `code`, of `_SLIP_ID_CHARS` letters or more: `JFX` beside a stated `JFK`. A
        two-letter code has too many neighbours (`CA`, `CO`, `CH`) to call one a slip."""
        if len(code) < _SLIP_ID_CHARS or not _UPPER_CODE.fullmatch(code):
            return None
        said, done = self._codes_read
        if (said, done) != (len(self._said), len(self._done)):  # the texts added since: each read once
            texts = [t for t, _ in self._said[said:]]
            texts += [x for d in self._done[done:] for x in (*d.arg_strings, *d.result_strings)]
            for text in texts:
                for word in _CODE_WORD.findall(text[:MAX_FACT_CHARS]):
                    self._codes.add(word)
            self._codes_read = (len(self._said), len(self._done))
        return self._codes.near(code)

    def _pick(
        self, hits: Sequence[tuple[Source, int | None]]
    ) -> tuple[tuple[Source, int | None], int | None]:
        """The best source (`_best`) among those not tainted, else the best tainted one and its turn."""
        tainted = self._tainted
        clean = [h for h in hits if not (h[0] == "tool_result" and h[1] in tainted)] if tainted else hits
        if clean:
            return _best(clean), None
        best = _best(hits)
        return best, best[1]

    def _state_reported(self, verb: str, named: set[str], doing: Sequence[_Done]) -> bool:
        """An earlier result shows the action's state (`"status": "cancelled"`: a value of a word or two, not
        a key such as `email`) for what the claim names: the reply reports a state, it claims no action. Not
        the result of a call that did the action (`doing`): that one is the claim's support, counted apart
        (`Both … are cancelled` after one cancellation). A state in the reply's language too (`"status":
        "storniert"`: `_EU_PARTICIPLES`)."""
        stems = (*ACTIONS.get(verb, (verb,)), *_EU_PARTICIPLES.get(verb, ()))
        for d in self._done:
            if d in doing or _status_undone(d.result, verb):  # `cancellation_requested`: no state of it
                continue
            values = [v for _, _, v in _leaves(d.result) if isinstance(v, str)]
            if named and not named <= {normalize_text(v) for v in (*values, *d.arg_strings)}:
                continue
            short = (v.lower() if v.isupper() else v for v in values if len(v.split()) <= 2)  # `CANCELLED`
            if any(_names_state(key_words(v), stems) for v in short):
                return True
        return False

    def _time_apart(self, clock: str, dial: bool) -> bool:
        """A time a stated length of time before or after another time the same reply states, which the
        conversation states too: a session's end (`10:00–11:30` for a user's `90 minutes each`, a call's
        `hours: 2`), when to arrive (`by 8:40` for the `9:10` slot it names, 30 minutes before as the
        system prompt asks), a free-cancellation cut-off (`until 9:00am` of a `10:00am` start). On a
        12-hour dial only when the reply said the time without its half of the day (`2:00–3:30` for 14:00
        and 90 minutes; not `9:00 AM–10:30 PM`, not `09:00`)."""
        durations, _ = self._timing()
        if not durations:
            return False
        turn = 720 if dial else 1440
        target = (int(clock[:2]) * 60 + int(clock[3:])) % turn
        clocks = {canon for canon, _ in self._reply_facts if canon.startswith("time:") and len(canon) == 10}
        for key in clocks:
            if key[5:] == clock or not (key in self._sources.facts or key in self._arguments.facts):
                continue
            at = int(key[5:7]) * 60 + int(key[8:10])
            if any((at + d) % turn == target or (at - d) % turn == target for d in durations if d < 720):
                return True
        return False

    def _rule_weekday(self, mmdd: str) -> bool:
        """A day the reply names with its weekday, that weekday a rule's of the system prompt or the user
        (`Payouts are made every Monday`, `we deliver on Tuesdays`, 每周一: `_recurring_weekday`; `Return:
        the Monday after the event`; not `Today is Tuesday`, `Monday–Saturday`), within a week after a stated
        date other than the conversation's own: the next such day (`paid on Monday 23 March` of a sale on
        the 18th); or within a week before one, for a rule's `the Thursday before the event`; either, for
        the day a result gives a class (`"day": "Wednesday"`: the first class after a term's start, the
        last before its end)."""
        if not self._today:
            return False
        year = int(self._today[:4])
        if self._reply_weekdays is None:
            self._reply_weekdays = weekday_dates(self._reply_text[:MAX_FACT_CHARS])
        rules = [text for source, _, text in self._sources.texts if source in ("system", "user")]
        for _, weekday, month, day, said_year in self._reply_weekdays:
            if f"{month:02d}-{day:02d}" != mmdd:
                continue
            names = [normalize_text(n) for n in weekday_names(weekday)]
            weekly = weekday in self._class_days  # a result's `"day": "Wednesday"`: the first or last one
            after = weekly or any(
                _recurring_weekday(text, n) or _weekday_beside(text, n, _AFTER)
                for text in rules
                for n in names
            )
            before = weekly or any(_weekday_beside(text, n, _BEFORE_EVENT) for text in rules for n in names)
            if not after and not before:
                return False
            for y in (said_year,) if said_year else (year - 1, year, year + 1):
                if not valid_day(y, month, day) or not 1 < y < _MAX_YEAR:
                    continue
                named = date(y, month, day)
                if named.weekday() != weekday:
                    continue
                near = [named - timedelta(days=k) for k in range(1, 8)] if after else []
                near += [named + timedelta(days=k) for k in range(1, 8)] if before else []
                # anchored on a stated date other than the conversation's own (`Today is Tuesday` is no event)
                if any(
                    d.isoformat() != self._today[:10] and self._stated_day(d, yearless=not said_year)
                    for d in near
                ):
                    return True
        return False

    def _named_beside(self, canon: str, original: str) -> bool:
        """A reply's day that the words right before it name, and that is that day: the day after or before a
        stated date (`started the day after the third one (Wednesday 6 August)`), a holiday's
        (`ready from Good Friday, 18 April`), `tomorrow`'s, a day of the week named (`next week (19–24 May)`)."""
        text = self._reply_text
        at = text.find(original) if original else -1
        day = _day_of(canon, self._year)
        if at < 0 or day is None or not 1 < day.year < _MAX_YEAR:
            return False
        before = text[max(0, at - _BESIDE_REACH) : at]
        m = _RELATIVE_DAY.search(before) if _RELATIVE_DAY_HINT.search(before) else None
        if m is not None:
            step = -1 if _EARLIER.search(m[0]) else 1
            if self._stated_day(day - timedelta(days=step), yearless=canon.startswith("md:")):
                return True
        try:
            today = date.fromisoformat((self._today or "")[:10])
            this_week = _THIS_WEEKDAY.search(before)  # `this Thursday (March 13)`: the coming one
            named = (
                day in named_days(before, today)
                or (this_week is not None and day in relative_dates(this_week.group(0), today)[:1])
                # `next week (19–24 May)`: a day of the week it names
                or day - timedelta(days=day.weekday())
                in _weeks_named(before[-_WEEKDAY_REACH - 12 :], self._today)
            )
        except (ValueError, OverflowError):  # no date of the conversation, or one at the calendar's end
            return False
        if named:
            self._remember_day(canon)  # a day its words name: a later day of the reply may count from it
        return named

    def _monthly_day(self, canon: str, original: str) -> bool:
        """A reply's day that a monthly rule of the system prompt makes (`billed on the 1st of each month`:
        1 February; `the second Tuesday of the month`: Tuesday 10 February 2026)."""
        if not self._monthly:
            return False
        day = _day_of(canon, self._year)
        if day is None:
            return False
        at = self._reply_text.find(original) if original else -1
        near = (
            set(_CUE_WORD.findall(self._reply_text[max(0, at - _MONTHLY_REACH) : at].lower()))
            if at >= 0
            else set()
        )
        for nth, weekday, words in self._monthly:
            if near.isdisjoint(words):  # `billed on 1 February` for `billed on the 1st`, not a move-in date
                continue
            if nth == 0 and day.day == weekday:  # `the 1st of each month`: (0, day of the month)
                return True
            if nth > 0 and day.weekday() == weekday and (day.day - 1) // 7 + 1 == nth:
                return True
            if nth < 0 and day.weekday() == weekday and day.day + 7 > _month_length(day):
                return True
        return False

    def _counts_said(self) -> set[int]:
        """The counts under ten the reply or the user's latest words say (`3 nights`, `both`, `a pair`)."""
        counts = {int(n) for n in self._reply if n.is_integer() and 2 <= n < _SMALL_COUNT}
        said = f"{self._reply_text} {self._last_user_text}".lower()
        return counts | ({2} if _PAIR.search(said) else set())

    def _ends_stated(self, m: re.Match[str]) -> bool:
        """Both ends of a range of seats or items a reply writes short (`H1-H4` of `UB-H1` … `UB-H4`, `seats
        14-15` of `DC-C14`, `DC-C15`), each the end of an id a successful call's arguments or result give, in
        order (not a user's `12 of us`)."""
        first, last = m["a"].lower(), m["b"].lower()
        low, high = _DIGITS_AT_END.search(first), _DIGITS_AT_END.search(last)
        if low is None or high is None or int(low[0]) >= int(high[0]):
            return False
        for d in self._done[self._ends_read :]:  # each call's ids indexed once, by their ends
            for text in (*d.arg_strings, *d.result_strings):
                for token in _ID_TOKEN.findall(text[:MAX_FACT_CHARS].lower()) if DIGIT.search(text) else ():
                    self._id_ends.update(_ends(token))
        self._ends_read = len(self._done)
        return first in self._id_ends and last in self._id_ends

    def _weekly_day(self, date_key: str) -> bool:
        """A date on a weekday a result gives a class (`"day": "środa"`), the first after or the last before a
        stated date other than the conversation's own (a course's `start_date` the Wednesday after the
        term's first Monday)."""
        day = _day_of(date_key, None)
        if not self._class_days or day is None or day.weekday() not in self._class_days:
            return False
        if not 1 < day.year < _MAX_YEAR:
            return False
        today = (self._today or "")[:10]
        near = (day + timedelta(days=k) for k in (*range(-6, 0), *range(1, 7)))
        return any(d.isoformat() != today and self._stated_day(d, yearless=False) for d in near)

    def _beside_closed(self, date_key: str) -> bool:
        """An open day next to a stated day the business is closed, with only closed days between: the first
        open day after it (`next Monday` when closed on Mondays: Tuesday 11 March; a deadline on a holiday
        moved to the day after) or the last one before it. The day itself must be open."""
        if not self._closed_weekdays and not self._closed_days:
            return False
        day = _day_of(date_key, self._year)
        if day is None or not 1 < day.year < _MAX_YEAR or self._closed(day):
            return False
        for step in (timedelta(days=-1), timedelta(days=1)):
            beside = day + step
            for _ in range(_MAX_CLOSED_RUN):
                if not self._closed(beside):
                    break
                if self._stated_day(beside, yearless=True):
                    return True
                beside += step
        return False

    def _nothing_on(self, original: str) -> bool:
        """Whether the reply's sentence that says this day says there is nothing on it (`There's no lesson on 1
        November`, `we're closed on the 25th`)."""
        return any(
            original in s and _NOTHING_ON.search(s) for s in sentences(self._reply_text[:MAX_FACT_CHARS])
        )

    def _closed(self, day: date) -> bool:
        return day.weekday() in self._closed_weekdays or day.isoformat()[5:] in self._closed_days

    def _next_to_stated(self, date_key: str) -> bool:
        """A day next to a stated date: where a search's window starts or ends (`date_from` the day after a
        job's rained-off date), which agents set a day either side as they see fit. Not the day a lookup
        looks up (its result would ground the booking that repeats it: the cascade of a wrong date)."""
        day = _day_of(date_key, None)
        return (
            day is not None
            and 1 < day.year < _MAX_YEAR
            and any(self._stated_day(day + timedelta(days=k), yearless=False) for k in (-1, 1))
        )

    def _lists_in_named_weeks(self, leaves: Sequence[tuple[str, str, Any]]) -> set[str]:
        """The lists of a call's arguments that hold three days or more of a week the user named whole."""
        counts: dict[str, int] = {}
        for path, _, value in leaves:
            dated = path.endswith("]") and isinstance(value, str) and _ISO_DATE.match(value) is not None
            if dated and self._week_of(f"date:{value[:10]}") is not None:
                list_path = path.rpartition("[")[0]
                counts[list_path] = counts.get(list_path, 0) + 1
        return {p for p, n in counts.items() if n >= _MIN_WEEK_LIST}

    def _week_of(self, date_key: str) -> int | None:
        """The turn of the user message that named this date's week whole (`any day next week`): a search's
        window bound there is the user's (`_BOUND_WORDS`), and a list of its days (`_lists_in_named_weeks`)."""
        if not self._weeks:
            return None
        try:
            day = date.fromisoformat(date_key[5:15])
        except ValueError:
            return None
        return self._weeks.get(day - timedelta(days=day.weekday()))

    def _stated_day(self, day: date, yearless: bool) -> bool:
        """Whether the conversation states this date, or the reply being checked did before (`_reply_days`);
        `yearless`: or its month and day alone (`June 21`)."""
        facts, key, md = self._sources.facts, f"date:{day}", f"md:{day.isoformat()[5:]}"
        days = self._reply_days
        return key in facts or key in days or (yearless and (md in facts or md in days))

    def _remember_day(self, canon: str) -> None:
        """A day the reply being checked states (`date:` or `md:`), as it states it (with its year or not)."""
        if canon.startswith(("date:", "md:")):
            self._reply_days.add(canon if canon.startswith("md:") else canon[:15])

    def _deadline(self, mmdd: str) -> bool:
        """A day a stated length of whole days before a stated date-and-time, said with that time right
        after it: `free cancellation until Wednesday 12.03., 16:30` of a lesson at 2025-03-13T16:30 under
        `free up to 24 hours before` (a day's slip alone, or with another time, is no deadline); or a
        policy's deadline at its own time of day some days before a stated date, said with that time
        (`50% refund until 17:00 Friday 14 March` of a Saturday tour under `before 17:00 the day before`)."""
        if self._reply_pairs is None:
            self._reply_pairs = _dated_times(self._reply_text, self._reply_facts)
        clocks = {clock for day, clock in self._reply_pairs if day == mmdd}
        if not clocks:
            return False
        if self._policy_deadlines and (claimed := _day_of(f"md:{mmdd}", self._year)):
            for clock, days_before in self._policy_deadlines:  # the policy's own time, its days before
                if clock in clocks and self._stated_day(claimed + timedelta(days=days_before), yearless=True):
                    return True
        durations, datetimes = self._timing()
        days = {m // (24 * 60) for m in durations if m % (24 * 60) == 0}
        for day, clock in datetimes if days else ():
            if clock not in clocks:
                continue
            try:
                stated = date.fromisoformat(day)
                claimed = date.fromisoformat(f"{stated.year}-{mmdd}")
            except ValueError:
                continue
            if (stated - claimed).days in days:
                return True
        return False

    def _lengths_apart(self) -> set[tuple[str, str]]:
        """The days the reply being checked says with a time of day beside them (`_clocked_days`, whatever
        the words), as (`MM-DD`, `HH:MM`), that together are a stated length of time under a day, and not of
        whole hours' days, before a successful call's date-and-time: when a fast starts (`eat nothing from
        23:50 on Monday 2 March` before a 07:50 test under `8 hours of fasting`), when check-in closes
        (`23:30 on Monday` for a 01:30 flight on Tuesday, 2 hours before). The day and the time both come
        out of the sum. Only before: a length after a start is as often the wrong way round (a hire's end
        put before its start). A length of whole days keeps the time, so it would explain a day's slip at
        the booked time (`See you at 9:00 on Friday, July 10` of a Saturday 9:00 start under `free up to 24
        hours before`): that is a deadline only with its words (`_deadline`). The pair grounds the day's
        `md:` key, so every mention of that day in the reply (one key per day)."""
        if self._reply_lengths is not None:
            return self._reply_lengths
        pairs = _clocked_days(self._reply_text, self._reply_facts)
        durations, datetimes = self._timing() if pairs else (set(), set())
        # each length with the pairs it may give: a length under a day, any of them; one of whole days, only
        # the pairs of the sentence that says it (`from 1:30pm on Wednesday 8 October, so they've been out
        # for 24 hours`: the reply counts it itself)
        lengths = [(m, pairs) for m in durations if m % (24 * 60) and m < 24 * 60]
        if pairs and datetimes:
            for sentence in sentences(self._reply_text[:MAX_FACT_CHARS]):
                # `so it's been out for 24 hours`, not `a 24-hour hire`
                whole = [
                    m
                    for part in _FOR_LENGTH.findall(sentence)
                    for m in _said_durations(part)
                    if not m % (24 * 60) and m <= _MAX_OFFSET * 24 * 60
                ]
                if whole and (own := _clocked_days(sentence, self._reply_facts)):
                    lengths += [(m, own) for m in whole]
        out: set[tuple[str, str]] = set()
        for day, clock in datetimes if lengths else ():
            try:
                at = datetime.fromisoformat(f"{day}T{clock}")
            except ValueError:
                continue
            for minutes, given in lengths:
                moved = at - timedelta(minutes=minutes)
                if (said := (moved.strftime("%m-%d"), moved.strftime("%H:%M"))) in given:
                    out.add(said)
        self._reply_lengths = out
        return out

    def _timing(self) -> tuple[set[int], set[tuple[str, str]]]:
        """The lengths of time said or in successful calls that act (not lookups), and the calls'
        date-and-times (`_durations`, `_datetimes`), each text and call read once, when a reply first needs
        them."""
        said, done = self._read
        for text, policy in self._said[said:]:
            self._durations |= _said_durations(text, policy)
        for d in self._done[done:]:
            self._datetimes |= _datetimes((*d.arg_strings, *d.result_strings), self._tzs)
            if looks_read_only(d.tool):  # a list of services' lengths is no length of this booking
                continue
            self._durations |= _leaf_durations((key, value) for _, key, value in _leaves(d.args))
            self._durations |= _leaf_durations((key, leaf) for leaf, _, key in _result_leaves(d.result))
        self._read = (len(self._said), len(self._done))
        return self._durations, self._datetimes

    def _objects(self, named: set[str]) -> set[str]:
        """The ids a claim names that can be what the action was done to: not a part of an address a
        result gave (the postcode of a centre: `You're booked: … Bond Court, LS1 2JZ`) that no user or call
        states as an id of its own."""
        return {n for n in named if not self._in_address(n)} if named and self._places else named

    def _in_address(self, name: str) -> bool:
        flat = name.replace(" ", "")  # as `_named_ids` writes it: `LS1 2JZ` is `ls12jz`
        if not any(flat in place and flat != place for place in self._places):
            return False
        for where in (self._sources, self._arguments):
            for source, _, text in where.texts:
                if source != "tool_result" and flat in text.replace(" ", ""):
                    return False  # the user or the system names it
        return not any(flat == text.replace(" ", "") for _, _, text in self._arguments.texts)

    def _listed(self, sentence: str) -> bool:
        """A lookup listed the booking a claim of booking states — its upcoming appointments, bookings or
        reservations (a key that says so) hold the day the sentence states: the reply reports a booking
        that exists (`You're booked for this Thursday, March 19 at 2:00pm`), it claims no action. A list
        of free slots is no such list: a claim of a slot it offered still needs the call that booked it.
        Only for booking: a cancellation of a listed reservation still needs the call that cancelled."""
        facts = _reply_facts(sentence)
        days = {canon[-5:] for canon, _ in facts if canon.startswith(("date:", "md:"))}
        clocks = {canon for canon, _ in facts if canon.startswith("time:") and len(canon) == 10}
        if not days or _NOW.search(sentence) or _FIRST_PERSON_BOOKED.search(sentence):
            return False  # `You are now booked on …`, `I've booked you …`: a change, not a state
        for d in self._done:
            if not looks_read_only(d.tool) or not _holds_bookings(d.result):
                continue
            keys = {k for text in d.result_strings for k in _fact_keys(text)}
            stated = {k[-5:] for k in keys if k.startswith("date:")}
            timed = any(k.startswith("time:") for k in keys)
            if days <= stated and clocks <= keys and (clocks or not timed):  # the day and the time, where
                return True  # the list has times: not another booking that day
        return False

    def _effect_reported(self, verb: str, clause: str, named: set[str], doing: Sequence[_Done]) -> bool:
        """Another successful call's result says it did the action too: a flag (`"pass_transferred": true`,
        `"refund_issued": true`), a key that names it done and holds a value (`"tickets_sent_to":
        "deb@…"`), or a short value that does (`"confirmation_email": "sent"`) — one call that does
        several things. The action's own words, or one the claim's action takes in (a pass transferred is
        moved: an update), of a thing the claim's clause names (`tickets_sent_to` backs `the e-tickets have
        been emailed`, `notification_sent` no `sent a replacement`; a reply in another language, any thing).
        Not a call that does the action itself (`doing`): its own result is the claim's support, counted apart
        (`Both … are cancelled` after one cancellation)."""
        actions = {verb, *_TAKES_IN.get(verb, ())}
        stems = [stem for a in actions for stem in ACTIONS.get(a, (a,))]
        said_words = set(key_words(clause))
        # a reply in another language names its thing in words no English key holds (`決済リンクを … お送り
        # しました` beside `"payment_link_sent": true`): any such effect backs it (as `done_claims` tells)
        english = _ENGLISH.search(self._reply_text) is not None
        tried = any(does(t, verb) for _, t in self._failed)  # a lookup's old state backs no retry that failed
        for d in self._done:
            if d in doing or (tried and looks_read_only(d.tool)):
                continue
            if named and not named <= {normalize_text(v) for v in (*d.arg_strings, *d.result_strings)}:
                continue
            for key, value in _effects(d.result):
                words = key_words(key)
                things = [w for w in words if len(w) > 2 and w not in _CLAIM_VERBS and w not in _NOT_THINGS]
                if (
                    things
                    and english
                    and said_words.isdisjoint(things)
                    and not any(f"{w}s" in said_words for w in things)
                ):
                    continue  # `notification_sent` backs no `sent a replacement`: the claim names what was done
                verbs = [w for w in words if w in _CLAIM_VERBS and w not in _SENDING and w not in _DOING]
                if any(_CLAIM_VERBS[w] not in actions for w in verbs):
                    continue  # `reset_email_sent`: the mail of another action (a reset), no claim's support
                if any(_CLAIM_VERBS.get(w) in actions for w in words):
                    return True
                if _DONE_WORDS.intersection(words) and any(w.startswith(t) for w in words for t in stems):
                    return True  # `refund_issued`
                said = key_words(value) if isinstance(value, str) and len(value.split()) <= 2 else ()
                if any(_CLAIM_VERBS.get(w) in actions for w in said):
                    return True
        return False

    def _near(self, date_key: str, reply: bool = False) -> bool:
        """A date a stated one and an offset the user gave apart: a day (`the day after`), or a duration
        the user said (`3 nights` from the check-in, `5 days` counting the first), or working days the
        system prompt or the user said (`ready 2 working days after drop-off`: Tuesday to Thursday,
        Friday to Tuesday); in a `reply`, a policy's long offsets too (`_long_offsets`)."""
        working = self._working | self._reply_working if reply else self._working
        if reply and self._said_working:  # the policy's working days the reply's sentence of this day says
            if self._reply_working_said is None:
                self._reply_working_said = _working_days_by_day(self._reply_text, self._reply_facts)
            says = self._reply_working_said.get(date_key[-5:], set())
            working = working | {n for n in self._said_working if abs(n) in says}
        if (
            not self._offsets
            and not working
            and not self._weekend
            and not (reply and (self._long_offsets or self._inside))
        ):
            return False
        day = _day_of(date_key, self._year)
        if day is None or not 1 < day.year < _MAX_YEAR:  # `9999-12-31`: no day after it to count to
            return False
        if reply and day in self._inside:
            return True

        def stated(d: date) -> bool:
            return self._stated_day(d, yearless=True)  # `md:`: no year

        for offset in self._offsets:
            if stated(day + timedelta(days=offset)) or stated(day - timedelta(days=offset)):
                return True
        # `6–8 weeks before` a stated date: in that direction (the year is 2 to `_MAX_YEAR`: no overflow)
        for signed in self._long_offsets if reply else ():
            if stated(day - timedelta(days=signed)):
                return True
        if self._weekend and day.weekday() > 4:  # the weekend's other day, or the Friday it is named by
            others = (1, -1) if day.weekday() == 5 else (-1, -2)  # `the weekend of the 12th`, a Friday
            if any(stated(day + timedelta(days=k)) for k in others):
                return True
        for n in working:  # `n` working days from a stated date (or a weekend day next to it)
            start = _working_days_on(day, -n)
            starts = [start, *(start + timedelta(days=k) for k in (-2, -1, 1, 2))]
            weekend = (d for d in starts[1:] if d.weekday() > 4)
            if any(stated(d) and _working_days_on(d, n) == day for d in (start, *weekend)):
                return True
        return False


#: a night said (`Saturday night`, `tonight`, `overnight`, `la nuit`, `esta noche`, `heute Nacht`), not a
#: count of them (`two nights`, `3 Nächte`: a duration, `_add_offsets`)
_NIGHT = re.compile(
    r"(?i)\b(?:to-?night|overnight|nights?|nuits?|noches?|n(?:a|ä)chte?|nott[ei]|noites?|nachten?)\b"
)
_NIGHT_STEMS = ("night", "nuit", "noche", "nacht", "nächte", "nott", "noite")
_NIGHT_COUNT = re.compile(
    r"(?i)\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|deux|trois|dos|tres|zwei|drei|due|tre|duas)\s+$"
)
#: characters before a night read for the day it is of (`Saturday 15 March, … just for the night`)
_NIGHT_REACH = 60
_NIGHT_AFTER = 30  # and after it (`the night of Saturday 15 March`, `la nuit du samedi 15 mars`)


def _mornings_after(text: str, today: str | None) -> set[str]:
    """The mornings after the nights a user's message names by their day (`YYYY-MM-DD`): the days said in
    the few words around each night word (`Friday and Saturday night`, `Saturday a good night`, `the night
    of Saturday 15 March`, `tonight`: today), read as the message's own dates are (`spoken_keys`,
    `_fact_keys`). Not a count of nights."""
    out: set[str] = set()
    year = (today or "2000")[:4]
    for m in _NIGHT.finditer(text[:MAX_FACT_CHARS]):
        before = text[max(0, m.start() - _NIGHT_REACH) : m.start()]
        if _NIGHT_COUNT.search(before):
            continue
        window = before + text[m.start() : m.end() + _NIGHT_AFTER]  # `la nuit du samedi 15 mars`
        keys = [*spoken_keys(window, today), *_fact_keys(window)] if today else list(_fact_keys(window))
        for key in keys:
            day = _day_of(key, year) if key.startswith(("date:", "md:")) else None
            if day is not None and 1 < day.year < _MAX_YEAR:
                out.add((day + timedelta(days=1)).isoformat())
    return out


#: the words of a key that name a stay's or a rental's end (`check_out`, `return_date`, `end_date`, `date_to`)
_END_WORDS = frozenset({"out", "checkout", "return", "end", "to", "until", "till", "departure", "dropoff"})


@lru_cache(maxsize=4_096)
def _end_key(key: str) -> bool:
    return not _END_WORDS.isdisjoint(key_words(key))


#: a word that says a business is closed (`closed`, `Ruhetag`, `fermé`, 休息), and `every day except`
_CLOSED_WORD = re.compile(
    r"(?i)\b(?:closed|geschlossen|ruhetage?|ferm[ée]e?s?|cerrad[oa]s?|chius[oa]|gesloten|nieczynne|zamknięte)\b"
    r"|\b(?:every\s+day|daily|7\s+days(?:\s+a\s+week)?)\s*,?\s+except\b|休息|休业|闭馆|闭店|不营业|停业|定休日|休業|휴무"
)
_CLOSED_STEMS = (
    "closed", "geschlossen", "ruhetag", "ferm", "cerrad", "chius", "gesloten", "nieczynne", "zamknięte",
    "except", "休", "闭", "不营业", "停业", "휴무",
)  # fmt: skip
_CLOSURE_END = re.compile(r"[.;\n]|\b(?:open|reopen\w*|but)\b")
_CLOSURE_REACH = 120  # characters after a closed word read for its days
_WEEKDAY_BEFORE = 16  # characters before it read for a weekday it follows (`Sundays: closed`, 星期一休息)
_WEEKEND_WORD = re.compile(r"(?i)\b(?:weekends?|wochenenden?)\b|周末|週末")
#: after a weekday's name, what makes it a date's (`Thursday, November 27`, `Monday 5 May`): not a day a week
_DATE_AFTER = re.compile(r"(?i),?\s*(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)")
_MAX_CLOSED_RUN = 3  # closed days in a row between a stated closed day and the open day beside it
#: what makes a closure part of a day, or of a range of days' hours: a part of the day, lunch (`_DAY_PART`,
#: in the whole clause), a time or a range of weekdays (`_HOURS`, before a bracket)
_DAY_PART = re.compile(r"(?i)\b(?:lunch|noon|midday|morning|afternoon|evening|night)s?\b")
_HOURS = re.compile(
    r"(?i)\d:\d\d|\d\s*(?:am|pm|a\.m\.|p\.m\.|h\b|uhr)|\b(?:to|through|till|until|bis|à|a)\b\s+\w+day\b"
)


def _closures(text: str) -> tuple[set[int], set[str]]:
    """The weekdays and the days of the year (`MM-DD`) a system prompt says the business is closed on:
    `Tuesday-Saturday 10:00-17:00 (closed Sunday and Monday)`, `Closed Tuesday, Thursday, Sunday and bank
    holidays`, `Sundays: closed`, `open every day except Monday`, `closed weekends`, 星期一休息, `Closed on
    Thanksgiving Day (Thursday, November 27, 2025)` — a weekday beside a date is that date's, not a week's."""
    weekdays: set[int] = set()
    days: set[str] = set()
    if not holds_any(fold(text), _CLOSED_STEMS):
        return weekdays, days
    names = _weekday_names()
    for m in _CLOSED_WORD.finditer(text[:MAX_FACT_CHARS]):
        clause = text[m.end() : m.end() + _CLOSURE_REACH]
        end = _CLOSURE_END.search(clause)
        clause = clause[: end.start()] if end else clause
        # `Closed for lunch 12:00-13:00 Monday to Friday`, `Monday mornings`, `Mondays (mornings only)`; a time
        # only before a bracket (not a note: `Closed on Sundays (24h emergency line available)`)
        if _HOURS.search(clause.partition("(")[0]) or _DAY_PART.search(clause):
            continue
        before = text[max(0, m.start() - _WEEKDAY_BEFORE) : m.start()]
        # `Sundays: closed`, `weekends closed`: a name right before the word, only separators between
        said = [
            w
            for pattern in (_weekday_word(), _WEEKEND_WORD)
            for w in pattern.finditer(before)
            if not before[w.end() :].strip(" s:–—-\t")
        ]
        said += [w for w in _weekday_word().finditer(clause) if not _DATE_AFTER.match(clause, w.end())]
        for w in said:
            named = fold(w.group(0))
            weekdays |= {5, 6} if _WEEKEND_WORD.fullmatch(named) else {names.get(named, -1)} - {-1}
        if _WEEKEND_WORD.search(clause):
            weekdays |= {5, 6}
        for key in _fact_keys(clause) if DIGIT.search(clause) else ():
            if key.startswith("md:"):
                days.add(key[3:])
    return weekdays, days


def _recurring_weekday(padded: str, name: str) -> bool:
    """Whether a padded normalized text says a weekday recurs as a rule's day: `every Monday`, `each
    Monday`, `on Mondays`, 每周一, 每个周一, 每逢周一 — not a range of opening days (`Tuesdays to Saturdays`)
    nor a day it is closed (`closed on Mondays`)."""
    if all(ord(c) >= 0x3040 for c in name):
        return f"每{name}" in padded or f"每个{name}" in padded or f"每逢{name}" in padded
    said = f" every {name} " in padded or f" each {name} " in padded or f" on {name}s " in padded
    return said and f" closed on {name}s " not in padded and f" closed every {name} " not in padded


#: the words after a weekday that make it a rule's day relative to an event: `the Thursday before the event`,
#: `the Monday after`, `am Donnerstag vor`, `le lundi après`, `el jueves antes`
_BEFORE_EVENT = ("before", "prior", "vor", "avant", "antes", "prima")
_AFTER = ("after", "following", "nach", "apres", "después", "despues", "dopo")


def _weekday_beside(padded: str, name: str, words: tuple[str, ...]) -> bool:
    """Whether a padded normalized text says `the <weekday> before` (or `after`: `words`) as a rule's day."""
    if f" {name} " not in padded:
        return False
    return any(
        f" {article} {name} {w} " in padded for article in ("the", "am", "le", "el", "il") for w in words
    )


def _names_weekday(padded: str, name: str) -> bool:
    """Whether a padded normalized text says this weekday's name: in a spaced script as a word, or its
    plural (`mondays`; not `martin` for Romanian `marți`), in Chinese, Japanese or Korean anywhere but
    as a count (周三次: three times a week)."""
    if all(ord(c) >= 0x3040 for c in name):
        return padded.count(name) > padded.count(f"{name}次")
    return f" {name} " in padded or f" {name}s " in padded


def _working_days_by_day(reply: str, facts: Iterable[tuple[str, str]]) -> dict[str, set[int]]:
    """`MM-DD` of each day a reply states → the working days (unsigned) the sentence that states it says
    (`Refunds take 5 to 7 business days, so expect it by Thursday, August 14`: `08-14` → {5, 7})."""
    out: dict[str, set[int]] = {}
    days = [
        (canon[-5:], original) for canon, original in facts if canon.startswith(("date:", "md:")) and original
    ]
    if not days:
        return out
    for sentence in sentences(reply[:MAX_FACT_CHARS]):
        said = {abs(n) for n in _working_days_said(sentence)}
        for day, original in days if said else ():
            if original in sentence:
                out.setdefault(day, set()).update(said)
    return out


def _working_days_said(text: str) -> set[int]:
    """The working days a text says (`_WORKING_DURATION`: a figure, or a range's two bounds), signed: back
    from a date when `before` it (`3 working days before the event`), else on from it."""
    out = set()
    for m in _WORKING_DURATION.finditer(text):
        before = _BEFORE.match(text, m.end()) is not None
        said = [_count_said(x) for x in (m["lo"], m["n"]) if x]
        if len(said) == 2 and said[0] >= said[1]:  # `9-5 working days`: office hours, no range of days
            continue
        out |= {-n if before else n for n in said if 0 < n <= _MAX_OFFSET}
    return out


def _working_days_on(day: date, n: int) -> date:
    """The date `n` working days (Monday to Friday) after `day`, or before it when `n` is negative."""
    step = timedelta(days=1 if n > 0 else -1)
    for _ in range(abs(n)):
        day += step
        while day.weekday() > 4:
            day += step
    return day


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------


def value_kind(key: str, value: Any) -> Kind:
    """What a leaf value is (module docstring: which kinds must be grounded)."""
    if value is None or isinstance(value, bool):
        return "other"
    if isinstance(value, int | float):
        number = _finite(value)
        if number is None:
            return "other"
        return "count" if _is_count(number) else "number"
    if not isinstance(value, str) or not value.strip():
        return "other"
    free_key, name_key, id_key, people_key, phone_key = _key_classes(key)
    if free_key or len(value.split()) >= _WORDS_OF_FREE_TEXT:
        return "free_text"
    if (
        phone_key
        and _PHONE_VALUE.fullmatch(value.strip())
        and len(digits_of(value)) >= _PHONE_DIGITS
        and not _ISO_DATE.match(value.strip())
    ):
        return "phone"
    if people_key and not name_key:
        name_key = _FULL_NAME.fullmatch(value.strip()) is not None  # `Zoe Hart`, not `Adult`
    kind = _string_kind(value, name_key)
    if kind in ("other", "name") and id_key and len(value.split()) == 1:
        return "id"
    return kind


@lru_cache(maxsize=8_192)
def _key_classes(key: str) -> tuple[bool, bool, bool, bool, bool]:
    """Whether an argument name says free text, a name, an id, people, a phone (`FREE_TEXT_KEYS`,
    `NAME_KEYS`, `ID_WORDS`; `_PEOPLE_KEYS` as its last word; `_PHONE_KEY_WORDS`)."""
    listed = key_words(key)
    words = set(listed)
    people = bool(listed) and listed[-1] in _PEOPLE_KEYS
    phone = bool(words & _PHONE_KEY_WORDS)
    return bool(words & FREE_TEXT_KEYS), bool(words & NAME_KEYS), bool(words & ID_WORDS), people, phone


@short_cached(maxsize=65_536)
def _string_kind(value: str, name_key: bool) -> Kind:
    if _CLOCK.fullmatch(value.strip()):
        return "time"
    if _ISO_DATETIME.fullmatch(value.strip()):
        return "date"
    facts = extract_facts(value[:MAX_FACT_CHARS], False)
    if facts.facts and not facts.bare.strip():
        kinds = {c.partition(":")[0] for c in facts.facts}
        if "id" in kinds:
            return "email" if "@" in value else "id"
        if "phone" in kinds:
            return "phone"
        if "date" in kinds:
            return "date"
        if "time" in kinds:
            return "time"
        if "number" in kinds:
            number = _number_of(next(c for c in facts.facts if c.startswith("number:")))
            return "count" if number is not None and _is_count(number) else "number"
    stripped = value.strip()
    if _UPPER_CODE.fullmatch(stripped):
        return "code"
    if DIGIT.search(stripped) and any(c.isalpha() for c in stripped) and " " not in stripped:
        return "id"
    if name_key and any(c.isalpha() for c in stripped):
        return "name"
    return "other"


@short_cached(maxsize=16_384)
def key_words(key: str) -> tuple[str, ...]:
    """The words of an argument name, lower-case: `firstName`, `first_name` → first, name. Cached: every key
    of every call and result is read for its words, by several rules, and the same keys come back."""
    return tuple(w.lower() for w in _KEY_WORDS.findall(key))


def _stated(
    value: Any, kind: str, where: _Sources, airports: Airports
) -> Iterator[tuple[Source, int | None]]:
    """Every source that states `value`: as words, as the same typed fact, or (a code) as an airport."""
    if isinstance(value, bool) or value is None:
        return
    number = _as_number(value)
    if number is not None:  # 10423 in a result grounds "10423" in a call, and the other way round
        yield from where.numbers.get(_round(number), ())
        if not isinstance(value, str):
            return
    text = str(value)
    norm = normalize_text(text)
    if norm and not (text.strip().isdigit() and len(text.strip()) >= 4):  # `1234` is no word of `555-1234`
        padded = f" {norm} "
        for k in where.holding(padded):
            yield where.texts[k][:2]
    keys = _fact_keys(text)
    for canon in keys:
        if canon.startswith(("time:", "clock:")) and kind != "time":
            continue  # `2025-03-16T09:00` is a date first: its hour alone is no grounds
        yield from where.facts.get(canon, ())
        if canon.startswith("date:"):
            yield from where.facts.get(f"md:{canon[-5:]}", ())
    if kind in ("phone", "number", "id") and len(digits := digits_of(text)) >= _PHONE_DIGITS:
        yield from _same_phone(digits, where)
    if kind in ("number", "id", "phone") and text.strip().lstrip("+").replace(" ", "").isdigit():
        yield from where.facts.get(f"digits:{digits_of(text)}", ())  # `839214` said as `839 214`
    if kind in ("id", "code", "phone", "number", "email") and len(flat := squash(text)) >= _SQUASHED_ID:
        for source, turn, said in where.squashed:  # `L T G 7 H 2 K 9 P`, `M G zero zero nine one three seven`
            if flat in said:
                yield source, turn
    if kind == "id" and (m := _PREFIXED_ID.fullmatch(text.strip())) and _declared_prefix(m["p"], where):
        yield from where.numbers.get(_round(float(m["d"])), ())  # `member 38204` as `MBR-38204`, where
        yield from where.facts.get(f"digits:{m['d']}", ())  # the prompt says `MBR- followed by 5 digits`
    if kind == "id":  # `90x54mm` said as `90×54`
        yield from _same_size(text, where)
    if kind == "name" and len(words := norm.split()) > 1:  # `Rite Aid Hawthorne Blvd`: every word said
        forms: list[tuple[str, ...]] = [(f" {w} ",) for w in words[:-1]]
        forms.append((f" {words[-1]} ", *(f" {o} " for o in _other_genders(words[-1]))))
        found = False
        for source, turn, evidence in where.texts:  # a surname in its other gender (`Nowicka`, `Nowicki`)
            if all(any(f in evidence for f in said) for said in forms):
                found = True
                yield source, turn
        if not found:  # `Rezerwacja na Katarzynę Wójcik`: a Slavic name in another case, said by the user
            declined = [(*said, *(f" {d} " for d in _declined(said[0].strip()))) for said in forms]
            for source, turn, evidence in where.texts:
                if (
                    source == "user"
                    and _SLAVIC.search(evidence)
                    and all(any(f in evidence for f in said) for said in declined)
                ):
                    found = True
                    yield source, turn
        if not found:  # `Malik Wright`: `His name's Malik` after `Name's Jamal Wright` — each word the user's
            latest: list[tuple[Source, int | None]] = []
            for spellings in forms:  # the user's own words (a doctor's surname in a result is no son's)
                hit = next(
                    (
                        (s, t)
                        for s, t, text in reversed(where.texts)
                        if s == "user" and any(f in text for f in spellings)
                    ),
                    None,
                )
                if hit is None:
                    break
                latest.append(hit)
            else:
                yield max(latest, key=lambda hit: hit[1] or 0)
    if kind == "name" and norm:  # `Jose Ramirez` for the user's `José Ramírez`, and the other way round
        for k in where.holding(_unaccented(f" {norm} "), plain=True):
            yield where.texts[k][:2]
    if has_cjk(text) and norm:  # Chinese is written without spaces between words
        for source, turn, evidence in where.texts:
            if norm.replace(" ", "") in evidence.replace(" ", ""):
                yield source, turn
    elif kind == "name" and 1 < len(words := _unaccented(norm).split()) <= _MAX_NAME_WORDS:
        # `Wang Li` for the user's 王丽, `Shufen Zhao` for 赵淑芬: a Chinese name in pinyin, either order
        pinyins = {"".join(words), "".join((*words[1:], words[0])), "".join((words[-1], *words[:-1]))}
        for source, turn, evidence in where.texts:  # the user's (a prompt's 时间 is no `Shi Jian`)
            if source == "user" and has_cjk(evidence) and any(_in_pinyin(s, evidence) for s in pinyins):
                yield source, turn
    # a code built from words one text says: `celebration_cake_8`, `LOST_BOW_TIE`
    if kind in ("id", "code") and ("_" in text or "-" in text) and (parts := _composed_parts(text)):
        segments = [w.lower() for w in re.split(r"[_-]", text.strip())]
        together = _together(segments) if _one_word(parts) else None  # `couche_135`: `couché 135 g`
        # a text that says them holds its first part or its first segment after a space: only those are read
        segment = next((w for w in segments if w), None)
        candidates = (
            sorted({k for w in (parts[0], segment) for k in where.holding(f" {w}", plain=True)})
            if segment is not None
            else range(len(where.texts))
        )
        for k in candidates:
            source, turn, evidence = where.texts[k]
            plain = _unaccented(evidence)
            if together.search(plain) if together is not None else _composed_in(parts, segments, plain):
                yield source, turn
    if kind == "code" and airports is not None:
        for name in _airport_names(text.strip().upper(), airports):
            for k in where.holding(name):
                yield where.texts[k][:2]
    if kind == "code" and len(code := text.strip()) == 3 and (named := _currency_names(code.upper())):
        # `currency: "CHF"` for the user's `Swiss francs`, `瑞士法郎` (a result or a call gives the code itself)
        for source, turn, said in where.texts:
            if source != "tool_result" and any(
                w in said and any(n in said for n in names) for w, names in named
            ):
                yield source, turn


_MAX_NAME_WORDS = 4
#: a Slavic surname's feminine and masculine endings (Polish `Nowicka` / `Nowicki`, Czech `Nováková` /
#: `Novák`, Russian `Ivanova` / `Ivanov`): a mother's surname is her son's in the other form
_GENDER_ENDINGS = (("ska", "ski"), ("cka", "cki"), ("dzka", "dzki"), ("ova", "ov"), ("eva", "ev"),
                   ("ská", "ský"), ("cká", "cký"), ("skaya", "skiy"))  # fmt: skip


@lru_cache(maxsize=512)
def _currency_names(code: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A currency's names as the evidence's texts are held (`normalize_text`; padded, but Chinese and Japanese,
    written without spaces between words: `我想换澳大利亚元`), grouped by a word each must hold (its last, or
    the whole name in Chinese or Japanese): a text is searched for a name only where it holds that word
    (`load_currencies`)."""
    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys(normalize_text(n) for n in load_currencies().get(code, ())):
        if name:
            word = name if has_cjk(name) else f" {name.rsplit(' ', 1)[-1]} "
            groups.setdefault(word, []).append(name if has_cjk(name) else f" {name} ")
    return tuple((word, tuple(names)) for word, names in groups.items())


def _other_genders(word: str) -> tuple[str, ...]:
    """The other gender's forms of a surname (`nowicka` → `nowicki`, `nováková` → `novák`), none for a word of
    under 5 letters."""
    if len(word) < 5:
        return ()
    out = [word[:-3]] if word.endswith("ová") else []  # `nováková` → `novák`
    for a, b in _GENDER_ENDINGS:  # not `-ina` / `-in`: `Martina` is no `Martin`
        if word.endswith(a) and len(word) - len(a) >= 3:
            out.append(word[: len(word) - len(a)] + b)
        elif word.endswith(b) and len(word) - len(b) >= 3:
            out.append(word[: len(word) - len(b)] + a)
    return tuple(out)


#: the endings a name takes in the cases of Polish, Czech, Slovak and Russian (`Katarzyna`: `Katarzynę`,
#: `Katarzyny`; `Piotr`: `Piotrowi`, `Piotrem`; `Kowalski`: `Kowalskiego`): a name in a user's sentence is in
#: the case the sentence puts it in, and a call takes it in the nominative
#: Only endings that make no other given name: not `-e`, `-ie`, `-o`, `-i` (`Marie`, `Lucie`, `Julie`, `Annie`,
#: `Carlo`, `Paulo` are names of their own, and `Maria` for `Marie` a slip), nor `-a` after a consonant
#: (`Martina` is no `Martin`, `Roberta` no `Robert`)
_A_CASES = ("ę", "y", "ą", "ou", "ej", "u", "у", "ы", "ой")
_YA_CASES = ("ю", "и", "ей")  # Russian `Мария`: `Марию`, `Марии`
_CONSONANT_CASES = ("u", "owi", "ovi", "em", "om", "iem", "у", "ом")
_ADJECTIVE_CASES = {"ski": ("skiego", "skiemu", "skim"), "ska": ("ską", "skiej"), "ský": ("ského", "skému",
                    "ským"), "ská": ("skou", "ské"), "cki": ("ckiego", "ckiemu", "ckim"), "cka": ("cką", "ckiej")}  # fmt: skip
#: a letter only Slavic languages write (Polish, Czech, Slovak, Croatian, Slovenian) or Cyrillic: the text
#: declines names
_SLAVIC = re.compile("[ąęćłńśźżčďěňřšťůžľĺŕ\u0400-\u04ff]", re.IGNORECASE)


def _declined(word: str) -> tuple[str, ...]:
    """A name's forms in the other cases (`_A_CASES`, `_CONSONANT_CASES`, `_ADJECTIVE_CASES`); none for a
    word of under 3 letters, or one that ends in another vowel."""
    if len(word) < 3 or not word.isalpha():
        return ()
    for end, cases in _ADJECTIVE_CASES.items():
        if word.endswith(end):
            return tuple(word[: -len(end)] + c for c in cases)
    if word[-1] in "aа":
        return tuple(word[:-1] + c for c in _A_CASES)
    if word[-1] == "я":
        return tuple(word[:-1] + c for c in _YA_CASES)
    if word[-1] not in "eiouyáéíóúýěаеиоуыэю":
        return tuple(word + c for c in _CONSONANT_CASES)
    return ()


_MAX_NAME_CHARS = 4  # a Chinese name's characters: a surname of one or two, a given name of one or two


@lru_cache(maxsize=4_096)
def _reading(char: str) -> frozenset[str]:
    """A Chinese character's pinyin readings without tones, every one (单 is `shan` as a surname). pypinyin's
    dictionary is loaded on first use (0.3 s), for Chinese names only."""
    from pypinyin import Style, pinyin

    return frozenset(r.replace("v", "u") for r in pinyin(char, style=Style.NORMAL, heteronym=True)[0])


#: the common Chinese surnames a name starts with (the hundred most frequent, and the first characters of
#: 欧阳, 司马, 上官, 诸葛): `Ding Fang` is no name in 订房
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭"
    "陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤单欧司上诸温康施文"
    "牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕"
)


def _in_pinyin(spelling: str, text: str) -> bool:
    """Whether `spelling` (`zhaoshufen`, letters only) is the pinyin of two to `_MAX_NAME_CHARS` Chinese
    characters in a row of `text` that start with a common surname."""
    text = text[:MAX_FACT_CHARS]

    def spells(i: int, at: int, taken: int) -> bool:
        if at == len(spelling):
            return taken >= 2
        if taken == _MAX_NAME_CHARS or i == len(text) or not has_cjk(text[i]):
            return False
        return any(
            spelling.startswith(r, at) and spells(i + 1, at + len(r), taken + 1) for r in _reading(text[i])
        )

    return any(char in _SURNAMES and spells(i, 0, 0) for i, char in enumerate(text))


#: a code an agent builds from words: letters and digits joined by `_` or `-` (`celebration_cake_8`)
_COMPOSED = re.compile(r"[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)+")
_COMPOSED_PART = re.compile(r"\d+(?:[x×]\d+)+|[A-Za-z]+|\d+")  # `30x30`: a size, as `30×30` reads


@lru_cache(maxsize=8_192)
def _composed_parts(text: str) -> tuple[str, ...]:
    """The words and numbers of a code an agent builds from what was said (`celebration_cake_8` for `an 8
    inch celebration cake`, `adult_5day` for `Adult: … 5-day`, `LOST_BOW_TIE` for `I lost the bow tie`,
    `album_30x30` for `30×30 cm album`), lower-case, single letters left out; none unless it has two words
    of three letters or more, or a word and a size, or is written in lower case with `_` and has one
    (`couche_135` for `couché 135 g`), so `ORD-78402`, `HUT-03` and `RSV-K7Q2MX` are ids as before: their
    digits are what a slip changes; and none with a year (`SPRING-SALE-2025`). Which word goes
    with which is not read: a code of words and numbers one text says of different things passes (a menu's
    `blue shirt … XL`, `box of 12, £21`) — a catalog's combination, not a value nobody stated."""
    value = text.strip()
    if len(value) > _MAX_COMPOSED or not _COMPOSED.fullmatch(value):
        return ()
    parts = [
        re.sub("[x×]", " ", p) if p[0].isdigit() else p.lower()  # a size as its words read: `30 30`
        for p in _COMPOSED_PART.findall(value)
        if len(p) > 1 or p.isdigit()
    ]
    if _words_in(parts) < (
        1 if _SNAKE.fullmatch(value) else 2
    ):  # `couche_135`, `flyer_a5`: lower case, as from words
        return ()
    if any(len(p) == 4 and p.isdigit() and 1900 <= int(p) < 2100 for p in parts):
        return ()  # `SPRING-SALE-2025`: a year is what a code's slip changes (`2024` said)
    return tuple(parts)


_MAX_COMPOSED = 60
_SNAKE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")


def _words_in(parts: Sequence[str]) -> int:
    """How many of a composed code's parts are words of three letters or more, or sizes (`30 30`)."""
    return sum(1 for p in parts if (p.isalpha() and len(p) >= 3) or " " in p)


def _one_word(parts: tuple[str, ...]) -> bool:
    """A composed code of one word of three letters or more (`couche_135`, `flyer_a5`)."""
    return _words_in(parts) < 2


def _together(segments: list[str]) -> re.Pattern[str]:
    """The segments said together, in order, a word also in its plural (`flyers a5`, `couche 135`; not
    `a table for 4` for `table_4`)."""
    said = [re.escape(w) + ("s?" if w.isalpha() else "") for w in segments if w]
    return re.compile(" " + " ".join(said) + " ")


def _composed_in(parts: tuple[str, ...], segments: list[str], evidence: str) -> bool:
    """Whether one text (padded, without accents: `couché 135 g` grounds `couche_135`) says every word and
    number of a composed code, or each segment whole (`flyer_a5` by `flyers A5`: `a5` is one word there)."""

    def said(w: str) -> bool:
        return f" {w} " in evidence or (w.isalpha() and f" {w}s " in evidence)

    return all(said(w) for w in parts) or all(said(w) for w in segments if w)


#: a length of time said (`90 minutes`, `a 2-hour lesson`, `1.5 hours`, `1 hour 30 minutes`, `1h30`, `24
#: Stunden`, `deux heures`, `90分钟`, `两个小时`); not a bare `13h` (a French time of day), not a frequency
#: or an opening time (`24 hours a day`)
_SAID_DURATION = re.compile(
    r"(?i)(?:(?<![\d.,:])(?P<n>\d{1,3}(?:[.,]5)?)\+?(?:\s*-\s*|\s*)|\b(?P<w>half\s+an?|an?|one|two|three|four|five|"
    r"six|eight|ten|fifteen|twenty|thirty|forty-five|ninety|eine[n]?|zwei|drei|une?|deux|trois|dos|tres|"
    r"due|tre)(?:\s*-\s*|\s+))(?P<u>minutes?|mins?|minuten|minutos|minuti|hours?|hrs?|stunden?|heures?|"
    r"horas?|ore)\b(?P<half>\s+and\s+a\s+half)?"
    r"(?:,?\s+(?:and\s+)?(?P<m>\d{1,2})\s*(?:minutes?|mins?|minuten|minutos|minuti)\b)?"
    r"(?!\s+(?:a|per|each|every)\s+(?:day|week)\b)"
    r"|(?<![\d:])(?P<hh>\d{1,2})h(?P<hm>[0-5]\d)?\s*(?=(?:min\b|de\b|d'|of\b|lesson|session|cours|Stunde))"
    r"|(?P<zn>\d{1,3}(?:\.5)?|[一两二三四五六七八九十百]+|半)\s*个?(?P<zu>分钟|小时|個小時|个半小时)"
)
_DIGIT_H = re.compile(r"\dh")  # what the `1h30` form of `_SAID_DURATION` holds
_SAID_DURATION_STEMS = ("min", "hour", "hr", "stund", "heure", "hora", "ore", "分钟", "小时", "小時")
_DURATION_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45, "ninety": 90, "eine": 1, "einen": 1,
    "zwei": 2, "drei": 3, "un": 1, "une": 1, "deux": 2, "trois": 3, "dos": 2, "tres": 3, "due": 2, "tre": 3,
    "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "半": 0.5,
}  # fmt: skip
_MAX_DURATION = 31 * 24 * 60


#: what makes a length of time a system prompt says an offset between two times (`arrive 15 minutes before`, `48 hours' notice`,
#: `提前30分钟`, `bis 24 Stunden vor Beginn`) or the length of what is booked (`Appointments last 60
#: minutes`, `Eine Fahrstunde dauert 90 Minuten`), not a menu's (`women's cut ¥168 (60 minutes)`)
_OFFSET_WORDS = re.compile(
    r"(?i)\b(?:before|after|prior|ahead|earlier|later|advance|beforehand|notice|vor|nach|vorher|avant|après|apres|"
    r"antes|después|despues|prima|dopo|voor|na|lasts?|takes|long|dauert|dauern|dure|durent|dura|duran|duurt|"
    r"fast|fasting|ayuno|ayunas|nüchtern|jeûne|jeun|digiuno|jejum)\b"
    r"|提前|之前|以前|之后|以后|时长|历时|禁食|空腹"
)
_OFFSET_REACH = 30  # characters from the length of time to the word that makes it an offset


#: a length of time a sentence gives as one (`for 24 hours`, `so it's out 48 hours`), not a thing's kind (`a
#: 24-hour hire`)
_FOR_LENGTH = re.compile(
    r"(?i)\b(?:for|so|since|giving|that's|that is|which is)\s+(?:\w+\s+){0,4}?\d+\s+(?:hours?|days?)\b"
)


def _said_durations(text: str, policy: bool = False) -> set[int]:
    """The lengths of time a text says, in minutes; a `policy`'s (the system prompt's) only as offsets."""
    if not holds_any(fold(text), _SAID_DURATION_STEMS) and _DIGIT_H.search(text) is None:
        return set()  # no unit word, and no `1h30`
    out = set()
    for m in _SAID_DURATION.finditer(text):
        near = text[max(0, m.start() - _OFFSET_REACH) : m.end() + _OFFSET_REACH]
        beside = text[m.start() - 1 : m.start()] + text[m.end() : m.end() + 1]  # `预约前24小时`, `30分钟后`
        if policy and not _OFFSET_WORDS.search(near) and not ("前" in beside or "后" in beside):
            continue
        if m["hh"]:  # `1h30 de cours`
            minutes: float = int(m["hh"]) * 60 + int(m["hm"] or 0)
        else:
            said, unit = (m["n"] or m["w"], m["u"]) if m["u"] else (m["zn"], m["zu"])
            word = fold(said)
            if word.startswith("half"):
                n: float = 0.5
            elif said[0].isdigit():
                n = float(said.replace(",", "."))
            elif word in _DURATION_NUMBER_WORDS:
                n = _DURATION_NUMBER_WORDS[word]
            else:  # `三十分钟`, `四十五分钟`
                n = zh_number(said)
            n += 0.5 if m["half"] or unit == "个半小时" else 0
            minutes = n if fold(unit).startswith("min") or unit == "分钟" else n * 60
            minutes += int(m["m"] or 0)  # `1 hour 30 minutes`
        if 0 < minutes <= _MAX_DURATION and float(minutes).is_integer():
            out.add(int(minutes))
    return out


def _leaf_durations(pairs: Iterable[tuple[str, Any]]) -> set[int]:
    """The lengths of time a call's or a result's numbers give under a key that says so, in minutes: a
    unit last (`duration_min`, `fast_hours`, `hours`) or `duration` (minutes). Not `min_price`,
    `opening_hour` (a time of day) or `length_cm`."""
    out = set()
    for key, value in pairs:
        if type(value) is not int and type(value) is not float:  # not a bool either
            continue
        if "h" not in key and "min" not in key and "dur" not in key:
            continue
        words = key_words(key)
        if not words:
            continue
        if words[-1] in ("hours", "hrs"):
            minutes = value * 60
        elif words[-1] in ("min", "mins", "minutes") or "duration" in words:
            minutes = value
        else:
            continue
        if 0 < minutes <= _MAX_DURATION and float(minutes).is_integer():
            out.add(int(minutes))
    return out


_HALF_OF_DAY = re.compile(r"(?i)[ap]\.?\s?m\b|noon|midnight|midday|上午|下午|早上|晚上|凌晨|中午")


def _dial(original: str) -> bool:
    """Whether a time was said on a 12-hour dial without its half of the day (`3:30`, not `3:30pm`)."""
    m = _CLOCK.search(original)
    return (
        m is not None
        and int(m["h"]) <= 12
        and not (len(m["h"]) == 2 and m["h"].startswith("0"))  # `09:00` is a 24-hour time
        and _HALF_OF_DAY.search(original) is None
    )


def _money_said(text: str) -> set[float]:
    """The amounts a text says in a currency (`$6`): amounts, not counts, however small."""
    return {
        _round(n)
        for canon in _fact_keys(text)
        if canon.startswith("number:")
        and is_currency(canon.partition("|")[2])
        and (n := _number_of(canon)) is not None
    }


_PAIR_GAP = 30  # characters between a day and the time said with it (`Mittwoch, 12.03., 16:30 Uhr`)


#: the days a policy's deadline lies before a date: `the day before`, `three days before`, `two days (48
#: hours) before`, `48 hours before` (whole days)
_DEADLINE_DAYS = re.compile(
    r"(?i)\bthe\s+(?:day|night|evening)\s+(?:before|prior)\b|\bthe\s+previous\s+day\b"
    r"|\b(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)[\s-]+(?:calendar\s+)?days?"
    r"(?:\s*\([^()]{1,20}\))?\s+(?:before|prior)\b"
    r"|\b(?P<h>\d{2,3})[\s-]*(?:hours?|hrs?)\s+(?:before|prior)\b"
)
_DEADLINE_DAYS_STEMS = ("before", "prior", "previous")
_DEADLINE_TIME_REACH = 32  # characters before the days read for its time (`until 17:00 local time, `)


def _policy_deadlines(text: str) -> set[tuple[str, int]]:
    """(`HH:MM`, days) of each deadline a system prompt sets at a time of day some whole days before a date,
    the time right before the days: `Full refund if cancelled before 17:00 three days before the tour
    date` (17:00, 3), `… before 17:00 the day before` (17:00, 1), `Free cancellation until 15:00 two days
    (48 hours) before the arrival date` (15:00, 2); not `up to 24 hours before, by phone until 18:00`."""
    out: set[tuple[str, int]] = set()
    if not holds_any(fold(text), _DEADLINE_DAYS_STEMS) or not DIGIT.search(text):
        return out
    for sentence in sentences(text[:MAX_FACT_CHARS]):
        for m in _DEADLINE_DAYS.finditer(sentence):
            # the time right before the days (`before 17:00 the day before`), not another of the sentence's
            # (`up to 24 hours before, by phone until 18:00`)
            keys = _fact_keys(sentence[max(0, m.start() - _DEADLINE_TIME_REACH) : m.start()])
            clocks = {k[5:] for k in keys if k.startswith("time:") and len(k) == 10}
            if len({k for k in keys if k.startswith("clock:")}) != 1:  # `2:00 PM`: 14:00 and 02:00, one
                continue
            said = m["n"]
            if m["h"]:
                if int(m["h"]) % 24:
                    continue
                days = int(m["h"]) // 24
            else:
                days = _count_said(said) if said else 1
            if 0 < days <= _MAX_OFFSET:
                out |= {(clock, days) for clock in clocks}
    return out


def _dated_times(reply: str, facts: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """(`MM-DD`, `HH:MM`) of each day a reply states after a word of a deadline (`until`, `bis`, `jusqu'au`)
    with a time of day right after it (`… stornieren bis Mittwoch, 12.03., 16:30 Uhr`) or right before it,
    after the deadline word (`until 9:00 a.m. on Friday, July 10`)."""
    text = reply[:MAX_FACT_CHARS]
    if not _DEADLINE_WORDS.search(text) and not _UP_TO.search(text):
        return set()
    placed_days, placed_clocks = _day_and_clock_places(text, facts)
    days = [  # the days said after a deadline's word
        (at, end, day)
        for at, end, day in placed_days
        if _DEADLINE_WORDS.search(text, max(0, at - _PAIR_GAP), at)
        or _UP_TO_DAY.search(text, max(0, at - _PAIR_GAP), at)
    ]
    clocks = sorted((at, clock) for at, _, clock in placed_clocks)
    out = set()
    for start, end, day in days:  # the clocks said within `_PAIR_GAP` after the day, or before it
        i = bisect.bisect_left(clocks, (end, ""))
        while i < len(clocks) and clocks[i][0] - end <= _PAIR_GAP:
            out.add((day, clocks[i][1]))
            i += 1
        i = bisect.bisect_left(clocks, (max(0, start - _PAIR_GAP), ""))
        while i < len(clocks) and clocks[i][0] < start:
            at = clocks[i][0]
            if (
                _UNTIL_WORDS.search(text, max(0, at - _PAIR_GAP), at)
                or (
                    (
                        _DEADLINE_WORDS.search(text, max(0, at - _PAIR_GAP), at)
                        or _UP_TO_CLOCK.search(text, max(0, at - _PAIR_GAP), at)
                    )
                    and _CANCEL_WORDS.search(text, max(0, at - _CANCEL_REACH), at)
                )
                or _TELL_US_BY.search(text, max(0, at - _PAIR_GAP), at)
            ):
                out.add((day, clocks[i][1]))
            i += 1
    return out


#: a number of two parts with a dot between (`16.20`, `13.11`, `1.11`)
_DOTTED_PAIR = re.compile(r"(\d{1,2})\.(\d{1,2})")


def _dotted_readings(original: str, reply: str) -> list[str]:
    """The other readings of a number written with a dot between two small numbers, as many languages write a
    time of day and a day of a month — the fact reader takes them for decimals: `time:16:20` in a reply that
    writes its times so (`klo 17.00, 17.40 ja 18.20 (lisäksi 16.20)`: its last time has no `klo` before it;
    not `The fee is 14.30`), `md:11-13` for a day with the dot after it and the sentence going on
    (`torstaina 13.11. klo 12.00`; not `The fee is 24.12.`, the sentence's end)."""
    m = _DOTTED_PAIR.fullmatch(original.strip())
    if m is None:
        return []
    a, b = int(m[1]), int(m[2])
    out = []
    if a <= 23 and len(m[2]) == 2 and b <= 59 and writes_dotted_times(reply[:MAX_FACT_CHARS]):
        out.append(f"time:{a:02d}:{b:02d}")
    day = rf"(?<![\d.]){re.escape(original.strip())}\.\s+[a-z\d]"
    if 1 <= a <= 31 and 1 <= b <= 12 and re.search(day, reply[:MAX_FACT_CHARS]):
        out.append(f"md:{b:02d}-{a:02d}")
    return out


def _said_in(canon: str, pairs: set[tuple[str, str]]) -> bool:
    """Whether a day's (`date:`, `md:`) or a time's (`time:HH:MM`) fact key is a part of one of these
    (`MM-DD`, `HH:MM`) pairs."""
    if canon.startswith("time:"):
        return len(canon) == 10 and any(clock == canon[5:] for _, clock in pairs)
    return any(day == canon[-5:] for day, _ in pairs)


def _day_and_clock_places(
    text: str, facts: Iterable[tuple[str, str]]
) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """Where a reply's text says each of its days (`date:`, `md:` facts, as `MM-DD`) and its times of day
    (`time:HH:MM`, as `HH:MM`): (start, end, value) at each place each is said (`16:30–18:00 … until
    Wednesday 12.03., 16:30`), each fact looked for once."""
    days: list[tuple[int, int, str]] = []
    clocks: list[tuple[int, int, str]] = []
    for canon, original in dict.fromkeys(facts):
        dated = canon.startswith(("date:", "md:"))
        if (not dated and not (canon.startswith("time:") and len(canon) == 10)) or not original:
            continue
        at = text.find(original)
        while at >= 0:
            (days if dated else clocks).append((at, at + len(original), canon[-5:]))
            at = text.find(original, at + len(original))
    return days, clocks


def _clocked_days(reply: str, facts: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """(`MM-DD`, `HH:MM`) of each day a reply states with a time of day said within `_PAIR_GAP` characters
    before or after it (`from 23:50 on Monday 2 March`, `Monday 2 March, 23:50`), whatever words say
    what the time is."""
    days, clocks = _day_and_clock_places(reply[:MAX_FACT_CHARS], facts)
    return {
        (day, clock)
        for start, end, day in days
        for at, to, clock in clocks
        if end <= at <= end + _PAIR_GAP or start - _PAIR_GAP <= to <= start
    }


#: what says a deadline before a day: `until`, `by`, `before`, `bis`, `jusqu'au`, `hasta el`, `fino al`
_DEADLINE_WORDS = re.compile(
    r"(?i)\b(?:until|till|by|before|no later than|bis|vor|jusqu|avant|hasta|antes|fino|entro|até|tot|uiterlijk)\b"
)
#: `up to` right before a deadline's time and day (`free cancellation up to 13:00 on Friday 14 June`),
#: and not before a count or an amount (`a bay for up to 4 players on Wednesday 5 March`, `up to 20% on …`)
_UP_TO = re.compile(r"(?i)\bup\s+to\b")
_UP_TO_CLOCK = re.compile(r"(?i)\bup\s+to\s+$")
_UP_TO_DAY = re.compile(
    r"(?i)\bup\s+to\s+(?:(?:\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?|noon|midnight)\s+(?:on\s+)?)?(?:[^\W\d_]+,?\s+)?$"
)


#: a deadline's words when its time comes before its day (`until 9:00 a.m. on Friday`); `by` and `before` only
#: after a word of cancelling or changing (`cancel … before 10 AM on Wednesday`), or right after telling the
#: business (`let us know by 19:15 on Thursday`, `_TELL_US_BY`): they say when to arrive as
#: often (`arrive by 9:00 a.m. on Friday`)
_UNTIL_WORDS = re.compile(
    r"(?i)\b(?:until|till|no later than|bis|jusqu|hasta|fino|entro|até|tot|uiterlijk)\b"
)
_CANCEL_WORDS = re.compile(
    r"(?i)\b(?:cancel\w*|chang\w*|reschedul\w*|amend\w*|modif\w*|refund\w*|free|stornier\w*|annul\w*)\b"
)
#: telling the business right before a deadline's `by` or `before` (`just let us know by 19:15 on Thursday`; not
#: `We'll notify the instructor. Please arrive by 19:15`)
_TELL_US_BY = re.compile(
    r"(?i)\b(?:let\s+(?:us|me)\s+know|tell\s+(?:us|me)|notify\s+(?:us|me)|inform\s+(?:us|me))\s+(?:\w+\s+){0,2}?"
    r"(?:by|before|no\s+later\s+than)\s+$"
)
_CANCEL_REACH = 80  # characters before the time read for such a word


#: a rule's day of each month: `on the 1st of each month`, `the 15th of every month`, `the second Tuesday of
#: the month`, `the last Friday of each month`
_MONTHLY = re.compile(
    r"(?i)\bthe\s+(?:(?P<d>\d{1,2})(?:st|nd|rd|th)|(?P<n>first|second|third|fourth|last|1st|2nd|3rd|4th)\s+"
    r"(?P<w>monday|tuesday|wednesday|thursday|friday|saturday|sunday))\s+of\s+(?:each|every|the)\s+month\b"
)
_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}


def _monthly_rules(text: str) -> list[tuple[int, int, frozenset[str]]]:
    """(0, day of the month) or (nth, weekday; -1 the last) of each monthly rule a text states, with the
    words of its sentence before the day (`Monthly plans are billed`)."""
    if "month" not in text:
        return []
    out = []
    text = text[:MAX_FACT_CHARS]
    for m in _MONTHLY.finditer(text):
        start = max(text.rfind(".", 0, m.start()), text.rfind("\n", 0, m.start()), m.start() - _MONTHLY_REACH)
        words = frozenset(_CUE_WORD.findall(text[start + 1 : m.start()].lower())) - _GENERIC_RULE_WORDS
        if m["d"] and 1 <= int(m["d"]) <= 31:
            out.append((0, int(m["d"]), words))
        elif m["n"]:
            out.append((_NTH[m["n"].lower()], WEEKDAY_NAMES.index(m["w"].title()), words))
    return out


_MONTHLY_REACH = 60  # characters before a monthly rule's day, and before a reply's, read for their words
_GENERIC_RULE_WORDS = frozenset(
    {"the", "and", "are", "is", "on", "each", "every", "month", "monthly", "your", "our"}
)


def _month_length(day: date) -> int:
    return calendar.monthrange(day.year, day.month)[1]


def _class_days(leaves: Sequence[tuple[str | float, bool, str]]) -> set[int]:
    """The weekdays one result gives under a day key (`"day": "Wednesday"`, `"weekday": "środa"`, `"dow":
    "WED"`) — a class's, a round's — when it gives one or two: a week's opening hours give every weekday."""
    days = {
        weekday
        for leaf, _, key in leaves
        if isinstance(leaf, str)
        and len(leaf) <= _MAX_WEEKDAY_CHARS
        and _day_key(key)
        and (weekday := _weekday_value(leaf)) is not None
    }
    return days if len(days) <= _MAX_CLASS_DAYS else set()


_MAX_CLASS_DAYS = 2


@lru_cache(maxsize=4_096)
def _day_key(key: str) -> bool:
    """A key that names days (`day`, `weekday`, `dow`, `on`: `_DAY_KEY_WORDS`)."""
    return not _DAY_KEY_WORDS.isdisjoint(key_words(key))


#: the words of a key whose fraction is a percentage (`coverage: {"diagnostic": 0.8}`, `vat_rate: 0.2`), in
#: it or in a key it sits under; not a probability (`precip_probability: 0.5`)
_RATE_WORDS = frozenset(
    {"coverage", "covered", "rate", "rates", "discount", "percent", "percentage", "pct", "tax", "vat", "commission",
     "coinsurance", "copay", "share", "deposit"}
)  # fmt: skip


@lru_cache(maxsize=8_192)
def _rate_key(key: str) -> bool:
    return not _RATE_WORDS.isdisjoint(key_words(key))


def _rates(value: Any, rated: bool = False, depth: int = 0) -> list[float]:
    """The fractions (0 < x < 1) a result gives under a key of `_RATE_WORDS`, at any depth beneath it."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(value, dict):
        return [
            x
            for key, leaf in list(value.items())[: _MAX_RANGE_ITEMS * 5]
            for x in _rates(leaf, rated or _rate_key(str(key)), depth + 1)
        ]
    if isinstance(value, list):
        return [x for item in value[:_MAX_RANGE_ITEMS] for x in _rates(item, rated, depth + 1)]
    number = _finite(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    return [number] if rated and number is not None and 0 < number < 1 else []


#: a range of seats or items written short (`H1-H4`, `C14–C15`, `14-15`)
_ID_RANGE = re.compile(r"(?P<a>[A-Za-z]{0,3}\d{1,4})\s?[-–]\s?(?P<b>[A-Za-z]{0,3}\d{1,4})")
_DIGITS_AT_END = re.compile(r"\d+$")
_PAIR = re.compile(r"\b(?:both|pair|two|couple)\b")


def _ends(token: str) -> list[str]:
    """An id and its ends a range may write it by: from a letter after a separator or a letter, or its
    digits (`dc-c14`: `dc-c14`, `c14`, `14`; not `4`)."""
    digits = _DIGITS_AT_END.search(token)
    if digits is None:
        return [token]
    out = [token, digits[0]]
    letters = _LETTERED_END.search(token)
    if letters is not None:
        out.append(letters[0])
    return out


_ID_TOKEN = re.compile(r"[A-Za-z]*\d+[A-Za-z0-9]*")
_LETTERED_END = re.compile(r"[a-z]{1,3}\d+$")  # `c14` of `dc-c14`
_MAX_WEEKDAY_CHARS = 12  # a result's value read as a weekday (`Wednesday`, `mercredi`, `WED`)


@lru_cache(maxsize=1)
def _weekday_names() -> dict[str, int]:
    """Every weekday's names in the calendar's languages (`monday`, `środa`, `星期三`), not two-letter ones."""
    return {n: i for i in range(7) for n in weekday_names(i) if len(n) > 2}


@lru_cache(maxsize=1)
def _weekday_values() -> dict[str, int]:
    names = {normalize_text(n): i for n, i in _weekday_names().items()}
    names |= {f"{n}s": i for n, i in list(names.items()) if n.isascii() and n.endswith("day")}  # `Wednesdays`
    return names | {code: i for code, i in WEEKDAY_CODES.items() if len(code) == 3}  # `WED`, not `WE`


def _weekday_value(text: str) -> int | None:
    """The weekday a short value is (`Wednesday`, `Wednesdays`, `środa`, `mercredi`, `WED`), else None."""
    return _weekday_values().get(normalize_text(text))


#: a range of clock times, its start read (`08:00-12:00`, `9:30 – 11:00`)
_CLOCK_RANGE = re.compile(r"(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)\s?[-–]\s?(?:[01]?\d|2[0-3]):[0-5]\d")


def _datetimes(strings: Iterable[str], zones: Sequence[tzinfo] = ()) -> set[tuple[str, str]]:
    """(date, `HH:MM`) of each string that is a date and time (`2025-03-13T16:30:00+01:00`; a UTC one also on
    the wall clock of `zones`), and of a call's one date with each of its times when it takes them apart
    (`date: 2026-06-07`, `start: 15:00`; a window's start: `window: "08:00-12:00"`)."""
    out = set()
    dates, clocks = set(), set()
    for text in strings:
        if 16 <= len(text) <= 40 and text[:4].isdigit() and _ISO_DATETIME.fullmatch(text):
            out.add((text[:10], text[11:16]))
            out.update(_wall_clocks(text, zones))
        elif len(text) == 10 and text[:4].isdigit() and _ISO_DATE.fullmatch(text):
            dates.add(text)
        elif len(text) <= 13 and (m := (_CLOCK if len(text) <= 8 else _CLOCK_RANGE).fullmatch(text)):
            clocks.add(f"{int(m['h']):02d}:{m['m']}")
    if len(dates) == 1:
        out |= {(day, clock) for day in dates for clock in clocks}
    return out


#: what runs over a whole month: a pass, a statement, a bill, a subscription (`the November pass`, 11月的月票);
#: not a table in May
_PERIOD_WORDS = re.compile(
    r"(?i)(?<!boarding )\b(?:pass(?:es)?|statements?|bills?|billing|invoices?|subscriptions?|memberships?|monthly|"
    r"rent|abonnement|Monatskarte|abono|mensual|mensuel)\b|月票|月卡|账单|会员"
)
#: a month by its name (`November`, `11月`): where a period word must be near
_MONTH_NAMED = re.compile(
    r"(?i)\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b"
    r"|\d{1,2}\s*月"
)
_PERIOD_REACH = 25  # characters between a month's name and the word of what runs over it


#: a week named as a whole, this one or the next (`any day next week`, `nächste Woche`, 下周), and the
#: weekday names a week said beside one names a single day of (`Tuesday next week`, 下周二)
_WEEK_NAMED = re.compile(
    r"(?i)\b(?:(?P<this>this|current)|next|coming)\s+week\b(?!-?end)"
    r"|\b(?:(?P<de_this>diese)|nächste)n?\s+woche\b|\b(?:(?P<fr_this>cette)\s+semaine|semaine\s+prochaine)\b"
    r"|\b(?:(?P<es_this>esta)\s+semana|próxima\s+semana|semana\s+que\s+(?:viene|vem))\b"
    r"|\b(?:(?P<it_this>questa)\s+settimana|prossima\s+settimana|settimana\s+prossima)\b"
    r"|\b(?:(?P<nl_this>deze)|volgende)\s+week\b"
    r"|(?:(?P<zh_this>[这本])|下)个?(?:周|星期|礼拜)(?![一二三四五六日天末1-7])"
)
#: the words of a key that bounds a search's window (`date_to`, `earliest`): what a week said whole grounds;
#: not a booking's own date, which a result must give
_BOUND_WORDS = frozenset(
    {"from", "to", "until", "till", "since", "after", "before", "earliest", "latest", "min", "max"}
)
_LOWER_WORDS = frozenset({"from", "since", "after", "earliest", "min"})
_UPPER_WORDS = frozenset({"to", "until", "till", "before", "latest", "max"})
_MIN_WEEK_LIST = 3  # days of a named week a list holds to be that week's schedule (`every weekday next week`)
_WEEK_STEMS = ("week", "woche", "semaine", "semana", "settimana", "周", "星期", "礼拜")
_WEEKDAY_REACH = 15  # characters on each side of a named week read for a weekday's name


@lru_cache(maxsize=1)
def _weekday_word() -> re.Pattern[str]:
    return re.compile("(?i)" + "|".join(sorted(map(re.escape, _weekday_names()), key=len, reverse=True)))


def _weeks_named(text: str, today: str | None) -> list[date]:
    """The Mondays of this week and the next as a user names them whole (`free any day next week`), not
    with a weekday beside them (`Tuesday next week`, `next week on Friday`, 下周二: one day)."""
    if not today or not holds_any(fold(text), _WEEK_STEMS):
        return []
    try:
        monday = date.fromisoformat(today[:10])
        monday -= timedelta(days=monday.weekday())
        date.fromordinal(monday.toordinal() + 7)  # next week exists (not past 9999-12-31)
    except (ValueError, OverflowError):
        return []
    out = []
    for m in _WEEK_NAMED.finditer(text[:MAX_FACT_CHARS]):
        around = text[max(0, m.start() - _WEEKDAY_REACH) : m.end() + _WEEKDAY_REACH]
        if _weekday_word().search(around):
            continue
        this = any(m[g] for g in ("this", "de_this", "fr_this", "es_this", "it_this", "nl_this", "zh_this"))
        out.append(monday if this else monday + timedelta(days=7))
    return out


def _whole_months(text: str, keys: tuple[str, ...], today: str | None) -> list[str]:
    """A month the user names with no day of it, of something that runs over a whole month (`the November
    pass`, `my March statement`: `_PERIOD_WORDS`): its first and last days, the coming ones. `keys`: the text's `_fact_keys`,
    which a text with no digit has none of."""
    if not keys and holds_any(fold(text), MONTH_STEMS):
        keys = extract_facts(text[:MAX_FACT_CHARS], False).facts
    if not any(k.startswith("month:") for k in keys) or not _PERIOD_WORDS.search(text):
        return []
    if not any(  # `the November pass`, `my statement for March`; not `a pass for my June trip` far from it
        _PERIOD_WORDS.search(text, max(0, m.start() - _PERIOD_REACH), m.end() + _PERIOD_REACH)
        for m in _MONTH_NAMED.finditer(text)
    ):
        return []
    months = {int(k[6:]) for k in keys if k.startswith("month:") and k[6:].isdigit()}
    with_day = {int(k[3:5]) for k in keys if k.startswith("md:") and k[3:5].isdigit()}
    out = []
    this = date.fromisoformat(today) if today else None
    for month in sorted(months - with_day):
        if not 1 <= month <= 12:
            continue
        year = (this.year + (month < this.month)) if this is not None else 2000
        last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
        for day in (1, last):
            out.append(
                f"date:{year}-{month:02d}-{day:02d}" if this is not None else f"md:{month:02d}-{day:02d}"
            )
    return out


#: a day said, then a word that runs a range to another (`Monday to Wednesday`, `the 3rd through the 6th`,
#: `April 3 - 6`, `周一到周三`): the days between are said too. The word before the range's is a day's (not
#: `June 5, 8 to 10 of us`, a count; not `von 9 bis 13 Uhr`, hours)
_DAY_RANGE = re.compile(
    r"(?i)(?:\b(?P<to>to|through|thru|until|till|bis|au|al)\b|(?P<sign>[-–—~到至]))\s*(?:the\s+)?"
    r"(?=mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d|周|星期|礼拜|下周|本周|这周)"
)
#: what the words right before a range's word must end with: a day (`Monday`, `the 3rd`, `April 3`, 周一)
_DAY_BEFORE = re.compile(
    r"(?i)(?:day|\d(?:st|nd|rd|th)|[一二三四五六日天号]|\d{4}-\d{2}-\d{2}"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}"
    r"|\d{1,2}\.?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\.?\s*$"
)
#: what says there is nothing on a day (`no lesson`, `closed`, `kein Unterricht`, `pas de cours`, 休息)
_NOTHING_ON = re.compile(
    r"(?i)\b(?:no|not|none|closed|shut|without|kein\w*|geschlossen|pas|aucun\w*|fermé\w*|nessun\w*|chiuso|ningún|"
    r"ninguna|cerrado|nie|ei|geen|gesloten|inget|ingen)\b|n['’]t\b|没有|休息|不"
)
_DAY_RANGE_HINT = ("to", "th", "ti", "bis", "au", "al", "-", "–", "—", "~", "到", "至")
_LEADING_DAY = re.compile(
    r"\s*(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b(?![.,:/]?\d)(?!\s*(?:am|pm|h\b|hours?|uhr|heures?|horas?|[:.]))"
    r"(?!\s*(?:people|persons?|guests?|pax|adults?|kids|children|of\s+us)\b)",
    re.I,
)
#: a bare day number right before a range's word (`vom 3. bis 6. April`): its month is the second day's
_TRAILING_DAY = re.compile(r"(?i)(?<![\d/.:,-])\b(\d{1,2})(?:st|nd|rd|th)?\.?\s*$")
_RANGE_SIDE = 24  # characters read on each side of a range's word for its two days
_MAX_RANGE_DAYS = 7  # a stay or a run of days a user books, not two dates a month apart
_MAX_RANGE_ITEMS = 20  # the objects of a result's list read for ranges
_MAX_YEAR = 9000  # dates past it are left alone: a day after 9999-12-31 does not exist


def _days_between(text: str, today: str | None, relative: bool = True) -> list[str]:
    """The dates between the two days of a range a user's message says (`Monday to Wednesday`, 下周一到周三:
    the Tuesday; `_DAY_RANGE`): each day the words before the range's word name, to each day the words
    after it name, when that is 2 to `_MAX_RANGE_DAYS` days later. Not `relative`: of days written as dates
    only (a system prompt's `no lessons in half-term week (27 October - 2 November)`, not its `open Monday to
    Friday`, a week's hours and no days of this week)."""
    if not holds_any(fold(text), _DAY_RANGE_HINT):
        return []
    out = []
    text = text[:MAX_FACT_CHARS]
    for m in _DAY_RANGE.finditer(text):
        start, end = m.span("to") if m["to"] else m.span("sign")
        bare = _TRAILING_DAY.search(text, max(0, start - _RANGE_SIDE), start)
        if not bare and not _DAY_BEFORE.search(text, max(0, start - _RANGE_SIDE - 16), start):
            continue
        left = _dates_said(text[max(0, start - _RANGE_SIDE) : start], today, relative)
        after = text[end : end + _RANGE_SIDE]
        right = _dates_said(after, today, relative)
        if bare:  # `vom 3. bis 6. April`, `3 to 6 April`: the first day in the month of the second
            n = int(bare[1])
            firsts = [d.replace(day=n) for d in right if 0 < d.day - n <= _MAX_RANGE_DAYS]
            out += [f"date:{d}" for d in firsts]
            left += firsts
        if day := _LEADING_DAY.match(after):  # `April 3 to 6`, `May 5th to the 8th`: in the first's month
            n = int(day[1])
            for d in left:
                if 0 < n - d.day <= _MAX_RANGE_DAYS and valid_day(d.year, d.month, n):
                    out.append(f"date:{d.replace(day=n)}")
                    right.append(d.replace(day=n))
        for first, last in itertools.product(left, right):
            if last < first and last.month < first.month:  # `December 30 to January 2`: the next year's
                last = _next_year(last)
            if 1 < (last - first).days <= _MAX_RANGE_DAYS:
                out += [f"date:{first + timedelta(days=k)}" for k in range(1, (last - first).days)]
    return out


#: the first-day and last-day key words of a range one object gives (`check_in`/`check_out`, `start_date` /
#: `end_date`, `from`/`to`, `arrival`/`departure`, `pickup_date`/`return_date`), each first with its lasts
_RANGE_PAIRS = {
    "checkin": ("checkout",), "start": ("end",), "begin": ("end",), "from": ("to", "until"),
    "arrival": ("departure",), "arrive": ("depart", "leave"), "pickup": ("return", "dropoff"),
}  # fmt: skip
_WINDOW_FIRSTS = frozenset({"from", "start", "begin"})  # what a search's window starts by, as a stay does not
_RANGE_ENDS = frozenset(w for lasts in _RANGE_PAIRS.values() for w in lasts)
_MAX_RANGE_KEYS = 8  # first-day and last-day keys of one object paired (a result of thousands: no stays)


def _iso_dated(text: str) -> bool:
    """A string that opens with an ISO date (`2024-05-20`, `2024-05-20T10:00`), as `_range_days` reads them."""
    return len(text) >= 10 and text[4] == "-" and _ISO_DATE.match(text) is not None  # (the dash: cheaper)


@lru_cache(maxsize=4_096)
def _range_key(key: str) -> tuple[bool, bool]:
    """Whether a key names a range's first day, and whether its last day, as `_range_days` reads keys."""
    words = key_words(key)
    said = ("".join(words), *words)
    return any(w in _RANGE_PAIRS for w in said), any(w in _RANGE_ENDS for w in said)


def _range_days(value: Any, depth: int = 0, stays_only: bool = False) -> list[date]:
    """The days strictly inside each range one object of a result gives by two ISO dates under a first-day
    and a last-day key of one pair (`_RANGE_PAIRS`: `check_in` / `check_out`, not `first_used` /
    `last_used`), 2 to `_MAX_RANGE_DAYS` days apart: the nights of a stay, the days of a hire;
    `stays_only`: not `from` / `to`, `start` / `end` (a search's window). Its leaves are read to the depth
    the result's others are (`_result_leaves`), whose keys say whether to walk it at all (`add_call`)."""
    if depth >= MAX_DEPTH:  # an object here has its leaves below `MAX_DEPTH`
        return []
    out: list[date] = []
    if isinstance(value, list):
        for item in value[:_MAX_RANGE_ITEMS]:  # a long list's ranges are no stay of this conversation
            out += _range_days(item, depth + 1, stays_only)
        return out
    if not isinstance(value, dict):
        return out
    firsts: list[tuple[str, date]] = []
    lasts: list[tuple[str, date]] = []
    for key, leaf in value.items():
        if isinstance(leaf, dict | list):
            out += _range_days(leaf, depth + 1, stays_only)
        elif isinstance(leaf, str) and _iso_dated(leaf):
            words = key_words(str(key))
            joined = "".join(words)
            day = _day_of(f"date:{leaf[:10]}", None)
            if day is None:
                continue
            first = next((w for w in (joined, *words) if w in _RANGE_PAIRS), None)
            last = next((w for w in (joined, *words) if w in _RANGE_ENDS), None)
            if first and len(firsts) < _MAX_RANGE_KEYS:
                firsts.append((first, day))
            elif last and len(lasts) < _MAX_RANGE_KEYS:
                lasts.append((last, day))
    for (first, a), (last, b) in itertools.product(firsts, lasts):
        if stays_only and first in _WINDOW_FIRSTS:
            continue
        if last in _RANGE_PAIRS[first] and 1 < (b - a).days <= _MAX_RANGE_DAYS:
            out += [a + timedelta(days=k) for k in range(1, (b - a).days)]
    return out


def _dates_said(text: str, today: str | None, relative: bool = True) -> list[date]:
    """The dates a few words name: written, relative to `today` (when `relative`), or a month and day in
    `today`'s year."""
    year = today[:4] if today else None
    days = (
        _day_of(key, year) for key in (*_fact_keys(text), *(spoken_keys(text, today) if relative else ()))
    )
    return [day for day in days if day is not None]


def _day_of(key: str, year: str | None) -> date | None:
    """A `date:` key's date, or an `md:` key's day in `year`; None for another key or a day that is none."""
    if key.startswith("date:"):
        said = key[5:]
    elif key.startswith("md:") and year:
        said = f"{year}-{key[3:]}"
    else:
        return None
    try:
        return date.fromisoformat(said)
    except ValueError:
        return None


def _next_year(day: date) -> date:
    """The same day a year later, where there is one."""
    return (
        day.replace(year=day.year + 1)
        if day.year < _MAX_YEAR and valid_day(day.year + 1, day.month, day.day)
        else day
    )


#: a claimed action that another's flag says too: a pass transferred is moved (an update)
_TAKES_IN = {"update": ("transfer",)}
_DONE_WORDS = frozenset({"issued", "processed", "initiated", "completed", "done", "applied", "made"})


#: the words of a key under which a lookup lists what exists, done: `upcoming_appointments`, `bookings` (not
#: `reservation_id`: a lookup of one reservation, whose dates a claim of rebooking it names too)
_BOOKED_WORDS = frozenset({"upcoming", "appointments", "bookings", "reservations", "existing"})


_NOW = re.compile(r"(?i)\bnow\b")
_FIRST_PERSON_BOOKED = re.compile(
    r"(?i)\b(?:I|we)(?:['’]ve|\s+have)?\s+(?:\w+\s+){0,2}?(?:booked|reserved|scheduled)\b"
)


def _holds_bookings(value: Any, depth: int = 0) -> bool:
    """Whether a result has a key that lists bookings (`_BOOKED_WORDS`)."""
    if depth > MAX_DEPTH or not isinstance(value, dict | list):
        return False
    if isinstance(value, list):
        return any(_holds_bookings(v, depth + 1) for v in value)
    return any(
        not _BOOKED_WORDS.isdisjoint(key_words(str(k))) or _holds_bookings(v, depth + 1)
        for k, v in value.items()
    )


#: the words of a result's key whose value is an address: the ids in it are places, no objects of an action
_MAX_PLACE_PARTS = 6  # the comma-separated parts of a place read (`street, district, city, region, country`)
_PLACE_KEYS = ("address", "street", "postcode", "postal", "zip", "location", "venue")


@lru_cache(maxsize=8_192)
def _place_key(key: str) -> bool:
    return holds_any(key.lower(), _PLACE_KEYS)


#: words of a result's key that name no thing done: done-words, and the channel a thing went by
#: (`reset_email_sent` backs no `I've emailed you the invoice`)
_NOT_THINGS = frozenset({*_DONE_WORDS, "email", "sms", "message", "text", "mail", "to", "at", "via"})


_DAY_KEY_WORDS = frozenset({"day", "days", "weekday", "weekdays", "dow", "dows", "on"})


#: values that say a thing was not done (`"tickets_sent_to": "none"`)
_NOT_DONE_VALUES = frozenset({"", "false", "no", "none", "null", "n/a", "pending", "failed", "not_sent", "0"})


_FAILED_VALUE = re.compile(r"(?i)\b(?:fail\w*|error|not|unable|declined|rejected|bounced)\b")


def _done_value(value: str) -> bool:
    """A string that says something was done, or names where it went (`deb@…`), not that it failed or
    waits (`pending_manual_review`)."""
    folded = value.strip().casefold()
    if folded in _NOT_DONE_VALUES or _FAILED_VALUE.search(value) is not None or _undone(folded, ""):
        return False
    return len(folded) > _MAX_STATUS_CHARS or _WAITS.isdisjoint(key_words(folded))


#: the words of a status that say the thing asked for did not happen, whatever it was: on a waiting list,
#: refused, failed (`waitlisted`, `declined`, `payment_failed`, `requires_action`, `not_sent`) — not a
#: `draft` (what creating an invoice makes) nor `on-hold` (an order placed, waiting for a bank transfer)
_UNDONE_WORDS = frozenset(
    {"waitlisted", "waitlist", "declined", "rejected", "denied", "refused", "failed", "failure", "error",
     "requires", "unverified", "not"}
)  # fmt: skip
#: the words of a status that say something waits (`pending_payment`, `cancellation_requested`): undone
#: beside a word of the action claimed (for a payment, for a cancellation; not `pending_deposit` for the
#: booking it holds), or beside a decision (`_DECISION_WORDS`)
_WAITING_WORDS = frozenset({"pending", "awaiting", "requested", "under", "in", "ausstehend", "beantragt"})
#: a wait on someone's decision (`pending_approval`, `under_review`, `awaiting_confirmation`), and a booking
#: only `provisional`: undone for the actions a decision gates (`_GATED`: a booking, a refund, an upgrade, an
#: enrolment, a payment, a cancellation) — not for filing, opening, escalating or sending a request, whose
#: outcome that wait is, nor for an update (`update_claim` → `in_review`: the claim's state, not the update's)
_DECISION_WORDS = frozenset(
    {"approval", "review", "verification", "confirmation", "authorisation", "authorization",
     "authentication", "manual"}
)  # fmt: skip
_GATED = frozenset({"book", "schedule", "refund", "upgrade", "enroll", "pay", "order", "cancel"})
#: the waiting words that make a result's value no effect yet (`cancellation_requested`, `pending_refund`;
#: not `under` or `in`, which wait only beside a decision)
_WAITS = _WAITING_WORDS - {"under", "in"}
#: the keys whose value is a call's own outcome (`status`), and the last word of a thing's (`refund_status`)
_STATUS_KEYS = frozenset({"status", "state", "outcome", "result"})
_MAX_STATUS_CHARS = 40


def _undone(status: str, verb: str) -> bool:
    """Whether a status (folded) says the action `verb` claims did not happen ("": any action). Not when it
    says the action done (`cancelled_pending_refund`, `booked_pending_deposit`, `failed_before_moved`; not
    `not_sent`). Else a refusal, a failure (not a failover), a waiting list, `not_…` (`_UNDONE_WORDS`); a
    `draft` of a thing to send or submit (`draft_saved`); a wait beside the action's own word
    (`_WAITING_WORDS`: `pending_payment` for a payment) or, for an action a decision gates (`_GATED`), a
    wait on a decision or a booking only provisional (`pending_approval` for a refund)."""
    if len(status) > _MAX_STATUS_CHARS:
        return False
    said = key_words(status)
    negated = {b for a, b in itertools.pairwise(said) if a == "not"}  # `not_sent`, `cancelled_not_refunded`
    if verb and any(_CLAIM_VERBS.get(w) == verb for w in said if w not in negated):
        return False  # `cancelled_pending_refund`, `failed_before_moved`: the action's own done word
    words = set(said) - ({"failed"} if "over" in said else set())  # `failed_over_to_backup`: a failover
    if not words:
        return False
    if not _UNDONE_WORDS.isdisjoint(words) or ("draft" in words and verb in ("send", "submit")):
        return True
    if not verb:
        return False
    if verb in _GATED and (
        "provisional" in words
        or (not _DECISION_WORDS.isdisjoint(words) and not _WAITING_WORDS.isdisjoint(words))
    ):
        return True
    if _WAITING_WORDS.isdisjoint(words):
        return False
    stems = ACTIONS.get(verb, (verb,))
    return any(w.startswith(stem) for w in words - _WAITING_WORDS for stem in stems)


def _participle(key: Any) -> str:
    """A result key as the participle it may be (`cancelled`, `is_cancelled`, `wasCancelled`: `cancelled`)."""
    words = [w.lower() for w in key_words(str(key))]
    return "_".join(words[1:] if len(words) > 1 and words[0] in ("is", "was", "has", "been") else words)


def _status_undone(result: Any, verb: str) -> bool:
    """A result whose own status says the action claimed did not happen (`"status": "waitlisted"`,
    `"status": "requires_action"`, `"refund_status": "pending_manual_review"` for a refund): the call that
    gave it did not do it — grounding blind sets 4, 5, 10, 22, 23, 29, 30 and 35 planted claims of a booking, an
    enrolment, a payment, a move or a refund after exactly such results; so does the action's own participle
    as a key set false (`"cancelled": false`, blind set 40; not for an update, whose `"enabled": false` is a
    setting). Only the result's top level."""
    if not isinstance(result, dict):
        return False
    stems = ACTIONS.get(verb, (verb,))
    for key, value in result.items():
        if value is False and verb != "update" and _CLAIM_VERBS.get(_participle(key)) == verb:
            return True  # `"cancelled": false`, `"is_cancelled": false`: the thing was not cancelled
        if value is False and verb in _CONFIRMED_BY and _participle(key) == "confirmed" and _waits(result):
            return True  # `"status": "pending", "confirmed": false` from `enrol_child`: no place yet
        if not isinstance(value, str):
            continue
        words = key_words(str(key))
        if not words or words[-1] not in _STATUS_KEYS:
            continue
        thing = words[:-1]  # `refund` of `refund_status`: the status of that action only
        if thing and not any(w.startswith(stem) for w in thing for stem in stems):
            continue
        if _undone(value.strip().casefold(), verb):
            return True
    return False


#: the actions a result's `"confirmed": false` says were not done, beside a status that waits or none: a booking,
#: an enrolment, an order held but not confirmed; not an update (`update_email` → `"confirmed": false`: the
#: address is not verified yet), a cancellation or a refund
_CONFIRMED_BY = frozenset({"book", "schedule", "enroll", "order"})


def _waits(result: dict[Any, Any]) -> bool:
    """Whether a result's own status, if it gives one, waits (`"status": "pending"`; not `"status": "booked"`
    beside `"confirmed": false`, a confirmation the customer still gives)."""
    return all(not _REQUEST_WAITS.isdisjoint(key_words(v.casefold())) for v in _own_statuses(result))


def _own_statuses(result: dict[Any, Any]) -> list[str]:
    """The values of a result's own `status` or `state` (not a part's: `payment_status`)."""
    return [
        v for k, v in result.items() if isinstance(v, str) and key_words(str(k)) in (("status",), ("state",))
    ]


def _requested_only(tool: str, result: Any, verb: str) -> bool:
    """A call that only asks for the action (`request_install_reschedule`, `submit_change_request`: its name
    opens with a request) whose result's own status waits on a decision (`"pending_approval"`: any action), or
    waits (`"pending"`, `"awaiting_planner"`, `"submitted"`) where someone else decides it (`_DECIDED`): the
    move, booking or transfer it asks for is not done — only the request is (`submit`)."""
    words = key_words(tool)
    if verb == "submit" or not words or words[0] not in ("request", "submit") or not isinstance(result, dict):
        return False
    for value in _own_statuses(result):
        said = set(key_words(value.casefold()))
        if not _DECISION_WORDS.isdisjoint(said) and not _REQUEST_WAITS.isdisjoint(said):
            return True  # `request_transfer` → `pending_approval`
        if verb in _DECIDED and not _REQUEST_WAITS.isdisjoint(said):
            return True
    return False


#: the actions someone else decides after a request (a move, a booking, a cancellation, an enrolment): not an
#: order or a refund, which `submit_order` and `request_refund` do themselves (`"status": "pending"`: settling)
_DECIDED = frozenset({"update", "book", "schedule", "cancel", "enroll"})
#: what a request's own status says while it waits (`pending`, `submitted`, `received`, `in_review`, `open`)
_REQUEST_WAITS = frozenset(
    {"pending", "awaiting", "requested", "submitted", "received", "review", "open", "queued"}
)


#: how much of a failed call's error a detail quotes
_MAX_WHY = 160


def _stated_values(args: Any) -> list[tuple[str, tuple[str, ...]] | float]:
    """A call's argument values that say which thing and what of it, as a reply would give them: each string
    that holds a digit, an `@`, a typed fact or two words or more, normalized (and padded) with its typed
    facts (`_fact_keys`: `2026-08-30` is `Sunday 30 August` too); each number past a small count, rounded
    (`_round`). A lone word (`all`, `economy`) or a count (`passengers: 2`) is said of too many things."""
    out: list[tuple[str, tuple[str, ...]] | float] = []
    for _, _, leaf in _leaves(args):
        if isinstance(leaf, str):
            norm = normalize_text(leaf[:MAX_FACT_CHARS])
            keys = _fact_keys(leaf)
            if norm and (keys or " " in norm or "@" in leaf or DIGIT.search(leaf) is not None):
                out.append((f" {norm} ", keys))
        # a number, or a string of one (`"45.50"`, which a later call may carry as 45.5)
        number = _as_number(leaf)
        if number is not None and not _is_count(number):
            out.append(_round(number))
    return out


def _same_value(
    value: tuple[str, tuple[str, ...]] | float, others: Sequence[tuple[str, tuple[str, ...]] | float]
) -> bool:
    """Whether one of `others` (`_stated_values`) is the same value: the same number, the same words, or a
    typed fact in common."""
    if isinstance(value, float):
        return value in others
    return any(
        not isinstance(o, float) and (o[0] == value[0] or not set(o[1]).isdisjoint(value[1])) for o in others
    )


def _gives_any(sentence: str, values: Sequence[tuple[str, tuple[str, ...]] | float]) -> bool:
    """Whether a sentence gives one of these values (`_stated_values`): as written, as the same typed fact,
    or as the same number."""
    if not values:
        return False
    keys = set(_fact_keys(sentence))
    numbers = set(_numbers(sentence))
    padded = f" {normalize_text(sentence)} "
    for value in values:
        if isinstance(value, float):
            if value in numbers:
                return True
        elif value[0] in padded or not keys.isdisjoint(value[1]):
            return True
    return False


def _call_undone(tool: str, result: Any) -> bool:
    """Whether a successful call's result says the call did not do its own action (`_status_undone` for each
    action its name says, any action for a name that says none): `"status": "waitlisted"` from `book_firing`,
    not `"status": "failed_before_moved"` from `reschedule_lesson`."""
    if not _status_undone(result, ""):
        return False  # (most results: the cheap test first)
    verbs = [verb for verb in ACTIONS if does(tool, verb)]
    # a name that says no action (`renew_membership`): only the result's own status, not a part's
    if not verbs:
        own = {
            k: v
            for k, v in result.items()
            if len(words := key_words(str(k))) == 1 and words[0] in _STATUS_KEYS
        }
        return _status_undone(own, "")
    return all(_status_undone(result, verb) for verb in verbs)


def _effects(value: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(key, value) of each leaf of a result that may say something was done: `true`, or a string that is
    not a refusal (`"tickets_sent_to": "deb@…"`, `"confirmation_email": "sent"`)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if v is True or (isinstance(v, str) and _done_value(v)):
                yield str(k), v
            elif isinstance(v, dict | list):
                yield from _effects(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from _effects(v, depth + 1)


def _same_size(text: str, where: _Sources) -> Iterator[tuple[Source, int | None]]:
    """Sources that state the size `text` is (`_DIMENSIONS`), with any separator and unit."""
    if _SIZE_HINT.search(text) is not None and (d := _DIMENSIONS.fullmatch(text.strip())) is not None:
        yield from where.facts.get(_size_key(d), ())


def _size_key(d: re.Match[str]) -> str:
    return "size:" + "x".join(n for n in (d["a"], d["b"], d["c"]) if n)


#: a size as a tool takes it: `90x54mm`, `8x10`, `30*40*20cm` — its unit may go unsaid (`90×54的标准尺寸`); a
#: reply's plural too (`two 10x10s`)
_DIMENSIONS = re.compile(
    r"(?i)(?<![\d.])(?P<a>\d{1,4}(?:\.\d+)?)\s*[x×*]\s*(?P<b>\d{1,4}(?:\.\d+)?)(?:\s*[x×*]\s*(?P<c>\d{1,4}(?:\.\d+)?))?"
    r"(?![\d.])\s*(?:mm|cm|m|in|inch|inches|\"|s)?"
)
_SIZE_HINT = re.compile(r"\d\s*[xX×*]\s*\d")


_UTC_OFFSET = re.compile(r"(?i)\b(?:UTC|GMT)\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?\b")


def _utc_offsets(text: str) -> set[int]:
    """The offsets from UTC a text names (`UTC+1`, `GMT-05:00`, `UTC+5:30`), in minutes; not UTC itself."""
    if not holds_any(fold(text), ("utc", "gmt")):
        return set()
    out = set()
    for m in _UTC_OFFSET.finditer(text):
        minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
        if 0 < minutes <= 14 * 60:
            out.add(-minutes if m.group(1) in "-−" else minutes)
    return out


#: an IANA time zone a text names (`times are Europe/London`, `America/Los_Angeles`)
_ZONE_NAME = re.compile(
    r"\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Z][A-Za-z_-]+"
    r"(?:/[A-Z][A-Za-z_-]+)?\b"
)


def _zones_named(text: str) -> list[tzinfo]:
    """The IANA time zones a text names, those this machine's zone database knows."""
    if "/" not in text:
        return []
    zones: list[tzinfo] = []
    for m in _ZONE_NAME.finditer(text[:MAX_FACT_CHARS]):
        try:
            zones.append(ZoneInfo(m[0]))
        except (ZoneInfoNotFoundError, ValueError, OSError):  # not a zone (`Europe/Paris_office`, a folder)
            continue
    return zones


#: a date and time written in UTC (`2025-04-10T13:15:00Z`, `… 13:15+00:00`)
_UTC_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?\s?(?:Z|UTC|GMT|[+-]00:?00)"
)


def _wall_clocks(text: str, zones: Sequence[tzinfo]) -> list[tuple[str, str]]:
    """A UTC date and time as the wall clock of each zone: (date, `HH:MM`)."""
    if not zones or not 16 <= len(text) <= 40 or not text[:4].isdigit():
        return []
    m = _UTC_DATETIME.fullmatch(text.strip())
    if m is None:
        return []
    try:
        year, month, day, hour, minute = (int(g) for g in m.groups())
        at = datetime(year, month, day, hour, minute, tzinfo=UTC)
        local = [at.astimezone(zone) for zone in zones]
    except (ValueError, OverflowError):  # `2025-02-30`, a year past 9999 in a zone ahead of UTC
        return []
    return [(t.date().isoformat(), f"{t.hour:02d}:{t.minute:02d}") for t in local]


def _local_keys(text: str, zones: Sequence[tzinfo]) -> list[str]:
    """The fact keys of a UTC date and time told on the wall clock of the zones the prompt gives times in:
    `2025-04-10T13:15:00Z` is London's 10 April, `14:15`."""
    if not zones:  # most prompts name no zone: nothing to tell (`_wall_clocks`)
        return []
    keys = (key for day, clock in _wall_clocks(text, zones) for key in _fact_keys(f"{day}T{clock}"))
    return [key for key in dict.fromkeys(keys) if not key.startswith(("datetime:", "md:"))]  # `add_fact`: md


#: an id of an upper-case prefix of two letters or more and digits (`MBR-38204`, `SB4471039285`); not
#: `A38204` (` a ` is in every prompt), nor digits with a leading zero (`ORD-0042` is not `42 minutes`)
_PREFIXED_ID = re.compile(r"(?P<p>[A-Z]{2,5})[-_ ]?(?P<d>[1-9]\d{3,})")


def _declared_prefix(prefix: str, where: _Sources) -> bool:
    """Whether the system prompt names this id prefix as a word of its own (`Member IDs have the format
    MBR- followed by 5 digits`)."""
    word = f" {normalize_text(prefix)} "
    return any(source == "system" and word in text for source, _, text in where.texts)


_PHONE_DIGITS = 7
_SQUASHED_ID = 6  # an id compared without its separators must be this long (shorter ones match by chance)
_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "零": "0", "〇": "0", "一": "1", "幺": "1", "二": "2", "两": "2",
    "三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8", "九": "9",
}  # fmt: skip
_DIGIT_WORD = re.compile(
    r"(?i)\b(?:zero|oh|o|one|two|three|four|five|six|seven|eight|nine)\b|[零〇一幺二两三四五六七八九]"
)
_DOUBLE = re.compile(r"(?i)\b(double|triple)\s+(\w)")
_SEPARATORS = re.compile(r"[\W_]+")
_SAID_DASH = re.compile(r"(?i)(?<=\w)\s+(?:dash|hyphen)\s+(?=\w)")


@short_cached(maxsize=32_768)
def squash(text: str) -> str:
    """A text as a dictated id reads: digit words as digits (`zero zero nine`, `一三九`), `double 7` as `77`,
    a separator said as a word (`T R M dash 3 3 0 8 5`) gone, lower-case, every separator gone."""
    if "double" in text or "triple" in text or "Double" in text or "Triple" in text:
        text = _DOUBLE.sub(lambda m: m.group(2) * (2 if m.group(1).lower() == "double" else 3), text)
    if "dash" in text or "hyphen" in text or "Dash" in text or "Hyphen" in text:
        text = _SAID_DASH.sub(" ", text)
    text = _DIGIT_WORD.sub(lambda m: _DIGIT_WORDS[fold(m.group(0))], text)
    return _SEPARATORS.sub("", text.casefold())


_ISO_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: digits written in groups (`138 0013 8000`, `+1 646 555 0187`, `839 214`), at least four in all
_DIGIT_RUN = re.compile(
    r"(?<![\w.,:+(-])(?!\d{4}-\d{1,2}-\d{1,2}(?![\d]))(?!\d{1,2}[/-]\d{1,2}[/-]\d{2,4}(?!\d))"
    r"(?:\+?\d{1,5}|\+?\d{0,3}\s?\(\d{2,5}\))(?:[ \-]\d{2,6}){1,4}(?!\w|[.,:]\d)"
)  # not a date (`2024-05-11`, `05-11-2024`), not an amount (`1,234.50`); `(415) 555-0132`, `07911 123456`
#: two groups before a slash and a digit: a number and a size (`Eco 2 195/55 R16`), not a spaced thousand;
#: a longer run is kept (`030 1234 5678/79`: a phone number and its other line)
_SIZE_AFTER = re.compile(r"\d+[ \-]\d+/\d")
#: two days of a month, then its name (`29-31 August`, `13 - 17 Oct`): a range of days, no number in groups
_DAY_PAIR = re.compile(r"\d{1,2}\s?[-–]\s?\d{1,2}")
#: or a range of a measure (`the 24-48 hour window`, `2-3 days`)
_PAIR_AFTER = re.compile(
    r"(?i)\s*-?\s*(?:(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|hours?|hrs?|h|days?|"
    r"nights?|weeks?|months?|years?|minutes?|mins?|people|guests|kg|km|cm|mm|m)\b"
)
#: what every `_DIGIT_RUN` holds: a digit or `)`, a space or `-`, a digit (far cheaper to look for)
_DIGIT_RUN_HINT = re.compile(r"[\d)][ \-]\d")
#: a phone number as E.164 writes it, in one run: `+` and 8 to 15 digits
_E164 = re.compile(r"(?<![\w+])\+(\d{8,15})(?![\d.,])")


def _digit_runs(text: str) -> list[re.Match[str]]:
    if not _DIGIT_RUN_HINT.search(text):
        return []
    return [
        m
        for m in _DIGIT_RUN.finditer(text)
        if not _SIZE_AFTER.match(text, m.start(), m.end() + 2)
        and not (_DAY_PAIR.fullmatch(m.group(0)) and _PAIR_AFTER.match(text, m.end()))  # `29-31 August`
    ]


def _same_phone(digits: str, where: _Sources) -> Iterator[tuple[Source, int | None]]:
    """Phone numbers stated with the same digits, with or without the country code (`+14155550132`,
    `(415) 555-0132`), or with the national trunk `0` that a country code replaces (`_trunk_of`: `07911
    123456` is `+44 7911 123456`)."""
    for key, found in where.facts.items():
        if key.startswith("phone:") and _same_number(digits, key[6:]):
            yield from found


def _names_state(words: Sequence[str], stems: Sequence[str]) -> bool:
    """Whether a value's words say an action's state (`cancelled`, `already_cancelled`, `cancelled_by_user`):
    a word of the action that ends the value or comes before a preposition — not one that describes a thing
    (`raised_bed`, a plot's size, is no request raised; `booked_seats`)."""
    return any(
        any(w.startswith(stem) for stem in stems)
        and (i == len(words) - 1 or words[i + 1] in _AFTER_STATE or words[i + 1] in _CLAIM_VERBS)
        for i, w in enumerate(words)
    )


#: what may follow a state's word in a status value: a preposition (`cancelled_by_user`, `refunded_to_card`,
#: `sent_at`), or a word that says it done (`refund_issued`, `cancellation_confirmed`, `cancelled_late`; an
#: action's own word too, `_CLAIM_VERBS`: `cancelled_refunded`)
_AFTER_STATE = frozenset(
    {"by", "at", "on", "to", "via", "for", "from", "in", "ok", "successfully", "already", "confirmed", "complete",
     "received", "success", "successful", "late", "early", "free"}
) | _DONE_WORDS  # fmt: skip


def _same_number(digits: str, other: str) -> bool:
    """Two phone numbers' digits that are one number (`_same_phone`)."""
    same = len(other) >= _PHONE_DIGITS and (digits.endswith(other) or other.endswith(digits))
    return same or _trunk_of(digits, other) or _trunk_of(other, digits)


def _phone_in(phone: str, texts: Iterable[str]) -> bool:
    """Whether a text holds the phone number's digits as one number (`_same_number`): `07984112650` for
    `07984 112650`, `+447984112650` too."""
    digits = digits_of(phone)
    return any(_same_number(digits, digits_of(text)) for text in texts)


def _keeps_contact(tool: str) -> bool:
    """A tool whose name says it keeps a phone number or contact details (`update_contact_details`,
    `update_customer_contact`, `set_mobile_number`, `telefon_aendern`)."""
    return not _CONTACT_WORDS.isdisjoint(key_words(tool))


_CONTACT_WORDS = frozenset({"contact", "contacts", "phone", "mobile", "telephone", "number", "kontakt", "telefon",
                            "handynummer", "telefono", "numero", "telefone"})  # fmt: skip


def _named_phones(clause: str) -> list[str]:
    """The phone numbers a clause gives, as written, as a reply's facts read them (`07984 112650`)."""
    return [said for canon, said in _reply_facts(clause) if canon.startswith("phone:")]


def _trunk_of(national: str, international: str) -> bool:
    """`0781553209` said for `33781553209`: a national number whose trunk `0` a country code replaces,
    the rest the same, of eight digits or more (`07 81 55 32 09` is not `+44 7781553209`)."""
    if not national.startswith("0") or len(national) < 9:
        return False
    rest = national[1:]
    code = international[: len(international) - len(rest)]
    return international.endswith(rest) and code in _CALLING_CODES


#: country calling codes that replace a national trunk `0` (most of Europe, and where else numbers are
#: written with one): a number said with the `0` matches one written with the code
_CALLING_CODES = frozenset(
    {"7", "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48",
     "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65", "66", "81", "82",
     "84", "86", "90", "91", "92", "93", "94", "95", "98", "212", "216", "234", "254", "351", "352", "353",
     "354", "356", "357", "358", "359", "370", "371", "372", "380", "381", "385", "386", "420", "421", "852",
     "880", "886", "961", "962", "966", "971", "972"}
)  # fmt: skip


@lru_cache(maxsize=4_096)
def _airport_names(code: str, airports: Airports) -> tuple[str, ...]:
    """The padded names a person uses for an airport: its names, and the city its name opens with."""
    names = airports.names.get(code, ())
    out = {f" {n} " for n in names}
    for n in names:
        words = n.split()
        for k in (1, 2):
            prefix = " ".join(words[:k])
            if len(words) > k and len(prefix) >= 5:
                out.add(f" {prefix} ")
    return tuple(sorted(out))


_SOURCE_ORDER: dict[str, int] = {"user": 0, "tool_result": 1, "system": 2, "computed": 3}


def _best(found: Sequence[tuple[Source, int | None]]) -> tuple[Source, int | None]:
    """User first; among tool results the latest."""
    if len(found) == 1:
        return found[0]
    return min(found, key=lambda s: (_SOURCE_ORDER.get(s[0], 9), -(s[1] or 0)))


_TYPED_KINDS = frozenset({"number", "date", "md", "time"})
#: Kinds of value that grounding fails, when nothing states them, only beside a look-alike (`lookalike`:
#: one slip of a stated value, what garbling looks like); with none, the value may be computed or
#: converted in a way grounding does not follow (an amount with tax, a week's start), and it is only
#: uncertain.
_NEEDS_LOOKALIKE = frozenset({"number", "date", "md"})
#: What a reply's reading takes for an id but names no identifier: a size or a multiplier (`230x2` for two
#: at 230, `10x10s`, `x3`), a number joined to a word (`240-Liter-Tonne`). With no stated id one slip
#: from it, it is only uncertain: held out (blind sets 4–10, each scored before it was read), such
#: readings failed 4 good conversations and caught nothing. An identifier (`FRY-88231`) nothing states
#: fails: a made-up confirmation number is the reply's classic invention.
_NO_IDENTIFIER = re.compile(
    r"(?!0[xX])(?:\d+(?:[.,]\d+)?\s*[xX×*]\s*\d+(?:[.,]\d+)?(?:\s*[xX×*]\s*\d+(?:[.,]\d+)?)?|[xX×*]\s*\d{1,2})"
    r"[a-z]{0,3}"  # `230x2`, `10x10s`, `2x200ml`, `x3`: not `X482913`, `0x1fab`
    r"|\d+(?:[.,]\d+)?(?:[-‑]?[^\W\d_]+)*[-‑]?[^\W\d_]*[a-zß-ÿ]{3,}[^\W\d_]*"  # lower case: not `4UGWJK`
)
#: A time of day nothing states is never more than uncertain: times are too close to each other for a
#: look-alike to tell a slip from a computation (every two of 10:00 … 19:00 are one digit apart), and
#: agents compute them (a session's end, another zone's time, the conversation's own clock). Held out
#: (blind sets 4–11, each scored before it was read), failing times flagged 19 good conversations (13 with
#: no other failure) and caught 13 planted errors.
_NEVER_FAILS = frozenset({"time"})


def only_uncertain(kind: str, similar: str | None) -> bool:
    """Whether a value of this kind (`number`, `date`, `md`, `time`, `code`, `id`, …) that nothing states is
    only `uncertain` (for review), not failed, given the look-alike the conversation states
    (`Evidence.lookalike`, None: none). Ids, emails and phone numbers fail: they are copied, never
    computed, so an unstated one is invented (a reply's `_NO_IDENTIFIER` readings aside)."""
    if kind in _NEVER_FAILS:
        return True
    return similar is None and kind in _NEEDS_LOOKALIKE


def short_code(kind: str, value: Any) -> bool:
    """A two-letter code nothing states is only uncertain: it is most often the standard code of a name
    said (`CA` for California, `BR` for a Brazilian, `PT` for Portugal), which grounding does not look up
    (held out, such codes failed 2 good conversations and caught nothing). A code of three letters or
    more fails: an airport (read through its names, `_airport_names`), a product's or a fare's code is
    copied, and one a letter from a stated code (`JFX` beside `JFK`) is that code garbled."""
    return kind == "code" and isinstance(value, str) and len(value.strip()) < _SLIP_ID_CHARS


#: A date in a call one day from a stated date is a slip (the 16th booked for the user's 17th); two or
#: three days off is most often a date the agent computed into the call (the Monday after a Friday, a
#: week's start, a range's end). Held out (blind sets 4–10, each scored before it was read), argument
#: dates that failed beside a stated date 1 day off: 1 good conversation, 4 planted errors; 2 days off:
#: 4 and 1; 3 days off: 11 and 1.
_SLIP_DAYS = 1
#: A date a reply states is told to the user, not computed into a call: one up to nine days from a stated
#: date and stated nowhere is more likely the stated one garbled (`May 24` / `May 28`) than an arithmetic
#: grounding missed — unless the reply says that stated date too, and counts from it (`_replaced`).
_REPLY_SLIP_DAYS = 9


#: the most amounts of one reply `_miscounted` combines: a long price list would give every sum
_MAX_FIGURES = 12
_ADJUSTMENT_REACH = 20  # characters on each side of an adjustment's word read for its amount
_ROUGHLY = re.compile(
    r"(?i)(?:\b(?:about|around|roughly|approx\w*|circa|some)\s*|[~≈]\s*)$"
)  # before an amount
#: an adjustment a sentence names, which its amount may include unquantified (`after your loyalty credit`)
_ADJUSTMENT = re.compile(
    r"(?i)\b(?:discount\w*|voucher\w*|coupon\w*|credit\w*|promo\w*|loyalty|rebate\w*|off|reduc\w*|waiv\w*|"
    r"less|minus|deduct\w*|adjust\w*|prorat\w*)\b"
)
_MAX_COUNT = 1000  # a count a reply multiplies an amount by (`× 22名`), short of an amount itself
_CENT = 0.011  # an amount a cent from a figure is that figure rounded (`$26.54` of $79.60 split three ways)


def _figures(amounts: Sequence[float], percents: Iterable[float], counts: Iterable[int]) -> set[float]:
    """What a reply's amounts give in one or two steps of the arithmetic a reply shows: the sum of all, of
    two or three of them, the difference of two (or two less the third, or one less the two others), an
    amount times a count the reply or the user says, plus or less another (`2 × $200 + $48`), a count times
    two added or apart, and a percentage of any of these (`percents`), added to it or taken off it (VAT,
    a deposit, a discount). Positive, rounded to cents."""
    out: set[float] = set()
    wholes: set[float] = {sum(amounts)}  # what a percentage may be of: an amount, a sum, a difference
    for i, a in enumerate(amounts):
        out |= {a * n for n in counts}
        for j in range(i + 1, len(amounts)):
            b = amounts[j]
            wholes |= {a + b, abs(a - b)}
            # a count times a rate, and a fee or a discount (`2 × $200 + $48`, `2 × ($200 − $20)`)
            out |= {n * x + sign * y for n in counts for x, y in ((a, b), (b, a)) for sign in (1, -1)}
            out |= {n * (a + b) for n in counts} | {n * abs(a - b) for n in counts}
            for c in amounts[j + 1 :]:
                total = a + b + c  # and `$349 + $99 − $100`, `£300 − £20 − £45`
                wholes |= {total, *(total - 2 * x for x in (a, b, c)), *(2 * x - total for x in (a, b, c))}
    out |= wholes
    for whole in (*amounts, *wholes):  # a percentage of any of them (VAT on a subtotal, tax after a voucher)
        for p in percents:
            share = whole * p / 100
            out |= {share, whole + share, whole - share}
    return {round(x, 2) for x in out if x > 0}


def _unquantified_adjustment(sentence: str, result: str) -> bool:
    """Whether a sentence names an adjustment (`_ADJUSTMENT`) its amount `result` (as read) may hold but the
    sentence does not give before it: one after the result (`you pay $163 after your $2 loyalty credit`),
    or one with no amount right beside it (`with the family discount you pay $65`; not `After your $750
    collision deductible, you'll receive $1,750.00`); or rounds it (`so about $163 all in`). Where the
    result cannot be placed, any adjustment."""
    at = sentence.find(result)
    if at > 0 and _ROUGHLY.search(sentence, max(0, at - _ADJUSTMENT_REACH), at):
        return True  # `so about $163 all in`: a rounding
    for m in _ADJUSTMENT.finditer(sentence):
        if at < 0 or m.start() > at:
            return True
        beside = sentence[max(0, m.start() - _ADJUSTMENT_REACH) : min(at, m.end() + _ADJUSTMENT_REACH)]
        if not _money_said(beside):
            return True
    return False


def _results(amounts: Sequence[float], percents: Iterable[float]) -> set[float]:
    """What amounts said in this order give as a reply's result: the last two one taken from the other (a
    refund off a total, a deductible off a payout), a percentage of the last, added to it or taken off it
    (`£17,100` and a 30 % deposit). Not their sum: a total of parts is as often a count times a rate
    (`$200 a night, two nights, plus the $48 fee: $448` is one digit from `$248`). Positive."""
    last = amounts[-1]
    out = {round(abs(last - amounts[-2]), 2)} if len(amounts) > 1 else set()
    for p in percents:
        out |= {round(last * p / 100, 2), round(last * (1 + p / 100), 2), round(last * (1 - p / 100), 2)}
    return {x for x in out if x > 0}


def _in_cents(a: float, b: float) -> tuple[str, str]:
    """Two amounts' digits as a slip is looked for in them: whole amounts as written (`86`, `76`), else
    both in cents (`60.45` / `60.54`: `6045` / `6054`; `51` / `55.10`: `5100` / `5510`, no slip)."""
    if float(a).is_integer() and float(b).is_integer():
        return str(int(a)), str(int(b))
    return f"{a:.2f}".replace(".", ""), f"{b:.2f}".replace(".", "")


def _digit_form(x: float) -> str:
    """A number's digits as written plainly (`1250`, `152.74` → `15274`)."""
    return _plain(x).replace(".", "").lstrip("-")


def _plain(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}".rstrip("0")


_SLIP_DIGITS = 3  # `13`/`14`: two-digit numbers are too close to each other to call one a slip of another
_SLIP_ID_CHARS = 3  # and two-letter codes (`CA`/`CO`): an id or a code of three characters or more
_CODE_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,10}(?![A-Za-z0-9])")  # a code as written: `JFK`, `SFO`


def _one_slip(a: str, b: str, shortest: int = _SLIP_DIGITS) -> bool:
    """One character changed, added or dropped, or two neighbours swapped (`146`/`140`, `1250`/`1205`,
    `JFK`/`JFX`), in strings (digits, ids, codes) of at least `shortest` characters."""
    if a == b or min(len(a), len(b)) < shortest:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    if abs(len(a) - len(b)) == 1:
        short, long_ = sorted((a, b), key=len)
        return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))
    return False


def computable(
    target: float,
    known: set[float],
    runs: Sequence[tuple[int | None, list[float]]],
    scaled: set[float] | frozenset[float] = frozenset(),
    percents: set[float] | frozenset[float] = frozenset(),
    money: set[float] | frozenset[float] = frozenset(),
    counts: set[int] | frozenset[int] = frozenset(),
) -> bool:
    """`target` is the sum or difference of two amounts of `known` (neither the target, nor a count under
    ten: $150 and 2 bags make no $152 — unless `money` says it is an amount: `$62 plus the $6 fee`); a number of
    `known` or `scaled` times a count under ten, or two amounts of `money` summed, times one of `counts`
    (the counts said: a tyre's £82 and its £20 fitting, for the pair: £204); a stated percentage of one
    (`a × p / 100`, `a × (1 ± p / 100)`, `p` in `percents`); or the sum of a run of one tool result's amounts
    under one key."""
    target = _round(target)
    others = known - {target}
    amounts = {a for a in others if abs(a) >= _SMALL_COUNT or not a.is_integer() or a in money}  # not a count
    for a in amounts:
        if _round(target - a) in amounts or _round(a - target) in amounts:
            return True
    # `(£82 + £20 fitting) × 2`: two amounts said in a currency, summed, times a count said
    said = money - {target}
    for count in sorted(counts) if len(said) > 1 else ():
        each = _round(target / count)
        if any(_round(each - a) in said and _round(each - a) != a for a in said):
            return True
    for a in (others | scaled) - {target}:
        if any(_round(a * count) == target for count in range(2, _SMALL_COUNT)):
            return True
        for p in percents:
            if target in (_round(a * p / 100), _round(a * (1 + p / 100)), _round(a * (1 - p / 100))):
                return True
    for _, run in runs:  # prefix sums: a contiguous run adds up to the target
        seen, total = {0.0}, 0.0
        for x in run:
            total = _round(total + x)
            if _round(total - target) in seen:
                return True
            seen.add(total)
    return False


_MAX_OPERANDS_PER_RESULT = 20
_MAX_TERMS = 4
_MAX_ADDENDS = 14


def _subset_sum(
    target: float,
    numbers: set[float],
    minus: set[float] | frozenset[float] = frozenset(),
    money: set[float] | frozenset[float] = frozenset(),
) -> bool:
    """`target` is the sum of three or four amounts of `numbers` (a reply's total of the parts it lists: $156
    for the days, $24.18 taxes, $75 in fees, $255.18 in all; counts under ten are no parts); the largest
    amounts below the target are tried. `minus`: amounts the reply writes with a minus sign (`rebate:
    −$100`), parts that take away (`$349 + $99 − $100`: $348); `money`: amounts it says in a currency, parts
    however small (`£69 + £35 + £8.00`)."""
    target = _round(target)
    ceiling = target + sum(minus)
    amounts = (
        n
        for n in numbers - minus - {target}
        if 0 < n < ceiling and (n >= _SMALL_COUNT or not n.is_integer() or n in money)
    )
    parts = sorted(amounts, reverse=True)[:_MAX_ADDENDS]
    parts += [-n for n in sorted(minus, reverse=True)[:_MAX_TERMS]]
    return any(
        _round(sum(combo)) == target
        for k in range(3, _MAX_TERMS + 1)
        for combo in itertools.combinations(parts, k)
    )


#: an amount written with a minus sign before its currency (`rebate: −$100`, `- €15`, `-£20.50`): one a
#: reply's total takes away; not a range (`10-20`) nor a date (`2026-03-03`), which have no currency there
_MINUS_AMOUNT = re.compile(
    r"(?:^|(?<=[\s:(]))[−–-]\s?(?:[$€£¥]|US\$)\s?(\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)"
)


#: an amount said as a rate (`£2 per mile`, `$5 each`, `€3/day`): no part of a total as it stands
_RATE = re.compile(r"[$€£¥]\s?(\d+(?:\.\d{1,2})?)\s*(?:per|each|an?|every|/)(?![\w])")


#: a count times an amount in a currency, or the other way round (`2 × 50 zł`, `7 × £10`, `£150 × 2`): a part
#: of a total as its product
_PRODUCT = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,2})\s?[×x]\s?(?:(?P<c>[$€£¥])\s?)?(?P<a>\d{1,6}(?:[.,]\d{1,2})?)"
    r"(?:\s?(?P<w>zł|€|kr|Kč|PLN|EUR|CHF|元|円))?(?![\d.,]?\d)"
    r"|[$€£¥]\s?(?P<a2>\d{1,6}(?:\.\d{1,2})?)\s?[×x]\s?(?P<n2>\d{1,2})(?![\d.,]?\d)"
)


def _products_said(reply: str, counts: set[float] | None = None) -> set[float]:
    """The products a reply works out (`_PRODUCT`); with `counts`, only those whose count is one of them."""
    if "×" not in reply and "x" not in reply:
        return set()
    out = set()
    for m in _PRODUCT.finditer(reply[:MAX_FACT_CHARS]):
        amount, count = (
            (m["a2"], m["n2"]) if m["a2"] else (m["a"], m["n"]) if m["c"] or m["w"] else (None, None)
        )
        if amount is None or count is None or (counts is not None and float(count) not in counts):
            continue
        out.add(_round(float(amount.replace(",", ".")) * int(count)))
    return out


def _rates_said(reply: str) -> set[float]:
    if "per" not in reply and "each" not in reply and "/" not in reply and " a" not in reply:
        return set()
    return {_round(float(m[1])) for m in _RATE.finditer(reply[:MAX_FACT_CHARS])}


def _minus_amounts(reply: str) -> set[float]:
    if "−" not in reply and "-" not in reply and "–" not in reply:
        return set()
    text = reply[:MAX_FACT_CHARS]
    return {
        _round(float(m[1].replace(",", "")))
        for m in _MINUS_AMOUNT.finditer(text)
        if not text[: m.start()].rstrip()[-1:].isdigit()  # `£120 - £150`: a range's dash, not a minus
    }


def _schema_values(schema: Any, path: str) -> list[Any]:
    """The enum, const and default values of the property at `path` (list indices skipped) of a tool's
    JSON Schema."""
    if not isinstance(schema, dict):
        return []
    node: Any = schema
    for part in re.findall(r"[^.\[\]]+", path):
        if part.isdigit():
            node = node.get("items") if isinstance(node, dict) else None
            continue
        props = node.get("properties") if isinstance(node, dict) else None
        node = props.get(part) if isinstance(props, dict) else None
        if node is None:
            return []
    if not isinstance(node, dict):
        return []
    allowed = list(node.get("enum") or ())
    return allowed + [node[k] for k in ("const", "default") if k in node]


def _allows(allowed: Sequence[Any], value: Any) -> bool:
    """Whether a schema's values (`_schema_values`) hold `value`, as declared or as its text (`2` for `"2"`)."""
    return any(a == value or str(a) == str(value) for a in allowed)


#: how deep grounding reads into arguments and results (deeper values are not read: never a failure)
MAX_DEPTH = 32
#: how much of one string grounding reads for typed facts (the words of all of it still count)
MAX_FACT_CHARS = 4_000


def _leaves(value: Any) -> list[tuple[str, str, Any]]:
    """(path, the nearest argument name, leaf) for every scalar inside arguments, to `MAX_DEPTH`, in
    document order. (A list filled by one recursion: a generator per level costs every leaf one resumption
    per level above it, and grounding walks every call's arguments and results.)"""
    out: list[tuple[str, str, Any]] = []
    _walk_arguments(value, "", "", 0, out)
    return out


def _walk_arguments(value: Any, path: str, key: str, depth: int, out: list[tuple[str, str, Any]]) -> None:
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            name = str(k)
            _walk_arguments(v, f"{path}.{name}" if path else name, name, depth + 1, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk_arguments(v, f"{path}[{i}]", key, depth + 1, out)
    else:
        out.append((path or "(arguments)", key, value))


def _result_leaves(value: Any) -> list[tuple[str | float, bool, str]]:
    """Every key and scalar of a tool result: strings as text, numbers as numbers, each with whether it is
    an amount arithmetic may combine — a bare result (a calculator's), or a number under a key that says
    money (`price`, `amount`, `prices.economy`); seat counts and the like are stated, never combined. The
    third item is the key the leaf sits under ("" for a bare result)."""
    out: list[tuple[str | float, bool, str]] = []
    _walk_result(value, None, "", 0, out)
    return out


def _walk_result(
    value: Any, money: bool | None, key: str, depth: int, out: list[tuple[str | float, bool, str]]
) -> None:
    if depth > MAX_DEPTH:
        return
    if type(value) is str:  # most leaves (the isinstance tests below, for their subclasses, cost more)
        out.append((value, False, key))
    elif isinstance(value, dict):
        for k, v in value.items():
            name = str(k)
            out.append((name, False, key))
            _walk_result(v, _money_key(name) or money is True, name, depth + 1, out)
    elif isinstance(value, list):
        for v in value:
            _walk_result(v, money, key, depth + 1, out)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        number = _finite(value)
        if number is not None:
            out.append((number, money is not False, key))
    else:
        out.append((str(value), False, key))


@lru_cache(maxsize=8_192)
def _money_key(key: str) -> bool:
    """A result key that says money (`price`, `total_amount`)."""
    return bool(set(key_words(key)) & MONEY_WORDS)


def _leaf_numbers(leaves: Iterable[tuple[str, str, Any]]) -> list[float]:
    """The finite numbers among `_leaves` (booleans are no numbers)."""
    out = []
    for _, _, leaf in leaves:
        if isinstance(leaf, int | float) and not isinstance(leaf, bool) and (n := _finite(leaf)) is not None:
            out.append(n)
    return out


def _finite(value: int | float) -> float | None:
    """A JSON number as a float; None for one too large for a float (`10**400`) or not finite."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _finite(value)
    if isinstance(value, str) and DIGIT.search(value) and len(value) < _NUMBER_CHARS:
        return _string_number(value)
    return None


_NUMBER_CHARS = 40


@lru_cache(maxsize=65_536)
def _string_number(value: str) -> float | None:
    """The one number a short string says (`"1,200.00"`, `"$45"`), else None."""
    facts = extract_facts(value, False)
    numbers = [c for c in facts.facts if c.startswith("number:")]
    if len(numbers) == 1 and not facts.bare.strip():
        return _number_of(numbers[0])
    return None


def _round(x: float) -> float:
    """`round(x, 2)`; a whole float as it is (the same float: `round` with digits converts it to decimal)."""
    return x if type(x) is float and x.is_integer() else round(x, 2)


@lru_cache(maxsize=16_384)
def _fact_parts(canon: str) -> tuple[float | None, str | None, float | None]:
    """What `_Sources.add_fact` indexes a fact under beside its key: its percentage (`number:10|percent`),
    its `md:` key (a full date's month and day) and its number, rounded. Cached: the same facts (a date, a
    price) come back in text after text."""
    number = _number_of(canon)
    percent = number if number is not None and canon.endswith("|percent") else None
    full_date = canon.startswith("date:") and len(canon) == 15 and not canon.startswith("date:--")
    return percent, f"md:{canon[-5:]}" if full_date else None, _round(number) if number is not None else None


def _number_of(canon: str) -> float | None:
    """The number of a `number:1200.5|usd` fact."""
    if not canon.startswith("number:"):
        return None
    try:
        return float(canon[7:].partition("|")[0])
    except ValueError:
        return None


def _may_hold_facts(text: str) -> bool:
    """Whether a text can hold a typed fact grounding uses: a digit, an `@`, a number word or Chinese (a
    cheap test that spares most tool-result strings — `available`, `economy` — the full reading)."""
    return (
        DIGIT.search(text) is not None or "@" in text or has_cjk(text) or NUMBER_WORD.search(text) is not None
    )


def _numbers(text: str) -> list[float]:
    """The numbers among `_fact_keys(text)`, rounded (only its typed facts give numbers: the keys `_read_keys`
    adds are dates, times and digit strings — so its extra reading is skipped)."""
    if not _may_hold_facts(text[:MAX_FACT_CHARS]):
        return []
    keys = extract_facts(text[:MAX_FACT_CHARS], False).facts
    return [_round(n) for key in keys if (n := _number_of(key)) is not None]


def _fact_keys(text: str) -> tuple[str, ...]:
    """`_read_keys` of the text's start (`MAX_FACT_CHARS`): bounded cost, and a bounded cache key."""
    return _read_keys(text[:MAX_FACT_CHARS])


@lru_cache(maxsize=65_536)
def _read_keys(text: str) -> tuple[str, ...]:
    """The typed facts of a text as look-up keys: its canonical facts, each date also as its month and
    day (`md:05-17`), and a month said beside a day number (`May 17`, `17th of May`) as `md:` too."""
    if not _may_hold_facts(text):
        return ()
    facts = extract_facts(text, False)
    keys = list(facts.facts)
    spans = facts.spans
    for canon, _ in spans:
        if canon.startswith("datetime:"):  # `2024-05-11T13:44:58`: its date and its time of day
            day, _, clock = canon[9:].partition("T")
            keys += [f"date:{day}", f"time:{clock[:5]}"]
            canon = f"date:{day}"
        if canon.startswith("date:") and len(canon) == 15:
            keys.append(f"md:{canon[-5:]}")
    for canon, original in spans:  # `180 feet` (its fact in metres): 180 as said, too
        unit = canon.partition("|")[2] if canon.startswith("number:") else ""
        said = _said_number(original) if unit and unit != "s" else None  # not a duration: `45 minutes`
        if said is not None and said != _number_of(canon):
            keys.append(f"number:{said:g}")
    days = _month_days(text)
    keys += [key for key, _ in days]  # `Aug 20`: abbreviated months too
    keys += [key for key, _ in _de_day_months(text)]  # `der 14.11.`, `Dienstag, 4.11.`
    keys += [key for key, _ in day_months(text)]  # `30 de agosto`, `31. Mai`, `8월 30일`
    keys += _listed_days(text, days)  # `June 5th and 6th`
    for m in _digit_runs(text):  # `138 0013 8000`, `839 214`: one number written in groups
        digits = digits_of(m.group(0))
        keys.append(f"digits:{digits}")
        if len(digits) >= _PHONE_DIGITS:
            keys.append(f"phone:{digits}")
    if "+" in text:  # `+16235550148`: a number as E.164 stores it (the reader takes it for an amount)
        keys += [f"phone:{m[1]}" for m in _E164.finditer(text)]
    for m in _CLOCK.finditer(text) if holds_any(text, (":",)) else ():  # `17:00:00`, `03:00:00+1` in results
        keys.append(f"time:{int(m['h']):02d}:{m['m']}")
    keys += [clock_key(int(k[5:7]), int(k[8:10])) for k in keys if k.startswith("time:") and len(k) == 10]
    for (a, _), (b, _) in itertools.pairwise(spans):
        month, day = (a, b) if a.startswith("month:") else (b, a)
        if month.startswith("month:") and day.startswith("number:"):
            d = _number_of(day)
            if d is not None and d.is_integer() and 1 <= d <= 31:
                keys.append(f"md:{int(month[6:]):02d}-{int(d):02d}")
    return tuple(keys)


#: Words of a result's key that name no particular value: `booking_date` names a booking's date, `date`
#: alone names none; a currency or a unit says what a value is in, not what it is.
_GENERIC_KEY_WORDS = frozenset(
    {
        "date", "time", "datetime", "day", "days", "at", "on", "id", "utc", "iso", "local", "value", "amount",
        "number", "num", "count", "new", "old", "current", "the", "of", "in", "to", "by", "per", "and",
        "min", "mins", "minute", "minutes", "hour", "hours", "hrs", "sec", "secs", "seconds", "timestamp",
        "cents", "pence",
    }
)  # fmt: skip
#: Currencies as keys name them (`fee_gbp`, `total_eur`): generic words, and what makes a key's number money
_CURRENCY_KEY_WORDS = frozenset(
    {
        "gbp", "usd", "eur", "jpy", "cny", "rmb", "pln", "sek", "nok", "dkk", "chf", "cad", "aud", "inr",
        "brl", "mxn", "krw", "try", "czk", "huf", "zar", "nzd", "sgd", "hkd",
    }
)  # fmt: skip
#: Words of a key that say which state of a value it is, not which value (`fee_paid_gbp` is the fee,
#: `deposit_held` the deposit): a reply names the field without them (`the £45 fee`)
_QUALIFIER_KEY_WORDS = frozenset(
    {
        "paid", "due", "remaining", "left", "charged", "refunded", "owed", "held", "taken", "applied",
        "estimated", "est", "expected", "actual", "final", "base", "standard", "default", "approx",
    }
)  # fmt: skip
#: words of a key whose amounts are in a currency's hundredths (`shipping_fee_cents: 1250` is $12.50)
#: an identifier among a call's arguments (letters and digits, no space): what says two calls act on one thing
_ID_LIKE = re.compile(r"(?=[^\d]*\d)(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9_-]{4,40}")
_MINOR_UNIT_WORDS = frozenset({"cents", "cent", "pence", "penny", "minor"})
#: a time given with its zone (`2026-03-21T14:00:00Z`, `14:00 UTC`, `+01:00`)
_UTC = re.compile(r"Z|UTC|GMT|[+-]00:?00")
_ZONED = re.compile(r"\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|UTC|GMT|[+-]\d{2}:?\d{2})(?![\w:])")
#: a numeric date whose day and month may be either (`04/03/2026`)
_TWO_READINGS = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](?:\d{4}|\d{2})(?![\d/.])")
_FIELD_CHARS = 40  # a string longer than this is text, not a field's value (a note's numbers name nothing)
_CUES = 4  # words read on each side of a reply's value for the field it names
_WEEKDAY_TAIL = re.compile(r"(?i)\b(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s*$")
_CUE_WORD = re.compile(r"[^\W\d_]{3,}")
#: where a value's words end: its clause's end, a comma, a list's dash, arithmetic, another value (a
#: digit), or a word that joins another part (`the total is £780 and you've paid a £156 deposit`)
_CUE_REACH = 60  # characters before and after a reply's value read for the words beside it (`_cues`)
_CUE_BOUNDARY = re.compile(
    r"[.,;!?\n()=+×*/\d]|\s[-–—•]\s"
    r"|(?i:\b(?:and|or|but|so|plus|with|then|including|incl|inc|excluding|excl|ex|while|which|minus|less|"
    r"after|before|than|e|y|et|und|og|och|en|i|oraz|ou|o|oder|mais|pero|aber|ma)\b)"
)
#: after a value, where the words that name it end: a preposition starts another part (`bay 14 on the
#: ground level`); the name comes first (`a £100 refundable damage deposit`, `the £45 fee`)
_CUE_AFTER_END = re.compile(
    r"(?i)\b(?:on|in|at|for|from|to|by|of|until|per|each|a|an|the|"
    r"à|às|de|da|do|das|dos|em|no|na|para|pour|par|für|um|am|im|zu|bis|con|al|alle)\b"
)
#: a value that is a range's bound (`from 10:00 AM to 8:00 PM`, `between 13:00 and 17:00`): a span the
#: reply gives, not a field's one value
_RANGE_BEFORE = re.compile(r"(?i)\b(?:from|between|von|de|desde|dalle|tra)\s*$")
_RANGE_AFTER = re.compile(r"(?i)^\s*(?:to|and|until|till|[-–—~]|bis|à|a|al|alle)\s*\S*\d")


#: `hints.unaccented`, cached: a name is looked for in every text of the evidence (`_stated`)
_unaccented = short_cached(maxsize=65_536)(unaccented)


def _stem(word: str) -> str:
    """A word without an ending, as a key's word and a reply's are compared: `resumes` and `resume`,
    `starting` and `start`, `fees` and `fee`."""
    w = unaccented(fold(word))  # `saída` as a key writes it: `saida`
    for suffix in ("ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


#: words of a whole (`Hire total £224`, `the balance of £624`): a value so named is the whole, named by
#: the key only when the key says it too
_AGGREGATES = frozenset(map(_stem, ("total", "subtotal", "balance", "sum", "altogether", "overall", "grand")))
#: words that say a value changed (`a new total of $511`, `your balance is now $36.35`): a result before it
#: gives the old one
_CHANGED = (
    frozenset(map(_stem, ("new", "now", "updated", "revised", "adjusted", "becomes", "extended", "instead")))
    | frozenset(  # a bound the field sets, not the field (`the latest possible ship date is Oct 15`)
        map(_stem, ("latest", "earliest", "possible", "maximum", "minimum", "max", "min"))
    )
    | frozenset(  # and a value said roughly (`about £45` of £44.99, `doors open around 7 PM`)
        map(
            _stem,
            (
                "about",
                "around",
                "roughly",
                "approximately",
                "approx",
                "nearly",
                "almost",
                "under",
                "over",
                "circa",
                "some",
                "ish",
            ),
        )
    )
)


def _stated_before(reply: str, start: int, facts: Iterable[tuple[str, str]]) -> set[tuple[str, Any]]:
    """The comparable values (`_comparable`) of a reply's facts said right before `start`, in the same part
    of its clause: nothing but words between (no punctuation, joiner or other number: `_CUE_BOUNDARY`; a
    weekday aside), where the words beside the value come from."""
    window = reply[max(0, start - _CUE_REACH) : start]
    out = set()
    for key, original in facts:
        at = window.rfind(original) if original else -1
        if at < 0 or (c := _comparable(key)) is None:
            continue
        if not _CUE_BOUNDARY.search(_WEEKDAY_TAIL.sub(" ", window[at + len(original) :])):
            out.add(c)
    return out


def _cues(reply: str, start: int, end: int) -> frozenset[str]:
    """The stems of the words beside a reply's value: up to `_CUES` before it and after it, within its
    part of the clause (`_CUE_BOUNDARY`), after it only up to a preposition (`_CUE_AFTER_END`). None at
    all for a range's bound (`_RANGE_BEFORE`, `_RANGE_AFTER`) or a value said to have changed or to be a
    bound (`_CHANGED`)."""
    before = reply[max(0, start - _CUE_REACH) : start]
    after = reply[end : end + _CUE_REACH]
    if _RANGE_BEFORE.search(before) or _RANGE_AFTER.match(after) or before.rstrip().endswith(("~", "≈")):
        return frozenset()
    before = _WEEKDAY_TAIL.sub(" ", before)  # `resumes on Monday, April 5`: the weekday is the date's
    cut = [m.end() for m in _CUE_BOUNDARY.finditer(before)]
    before = before[cut[-1] :] if cut else before
    stop = _CUE_BOUNDARY.search(after)
    after = after[: stop.start()] if stop else after
    stop = _CUE_AFTER_END.search(after)
    after = after[: stop.start()] if stop else after
    words = _CUE_WORD.findall(before)[-_CUES:] + _CUE_WORD.findall(after)[:_CUES]
    stems = frozenset(_stem(w) for w in words)
    return frozenset() if not stems.isdisjoint(_CHANGED) else stems


def _currency_beside(result: Any) -> str:
    """The currency a result names beside its amounts (`{"amount": 4500, "currency": "GBP"}`), lower-case,
    or "" (looked for in its top level and in each item of a top-level list)."""
    for part in (result, *(result if isinstance(result, list) else ())):
        said = part.get("currency") if isinstance(part, dict) else None
        if isinstance(said, str) and len(said) == 3 and said.isalpha():
            return said.casefold()
    return ""


def _comparable(canon: str) -> tuple[str, Any] | None:
    """A fact key as a named field's value compares with it: an amount or a plain number, a day (a date's
    month and day: a year a reply leaves out is no difference), a time of day; else None."""
    if canon.startswith("number:"):
        unit = canon.partition("|")[2]
        number = _number_of(canon)
        if number is None or (unit and not is_currency(unit)):
            return None
        return ("money" if unit else "number"), _round(number)
    if (canon.startswith("date:") and len(canon) == 15) or (canon.startswith("md:") and len(canon) == 8):
        return "day", canon[-5:]
    if canon.startswith("time:") and len(canon) == 10:
        return "time", canon[5:]
    return None


# ---------------------------------------------------------------------------------------------
# replies
# ---------------------------------------------------------------------------------------------


def _states_facts(sentence: str) -> bool:
    """Whether a sentence holds a digit, a number word, an `@`, Chinese, or any fact the fact reader finds
    (`noon`, `the first`, `a dozen`, fullwidth letters)."""
    return _may_hold_facts(sentence) or bool(extract_facts(sentence, False).spans)


#: Fact kinds a reply must not state without support; numbers only from 10 up (counts say little).
_REPLY_FACT_KINDS = frozenset({"number", "date", "time", "id", "phone", "md"})


def _reply_facts(reply: str) -> tuple[tuple[str, str], ...]:
    """The facts of a reply grounding checks (`_REPLY_FACT_KINDS`, measures left out), from its start."""
    return _read_reply_facts(reply[:MAX_FACT_CHARS])


@lru_cache(maxsize=32_768)
def _read_reply_facts(reply: str) -> tuple[tuple[str, str], ...]:
    if not _may_hold_facts(reply):
        return ()
    # what a reply asks proposes (`Would you like it on Friday, April 4 instead?`): only what it tells is a claim
    parts = sentences(reply)
    # a reply whose questions state nothing (`Shall I proceed?`) is read whole — the reading the data flow
    # (`produced_texts`) shares —, else without its questions (`Would noon work?`, `Would you like a dozen?`)
    if any(act_of(x) == "ask" and _states_facts(x) for x in parts):
        reply = "\n".join(x for x in parts if act_of(x) != "ask")
    spans = extract_facts(reply, False).spans
    days = _month_days(reply)  # `May 18th`: a month and its day, checked together
    written = _written_days(reply)  # `30 de agosto`, `31. Mai`, `8월 30일`
    days += written
    said_days = {key[-2:].lstrip("0") for key, _ in days}
    runs = _digit_runs(reply)  # a number in groups is one fact: a phone number from 7 digits
    out = [
        (
            f"{'phone' if len(digits_of(m.group(0))) >= _PHONE_DIGITS else 'digits'}:{digits_of(m.group(0))}",
            m.group(0),
        )
        for m in runs
        if len(digits_of(m.group(0))) >= 4
    ]
    out += days
    german = _de_day_months(reply)  # `der 14.11.`: a day and a month, not the number 14.11
    out += german
    for canon, original in spans:
        kind = canon.partition(":")[0]
        if german and kind == "number" and any(original.strip() == said for _, said in german):
            continue
        if written and _inside_written(original.strip(), written):
            continue  # the `11` of `11월 20일`, the month and year of `30. November 2025`: that date's parts
        if kind not in _REPLY_FACT_KINDS or any(original.strip() in m.group(0) for m in runs):
            continue
        if kind == "number" and any(digits_of(original) == digits_of(m.group(0)) for m in runs):
            continue  # `1 780 €`, read as 1780 € too: its digits' run, once
        if kind == "number" and original.strip().rstrip("stndrh") in said_days:
            continue  # the day of a `May 18th` above
        if kind == "number":
            number = _number_of(canon)
            said = _said_number(original)
            if number is None or _is_year(number, canon) or (said is not None and abs(said) < _SMALL_COUNT):
                continue
            if _measure(canon, original, reply):
                continue
        if kind == "id" and _MEASURE_WORD.fullmatch(original):  # `24-hour`, `3-day`: a measure, no id
            continue
        out.append((canon, original))
    return tuple(out)


def _inside_written(part: str, written: Sequence[tuple[str, str]]) -> bool:
    """Whether a fact the reader found (`11`, `November 2025`) is a whole part of a written date."""
    edge = r"\d" if part.isdigit() else r"\w"  # `11` of `11월`, but not `1` of `11월`
    return bool(part) and any(
        re.search(rf"(?<!{edge}){re.escape(part)}(?!{edge})", said) is not None for _, said in written
    )


@short_cached(maxsize=4_096)
def _written_days(reply: str) -> tuple[tuple[str, str], ...]:
    """The days a reply writes with their month's name as its language's table reads them (`day_months`:
    `30 de agosto`, `31. Mai`, `8월 30일`) and the English reading does not (`_month_days`, and the fact
    reader's dates: `15 December 2025`): as a date when the year is written, else as a day of its month."""
    written = day_months(reply)
    if not written:
        return ()
    days = _month_days(reply)
    english = {key for key, _ in days}
    for key in extract_facts(reply, False).facts:
        if key.startswith("date:") and len(key) == 15:
            english |= {key, f"md:{key[-5:]}"}
    # a date the English reading reads is judged as before, whole (`2025. november 22.`: its `november 22`)
    dated = {said for key, said in written if key.startswith("date:")}
    return tuple(
        (key, said)
        for key, said in written
        if key not in english
        and not (key[:3] == "md:" and said in dated)
        and not any(other in said for _, other in days)
    )


#: after a number, words that make it a duration or a policy's constant, not a fact of this conversation
_UNIT_AFTER = re.compile(
    r"(?i)^\s*(?:[a-z]+\s+)?(?:business\s+|working\s+|calendar\s+)?"
    r"(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|kg|lbs?|km|miles?)\b"
)


_MONTH = (
    r"(?P<m>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_MONTH_DAY = re.compile(
    rf"(?i)\b{_MONTH}\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*[,.]?\s*\d{{4}})(?![:\d])"
    rf"|\b(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH.replace('?P<m>', '?P<m2>')}\b(?!\s*[,.]?\s*\d{{4}})"
)


#: a German day and month without a year (`der 14.11.`, `am 3.5.`, `Dienstag, 28.10.`): after an article,
#: a preposition or a weekday, so a price at a sentence's end (`the total is 14.11.`) is none
_DE_DAY_MONTH = re.compile(
    r"(?i)\b(?:am|vom|bis|zum|ab|den|der|dem|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag),?"
    r"\s+(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?!\d)"
)


#: what every `_DE_DAY_MONTH` match holds, a far cheaper scan than its words
_DE_DAY_MONTH_HINT = re.compile(r"\d\.[01]?\d\.(?!\d)")


def _de_day_months(text: str) -> list[tuple[str, str]]:
    """`md:` keys of the German day-months a text says (`_DE_DAY_MONTH`), with the day-month as written."""
    if "." not in text or _DE_DAY_MONTH_HINT.search(text) is None:
        return []
    out = []
    for m in _DE_DAY_MONTH.finditer(text):
        day, month = int(m["d"]), int(m["m"])
        if 1 <= day <= 31 and 1 <= month <= 12:
            out.append((f"md:{month:02d}-{day:02d}", f"{m['d']}.{m['m']}"))
    return out


def _month_days(reply: str) -> list[tuple[str, str]]:
    """Days said with their month and no year (`May 18th`, `18 May`): (`md:05-18`, as said); a date with a
    year is a date fact already."""
    out: list[tuple[str, str]] = []
    if not (DIGIT.search(reply) and holds_any(fold(reply), MONTH_STEMS)):
        return out  # no month named beside a number (a cheap test; `_MONTH_DAY`'s scan is not)
    for m in _MONTH_DAY.finditer(reply):
        name, day = (m["m"], m["d"]) if m["m"] else (m["m2"], m["d2"])
        month = next(i for i, full in enumerate(MONTH_NAMES, start=1) if full.startswith(fold(name)[:3]))
        if 1 <= int(day) <= 31:
            out.append((f"md:{month:02d}-{int(day):02d}", m.group(0)))
        first = _DAY_BEFORE_RANGE.search(reply, max(0, m.start() - 12), m.start()) if m["d2"] else None
        if first is not None and 1 <= int(first["d"]) < int(day):  # `29-31 August`: the 29th is said too
            out.append((f"md:{month:02d}-{int(first['d']):02d}", first["d"]))
    return out


#: a day before a range's dash and the day-and-month it runs to (`29-31 August`, `13 – 17 Oct`)
_DAY_BEFORE_RANGE = re.compile(r"(?<![\d.,:/])(?P<d>\d{1,2})\s?[-–]\s?$")


#: the days listed before a day and its month: after a word that says days come (`on 4, 6 and ` of `back
#: on 4, 6 and 11 Nov`, `the`, `dates`, `from`, `between`), or ordinals (`3rd, 4th or ` of `5th May`) —
#: not a count, a time, an amount, a number or a date of its own (`table for 4, 12 May`, `at 10, 12 May`,
#: `$4, 5 May`, `flight BA12, 15 May`, `Order 7 and 12 May`, `4/5 and 6 May`)
_DAYS_BEFORE = re.compile(
    r"(?i)(?:\b(?:on|the|dates?|days?|from|between)\s+(?:the\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s*(?:,|and|or|&)\s*(?:the\s+)?)+"
    r"|(?<![\w.,:/$£€#-])(?:(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s*(?:,|and|or|&)\s*)+)$"
)
_DAYS_BEFORE_REACH = 40
_LISTED_DAY = re.compile(r"\d{1,2}")
#: a day number listed after a month's day (`June 5th and 6th`, `May 3, 4 or 10`, `Aug 12-14`: the days
#: said, not those between), not a time, a count or a duration (`June 5 at 10`, `June 5, 8 to 10 of us`)
_MORE_DAYS = re.compile(
    r"(?i)\s*(?:,|and|or|to|through|thru|&|-|–)\s*(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\b"
    r"(?![:.]?\d|\s*(?:%|[ap]\.?m\b|hours?|h\b|days?|nights?|weeks?|people|guests|passengers|tickets|of\s+us)\b)"
)


def _listed_days(text: str, days: list[tuple[str, str]]) -> list[str]:
    """`md:` keys of the days listed after a month's day (`June 5th and 6th`: `md:06-06`), or before a day
    and its month (`4, 6 and 11 Nov`: `md:11-04`, `md:11-06`), each earlier than the one after it (a list
    or a range of days is said in order)."""
    out: list[str] = []
    at = 0
    for key, said in days:
        start = text.find(said, at)
        if start < 0:
            continue
        if not said[:1].isalpha():  # `4, 6 and 11 Nov`: the month comes last, the days before it
            listed = _DAYS_BEFORE.search(text, max(0, start - _DAYS_BEFORE_REACH), start)
            last = int(key[6:])
            for d in reversed(_LISTED_DAY.findall(listed.group(0)) if listed else []):
                if not 1 <= int(d) < last:
                    break
                last = int(d)
                out.append(f"md:{key[3:5]}-{last:02d}")
            at = start + len(said)
            continue
        at, month, last = start + len(said), key[3:5], int(key[6:])
        while (m := _MORE_DAYS.match(text, at)) is not None and last < int(m["d"]) <= 31:
            last, at = int(m["d"]), m.end()
            out.append(f"md:{month}-{last:02d}")
    return out


def _measure(canon: str, original: str, reply: str) -> bool:
    """A number that measures rather than states: with a unit that is no currency (`23 kg`, `30 days`: its
    fact carries `g`, `s`), followed by one (`7 to 10 business days`), or in a ratio (`24/7`)."""
    unit = canon.partition("|")[2]
    if unit and not is_currency(unit):
        return True
    at = reply.find(original)
    after = reply[at + len(original) :] if at >= 0 else ""
    before = reply[:at] if at >= 0 else ""
    return bool(_UNIT_AFTER.match(after)) or after.startswith("/") or before.endswith("/")


_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _said_number(original: str) -> float | None:
    """The number as a text says it (`4` of `4 days`, whose fact is in seconds)."""
    m = _NUMERAL.search(original)
    if m is None:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


_MEASURE_WORD = re.compile(r"(?<!\d)\d+(?:[-–]\d+)?[- ]?[a-z]+")


def _is_year(number: float, canon: str) -> bool:
    return "|" not in canon and number.is_integer() and 1900 <= number <= 2100


#: The actions a reply may claim done, each with the words a tool name uses for it (a name's first word opening
#: with one, or any of its words one).
ACTIONS: dict[str, tuple[str, ...]] = {
    "cancel": ("cancel",),
    "book": ("book", "reserve", "schedule"),  # `schedule_visit` books what `I've booked you into …` claims
    "refund": ("refund",),
    "send": ("send", "resend", "email", "notify", "message", "text", "sms"),
    "update": (
        "update",
        "change",
        "modify",
        "edit",
        "set",
        "reschedule",
        "move",
        "grant",
        "enable",
        "disable",
        "extend",  # `extend_pickup`: what `extended` claims (not `renew_loan`: `has already been renewed
        # twice, the maximum` reports a loan's state far more often than a reply claims a renewal)
        "amend",
        "rebook",
    ),
    "transfer": ("transfer", "escalate", "handoff"),
    "create": ("create", "add", "open", "new"),
    "delete": ("delete", "remove"),
    "order": ("order", "purchase", "buy", "checkout", "place"),  # `placed`: a hold, an order
    "pay": ("pay", "charge"),
    "schedule": ("schedule", "book"),
    "reset": ("reset",),
    "upgrade": ("upgrade", "downgrade", "update"),
    "submit": ("submit", "create", "file", "request", "log", "raise"),
    "pause": ("pause", "suspend", "freeze", "froz"),  # `froz`: a result's `"status": "frozen"`
    "resume": ("resume", "unpause", "unfreeze", "reactivate", "reinstate"),
    "enroll": ("enrol", "enroll", "subscribe"),
    "approve": ("approv", "accept"),  # `approve_estimate`, `accept_quote`: what `I've approved` claims
}
#: The same actions' verbs in the languages replies are read in, as whole words of a tool's name: an agent's
#: tools are often named in its users' language (`termin_stornieren`, `anuluj_zlecenie`, `wijzig_reservering`,
#: `enviar_confirmacao`). Whole words, as their stems open others (`stornogebuehr`, `boekhouding`, `creatinine`).
ACTION_WORDS: dict[str, frozenset[str]] = {
    "cancel": frozenset({"stornieren", "storniere", "annuler", "annulla", "annullare", "cancelar", "anuluj",
                         "odwolaj", "annuleren", "annuleer", "cancella", "cancellare"}),
    "book": frozenset({"buchen", "reservieren", "reserver", "reservar", "prenota", "prenotare", "boek", "boeken",
                       "rezerwuj", "zarezerwuj", "agendar"}),
    "refund": frozenset({"erstatten", "erstatte", "rembourser", "reembolsar", "reembolso", "rimborsare", "rimborsa"}),
    "send": frozenset({"enviar", "envoyer", "inviare", "senden", "versturen", "stuur", "wyslij"}),
    "update": frozenset({"aendern", "andern", "wijzig", "wijzigen", "modificar", "modificare", "modifier",
                         "przesun", "zmien", "verplaatsen", "verschieben", "verschiebe", "aendere", "modifica",
                         "reagendar", "verlaengern", "verlengen", "prolonger", "prorrogar"}),
    "create": frozenset({"crear", "criar", "crea", "creare", "creer", "erstellen", "erstelle"}),
    "order": frozenset({"bestel", "bestellen", "zamow", "acquista", "acheter", "comprar"}),
    "enroll": frozenset({"inscribir", "inscrire", "matricular", "iscrivere", "iscrivi", "anmelden"}),
}  # fmt: skip
#: every verb an action is named by (`ACTIONS`, `ACTION_WORDS`), as a tool's name opens with it
_ACTION_VERBS = frozenset(stem for stems in ACTIONS.values() for stem in stems).union(*ACTION_WORDS.values())
_CLAIM_VERBS: dict[str, str] = {
    "cancelled": "cancel", "canceled": "cancel", "booked": "book", "reserved": "book",
    "refunded": "refund", "sent": "send", "emailed": "send", "updated": "update", "changed": "update",
    "modified": "update", "transferred": "transfer", "escalated": "transfer", "created": "create",
    "added": "create", "deleted": "delete", "removed": "delete", "ordered": "order",
    "purchased": "order", "placed": "order", "paid": "pay", "charged": "pay", "scheduled": "schedule",
    "reset": "reset", "upgraded": "upgrade", "downgraded": "upgrade", "submitted": "submit", "issued": "send",
    "opened": "create", "messaged": "send", "notified": "send", "texted": "send", "rescheduled": "update",
    "moved": "update", "granted": "update", "enabled": "update", "disabled": "update", "requested": "submit",
    "logged": "submit", "raised": "submit", "filed": "submit", "arranged": "schedule", "renewed": "update",
    "extended": "update", "activated": "update", "deactivated": "update", "unsubscribed": "update",
    "resent": "send", "re-sent": "send", "paused": "pause", "frozen": "pause", "froze": "pause",
    "resumed": "resume", "unpaused": "resume", "unfrozen": "resume", "reactivated": "resume",
    "enrolled": "enroll", "enroled": "enroll", "subscribed": "enroll", "approved": "approve",
    "processed": "", "initiated": "",
}  # fmt: skip
#: verbs that say an action by the noun they do it to (`I've issued a refund`, `your refund has been processed`):
#: that noun's action (`_claimed`); with none, `issued` and `sent` send and `processed` and `initiated` claim
#: nothing (`I've processed that`). `sent` only by the head of its object: what is sent is as often about the
#: action as its doing (`I've sent a copy of our refund policy`, `I've sent your refund request to billing`)
_SENDING = frozenset({"issued", "sent"})
_DOING = frozenset({"processed", "initiated"})
#: Each action's claiming verbs, as a pattern: where a sentence's clause says that action.
_CLAIM_WORDS = {
    action: re.compile(r"(?i)\b(?:" + "|".join(w for w, a in _CLAIM_VERBS.items() if a == action) + r")\b")
    for action in set(_CLAIM_VERBS.values())
    if action
}
#: Actions that follow from another (a refund from a cancellation, a charge from a booking): with the agent's
#: tools undeclared, a claim of one is not judged.
_CONSEQUENCES = frozenset({"refund", "pay"})
#: claiming verbs read only in the first person (`I've paused your gift`): their perfect passive is as often a
#: state someone else brought about (`your card has been frozen by our fraud team`, `Mia has been enrolled
#: since September`), which a lookup's `"status": "blocked"` does not show as the same word
_FIRST_PERSON_ONLY = frozenset(
    {"paused", "frozen", "froze", "resumed", "unpaused", "unfrozen", "reactivated", "enrolled", "enroled",
     "subscribed", "approved"}
)  # fmt: skip
_VERB = "|".join(sorted((v for v in _CLAIM_VERBS if v not in _FIRST_PERSON_ONLY), key=len, reverse=True))
_VERB_FIRST = "|".join(sorted(_CLAIM_VERBS, key=len, reverse=True))
_DONE_CLAIM = re.compile(
    rf"(?i)\b(?:(?:i|we)(?:['’]ve| have)?\s+(?:now\s+|just\s+|already\s+|also\s+|successfully\s+)*(?P<a>{_VERB_FIRST})"
    rf"|(?:has|have)\s+(?:now\s+|already\s+|also\s+)?been\s+(?:successfully\s+)?(?P<b>{_VERB})"
    rf"|(?:is|are)\s+now\s+(?P<c>{_VERB})|(?:was|were)\s+successfully\s+(?P<d>{_VERB})"
    rf"|went ahead and\s+(?P<e>{_VERB})"
    rf"|\byou(?:['’]re| are)\s+(?:now\s+|all\s+|both\s+)?(?P<f>booked|reserved|scheduled|upgraded))\b"
)
#: a present passive is a claim after an opener that says the work is done (`You're all set — your tune-up
#: is moved to Friday`, `**Done** — it is cancelled`); without one it is as often a state (`Both flights are
#: scheduled to depart on time`) or a rule (`Fixed-term plans are renewed automatically`)
#: (and `All sorted:`, `That's all confirmed -`: blind set 40; not `That's confirmed` or `All confirmed:`, as
#: often said of what a lookup showed)
_OPENER = (
    r"(?:done|all\s+done|all\s+set|you(?:['’]re| are)\s+all\s+set|fixed|all\s+sorted|sorted|"
    r"that(?:['’]s|\s+is)\s+(?:all\s+)?(?:done|sorted)|that(?:['’]s|\s+is)\s+all\s+confirmed)"
)
_OPENER_PASSIVE = re.compile(
    rf"(?i)^\W*{_OPENER}\W*\s*[—–:,!-]\s+[^.!?]*?"
    rf"\b(?:is|are)\s+(?:now\s+)?(?:both\s+|all\s+)?(?P<g>{_VERB})\b"
)
#: a sentence that is only the opener (`All done!`): the present passive of the next one is a claim
_OPENER_ALONE = re.compile(rf"(?i)^\W*{_OPENER}\W*$")
#: `All moved — your game is now on Saturday`, `All booked!`: an opener that names the action it says is done
#: (not `All booked up for Saturday`, full)
#: (not `All booked, I'm afraid — Saturday is full`; not `changed` or `scheduled`, as often news or a timetable:
#: `All changed — the airline retimed both flights`, `All scheduled: Yoga on Monday`)
_ALL_DONE = re.compile(
    r"(?i)^\W*all\s+(?P<v>moved|booked|cancelled|canceled|updated|rescheduled|reserved|sent|refunded)"
    r"\s*(?:[—–:,!.-]|$)"
)
_FULL = re.compile(
    r"(?i)\b(?:afraid|sorry|unfortunately|full|fully|nothing\s+(?:left|free)|no\s+(?:free|more|slots?|space|availability))\b"
)
#: after a lone opener, a present passive is a claim of what was done to the user's things (`The buffet …
#: are both added to your booking`), not a rule or a schedule (`Refunds are issued within 5 days`, `Both
#: flights are scheduled to depart on time`, `Checked bags are charged at $35 each`)
_OWN_SUBJECT = re.compile(r"(?i)^\W*(?:your|the|it|its|this|that|these|those|my|our)\b")
#: what a timetable says of a booking (`scheduled to depart`): a rule or a state, no action done
_TIMETABLE = r"depart|arrive|leave|start|begin|run"
_RULE_WORDS = re.compile(
    rf"(?i)\b(?:to\s+(?:{_TIMETABLE}|be|take)|within|before|each|every|automatically"
    r"|due\s+to|because\s+of|by\s+the\s+(?:airline|venue|operator|carrier|organi[sz]ers?|hotel|clinic|provider))\b"
)  # and news (`cancelled by the airline`, `cancelled due to weather`)
_BOOKED_UP = re.compile(r"(?i)\s+(?:up|solid|out)\b")  # right after the verb: a state (`booked up`)


def _done_to_yours(sentence: str) -> re.Match[str] | None:
    """The present passive of a claim after a lone opener: of the user's things, not followed by a rule."""
    m = _PASSIVE.search(sentence) if _OWN_SUBJECT.match(sentence) else None
    if m is None:
        return None
    comma = sentence.find(",", m.end())
    if _BOOKED_UP.match(sentence, m.end()):
        return None
    if _RULE_WORDS.search(
        sentence, m.end(), min(m.end() + _RULE_REACH, comma if comma >= 0 else len(sentence))
    ):
        return None  # `Your seats are booked, one for each of you`: a claim; `… are issued within 5 days`: a rule
    return m


#: the actions whose present passive, of the user's own thing, claims the action without an opener (`Your
#: reservation AVH-58812 is cancelled`, `Your order LC-5520 is placed`); not paying, sending or scheduling,
#: whose present passive is as often a rule (`the balance is paid on the day`, `the permit is issued once the
#: fee is paid`, `Your cancellation is scheduled`)
_YOURS_NOW = frozenset({"cancel", "book", "update", "submit", "order", "create", "delete", "transfer"})
_YOUR = re.compile(r"(?i)\W*your\b")


def _yours_now(sentence: str) -> re.Match[str] | None:
    """A present passive of one of the user's things (`_done_to_yours`) whose action is one `_YOURS_NOW`
    claims without an opener, said of a thing the sentence names by its id or as `your …`."""
    m = _done_to_yours(sentence)
    if m is None or _CLAIM_VERBS[fold(m["g"])] not in _YOURS_NOW:
        return None
    return m if _YOUR.match(sentence) or _named_ids(sentence[: m.start()]) else None


_RULE_REACH = 30  # characters after the verb in which a rule's words say it is a rule
_SCHEDULE = re.compile(rf"(?i)\s+to\s+(?:{_TIMETABLE}|take\s+off|board)\b")


_PASSIVE = re.compile(rf"(?i)\b(?:is|are)\s+(?:now\s+)?(?:both\s+|all\s+)?(?P<g>{_VERB})\b")
#: Chinese: 已为您取消, 我已经帮您修改了, 已提交 — the verb after 已 / 已经 (with 为您 / 帮您)
_ZH_VERBS = {
    "取消": "cancel", "撤销": "cancel", "预订": "book", "预定": "book", "订好": "book", "修改": "update",
    "更改": "update", "退款": "refund", "退回": "refund", "退还": "refund", "退票": "refund", "发送": "send",
    "发出": "send", "寄出": "send", "邮寄": "send", "提交": "submit", "申请": "submit",
    "下单": "order", "购买成功": "order", "转账": "pay", "开通": "create", "办理": "create", "办好": "create", "开具": "create",
    "添加": "create", "加上": "create", "改为": "update", "改到": "update", "改成": "update", "更新": "update",
    "延长": "update", "续租": "update", "续订": "update", "改期": "update", "升级": "upgrade",
    "安排好": "book", "预约": "book", "删除": "delete", "移除": "delete", "转给": "transfer", "转让": "transfer",
}  # fmt: skip
#: verbs read only after 为您 / 帮您 (`已为您冻结会员卡`, `已为您调整好`): without it they as often report a
#: state (`该区域的网络故障已恢复`, `您的月费已调整为99元`, `您已退订短信通知`)
_ZH_FOR_YOU_VERBS = {
    "调整": "update", "改好": "update", "暂停": "pause", "冻结": "pause", "恢复": "resume", "解冻": "resume",
    "报名": "enroll", "退订": "cancel",
}  # fmt: skip
_ZH_ALL_VERBS = {**_ZH_VERBS, **_ZH_FOR_YOU_VERBS}
#: `已为您取消`, `已原路退回`, `已经为您把预订取消了`, `已为您将明天订单中的菠萝包改为80个`, `已将报价单SJ-Q250520-08发送至`:
#: the verb after 已 (with 为您, 原路, 把 / 将 + its object); `已为您办理冻结`, `已办好续租`: the action after the verb
#: that only says it was handled (办理, 办好)
_ZH_ALREADY = "(?:已经?|我已经?)"
_ZH_OBJECT = "[把将](?:(?![，。；！？,;!?])[^\n]){1,24}?"  # 把 / 将 + what was done to, in any script
#: for whom: you, both of you, your family, a person by title (`已为您二位订好`, `已为您母亲预约好了`, `已为王女士取消`);
#: not any words, which would take in the agent's own verb (`已为您核实退款进度`: checked, not refunded)
_ZH_FOR = (
    "(?:为|帮|给)(?:(?:您|你)(?:们|二位|两位|三位|及家人|的?(?:母亲|父亲|家人|孩子|爱人|太太|先生|朋友|同事))?"
    "|[\u4e00-\u9fff]{1,3}(?:先生|女士|小姐|老师))"  # `已为张先生预订了`
)
_ZH_HANDLED = "(?:办理|办好)了?"  # not 安排: 安排退款专员 arranges a person, not a refund


_ZH_DONE = re.compile(
    f"{_ZH_ALREADY}(?:{_ZH_FOR})?(?:{_ZH_OBJECT})?{_ZH_HANDLED}(?P<h>{any_of(_ZH_ALL_VERBS)})"
    f"|{_ZH_ALREADY}(?:{_ZH_FOR})?(?:原路|全部|全额|都|{_ZH_OBJECT})?(?P<a>{any_of(_ZH_VERBS)})"
    f"|{_ZH_ALREADY}{_ZH_FOR}(?:{_ZH_OBJECT})?(?P<f>{any_of(_ZH_FOR_YOU_VERBS)})"
)
#: Japanese: the polite past of an action noun (`キャンセルいたしました`, `ご予約が完了しました`,
#: `キャンセル手続きが完了しました`, `削除させていただきました`); its negation (`できませんでした`), a question
#: (`しましたか`), a condition (`しましたら`) or a quote is none; shipping (`発送しました`) is not read, as a lookup's
#: state is said so too
_JA_VERBS = {
    "キャンセル": "cancel", "取り消し": "cancel", "取消し": "cancel", "解約": "cancel", "予約": "book",
    "手配": "book", "変更": "update", "更新": "update", "延長": "update", "送信": "send", "送付": "send",
    "お送り": "send", "返金": "refund", "払い戻し": "refund", "削除": "delete", "登録": "create",
    "追加": "create", "申請": "submit", "申し込み": "submit", "注文": "order", "一時停止": "pause",
}  # fmt: skip
_JA_DONE = re.compile(
    f"(?P<v>{any_of(_JA_VERBS)})(?:の?(?:お)?手続き)?[をがはも]?"
    "(?:(?:いた|致)し|させていただき|し|でき|完了(?:いたし|し)?|済み)ました"  # `手配も済みました`
    # not a condition (`しましたら`), a reason (`ので`, `から`), a quote (`」`, `と`) or a relative clause (`お送り
    # しました確認メール`)
    "(?![からとので」』\u4e00-\u9fff\u30a0-\u30ff])"
)
#: Korean: an action noun done, in the polite past (`예약했습니다`, `취소했어요`), or completed or processed (`일시정지가
#: 완료되었습니다`, `취소 처리되었습니다`); its negation (`취소하지 못했습니다`), a question (`했습니까`), a condition or a
#: quote (`취소되었다면`, `…습니다라고 표시되면`) is none, nor a bare passive, as often a state (`요금이 변경되었습니다`:
#: the fare changed; `해당 시간은 이미 예약되었습니다`: a slot taken)
_KO_VERBS = {
    "취소": "cancel", "예약": "book", "변경": "update", "연장": "update", "환불": "refund", "전송": "send",
    "삭제": "delete", "등록": "create", "신청": "submit", "결제": "pay", "일시정지": "pause",
    "일시 정지": "pause", "주문": "order",
}  # fmt: skip
_KO_DONE = re.compile(
    rf"(?P<v>{any_of(_KO_VERBS)})\s*[이가을를은는도]?\s*(?:(?:완료|처리)\s*(?:되었|됐|했|하였)|했|하였)"
    r"(?:습니다|어요)(?!\s*(?:라고|라는|면))"
)


#: a Korean bare passive of a reservation's cancelling, the reservation named by its id (`_YOURS_NOW`:
#: `예약(HSG-7720)이 취소되었습니다`); not a booking's (`… 10시로 예약되었습니다` is as often what a lookup shows)
_KO_PASSIVE = re.compile(r"예약[^.!?。]*?(?P<v>취소)\s*(?:되었|됐)(?:습니다|어요)(?!\s*(?:라고|라는|면))")
#: before it: already, a contrast or an attempt (`변경하려고 했지만`), a cause or a source (news: `기상 악화로
#: 취소되었습니다`, `항공사에 따르면`, `조회 결과`)
_KO_NOT_PASSIVE = re.compile(r"이미|지만|려고|따르면|결과|때문|인해|사정|로\s*$")
#: before a Chinese claim: a negation (`未能为您办理`) or a condition (`如果您已申请退款`, `如已退票`)
_ZH_NOT = re.compile("[不没未]|如果|假如|若|(?<!例)如(?!您所愿|下|此|何|期|实)")  # not 如您所愿, 例如, 如下
#: right after one: a relative clause (`已删除的照片无法恢复`, `您已申请的退款`), what was done before (`已申请过一次`), a
#: slot full (`该时段已预约满`): what is so, no claim. (Not 的 after an object: `已为您取消张伟的名额` cancels his place.)
_ZH_NO_CLAIM_AFTER = re.compile("的|过(?!期)|满")


def _cjk_claims(sentence: str) -> list[str]:
    """The actions a Chinese (`_ZH_DONE`: each, after no negation or condition and before no relative clause,
    `_ZH_NOT`, `_ZH_NO_CLAIM_AFTER`; `已为您取消订单，并已退款 ¥180` is two), Japanese (`_JA_DONE`) or Korean
    (`_KO_DONE`) sentence claims done."""
    out = []
    for m in _ZH_DONE.finditer(sentence):
        if _ZH_NOT.search(sentence, 0, m.start()):
            break
        if _ZH_NO_CLAIM_AFTER.match(sentence, m.end()):
            continue
        out.append(_ZH_ALL_VERBS[m["h"] or m["a"] or m["f"]])
    out += [_JA_VERBS[m["v"]] for m in _JA_DONE.finditer(sentence)]
    out += [_KO_VERBS[m["v"]] for m in _KO_DONE.finditer(sentence)]
    # a bare passive of the user's thing named by its id, as English `_yours_now` (`예약(HSG-7720)이 취소되었습니다`)
    out += [
        _KO_VERBS[m["v"]]
        for m in _KO_PASSIVE.finditer(sentence)
        if _named_ids(sentence[: m.start("v")]) and not _KO_NOT_PASSIVE.search(sentence[: m.start("v")])
    ]
    return out


#: French, German, Spanish, Italian, Portuguese, Dutch and Polish: the first person perfect (`j'ai annulé`, `ich
#: habe … gebucht`, `he reservado`, `ho prenotato`, `reservei`, `ik heb … geboekt`, `przełożyłam`) and the passive
#: (`foi atualizada`, `a été annulée`, `wurde storniert`, `ha sido cancelada`, `è stata prenotata`, `is
#: geannuleerd`, `zostało anulowane`); not a present passive (`Das Zimmer ist reserviert`: a state, as in
#: English) unless it says `now` (`ist jetzt storniert`, as `is now cancelled`). What is as often a state or
#: another verb is read after a first-person auxiliary only (`_EU_FIRST_ONLY`), or not at all (`übertragen`:
#: data sent)
_EU_VERBS = {
    **dict.fromkeys(("réservé", "réservée", "gebucht", "reserviert", "eingetragen", "reservado", "reservada",
                     "prenotato", "prenotata", "reservei", "marquei", "agendei", "agendado", "agendada",
                     "geboekt", "gereserveerd", "ingepland", "inscrit", "inscrite",
                     "angemeldet", "inscrito", "inscrita", "iscritto", "iscritta", "programmato", "programmata",
                     "zarezerwowane", "zarezerwowana", "zarezerwowany", "zarezerwowałam", "zarezerwowałem",
                     "umówiłam", "umówiłem"), "book"),
    **dict.fromkeys(("annulé", "annulée", "annule", "storniert", "abgesagt", "cancelado", "cancelada",
                     "anulado", "anulada", "cancellato", "cancellata", "annullato", "annullata", "cancelei",
                     "geannuleerd", "anulowane", "anulowana", "anulowany", "anulowałam", "anulowałem",
                     "odwołane", "odwołana", "odwołałam", "odwołałem"), "cancel"),
    **dict.fromkeys(("modifié", "modifiée", "changé", "déplacé", "déplacée", "geändert", "verschoben",
                     "umgebucht", "modificado", "modificada", "cambiado", "cambiada", "movido", "modificato",
                     "modificata", "spostato", "spostata", "cambiato", "alterei", "mudei", "atualizado",
                     "atualizada", "alterado", "alterada", "gewijzigd", "verplaatst", "aangepast",
                     "hinterlegt", "gespeichert", "aktualisiert", "enregistré", "enregistrée", "mis à jour",
                     "actualizado", "actualizada", "aggiornato", "aggiornata", "bijgewerkt", "verlängert",
                     "erneuert", "prolongé", "prolongée", "renouvelé", "renouvelée", "prorrogado", "prorrogada",
                     "ampliado", "ampliada", "renovado", "renovada", "prolungato", "prolungata", "rinnovato",
                     "rinnovata", "verlengd", "przełożyłam", "przełożyłem", "przełożona", "przełożone",
                     "zmieniłam", "zmieniłem", "zmieniona", "zmienione", "przedłużyłam", "przedłużyłem"), "update"),
    **dict.fromkeys(("envoyé", "envoyée", "geschickt", "gesendet", "verschickt", "enviado", "enviada",
                     "inviato", "inviata", "enviei", "verstuurd", "gestuurd", "wysłałam", "wysłałem"), "send"),
    **dict.fromkeys(("remboursé", "remboursée", "erstattet", "zurückerstattet", "reembolsado", "reembolsada",
                     "rimborsato", "rimborsata", "reembolsei", "terugbetaald", "rückerstattet"), "refund"),
    **dict.fromkeys(("commandé", "commandée", "bestellt", "ordinato", "ordinata", "encomendei",
                     "encomendado", "besteld", "zamówiłam", "zamówiłem", "zamówione"), "order"),
    # read after a first-person auxiliary only (`_EU_FIRST_ONLY`)
    **dict.fromkeys(("programmé", "programmée", "programado", "programada", "fissato", "fissata"), "book"),
    **dict.fromkeys(("devuelto", "devuelta", "devolvido", "devolvida", "restituito", "restituita"), "refund"),
    **dict.fromkeys(("verzonden", "versendet", "expédié", "expédiée", "spedito", "spedita"), "send"),
    **dict.fromkeys(("entfernt",), "delete"),
    **dict.fromkeys(("ajouté", "ajoutée", "añadido", "añadida", "aggiunto", "aggiunta", "adicionado", "adicionada",
                     "hinzugefügt", "toegevoegd", "dodałam", "dodałem", "dodane", "dodana"), "create"),
    **dict.fromkeys(("supprimé", "supprimée", "eliminado", "eliminada", "eliminato", "eliminata", "removido",
                     "removida", "gelöscht", "verwijderd", "usunięte", "usunięta", "usunęłam",
                     "usunąłem"), "delete"),
    **dict.fromkeys(("transféré", "transférée", "transferido", "transferida", "trasferito", "trasferita",
                     "overgedragen", "przeniesione", "przeniesiona"), "transfer"),
}  # fmt: skip
_EU_PARTICIPLE = "|".join(sorted(_EU_VERBS, key=len, reverse=True))
#: action -> its participles (`cancel`: `storniert`, `annulée`, …): a state a result writes in them
_EU_PARTICIPLES: dict[str, tuple[str, ...]] = {
    action: tuple(p for p, a in _EU_VERBS.items() if a == action and " " not in p)
    for action in set(_EU_VERBS.values())
}
#: participles whose passive or third person is as often a state or another verb (`ha devuelto el artículo`: the
#: user returned it; `a été expédiée`: a lookup's shipping state; `ist 5 Minuten entfernt`: away; `è stato fissato`:
#: a limit; `ha sido programado`: a flight's time), read as claims after a first-person auxiliary only (`le
#: hemos devuelto 45 €`, `j'ai programmé`, `ho fissato l'appuntamento`, `ik heb … verzonden`)
_EU_FIRST_ONLY = frozenset(
    {"programmé", "programmée", "programado", "programada", "fissato", "fissata", "devuelto", "devuelta",
     "devolvido", "devolvida", "restituito", "restituita", "verzonden", "versendet", "expédié", "expédiée",
     "spedito", "spedita", "entfernt"}
)  # fmt: skip
#: the first person's auxiliaries of the perfect (`j'ai`, `ich habe`, `hemos`, `ho`, `ik heb`)
_EU_FIRST_AUXILIARIES = (
    r"j['’]ai|je\s+(?:vous|lui|leur|te|les|l['’])\s*ai|nous\s+avons|ich\s+habe|habe\s+ich|wir\s+haben|he|"
    r"hemos|ho|abbiamo|ik\s+heb|heb\s+ik|we\s+hebben"
)
_EU_FIRST_AUXILIARY = re.compile(rf"(?i)(?:{_EU_FIRST_AUXILIARIES})\s")
#: `now` in the languages claims are read in, after an auxiliary (`ist jetzt`, `est maintenant`, `is nu`)
_EU_NOW_WORDS = ("jetzt", "nun", "maintenant", "désormais", "ahora", "ora", "adesso", "agora", "nu", "teraz")
_EU_AUXILIARY = (
    _EU_FIRST_AUXILIARIES + r"|ha|han|a\s+(?:bien\s+)?été|ont\s+(?:bien\s+)?été|wurde|wurden|"
    r"ha\s+sido|han\s+sido|è\s+stat[oa]|sono\s+stat[ie]|foi|foram|is|zijn|został[aoy]?|zostali|"
    # a present passive that says `now` (`Ihre Buchung ist jetzt storniert`, as `is now cancelled`)
    rf"(?:ist|sind|est|sont|es|son|está|están|è|sono|é|são|jest|są)\s+(?:{'|'.join(_EU_NOW_WORDS)})"
)
_EU_DONE = re.compile(rf"(?i)(?:\b(?:{_EU_AUXILIARY})\s+(?:[\w'’-]+\s+){{0,8}}?|\b)(?P<v>{_EU_PARTICIPLE})\b")
#: after an opener (`_EU_OPENER`), the present passive's auxiliaries too
_EU_PRESENT = re.compile(
    rf"(?i)(?:\b(?:{_EU_AUXILIARY}|ist|sind|est|sont|es|son|está|están|è|sono|é|são)\s+(?:[\w'’-]+\s+){{0,8}}?|\b)"
    rf"(?P<v>{_EU_PARTICIPLE})\b"
)
#: the words that open a European-language reply by saying the work is done (`Erledigt:`, `Listo:`)
_EU_DONE_WORDS = (
    r"erledigt|alles\s+erledigt|fertig|c['’]est\s+fait|c['’]est\s+bon|listo|hecho|fatto|ecco\s+fatto|feito|"
    r"pronto|klaar|gedaan|geregeld"
)
_EU_OPENER = re.compile(  # followed by a mark, as an opener is: not `Pronto recibirá`, `Listo para ayudarle`
    rf"(?i)^\W*(?:{_EU_DONE_WORDS})\s*[:!,.—–-]"
)
#: a reply's first words that say the work is done (`All sorted –`, `Done!`, `That's done —`, `You're all
#: set:`, `Erledigt:`, `搞定！`), however the rest is worded (`All sorted – your survey is now Tuesday`); a mark
#: after the words, as an opener has: not `Sorted by price`, `Listo para ayudarle`, `Done with that?`,
#: `已完成的订单`
_COMPLETION = re.compile(
    r"(?i)^\W*(?:all\s+done|done|all\s+sorted|sorted|all\s+set|you(?:['’]re|\s+are)\s+all\s+set|"
    rf"that(?:['’]s|\s+is)\s+(?:done|sorted)|consider\s+it\s+done|{_EU_DONE_WORDS}|gotowe|załatwione)\b"
    r"\W*?[:!,.—–-]|^\W*(?:搞定|办好了|已办妥|已完成|完成了)\s*[！!，,。.：:～~—]"
)
#: what a user's message that closes (thanks, nothing more) says, and what makes it a request after all
_CLOSING = re.compile(
    r"(?i)\b(?:thanks|thank\s+you|thx|ty|cheers|appreciated?|danke|dank|merci|gracias|grazie|obrigad[oa]|"
    r"bedankt|dzięki|спасибо|that['’]?s\s+(?:all|everything|it)|nothing\s+else|all\s+good|no\b)|谢谢|多谢|感谢|"
    r"ありがとう|不用了"
)
_REQUEST = re.compile(
    r"(?i)\b(?:(?:can|could|would)(?!['’]?t\b)|please|also|let['’]s|go\s+ahead|do\s+it|book|cancel|change|move|add|send|"
    r"switch|upgrade|refund|make\s+it|instead|bitte|s['’]il\s+vous\s+pla[iî]t|por\s+favor|per\s+favore)\b|"
    r"请|麻烦|帮我|能不能|可以"
)
#: after an opener, a present passive claims only of the user's own things, as in English (`_OWN_SUBJECT`):
#: `Ihre neue Handynummer ist hinterlegt`, not `le cours de 10h est réservé aux membres`
_EU_OWN_SUBJECT = re.compile(
    r"(?i)\W*(?:ihre?|ihren|dein|deine|votre|vos|ton|ta|tes|su|sus|tu|tus|il\s+tuo|la\s+tua|i\s+tuoi|le\s+tue|"
    r"il\s+suo|la\s+sua|seu|sua|seus|suas|o\s+seu|a\s+sua|uw|jouw)\b"
)
#: a participle that is a first person past on its own: Portuguese (`reservei`) and Polish (`przełożyłam`)
_EU_FIRST_PERSON = re.compile(
    r"(?i)\b(?:reservei|marquei|agendei|cancelei|alterei|mudei|enviei|reembolsei|encomendei|"
    + "|".join(v for v in _EU_VERBS if v.endswith(("łam", "łem")))
    + r")\b"
)
_EU_HINTS = tuple(w.casefold() for w in _EU_VERBS)  # a claim holds its participle: the cheap test first
#: the words of `_EU_NOT` that make a condition (`…, sobald die Zahlung eingeht`), not a negation of another
#: thing (`…, es fallen keine Gebühren an`)
_EU_IF_WORDS = (
    r"si|wenn|falls|sobald|indien|caso|quand|lorsque|cuando|quando|jeśli|jeżeli|gdy|kiedy|automatisch|"
    r"automatiquement|automáticamente|automaticamente|automatycznie"
)
_EU_IF = re.compile(rf"(?i)\b(?:{_EU_IF_WORDS})\b")
#: the European languages' words that say no (`nicht`, `pas`, `nie`, `geen`, …)
_EU_NO_WORDS = (
    r"non|no|pas|nicht|nichts|nie|kein\w*|não|nao|nenhum\w*|niet|niets|nooit|geen|nunca|jamais|nada|"
    r"ningun\w*|nessun\w*"
)
_EU_NOT = re.compile(rf"(?i)\b(?:{_EU_NO_WORDS}|als|{_EU_IF_WORDS})\b")
#: what says a call did not go as asked (`_unreported_failure`), in any of the languages read: a negation, a
#: failure, a refusal, a regret, a wait, a mistake, a step still to come, a need, a question — a reply with
#: any of these says so (or asks), and is not read as passing the failure over. Not a polite `bitte`, 请 or
#: ください, nor `still` or `only`: confirmations give instructions and states in those words too
_SAYS_SO = re.compile(
    r"(?i)\b(?:not|never|none|nothing|unfortunately|sorry|apologi[sz]e\w*|unable|cannot|can['’]t|couldn['’]t|"
    r"fail\w*|errors?|declined|rejected|refused|denied|unavailable|pending|wait\w*|on\s+hold|approval|"
    r"verification|verify|however|instead|issue|problem|oversight|mistake|incorrect|wrong|discrepancy|seems|"
    r"appears|impossible|blocked|bounced|fully\s+booked|passed\s+(?:on\s+)?your|tried|attempt\w*|"
    r"unsuccessful|sold\s+out|already\s+taken|exceed\w*|insufficient|invalid|expired|limit|approve|prompt|"
    r"to\s+finish|"
    r"let\s+me|i['’]ll|(?:i|we)\s+will|going\s+to|try|trying|retry|"
    r"leider|malheureusement|lamentablemente|desafortunadamente|infelizmente|purtroppo|helaas|niestety|"
    r"désolée?|siento|sentimos|spiacent\w*|entschuldig\w*|przykro|przepraszam|"
    r"refus\w*|rejet\w*|rechaz\w*|rifiut\w*|recus\w*|odrzu\w*|abgelehnt|geweigerd|afgewezen|mislukt|"
    r"impossib\w*|imposible|impossível|niemożliw\w*|unmöglich|onmogelijk|échou\w*|échec|fehlgeschlagen|"
    r"fallit\w*|fall[óo]|falh\w*|erreur|errore|fehler|błąd\w*|ungültig|abgelaufen|invalide|expiré\w*|"
    r"caduc\w*|scadut\w*|expir\w*|verlopen|ongeldig|wygas\w*|nieważn\w*|inválid\w*|"
    r"necesito|necessito|brauche|j['’]ai\s+besoin|preciso|potrzebuję|"
    rf"{_EU_NO_WORDS})\b|n['’]t\b|[?？¿]|[不没未无非拒]|失败|抱歉|遗憾|暂时|候补|待|出错|错误|已满|"
    r"못|않|없|죄송|실패|불가|오류|거절|어렵|만료|유효하지|ません|できな|申し訳|失敗|ない|エラー|断ら|拒否|期限切れ|無効|"
    r"过期|无效"
)
#: a thing said to cost nothing: no failure reported (`there's no charge for the change`, `at no extra cost`,
#: `no fees apply`); not a charge that did not happen (`No charge went through`, `No fees have been refunded`)
_NO_COST = re.compile(
    r"(?i)\b(?:at\s+no\s+(?:extra\s+|additional\s+)?(?:charge|cost)"
    r"|(?:there(?:['’]s|\s+is|\s+are|\s+will\s+be)|with)\s+no\s+"
    r"(?:extra\s+|additional\s+|further\s+|late\s+|change\s+|cancellation\s+|booking\s+)?"
    r"(?:charges?|fees?|costs?)(?:\s+for\s+(?:the|this|that|it)(?:\s+\w+)?)?"
    r"|no\s+(?:extra\s+|additional\s+|further\s+|late\s+)?(?:charges?|fees?|costs?)\s+(?:will\s+)?apply)\b"
)
#: a reply's courtesy (`Let me know if you need anything else.`, `Is there anything else I can help with?`,
#: `Don't hesitate to call`): it says nothing of what was done, so its words neither report a failure nor ask
_COURTESY_LINE = re.compile(
    r"(?i)\b(?:anything\s+else|let\s+(?:me|us)\s+know|don['’]t\s+hesitate|feel\s+free|get\s+in\s+touch|"
    r"reach\s+out|happy\s+to\s+help|any\s+(?:other\s+)?questions|enjoy|have\s+a\s+(?:great|good|nice|lovely))\b"
    r"|还有(?:其他|什么|别的)|有任何问题|随时联系"
)
#: what says a thing was done, in a sentence that gives a failed call's value (`_unreported_failure`): with
#: none of it the reply neither says the failure nor claims the thing, and is only for review
_DONE_PARTICIPLES = (
    r"done|confirmed|booked|reserved|scheduled|updated|changed|moved|extended|renewed|added|cancell?ed|"
    r"refunded|sent|emailed|issued|paid|charged|processed|registered|enrolled|placed|applied|activated|"
    r"approved|upgraded|arranged|completed|sorted|set\s+up|postponed|rescheduled|transferred|reinstated"
)
_PRESENTS_DONE = re.compile(
    rf"(?i)\b(?:(?:is|are|was|were|has\s+been|have\s+been|['’]s|['’]re)\s+(?:now\s+|all\s+|also\s+|been\s+)?"
    rf"(?:{_DONE_PARTICIPLES})|(?:i|we)['’]ve\s+(?:(?:now|also|just)\s+)?(?:{_DONE_PARTICIPLES})|"
    r"(?:is|are|['’]s)\s+now|now\s+(?:runs|run|starts|ends|on|for|until|at|set)|you['’]re\s+(?:all\s+)?set|"
    r"you['’]re\s+in|successfully)\b"
    r"|成功|完成|好了|办好|搞定|되었습니다|됐습니다|완료|完了|済み"
)
#: a European passive of something done, any verb (`a bien été effectué`, `wurde verlängert`, `foi efetuado`,
#: `è stato rinnovato`, `została przedłużona`): what `has been …` says in English
_EU_PASSIVE_DONE = re.compile(
    r"(?i)\b(?:a|ont)\s+(?:bien\s+)?été\s+\w+é(?:e|s|es)?\b|\bwurden?\s+(?:\w+\s+){0,4}?(?:ge)?\w+[td]\b"
    r"|\b(?:foi|foram|ha\s+sido|han\s+sido)\s+\w+(?:ad|id)[oa]s?\b|\b(?:è|sono)\s+stat[oaie]\s+\w+(?:at|it|ut)[oaie]\b"
    r"|\b(?:został\w*|zostały)\s+\w+(?:n|on)[yaei]\b"
)
#: a reply's first words that say the work is done, before any value (`Great news — that's confirmed!`)
_DONE_OPENER = re.compile(
    r"(?i)^\W*(?:(?:good|great)\s+news|that['’]s\s+(?:confirmed|done|all\s+set)|all\s+(?:done|set|sorted))\b"
)


def _said_done(sentence: str) -> bool:
    """Whether a sentence says a thing was done, as a claim does: a participle after `is`, `has been`, `I've`
    (`is extended`, `I've moved`; not `your booked stay`, `I've checked`), `is now` / `now runs`, a European
    auxiliary and participle (`_EU_DONE`: `a bien été effectué`, not the infinitive `annuler`), 完了,
    되었습니다."""
    return any(p.search(sentence) is not None for p in (_PRESENTS_DONE, _EU_DONE, _EU_PASSIVE_DONE))


#: an error that says the thing was done already (`Reservation ABC123 is already cancelled`, `ALREADY_PAID`):
#: the call failed, the thing is done; a reply that says so reports a state
_ALREADY = re.compile(r"(?i)already|bereits|déjà|già|już|reeds|已经|已被|이미|既に|すでに")
_MAX_ALREADY_CHARS = 2_000  # of a failed call's error and result, read for it


def _says_so(sentence: str) -> bool:
    """Whether a sentence says a call did not go as asked (`_SAYS_SO`) or asks the user (`act_of`). A courtesy
    (`Let me know if you need anything else.`, `Is there anything else I can help with?`) is read without its
    courtesy words and its question mark: what else it holds (`Sorry, …, but let me know …`) still counts;
    so is a thing said to cost nothing (`there's no charge for the change`: `_NO_COST`)."""
    if _NO_COST.search(sentence) is not None:
        sentence = _NO_COST.sub(" ", sentence)
    if _COURTESY_LINE.search(sentence) is None:
        return _SAYS_SO.search(sentence) is not None or act_of(sentence) == "ask"
    rest = _COURTESY_LINE.sub(" ", sentence).replace("?", " ").replace("？", " ")
    return _SAYS_SO.search(rest) is not None


_EU_COURTESY = re.compile(
    r"(?i)^\W*(?:pas\s+de\s+probl[èe]me|no\s+hay\s+problema|kein\s+problem|nessun\s+problema|sem\s+problema|"
    r"geen\s+probleem|sí|si|oui|ja|sim|alles\s+klar|d['’]accord|vale|va\s+bene|claro|certo|perfekt|parfait|"
    r"perfecto|perfetto|perfeito|gut|okay|ok)\b\W*"
)
_NOT_DONE = re.compile(
    r"(?i)\b(?:not|never|no(?!\s+(?:problem|worries)\b)|none|nothing|unable|cannot|can['’]t|couldn['’]t|won['’]t|"
    r"if|once|after|when|before|would|will|should|could|can|(?-i:may)|might|unless|yet|pending)\b|n['’]t\b"
)  # `No problem — I've extended it`: a courtesy, no negation
#: a condition holds over the whole sentence before the claim, not only its clause (`If the flight is
#: disrupted and your booking has been cancelled by the airline, …`); a negation only over its own clause
_CONDITION = re.compile(r"(?i)\b(?:if|once|when|whenever|unless|in\s+case)\b")
#: `… upgraded to economy class and then canceled`: a second action the same claim names.
_AND_VERB = re.compile(rf"(?i)\band\s+(?:then\s+|also\s+)?(?P<v>{_VERB})\b")
#: `The upgrade and cancellation of reservation XEHM4B have been successfully completed.`: the actions are
#: the nouns before a verb that only says "done".
_DONE_NOUNS = re.compile(
    r"(?i)\b(?:has|have|had)\s+been\s+(?:successfully\s+)?(?:completed|processed|finali[sz]ed|done|made|"
    r"placed|submitted|carried out)\b|\b(?:was|were)\s+successfully\s+(?:completed|processed|made|placed)\b"
)
_NOUN_ACTIONS = {
    "booking": "book", "bookings": "book", "cancellation": "cancel", "cancellations": "cancel",
    "upgrade": "upgrade", "downgrade": "upgrade", "change": "update", "changes": "update",
    "modification": "update", "modifications": "update", "update": "update", "updates": "update",
    "order": "order", "purchase": "order", "transfer": "transfer", "refund": "refund", "payment": "pay",
    "deletion": "delete", "removal": "delete", "reset": "reset", "submission": "submit",
}  # fmt: skip
#: what a refund issued claims (`_claimed`), and what a thing processed or initiated does
_SENT_OBJECTS = {"refund": "refund", "refunds": "refund"}
_DONE_OBJECTS = {**_NOUN_ACTIONS, **_SENT_OBJECTS}


#: words only an English reply holds: its claims are English ones
_ENGLISH = re.compile(  # not `The Westin` inside a French sentence
    r"\b(?:the|you|your|are|I've|I have|we've)\b|(?:^|[.!?]\s+)(?:The|You|Your|Thanks|Thank)\b"
)


#: Indonesian: `sudah` (already) and the verb, active with its doer (`Sudah saya ubah jadi 6 orang`, `sudah kami
#: batalkan`) or passive (`sudah dipesan`, `sudah terdaftar`, `sudah terkonfirmasi`), `berhasil` (successfully)
#: and a passive (`berhasil dibatalkan`), or an action's noun and `berhasil` (`Pemesanan berhasil!`); not after
#: `belum` (not yet), nor in a condition (`kalau sudah dibayar`, `setelah`, `jika`); not `tercatat` (recorded)
_ID_VERBS = {
    "ubah": "update", "ganti": "update", "perpanjang": "update", "jadwal ulang": "update",
    "batalkan": "cancel", "batal": "cancel", "pesan": "book", "pesankan": "book", "booking": "book",
    "konfirmasi": "book", "kirim": "send", "kirimkan": "send", "daftar": "enroll", "daftarkan": "enroll",
    "kembalikan": "refund", "refund": "refund", "bayar": "pay", "jadwalkan": "schedule",
}  # fmt: skip
_ID_NOUNS = {"pemesanan": "book", "pembatalan": "cancel", "perubahan": "update", "pendaftaran": "enroll",
             "pengiriman": "send", "pembayaran": "pay", "pengembalian dana": "refund"}  # fmt: skip
_ID_DONE = re.compile(
    rf"(?i)\bsudah\s+(?:(?:saya|kami|aku)\s+(?P<a>{any_of(_ID_VERBS)})|(?:di|ter)(?P<p>{any_of(_ID_VERBS)}))\b"
    rf"|\bberhasil\s+(?:di|ter)(?P<b>{any_of(_ID_VERBS)})\b"
    rf"|\b(?P<n>{any_of(_ID_NOUNS)})\s+(?:\w+\s+){{0,3}}?berhasil\b"
)
_ID_NOT = re.compile(r"(?i)\b(?:belum|tidak|tak|gagal|kalau|jika|apabila|setelah|begitu|bila)\b")


def _id_claim(sentence: str) -> str | None:
    """The action an Indonesian sentence claims done (`_ID_DONE`), after no negation or condition (`_ID_NOT`)."""
    low = sentence.casefold()
    if "sudah" not in low and "berhasil" not in low:
        return None
    m = _ID_DONE.search(sentence)
    if m is None or _ID_NOT.search(sentence, 0, m.start()):
        return None
    if m["n"]:
        return _ID_NOUNS[m["n"].casefold()]
    return _ID_VERBS[(m["a"] or m["p"] or m["b"]).casefold()]


def _eu_claim(sentence: str, opened: bool = False) -> str | None:
    """The action a French, German, Spanish, Italian, Portuguese or Dutch sentence claims done (`_EU_DONE`):
    a participle after its auxiliary, or a Portuguese first-person past; no negation or condition before.
    In a reply that opens by saying the work is done (`Erledigt:`, `C'est fait`, `Listo`: `_EU_OPENER`),
    a present passive too (`Ihre neue Handynummer ist ebenfalls hinterlegt`), as in English."""
    if not holds_any(sentence.casefold(), _EU_HINTS):
        return None
    opener = _EU_COURTESY.match(sentence)  # `Pas de problème, …`, `Sí, …`: no negation
    start = opener.end() if opener else 0
    said = _EU_OPENER.match(sentence, start)  # `Erledigt: Ihre Nummer ist hinterlegt`
    yours = _EU_OWN_SUBJECT.match(sentence, said.end() if said else start) is not None
    found = _eu_read(sentence, start, _EU_PRESENT if opened and yours else _EU_DONE)
    if found is None and yours and not opened and not (opener and _EU_YES.match(opener.group(0))):
        # `Ihre Buchung BF-7731 ist storniert`: the user's own thing in a present passive, as English reads
        # `Your reservation AVH-58812 is cancelled` (`_yours_now`): of its actions only, and no rule after it
        # (`Ihre Anmeldung ist bestätigt, sobald die Zahlung eingeht`)
        found = _eu_read(sentence, start, _EU_PRESENT)
        if (
            found is None
            or found[0] not in _EU_YOURS_NOW
            or found[2] in _EU_RECORDED
            or _EU_IF.search(sentence, found[1], found[1] + _RULE_REACH)
        ):
            return None
    return found[0] if found else None


#: the actions `_YOURS_NOW` reads in English but a booking, a change and a deletion: `votre table est réservée
#: pour le 16 mars` after a lookup that showed it, `Ihr Flug LH-123 ist verschoben` (the airline moved it),
#: `Ihre Adresse ist geändert` (the user changed it online), `Ihr altes Konto ist gelöscht` report what others
#: did as often as they claim it
_EU_YOURS_NOW = _YOURS_NOW - {"book", "update", "delete"}
#: a courtesy that answers yes (`Ja, Ihre Buchung ist storniert`): the reply answers a question about a state
_EU_YES = re.compile(r"(?i)\W*(?:ja|oui|sí|si|sim)\b")
#: participles that say a record exists, not which action made it (`Votre commande CK-8812 est enregistrée`:
#: a new order; `Ihre Nummer ist hinterlegt`: a change): a claim after an opener only
_EU_RECORDED = frozenset({"enregistré", "enregistrée", "gespeichert", "hinterlegt"})


def _eu_read(sentence: str, start: int, pattern: re.Pattern[str]) -> tuple[str, int, str] | None:
    """The action `pattern`'s first claiming participle says, where it ends, and the participle, lower-case
    (`_eu_claim`); none after a negation or a condition."""
    for m in pattern.finditer(sentence, start):
        if m.group(0) == m.group("v") and not _EU_FIRST_PERSON.fullmatch(m.group("v")):
            continue  # a participle alone (`réservé aux membres`, `Le créneau réservé hier`) claims nothing
        if _EU_NOT.search(sentence, start, m.start("v")):
            return None
        if m.group("v").casefold() in _EU_FIRST_ONLY and not _EU_FIRST_AUXILIARY.match(m.group(0)):
            continue
        said = m.group("v").casefold()
        action = _EU_VERBS.get(said)
        return (action, m.end(), said) if action is not None else None
    return None


@short_cached(maxsize=32_768)
def done_claims(reply: str) -> tuple[tuple[str, str], ...]:
    """(sentence, action) for each action a sentence of a reply plainly claims done: first person or
    passive perfect (`I've also scheduled`, and each action joined to it: `upgraded … and then
    canceled`, or claimed after it: `You're booked …, and I've cancelled your fitting`), `you're booked` /
    `reserved` / `scheduled`, or action nouns
    before `has been completed`; no negation, condition, modal or question before the claim."""
    out = []
    opened = False  # the sentence before was only an opener (`All done!`)
    english = _ENGLISH.search(reply) is not None  # its claims are read in English only (`_eu_claim`: none)
    for sentence in sentences(reply):
        after_opener, opened = opened, bool(_OPENER_ALONE.match(sentence))
        if act_of(sentence) == "ask":
            continue
        # `All moved — …`: the opener's claim, and the sentence's other claims below
        if (done := _ALL_DONE.match(sentence)) is not None and not _FULL.search(sentence):
            out.append((sentence, _CLAIM_VERBS[done["v"].casefold()]))
        m = (
            _DONE_CLAIM.search(sentence)
            or _OPENER_PASSIVE.search(sentence)
            or (_done_to_yours(sentence) if after_opener else _yours_now(sentence))
        )
        if m is not None and _SCHEDULE.match(sentence, m.end()):
            m = None  # `You're scheduled to depart at 9:05`: a timetable, not an action
        if (
            m is not None
            and not _NOT_DONE.search(sentence, _clause_start(sentence, m.start()), m.end())
            and not _CONDITION.search(sentence, 0, m.start())
        ):
            verbs = [_verb_at(m)]
            verbs += [(a["v"], a.start("v")) for a in _AND_VERB.finditer(sentence, m.end())]
            for more in _DONE_CLAIM.finditer(sentence, m.end()):  # `You're booked …, and I've cancelled …`
                start = _clause_start(sentence, more.start())
                if not (
                    _SCHEDULE.match(sentence, more.end())
                    or _NOT_DONE.search(sentence, start, more.end())
                    or _CONDITION.search(sentence, start, more.start())
                ):
                    verbs.append(_verb_at(more))
            out += [(sentence, action) for v, at in verbs for action in _claimed(sentence, v, at)]
            continue
        cjk = _cjk_claims(sentence) if not sentence.isascii() else []
        if cjk:
            out += [(sentence, action) for action in cjk]
            continue
        indonesian = None if english else _id_claim(sentence)
        if indonesian is not None:
            out.append((sentence, indonesian))
            continue
        # `Erledigt: Ihre Nummer ist hinterlegt`: in the sentence an opener opens, a present passive claims
        eu = None if english else _eu_claim(sentence, _EU_OPENER.match(sentence) is not None)
        if eu is not None:
            out.append((sentence, eu))
            continue
        n = _DONE_NOUNS.search(sentence)
        if n is not None and not _NOT_DONE.search(sentence[: n.end()]):
            nouns = [w.lower() for w in re.findall(r"[A-Za-z]+", sentence[: n.start()])]
            actions = dict.fromkeys(_NOUN_ACTIONS[w] for w in nouns if w in _NOUN_ACTIONS)
            out += [(sentence, a) for a in actions]
    return tuple(dict.fromkeys(out))


def _verb_at(m: re.Match[str]) -> tuple[str, int]:
    """The claiming verb a match of `_DONE_CLAIM` / `_OPENER_PASSIVE` / `_PASSIVE` holds, and where it stands."""
    name = next(k for k, v in m.groupdict().items() if v)
    return m[name], m.start(name)


def _claimed(sentence: str, verb: str, at: int) -> list[str]:
    """The action a claiming verb at `at` claims: its own (`_CLAIM_VERBS`), or for a verb that says it by its
    noun (`_SENDING`, `_DOING`) the action of the first noun of its subject (the words before it in its own
    clause: `your £96 refund has been issued`, `Refund: $3,925 has been processed`), else of the head of its
    object (the few after it: `I've issued a prorated refund`, not `refund instructions`) — an action's own
    noun before a thing's (`your booking cancellation`, `the payment for your booking`, `your refund for order
    #1234`: a cancellation, a payment, a refund). `sent` claims a refund only as the head of its object (`I've
    sent the $45 refund`, not `a copy of our refund policy`). With none, `issued` and `sent` send and
    `processed` and `initiated` claim nothing (`I've processed that`)."""
    word = fold(verb)
    if word not in _SENDING and word not in _DOING:
        return [_CLAIM_VERBS[word]]
    # its own clause's subject: `Following your cancellation last week, your new booking has been processed`
    subject = re.split(r"[,;]\s", sentence[:at])[-1]
    before = [w.strip(_PUNCTUATION).lower() for w in subject.split()[-_NOUN_REACH_BEFORE:]]
    after = [w.strip(_PUNCTUATION).lower() for w in sentence[at + len(verb) :].split()[:_NOUN_REACH_AFTER]]
    if word == "sent":
        i = next((i for i, w in enumerate(after) if w and w not in _DETERMINERS and not _has_digit(w)), None)
        head = after[i] if i is not None and _heads(after, i) else ""
        return [_SENT_OBJECTS.get(head, "send")]
    objects = _SENT_OBJECTS if word in _SENDING else _DONE_OBJECTS
    for words in (before, after):
        nouns = [w for i, w in enumerate(words) if w in objects and (words is before or _heads(words, i))]
        if nouns:  # the first: a subject's head comes first (`the payment for the upgrade`)
            acts = [w for w in nouns if w not in _THING_NOUNS]
            return [objects[(acts or nouns)[0]]]
    return [_CLAIM_VERBS[word]] if word in _SENDING else []


#: nouns that name a thing as well as an action (`booking`, `order`): an action's own noun beside one says the
#: action (`your booking cancellation`, `the payment for your booking`)
_THING_NOUNS = frozenset(
    {"booking", "bookings", "order", "purchase", "transfer", "update", "updates", "change"}
)
_PUNCTUATION = "\"'’“”.,;:!?()[]*•-–—"
_DETERMINERS = frozenset(
    {"a", "an", "the", "your", "you", "my", "our", "this", "that", "full", "partial", "new"}
)


#: words after a noun that leave it the head of its phrase (`a refund of $45`, `the refund to your card`); any
#: other word after it makes it a modifier (`refund instructions`, `refund request form`)
_AFTER_HEAD = frozenset(
    {"", "of", "to", "for", "back", "into", "via", "on", "onto", "and", "has", "have", "is", "was", "will", "in"}
)  # fmt: skip


def _heads(words: Sequence[str], i: int) -> bool:
    """Whether `words[i]` heads its noun phrase: the last word, or followed by one that ends the phrase."""
    return i + 1 >= len(words) or words[i + 1] in _AFTER_HEAD or _has_digit(words[i + 1])


def _has_digit(word: str) -> bool:
    return DIGIT.search(word) is not None


#: the words before a light verb in which its subject's noun stands (`your refund of $45 for the cancelled
#: order has been`), and after it in which its object's (`I've processed the full refund`)
_NOUN_REACH_BEFORE = 10
_NOUN_REACH_AFTER = 4


_READ_VERBS = frozenset(
    {"get", "search", "list", "find", "lookup", "look", "check", "read", "fetch", "query", "show", "view", "track",
     "describe", "calculate", "think", "retrieve", "browse", "verify", "validate", "quote", "estimate",
     # the same in the languages replies are read in (`consultar_reserva`, `sprawdz_terminy`, `zoek_reservering`)
     "consultar", "consulter", "verificar", "verifier", "verifica", "buscar", "listar", "obter", "cerca", "elenca",
     "chercher", "rechercher", "sprawdz", "pobierz", "zoek", "controleer", "suchen", "finden", "pruefen", "abrufen"}
)  # fmt: skip


@lru_cache(maxsize=4_096)
def _acts(tool: str) -> bool:
    """A tool whose name says an action it does (`book_room`, `extend_stay`, `issue_refund`): one that may
    act (`may_act`: not `order_status`, `enrollment_status`) and names an action."""
    return may_act(tool) and any(does(tool, action) for action in ACTIONS)


#: words of a tool's name that say it reads wherever they stand (`payment_status`, `order_lookup`,
#: `availability_check`, `refund_eligibility`), beside a name that opens with a verb that reads
_READ_NAME_WORDS = frozenset(
    {"status", "lookup", "check", "details", "detail", "info", "eligibility", "availability", "history",
     "balance", "summary", "search", "list", "quote", "estimate",
     # the same in the languages replies are read in, wherever they stand (`buchung_abrufen`, `boeking_opzoeken`)
     "abrufen", "pruefen", "suchen", "finden", "anzeigen", "auflisten", "lesen", "berechnen", "opzoeken", "zoeken",
     "bekijken", "checken", "controleren", "overzicht", "lijst", "liste", "elenco", "lista", "estado", "statut",
     "stato", "dettagli", "consultar", "consulter", "verificar", "buscar", "listar", "verfuegbarkeit",
     "beschikbaarheid", "disponibilidad", "disponibilidade", "disponibilita", "disponibilites"}
)  # fmt: skip


@lru_cache(maxsize=4_096)
def may_act(tool: str) -> bool:
    """Whether a call may change something: its name neither opens with a verb that reads
    (`looks_read_only`) nor holds a word that says it reads (`_READ_NAME_WORDS`: `enrollment_status` enrols
    nobody, `order_lookup` orders nothing) — unless an action's verb opens it and names the thing before
    that word (`update_order_status`, `change_payment_details` set what the word names), or a verb that is no
    noun opens it (`send_quote`, `update_status`: `_PLAIN_ACTION_VERBS`). Another name of two words is read as
    the lookup (`order_status`, and so `transfer_balance` too)."""
    if looks_read_only(tool):
        return False
    words = key_words(tool)
    reads = [i for i, w in enumerate(words) if w in _READ_NAME_WORDS]
    return (
        not reads
        or (reads[0] >= 2 and words[0] in _ACTION_VERBS)
        or words[0] in _PLAIN_ACTION_VERBS
        or (len(words) == 2 and words[1] in _SETTABLE.get(words[0], ()))
    )


#: verbs that are no noun: a name they open acts on what follows, however short (`send_quote`, `approve_estimate`;
#: not `order_status`, `transfer_balance`, `refund_status`, `update_history`: a refund or an update is a noun too)
_PLAIN_ACTION_VERBS = frozenset(
    {"send", "resend", "delete", "remove", "submit", "approve", "decline", "modify", "accept"}
)  # fmt: skip
#: a verb that sets what a lookup would read (`update_status`, `update_details`, `pay_balance`): it acts; not
#: `update_history`, `refund_status` (a refund's status)
_SETTABLE: dict[str, frozenset[str]] = {
    "update": frozenset({"status", "details", "detail", "info"}),
    "set": frozenset({"status"}),
    "change": frozenset({"status", "details"}),
    "edit": frozenset({"details", "detail", "info"}),
    "reset": frozenset({"status"}),
    "pay": frozenset({"balance"}),
}


@lru_cache(maxsize=4_096)
def looks_read_only(tool: str) -> bool:
    """A tool whose name opens with a verb that reads (`get_order`, `search_flights`, `calculate`)."""
    words = key_words(tool)
    return bool(words) and words[0] in _READ_VERBS


def _says(arg_strings: Iterable[str], action: str) -> bool:
    """A call whose arguments' strings name the action (`manage_booking(action="cancel")`; a word or two,
    not free text such as a `think` tool's thought)."""
    stems = ACTIONS.get(action, (action,))
    short = (text for text in arg_strings if len(text.split()) <= 2)
    return any(w.startswith(stem) for text in short for w in key_words(text) for stem in stems)


#: Where a sentence's clauses part: `;`, `: ` (not a time's colon), or `, and` / `and` before a new subject.
_CLAUSE_BREAK = re.compile(
    r";|:\s|,?\s+(?:and|but|then|plus)\s+(?=(?:I|I've|I'm|we|we've|it|it's|its|the|your|this|that|they|he|she)\b)"
)
#: a claim of two things done (`Both appointments are cancelled`, `resent both tickets`)
_BOTH = re.compile(r"(?i)\bboth\b|\ball\s+(?P<n>two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\b")
_ANY_CLAIM_WORD = re.compile(rf"(?i)\b(?:{_VERB})\b")


_MAX_COUNTED = 50


def _things_done(d: _Done, verb: str) -> int:
    """How many things one call did, as its arguments and result say: a count under a key that names things
    and the action done (`"tickets_cancelled": 2`; not `qty: 2`, two packets of one seed, nor an amount,
    an hour or nights: `amount_refunded: 25`, `cancelled_at_hour: 14`, `nights_booked: 2`), the items of a
    list of its arguments, or of its result under a key that says the action done (`"cancelled": ["AP-1",
    "AP-2"]`; not `remaining_bookings`), or the ids an argument that names ids lists (`ids: "AP-1,AP-2"`;
    not `notify: "EM-1,SMS-2"`, nor a booking's id beside its customer's); at least one."""
    most = 1
    for value, listed in ((d.args, True), (d.result, False)):
        for path, key, leaf in _leaves(value):
            words = key_words(key)
            counted = isinstance(leaf, int) and not isinstance(leaf, bool) and 1 < leaf <= _MAX_COUNTED
            if counted and _counts_things(words, verb):  # `tickets_cancelled: 2`
                most = max(most, int(leaf))
            for name, index in _INDEXED.findall(path) if "[" in path else ():  # `flights[1].number`
                if listed or any(_CLAIM_VERBS.get(w) == verb for w in key_words(name)):
                    most = max(most, int(index) + 1)
            listing = isinstance(leaf, str) and listed and most == 1 and "," in leaf
            if listing and not _ID_LIST_WORDS.isdisjoint(words):  # `ids: "AP-1,AP-2"`
                parts = [part.strip() for part in leaf.split(",")]
                if all(_ID_LIKE.fullmatch(part) for part in parts):
                    most = max(most, len(parts))
    return most


def _counts_things(words: Sequence[str], verb: str) -> bool:
    """A key that says how many things the action was done to: the action's done word and a word for things,
    no amount, time or length (`tickets_cancelled`, `seats_booked`; not `amount_refunded`, `nights_booked`)."""
    done = [w for w in words if _CLAIM_VERBS.get(w) == verb]
    others = [w for w in words if w not in done]
    return bool(done and others) and not any(
        w in _GENERIC_KEY_WORDS or w in _CURRENCY_KEY_WORDS or w in MONEY_WORDS or w in _LENGTH_WORDS
        for w in others
    )


#: the words of an argument's key that name several ids (`ids`, `booking_refs`, `appointment_numbers`)
_ID_LIST_WORDS = frozenset({"ids", "refs", "references", "numbers", "codes", "bookings", "appointments",
                            "orders", "tickets", "reservations", "items"})  # fmt: skip
_LENGTH_WORDS = frozenset({"nights", "night", "weeks", "week", "months", "month", "years", "year", "hours"})


_INDEXED = re.compile(r"(\w*)\[(\d+)\]")  # a list's key and an item's index in a leaf's path


def _how_many(clause: str, verb: str) -> int:
    """How many things the clause says this action was done to (`Both appointments are cancelled`, `resent
    both tickets`: 2; `All three viewings are booked`: 3; else 1): `both` or `all <number>` in its subject
    or its object, not in another action's (`I've updated the email and resent both tickets`: one update)."""
    said = _CLAIM_WORDS.get(verb)
    m = said.search(clause) if said is not None else None
    if m is None or not _BOTH.search(clause):
        return 1
    others = [o for o in _ANY_CLAIM_WORD.finditer(clause) if o.start() != m.start()]
    start = max((o.end() for o in others if o.end() <= m.start()), default=0)
    end = min((o.start() for o in others if o.start() >= m.end()), default=len(clause))
    q = _BOTH.search(clause, start, end)
    if q is not None and q["n"] is not None and q.end() > m.start():  # `for all 6 outfits`: one call's items
        q = _BOTH.search(clause, start, m.start())
    if q is None:
        return 1
    n = q["n"]
    return 2 if n is None else _count_said(n)


#: a present passive whose subject is counted (`Both appointments are cancelled`, `All three viewings are
#: booked`, `Both are reserved`): as often a state (`both courts are booked at 6pm`), so a claim only where
#: a call that does the action succeeded since the user's message (`_counted_claims`)
_YOU_ENROLLED = re.compile(
    r"(?i)\byou(?:['’]re|\s+are)\s+(?:(?P<now>now)\s+|all\s+|both\s+)?(?P<v>enroll?ed)\b"
)
_COUNTED_PASSIVE = re.compile(
    rf"(?i)\b(?:both|all\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d{{1,2}}))\b[^.;:!?]{{0,60}}?"
    rf"\b(?:are|were)\s+(?:now\s+)?(?:all\s+|both\s+)?(?P<v>{_VERB})\b"
)


#: `, and` before a clause with a verb of its own (`The fine is paid (receipt RC-77120), and transcript
#: order TR-2025-04-1183 is processing`), not before the last of a list (`ABC123, DEF456, and XYZ789 as you
#: have asked`: an id next, or a verb only in a clause of its own)
_COMMA_AND = re.compile(
    r",\s+and\s+(?![\w-]*\d)(?=(?:(?!\b(?:as|which|that|who|where|when)\b)(?:[^,;.]|(?<=\d)[.,](?=\d)))*"
    r"\b(?:is|are|was|were|has|have|had|will)\b)"
)


def _comma_clauses(part: str) -> list[str]:
    return _COMMA_AND.split(part) if ", and" in part else [part]


#: a next action whose subject is left out (`I cancelled Monday's and then booked Tuesday — RS-55391`)
_AND_THEN = re.compile(r",?\s+and\s+then\s+")


#: a thing said to hold a value now (`is now for 4 guests`, `are now on Sunday`, `ist jetzt`, `est maintenant`):
#: the European auxiliaries `_EU_AUXILIARY` reads a present passive with
_NOW_STATE = re.compile(
    r"(?i)\b(?:is|are)\s+now\b|\b(?:ist|sind|est|sont|es|son|está|están|è|sono|é|são|is|zijn|jest|są)\s+"
    rf"(?:{'|'.join(_EU_NOW_WORDS)})\b"
)
#: words before a `now` that make it the user's news the reply builds on (`Since your flight is now at 14:30`,
#: `Understood - your flight is now …`), not a change it reports
_PREMISE = re.compile(r"(?i)\b(?:since|because|given|now\s+that|understood|noted|i\s+see)\b")
#: what parentheses add, unless only digits (`(415) 555-0132`: an area code)
_ASIDE = re.compile(r"\((?=[^()]*[^\d\s()])[^()]*\)|（[^（）]*）")
#: the words that may stand between `now` and the value a thing now holds (`now for 4 guests`, `jetzt für`,
#: `now on Sunday 16 March`, `maintenant pour le 16 mars`)
_NOW_GAP = frozenset(
    {"for", "on", "at", "to", "in", "until", "till", "the", "set", "due", "back", "für", "am", "um", "auf", "bis",
     "pour", "le", "la", "à", "a", "au", "para", "el", "en", "per", "il", "op", "voor", "de", "del", "du", "do",
     "na", "dla", "w"}
)  # fmt: skip
#: the words `_NOW_STATE` needs, after the whitespace before them (every value a thing now holds follows its
#: `now` after a space too: ` ora ` and ` nu ` so, as `ora` and `nu` are in many words); a space, a line's end,
#: a tab, a non-breaking or a narrow space (text carried over from HTML)
_NOW_HINTS = tuple(
    f"{space}{word}{' ' if word in ('ora', 'nu') else ''}"
    for word in ("now", *_EU_NOW_WORDS)
    for space in (" ", "\n", "\t", "\r", "\xa0", "\u202f")
)
#: a fact's kind as `value_kind` names it, by its key's prefix (`_new_values`)
_KIND_OF_KEY = {"md": "date", "date": "date", "time": "time", "phone": "phone", "digits": "number"}


def _new_values(said: str) -> list[tuple[str, str]]:
    """(as written, kind) of each value a clause says something now holds, in the order it says them (the
    first is the new value; what follows is often the context: `is now 9 July, well ahead of your trip on the
    18th`): its typed facts as a reply's are read (`_reply_facts`: dates, times, ids, phones, amounts), and
    its small counts (`for 4 guests`), which replies' facts leave out, when no date holds them."""
    facts = _reply_facts(said)
    out = [
        (original, "email" if "@" in original else "id" if canon.startswith("id:") else _KIND_OF_KEY.get(
            canon.partition(":")[0], "number"))
        for canon, original in facts
    ]  # fmt: skip
    dated = " ".join(original for canon, original in facts if canon.startswith(("md:", "date:")))
    for canon, original in extract_facts(said, False).spans:
        written = original.isdigit() or NUMBER_WORD.fullmatch(original) is not None  # `4`, `four`
        if canon.startswith("number:") and "|" not in canon and written and original not in dated:
            out.append((original, "count"))
    return sorted(out, key=lambda value: said.find(value[0]) % (len(said) + 1))  # (one not found: last)


def _clause_start(sentence: str, at: int) -> int:
    """Where the clause that holds `at` starts (`_CLAUSE_BREAK`): a negation or a modal of another clause is
    not this one's (`… will now be delivered today, and I've texted her`); a condition is (`_CONDITION`)."""
    starts = [m.end() for m in _CLAUSE_BREAK.finditer(sentence) if m.end() <= at]
    return starts[-1] if starts else 0


def _clause_of(sentence: str, verb: str) -> str:
    """The clause of a sentence that says this action by a verb that claims it (`refunded`, `sent`,
    `reserved` for a booking — not the noun `booking` of another clause), else the whole sentence."""
    said = _CLAIM_WORDS.get(verb)
    parts = [q for p in _CLAUSE_BREAK.split(sentence) if p and p.strip() for q in _comma_clauses(p)]
    found = [p for p in parts if said is not None and said.search(p)]
    clause = found[0] if len(found) == 1 else sentence
    # after `and then`, an action naming what it acted on is a clause of its own; one naming nothing acts
    # on the subject before it (`XEHM4B was upgraded and then cancelled`: XEHM4B was cancelled)
    steps = _AND_THEN.split(clause)
    doing = [i for i, p in enumerate(steps) if said is not None and said.search(p)]
    if len(steps) > 1 and len(doing) == 1 and (doing[0] == 0 or _named_ids(steps[doing[0]])):
        return steps[doing[0]]
    return clause


def _named_ids(sentence: str) -> set[str]:
    """The ids a sentence names, normalized (`XEHM4B`, `59XX6W`)."""
    return {
        normalize_text(original)
        for canon, original in extract_facts(sentence, False).spans
        if canon.startswith("id:")
    }


def does(tool: str, action: str) -> bool:
    """A tool whose name says the action by its verb: its first word (`cancel_reservation` cancels,
    `send_certificate` sends; `get_booking_details` books nothing), or any word that is the verb itself
    (`reservation_cancel`)."""
    words = key_words(tool)
    stems = ACTIONS.get(action, (action,))
    foreign = ACTION_WORDS.get(action, frozenset())
    return bool(words) and (
        any(words[0].startswith(stem) for stem in stems)
        or any(w in stems for w in words)
        or not foreign.isdisjoint(words)
    )
