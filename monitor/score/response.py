"""Response turns: completeness (does the reply cover every part of gold?) and truthfulness (are
the facts in it right?). Pure apart from the injected ladder's scorers.

In: gold reply, predicted reply, and the dialog's vocabulary (words that occur in tool arguments and
results — the slots this conversation is about). Out: two `Check`s, the comparisons that decided
them, and the mismatched items (for attribution).

A reply fails on evidence, never on wording alone (nobody can write the gold wording an agent will
reproduce, and the embedding model ranks paraphrases of replies near chance):
- Truthfulness fails (`inconsistent_response`, naming both sides) when a typed fact of gold (an id, an
  amount, a date, a time) is replaced by another of its kind, when a slot word (a word of the
  conversation's tool arguments and results) is replaced by a value the rungs decide is another, when
  the reply negates or reverses what gold says (a negation on one side, opposites, different numbers
  or names: the differential rung), or does another thing (asks where gold tells, a failure against a
  success).
- Completeness fails (`incomplete_response`) when a typed fact or slot word of gold is not in the reply
  at all, or a part of gold (a sentence, a `;` part, Chinese `。` / `；` …) is neither covered by the
  model nor said in the reply's words (fewer than a third of its content words, or ideographs, occur).
  A duration, a frequency, this week (month, year) or a count under ten that the reader did not find,
  in a part the reply covers, while the reply holds it in a form the reader does not read (`roughly an
  hour`, `a month`, 周六 for 本周六, 二楼, `both`: `_said_otherwise`) is said another way, not missing:
  uncertain. Ids, amounts, percentages, doses, dates, times, weekdays and months stay required.
- Anything else — the model finds the texts apart, a part it finds uncovered whose words are there, the
  same number in another form (`7 PM` / `7:00`, `¥360` / `360元`), two general-language kinds swapped
  (WordNet siblings: `that day` / `that date`), the model finding them alike while their words differ or
  come in another order (`minus the fee` / `including the fee`: `_words_apart`) — is an `uncertain`
  comparison: the turn passes and the difference goes to review, or to the judge when one is
  configured. A reply passes outright only with gold's facts, in gold's words, in gold's order.
Every similarity comes from the model that reads the texts (the multilingual one for Chinese), as the
ladder routes them.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from monitor.compare.facts import (
    CJK_CHARS,
    MONTH_NAMES,
    asks,
    compare_acts,
    content_words,
    discounts_paid,
    extract_facts,
    has_cjk,
    is_currency,
    normalize_text,
    only_greeting,
    sentences,
    stated,
    value_signs,
)
from monitor.compare.ladder import Ladder
from monitor.compare.lexicon import WORDNET_SIBLINGS, Relation, load_lexicon
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
    parts = [p for p in parts if not only_greeting(p)] or parts  # `Hi!` is no part a reply must cover
    ladder.prefetch([gold, predicted, *parts, *pred_parts])
    comparisons: list[Comparison] = []
    mismatches: list[Mismatch] = []
    doubts: list[Comparison] = []  # differences that are no evidence: uncertain, never a failure

    # -- facts: typed facts and slot words, paired by kind -----------------------------------
    gold_facts = _fact_items(gold, vocabulary, day_first)
    pred_facts = _fact_items(predicted, vocabulary, day_first)
    gold_facts, pred_facts, flipped = _dates_in_one_order(
        (gold, gold_facts), (predicted, pred_facts), vocabulary, day_first
    )
    if flipped is not None:
        what = "a date in numbers read in the order the other text's date says"
        doubts.append(_doubt_of("response.date", flipped, flipped, what))
    # one fact written two ways is one fact: the canonical forms decide, read in context (`January 1
    # through June 30, 2025`'s start is of 2025; `8:00到18:00`'s 18:00 is the reply's `18点`)
    gold_canons, pred_canons = {c for _, c, _ in gold_facts}, {c for _, c, _ in pred_facts}
    missing = [f for f in gold_facts if f[1] not in pred_canons]
    extra = [f for f in pred_facts if f[1] not in gold_canons]
    # one identifier grouped otherwise is one identifier: `FR-48213` / `FR 48213`, `7730-212` / `7730212`
    for gold_side, reply_side, one in _regrouped(gold, predicted, (gold_facts, pred_facts), (missing, extra)):
        if one:
            what = "the same identifier grouped by other separators"
            comparisons.append(_same_of("response.id", gold_side, reply_side, Rung.NORMALIZED, what))
        else:  # several numbers on one side: the same digits, perhaps not the same identifier
            doubts.append(
                _doubt_of("response.id", gold_side, reply_side, "the same digits grouped otherwise")
            )
    # a measure the reply states more often than gold does: a second `10 years` where gold has `10 years`
    # and `12 years` is the rival of the missing `12 years` (measures only: a repeated amount is no rival
    # of a fee of $0 the reply waives in words)
    in_gold = Counter(c for _, c, _ in gold_facts)
    stated: Counter[str] = Counter()
    repeats: list[tuple[str, str, str]] = []
    for f in pred_facts:
        stated[f[1]] += 1
        if in_gold[f[1]] and stated[f[1]] > in_gold[f[1]] and _measure_unit(f[1]):
            repeats.append(f)
    conflicts: list[Comparison] = []
    absent: list[tuple[str, str, str]] = []  # (kind, canonical, text) of gold facts the reply lacks
    # absent facts the reply says in a form the reader does not read (`_said_otherwise`)
    soft: set[tuple[str, str, str]] = set()
    # an offset from a time of gold said as the moment it gives: `arrive 15 minutes early` for a 10:45 test
    # is `be there by 10:30`, 开船前1小时 for a 7:30 sailing 6点半之前
    # and a duration said as the range it spans: `at 8 p.m. for one hour` is `20:00–21:00`, `over two days,
    # 4–5 March` is `the 4th and 5th of March`
    for fact in [f for f in missing if f[1].startswith("number:") and f[1].endswith("|s")]:
        moment, field, what = _moment_of(fact, gold, gold_facts, extra), "response.time", _AS_MOMENT
        if moment is None:
            moment = _range_spanning(fact, predicted, gold_facts, pred_facts)
            field, what = "response.duration", _AS_RANGE
        if moment is None:
            continue
        missing.remove(fact)
        if moment in extra:
            extra.remove(moment)
        comparisons.append(_same_of(field, fact[2], moment[2], Rung.TYPED, what))
    # one number written two ways pairs first, before any nearer-scored rival of its kind: gold's `150 万元`
    # with the reply's `150 万`, not with its `12个月`; `6 PM` with `6:00`, not left for `8 PM` to take
    for fact in list(missing):
        twin = next((f for f in extra if f[0] == fact[0] and _same_quantity(fact[1], f[1])), None)
        if twin is None:
            continue
        missing.remove(fact)
        extra.remove(twin)
        cmp = ladder.compare_text("response." + fact[0], fact[2], twin[2])
        if cmp.equal:
            comparisons.append(cmp)
        else:
            doubts.append(_doubt(cmp, "the same number in another form"))
    for kind_g, canon_g, text_g in missing:
        rivals = [f for f in extra if f[0] == kind_g and _comparable(canon_g, f[1])] or [
            f for f in repeats if _measure_unit(f[1]) == _measure_unit(canon_g)
        ]
        best: Comparison | None = None
        best_canon = ""
        for rival in rivals:
            cmp = ladder.compare_text("response." + kind_g, text_g, rival[2])
            if cmp.equal:
                best = cmp
                (extra if rival in extra else repeats).remove(rival)
                break
            if best is None or (cmp.score or 0.0) > (best.score or 0.0):
                best, best_canon = cmp, rival[1]
        if best is not None and best.equal:
            comparisons.append(best)
        elif best is not None:
            if (
                _same_quantity(canon_g, best_canon)
                or _count_of(canon_g, text_g, best_canon, best.predicted)
                or _share_off(canon_g, best_canon, gold + predicted)
            ):
                doubts.append(_doubt(best, "the same number in another form"))
            elif not _decisive(best, vocabulary):
                doubts.append(_doubt(best, "worded otherwise"))
            else:
                conflicts.append(best)
            extra = [f for f in extra if f[2] != best.predicted]
            repeats = [f for f in repeats if f[2] != best.predicted]
        elif kind_g == "slot" and _slot_paraphrased(ladder, text_g, predicted, comparisons):
            continue
        elif kind_g == "slot" and (swap := _replaced_by(text_g, gold, predicted)):
            cmp = ladder.compare_text("response.slot", text_g, swap)
            if cmp.equal:
                comparisons.append(cmp)
            elif _decisive(cmp, vocabulary):
                conflicts.append(cmp)
            else:
                doubts.append(_doubt(cmp, "worded otherwise"))
        elif kind_g != "slot" and any(_same_quantity(canon_g, c) for _, c, _ in pred_facts):
            said = next(t for _, c, t in pred_facts if _same_quantity(canon_g, c))
            doubts.append(_doubt_of("response." + kind_g, text_g, said, "the same number in another form"))
        elif _ZERO.fullmatch(canon_g) and _FREE.search(predicted):  # `a fee of $0` / `no fee`
            doubts.append(_doubt_of("response.number", text_g, "", "nothing to pay, said in words"))
        elif canon_g == "number:1":  # `one` / 一份 is as often an article as a count
            doubts.append(_doubt_of("response.number", text_g, "", "a count of one not repeated"))
        else:
            absent.append((kind_g, canon_g, text_g))
            if _said_otherwise(canon_g, predicted):
                soft.add((kind_g, canon_g, text_g))
    comparisons.extend(conflicts)
    mismatches.extend(Mismatch("response", c.gold, c.predicted, "value") for c in conflicts)

    # -- coverage of each gold part ------------------------------------------------------------
    whole = ladder.similarity(gold, predicted)
    uncovered: list[str] = []
    part_scores: list[float] = []
    there: set[str] = set()  # parts the reply covers, by the model or in its words
    if len(parts) > 1:
        for part in parts:
            # each part by the model that reads it (a Chinese part by the multilingual model)
            pairs = [(part, p) for p in [*pred_parts, predicted]]
            sims = [s for s in ladder.similarities(pairs) if s.score is not None]
            top = max(sims, key=lambda s: s.score or 0.0, default=None)
            part_scores.append((top.score or 0.0) if top else 0.0)
            covered = (top is not None and ladder.covers(top)) or _asked_back(part, pred_parts)
            in_part = [fact for fact in absent if _fact_in(fact, part, day_first)]
            # its words are read when they can decide: no fact of it is missing, or one said otherwise is
            worded = covered or (
                (not in_part or any(f in soft for f in in_part)) and _said_in_words(part, predicted)
            )
            if worded:
                there.add(part)
            facts_absent = any(not (worded and f in soft) for f in in_part)
            stated_all = states_facts(part, predicted, day_first) or _stated_otherwise(
                part, pred_facts, day_first
            )
            if facts_absent or not (worded or stated_all):
                uncovered.append(part)
            elif not covered:
                what = "the model finds it uncovered, its words are in the reply"
                doubts.append(_doubt_of("response.part", part, predicted, what, top.score if top else None))
    else:
        part_scores.append(whole.score or 0.0)
        if soft and (ladder.covers(whole) or _said_in_words(gold, predicted)):
            there.add(gold)
    # a fact the reply holds in a form the reader does not read (`_said_otherwise`: `60 minutes` /
    # `roughly an hour`, `per month` / `a month`, 本周六 / 周六), missing from a part the reply covers, is
    # for review, not a failure
    forgiven = {fact for fact in absent if fact in soft and any(_fact_in(fact, p, day_first) for p in there)}
    doubts += [
        _doubt_of("response.fact", text, "", "not found in the reply, whose part is there: said another way")
        for _, _, text in sorted(forgiven)
    ]
    absent = [fact for fact in absent if fact not in forgiven]
    # an absent fact is reported with the gold part it belongs to, so attribution can see that the whole
    # part went missing (a reply that skips what a failed call should have produced)
    mismatches.extend(
        Mismatch("response", next((p for p in parts if _fact_in(fact, p, day_first)), fact[2]), None, "value")
        for fact in absent
    )

    completeness_fields = tuple(uncovered) or tuple(text for _, _, text in absent)
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
    # the model alone finds them alike: no evidence either, where their words differ (it scores `minus
    # the fee` and `including the fee` 0.98): uncertain (and to the judge), so that `pass` is said only
    # of the same words; not looked at where the reply fails already
    if equal and not uncertain and rung is Rung.EMBEDDING and not conflicts and completeness.passed:
        apart = _words_apart(gold, predicted, day_first)
        if apart:
            whole_cmp = _doubt(whole_cmp, f"the model finds them alike, their words differ: {apart}")
    if (whole_cmp.uncertain or not equal or rung is Rung.UNSCORABLE) and ladder.judge is not None:
        whole_cmp = ladder.compare_text("response", gold, predicted, kind="text")
    # what the two do (facts.py): the same request passes, however the model scores it; asking where
    # gold tells (or the reverse) and a failure against a success fail — unless a span the
    # differential rung names says so more precisely
    acts = compare_acts(gold, predicted) if ladder.config.ladder.differential else None
    if acts is not None and acts[0]:
        whole_cmp = whole_cmp.model_copy(
            update={"equal": True, "rung": Rung.DIFFERENTIAL, "uncertain": False, "note": acts[1]}
        )
    if not conflicts:
        for c in _differential_conflicts(ladder, gold, predicted, day_first):
            if _decisive(c, vocabulary):
                conflicts.append(c)
            else:
                doubts.append(_doubt(c, "worded otherwise"))
        comparisons.extend(conflicts)
        mismatches.extend(Mismatch("response", c.gold, c.predicted, "value") for c in conflicts)
    if acts is not None and not acts[0] and not conflicts:
        whole_cmp = whole_cmp.model_copy(
            update={"equal": False, "rung": Rung.DIFFERENTIAL, "uncertain": False, "note": acts[1]}
        )
    if not whole_cmp.equal and whole_cmp.rung is Rung.EMBEDDING:  # the model alone: no evidence
        why = "worded otherwise; no fact, negation or action differs"
        whole_cmp = _doubt(whole_cmp, f"{why} ({whole_cmp.note})" if whole_cmp.note else why)
    comparisons.insert(0, whole_cmp)
    comparisons.extend(doubts)
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
    elif not whole_cmp.equal and not whole_cmp.uncertain:
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


#: A date written in numbers whose day and month could be either (`11/04`, `03/05/2025`).
_EITHER_ORDER = re.compile(r"(?<![\d/.])(?:0?[1-9]|1[0-2])/(?:0?[1-9]|1[0-2])(?:/(?:\d{4}|\d{2}))?(?![\d/])")


def _dates_in_one_order(
    gold: tuple[str, list[tuple[str, str, str]]],
    predicted: tuple[str, list[tuple[str, str, str]]],
    vocabulary: frozenset[str],
    day_first: bool,
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]], str | None]:
    """The facts of both texts, a numeric date that could be day or month first (`11/04`) read in the
    order that the other text's date says (`11 April`), where the configured order reads it as another
    date: the writer's order is not known (`ladder.date_day_first` is a default, not a fact), and the
    other text tells it — unless a date of the same text shows its order (`12/25`). Unchanged where
    neither order makes the texts agree more. The third item: the date text read the other way, which
    the reply's verdict keeps in doubt (a swap of day and month is never a silent pass)."""
    (gold_text, gold_facts), (pred_text, pred_facts) = gold, predicted
    for text, own, other, is_gold in (
        (pred_text, pred_facts, gold_facts, False),
        (gold_text, gold_facts, pred_facts, True),
    ):
        if "/" not in text or not (either := _EITHER_ORDER.search(text)) or _order_shown(text, day_first):
            continue
        flipped = _fact_items(text, vocabulary, not day_first)
        canons = Counter(c for _, c, _ in other)
        if _agreeing(flipped, canons) > _agreeing(own, canons):
            return *((flipped, pred_facts) if is_gold else (gold_facts, flipped)), either.group(0)
    return gold_facts, pred_facts, None


