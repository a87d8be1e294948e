"""The cheap tests the readers make before a pattern's scan (`hints.holds_any` of a pattern's stems, the
`_*_HINT` patterns, a digit) only skip scans that would have found nothing: with every one of them
answering yes, what `facts`, `spoken` and grounding's `evidence` read from real texts is the same."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from monitor.compare import evidence, facts, spoken
from monitor.compare.evidence import MAX_FACT_CHARS, Evidence
from monitor.compare.hints import fold, holds_any

ROOT = Path(__file__).resolve().parents[2]


def _strings(x: Any) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        return [s for v in x.values() for s in _strings(v)]
    if isinstance(x, list):
        return [s for v in x for s in _strings(v)]
    return []


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Texts as agents, users and tools wrote them: the τ-bench slice (real runs) and blind reply pairs in
    English and Chinese."""
    found: list[str] = []
    for name in ("gpt-4o-airline.slice.json", "gpt-4o-airline.handoff.json"):
        found += _strings(json.loads((ROOT / "tests/fixtures/tau-bench" / name).read_text()))
    for n in (5, 12, 19):
        for line in (ROOT / f"bench/data/replies_blind_{n}/pairs.jsonl").read_text().splitlines():
            pair = json.loads(line)
            found += [pair["a"], pair["b"]]
    # what `re`'s IGNORECASE takes for an ASCII letter and `casefold` does not (`hints.fold`)
    found += [
        "the fİrst flight on Frİday",
        "fİve rooms, daİly",
        "3 mİllion",
        "the fırst one, twenty-fıve",
        "yeſterday at fiſe",
        "one weeK from today",
        "half past five, a thırd of an hour",
        "quarter past three, one fİfth off the price",
        "Total 2.500,00 EUR",
        "pickup pİn 482 910",
    ]
    return sorted({t[:MAX_FACT_CHARS] for t in found if t.strip()})


def _read(text: str) -> tuple[Any, ...]:
    """Everything the readers make of a text, uncached."""
    uncached: Any = (
        facts._extract_facts,
        evidence._read_keys,
        evidence._read_reply_facts,
        spoken.spoken_keys,
    )
    extract, keys, reply_facts, spoken_keys = (f.__wrapped__ for f in uncached)
    offsets = []
    for counting_first in (True, False):
        e = Evidence(today="2025-05-01")
        e._add_offsets(text, counting_first=counting_first)
        offsets.append(sorted(e._offsets))
    e = Evidence(today="2025-05-01")
    e.add_user(1, text)  # its relative days (`the day after`) too
    return (
        extract(text, False),
        extract(text, True),
        keys(text),
        reply_facts(text),
        spoken_keys(text, "2025-05-01"),
        offsets,
        sorted(e._offsets),
    )


