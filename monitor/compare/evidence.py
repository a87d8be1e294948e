"""Evidence: what a conversation states, and where each value an agent uses came from. Pure.

In: a conversation's turns in order (user messages, tool calls with their results and errors, replies),
its system prompt(s) and declared tool schemas. Out: for each leaf of each call's arguments its
`Provenance` (source and turn), and for each reply the facts and done-claims nothing supports.

What counts as evidence, up to the moment a value is used:
- `user`: every user message before it (typed facts too: "June 1st" grounds `2024-06-01`, "$1,200"
  grounds 1200, "Seattle" grounds the airport code `SEA`);
- `tool_result`: the result of every earlier call that did not fail (keys and values); a failed call's
  result grounds nothing, and neither does the result of a call whose own arguments were ungrounded
  (`tainted`: a value from it is a cascade of that call, not a fact);
- `system`: the system prompt / instructions, and extra evidence the policy names;
- `tool_definition`: an `enum`, `const` or `default` of the tool's declared JSON Schema;
- `computed`: a number that is the sum, difference, product or quotient of two grounded numbers, or a
  grounded number times a small count (a price for three passengers), or the sum of a run of numbers in
  one tool result;
- `agent`: none of these — the agent introduced it.

Which values must be grounded (`checked`): identifying or typed ones — ids and codes (letters with
digits, `ZFA04Y`, `HAT001`, an all-capital code such as `JFK`), emails, phone numbers, amounts and other
numbers from 10 up, dates and times, and names of people and places under a key that says so
(`first_name`, `city`, `origin` …). Never checked: free text (a key such as `summary`, `message`,
`reason`, `query`, or a value of five words or more), small counts (0–9: "no bags" grounds no `0`),
booleans, and plain lower-case words (`economy`, `one_way`): a schema enum checks those.

Replies: a typed fact a reply states (an amount, a number from 10 up, a date, a time, an id, an email, a
phone number) is supported by the same evidence plus the arguments of the calls that succeeded before
it; a sentence that claims an action done (`I've cancelled …`, `… has been booked`) is supported only by
a successful earlier call of a tool whose name says that action (`cancel_reservation`) — checked only
when some tool of the conversation says it at all, so a claim about something no tool does is left
alone.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, Literal

from monitor.compare.facts import (
    NUMBER_WORD,
    act_of,
    extract_facts,
    has_cjk,
    normalize_text,
    sentences,
)
from monitor.compare.lexicon import Airports, load_airports

Source = Literal["user", "tool_result", "system", "tool_definition", "computed", "agent"]
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
#: Key words under which a number is an amount (`computable` combines those).
MONEY_WORDS = frozenset(
    {
        "price", "prices", "amount", "amounts", "cost", "costs", "fee", "fees", "total", "balance", "fare",
        "fares", "refund", "charge", "charges", "paid", "payment", "subtotal", "sum", "tax", "credit",
        "debit", "value", "compensation",
    }
)  # fmt: skip
#: Key words that say a value identifies something, whatever its shape (`reservation_id`: `HXDUBJ`).
ID_WORDS = frozenset(
    {"id", "ids", "number", "code", "ref", "reference", "sku", "uuid", "pnr", "confirmation"}
)
_WORDS_OF_FREE_TEXT = 5
_SMALL_COUNT = 10
_UPPER_CODE = re.compile(r"[A-Z]{2,10}")
_HAS_DIGIT = re.compile(r"\d")
_CLOCK = re.compile(r"(?<![\d:])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d)?(?:\+\d)?(?![\d:])")
#: Words of a user who asks for a date relative to another (`the day after`, `next Friday`, `a week
#: later`): with them, a date up to a week from a stated date is `computed`.
_RELATIVE_DAY = re.compile(
    r"(?i)\b(?:next|previous|following|prior|before|after|earlier|later|tomorrow|yesterday|tonight|"
    r"today|week|weekend|days?|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
)
_MAX_DAYS_APART = 7
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


@dataclass
class _Sources:
    """Everything stated so far, indexed for look-up: normalized texts, typed facts, numbers."""

    texts: list[tuple[Source, int | None, str]] = field(default_factory=list)  # padded normalized
    facts: dict[str, list[tuple[Source, int | None]]] = field(default_factory=dict)
    numbers: dict[float, list[tuple[Source, int | None]]] = field(default_factory=dict)
    operands: set[float] = field(default_factory=set)  # amounts arithmetic may combine (`computable`)
    runs: list[tuple[int | None, list[float]]] = field(
        default_factory=list
    )  # numbers of one result, in order

    def add_text(self, source: Source, turn: int | None, text: str) -> None:
        norm = normalize_text(text)
        if norm:
            self.texts.append((source, turn, f" {norm} "))
        for canon in _fact_keys(text):
            self._fact(canon, source, turn)

    def add_number(self, source: Source, turn: int | None, number: float, operand: bool = True) -> None:
        self.numbers.setdefault(_round(number), []).append((source, turn))
        if operand:
            self.operands.add(_round(number))

    def _fact(self, canon: str, source: Source, turn: int | None) -> None:
        self.facts.setdefault(canon, []).append((source, turn))
        number = _number_of(canon)
        if number is not None:
            self.add_number(source, turn, number)


class Evidence:
    """The evidence of one conversation, grown turn by turn in order (`add_user`, `add_result`), asked
    where a value came from (`provenance`) and whether a reply's facts are supported (`unsupported`)."""

    def __init__(
        self,
        system: Iterable[str] = (),
        schemas: Mapping[str, Any] | None = None,
        airports: Airports | None = None,
    ) -> None:
        self._sources = _Sources()
        for text in system:
            self._sources.add_text("system", None, text)
        self._schemas = dict(schemas or {})
        self._airports = airports if airports is not None else load_airports()
        self._tainted: set[int] = set()
        self._done: list[tuple[int, str, Any]] = []  # (turn, tool, arguments) of calls that succeeded
        self._arguments = _Sources()  # what successful calls used: evidence for replies only
        self._relative = False  # the user asked for a date relative to another
        #: numbers said plainly — by the user, an error message, a calculator, the agent's earlier replies:
        #: what a reply's arithmetic may combine (a big tool result's numbers would make any sum possible)
        self._spoken: set[float] = set()
        self._reply: set[float] = set()  # the numbers of the reply being checked
        self.users = 0

    # -- growing ---------------------------------------------------------------------------------

    def add_user(self, turn: int, text: str) -> None:
        self.users += 1
        self._sources.add_text("user", turn, text)
        self._relative = self._relative or _RELATIVE_DAY.search(text) is not None
        self._speak(text)

    def _speak(self, text: str) -> None:
        for key in _fact_keys(text):
            number = _number_of(key)
            if number is not None:
                self._spoken.add(_round(number))

    def add_call(
        self, turn: int, tool: str, args: Any, result: Any, failed: bool, tainted: bool, error: str = ""
    ) -> None:
        """A call made: its result becomes evidence unless it failed (its error message does: `total price
        is 375`); an ungrounded call taints it."""
        if failed:
            if error:
                self._sources.add_text("tool_result", turn, error)
                self._speak(error)
            return
        self._done.append((turn, tool, args))
        for text in _leaf_strings(args):
            self._arguments.add_text("tool_result", turn, text)
        for number in _leaf_numbers(args):
            self._arguments.add_number("tool_result", turn, number)
        if tainted:
            self._tainted.add(turn)
        amounts: dict[str, list[float]] = {}  # the amounts of one key (each flight's `price`), in order
        for leaf, money, key in _result_leaves(result):
            if isinstance(leaf, str):
                self._sources.add_text("tool_result", turn, leaf)
            else:
                self._sources.add_number("tool_result", turn, leaf, operand=money)
                if money:
                    amounts.setdefault(key, []).append(_round(leaf))
                if not key:  # a bare number: a calculator's result, said as plainly as a user's
                    self._spoken.add(_round(leaf))
        self._sources.runs += [(turn, run) for run in amounts.values() if len(run) > 1]

    # -- asking ----------------------------------------------------------------------------------

    def provenance(self, tool: str, args: Any) -> list[Provenance]:
        """The provenance of every leaf of a call's arguments, before the call's own result is added."""
        schema = self._schemas.get(tool)
        return [self._leaf(tool, path, key, value, schema) for path, key, value in _leaves(args)]

    def _leaf(self, tool: str, path: str, key: str, value: Any, schema: Any) -> Provenance:
        kind = value_kind(key, value)
        checked = kind in CHECKED_KINDS
        allowed = _schema_values(schema, path)
        if any(a == value or str(a) == str(value) for a in allowed):
            chosen = self._user_chose(allowed, value)
            if chosen is None:
                return Provenance(path, value, kind, "tool_definition", None, checked)
            checked = True  # the user named another value of the set: this one must be grounded
        found = self._find(value, kind, self._sources)
        if found is None:
            computed = self._computed(value) if kind in ("number", "count") else False
            if kind == "date":
                computed = any(self._near(k) for k in _fact_keys(str(value)) if k.startswith("date:"))
            return Provenance(path, value, kind, "computed" if computed else "agent", None, checked)
        (source, turn), tainted = found
        return Provenance(path, value, kind, source, turn, checked, tainted)

    def _find(
        self, value: Any, kind: str, where: _Sources
    ) -> tuple[tuple[Source, int | None], int | None] | None:
        """The sources that state `value`, the best first: an untainted one (user first, then the latest
        tool result, then the system), else a tainted tool result, reported with the turn that taints it."""
        found = list(_stated(value, kind, where, self._airports))
        return self._pick(found) if found else None

    def _user_chose(self, allowed: Sequence[Any], value: Any) -> str | None:
        """Another value of a schema's enum that a user message names while none names `value`."""
        said = [text for source, _, text in self._sources.texts if source == "user"]

        def named(v: Any) -> bool:
            norm = normalize_text(str(v).replace("_", " "))
            return bool(norm) and any(f" {norm} " in text for text in said)

        if named(value):
            return None
        return next((str(a) for a in allowed if a != value and named(a)), None)

    def _computed(self, value: Any) -> bool:
        target = _as_number(value)
        sources = self._sources
        return target is not None and computable(target, sources.operands | self._spoken, sources.runs)

    def unsupported(self, reply: str, known_tools: Iterable[str], tools_declared: bool = True) -> list[Claim]:
        """The facts and done-claims of a reply that nothing before it supports. A done-claim is judged when
        a known tool does that action, or — when the agent's tools are not declared at all — whenever the
        agent made calls and none of them did it."""
        claims: list[Claim] = []
        facts = _reply_facts(reply)
        self._reply = {_round(n) for n in (_number_of(c) for c, _ in facts) if n is not None}
        for canon, original in facts:
            found = self._fact_source(canon, original)
            if found is None:
                claims.append(
                    Claim("fact", original, f"the reply states {original!r}; nothing before it does")
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
        for sentence, verb in done_claims(reply):
            tools = sorted({t for t in known_tools if does(t, verb)})
            doing = [args for _, t, args in self._done if does(t, verb) or _says(args, verb)]
            named = _named_ids(sentence)  # `XEHM4B and 59XX6W have been cancelled`: each by some call
            used = {normalize_text(v) for args in doing for v in _leaf_strings(args)}
            if doing and named <= used:
                continue
            if tools:
                which = f"no successful call of {' / '.join(tools)} precedes it"
            elif not tools_declared and self._done and verb not in _CONSEQUENCES:
                which = (
                    "no successful call before it does that (the agent's tools are not declared in its spans)"
                )
            else:  # no tool of this agent does it: a claim about something else, not judged
                continue
            claims.append(Claim("done", sentence, f"the reply says {verb!r} is done ({sentence!r}); {which}"))
        self._spoken |= self._reply  # what the agent said, a later reply may build on
        return claims

    def _fact_source(self, canon: str, original: str) -> tuple[tuple[Source, int | None], int | None] | None:
        """Where a reply's fact is stated (as `_find`), the arguments of successful calls included."""
        kind = canon.partition(":")[0]
        number = _number_of(canon)
        said = _said_number(original) if kind == "number" else None
        padded = f" {normalize_text(original)} "
        for where in (self._sources, self._arguments):
            hits: list[tuple[Source, int | None]] = []
            if said is not None:  # `4 days` as said: 4 (its fact is in seconds)
                hits += where.numbers.get(_round(said), [])
            hits += where.facts.get(canon, [])
            if kind == "date":
                hits += where.facts.get(f"md:{canon[-5:]}", [])
            if number is not None:
                hits += where.numbers.get(_round(number), [])
            if kind == "id":
                hits += [(source, turn) for source, turn, text in where.texts if padded in text]
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
        if number is not None and computable(number, self._spoken | self._reply, self._sources.runs):
            return ("computed", None), None
        return None

    def _pick(
        self, hits: Sequence[tuple[Source, int | None]]
    ) -> tuple[tuple[Source, int | None], int | None]:
        """The best source (`_best`) among those not tainted, else the best tainted one and its turn."""
        clean = [h for h in hits if not (h[0] == "tool_result" and h[1] in self._tainted)]
        if clean:
            return _best(clean), None
        best = _best(hits)
        return best, best[1]

    def _near(self, date_key: str) -> bool:
        """A date up to a week from a stated one, when the user spoke of days relative to another."""
        if not self._relative or len(date_key) != 15:
            return False
        try:
            day = date.fromisoformat(date_key[5:])
        except ValueError:
            return False
        for offset in range(1, _MAX_DAYS_APART + 1):
            for sign in (1, -1):
                if f"date:{(day + timedelta(days=sign * offset)).isoformat()}" in self._sources.facts:
                    return True
        return False


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------


def value_kind(key: str, value: Any) -> Kind:
    """What a leaf value is (module docstring: which kinds must be grounded)."""
    if value is None or isinstance(value, bool):
        return "other"
    if isinstance(value, int | float):
        return "count" if float(value).is_integer() and abs(value) < _SMALL_COUNT else "number"
    if not isinstance(value, str) or not value.strip():
        return "other"
    words = set(key_words(key))
    if words & FREE_TEXT_KEYS or len(value.split()) >= _WORDS_OF_FREE_TEXT:
        return "free_text"
    kind = _string_kind(value, bool(words & NAME_KEYS))
    if kind in ("other", "name") and words & ID_WORDS and len(value.split()) == 1:
        return "id"
    return kind


@lru_cache(maxsize=65_536)
def _string_kind(value: str, name_key: bool) -> Kind:
    facts = extract_facts(value, False)
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
            return (
                "count"
                if number is not None and number.is_integer() and abs(number) < _SMALL_COUNT
                else "number"
            )
    stripped = value.strip()
    if _UPPER_CODE.fullmatch(stripped):
        return "code"
    if _HAS_DIGIT.search(stripped) and any(c.isalpha() for c in stripped) and " " not in stripped:
        return "id"
    if name_key and any(c.isalpha() for c in stripped):
        return "name"
    return "other"


def key_words(key: str) -> list[str]:
    """The words of an argument name, lower-case: `firstName`, `first_name` → first, name."""
    return [w.lower() for w in _KEY_WORDS.findall(key)]


def _stated(
    value: Any, kind: str, where: _Sources, airports: Airports
) -> Iterator[tuple[Source, int | None]]:
    """Every source that states `value`: as words, as the same typed fact, or (a code) as an airport."""
    if isinstance(value, bool) or value is None:
        return
    number = _as_number(value)
    if number is not None and not isinstance(value, str):
        yield from where.numbers.get(_round(number), ())
        return
    text = str(value)
    norm = normalize_text(text)
    if norm:
        padded = f" {norm} "
        for source, turn, evidence in where.texts:
            if padded in evidence:
                yield source, turn
    keys = _fact_keys(text)
    for canon in keys:
        yield from where.facts.get(canon, ())
        if canon.startswith("date:"):
            yield from where.facts.get(f"md:{canon[-5:]}", ())
    if kind == "code" and airports is not None:
        for name in _airport_names(text.strip().upper(), airports):
            for source, turn, evidence in where.texts:
                if name in evidence:
                    yield source, turn


def _airport_names(code: str, airports: Airports) -> list[str]:
    """The padded names a person uses for an airport: its names, and the city its name opens with."""
    names = airports.names.get(code, ())
    out = {f" {n} " for n in names}
    for n in names:
        words = n.split()
        for k in (1, 2):
            prefix = " ".join(words[:k])
            if len(words) > k and len(prefix) >= 5:
                out.add(f" {prefix} ")
    return sorted(out)


_SOURCE_ORDER: dict[str, int] = {"user": 0, "tool_result": 1, "system": 2, "computed": 3}


def _best(found: Sequence[tuple[Source, int | None]]) -> tuple[Source, int | None]:
    """User first; among tool results the latest."""
    return min(found, key=lambda s: (_SOURCE_ORDER.get(s[0], 9), -(s[1] or 0)))


def computable(target: float, known: set[float], runs: Sequence[tuple[int | None, list[float]]]) -> bool:
    """`target` is a sum, difference, product or quotient of two numbers of `known`, one of them times a
    small count, or the sum of a run of one tool result's amounts under one key (module docstring)."""
    target = _round(target)
    for a in known:
        if _round(target - a) in known or _round(a - target) in known:
            return True
        if a and (_round(target / a) in known or _round(target * a) in known):
            return True
        for count in range(2, _SMALL_COUNT):
            if _round(a * count) == target:
                return True
    for _, run in runs:
        for i in range(len(run)):
            total = 0.0
            for x in run[i:]:
                total = _round(total + x)
                if total == target:
                    return True
    return False


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


def _leaves(value: Any, path: str = "", key: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, the nearest argument name, leaf) for every scalar inside arguments."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k), str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]", key)
    else:
        yield path or "(arguments)", key, value


