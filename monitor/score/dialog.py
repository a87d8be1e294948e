"""Score a whole golden dialog: align, score each turn, attribute, compose. Pure apart from the
injected ladder's scorers.

In: a `Dialog` (each turn with gold and predicted content). Out: a `DialogReport`.

Steps, in order:
0. rows that pair nothing are judged (`_judge_rows`, the same for `score` and aligned live traffic): a
   reply no gold turn asks for, a call of a read-only or allowed extra tool, an `optional` gold turn not
   made and (by default) a failed call retried successfully get no verdict; they are listed in
   `unmatched` / `matching` and counted in `recovery`;
1. order-invariant groups (`OrderInvariant_<group>` tags) of a `score` dialog: predicted turns are
   re-paired with gold turns of the same group by a best assignment (Hungarian, on the real turn
   scores), so a correct but reordered sequence is never penalised (live traffic is paired so by the
   alignment already);
2. each Agent/Tool turn is scored (structural → completeness → truthfulness); `User` turns are
   context only: they bound action chains and their values are "already seen" for data flow;
3. action chains: the tool calls serving one request (consecutive action turns, closed by the reply
   that follows them or by a user turn) with their length;
4. dependencies (explicit, data flow, chain) and attribution (root cause vs `prior_action_failed`);
5. composition into `success_rate`, `aem_score` and `test_pass`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from monitor.attribute.attribution import Attribution, Outcome, attribute_failures
from monitor.attribute.dependencies import TurnFlow, infer_dependencies, leaf_texts
from monitor.compare.facts import content_words, normalize_text, sentences
from monitor.compare.ladder import Ladder
from monitor.compare.textcache import short_cached
from monitor.config import AlignmentConfig, CompositionConfig
from monitor.model import (
    SUB_METRIC_OF,
    ActionContent,
    Chain,
    ChainStats,
    Check,
    CompareMode,
    Dialog,
    DialogReport,
    DialogTurn,
    FailureReason,
    FreeWhy,
    GoldMatch,
    MatchHow,
    RecoveryStats,
    ResponseContent,
    SubMetric,
    SubMetricStats,
    TurnContent,
    TurnVerdict,
    UnmatchedTurn,
)
from monitor.score.composition import compose
from monitor.score.recovery import attempts, recoveries
from monitor.score.turn import TurnScore, finish_checks, score_turn

ORDER_INVARIANT_PREFIX = "OrderInvariant_"
#: what pairing a gold call with a call of another tool costs (a gold turn left unmatched costs 1)
OTHER_TOOL = 1.9


@dataclass(frozen=True)
class RowOrigin:
    """Where a row of an aligned dialog came from: the gold turn's number, the live turn's, how they met.
    `score` dialogs are aligned by their author: each row is its own origin."""

    gold_turn_no: int | None
    live_turn_no: int | None
    how: MatchHow = "aligned"
    exchange: int | None = None  # which exchange (user turn) of the alignment it belongs to


def free_tools(metadata: Any) -> frozenset[str]:
    """Tools whose calls need no gold counterpart: `read_only_tools` and `allowed_extra_tools`."""
    read_only, allowed = _free_lists(metadata)
    return read_only | allowed


def _free_lists(metadata: Any) -> tuple[frozenset[str], frozenset[str]]:
    """`metadata.read_only_tools` and `metadata.allowed_extra_tools`, as sets of tool names."""
    if not isinstance(metadata, dict):
        return frozenset(), frozenset()
    return _names(metadata.get("read_only_tools")), _names(metadata.get("allowed_extra_tools"))


def _names(value: Any) -> frozenset[str]:
    return frozenset(v for v in value if isinstance(v, str)) if isinstance(value, list) else frozenset()


def tool_schemas(metadata: Any) -> dict[str, Any]:
    """`metadata.tool_schemas`: tool name -> JSON Schema of its arguments (empty when absent or malformed)."""
    schemas = metadata.get("tool_schemas") if isinstance(metadata, dict) else None
    return schemas if isinstance(schemas, dict) else {}


def argument_modes(metadata: Any, row: DialogTurn) -> dict[str, CompareMode]:
    """How each argument of a gold call is compared: the turn's `compare` over `metadata.compare[tool]`."""
    gold = row.gold_turn
    if not isinstance(gold, ActionContent):
        return dict(row.compare)
    by_tool = metadata.get("compare", {}) if isinstance(metadata, dict) else {}
    tool_modes = by_tool.get(gold.name) or by_tool.get(gold.tool_id) if isinstance(by_tool, dict) else None
    return {**(tool_modes if isinstance(tool_modes, dict) else {}), **row.compare}