#: A numeric date only one order reads: a day over 12 first (`25/12`) or second (`12/25`).
_DAY_FIRST_SHOWN = re.compile(r"(?<![\d/.])(?:1[3-9]|2\d|3[01])/(?:0?[1-9]|1[0-2])(?![\d])")
_MONTH_FIRST_SHOWN = re.compile(r"(?<![\d/.])(?:0?[1-9]|1[0-2])/(?:1[3-9]|2\d|3[01])(?![\d])")


def _order_shown(text: str, day_first: bool) -> bool:
    """A date of the text shows it writes in the configured order (so its other dates are read so)."""
    return bool((_DAY_FIRST_SHOWN if day_first else _MONTH_FIRST_SHOWN).search(text))


def _agreeing(facts: list[tuple[str, str, str]], canons: Counter[str]) -> int:
    return sum((Counter(c for _, c, _ in facts) & canons).values())


def _stated_otherwise(part: str, pred_facts: list[tuple[str, str, str]], day_first: bool) -> bool:
    """Every typed fact of a gold part is in the reply, some as one number written another way in the
    same kind of unit (`£70` / `seventy pounds`: `_same_quantity`, for review as such) — not a bare number
    for an amount (`$40` / `40 points`)."""
    wanted = extract_facts(part, day_first).facts
    have = {c for _, c, _ in pred_facts}
    return bool(wanted) and all(
        w in have or any(_same_quantity(w, c) and bool(_unit_of(w)) == bool(_unit_of(c)) for c in have)
        for w in wanted
    )