def _result_leaves(
    value: Any, money: bool | None = None, key: str = ""
) -> Iterator[tuple[str | float, bool, str]]:
    """Every key and scalar of a tool result: strings as text, numbers as numbers, each with whether it is
    an amount arithmetic may combine — a bare result (a calculator's), or a number under a key that says
    money (`price`, `amount`, `prices.economy`); seat counts and the like are stated, never combined. The
    third item is the key the leaf sits under ("" for a bare result)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield str(k), False, key
            yield from _result_leaves(v, bool(set(key_words(str(k))) & MONEY_WORDS) or money is True, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _result_leaves(v, money, key)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        yield float(value), money is not False, key
    else:
        yield str(value), False, key


def _leaf_strings(value: Any) -> Iterator[str]:
    return (leaf for _, _, leaf in _leaves(value) if isinstance(leaf, str))


def _leaf_numbers(value: Any) -> Iterator[float]:
    for _, _, leaf in _leaves(value):
        if isinstance(leaf, int | float) and not isinstance(leaf, bool):
            yield float(leaf)


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        facts = extract_facts(value, False)
        numbers = [c for c in facts.facts if c.startswith("number:")]
        if len(numbers) == 1 and not facts.bare.strip():
            return _number_of(numbers[0])
    return None


def _round(x: float) -> float:
    return round(x, 2)


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
        _HAS_DIGIT.search(text) is not None
        or "@" in text
        or has_cjk(text)
        or NUMBER_WORD.search(text) is not None
    )


@lru_cache(maxsize=65_536)
def _fact_keys(text: str) -> tuple[str, ...]:
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
    for m in _CLOCK.finditer(text):  # `17:00:00`, `03:00:00+1` in tool results
        keys.append(f"time:{int(m['h']):02d}:{m['m']}")
    for (a, _), (b, _) in itertools.pairwise(spans):
        month, day = (a, b) if a.startswith("month:") else (b, a)
        if month.startswith("month:") and day.startswith("number:"):
            d = _number_of(day)
            if d is not None and d.is_integer() and 1 <= d <= 31:
                keys.append(f"md:{int(month[6:]):02d}-{int(d):02d}")
    return tuple(keys)


# ---------------------------------------------------------------------------------------------
# replies
# ---------------------------------------------------------------------------------------------

#: Fact kinds a reply must not state without support; numbers only from 10 up (counts say little).
_REPLY_FACT_KINDS = frozenset({"number", "date", "time", "id", "phone"})


@lru_cache(maxsize=32_768)
def _reply_facts(reply: str) -> tuple[tuple[str, str], ...]:
    if not _may_hold_facts(reply):
        return ()
    out = []
    for canon, original in extract_facts(reply, False).spans:
        kind = canon.partition(":")[0]
        if kind not in _REPLY_FACT_KINDS:
            continue
        if kind == "number":
            number = _number_of(canon)
            said = _said_number(original)
            if number is None or _is_year(number, canon) or (said is not None and abs(said) < _SMALL_COUNT):
                continue
        if kind == "id" and _MEASURE_WORD.fullmatch(original):  # `24-hour`, `3-day`: a measure, no id
            continue
        out.append((canon, original))
    return tuple(out)


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


_MEASURE_WORD = re.compile(r"\d+(?:[-–]\d+)?[- ]?[a-z]+")


def _is_year(number: float, canon: str) -> bool:
    return "|" not in canon and number.is_integer() and 1900 <= number <= 2100


#: The actions a reply may claim done, each with the words a tool name uses for it.
ACTIONS: dict[str, tuple[str, ...]] = {
    "cancel": ("cancel",),
    "book": ("book", "reserve"),
    "refund": ("refund",),
    "send": ("send", "email", "notify"),
    "update": ("update", "change", "modify", "edit"),
    "transfer": ("transfer", "escalate", "handoff"),
    "create": ("create", "add", "open", "new"),
    "delete": ("delete", "remove"),
    "order": ("order", "purchase", "buy", "checkout"),
    "pay": ("pay", "charge"),
    "schedule": ("schedule", "book"),
    "reset": ("reset",),
    "upgrade": ("upgrade", "downgrade", "update"),
    "submit": ("submit", "create", "file"),
}
_CLAIM_VERBS: dict[str, str] = {
    "cancelled": "cancel", "canceled": "cancel", "booked": "book", "reserved": "book",
    "refunded": "refund", "sent": "send", "emailed": "send", "updated": "update", "changed": "update",
    "modified": "update", "transferred": "transfer", "escalated": "transfer", "created": "create",
    "added": "create", "deleted": "delete", "removed": "delete", "ordered": "order",
    "purchased": "order", "placed": "order", "paid": "pay", "charged": "pay", "scheduled": "schedule",
    "reset": "reset", "upgraded": "upgrade", "downgraded": "upgrade", "submitted": "submit", "issued": "send",
}  # fmt: skip
#: Actions that follow from another (a refund from a cancellation, a charge from a booking): with the agent's
#: tools undeclared, a claim of one is not judged.
_CONSEQUENCES = frozenset({"refund", "pay"})
_VERB = "|".join(sorted(_CLAIM_VERBS, key=len, reverse=True))
_DONE_CLAIM = re.compile(
    rf"(?i)\b(?:(?:i|we)(?:['’]ve| have)?\s+(?:now\s+|just\s+|already\s+|successfully\s+)*(?P<a>{_VERB})"
    rf"|(?:has|have)\s+(?:now\s+|already\s+)?been\s+(?:successfully\s+)?(?P<b>{_VERB})"
    rf"|(?:is|are)\s+now\s+(?P<c>{_VERB})"
    rf"|(?:was|were)\s+successfully\s+(?P<d>{_VERB}))\b"
)
_NOT_DONE = re.compile(
    r"(?i)\b(?:not|never|no|unable|cannot|can['’]t|couldn['’]t|won['’]t|if|once|after|when|before|"
    r"would|will|should|could|can|(?-i:may)|might|unless|yet|pending)\b|n['’]t\b"
)
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


@lru_cache(maxsize=32_768)
def done_claims(reply: str) -> tuple[tuple[str, str], ...]:
    """(sentence, action) for each action a sentence of a reply plainly claims done: first person or
    passive perfect (and each action joined to it: `upgraded … and then canceled`), or action nouns
    before `has been completed`; no negation, condition, modal or question before the claim."""
    out = []
    for sentence in sentences(reply):
        if act_of(sentence) == "ask":
            continue
        m = _DONE_CLAIM.search(sentence)
        if m is not None and not _NOT_DONE.search(sentence[: m.end()]):
            verbs = [next(g for g in m.groups() if g)]
            verbs += [a["v"] for a in _AND_VERB.finditer(sentence, m.end())]
            out += [(sentence, _CLAIM_VERBS[v.lower()]) for v in verbs]
            continue
        n = _DONE_NOUNS.search(sentence)
        if n is not None and not _NOT_DONE.search(sentence[: n.end()]):
            nouns = [w.lower() for w in re.findall(r"[A-Za-z]+", sentence[: n.start()])]
            actions = dict.fromkeys(_NOUN_ACTIONS[w] for w in nouns if w in _NOUN_ACTIONS)
            out += [(sentence, a) for a in actions]
    return tuple(dict.fromkeys(out))


def _says(args: Any, action: str) -> bool:
    """A call whose arguments name the action (`manage_booking(action="cancel")`; a word or two, not free
    text such as a `think` tool's thought)."""
    stems = ACTIONS.get(action, (action,))
    short = (text for text in _leaf_strings(args) if len(text.split()) <= 2)
    return any(w.startswith(stem) for text in short for w in key_words(text) for stem in stems)


def _named_ids(sentence: str) -> set[str]:
    """The ids a sentence names, normalized (`XEHM4B`, `59XX6W`)."""
    return {
        normalize_text(original)
        for canon, original in extract_facts(sentence, False).spans
        if canon.startswith("id:")
    }


def does(tool: str, action: str) -> bool:
    """A tool whose name says the action (`cancel_reservation` cancels; `send_certificate` sends)."""
    words = key_words(tool)
    return any(w.startswith(stem) for w in words for stem in ACTIONS.get(action, (action,)))