def _known_score(
    known: Mapping[tuple[int, int], TurnScore] | None, origins: Mapping[int, RowOrigin] | None, row_no: int
) -> TurnScore | None:
    origin = origins.get(row_no) if origins is not None else None
    if known is None or origin is None or origin.gold_turn_no is None or origin.live_turn_no is None:
        return None
    return known.get((origin.gold_turn_no, origin.live_turn_no))


def score_dialog(
    dialog: Dialog,
    ladder: Ladder,
    composition: CompositionConfig | None = None,
    policy_scores: dict[int, TurnScore] | None = None,
    *,
    alignment: AlignmentConfig | None = None,
    origins: Mapping[int, RowOrigin] | None = None,
    known: Mapping[tuple[int, int], TurnScore] | None = None,
) -> DialogReport:
    """Gold verdicts, merged with policy verdicts when given (a gold failure first, else a policy one).

    A dialog with no gold turn at all is scored by the policy alone. `origins` (from the live alignment)
    says which gold and live turn each row pairs; without it each row is its own (a `score` dialog).
    `known`: scores the alignment already computed, by (gold turn_no, live turn_no) — a call pair's
    score depends on the two calls, the tool schemas and the compare modes only, which are the same here.

    Rows that pair nothing are judged here, the same for `score` and `replay`: a reply no gold turn asks
    for, a call of a read-only or allowed extra tool, an `optional` gold turn not made, and (by default,
    `alignment.failed_attempts`) a failed call retried successfully later are no failures; they are
    listed in `unmatched` / `matching` and counted.
    """
    composition = composition or CompositionConfig()
    alignment = alignment or AlignmentConfig()
    metadata = dialog.metadata if isinstance(dialog.metadata, dict) else {}
    vocabulary = dialog_vocabulary(dialog)
    schemas = tool_schemas(metadata)
    if ladder.scorer is not None:
        ladder.scorer.prefetch(texts_to_embed([dialog]))

    all_rows = [t for t in dialog.turns if t.turn != "User"]
    # aligned to gold, or written with gold (a gold user turn alone says "answer without calling")
    has_gold = origins is not None or any(t.gold_turn is not None for t in dialog.turns)
    policy_scores = policy_scores or {}
    pairing = (  # live traffic is paired so by the alignment already
        _align_order_invariant(all_rows, ladder, vocabulary, schemas, metadata)
        if has_gold and origins is None
        else {}
    )
    gold_of = {r.turn_no: pairing.get(r.turn_no, r) for r in all_rows}
    judged = _judge_rows(
        [_paired(r, gold_of[r.turn_no]) for r in all_rows],
        _RowContext(
            has_gold=has_gold,
            policy_scores=policy_scores,
            origins=origins,
            gold_of=gold_of,
            exchange_of=_exchanges(dialog.turns, origins),
            metadata=metadata,
            alignment=alignment,
        ),
    )
    kept = {t.turn_no for t in judged.rows}
    dialog = dialog.model_copy(
        update={"turns": tuple(t for t in dialog.turns if t.turn == "User" or t.turn_no in kept)}
    )
    rows = judged.rows
    scores: dict[int, TurnScore] = {}
    for row in rows:
        gold: TurnScore | None
        if row.turn_no in judged.no_call:
            gold = judged.no_call[row.turn_no]
        elif row.turn_no in judged.policy_only or not has_gold:
            gold = None
        else:
            gold = _known_score(known, origins, row.turn_no)
            if gold is None:
                modes = argument_modes(metadata, gold_of[row.turn_no])
                gold = score_turn(ladder, row.gold_turn, row.predict_turn, vocabulary, schemas, modes)
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
            _gold_turn_no(row, gold_of[row.turn_no], origins),
            _live_turn_no(row, origins),
            scores[row.turn_no],
            attribution[row.turn_no],
            deps.of(row.turn_no),
            chain_of.get(row.turn_no),
            chain_length,
        )
        for row in rows
    ]
    report = build_report(dialog, verdicts, chains_turns, composition)
    return report.model_copy(
        update={
            "strict_test_pass": report.test_pass and judged.forgiven == 0,
            "recovery": judged.recovery,
            "matching": tuple(judged.matching),
            "unmatched": judged.unmatched,
        }
    )