def _fact_in(fact: tuple[str, str, str], part: str, day_first: bool) -> bool:
    """Whether a gold fact (kind, canonical, text) is in this part of gold: its text, or its canonical form
    where the reader rewrote the text (`1 to 3 months` reads `1 months`)."""
    return fact[2] in part or any(canon == fact[1] for canon, _ in extract_facts(part, day_first).spans)


_AS_MOMENT = "an offset from a time of gold, said as the moment it gives"
_AS_RANGE = "a duration said as the range it spans"


def _moment_of(
    offset: tuple[str, str, str],
    gold: str,
    gold_facts: list[tuple[str, str, str]],
    extra: list[tuple[str, str, str]],
) -> tuple[str, str, str] | None:
    """The reply's time (not gold's) that lies this duration before one of gold's times, where gold says
    before (`15 minutes early`, `30 minutes before`, 提前20分钟, 开船前1小时), or after it, where gold
    says after (`30 minutes after`, 下课后30分钟). A duration gold gives no direction is no offset."""
    direction = _direction(offset[2].strip(), gold)
    minutes = float(offset[1][7:-2]) / 60
    if direction == 0 or not 0 < minutes < 12 * 60:
        return None
    times = [_minute_of_day(c) for _, c, _ in gold_facts if c.startswith("time:")]
    for fact in extra:
        if fact[1].startswith("time:"):
            moment = _minute_of_day(fact[1])
            if any((moment - t) % 1440 == (direction * minutes) % 1440 for t in times):
                return fact
    return None