def _clear_caches() -> None:
    """Every reader's cache, so that the second pass reads every text again (not the first's results)."""
    for module in (facts, spoken, evidence):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def test_the_hints_skip_only_scans_that_find_nothing(
    texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _clear_caches()
    hinted = [_read(t) for t in texts]
    assert len(texts) > 1000
    assert sum(1 for h in hinted if h[0].facts) > 500  # texts with facts, not only plain words
    assert sum(1 for h in hinted if h[4]) > 50  # and with things said in words
    everything = re.compile("")
    for module in (facts, spoken, evidence):
        monkeypatch.setattr(module, "holds_any", lambda text, stems: True)
        for name in dir(module):
            if name.endswith("_HINT") and isinstance(getattr(module, name), re.Pattern):
                monkeypatch.setattr(module, name, everything)
    for module in (facts, spoken):  # a gate only there (`evidence` also reads a value by it)
        monkeypatch.setattr(module, "DIGIT", everything)
    _clear_caches()
    unhinted = [_read(t) for t in texts]
    _clear_caches()  # nothing read without the hints is kept for other tests
    differ = [t for t, a, b in zip(texts, hinted, unhinted, strict=True) if a != b]
    assert not differ, differ[:5]


def _words(pattern: re.Pattern[str], group: str) -> list[str]:
    """The words of an alternation in a pattern (a named group's, or the first `(?:…)` after `group` when it
    is no group's name), each as short as it can match: `days?` is `day`, `Thu(?:rs?)?` is `Thu`."""
    source = pattern.pattern
    named = re.search(rf"\(\?P<{group}>((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", source)
    body = named.group(1) if named else re.search(rf"{group}\(\?:([a-z|]+)\)", source).group(1)  # type: ignore[union-attr]
    body = re.sub(r"\(\?:[^()]*\)\?|.\?", "", body)  # what is optional
    return [w for w in re.split(r"\|", body) if w and "(" not in w]


@pytest.mark.parametrize(
    ("pattern", "group", "stems"),
    [
        (facts._WEEKDAY_ABBR, "d", facts._WEEKDAY_ABBR_STEMS),
        (facts._A_PERIOD, "unit", facts._PERIOD_WORDS),
        (facts._PER_A_PERIOD, "unit", facts._PERIOD_WORDS),
        (facts._COUNT_MORE, "w", facts._COUNT_MORE_WORDS),
        (facts._CURRENCY, "c", facts._CURRENCY_STEMS),
        (facts._GROUPED_CODE, r"\\b", facts._GROUPED_CODE_WORDS),
        (evidence._DURATION, "unit", evidence._DURATION_UNITS),
        (evidence._POLICY_DURATION, "unit", evidence._DURATION_UNITS),
    ],
)
def test_a_gated_patterns_words_each_hold_a_stem(
    pattern: re.Pattern[str], group: str, stems: tuple[str, ...]
) -> None:
    """The stems are written beside their patterns by hand: a word added to a pattern and not to its stems
    would make its gate skip a scan that finds it."""
    words = _words(pattern, group)
    assert len(words) >= 2, words
    assert all(holds_any(w.casefold() if w.islower() else w, stems) for w in words), words


@pytest.mark.parametrize(
    ("odd", "plain"),
    [
        ("One week", "one week"),
        ("42 Dollars and 17 cents", "42 dollars and 17 cents"),
        ("Weekdays only", "weekdays only"),
        ("A Dozen eggs", "a dozen eggs"),
        ("an hour and 15 mınutes", "an hour and 15 minutes"),
        ("in a fortnıght", "in a fortnight"),
        ("pickup pİn 482 910", "pickup pin 482 910"),
        ("2 thİrds oF an hour", "2 thirds of an hour"),
        ("one fİfth off the price", "one fifth off the price"),
    ],
)
def test_a_gate_looks_for_its_words_as_its_pattern_matches_them(odd: str, plain: str) -> None:
    """Case-insensitive patterns behind gates that looked case-sensitively (`"one" in text`) or without
    `hints.fold` read `One week` as nothing, and `fİfth` raised KeyError."""
    assert facts.extract_facts(odd).facts == facts.extract_facts(plain).facts != ()


def test_every_word_of_a_gated_pattern_holds_one_of_its_stems() -> None:
    assert all(holds_any(w, facts._ORDINAL_STEMS) for w in facts._ORDINAL_WORDS)
    assert all(holds_any(w, facts._FREQUENCY_STEMS) for w in facts._FREQUENCY_WORDS)
    assert all(holds_any(w, facts.MONTH_STEMS) for w in facts.MONTH_NAMES)
    assert all(holds_any(w, facts._NUMBER_WORD_STEMS) for w in facts.NUMBER_WORDS)
    assert all(holds_any(w, spoken._DE_WEEKDAY_STEMS) for w in spoken._DE_WEEKDAYS)
    assert all(
        holds_any(fold(w), spoken._EU_DAY_WORD_STEMS) for w in [*spoken._EU_DAY_WORDS, "morgen", "mañana"]
    )
    currencies = re.search(r"\(\?P<c>([^)]*)\)", facts._CURRENCY.pattern)
    assert currencies is not None
    words = [w.rstrip("s?") for w in currencies.group(1).split("|") if w]
    assert len(words) > 20
    assert all(holds_any(w, facts._CURRENCY_STEMS) for w in words), words