@dataclass
class _Judged:
    rows: list[DialogTurn]
    no_call: dict[int, TurnScore]
    policy_only: set[int]  # rows free under gold's rules, kept because a policy failed them
    matching: list[GoldMatch]
    unmatched: tuple[UnmatchedTurn, ...]
    recovery: RecoveryStats
    forgiven: int  # failed attempts that are no failure because a retry worked


@dataclass(frozen=True)
class _RowContext:
    has_gold: bool
    policy_scores: Mapping[int, TurnScore]
    origins: Mapping[int, RowOrigin] | None
    gold_of: Mapping[int, DialogTurn]  # row -> the gold row it is scored against (order-invariant pairs)
    exchange_of: Mapping[int, int]  # row -> its exchange (the user turn it follows)
    metadata: dict[str, Any]
    alignment: AlignmentConfig


def _paired(row: DialogTurn, gold_row: DialogTurn) -> DialogTurn:
    """The row with the gold side it was re-paired with (order-invariant groups of a `score` dialog)."""
    if gold_row is row:
        return row
    update = {"gold_turn": gold_row.gold_turn, "optional": gold_row.optional, "compare": gold_row.compare}
    return row.model_copy(update=update)


def _exchanges(turns: Sequence[DialogTurn], origins: Mapping[int, RowOrigin] | None) -> dict[int, int]:
    """Each row's exchange: the alignment's, or (a `score` dialog) the number of user turns before it."""
    out: dict[int, int] = {}
    users = 0
    for t in turns:
        users += t.turn == "User"
        origin = origins.get(t.turn_no) if origins is not None else None
        out[t.turn_no] = origin.exchange if origin is not None and origin.exchange is not None else users
    return out


