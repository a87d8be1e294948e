"""Score a whole golden dialog: align, score each turn, attribute, compose. Pure apart from the
injected ladder's scorers.

In: a `Dialog` (each turn with gold and predicted content). Out: a `DialogReport`.

Steps, in order:
1. order-invariant groups (`OrderInvariant_<group>` tags): predicted turns are re-paired with gold
   turns of the same group by a best assignment (Hungarian, on the real turn scores), so a correct
   but reordered sequence is never penalised;
2. each Agent/Tool turn is scored (structural → completeness → truthfulness); `User` turns are
   context only: they bound action chains and their values are "already seen" for data flow;
3. action chains: the tool calls serving one request (consecutive action turns, closed by the reply
   that follows them or by a user turn) with their length;
4. dependencies (explicit, data flow, chain) and attribution (root cause vs `prior_action_failed`);
5. composition into `success_rate`, `aem_score` and `test_pass`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from monitor.attribute.attribution import Attribution, Outcome, attribute_failures
from monitor.attribute.dependencies import TurnFlow, infer_dependencies, leaf_texts
from monitor.config import CompositionConfig
from monitor.model import (
    SUB_METRIC_OF,
    ActionContent,
    Chain,
    ChainStats,
    Dialog,
    DialogReport,
    DialogTurn,
    FailureReason,
    ResponseContent,
    SubMetric,
    SubMetricStats,
    TurnContent,
    TurnVerdict,
)
from monitor.score.composition import compose
from monitor.score.ladder import Ladder
from monitor.score.response import split_parts
from monitor.score.turn import TurnScore, score_turn
from monitor.score.values import content_words

ORDER_INVARIANT_PREFIX = "OrderInvariant_"


def score_dialog(
    dialog: Dialog,
    ladder: Ladder,
    composition: CompositionConfig | None = None,
    policy_scores: dict[int, TurnScore] | None = None,
) -> DialogReport:
    """Gold verdicts, merged with policy verdicts when given (a gold failure first, else a policy one).

    A dialog with no gold turn at all is scored by the policy alone.
    """
    composition = composition or CompositionConfig()
    rows = [t for t in dialog.turns if t.turn != "User"]
    vocabulary = dialog_vocabulary(dialog)
    schemas: dict[str, Any] = (
        dialog.metadata.get("tool_schemas", {}) if isinstance(dialog.metadata, dict) else {}
    )
    if ladder.scorer is not None:
        ladder.scorer.prefetch(texts_to_embed([dialog]))

    has_gold = any(t.gold_turn is not None for t in rows)
    pairing = _align_order_invariant(rows, ladder, vocabulary, schemas) if has_gold else {}
    scores: dict[int, TurnScore] = {}
    gold_of: dict[int, DialogTurn] = {}
    policy_scores = policy_scores or {}
    for row in rows:
        gold_row = pairing.get(row.turn_no, row)
        gold_of[row.turn_no] = gold_row
        gold = (
            score_turn(ladder, gold_row.gold_turn, row.predict_turn, vocabulary, schemas)
            if has_gold
            else None
        )
        scores[row.turn_no] = _merge(gold, policy_scores.get(row.turn_no))

    chain_of, chains_turns = _chains(dialog.turns)
    action_rows = {t.turn_no for t in dialog.turns if t.turn == "Tool" or _is_action(t)}
    chain_length = {no: sum(1 for t in turns if t in action_rows) for no, turns in chains_turns.items()}
    flows = [
        TurnFlow(
            turn_no=t.turn_no,
            role=t.turn,
            gold=gold_of[t.turn_no].gold_turn if t.turn != "User" else t.gold_turn or t.predict_turn,
            predicted=t.predict_turn if t.turn != "User" else t.predict_turn or t.gold_turn,
            explicit=t.depends_on,
            chain_no=chain_of.get(t.turn_no),
        )
        for t in dialog.turns
    ]
    deps = infer_dependencies(flows)
    flow_of = {f.turn_no: f for f in flows}
    outcomes = [
        Outcome(
            flow=flow_of[r.turn_no],
            failure_reason=scores[r.turn_no].failure_reason,
            mismatches=scores[r.turn_no].mismatches,
            depends_on=deps.of(r.turn_no),
        )
        for r in rows
    ]
    attribution = attribute_failures(outcomes)

    verdicts = [
        _verdict(
            row,
            gold_of[row.turn_no],
            scores[row.turn_no],
            attribution[row.turn_no],
            deps.of(row.turn_no),
            chain_of.get(row.turn_no),
            chain_length,
        )
        for row in rows
    ]
    return build_report(dialog, verdicts, chains_turns, composition)


def build_report(
    dialog: Dialog,
    verdicts: Sequence[TurnVerdict],
    chains_turns: dict[int, list[int]],
    composition: CompositionConfig,
) -> DialogReport:
    sub_metrics = sub_metric_stats(verdicts)
    score, test_pass = compose(verdicts, sub_metrics, composition)
    failed = [v for v in verdicts if not v.success]
    roots = [v for v in failed if v.failure_reason is not FailureReason.PRIOR_ACTION_FAILED]
    cascades = [v for v in failed if v.failure_reason is FailureReason.PRIOR_ACTION_FAILED]
    by_no = {v.turn_no: v for v in verdicts}
    chains = tuple(
        Chain(
            chain_no=no,
            turns=tuple(turns),
            length=sum(1 for t in turns if by_no[t].type == "action"),
            success=all(by_no[t].success for t in turns),
        )
        for no, turns in sorted(chains_turns.items())
    )
    latencies = [v.latency_ms for v in verdicts if v.latency_ms is not None]
    comparisons = [c for v in verdicts for c in v.comparisons]
    return DialogReport(
        dialog_id=dialog.dialog_id,
        success_rate=round(sum(v.success for v in verdicts) / len(verdicts), 6) if verdicts else 1.0,
        test_pass=test_pass,
        first_failure_turn=roots[0].turn_no if roots else None,
        root_cause=roots[0].failure_reason if roots else None,
        root_cause_count=len(roots),
        cascading_count=len(cascades),
        total_failures=len(failed),
        aem_score=round(score, 6),
        composition=composition.rule,
        sub_metrics=sub_metrics,
        failure_reasons=dict(Counter(str(v.failure_reason) for v in failed)),
        root_causes=tuple(v.turn_no for v in roots),
        chains=chains,
        chain_lengths=chain_stats(chains, by_no),
        turns=tuple(verdicts),
        uncertain_comparisons=sum(1 for c in comparisons if c.uncertain),
        unscorable_comparisons=sum(1 for c in comparisons if c.unscorable),
        latency_ms=round(sum(latencies), 3) if latencies else None,
        source=dialog.source,
    )


def _merge(gold: TurnScore | None, policy: TurnScore | None) -> TurnScore:
    if gold is None or policy is None:
        found = gold or policy
        assert found is not None, "a turn needs a gold or a policy verdict"
        return found
    return gold if not gold.success or policy.success else policy


def sub_metric_stats(verdicts: Iterable[TurnVerdict]) -> dict[str, SubMetricStats]:
    counts = {m.value: [0, 0] for m in SubMetric}
    for v in verdicts:
        for check in v.checks:
            if check.passed is not None:
                counts[check.sub_metric.value][0 if check.passed else 1] += 1
    return {
        name: SubMetricStats(passed=p, failed=f, rate=round(p / (p + f), 6) if p + f else None)
        for name, (p, f) in counts.items()
    }


def chain_bucket(length: int) -> str:
    return "3+" if length >= 3 else str(length)


def chain_stats(chains: Sequence[Chain], by_no: dict[int, TurnVerdict]) -> dict[str, ChainStats]:
    out: dict[str, list[int]] = {}
    for chain in chains:
        if chain.length == 0:
            continue
        acc = out.setdefault(chain_bucket(chain.length), [0, 0, 0, 0])
        acc[0] += 1
        acc[1] += int(chain.success)
        acc[2] += len(chain.turns)
        acc[3] += sum(1 for t in chain.turns if by_no[t].success)
    return {
        bucket: ChainStats(
            chains=c,
            chains_passed=cp,
            turns=t,
            turns_passed=tp,
            chain_success_rate=round(cp / c, 6) if c else None,
            turn_success_rate=round(tp / t, 6) if t else None,
        )
        for bucket, (c, cp, t, tp) in sorted(out.items())
    }


def dialog_vocabulary(dialog: Dialog) -> frozenset[str]:
    """Slot words: content words of every argument and result value, gold and predicted."""
    words: set[str] = set()
    for t in dialog.turns:
        for content in (t.gold_turn, t.predict_turn):
            if isinstance(content, ActionContent):
                for text in (*leaf_texts(content.args), *leaf_texts(content.result)):
                    words.update(w for w in content_words(text) if len(w) >= 3 and not w.isdigit())
    return frozenset(words)


def texts_to_embed(dialogs: Iterable[Dialog]) -> list[str]:
    """Every text a scoring run may embed, so the embedder can batch across turns and dialogs: both sides
    of replies and argument values that differ (what is equal is decided by the exact rung, unembedded)."""
    texts: list[str] = []
    for dialog in dialogs:
        for t in dialog.turns:
            gold, pred = t.gold_turn, t.predict_turn
            if isinstance(gold, ResponseContent) and isinstance(pred, ResponseContent):
                if gold.response != pred.response:
                    for content in (gold, pred):
                        texts.append(content.response)
                        texts.extend(split_parts(content.response))
            elif isinstance(gold, ActionContent) and isinstance(pred, ActionContent):
                for k, g in gold.args.items():
                    p = pred.args.get(k)
                    if isinstance(g, str) and isinstance(p, str) and g != p:
                        texts += [g, p]
    return texts


def _align_order_invariant(
    rows: Sequence[DialogTurn], ladder: Ladder, vocabulary: frozenset[str], schemas: dict[str, Any]
) -> dict[int, DialogTurn]:
    groups: dict[str, list[DialogTurn]] = {}
    for row in rows:
        for tag in row.tags:
            if tag.startswith(ORDER_INVARIANT_PREFIX):
                groups.setdefault(tag, []).append(row)
    pairing: dict[int, DialogTurn] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        cost = np.zeros((len(members), len(members)))
        for i, pred_row in enumerate(members):
            for j, gold_row in enumerate(members):
                s = score_turn(ladder, gold_row.gold_turn, pred_row.predict_turn, vocabulary, schemas)
                cost[i, j] = 0.0 if s.success else 2.0 - s.partial
        pred_idx, gold_idx = linear_sum_assignment(cost)
        for i, j in zip(pred_idx, gold_idx, strict=True):
            pairing[members[i].turn_no] = members[j]
    return pairing


def _chains(turns: Sequence[DialogTurn]) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Chain number of each turn in a chain, and the turns of each chain (in order)."""
    chain_of: dict[int, int] = {}
    chains: dict[int, list[int]] = {}
    current: list[int] = []

    def close() -> None:
        if current:
            no = len(chains) + 1
            chains[no] = list(current)
            for t in current:
                chain_of[t] = no
            current.clear()

    for t in turns:
        if t.turn == "User":
            close()
        elif t.turn == "Tool" or _is_action(t):
            current.append(t.turn_no)
        else:  # an agent reply closes the chain it answers
            if current:
                current.append(t.turn_no)
            close()
    close()
    return chain_of, chains


