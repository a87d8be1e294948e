"""Score one turn against its gold turn. Pure apart from the injected ladder's scorers.

In: gold content, predicted content (either may be an action or a response; predicted may be
missing), the dialog's vocabulary and tool schemas. Out: `TurnScore` — one check per sub-metric, the
comparisons, the observed failure reason (the first failing sub-metric in the article's order:
structural → completeness → truthfulness), and the mismatched items attribution needs.

Structural failures stop the turn there (completeness and truthfulness are `not evaluated`): a call
to the wrong tool has no meaningful parameters to compare.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from monitor.compare.facts import normalize_text
from monitor.compare.ladder import Ladder, is_prose
from monitor.compare.redaction import unmasked
from monitor.model import (
    ActionContent,
    Check,
    CompareMode,
    Comparison,
    FailureReason,
    Mismatch,
    ResponseContent,
    Rung,
    SubMetric,
    TurnContent,
)
from monitor.score.response import score_response


@dataclass(frozen=True)
class TurnScore:
    checks: tuple[Check, ...]
    comparisons: tuple[Comparison, ...]
    mismatches: tuple[Mismatch, ...]
    failure_reason: FailureReason | None
    fields: tuple[str, ...]
    detail: str
    reference: str = "gold"

    @property
    def success(self) -> bool:
        return self.failure_reason is None

    @property
    def sub_metric(self) -> SubMetric | None:
        failing = next((c for c in self.checks if c.passed is False), None)
        return failing.sub_metric if failing else None

    @property
    def partial(self) -> float:
        """A continuous score in [0, 1] (share of sub-metrics passed), used to rank alignments."""
        ran = [c for c in self.checks if c.passed is not None]
        return sum(1 for c in ran if c.passed) / len(ran) if ran else 0.0


def score_turn(
    ladder: Ladder,
    gold: TurnContent | None,
    predicted: TurnContent | None,
    vocabulary: frozenset[str] = frozenset(),
    schemas: dict[str, Any] | None = None,
    compare: Mapping[str, CompareMode] | None = None,
) -> TurnScore:
    """`compare` says how each argument is compared (`ignore` / `exact` / `semantic`; absent: the ladder)."""
    if gold is None:
        if predicted is None:
            raise ValueError("score_turn needs a gold or a predicted turn")
        what = predicted.name if isinstance(predicted, ActionContent) else "a reply"
        if isinstance(predicted, ActionContent) and predicted.error:  # a failed attempt, e.g. before a retry
            reason = FailureReason.TOOL_EXECUTION_ERROR
            detail = f"{what} failed ({predicted.error}) and no reference turn is left for it"
        else:
            reason = FailureReason.UNEXPECTED_ACTION
            detail = f"{what} has no counterpart in the reference and its tool is not read-only"
        check = Check(
            sub_metric=SubMetric.STRUCTURAL,
            passed=False,
            failure_reason=reason,
            fields=(what,),
            detail=detail,
        )
        return finish_checks(_only(check), (), (Mismatch("turn", None, what, "structure"),))
    if predicted is None:
        what = gold.name if isinstance(gold, ActionContent) else "a reply"
        check = Check(
            sub_metric=SubMetric.COMPLETENESS,
            passed=False,
            failure_reason=FailureReason.MISSING_ACTION,
            fields=(what,),
            detail=f"expected {what}; the agent produced nothing for this turn",
        )
        return finish_checks(_only(check), (), ())
    if isinstance(gold, ResponseContent) and isinstance(predicted, ResponseContent):
        if predicted.unrecorded is not None:
            return unrecorded_score(
                predicted.unrecorded, (unrecorded_reply(predicted.unrecorded, gold.response),)
            )
        r = score_response(ladder, gold.response, predicted.response, vocabulary)
        structural = Check(sub_metric=SubMetric.STRUCTURAL, passed=None, detail="response turn")
        return finish_checks((structural, r.completeness, r.truthfulness), r.comparisons, r.mismatches)
    if isinstance(gold, ActionContent) and isinstance(predicted, ActionContent):
        return _score_action(ladder, gold, predicted, schemas or {}, compare or {})
    expected = "a tool call" if isinstance(gold, ActionContent) else "a reply"
    got = "a tool call" if isinstance(predicted, ActionContent) else "a reply"
    check = Check(
        sub_metric=SubMetric.STRUCTURAL,
        passed=False,
        failure_reason=FailureReason.TOOL_MISMATCH,
        fields=("turn",),
        detail=f"expected {expected}, the agent produced {got}",
    )
    mismatch = Mismatch("turn", expected, got, "structure")
    return finish_checks(_only(check), (), (mismatch,))


def unrecorded_reply(why: str, gold: str | None = None) -> Comparison:
    """A reply no span recorded: not compared (rung `unrecorded`, not equal), `uncertain` — an
    instrumentation's gap is never the agent's failure, nor evidence that it answered right."""
    return Comparison(
        field="response",
        gold=gold,
        predicted=None,
        equal=False,
        score=None,
        rung=Rung.UNRECORDED,
        kind="text",
        uncertain=True,
        note=why,
    )


def unrecorded_score(why: str, comparisons: tuple[Comparison, ...], reference: str = "gold") -> TurnScore:
    """A reply no span recorded, with nothing else against it: no sub-metric evaluated (none counts a pass)."""
    skipped = tuple(
        Check(sub_metric=m, passed=None, detail=f"not evaluated: {why}")
        for m in (SubMetric.STRUCTURAL, SubMetric.COMPLETENESS, SubMetric.TRUTHFULNESS)
    )
    return finish_checks(skipped, comparisons, (), reference)


def _score_action(
    ladder: Ladder,
    gold: ActionContent,
    predicted: ActionContent,
    schemas: dict[str, Any],
    compare: Mapping[str, CompareMode],
) -> TurnScore:
    if normalize_text(gold.tool_id) != normalize_text(predicted.tool_id):
        reason, field = FailureReason.TOOL_MISMATCH, "tool_id"
    elif normalize_text(gold.action) != normalize_text(predicted.action):
        reason, field = FailureReason.ACTION_MISMATCH, "action"
    else:
        reason = None
    if reason is not None:
        g, p = getattr(gold, field), getattr(predicted, field)
        check = Check(
            sub_metric=SubMetric.STRUCTURAL,
            passed=False,
            failure_reason=reason,
            fields=(field,),
            detail=f"{field}: expected {g!r}, got {p!r}",
        )
        mismatch = Mismatch(field, g, p, "structure")
        return finish_checks(_only(check), (), (mismatch,))
    structural = Check(sub_metric=SubMetric.STRUCTURAL, passed=True, score=1.0)

    # completeness: parameter keys. An `ignore`d argument counts neither present nor absent; an argument
    # one side spells out at the schema's default and the other leaves out is the same call.
    properties = _properties(schemas, gold)
    gold_args = {k: v for k, v in gold.args.items() if compare.get(k) != "ignore"}
    pred_args = {k: v for k, v in predicted.args.items() if compare.get(k) != "ignore"}
    gold_args, pred_args = (
        _without_defaults(gold_args, pred_args, properties),
        _without_defaults(pred_args, gold_args, properties),
    )
    missing = sorted(set(gold_args) - set(pred_args))
    extra = sorted(set(pred_args) - set(gold_args))
    mismatches = [Mismatch(k, gold_args[k], None, "key") for k in missing]
    mismatches += [Mismatch(k, None, pred_args[k], "key") for k in extra]
    n_keys = len(set(gold_args) | set(pred_args)) or 1
    key_score = round(1.0 - (len(missing) + len(extra)) / n_keys, 4)
    if missing:
        completeness = Check(
            sub_metric=SubMetric.COMPLETENESS,
            passed=False,
            failure_reason=FailureReason.MISSING_PARAMETERS,
            score=key_score,
            fields=tuple(missing),
            detail=f"missing parameters: {', '.join(missing)}"
            + (f"; extra: {', '.join(extra)}" if extra else ""),
        )
    elif extra:
        completeness = Check(
            sub_metric=SubMetric.COMPLETENESS,
            passed=False,
            failure_reason=FailureReason.EXTRA_PARAMETERS,
            score=key_score,
            fields=tuple(extra),
            detail=f"unexpected parameters: {', '.join(extra)}",
        )
    else:
        completeness = Check(sub_metric=SubMetric.COMPLETENESS, passed=True, score=1.0)

    # truthfulness: values of the keys both sides have
    enums = _enum_values(properties)
    shared = [k for k in gold_args if k in pred_args]
    if ladder.scorer is not None:
        ladder.scorer.prefetch(
            t
            for k in shared
            if gold_args[k] != pred_args[k] and compare.get(k) != "exact"
            for t in (gold_args[k], pred_args[k])
            if isinstance(t, str)
        )
    comparisons = [
        _compare_argument(ladder, k, gold_args[k], pred_args[k], compare.get(k), enums.get(k, ()), properties)
        for k in shared
    ]
    wrong = [c for c in comparisons if not c.equal]
    mismatches += [Mismatch(c.field, c.gold, c.predicted, "value") for c in wrong]
    scores = [c.score for c in comparisons if c.score is not None]
    value_score = round(min(scores), 4) if scores else (1.0 if not shared else None)
    if wrong:
        unscorable_only = all(c.unscorable for c in wrong)
        reason = FailureReason.INCONSISTENT_PARAMETER_VALUES
        if unscorable_only:
            reason = FailureReason.UNSCORABLE
        elif all(c.invalid for c in wrong):
            reason = FailureReason.INVALID_PARAMETER_VALUES
        detail = "; ".join(
            f"{c.field}: expected {c.gold!r}, got {c.predicted!r} (score {c.score}, decided by {c.rung.value}"
            + (f", {c.note}" if c.note else "")
            + ")"
            for c in wrong
        )
        truthfulness = Check(
            sub_metric=SubMetric.TRUTHFULNESS,
            passed=False,
            failure_reason=reason,
            score=value_score,
            fields=tuple(c.field for c in wrong),
            detail=detail,
        )
    else:
        truthfulness = Check(sub_metric=SubMetric.TRUTHFULNESS, passed=True, score=value_score)
    if predicted.error and not gold.error and completeness.passed and truthfulness.passed:
        # the right call, and it failed: the chain broke here (a wrong argument that made it fail is
        # reported as the argument's failure instead, being the more specific cause)
        structural = Check(
            sub_metric=SubMetric.STRUCTURAL,
            passed=False,
            failure_reason=FailureReason.TOOL_EXECUTION_ERROR,
            score=0.0,
            fields=("error",),
            detail=f"the call failed: {predicted.error}",
        )
    return finish_checks((structural, completeness, truthfulness), tuple(comparisons), tuple(mismatches))


def finish_checks(
    checks: tuple[Check, ...],
    comparisons: tuple[Comparison, ...],
    mismatches: tuple[Mismatch, ...],
    reference: str = "gold",
) -> TurnScore:
    failing = next((c for c in checks if c.passed is False), None)
    return TurnScore(
        checks=checks,
        comparisons=comparisons,
        mismatches=mismatches,
        failure_reason=failing.failure_reason if failing else None,
        fields=failing.fields if failing else (),
        detail=failing.detail if failing else "",
        reference=reference,
    )


def _only(failing: Check) -> tuple[Check, Check, Check]:
    """The three sub-metric checks when one failed on its own and the others were not evaluated."""

    def pick(m: SubMetric) -> Check:
        return failing if m is failing.sub_metric else _skipped(m)

    return pick(SubMetric.STRUCTURAL), pick(SubMetric.COMPLETENESS), pick(SubMetric.TRUTHFULNESS)


def _skipped(sub_metric: SubMetric) -> Check:
    return Check(sub_metric=sub_metric, passed=None, detail="not evaluated: a structural check failed first")


def _compare_argument(
    ladder: Ladder,
    key: str,
    gold: Any,
    predicted: Any,
    mode: CompareMode | None,
    enum_values: tuple[str, ...],
    properties: dict[str, Any],
) -> Comparison:
    """One argument against gold. A value the instrumentation or the pipeline redacted (`[Scrubbed due to
    'session']`, `****`: compare/redaction.py), whole or inside an object, takes no part: the rest is compared,
    and the comparison is `uncertain`, never failed on what nobody could see. A value the tool's schema lists
    (an `enum` with `redacted` in it) is the agent's choice, compared as any."""
    seen, redacted = (predicted, False) if predicted in enum_values else unmasked(predicted, gold)
    found = _compare_value(ladder, key, gold, seen, mode, enum_values, properties)
    if not redacted:
        return found
    note = "redacted before export, compared without it" + (f"; {found.note}" if found.note else "")
    return found.model_copy(update={"predicted": predicted, "uncertain": True, "note": note})