def _judge_rows(rows: Sequence[DialogTurn], ctx: _RowContext) -> _Judged:
    """Which rows get a verdict; how each gold turn was matched; the live turns left free, and why."""
    read_only, allowed = _free_lists(ctx.metadata)
    expectations = {  # rows where gold expects no call: never a forgiven attempt
        no for no, o in (ctx.origins or {}).items() if o.how == "no_call_expected"
    }
    # the tools that exist: known only where schemas are declared (the agent's spans, the gold's metadata)
    schemas = set(tool_schemas(ctx.metadata))
    declared = (read_only | allowed | schemas | _gold_tools(rows)) if schemas else set()
    recovered_at = _recoveries(rows, ctx.exchange_of, expectations, read_only, declared)
    failed = sum(1 for r in rows if isinstance(r.predict_turn, ActionContent) and r.predict_turn.error)
    judged = _Judged([], {}, set(), [], (), RecoveryStats(), 0)
    unmatched: list[UnmatchedTurn] = []
    for row in rows:
        origin = ctx.origins.get(row.turn_no) if ctx.origins is not None else None
        live_no = origin.live_turn_no if origin else row.turn_no if row.predict_turn is not None else None
        gold_no = (
            origin.gold_turn_no if origin else ctx.gold_of[row.turn_no].turn_no if row.gold_turn else None
        )
        g, p = row.gold_turn, row.predict_turn
        policy = ctx.policy_scores.get(row.turn_no)
        if not ctx.has_gold:
            judged.rows.append(row)
            continue
        if origin is not None and origin.how == "no_call_expected":
            judged.rows.append(row)
            if not isinstance(p, ActionContent):  # answered (or silent) where gold expects no call: a pass
                judged.no_call[row.turn_no] = _no_call_score(p)
            judged.matching.append(
                GoldMatch(
                    gold_turn_no=gold_no, turn_no=row.turn_no, live_turn_no=live_no, how="no_call_expected"
                )
            )
            continue
        if g is None and p is None:
            continue
        if g is None:
            assert p is not None
            why = _why_free(p, row.turn_no, read_only, allowed, recovered_at, ctx.alignment)
            if why is None or (policy is not None and not policy.success):
                judged.rows.append(row)
                if why is not None:
                    judged.policy_only.add(row.turn_no)
                continue
            if why == "recovered_attempt":
                judged.forgiven += 1
            unmatched.append(
                UnmatchedTurn(
                    live_turn_no=live_no,
                    type="action" if isinstance(p, ActionContent) else "response",
                    tool=p.name if isinstance(p, ActionContent) else None,
                    why=why,
                )
            )
            continue
        if p is None and row.optional:
            judged.matching.append(GoldMatch(gold_turn_no=gold_no, turn_no=None, how="optional_not_made"))
            continue
        judged.rows.append(row)
        how: MatchHow = "missing" if p is None else origin.how if origin else "aligned"
        if origin is None and ctx.gold_of[row.turn_no].turn_no != row.turn_no:
            how = "order_invariant"  # re-paired within its group
        judged.matching.append(
            GoldMatch(gold_turn_no=gold_no, turn_no=row.turn_no, live_turn_no=live_no, how=how)
        )
    recovered = len(recovered_at)
    judged.unmatched = tuple(unmatched)
    judged.recovery = RecoveryStats(
        failed_attempts=failed,
        recovered=recovered,
        recovery_rate=round(recovered / failed, 6) if failed else None,
        mean_steps_to_recover=round(sum(recovered_at.values()) / recovered, 3) if recovered else None,
    )
    return judged


def _why_free(
    p: TurnContent,
    turn_no: int,
    read_only: frozenset[str],
    allowed: frozenset[str],
    recovered_at: Mapping[int, int],
    alignment: AlignmentConfig,
) -> FreeWhy | None:
    """Why a live turn with no gold counterpart is no failure, or None when it is one."""
    if isinstance(p, ResponseContent):
        return "reply_without_gold"
    if p.error:
        forgive = alignment.failed_attempts == "forgive_if_recovered" and turn_no in recovered_at
        return "recovered_attempt" if forgive else None
    name = p.name
    if name in read_only:
        return "read_only"
    if name in allowed:
        return "allowed_extra"
    return None


def _gold_tools(rows: Sequence[DialogTurn]) -> set[str]:
    return {r.gold_turn.name for r in rows if isinstance(r.gold_turn, ActionContent)}


def _recoveries(
    rows: Sequence[DialogTurn],
    exchange_of: Mapping[int, int],
    expectations: set[int],
    read_only: frozenset[str],
    declared: Collection[str] = (),
) -> dict[int, int]:
    """Failed calls recovered (`score/recovery`): turn number -> calls until the retry that worked. A failed
    call where gold expects no call is never one. `declared`: the tools the reference and the spans
    declare (a failed call of another name is an attempt at the one it spells, or at none)."""
    calls = attempts(rows, {}, exchange_of, declared)
    return {
        calls[i].turn_no: steps
        for i, steps in recoveries(calls, read_only).items()
        if calls[i].turn_no not in expectations
    }


def _no_call_score(predicted: TurnContent | None) -> TurnScore:
    """A user turn after which gold expects the agent to answer (ask, refuse) without calling a tool."""
    what = "answered" if predicted is not None else "made no call"
    passed = Check(
        sub_metric=SubMetric.STRUCTURAL, passed=True, score=1.0, detail=f"no call expected; the agent {what}"
    )
    skipped = (
        Check(sub_metric=m, passed=None, detail="no call expected")
        for m in (SubMetric.COMPLETENESS, SubMetric.TRUTHFULNESS)
    )
    return finish_checks((passed, *skipped), (), ())


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
                    words.update(_slot_words(text))
    return frozenset(words)