def _is_action(t: DialogTurn) -> bool:
    return isinstance(t.gold_turn, ActionContent)


def _verdict(
    row: DialogTurn,
    gold_row: DialogTurn,
    score: TurnScore,
    attribution: Attribution,
    depends_on: tuple[int, ...],
    chain_no: int | None,
    chain_length: dict[int, int],
) -> TurnVerdict:
    content: TurnContent | None = row.predict_turn
    final = attribution.failure_reason
    observed = score.failure_reason
    sub_metric = score.sub_metric if observed is not None else None
    if observed is not None and sub_metric is None:
        sub_metric = SUB_METRIC_OF.get(observed)
    detail = score.detail
    if final is FailureReason.PRIOR_ACTION_FAILED:
        detail = f"cascade from turn {attribution.root_turn}: {score.detail}"
    return TurnVerdict(
        turn_no=row.turn_no,
        gold_turn_no=gold_row.turn_no,
        role=row.turn,
        type="action" if isinstance(gold_row.gold_turn or row.predict_turn, ActionContent) else "response",
        predicted=content.model_dump() if content is not None else None,
        success=score.success,
        failure_reason=final,
        observed_failure_reason=observed if final is FailureReason.PRIOR_ACTION_FAILED else None,
        sub_metric=sub_metric,
        fields=score.fields,
        detail=detail,
        checks=score.checks,
        comparisons=score.comparisons,
        scores={c.sub_metric.value: c.score for c in score.checks},
        depends_on=depends_on,
        root_turn=attribution.root_turn,
        chain_no=chain_no,
        chain_length=chain_length.get(chain_no) if chain_no is not None else None,
        latency_ms=row.latency_ms,
        weight=row.weight,
        critical=row.critical,
        uncertain=any(c.uncertain for c in score.comparisons),
        unscorable=any(c.unscorable for c in score.comparisons),
        reference=score.reference,
    )