#: Two facts written as one range: `20:00–21:00`, `from 8 pm to 9 pm`, `4–5 March`, 4日至5日 (and days
#: one after the other: `the 4th and 5th of March`).
_RANGE_JOIN = r"(?:st|nd|rd|th|日|号)?\s*(?:[-–—~]|to|until|till|through|至|到{})\s*"
_MONTH_NEAR = re.compile(
    r"(?i)\b(?:" + "|".join(name[:3] for name in MONTH_NAMES) + r")[a-z]*\b|[一二三四五六七八九十\d]{1,2}月"
)


def _range_spanning(
    duration: tuple[str, str, str],
    predicted: str,
    gold_facts: list[tuple[str, str, str]],
    pred_facts: list[tuple[str, str, str]],
) -> tuple[str, str, str] | None:
    """The end of a range the reply writes as one (`20:00–21:00`, `from 8 pm to 9 pm`, `4–5 March`) that
    spans this duration of gold: two times, the first of them gold's too and the second not (a range gold
    states itself spans none of its other durations); or two days of a month named beside them, both
    gold's too, counted whole (`4–5 March`, `the 4th and 5th of March` for two days). Two times merely
    one after the other (`7 pm, 8 pm`, `2 pm and 3 pm`) are no range. None where there is none."""
    seconds = float(duration[1][7:-2])
    gold_canons = {c for _, c, _ in gold_facts}
    for (_, start, start_text), end in itertools.pairwise(pred_facts):
        if start not in gold_canons:
            continue
        times = start.startswith("time:") and end[1].startswith("time:")
        joiner = _RANGE_JOIN.format("" if times else "|and")
        joined = re.search(re.escape(start_text) + joiner + re.escape(end[2]), predicted)
        if joined is None:
            continue
        if times and end[1] not in gold_canons:
            minutes = (_minute_of_day(end[1]) - _minute_of_day(start)) % 1440
            if minutes and minutes * 60 == seconds:
                return end
        first, last = _day_of_month(start), _day_of_month(end[1])
        around = predicted[max(0, joined.start() - 12) : joined.end() + 12]
        if (
            first
            and last
            and end[1] in gold_canons
            and last - first + 1 > 1
            and (last - first + 1) * 86400 == seconds
            and _MONTH_NEAR.search(around)
        ):
            return end
    return None


def _day_of_month(canon: str) -> int | None:
    value = canon.removeprefix("number:")
    return int(value) if value != canon and value.isdigit() and 1 <= int(value) <= 31 else None


_BEFORE = r"\s+(?:\w+\s+)?(?:before|early|earlier|ahead|prior|in\s+advance)\b"
_AFTER = r"\s+(?:\w+\s+)?(?:after|later)\b"


def _direction(duration: str, gold: str) -> int:
    """-1 where gold says the duration comes before a moment, 1 after it, 0 where it says neither."""
    said = re.escape(duration)
    if re.search(rf"(?i){said}{_BEFORE}|(?:提前|前)\s*(?:约|大约)?{said}", gold):
        return -1
    if re.search(rf"(?i){said}{_AFTER}|后\s*(?:约|大约)?{said}", gold):
        return 1
    return 0


def _minute_of_day(canon: str) -> int:
    hours, _, minutes = canon[5:].partition(":")
    return int(hours) * 60 + int(minutes or 0)


def _comparable(gold: str, reply: str) -> bool:
    """Whether a reply's fact can stand where gold's did: numbers of one measure (an amount for an amount,
    a percentage for a percentage, a duration for a duration) or a bare number for either — not `25%`
    against the `$9,000` balance the reply adds."""
    if not gold.startswith("number:") or not reply.startswith("number:"):
        return True
    unit_g, unit_r = _unit_of(gold), _unit_of(reply)
    if not unit_g or not unit_r or unit_g == unit_r or {unit_g, unit_r} == {"bday", "s"}:
        return True
    return is_currency(unit_g) and is_currency(unit_r)


def _unit_of(canon: str) -> str:
    return canon.partition(":")[2].partition("|")[2]


def _decisive(c: Comparison, vocabulary: frozenset[str]) -> bool:
    """Whether a difference is evidence (module docstring): a typed fact, a rule of the differential rung,
    the judge — not the model's score alone. General-language kinds swapped (WordNet siblings) are
    evidence only where a side is a value of this conversation's tool calls (`revenue` / `profit` after
    a call with `metric: revenue`), not in the wording around them (`that day` / `that date`)."""
    if c.rung is Rung.DIFFERENTIAL and WORDNET_SIBLINGS in c.note:
        return any(w in vocabulary for side in (c.gold, c.predicted) for w in content_words(str(side)))
    return c.rung in (Rung.TYPED, Rung.ALIAS, Rung.JUDGE, Rung.STRUCTURAL, Rung.DIFFERENTIAL)


