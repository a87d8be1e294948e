"""The shipped lexicon: how two English words or phrases relate, from WordNet 3.0. Pure after loading.

In: two words or short phrases (lower case). Out: a `Relation` — `synonym` (they share a synset),
`antonym` (opposite synsets, adjectives through their cluster heads: `urgent` is a satellite of
`imperative`), `sibling` (distinct kinds of one nearby kind: Tuesday/Thursday under `weekday`,
revenue/profit under `financial gain`… within `MAX_UP` steps, below the top `MIN_DEPTH` levels), or
`unknown` (a word the lexicon lacks, or words it relates only loosely, or one a kind of the other).

The data is `monitor/data/lexicon.json`, built by `monitor.compare.lexicon_build` from Debian's
`wordnet-base`; WordNet and nltk are never needed at run time. Beside it: the airport table
(`airports.tsv`: IATA code → names, from airportsdata) and a small glossary of common equivalents
(`aliases.json`, written by hand). Each is loaded once per process, on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from monitor.config import spelling_key

PATH = Path(__file__).resolve().parents[1] / "data" / "lexicon.json"
#: How many hypernym steps up from each word a common kind may be, and how far below WordNet's root it
#: must be (measured on the shipped calibration pairs: a kind as general as `abstraction` or
#: `measure` relates too much to say "different").
MAX_UP = 4
MIN_DEPTH = 5


#: The reason WordNet siblings give (`revenue` / `profit`: different kinds of 'income'). Siblings are
#: general-language kinds, not this domain's values: in a reply, a sibling swapped is wording to review
#: (`that day` / `that date`), not evidence of a wrong answer (`score/response`).
WORDNET_SIBLINGS = "different kinds of"


class Relation(StrEnum):
    SYNONYM = "synonym"
    ANTONYM = "antonym"
    SIBLING = "sibling"
    UNKNOWN = "unknown"


@dataclass(frozen=True, eq=False)  # hashed by identity: the caches below key on it
class Lexicon:
    words: dict[str, tuple[int, ...]]
    lemmas: tuple[tuple[str, ...], ...]
    parents: tuple[tuple[int, ...], ...]
    heads: dict[int, int]
    antonyms: frozenset[tuple[int, int]]
    inflections: dict[str, str]  # irregular verb forms: `sold` → `sell`
    ranks: dict[tuple[str, int], int]  # (lemma, synset) → its sense number for that lemma, where not 1

    def knows(self, phrase: str) -> bool:
        return bool(self.synsets(phrase))

    def forms(self, phrase: str) -> str:
        """The lemma a phrase is found under (`flights` → `flight`, `sold` → `sell`), else the phrase."""
        for form in _forms(phrase):
            if form in self.words:
                return form
        return self.inflections.get(phrase, phrase)

    def synsets(self, phrase: str) -> tuple[int, ...]:
        """The synsets of a phrase, or of its singular (`flights` → `flight`, `cities` → `city`) or its
        verb (`approved` → `approve`, `shipped` → `ship`, `sold` → `sell`)."""
        return self.words.get(self.forms(phrase), ())

    def relate(self, a: str, b: str) -> tuple[Relation, str]:
        """How `a` relates to `b`, with a few words saying why (for the comparison's note)."""
        sa, sb = self.synsets(a), self.synsets(b)
        if not sa or not sb:
            return Relation.UNKNOWN, f"{a if not sa else b!r} is not in the lexicon"
        shared = set(sa) & set(sb)
        if shared:
            # a sense shared that is the first of neither word (`king` / `queen`: both "a preeminent
            # competitor") gives way to what their more common senses say (male / female monarch);
            # one that is the first of either (`invoice` = `bill`, `customer` = `client`) stands
            la, lb = self.forms(a), self.forms(b)
            best = min(shared, key=lambda s: (self.ranks.get((la, s), 1), self.ranks.get((lb, s), 1)))
            rank_a, rank_b = self.ranks.get((la, best), 1), self.ranks.get((lb, best), 1)
            ca = tuple(s for s in sa if self.ranks.get((la, s), 1) < rank_a)
            cb = tuple(s for s in sb if self.ranks.get((lb, s), 1) < rank_b)
            if ca and cb:
                relation, why = self._apart(ca, cb)
                if relation is not Relation.UNKNOWN:
                    return relation, f"{why} in their common senses"
            return Relation.SYNONYM, "WordNet synonyms"
        return self._apart(sa, sb)

    def _apart(self, sa: tuple[int, ...], sb: tuple[int, ...]) -> tuple[Relation, str]:
        """Antonyms or siblings among these senses, else unknown."""
        heads_a = {self.heads.get(s, s) for s in sa}
        heads_b = {self.heads.get(s, s) for s in sb}
        if any((min(x, y), max(x, y)) in self.antonyms for x in heads_a for y in heads_b):
            return Relation.ANTONYM, "WordNet antonyms"
        kind = self._common_kind(sa, sb)
        if kind is not None:
            return Relation.SIBLING, f"{WORDNET_SIBLINGS} {self.lemmas[kind][0]!r}"
        return Relation.UNKNOWN, "related only loosely"

    def _common_kind(self, sa: tuple[int, ...], sb: tuple[int, ...]) -> int | None:
        """The nearest kind above some sense of both, not one of them, specific enough (module doc)."""
        up_a: dict[int, int] = {}
        for s in sa:
            for anc, d in self._ancestors(s):
                up_a.setdefault(anc, d)
        below = set(sa) | set(sb)
        best: tuple[int, int] | None = None
        for s in sb:
            for anc, d in self._ancestors(s):
                if anc in up_a and anc not in below and self._depth(anc) >= MIN_DEPTH:
                    cand = (up_a[anc] + d, anc)
                    best = cand if best is None or cand < best else best
        # one a kind of the other (`trip` / `journey`) is no sign of a different value
        if best is None or any(a in up_a for a in sb) or self._is_ancestor_of(sb, sa):
            return None
        return best[1]

    def _is_ancestor_of(self, upper: tuple[int, ...], lower: tuple[int, ...]) -> bool:
        return any(anc in upper for s in lower for anc, _ in self._ancestors(s))

    def _ancestors(self, synset: int) -> Iterator[tuple[int, int]]:
        return iter(_ancestors(self, synset))

    def _depth(self, synset: int) -> int:
        return _depth(self, synset)


@lru_cache(maxsize=65_536)
def _ancestors(lex: Lexicon, synset: int) -> tuple[tuple[int, int], ...]:
    seen: dict[int, int] = {}
    frontier = [synset]
    for d in range(1, MAX_UP + 1):
        frontier = [p for s in frontier for p in lex.parents[s] if p not in seen]
        for p in frontier:
            seen.setdefault(p, d)
    return tuple(seen.items())


@lru_cache(maxsize=65_536)
def _depth(lex: Lexicon, synset: int) -> int:
    """Fewest steps up to a root (a synset with no parent)."""
    frontier, d = {synset}, 0
    while frontier and all(lex.parents[s] for s in frontier):
        frontier = {p for s in frontier for p in lex.parents[s]}
        d += 1
    return d


def _forms(phrase: str) -> Iterator[str]:
    yield phrase
    if phrase.endswith("ies") and len(phrase) > 4:
        yield phrase[:-3] + "y"
    if phrase.endswith("es") and len(phrase) > 3:
        yield phrase[:-2]
    if phrase.endswith("s") and not phrase.endswith("ss") and len(phrase) > 3:
        yield phrase[:-1]
    for ending in ("ed", "ing"):  # regular verb forms: approved, failed, shipped, denied, booking
        stem = phrase[: -len(ending)]
        if phrase.endswith(ending) and len(stem) >= 3:
            yield stem
            yield stem + "e"
            if stem.endswith("i"):
                yield stem[:-1] + "y"
            if stem[-1] == stem[-2]:
                yield stem[:-1]


@cache
def load_lexicon(path: Path = PATH) -> Lexicon:
    """Read the shipped lexicon (once per process). A missing file names itself and how to rebuild it."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FileNotFoundError(
            f"{path}: cannot read the lexicon ({exc}); rebuild with .ci/build-lexicon"
        ) from exc
    words: dict[str, list[int]] = {}
    ranks: dict[tuple[str, int], int] = {}
    for i, s in enumerate(doc["synsets"]):
        for lemma in s["l"]:
            words.setdefault(lemma, []).append(i)
        for lemma, rank in zip(s["l"], s.get("r", ()), strict=False):
            if rank > 1:
                ranks[(lemma, i)] = rank
    return Lexicon(
        words={w: tuple(ids) for w, ids in words.items()},
        lemmas=tuple(tuple(s["l"]) for s in doc["synsets"]),
        parents=tuple(tuple(s.get("p", ())) for s in doc["synsets"]),
        heads={i: s["h"] for i, s in enumerate(doc["synsets"]) if "h" in s},
        antonyms=frozenset((a, b) for a, b in doc["antonyms"]),
        inflections=doc.get("inflections", {}),
        ranks=ranks,
    )


AIRPORTS_PATH = PATH.parent / "airports.tsv"
CURRENCIES_PATH = PATH.parent / "currencies.tsv"
#: Chinese names of the airports Chinese travellers name most (by hand; airportsdata has English only).
AIRPORTS_ZH_PATH = PATH.parent / "airports_zh.tsv"
ALIASES_PATH = PATH.parent / "aliases.json"
_IATA = re.compile(r"[A-Z]{3}")


@dataclass(frozen=True, eq=False)  # hashed by identity: grounding's cache of spoken names keys on it
class Airports:
    """IATA codes and the names each goes by (`monitor/data/airports.tsv`, from airportsdata, and
    `airports_zh.tsv`, Chinese names by hand)."""

    names: dict[str, tuple[str, ...]]
    codes: dict[str, str]  # name → code

    def code_of(self, value: str) -> str | None:
        """The airport a whole value names: its code as written (`LHR`), or one of its names."""
        value = value.strip()
        if _IATA.fullmatch(value) and value in self.names:
            return value
        key = " ".join(re.sub(r"[^\w\s]+", " ", value.casefold()).split())
        key = re.sub(r"\bintl\b", "international", key)
        # `San Francisco International` says what the table's `… International Airport` says (not
        # `London`: a city's name is no airport's, though the table has a `London Airport`)
        return self.codes.get(key) or (
            self.codes.get(key + " airport") if key.endswith(" international") else None
        )

    def describe(self, code: str) -> str:
        return f"{code} ({max(self.names[code], key=len, default='airport')})"


@cache
def load_airports(path: Path = AIRPORTS_PATH, chinese: Path = AIRPORTS_ZH_PATH) -> Airports:
    """The names of each code in `path`, with its Chinese names from `chinese` after them."""
    names: dict[str, tuple[str, ...]] = {}
    for source in (path, chinese):
        for line in _read(source).splitlines():
            if line and not line.startswith("#"):
                code, _, forms = line.partition("\t")
                names[code] = names.get(code, ()) + tuple(f for f in forms.split("|") if f)
    codes = {form: code for code, forms in names.items() for form in forms}
    return Airports(names=names, codes=codes)


@cache
def load_currencies(path: Path = CURRENCIES_PATH) -> dict[str, tuple[str, ...]]:
    """ISO 4217 code -> its names in the calendar's languages (`CHF`: `swiss francs`, `швейцарских франков`,
    `瑞士法郎`), folded: `monitor/data/currencies.tsv`, from the CLDR at build time (`lexicon_build`)."""
    names: dict[str, tuple[str, ...]] = {}
    for line in _read(path).splitlines():
        if line and not line.startswith("#"):
            code, _, forms = line.partition("\t")
            names[code] = tuple(forms.split("|"))
    return names


@cache
def load_aliases(path: Path = ALIASES_PATH) -> dict[str, list[str]]:
    """The shipped glossary of common equivalents (`urgent` = `high priority`), merged under the user's."""
    doc: dict[str, list[str]] = _aliases_doc(path)["aliases"]
    return doc