@short_cached(maxsize=32_768)
def _slot_words(text: str) -> tuple[str, ...]:
    """The words of one value that may be slots (the same values recur in every conversation)."""
    return tuple(w for w in content_words(text) if len(w) >= 3 and not w.isdigit())


def texts_to_embed(dialogs: Iterable[Dialog]) -> list[str]:
    """Every text a scoring run may embed, so the embedder can batch across turns and dialogs: both sides
    of replies and argument values that differ (what is equal is decided by the exact rung, unembedded)."""
    texts: list[str] = []
    for dialog in dialogs:
        for t in dialog.turns:
            gold, pred = t.gold_turn, t.predict_turn
            if isinstance(gold, ResponseContent) and isinstance(pred, ResponseContent):
                if gold.response != pred.response and pred.unrecorded is None:  # nothing to compare with
                    for content in (gold, pred):
                        texts.append(content.response)
                        texts.extend(sentences(content.response))
            elif isinstance(gold, ActionContent) and isinstance(pred, ActionContent):
                for k, g in gold.args.items():
                    p = pred.args.get(k)
                    if isinstance(g, str) and isinstance(p, str) and g != p:
                        texts += [g, p]
    return texts


def call_cost(
    ladder: Ladder,
    gold: DialogTurn,
    pred: DialogTurn,
    vocabulary: frozenset[str],
    schemas: dict[str, Any],
    metadata: dict[str, Any],
    replies: bool = False,
) -> tuple[float, TurnScore | None]:
    """The cost of pairing a gold call with a live one, and the pair's full score when one was needed:
    0 when it passes, OTHER_TOOL - 0.8 × partial when it fails, OTHER_TOOL for another tool (not scored).
    The one cost of every pairing: the live alignment's (calls only) and a `score` dialog's
    order-invariant groups, which may hold replies too (`replies`: any other pair is scored as well)."""
    g, p = gold.gold_turn, pred.predict_turn
    if isinstance(g, ActionContent) and isinstance(p, ActionContent):
        if normalize_text(g.tool_id) != normalize_text(p.tool_id) or normalize_text(
            g.action
        ) != normalize_text(p.action):
            return OTHER_TOOL, None
    elif not replies:
        return OTHER_TOOL, None
    s = score_turn(ladder, g, p, vocabulary, schemas, compare=argument_modes(metadata, gold))
    return (0.0 if s.success else OTHER_TOOL - 0.8 * s.partial), s


def _align_order_invariant(
    rows: Sequence[DialogTurn],
    ladder: Ladder,
    vocabulary: frozenset[str],
    schemas: dict[str, Any],
    metadata: dict[str, Any],
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
                # ties (equal totals) go to the pairing as written
                found, _ = call_cost(ladder, gold_row, pred_row, vocabulary, schemas, metadata, replies=True)
                cost[i, j] = found + 1e-9 * (i != j)
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


def _gold_turn_no(
    row: DialogTurn, gold_row: DialogTurn, origins: Mapping[int, RowOrigin] | None
) -> int | None:
    """The gold dialog's number of the turn a row was scored against (None: nothing in gold asked)."""
    if origins is None:
        return gold_row.turn_no if gold_row.gold_turn is not None else None
    origin = origins.get(row.turn_no)
    return origin.gold_turn_no if origin is not None else None


def _live_turn_no(row: DialogTurn, origins: Mapping[int, RowOrigin] | None) -> int | None:
    """The observed turn a row judges (None: a gold turn no live turn made). Without a live alignment
    (a `score` dialog, policy scoring) rows are the turns themselves."""
    if origins is None:
        return row.turn_no if row.predict_turn is not None else None
    origin = origins.get(row.turn_no)
    return origin.live_turn_no if origin is not None else row.turn_no


def _verdict(
    row: DialogTurn,
    gold_row: DialogTurn,
    gold_turn_no: int | None,
    live_turn_no: int | None,
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
        gold_turn_no=gold_turn_no,
        live_turn_no=live_turn_no,
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