def _doubt(c: Comparison, why: str) -> Comparison:
    note = f"{why}: {c.note}" if c.note and why not in c.note else why
    return c.model_copy(update={"uncertain": True, "note": note})


def _same_of(field: str, gold: str, predicted: str, rung: Rung, why: str) -> Comparison:
    """One fact of gold that the reply writes another way: equal, on the rung that knew it."""
    return Comparison(
        field=field, gold=gold, predicted=predicted, equal=True, score=1.0, rung=rung, kind="short", note=why
    )


def _doubt_of(field: str, gold: str, predicted: str, why: str, score: float | None = None) -> Comparison:
    return Comparison(
        field=field,
        gold=gold,
        predicted=predicted,
        equal=False,
        score=None if score is None else round(score, 4),
        rung=Rung.TYPED if score is None else Rung.EMBEDDING,
        kind="short" if score is None else "text",
        uncertain=True,
        note=why,
    )


_UNIT_FREE_CURRENCIES = frozenset({"jpy", "cny"})  # `¥` is both


#: a unit of time as a frequency or a period says it, in English and Chinese
_TIME_UNITS: dict[str, tuple[str, str]] = {
    "hour": (r"hours?|hourly|hrs?", "小时|钟头"),
    "day": (r"days?|daily|nights?", "天|日|晚"),
    "week": (r"weeks?|weekly|wks?", "周|星期|礼拜"),
    "month": (r"months?|monthly|mos?", "月"),
    "quarter": (r"quarters?|quarterly", "季度|季"),
    "year": (r"years?|yearly|annual|annually|yrs?", "年"),
}
#: a quantity said before a unit of time in a form the fact reader does not read as a duration:
#: `roughly an hour`, `10 hot-desk days`, `a quarter hour`, 三个钟头, 一年
_QUANTITY = (
    r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|half|quarter|couple|few)"
)
_DURATION_SAID = re.compile(
    rf"(?i)\b{_QUANTITY}(?:[\s-]+(?:of\s+an?\s+)?[a-z]+(?:-[a-z]+)?)?[\s-]+"
    rf"(?:{'|'.join(en for en, _ in _TIME_UNITS.values())}|minutes?|mins?)\b"
    # 11 月 is November and 23 日 a day of it: months of time are 个月, and days 日 only within (3日内)
    r"|[\d一二两三四五六七八九十半几]+\s*个?\s*(?:小时|钟头|天|晚|周|星期|礼拜|季度|季|年|分钟|日(?=[以之]?内))"
    r"|[\d一二两三四五六七八九十半几]+\s*个\s*月"
)


#: A count under ten in words, and the words that say two things at once (`both`, `a pair`, `twice`).
_COUNT_WORDS = {
    2: "two|both|pair|twice|二|两|俩", 3: "three|thrice|三", 4: "four|四",
    5: "five|五", 6: "six|六", 7: "seven|七", 8: "eight|八", 9: "nine|九",
}  # fmt: skip


#: 50 % said `half` (一半 is read as 50% already) — not `half an hour`, `half a day`, `half of the month`;
#: 25 % and 75 % said `a quarter`, `three quarters` — not `a quarter of an hour`, `quarter past`.
_HALF = re.compile(r"(?i)\bhalf\b(?![\s-]+(?:an?|of\s+(?:an?|the)|hour|day|night|week|month|year|past)s?\b)")
_NOT_A_SHARE = r"(?![\s-]+(?:of\s+an?\s+|of\s+the\s+year|hour|past|to\b|final|mile|pound|inch|century)|-)"
#: not `within a quarter` (three months), `a quarter mile`, `a quarter of a tank`, `quarter-final`
_QUARTERS = {
    "25": re.compile(
        r"(?i)(?<!\bwithin )(?<!\bper )(?<!\bnext )(?<!\blast )\b(?:a|one)\s+quarter\b" + _NOT_A_SHARE
    ),
    "75": re.compile(r"(?i)\bthree[\s-]+quarters\b" + _NOT_A_SHARE),
}


def _said_otherwise(canon: str, reply: str) -> bool:
    """Whether the reply holds, in a form the fact reader does not read, a fact of gold it did not find:
    a duration (a quantity before a unit of time: `roughly an hour`, 三个钟头), a frequency (`a month`,
    `/month`, 每月, 一年), this week, month or year said without `this` (本周六 / 周六), or a count under
    ten in words (2 / 二楼, `both`, `a pair`, `twice`), 50 % as `half`, 25 % as `a quarter`. Missing from a
    part the reply covers, such a fact is said another way, not missing. Nothing else is: ids, amounts,
    other percentages, doses, data allowances, dates, times, weekdays and months must be there."""
    kind, _, rest = canon.partition(":")
    value, _, unit = rest.partition("|")
    if kind == "number" and unit in ("s", "bday"):  # a form the reader does not read as a duration
        return any(
            not any(c.endswith(("|s", "|bday")) for c in extract_facts(m.group(0)).facts)
            for m in _DURATION_SAID.finditer(reply)
        )
    if kind == "frequency" and value in _TIME_UNITS:
        en, zh = _TIME_UNITS[value]
        pattern = (
            rf"(?i)\b(?:an?|per|each|every|one)\s+(?:{en})\b|/\s*(?:{en}|{zh})|每(?:个)?(?:{zh})|一(?:{zh})"
        )
        return re.search(pattern, reply) is not None
    if kind == "period" and value == "0" and unit in _TIME_UNITS:
        en, zh = _TIME_UNITS[unit]
        return re.search(rf"(?i)\b(?:{en})\b|{zh}", reply) is not None
    if kind == "number" and unit == "percent" and value == "50":  # `50% is due now` / `half now`
        return _HALF.search(reply) is not None
    if kind == "number" and unit == "percent" and value in _QUARTERS:  # `a 25% water change` / `a quarter`
        return _QUARTERS[value].search(reply) is not None
    if kind == "number" and not unit and value.isdigit() and 1 < int(value) < 10:
        word, _, ideographs = _COUNT_WORDS[int(value)].partition("|")
        return re.search(rf"(?i)\b(?:{word})\b|{ideographs}", reply) is not None
    return False