@cache
def load_opposites(path: Path = ALIASES_PATH) -> frozenset[frozenset[str]]:
    """Shipped English opposites WordNet does not record as antonyms (`approved` / `denied`, `arrival` /
    `departure`, `credit` / `debit`), with their common inflections: `aliases.json`, by hand."""
    pairs: list[list[str]] = _aliases_doc(path).get("opposites", [])
    return frozenset(frozenset(p) for p in pairs if len(p) == 2)


@cache
def load_value_sets(path: Path = ALIASES_PATH) -> dict[str, list[list[str]]]:
    """Shipped sets of distinct values of one kind (`seat`: aisle / window / middle), each value with
    the spellings that say it (`express`, `expedited`, `rush`): `aliases.json`, by hand."""
    sets: dict[str, list[list[str]]] = _aliases_doc(path).get("value_sets", {})
    return sets


@dataclass(frozen=True, eq=False)
class Domain:
    """The words of the monitored domain the differential rung decides on beside WordNet: opposites
    (`approved` / `denied`) and sets of distinct values of one kind (`aisle` / `window` / `middle`),
    shipped (`aliases.json`) and from the user's `ladder.opposites` / `ladder.value_sets`."""

    opposites: frozenset[frozenset[str]]
    values: dict[str, tuple[tuple[str, int], ...]]  # phrase key → (kind, which value) it spells

    def relate(self, a: str, b: str, lemma: Callable[[str], str] | None = None) -> tuple[Relation, str]:
        """Two phrase keys: `synonym` (spellings of one value), `sibling` (two values of one kind) or
        `antonym` (opposites); else `unknown`. Inflections are read too (`lemma`: WordNet's `forms`, for
        irregular ones): `changed` is the value `change`, `cancelled` both a status and the action
        `cancel`."""
        if frozenset((a, b)) in self.opposites:
            return Relation.ANTONYM, "opposites WordNet does not record (the domain list)"
        va, vb = self._spelled(a, lemma), self._spelled(b, lemma)
        if not va or not vb:
            return Relation.UNKNOWN, ""
        same = sorted({kind for kind, i in va if (kind, i) in vb})
        if same:
            return Relation.SYNONYM, f"one value of {same[0]!r}"
        kinds = sorted({kind for kind, _ in va} & {kind for kind, _ in vb})
        if kinds:
            return Relation.SIBLING, f"different values of {kinds[0]!r}"
        return Relation.UNKNOWN, ""

    def _spelled(self, key: str, lemma: Callable[[str], str] | None) -> frozenset[tuple[str, int]]:
        """The values a key spells, as written or inflected (`window seats`, `changed`, `sold`)."""
        forms = {*_forms(key), lemma(key)} if lemma is not None else set(_forms(key))
        return frozenset(v for form in forms for v in self.values.get(form, ()))


