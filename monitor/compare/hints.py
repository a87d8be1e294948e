"""Cheap tests made before dear scans. Pure.

A compiled pattern's scan of a text costs far more than a few substring tests, and most texts hold none
of the words a pattern needs (a month, an ordinal, a weekday, a currency). The readers (`facts`,
`spoken`, `evidence`) test first for what every match of a pattern must hold — its stems, in the
case-folded text — and scan only the texts that pass. A hint only ever skips a scan that would have
found nothing (tests/unit/test_fact_pattern_hints.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: a digit of any script, as `\d` matches it: what every scan of a number written in digits needs
DIGIT = re.compile(r"\d")


def fold(text: str) -> str:
    """The text as the stems are looked for in, and as a matched word is looked up in a table: what `re`'s
    IGNORECASE takes for an ASCII letter made that letter. Python's `re` takes four other characters for
    one: `ſ` for `s` and the Kelvin sign for `k`, which `casefold` makes those letters, and `İ` and `ı`
    for `i` (`Frİday` is Friday to `re`, `fri̇day` to `casefold`), made `i` here. The folded text may hold
    a stem the text does not (a scan too many), never the other way round."""
    low = text.casefold()
    return low if low.isascii() else low.replace("\u0307", "").replace("ı", "i")


def unaccented(text: str) -> str:
    """The text without its accents (`sábado` → `sabado`, `José` → `Jose`): how people type words, and how a
    matched word is looked up in a table that holds them so."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def holds_any(text: str, stems: tuple[str, ...]) -> bool:
    """Whether any of these strings is in the text."""
    for stem in stems:  # noqa: SIM110 (a loop: a third cheaper than `any` over a generator)
        if stem in text:
            return True
    return False


def stems_of(words: Iterable[str]) -> tuple[str, ...]:
    """The words no other of them contains (`four`, not `fourteen`): one of them is in every word."""
    unique = list(dict.fromkeys(words))
    return tuple(w for w in unique if not any(o != w and o in w for o in unique))