def _measure_unit(canon: str) -> str:
    """The unit of a measure (`number:378691200|s` → `s`); "" for an amount, a percentage or no measure."""
    unit = _unit_of(canon)
    if not canon.startswith("number:") or not unit or unit == "percent" or is_currency(unit):
        return ""
    return unit


_GRAMS_A_POUND = 453.59237


def _same_quantity(a: str, b: str) -> bool:
    """Two canonical facts that are one number written two ways: one with a unit and one without
    (`360元` / `360`), `¥` read as yen and as yuan, `pounds` read as a weight for sterling, a time on a
    12-hour dial (`7 PM` / `7:00`), a phone number written in groups and in one run of digits."""
    kind_a, _, rest_a = a.partition(":")
    kind_b, _, rest_b = b.partition(":")
    if {kind_a, kind_b} == {"phone", "number"}:  # `138 0013 8000` / `13800138000`: the same digits
        return rest_a.partition("|")[0].lstrip("+") == rest_b.partition("|")[0].lstrip("+")
    if kind_a == kind_b == "time":
        ha, _, ma = rest_a.partition(":")
        hb, _, mb = rest_b.partition(":")
        return ha.isdigit() and hb.isdigit() and int(ha) % 12 == int(hb) % 12 and ma == mb
    if {kind_a, kind_b} == {"time", "number"}:  # `9 AM` / `9点`, `noon` / `12`: the hour alone
        clock, bare = (rest_a, rest_b) if kind_a == "time" else (rest_b, rest_a)
        hour, _, minutes = clock.partition(":")
        return bare.isdigit() and hour.isdigit() and minutes == "00" and int(hour) % 12 == int(bare) % 12
    if kind_a != "number" or kind_b != "number":
        return False
    va, _, ua = rest_a.partition("|")
    vb, _, ub = rest_b.partition("|")
    if {ua, ub} == {"bday", "s"}:  # `5 business days` / `5 days`
        days, seconds = (va, vb) if ua == "bday" else (vb, va)
        return float(days) * 86400 == float(seconds)
    if {ua, ub} == {"gbp", "g"}:  # `£25` / `25 pounds`, which the reader takes for a weight
        sterling, grams = (va, vb) if ua == "gbp" else (vb, va)
        return abs(float(grams) / _GRAMS_A_POUND - float(sterling)) < 1e-6
    if va != vb:
        return False
    return not ua or not ub or {ua, ub} <= _UNIT_FREE_CURRENCIES


def _share_off(a: str, b: str, texts: str) -> bool:
    """A discount in tenths of the price paid (八折, read as 8) against the share taken off (`减了20%`)
    that makes it whole; the tenths one a text states as a discount (not any number beside 不打折)."""
    paid = discounts_paid(texts)
    tenths, share = (a, b) if a in paid else (b, a)
    if tenths not in paid or not share.endswith("|percent"):
        return False
    return float(tenths[7:]) * 10 + float(share[7:-8]) == 100


_ZERO = re.compile(r"number:0(?:\.0+)?(?:\|\w+)?")
#: A group of an identifier: letters and digits with a digit among them, or a short run of capitals
#: (`FR`, `MSKU`, `CLM`); and what may separate two groups of one identifier: spaces and dashes, up to
#: three (`MSKU 482911-7`, `SF 1234 5678 90`, 6-2-3018) — no dot, comma or slash (`125.50`, `3/4`).
_GROUP = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]*\d[A-Za-z0-9]*|[A-Z]{1,5})(?![A-Za-z0-9])")
_GROUP_GAP = re.compile(r"[ \-\u2010-\u2014]{1,3}")


@dataclass(frozen=True)
class _Run:
    start: int
    end: int
    sizes: tuple[int, ...]  # the length of each group: where the run breaks
    joined: str  # its letters and digits, lowercased


def _runs(text: str) -> dict[str, _Run]:
    """Each maximal run of identifier groups (`_GROUP`, joined by `_GROUP_GAP`) with four digits or more
    and at most 40 letters and digits, by its letters and digits — and, where it starts with capitals, the
    same run from its first digits on (`ID 2048 1937` against `ID:20481937`); a run that occurs twice is
    left out."""
    runs: list[_Run] = []
    digits_from: list[_Run] = []  # the run from its first group with a digit, where capitals start it
    for m in _GROUP.finditer(text):
        last = runs[-1] if runs else None
        group = m.group().lower()
        if last is not None and _GROUP_GAP.fullmatch(text, last.end, m.start()):
            runs[-1] = _Run(last.start, m.end(), (*last.sizes, len(group)), last.joined + group)
            if not any(c.isdigit() for c in last.joined) and not group.isalpha():
                digits_from.append(_Run(m.start(), m.end(), (len(group),), group))
            elif digits_from and digits_from[-1].end == last.end:
                tail = digits_from[-1]
                digits_from[-1] = _Run(tail.start, m.end(), (*tail.sizes, len(group)), tail.joined + group)
        else:
            runs.append(_Run(m.start(), m.end(), (len(group),), group))
    runs += digits_from
    found = Counter(r.joined for r in runs)
    return {
        r.joined: r
        for r in runs
        if found[r.joined] == 1 and len(r.joined) <= 40 and sum(c.isdigit() for c in r.joined) >= 4
    }


_TOKEN = re.compile(r"[A-Za-z0-9]+")