def build_domain(
    value_sets: Mapping[str, Sequence[Sequence[str] | str]],
    opposites: Sequence[tuple[str, str]],
    shipped: bool,
) -> Domain:
    """The shipped lists (when `shipped`) with the user's: a user's value set replaces the shipped set of
    its name; the user's opposites are added. A value is a list of spellings, or one word."""
    sets: dict[str, Sequence[Sequence[str] | str]] = {**(load_value_sets() if shipped else {}), **value_sets}
    values: dict[str, list[tuple[str, int]]] = {}
    for kind, members in sets.items():
        for i, member in enumerate(members):
            for spelling in [member] if isinstance(member, str) else member:
                values.setdefault(spelling_key(spelling), []).append((kind, i))
    pairs = {frozenset(spelling_key(w) for w in p) for p in opposites}
    if shipped:
        pairs |= {frozenset(spelling_key(w) for w in p) for p in load_opposites()}
    return Domain(
        opposites=frozenset(p for p in pairs if len(p) == 2),
        values={k: tuple(v) for k, v in values.items()},
    )


@cache
def _aliases_doc(path: Path) -> dict[str, Any]:
    """`aliases.json`, read once for its glossary and its opposites."""
    doc: dict[str, Any] = json.loads(_read(path))
    return doc


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FileNotFoundError(f"{path}: cannot read ({exc}); rebuild with .ci/build-lexicon") from exc


