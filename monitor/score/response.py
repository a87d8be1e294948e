"""Response turns: completeness (does the reply cover every part of gold?) and truthfulness (are
the facts in it right?). Pure apart from the injected ladder's scorers.

In: gold reply, predicted reply, and the dialog's vocabulary (words that occur in tool arguments and
results — the slots this conversation is about). Out: two `Check`s, the comparisons that decided
them, and the mismatched items (for attribution).

- Completeness: the gold reply is split into parts (sentences, `;`, Chinese `。` / `；` …); a part is
  covered when some sentence of the reply (or the whole reply) reaches the coverage threshold and the
  part's typed facts are present. Every similarity comes from the model that reads the texts (the
  multilingual one for Chinese, with its own `multilingual_coverage`), as the ladder routes them.
  Uncovered parts fail with `incomplete_response`, naming them.
- Truthfulness: typed facts (identifiers, numbers with units, dates, quarters) and slot words of the
  gold reply that the reply replaces with a different fact of the same kind fail with
  `inconsistent_response`, naming both; so does a whole reply below the text threshold, and one that
  differs from gold in a short span the differential rung decides against (negation, names, WordNet
  siblings). A paraphrase that keeps every fact passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from monitor.compare.facts import (
    compare_acts,
    content_words,
    extract_facts,
    normalize_text,
    sentences,
    value_signs,
)
from monitor.compare.ladder import Ladder
from monitor.model import Check, Comparison, FailureReason, Mismatch, Rung, SubMetric


@dataclass(frozen=True)
class ResponseScore:
    completeness: Check
    truthfulness: Check
    comparisons: tuple[Comparison, ...]
    mismatches: tuple[Mismatch, ...]
    similarity: float | None


def states_facts(gold: str, predicted: str, day_first: bool = False) -> bool | None:
    """Whether the reply states every typed fact of the gold text (None: gold has none). A number without
    a unit is stated by the same number with one (gold "23553", reply "$23,553")."""
    wanted = extract_facts(gold, day_first).facts
    if not wanted:
        return None
    return stated(wanted, extract_facts(predicted, day_first).facts)


def stated(wanted: Sequence[str], have: Sequence[str]) -> bool:
    """Every canonical fact of `wanted` is among `have` (a number without a unit by the same number with
    one)."""
    present = set(have)
    return all(f in present or any(h.startswith(f + "|") for h in present) for f in wanted)


def is_bare_fact(gold: str, day_first: bool = False) -> bool:
    """A gold reply that is nothing but facts ("4", "23553", "$1,286", "HAT136"): an answer to state,
    not a reply to paraphrase."""
    facts = extract_facts(gold, day_first)
    return bool(facts.facts) and not content_words(facts.residual)


def score_response(ladder: Ladder, gold: str, predicted: str, vocabulary: frozenset[str]) -> ResponseScore:
    """Gold that is a bare fact passes when the reply states it, whatever else the reply says; any other
    gold is compared as a whole and by its facts (module docstring)."""
    same_text = normalize_text(gold) == normalize_text(predicted) and value_signs(gold) == value_signs(
        predicted
    )
    if is_bare_fact(gold, ladder.config.ladder.date_day_first) and not same_text:
        return _score_bare_fact(ladder, gold, predicted)
    if same_text:
        rung = Rung.EXACT if gold == predicted else Rung.NORMALIZED
        cmp = Comparison(
            field="response", gold=gold, predicted=predicted, equal=True, score=1.0, rung=rung, kind="text"
        )
        ok_c = Check(sub_metric=SubMetric.COMPLETENESS, passed=True, score=1.0)
        ok_t = Check(sub_metric=SubMetric.TRUTHFULNESS, passed=True, score=1.0)
        return ResponseScore(ok_c, ok_t, (cmp,), (), 1.0)

    day_first = ladder.config.ladder.date_day_first
    parts, pred_parts = sentences(gold), sentences(predicted)
    ladder.prefetch([gold, predicted, *parts, *pred_parts])
    comparisons: list[Comparison] = []
    mismatches: list[Mismatch] = []

    # -- facts: typed facts and slot words, paired by kind -----------------------------------
    gold_facts = _fact_items(gold, vocabulary, day_first)
    pred_facts = _fact_items(predicted, vocabulary, day_first)
    missing = [f for f in gold_facts if f not in pred_facts]
    extra = [f for f in pred_facts if f not in gold_facts]
    conflicts: list[Comparison] = []
    absent: list[tuple[str, str]] = []
    for kind_g, _canon, text_g in missing:
        rivals = [f for f in extra if f[0] == kind_g]
        best: Comparison | None = None
        for rival in rivals:
            cmp = ladder.compare_text("response." + kind_g, text_g, rival[2])
            if cmp.equal:
                best = cmp
                extra.remove(rival)
                break
            if best is None or (cmp.score or 0.0) > (best.score or 0.0):
                best = cmp
        if best is not None and best.equal:
            comparisons.append(best)
        elif best is not None:
            conflicts.append(best)
            extra = [f for f in extra if f[2] != best.predicted]
        elif kind_g == "slot" and _slot_paraphrased(ladder, text_g, predicted, comparisons):
            continue
        elif kind_g == "slot" and (swap := _replaced_by(text_g, gold, predicted)):
            cmp = ladder.compare_text("response.slot", text_g, swap)
            if cmp.equal:
                comparisons.append(cmp)
            else:
                conflicts.append(cmp)
        else:
            absent.append((kind_g, text_g))
    comparisons.extend(conflicts)
    mismatches.extend(Mismatch("response", c.gold, c.predicted, "value") for c in conflicts)

    # -- coverage of each gold part ------------------------------------------------------------
    whole = ladder.similarity(gold, predicted)
    uncovered: list[str] = []
    part_scores: list[float] = []
    if len(parts) > 1:
        for part in parts:
            # each part by the model that reads it (a Chinese part by the multilingual model)
            pairs = [(part, p) for p in [*pred_parts, predicted]]
            sims = [s for s in ladder.similarities(pairs) if s.score is not None]
            top = max(sims, key=lambda s: s.score or 0.0, default=None)
            part_scores.append((top.score or 0.0) if top else 0.0)
            facts_absent = any(text in part for _, text in absent)
            if top is None or not ladder.covers(top) or facts_absent:
                uncovered.append(part)
    else:
        part_scores.append(whole.score or 0.0)
    # an absent fact is reported with the gold part it belongs to, so attribution can see that the whole
    # part went missing (a reply that skips what a failed call should have produced)
    mismatches.extend(
        Mismatch("response", next((p for p in parts if text in p), text), None, "value") for _, text in absent
    )

    completeness_fields = tuple(uncovered) or tuple(text for _, text in absent)
    if completeness_fields:
        what = "; ".join(repr(x) for x in completeness_fields)
        completeness = Check(
            sub_metric=SubMetric.COMPLETENESS,
            passed=False,
            failure_reason=FailureReason.INCOMPLETE_RESPONSE,
            score=_mean(part_scores),
            fields=completeness_fields,
            detail=f"the reply does not cover {what}",
        )
    else:
        completeness = Check(sub_metric=SubMetric.COMPLETENESS, passed=True, score=_mean(part_scores))

    # -- whole-reply consistency ---------------------------------------------------------------
    equal, rung, uncertain, score, note = ladder.decide(whole, "text")
    whole_cmp = Comparison(
        field="response",
        gold=gold,
        predicted=predicted,
        equal=equal,
        score=None if score is None else round(score, 4),
        rung=rung,
        kind="text",
        uncertain=uncertain,
        unscorable=rung is Rung.UNSCORABLE,
        truncated=whole.truncated,
        note=note,
    )
    if (uncertain or rung is Rung.UNSCORABLE) and ladder.judge is not None:
        whole_cmp = ladder.compare_text("response", gold, predicted, kind="text")
    # what the two do (facts.py): the same request passes, however the model scores it; asking where
    # gold tells (or the reverse) and a failure against a success fail — unless a span the
    # differential rung names says so more precisely
    acts = compare_acts(gold, predicted) if ladder.config.ladder.differential else None
    if acts is not None and acts[0]:
        whole_cmp = whole_cmp.model_copy(
            update={"equal": True, "rung": Rung.DIFFERENTIAL, "uncertain": False, "note": acts[1]}
        )
    if not conflicts and (whole_cmp.equal or acts is not None):
        conflicts = _differential_conflicts(ladder, gold, predicted, day_first)
        comparisons.extend(conflicts)
        mismatches.extend(Mismatch("response", c.gold, c.predicted, "value") for c in conflicts)
    if acts is not None and not acts[0] and not conflicts:
        whole_cmp = whole_cmp.model_copy(
            update={"equal": False, "rung": Rung.DIFFERENTIAL, "uncertain": False, "note": acts[1]}
        )
    comparisons.insert(0, whole_cmp)
    if conflicts:
        detail = "; ".join(f"gold says {c.gold!r}, reply says {c.predicted!r}" for c in conflicts)
        truthfulness = Check(
            sub_metric=SubMetric.TRUTHFULNESS,
            passed=False,
            failure_reason=FailureReason.INCONSISTENT_RESPONSE,
            score=whole_cmp.score,
            fields=tuple(str(c.gold) for c in conflicts),
            detail=detail,
        )
    elif whole_cmp.unscorable:
        truthfulness = Check(
            sub_metric=SubMetric.TRUTHFULNESS,
            passed=False,
            failure_reason=FailureReason.UNSCORABLE,
            fields=("response",),
            detail=whole_cmp.note,
        )
    elif not whole_cmp.equal:
        mismatches.append(Mismatch("response", gold, predicted, "value"))
        truthfulness = Check(
            sub_metric=SubMetric.TRUTHFULNESS,
            passed=False,
            failure_reason=FailureReason.INCONSISTENT_RESPONSE,
            score=whole_cmp.score,
            fields=("response",),
            detail=f"the reply says something else (similarity {whole_cmp.score} {whole_cmp.note})".strip(),
        )
    else:
        truthfulness = Check(sub_metric=SubMetric.TRUTHFULNESS, passed=True, score=whole_cmp.score)
    return ResponseScore(completeness, truthfulness, tuple(comparisons), tuple(mismatches), whole.score)


def _differential_conflicts(ladder: Ladder, gold: str, predicted: str, day_first: bool) -> list[Comparison]:
    """A reply that says what gold says but for a short span that decides against it (`could not find
    any` / `found three`, `Smith` / `Jones`): one comparison per such span. Typed facts are masked
    first (they were compared above), so `$1,200` / `1200 USD` is no difference here."""
    facts = sorted({c for text in (gold, predicted) for c, _ in extract_facts(text, day_first).spans})
    marks = {c: "xfact" + "".join(chr(97 + int(d)) for d in str(i)) for i, c in enumerate(facts)}

    def masked(text: str) -> str:
        for canon, original in extract_facts(text, day_first).spans:
            if original and original in text:
                text = text.replace(original, f" {marks[canon]} ")
        return text

    diff = ladder.differential(masked(gold), masked(predicted))
    if diff is None or diff.equal is not False:
        return []
    return [
        Comparison(
            field="response.span",
            gold=g,
            predicted=p,
            equal=False,
            score=0.0,
            rung=Rung.DIFFERENTIAL,
            kind="short",
            note=diff.reason,
        )
        for g, p in diff.spans
    ]


def _score_bare_fact(ladder: Ladder, gold: str, predicted: str) -> ResponseScore:
    day_first = ladder.config.ladder.date_day_first
    wanted, have = extract_facts(gold, day_first), extract_facts(predicted, day_first)
    says = stated(wanted.facts, have.facts)
    cmp = Comparison(
        field="response",
        gold=gold,
        predicted=predicted,
        equal=says,
        score=1.0 if says else 0.0,
        rung=Rung.TYPED,
        kind="text",
        note="the reply states the fact" if says else "the reply does not state the fact",
    )
    if says:
        ok_c = Check(sub_metric=SubMetric.COMPLETENESS, passed=True, score=1.0)
        ok_t = Check(sub_metric=SubMetric.TRUTHFULNESS, passed=True, score=1.0)
        return ResponseScore(ok_c, ok_t, (cmp,), (), 1.0)
    kinds = {f.split(":", 1)[0] for f in wanted.facts}
    rivals = [f for f in have.spans if f[0].split(":", 1)[0] in kinds]
    if rivals:  # it answers, with another fact of the same kind: wrong
        said = ", ".join(repr(original or canon) for canon, original in rivals[:3])
        completeness = Check(sub_metric=SubMetric.COMPLETENESS, passed=True, score=1.0)
        truthfulness = _failed(
            SubMetric.TRUTHFULNESS,
            FailureReason.INCONSISTENT_RESPONSE,
            gold,
            f"gold says {gold!r}, the reply says {said}",
        )
        mismatch = Mismatch("response", gold, rivals[0][1] or rivals[0][0], "value")
    else:  # it does not say
        completeness = _failed(
            SubMetric.COMPLETENESS,
            FailureReason.INCOMPLETE_RESPONSE,
            gold,
            f"the reply does not state {gold!r}",
        )
        truthfulness = Check(
            sub_metric=SubMetric.TRUTHFULNESS, passed=None, detail="not evaluated: nothing to compare"
        )
        mismatch = Mismatch("response", gold, None, "value")
    return ResponseScore(completeness, truthfulness, (cmp,), (mismatch,), 0.0)


def _failed(sub_metric: SubMetric, reason: FailureReason, field: str, detail: str) -> Check:
    return Check(
        sub_metric=sub_metric, passed=False, failure_reason=reason, score=0.0, fields=(field,), detail=detail
    )


def _fact_items(text: str, vocabulary: frozenset[str], day_first: bool) -> list[tuple[str, str, str]]:
    """(kind, canonical, original) for each typed fact and slot word of a reply."""
    facts = extract_facts(text, day_first)
    items = [(canon.split(":", 1)[0], canon, original or canon) for canon, original in facts.spans]
    seen = {c for _, c, _ in items}
    for word in content_words(facts.residual):
        if word in vocabulary and f"slot:{word}" not in seen:
            seen.add(f"slot:{word}")
            items.append(("slot", f"slot:{word}", word))
    return items


def _replaced_by(slot: str, gold: str, predicted: str) -> str:
    """The reply's words that stand where gold has `slot` (a word-level diff 'replace'), if any."""
    g, p = content_words(gold), content_words(predicted)
    for op, g1, g2, p1, p2 in SequenceMatcher(a=g, b=p, autojunk=False).get_opcodes():
        if op == "replace" and slot in g[g1:g2] and 0 < p2 - p1 <= 3:
            return " ".join(p[p1:p2])
    return ""


def _slot_paraphrased(ladder: Ladder, slot: str, predicted: str, comparisons: list[Comparison]) -> bool:
    """A gold slot word with no rival slot in the reply: is it said in other words (EU → Europe)?"""
    words = [w for w in content_words(predicted) if len(w) > 1]
    if not words:
        return False
    scores = ladder.similarities([(slot, w) for w in words])
    best_word, best = max(zip(words, scores, strict=True), key=lambda ws: ws[1].score or 0.0)
    equal, rung, uncertain, score, note = ladder.decide(best, "short")
    if equal:
        comparisons.append(
            Comparison(
                field="response.slot",
                gold=slot,
                predicted=best_word,
                equal=True,
                score=score,
                rung=rung,
                uncertain=uncertain,
                note=note,
            )
        )
    return equal


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None