def _placed(text: str, facts: list[tuple[str, str, str]]) -> list[tuple[int, int, tuple[str, str, str]]]:
    """(start, end, fact) of each fact read in the text, at the bounds of its groups, each place once
    (gold's `6-2-3018, 柜号2` has two facts `2`, one of them in the run), in the text's order; a fact whose
    text is not found as it is (a reading rewrote it) has no place. Linear: places are looked up by
    their first letters or digits, and each fact takes the first free one."""
    at: dict[str, list[int]] = {}
    for m in _TOKEN.finditer(text):
        at.setdefault(m.group(), []).append(m.start())
    next_free: dict[str, int] = {}
    out: list[tuple[int, int, tuple[str, str, str]]] = []
    for fact in facts:
        said = fact[2].strip()
        first = _TOKEN.search(said)
        if first is None:
            continue
        places = at.get(first.group(), [])
        k = next_free.get(said, 0)
        while k < len(places):
            start = places[k] - first.start()
            k += 1
            end = start + len(said)
            if (
                start >= 0
                and text.startswith(said, start)
                and not (start > 0 and _TOKEN.match(text, start - 1))  # not within a group: 码623018 is one
                and not (end < len(text) and _TOKEN.match(text, end))
            ):
                out.append((start, end, fact))
                break
        next_free[said] = k
    return sorted(out, key=lambda p: p[0])


def _free(side: list[tuple[str, str, str]], left: Counter[tuple[str, str, str]]) -> bool:
    """Whether every fact of `side` is still unmatched (as often as `left` counts it; no Counter `-`,
    which walks the whole of `left`) and an id, a phone number or a number without a unit."""
    return all(
        left[f] >= n and f[0] in ("id", "phone", "number") and "|" not in f[1]
        for f, n in Counter(side).items()
    )


def _regrouped(
    gold: str,
    predicted: str,
    facts: tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]],
    unmatched: tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]],
) -> list[tuple[str, str, bool]]:
    """The digits and letters of one identifier that gold and the reply group otherwise (`FR-48213` / `FR
    48213`, `7730-212` / `7730212`): a whole run of identifier groups on one side (`_runs`: not part of a
    longer one) whose letters and digits, in order, are a whole run on the other — one of them a single
    group, or both broken at the same places (`4821 - 9930` / `48219 930` is two other numbers) — where
    every fact read in either run is unmatched and an id, a phone number or a number without a unit.
    Those facts are taken out of `unmatched` (missing, extra); returns the (gold, reply) texts of each,
    and whether it is one fact on each side (the same identifier) or several on one (`48213 - 25 units` /
    `4821325 units`: the same digits, for review). A digit changed, dropped or added, or a group that is
    a number of another kind (`$125.50`, a date), is no regrouping."""
    found: list[tuple[str, str, bool]] = []
    reply_runs = _runs(predicted)
    shared = [(g, reply_runs[k]) for k, g in _runs(gold).items() if k in reply_runs]
    if not shared:
        return found
    places = (_placed(gold, facts[0]), _placed(predicted, facts[1]))
    starts = ([p[0] for p in places[0]], [p[0] for p in places[1]])
    left_over = (Counter(unmatched[0]), Counter(unmatched[1]))
    for g_run, p_run in shared:
        if len(g_run.sizes) > 1 and len(p_run.sizes) > 1 and g_run.sizes != p_run.sizes:
            continue
        if g_run.sizes == p_run.sizes == (len(g_run.joined),):
            continue
        inside = tuple(
            [
                f
                for s, e, f in side[bisect_left(first, run.start) : bisect_left(first, run.end)]
                if e <= run.end
            ]
            for side, first, run in zip(places, starts, (g_run, p_run), strict=True)
        )
        if not all(inside) or not all(
            _free(side, left) for side, left in zip(inside, left_over, strict=True)
        ):
            continue
        for side, left in zip(inside, left_over, strict=True):
            left.subtract(side)
        one = len(inside[0]) == len(inside[1]) == 1
        found.append((gold[g_run.start : g_run.end], predicted[p_run.start : p_run.end], one))
    for facts_left, left in zip(unmatched, left_over, strict=True):  # what is left, in its order
        kept = []
        for f in facts_left:
            if left[f] > 0:
                left[f] -= 1
                kept.append(f)
        facts_left[:] = kept
    return found


_FREE = re.compile(
    r"(?i)\b(?:free of charge|for free|(?:is|are|be|was) free|no (?:extra |additional |further )?(?:charges?|fees?|costs?)"
    r"|waived|at no (?:extra |additional )?cost)\b|(?<!避)免[\u4e00-\u9fff]{0,3}费|免收|不收(?:费|取)"
)
_INSTALMENTS = (
    r"\s+(?:(?:monthly|weekly|daily|yearly|annual|quarterly)\b|(?:\w+\s+)?(?:payments|instal?lments)\b)"
)
_LEADING_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def _count_of(canon_a: str, text_a: str, canon_b: str, text_b: str) -> bool:
    """A bare number and a measure that starts with the same number: `4 monthly payments` / `for four
    months`, `15` / `15天`, `8.2` / `8.2 GB` (the measure's canonical form is in its base unit, its
    text still says the number). Uncertain, not failed: `within 5 days` / `on the 5th` goes to review
    too, as a difference no rule can decide."""
    for (canon, text), (other, _) in (
        ((canon_a, text_a), (canon_b, text_b)),
        ((canon_b, text_b), (canon_a, text_a)),
    ):
        lead = _LEADING_NUMBER.match(text.strip())
        if other.startswith("number:") and "|" not in other and "|" in canon and lead:
            return float(lead.group(0).replace(",", "")) == float(other[7:])
    return False


#: What is left of a contraction once its apostrophe is gone (`don't` → `don t`): no word of the part.
_CONTRACTION_PARTS = frozenset(
    {"t", "s", "d", "ll", "re", "ve", "m", "don", "won", "doesn", "didn", "isn", "aren", "wasn", "weren",
     "haven", "hasn", "hadn", "couldn", "shouldn", "wouldn", "mustn", "needn", "ain"}
)  # fmt: skip
_IDEOGRAPHS = re.compile(f"[{CJK_CHARS}]")
_ZH_FILLER = frozenset("的了吧呢啊吗您你我们是在为将会已和与及或")
_STEM = 5