ZH_PATH = PATH.parent / "lexicon_zh.json"


@dataclass(frozen=True, eq=False)
class ZhLexicon:
    """Chinese opposites, sets of distinct values of one kind and synonyms (`lexicon_zh.json`, by hand)."""

    antonyms: frozenset[frozenset[str]]
    kinds: dict[str, str]  # word → the kind it is one value of
    synonyms: dict[str, int]  # word → its group of synonyms

    def relate(self, a: str, b: str) -> tuple[Relation, str]:
        if a == b:
            return Relation.SYNONYM, "same word"
        group = self.synonyms.get(a)
        if group is not None and group == self.synonyms.get(b):
            return Relation.SYNONYM, "Chinese synonyms"
        if frozenset((a, b)) in self.antonyms:
            return Relation.ANTONYM, "opposites"
        kind = self.kinds.get(a)
        if kind is not None and kind == self.kinds.get(b):
            return Relation.SIBLING, f"different values of {kind!r}"
        return Relation.UNKNOWN, "not in the Chinese lexicon"


@cache
def load_zh_lexicon(path: Path = ZH_PATH) -> ZhLexicon:
    doc = json.loads(_read(path))
    kinds = {word: kind for kind, words in doc["kinds"].items() for word in words}
    synonyms = {word: n for n, words in enumerate(doc.get("synonyms", [])) for word in words}
    return ZhLexicon(
        antonyms=frozenset(frozenset(p) for p in doc["antonyms"]), kinds=kinds, synonyms=synonyms
    )
