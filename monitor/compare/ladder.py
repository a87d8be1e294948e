"""The comparison ladder (DESIGN.md, value comparison). Pure apart from the injected scorers.

In: a gold and a predicted value (any JSON value) and the field name. Out: a `Comparison` saying
whether they are equivalent, the score, and which rung decided:

1 exact → 2 normalized (case, NFKC, punctuation, whitespace) → 3 typed facts (numbers and units,
dates, quarters, booleans, identifiers compared exactly; different facts decide "not equal") →
4 aliases (initialisms, airports by IATA code or name, the shipped and configured glossary, the tool
schema's enum values) → 5 differential: when the
values differ only in short spans, those spans decide (negation, numbers, WordNet synonyms / antonyms /
siblings, names; differential.py) → 6 embedding similarity with per-kind thresholds (short value vs
free text); text in a script the main model cannot read (Chinese under the English model) goes to the
multilingual model, with its own thresholds, or is `unscorable` when none is installed →
7 the uncertain band: the judge decides when one is configured, otherwise the calibrated threshold
decides and the comparison is flagged `uncertain`.

Lists and objects are compared structurally, element by element (lists in any order if their
elements match as a set). A text the model cannot read is `unscorable` — never given a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from monitor.compare.differential import Difference, compare_spans, variant_added
from monitor.compare.facts import (
    SOFT_FACT_KINDS,
    STOPWORDS,
    Facts,
    canonical_scalar,
    compare_acts,
    content_words,
    extract_facts,
    has_cjk,
    normalize_text,
    script_of,
    stated,
    value_signs,
)
from monitor.compare.lexicon import build_domain, load_airports, load_aliases, load_lexicon
from monitor.compare.similarity import PairScore, Scorer
from monitor.compare.textcache import short_cached
from monitor.config import KindThresholds, ScoringConfig
from monitor.model import Comparison, Rung

_ACRONYM_SKIP = frozenset({"of", "the", "and", "for", "&"})


class Ladder:
    def __init__(
        self,
        config: ScoringConfig,
        scorer: Scorer | None,
        judge: Scorer | None = None,
        multilingual: Scorer | None = None,
    ) -> None:
        self.config = config
        self.scorer = scorer
        self.judge = judge
        self.multilingual = multilingual
        self._glossary: dict[str, str] = {}
        shipped = load_aliases() if config.ladder.shipped_aliases else {}
        for canonical, aliases in [*shipped.items(), *config.ladder.glossary.items()]:  # the user's win
            for term in (canonical, *aliases):
                self._glossary[normalize_text(term)] = normalize_text(canonical)
        self._airports = load_airports() if config.ladder.airports else None
        lc = config.ladder
        self._domain = build_domain(lc.value_sets, lc.opposites, shipped=lc.shipped_domain)
        # the same values come back in every conversation of a reference: align each pair once
        self._spans = short_cached(maxsize=32_768)(self._spans_uncached)
        # asked of every text of every pair (each part of a reply against each of the other's): once a text
        self._foreign = short_cached(maxsize=32_768)(self._foreign_uncached)

    # -- public ------------------------------------------------------------------------------

    def compare(
        self,
        field: str,
        gold: Any,
        predicted: Any,
        enum_values: Sequence[str] = (),
        schema: dict[str, Any] | None = None,
    ) -> Comparison:
        """`schema`: the value's JSON Schema, when known; inside objects it says whether keys beyond
        gold's may be there (`additionalProperties: false` forbids them; by default they may)."""
        if type(gold) is type(predicted) and gold == predicted:
            return _cmp(field, gold, predicted, True, 1.0, Rung.EXACT, kind=_kind_of_json(gold))
        if isinstance(gold, str) and isinstance(predicted, str):
            return self.compare_text(field, gold, predicted, enum_values=enum_values)
        if isinstance(gold, dict) and isinstance(predicted, dict):
            return self._compare_objects(field, gold, predicted, schema)
        if isinstance(gold, list) and isinstance(predicted, list):
            return self._compare_lists(field, gold, predicted, schema)
        if (
            gold is None
            or predicted is None
            or isinstance(gold, dict | list)
            or isinstance(predicted, dict | list)
        ):
            note = f"different shapes: {_shape(gold)} vs {_shape(predicted)}"
            return _cmp(field, gold, predicted, False, 0.0, Rung.STRUCTURAL, kind="structured", note=note)
        # scalars of different types, e.g. 5 vs "5" or True vs "yes": compare canonical forms
        g, p = _scalar_canon(gold), _scalar_canon(predicted)
        if g is not None and p is not None:
            return _cmp(field, gold, predicted, g == p, 1.0 if g == p else 0.0, Rung.TYPED)
        return self.compare_text(field, str(gold), str(predicted), enum_values=enum_values)

    def compare_text(
        self, field: str, gold: str, predicted: str, enum_values: Sequence[str] = (), kind: str | None = None
    ) -> Comparison:
        if gold == predicted:
            return _cmp(field, gold, predicted, True, 1.0, Rung.EXACT, kind=self._kind(gold, predicted, kind))
        ng, np_ = normalize_text(gold), normalize_text(predicted)
        k = self._kind(gold, predicted, kind)
        if ng == np_ and value_signs(gold) == value_signs(predicted):  # `$10` / `€10`: the typed rung decides
            return _cmp(field, gold, predicted, True, 1.0, Rung.NORMALIZED, kind=k)
        if not ng or not np_:
            return _cmp(
                field, gold, predicted, False, 0.0, Rung.NORMALIZED, kind=k, note="one value is empty"
            )
        if enum_values:
            decided = self._enum(field, gold, predicted, ng, np_, enum_values, k)
            if decided is not None:
                return decided
        fg = extract_facts(gold, self.config.ladder.date_day_first)
        fp = extract_facts(predicted, self.config.ladder.date_day_first)
        left_g, left_p = gold, predicted
        if fg.facts or fp.facts:
            if _facts_conflict(*_phones_across(fg, fp)):
                only_g = sorted(set(fg.facts) - set(fp.facts))
                only_p = sorted(set(fp.facts) - set(fg.facts))
                note = f"typed facts differ: gold has {only_g or 'nothing else'}, predicted has {only_p or 'nothing else'}"
                return _cmp(field, gold, predicted, False, 0.0, Rung.TYPED, kind=k, note=note)
            if _facts_turned(fg, fp):
                note = "the same typed facts and words, the facts in each other's places"
                return _cmp(field, gold, predicted, False, 0.0, Rung.TYPED, kind=k, note=note)
            if not _meaningful(fg.bare) or not _meaningful(fp.bare):
                return _cmp(field, gold, predicted, True, 1.0, Rung.TYPED, kind=k, note="same typed facts")
            if _same_content_words(fg.bare, fp.bare):
                note = "same typed facts and words"
                return _cmp(field, gold, predicted, True, 1.0, Rung.TYPED, kind=k, note=note)
            left_g, left_p = fg.residual, fp.residual
        variant = variant_added(gold, predicted) if self.config.ladder.differential else None
        if variant is not None:  # read as written: the residuals lack the case and the model number
            return _cmp(field, gold, predicted, False, 0.0, Rung.DIFFERENTIAL, kind=k, note=variant.note)
        airport = self._airport(gold, predicted)
        if airport is not None:
            equal, note = airport
            return _cmp(field, gold, predicted, equal, float(equal), Rung.ALIAS, kind=k, note=note)
        alias = self._alias(normalize_text(left_g), normalize_text(left_p))
        if alias:
            return _cmp(field, gold, predicted, True, 1.0, Rung.ALIAS, kind=k, note=alias)
        # what the texts do (ask, fail; facts.py) decides before stopwords and sameness do, but a span
        # the differential rung finds different is named instead: it says more
        acts = compare_acts(gold, predicted) if self.config.ladder.differential and k == "text" else None
        if acts is not None:
            diff = self.differential(left_g, left_p) if not acts[0] else None
            if diff is None or diff.equal is not False:
                same, note = acts
                return _cmp(field, gold, predicted, same, float(same), Rung.DIFFERENTIAL, kind=k, note=note)
        elif _same_content_words(left_g, left_p):
            return _cmp(field, gold, predicted, True, 1.0, Rung.NORMALIZED, kind=k, note="same content words")
        else:
            diff = self.differential(left_g, left_p)
        if diff is not None and diff.equal is not None:
            score = 1.0 if diff.equal else 0.0
            return _cmp(field, gold, predicted, diff.equal, score, Rung.DIFFERENTIAL, kind=k, note=diff.note)
        return self._by_model(field, gold, predicted, left_g, left_p, k)

    def compare_free_text(self, field: str, gold: str, predicted: str) -> Comparison:
        """An argument that is prose (`is_prose`: a ticket's `message`, a handoff's `summary`): nobody can
        write the gold wording an agent will reproduce, so wording alone never fails it. Its typed facts
        must agree: a gold fact (an id, an amount, a date) the value replaces by another of the same kind
        fails; one it leaves out, or a fact it adds, does not (a summary may say less or more). A
        difference the differential rung decides (a negation, an opposite) fails too; otherwise the value
        passes, flagged `uncertain` when the model finds the meanings apart."""
        day_first = self.config.ladder.date_day_first
        fg, fp = extract_facts(gold, day_first), extract_facts(predicted, day_first)
        absent = [f for f in fg.facts if not stated((f,), fp.facts)]
        rivals = {_fact_kind_unit(f) for f in fp.facts if f not in fg.facts}
        replaced = [f for f in absent if _fact_kind_unit(f) in rivals]
        if replaced:
            said = sorted(f for f in fp.facts if f not in fg.facts and _fact_kind_unit(f) in rivals)
            note = f"free text with other facts: gold states {replaced}, the value {said}"
            return _cmp(field, gold, predicted, False, 0.0, Rung.TYPED, kind="text", note=note)
        c = self.compare_text(field, fg.residual, fp.residual, kind="text")
        c = c.model_copy(update={"gold": gold, "predicted": predicted})
        if c.equal or c.rung in (Rung.DIFFERENTIAL, Rung.JUDGE, Rung.UNSCORABLE):
            return c
        note = "free text worded otherwise, its typed facts agree: never failed on wording alone"
        update = {"equal": True, "uncertain": True, "note": f"{note} ({c.note})" if c.note else note}
        return c.model_copy(update=update)

    def differential(self, gold: str, predicted: str) -> Difference | None:
        """Rung 5 alone: the short spans where two texts differ, and whether they decide (differential.py)."""
        if not self.config.ladder.differential:
            return None
        return self._spans(gold, predicted)

    def _spans_uncached(self, gold: str, predicted: str) -> Difference | None:
        return compare_spans(
            gold,
            predicted,
            lambda a, b: self._alias(normalize_text(a), normalize_text(b)),
            domain=self._domain,
        )

    def similarity(self, a: str, b: str) -> PairScore:
        """The raw model similarity of two texts (rung 6 alone), for whole-reply scores: from the
        multilingual model when either text is in a script the main one cannot read."""
        return self.similarities([(a, b)])[0]

    def similarities(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        """`similarity` of each pair, each from the model that reads it (parts of a reply, words of a
        reply against a slot), one call per model."""
        out = [PairScore(score=None, unscorable="no embedding scorer configured")] * len(pairs)
        by_model: dict[int, tuple[Scorer, list[int]]] = {}
        for i, (a, b) in enumerate(pairs):
            scorer = self.scorer_for(a, b)
            if scorer is not None:
                by_model.setdefault(id(scorer), (scorer, []))[1].append(i)
        for scorer, indices in by_model.values():
            scores = scorer.score_pairs([pairs[i] for i in indices])
            for i, score in zip(indices, scores, strict=True):
                out[i] = score
        return out

    def covers(self, score: PairScore) -> bool:
        """Whether a similarity says a gold part of a reply is covered: the coverage threshold of the
        model that gave it (the multilingual model's cosines sit higher: unrelated Chinese sentences
        score ~0.86)."""
        if score.score is None:
            return False
        t = self.config.thresholds
        return score.score >= (t.multilingual_coverage if score.multilingual else t.coverage)

    def prefetch(self, texts: Sequence[str]) -> None:
        """Warm the main model's cache with the texts it can read (the others go to the multilingual
        model, which gains nothing from a batch)."""
        if self.scorer is not None:
            self.scorer.prefetch(
                [t for t in texts if not (self.multilingual is not None and self._foreign(t))]
            )

    def scorer_for(self, a: str, b: str) -> Scorer | None:
        """The model that reads both texts: the multilingual one, if installed, when either is in a
        script the main model's card does not list; else the main model (which says `unscorable`)."""
        if self.multilingual is not None and (self._foreign(a) or self._foreign(b)):
            return self.multilingual
        return self.scorer

    def _foreign_uncached(self, text: str) -> bool:
        """The main model's own test (embedder.py): any ideograph it cannot read, or too many letters in
        other scripts (`10 μm` stays with the English model)."""
        readable = getattr(self.scorer, "scripts", None) or frozenset({"LATIN"})
        if "CJK" not in readable and has_cjk(text):
            return True
        letters = [c for c in text if c.isalpha()]
        foreign = sum(script_of(c) not in readable for c in letters)
        return bool(letters) and foreign / len(letters) > self.config.embedder.max_unknown_ratio

    def decide(self, score: PairScore, kind: str) -> tuple[bool, Rung, bool, float | None, str]:
        """Apply the thresholds (and judge) of `kind` to a model score: equal, rung, uncertain, score, note."""
        if score.score is None:
            return False, Rung.UNSCORABLE, False, None, score.unscorable or "unscorable"
        t = self._thresholds(kind, score.multilingual)
        if score.score >= t.accept:
            return True, Rung.EMBEDDING, False, score.score, ""
        if score.score < t.reject:
            return False, Rung.EMBEDDING, False, score.score, ""
        return score.score >= t.threshold, Rung.EMBEDDING, True, score.score, "in the uncertain band"

    # -- rungs -------------------------------------------------------------------------------

    def _by_model(
        self, field: str, gold: str, predicted: str, left_g: str, left_p: str, kind: str
    ) -> Comparison:
        raw = self.similarity(left_g, left_p)
        equal, rung, uncertain, score, note = self.decide(raw, kind)
        if (uncertain or rung is Rung.UNSCORABLE) and self.judge is not None:
            verdict = self.judge.score_pairs([(gold, predicted)])[0]
            if verdict.score is not None:
                return _cmp(
                    field,
                    gold,
                    predicted,
                    verdict.score >= 0.5,
                    score,
                    Rung.JUDGE,
                    kind=kind,
                    truncated=raw.truncated,
                    note=f"judge: {verdict.score:.2f} equivalent",
                )
            note = f"{note}; judge failed: {verdict.unscorable}"
        return _cmp(
            field,
            gold,
            predicted,
            equal,
            score,
            rung,
            kind=kind,
            uncertain=uncertain,
            unscorable=rung is Rung.UNSCORABLE,
            truncated=raw.truncated,
            note=note,
        )

    def _alias(self, ng: str, np_: str) -> str:
        if ng in self._glossary and self._glossary.get(np_) == self._glossary[ng]:
            return f"glossary: {self._glossary[ng]}"
        if self.config.ladder.acronyms and (_is_initialism(ng, np_) or _is_initialism(np_, ng)):
            return "initialism"
        return ""

    def _airport(self, gold: str, predicted: str) -> tuple[bool, str] | None:
        """Two airports, by IATA code (`LHR`, as written) or name (`London Heathrow`): the same or not.
        None when either value names no airport by itself (`London` names several)."""
        if self._airports is None:
            return None
        cg, cp = self._airports.code_of(gold), self._airports.code_of(predicted)
        if cg is None or cp is None:
            return None
        if cg == cp:
            return True, f"airport: {self._airports.describe(cg)}"
        return False, f"different airports: {self._airports.describe(cg)} vs {self._airports.describe(cp)}"

    def _enum(
        self, field: str, gold: str, predicted: str, ng: str, np_: str, enum_values: Sequence[str], kind: str
    ) -> Comparison | None:
        allowed = {normalize_text(v) for v in enum_values}
        if np_ not in allowed:
            note = f"not one of the tool schema's values {sorted(enum_values)}"
            result = _cmp(field, gold, predicted, False, 0.0, Rung.ALIAS, kind=kind, note=note)
            return result.model_copy(update={"invalid": True})
        if ng in allowed:
            return _cmp(
                field, gold, predicted, False, 0.0, Rung.ALIAS, kind=kind, note="a different enum value"
            )
        return None

    def _compare_objects(
        self, field: str, gold: dict[str, Any], predicted: dict[str, Any], schema: dict[str, Any] | None
    ) -> Comparison:
        """Gold's keys are compared; keys only the prediction has are detail it added, unless the schema
        forbids them (`additionalProperties: false`) or gold is the empty object."""
        missing = sorted(set(gold) - set(predicted))
        added = sorted(set(predicted) - set(gold))
        # an empty gold object says "nothing": only an empty object matches it
        closed = not gold or (isinstance(schema, dict) and schema.get("additionalProperties") is False)
        if missing or (added and closed):
            note = f"keys differ: {sorted(set(gold) ^ set(predicted))}" + (
                " (no other keys allowed)" if added and closed else ""
            )
            return _cmp(field, gold, predicted, False, 0.0, Rung.STRUCTURAL, kind="structured", note=note)
        props = schema.get("properties", {}) if isinstance(schema, dict) else {}
        parts = [
            self.compare(f"{field}.{key}", gold[key], predicted[key], schema=_sub_schema(props, key))
            for key in gold
        ]
        result = _combine(field, gold, predicted, parts)
        if added and result.equal:
            return result.model_copy(update={"note": f"extra keys not in gold: {added}"})
        return result

    def _compare_lists(
        self, field: str, gold: list[Any], predicted: list[Any], schema: dict[str, Any] | None = None
    ) -> Comparison:
        if len(gold) != len(predicted):
            note = f"{len(gold)} items expected, {len(predicted)} given"
            return _cmp(field, gold, predicted, False, 0.0, Rung.STRUCTURAL, kind="structured", note=note)
        if not gold:
            return _cmp(field, gold, predicted, True, 1.0, Rung.EXACT, kind="structured")
        items = schema.get("items") if isinstance(schema, dict) else None
        item_schema = items if isinstance(items, dict) else None
        grid = [
            [self.compare(f"{field}[{i}]", g, p, schema=item_schema) for p in predicted]
            for i, g in enumerate(gold)
        ]
        cost = np.array([[(1.0 if c.equal else 2.0) - (c.score or 0.0) for c in row] for row in grid])
        rows, cols = linear_sum_assignment(cost)
        parts = [grid[r][c] for r, c in zip(rows, cols, strict=True)]
        result = _combine(field, gold, predicted, parts)
        if result.equal and any(r != c for r, c in zip(rows, cols, strict=True)):
            return result.model_copy(update={"note": "same items in a different order"})
        return result

    def _kind(self, gold: str, predicted: str, kind: str | None) -> str:
        if kind is not None:
            return kind
        words = max(len(gold.split()), len(predicted.split()))
        return "short" if words <= self.config.thresholds.short_max_words else "text"

    def _thresholds(self, kind: str, multilingual: bool = False) -> KindThresholds:
        t = self.config.thresholds
        if multilingual:
            return t.multilingual_text if kind == "text" else t.multilingual_short
        return t.text if kind == "text" else t.short


#: A value of at least this many words, with at least `_PROSE_CONTENT` content words, reads as prose.
_PROSE_WORDS = 5
_PROSE_CONTENT = 3


def is_prose(value: Any, schema: dict[str, Any] | None = None) -> bool:
    """Whether an argument value is free text (`Ladder.compare_free_text`): a string of a sentence's
    length that is not mostly facts, whose declared schema (when known) constrains nothing (no `enum`,
    `format`, `pattern`, or a type other than string)."""
    if not isinstance(value, str):
        return False
    if schema is not None and (
        any(k in schema for k in ("enum", "format", "pattern", "const"))
        or schema.get("type", "string") != "string"
    ):
        return False
    if len(value.split()) < _PROSE_WORDS:
        return False
    return len(content_words(extract_facts(value).bare)) >= _PROSE_CONTENT


def _sub_schema(properties: Any, key: str) -> dict[str, Any] | None:
    sub = properties.get(key) if isinstance(properties, dict) else None
    return sub if isinstance(sub, dict) else None


def _cmp(
    field: str,
    gold: Any,
    predicted: Any,
    equal: bool,
    score: float | None,
    rung: Rung,
    *,
    kind: str = "short",
    uncertain: bool = False,
    unscorable: bool = False,
    truncated: bool = False,
    note: str = "",
) -> Comparison:
    return Comparison(
        field=field,
        gold=gold,
        predicted=predicted,
        equal=equal,
        score=None if score is None else round(float(score), 4),
        rung=rung,
        kind=kind if kind in ("short", "text", "structured") else "short",
        uncertain=uncertain,
        unscorable=unscorable,
        truncated=truncated,
        note=note,
    )


def _combine(field: str, gold: Any, predicted: Any, parts: list[Comparison]) -> Comparison:
    failed = [p for p in parts if not p.equal]
    scores = [p.score for p in parts if p.score is not None]
    note = "; ".join(f"{p.field}: {p.note or p.rung}" for p in failed[:5])
    if not failed:  # what equal parts overlooked stays visible (extra keys a nested object added)
        note = "; ".join(f"{p.field}: {p.note}" for p in parts if "extra keys" in p.note)[:500]
    return _cmp(
        field,
        gold,
        predicted,
        not failed,
        min(scores) if scores else None,
        Rung.STRUCTURAL,
        kind="structured",
        uncertain=any(p.uncertain for p in parts),
        unscorable=any(p.unscorable for p in parts),
        truncated=any(p.truncated for p in parts),
        note=note,
    )


def _is_initialism(short: str, long: str) -> bool:
    letters = short.replace(" ", "") if all(len(t) == 1 for t in short.split()) else short
    if " " in letters or not letters.isalpha() or not 2 <= len(letters) <= 6:
        return False
    words = [w for w in long.split() if w not in _ACRONYM_SKIP]
    return len(words) >= 2 and "".join(w[0] for w in words) == letters


_ONE = "number:1"


def _phones_across(fg: Facts, fp: Facts) -> tuple[Sequence[str], Sequence[str]]:
    """The facts of both sides, where one side's only phone number is written on the other as numbers in
    groups too short to be read as a phone alone (`+852 1234 5678` / `1234 5678`, `+33 1 23 45 67 89` /
    `01 23 45 67 89`): those numbers are that phone number."""
    out = [list(fg.facts), list(fp.facts)]
    for a, b, side in ((fg, fp, 1), (fp, fg, 0)):
        phones = [f for f in a.facts if f.startswith("phone:")]
        if len(phones) != 1 or any(f.startswith("phone:") for f in b.facts):
            continue
        numbers = [text for canon, text in b.spans if canon.startswith("number:")]
        digits = "".join(c for text in numbers for c in text if c.isdigit())
        if len(numbers) > 1 and digits.removeprefix("0") == phones[0][6:]:
            out[side] = [f for f in b.facts if not f.startswith("number:")] + phones
    return out[0], out[1]


def _other_spelling(fact: str) -> str | None:
    """How the other side may write the same fact as another fact: one token read two ways by what
    stands beside it on one side only (`5L` / `Apt 5L`: number:5|l / id:5l; `H1` / `Hall H1`), a
    temperature whose unit one side leaves out (`25℃` / `25度`), a phone number written as one number
    (`(415) 555-0100` / `4155550100`), a percentage as its fraction (`15%` / `0.15`; not `100%` / `1`)."""
    kind, _, value = fact.partition(":")
    if fact.endswith("|l"):
        return f"id:{value[:-2]}l"
    if kind == "half":
        return f"id:h{value}"
    if fact.endswith("|celsius"):
        return f"number:{value[:-8]}"
    if kind == "phone":
        return f"number:{value}"
    if fact.endswith("|percent"):
        try:
            ratio = f"{float(value[:-8]) / 100:.10g}"
        except ValueError:
            return None
        return f"number:{ratio}" if ratio.startswith("0.") else None
    return None


def _facts_conflict(gold: Sequence[str], predicted: Sequence[str]) -> bool:
    """Different facts: any hard fact on one side only, or soft facts of one kind that differ. A
    `number:1` on one side only is the article (`一张照片` / `照片`, `预订一间大床房，共2晚` / `预订大床房2晚`,
    `one ticket` / `a ticket`), not a count that differs: `1 room` / `2 rooms` still differ on the 2. A
    fact the other side writes as another fact is that fact there (`_other_spelling`)."""
    g, p = set(gold), set(predicted)
    for a, b in ((g, p), (p, g)):
        for f in list(a):
            other = _other_spelling(f)
            if other is not None and other in b:
                b.discard(other)
                b.add(f)
    if (_ONE in g) != (_ONE in p):
        g.discard(_ONE)
        p.discard(_ONE)
    if {f for f in g if _fact_kind(f) not in SOFT_FACT_KINDS} != {
        f for f in p if _fact_kind(f) not in SOFT_FACT_KINDS
    }:
        return True
    kinds = {_fact_kind(f) for f in g} & {_fact_kind(f) for f in p} & SOFT_FACT_KINDS
    return any({f for f in g if _fact_kind(f) == k} != {f for f in p if _fact_kind(f) == k} for k in kinds)


#: Words that give the others their roles: who does what to whom, which way, which of two. Two texts
#: with the same content words in another order and any of these may say the reverse (`Can you send me
#: the invoice?` / `Can I send you the invoice?`, `from Boston to Denver` / `from Denver to Boston`).
_ROLE_WORDS = frozenset({
    "i", "you", "we", "me", "us", "he", "she", "they", "him", "her", "them", "my", "your", "our", "their",
    "from", "to", "than", "instead", "over", "or", "not", "vs", "versus",
})  # fmt: skip


def _same_content_words(gold: str, predicted: str) -> bool:
    """The same content words, stopwords aside, in any order (`car rental` / `rental car`) — unless a
    word that gives roles (`_ROLE_WORDS`) is said: then the content and role words must come in the same
    order (`Can you send me …` is not `Can I send you …`)."""
    words, other = content_words(gold), content_words(predicted)
    if not words or set(words) != set(other):
        return False
    all_g, all_p = normalize_text(gold).split(), normalize_text(predicted).split()
    if not _ROLE_WORDS & (set(all_g) | set(all_p)):
        return True
    keep = set(words) | _ROLE_WORDS
    return [w for w in all_g if w in keep] == [w for w in all_p if w in keep]


def _facts_turned(fg: Facts, fp: Facts) -> bool:
    """The same facts among the same words, each said after another word: `charged $20, refunded $5` /
    `charged $5, refunded $20` (扣除了2000积分，剩余800积分 / 扣除了800积分，剩余2000积分) — which value is
    which is turned around. The items of a list share the word before the list (`orders A123 and B456`
    / `orders B456 and A123`, `order A123 and order B456`), so they may come in any order."""
    if sorted(fg.facts) != sorted(fp.facts) or fg.bare != fp.bare:  # `bare` is normalized already
        return False
    kinds = [_fact_kind(c) for c in fg.facts]
    twice = {k for k in kinds if kinds.count(k) > 1}  # a fact alone of its kind has nothing to swap with

    def said(f: Facts) -> list[tuple[str, str]]:  # (label, fact) of the facts that could swap
        return sorted(
            (label, c) for label, (c, _) in zip(f.labels, f.spans, strict=True) if _fact_kind(c) in twice
        )

    return said(fg) != said(fp)


def _fact_kind_unit(fact: str) -> str:
    """A canonical fact's kind with its unit (`number:86400|s` → `number|s`): what another fact must share
    to stand in its place."""
    kind, _, rest = fact.partition(":")
    unit = rest.partition("|")[2]
    return f"{kind}|{unit}" if unit else kind


def _fact_kind(fact: str) -> str:
    return fact.split(":", 1)[0]


def _meaningful(residual: str) -> bool:
    return any(w not in STOPWORDS for w in residual.split())


def _scalar_canon(value: Any) -> str | None:
    canon = canonical_scalar(value)
    if canon is not None:
        return canon
    if isinstance(value, str):
        facts = extract_facts(value)
        if len(facts.facts) == 1 and not facts.residual:
            return facts.facts[0]
    return None


def _kind_of_json(value: Any) -> str:
    if isinstance(value, dict | list):
        return "structured"
    return "text" if isinstance(value, str) and len(value.split()) > 6 else "short"


def _shape(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def build_ladder(config: ScoringConfig) -> Ladder:
    """The ladder `config` describes, with its embedding models loaded (the multilingual one if installed;
    none with `embedder.enabled: false`) and its judge, if any, connected."""
    from monitor.compare.embedder import load_embedder
    from monitor.compare.multilingual import load_multilingual

    judge = None
    if config.judge is not None:
        from monitor.compare.judge import LlmJudge

        judge = LlmJudge(config.judge)
    if config.ladder.differential:
        load_lexicon()  # at start-up, not on the first comparison that reaches the differential rung
    if not config.embedder.enabled:  # exact, normalized, typed and differential rungs only; no model
        return Ladder(config, None, judge)
    return Ladder(config, load_embedder(config.embedder), judge, load_multilingual(config.embedder))