def _asked_back(part: str, reply_parts: Sequence[str]) -> bool:
    """A gold question that only asks the user to choose or to agree (`Which do you prefer?`, `Does that
    work?`) is covered by a reply question that only does the same (`Which works better for you?`); a
    question about a thing (`Would you like a refund?`) is not, nor is any Chinese one (its words run
    together)."""
    return _only_asks_to_choose(part) and any(_only_asks_to_choose(p) for p in reply_parts)


#: What a question asks with when it only asks the user to choose or agree.
_CHOICE_WORDS = frozenset(
    {"prefer", "work", "works", "suit", "suits", "better", "best", "good", "fine", "sound", "sounds", "okay",
     "ok", "right", "correct", "choose", "one"}
)  # fmt: skip


def _only_asks_to_choose(sentence: str) -> bool:
    return asks(sentence) and not has_cjk(sentence) and set(content_words(sentence)) <= _CHOICE_WORDS


def _said_in_words(part: str, reply: str) -> bool:
    """Whether a third or more of a gold part's content words (`_not_in`: their first letters, a short
    word's inflections, a WordNet synonym), or of its ideographs, occur in the
    reply: the part is there in its words, even where the model finds it uncovered."""
    ideographs = set(_ideographs(part))
    if ideographs:
        return 3 * len(ideographs & set(_ideographs(reply))) >= len(ideographs)
    words = _words(part)
    if not words:
        return True
    return 3 * (len(words) - len(_not_in(words, _words(reply)))) >= len(words)


def _word_list(text: str) -> list[str]:
    """The content words of a text, in order (letters only; `don`, `t` of `don't` are none)."""
    return [w for w in content_words(text) if w.isalpha() and w not in _CONTRACTION_PARTS]


def _words(text: str) -> set[str]:
    return set(_word_list(text))


def _ideographs(text: str) -> list[str]:
    """The ideographs of a text that say something (not 的, 了, 您 …: `_ZH_FILLER`), in order."""
    return [c for c in _IDEOGRAPHS.findall(text) if c not in _ZH_FILLER]


def _not_in(words: set[str], other: set[str], synonyms: bool = True) -> list[str]:
    """The words not in `other`, by their first letters (`reset` / `resetting`), a word of four letters
    and its inflections (`need` / `needed`), or a WordNet synonym (`restart` / `reboot`)."""
    stems = {w[:_STEM] for w in other}
    short = [w for w in other if len(w) == 4]
    lexicon = load_lexicon()
    return sorted(
        w
        for w in words
        if not (
            w[:_STEM] in stems
            or any(_inflects(s, w) for s in short)
            or (len(w) == 4 and any(_inflects(w, r) for r in other))
            or (synonyms and any(lexicon.relate(w, r)[0] is Relation.SYNONYM for r in other))
        )
    )


_ENDINGS = frozenset({"s", "es", "d", "ed", "ing", "er", "ers"})


def _inflects(word: str, other: str) -> bool:
    """`other` is `word` (of four letters, shorter than the stems compared) with an inflection: `need` /
    `needed`, `stop` / `stopped` — not `card` / `cardboard`, `pass` / `password`."""
    if len(other) <= len(word) or not other.startswith(word):
        return False
    rest = other[len(word) :]
    return rest in _ENDINGS or (rest[0] == word[-1] and rest[1:] in _ENDINGS)


def _words_apart(gold: str, predicted: str, day_first: bool) -> str:
    """The words, facts aside, that one text says and the other does not (`minus` / `including`, `may` /
    `must`), or ideographs for Chinese; or that they say the same words in another order (`bank account
    … free; PayPal … $2` / `PayPal … free; bank account … $2`); "" when they say the same words in the
    same order."""
    g = extract_facts(gold, day_first).residual
    p = extract_facts(predicted, day_first).residual
    g_seq, p_seq = _in_order(g), _in_order(p)
    if has_cjk(g) or has_cjk(p):
        g_chars, p_chars = set(_ideographs(g)), set(_ideographs(p))
        gw, pw = "".join(sorted(g_chars - p_chars)), "".join(sorted(p_chars - g_chars))
    else:
        gold_words, reply_words = set(g_seq), set(p_seq)
        # synonyms are looked up pair by pair: only between a few words (long texts differ anyway)
        few = len(gold_words ^ reply_words) <= 60
        gw = " ".join(_not_in(gold_words, reply_words, synonyms=few))
        pw = " ".join(_not_in(reply_words, gold_words, synonyms=few))
    if gw or pw:
        return f"gold says {gw!r}, reply says {pw!r}"
    if g_seq != p_seq:
        return "the same words in another order"
    return ""


def _in_order(text: str) -> list[str]:
    return _ideographs(text) if has_cjk(text) else _word_list(text)


def _differential_conflicts(ladder: Ladder, gold: str, predicted: str, day_first: bool) -> list[Comparison]:
    """A reply that says what gold says but for a short span that decides against it (`could not find
    any` / `found three`, `Smith` / `Jones`): one comparison per such span. Typed facts are masked
    first (they were compared above), so `$1,200` / `1200 USD` is no difference here."""
    facts = sorted({c for text in (gold, predicted) for c, _ in extract_facts(text, day_first).spans})
    marks = {c: "xfact" + "".join(chr(97 + int(d)) for d in str(i)) for i, c in enumerate(facts)}

    def masked(text: str) -> str:
        # the longest first, never inside a longer number: `4` (of `January 4`) is no part of `48 hours`
        for canon, original in sorted(extract_facts(text, day_first).spans, key=lambda s: -len(s[1].strip())):
            original = original.strip()
            if original and original in text:
                text = _within(original).sub(f" {marks[canon]} ", text)
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


def _within(original: str) -> re.Pattern[str]:
    """The fact's text where it is not part of a longer run of Latin letters or digits."""
    before = r"(?<![0-9A-Za-z])" if original[0].isascii() and original[0].isalnum() else ""
    after = r"(?![0-9A-Za-z])" if original[-1].isascii() and original[-1].isalnum() else ""
    return re.compile(before + re.escape(original) + after)


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