def _compare_value(
    ladder: Ladder,
    key: str,
    gold: Any,
    predicted: Any,
    mode: CompareMode | None,
    enum_values: tuple[str, ...],
    properties: dict[str, Any],
) -> Comparison:
    if mode == "exact":
        equal = type(gold) is type(predicted) and gold == predicted
        note = "" if equal else "compared exactly (compare: exact)"
        return Comparison(
            field=key, gold=gold, predicted=predicted, equal=equal, score=1.0 if equal else 0.0,
            rung=Rung.EXACT, kind="structured" if isinstance(gold, dict | list) else "short", note=note,
        )  # fmt: skip
    if mode == "semantic" and isinstance(gold, str) and isinstance(predicted, str):
        return ladder.compare_text(key, gold, predicted, kind="text")
    schema = properties.get(key)
    if (
        mode is None
        and isinstance(predicted, str)
        and is_prose(gold, schema if isinstance(schema, dict) else None)
    ):
        return ladder.compare_free_text(key, gold, predicted)
    return ladder.compare(
        key, gold, predicted, enum_values, schema=schema if isinstance(schema, dict) else None
    )


def _without_defaults(
    args: dict[str, Any], other: dict[str, Any], properties: dict[str, Any]
) -> dict[str, Any]:
    """`args` less the arguments `other` leaves out and that hold their schema `default`."""
    return {
        k: v
        for k, v in args.items()
        if k in other
        or not (isinstance(properties.get(k), dict) and properties[k].get("default", _NONE) == v)
    }


_NONE = object()


def _properties(schemas: dict[str, Any], gold: ActionContent) -> dict[str, Any]:
    """The argument schemas of `metadata.tool_schemas["tool_id.action"]` (a JSON Schema)."""
    schema = schemas.get(f"{gold.tool_id}.{gold.action}") or schemas.get(gold.tool_id) or {}
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return props if isinstance(props, dict) else {}


def _enum_values(props: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Enum values per argument."""
    return {
        key: tuple(str(v) for v in spec["enum"])
        for key, spec in props.items()
        if isinstance(spec, dict) and isinstance(spec.get("enum"), list)
    }
