"""Root cause vs cascade (`prior_action_failed`). Pure.

In: per turn, in order: whether it failed, its observed failure reason, its mismatched items, the turns
it depends on, and its contents. Out: per failed turn, the final failure reason and, for a cascade,
the root turn it inherits from.

A failed turn is a cascade when it depends on an earlier failed turn and *every* one of its mismatches
is explained by what it consumed from a failed turn:
- a wrong or missing value is explained when the value produced contains something the failed turn
  got wrong or returned (its wrong argument values, its result), or the gold value contains what the
  failed turn should have produced (its gold values, its gold result), or is a distinctive word of it
  (`units` of `units_sold`) — "EU profit chart" after a `metric: profit` error;
- when the failed turn recorded no output to trace (no result), an explicit `depends_on` is trusted
  for value mismatches;
- a value replaced exactly as the failed turn replaced it (gold "3" → "2" in both) is explained,
  however short — the general rule ignores values too short to be distinctive;
- a call that failed (`tool_execution_error`) had no effect, so its gold arguments count among what
  it should have produced: "a 10 EUR credit was applied" missing after a failed `apply_credit`;
- with no gold, a value grounding traced to the failed turn's result (`Mismatch.source_turn`: the reply
  says `May 19, 2024` and only that call's result gave `2024-05-19`) is explained by it.
Wrong tool, wrong action and wrong parameter keys are the turn's own decisions: they stay root causes,
and so does any mismatch not explained — an independent error inside a cascade is a second root cause.
The root of a cascade is the root of the turn that explains it (cascades chain to the first cause).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from monitor.attribute.dependencies import TurnFlow, contains, leaf_texts, significant
from monitor.compare.facts import normalize_text
from monitor.model import ActionContent, FailureReason, Mismatch, ResponseContent, TurnContent

#: Reasons that are never a cascade: nothing was consumed wrongly, the turn itself is missing or unreadable.
_NEVER_CASCADE = frozenset(
    {FailureReason.MISSING_ACTION, FailureReason.UNSCORABLE, FailureReason.UNEXPECTED_ACTION}
)


@dataclass(frozen=True)
class Outcome:
    flow: TurnFlow
    failure_reason: FailureReason | None
    mismatches: tuple[Mismatch, ...]
    depends_on: tuple[int, ...]


@dataclass(frozen=True)
class Attribution:
    failure_reason: FailureReason | None
    root_turn: int | None


def attribute_failures(outcomes: Sequence[Outcome]) -> dict[int, Attribution]:
    result: dict[int, Attribution] = {}
    failed: dict[int, Outcome] = {}
    ancestors: dict[int, set[int]] = {}
    for o in outcomes:
        t = o.flow.turn_no
        if o.failure_reason is None:
            result[t] = Attribution(None, None)
            continue
        root = _cascade_root(o, failed, result, ancestors)
        if root is not None:
            result[t] = Attribution(FailureReason.PRIOR_ACTION_FAILED, root)
        else:
            result[t] = Attribution(o.failure_reason, None)
        failed[t] = o
    return result


def _cascade_root(
    o: Outcome, failed: dict[int, Outcome], done: dict[int, Attribution], ancestors: dict[int, set[int]]
) -> int | None:
    """The root turn if every mismatch of `o` is explained by a failed turn it depends on.

    A failed dependency explains through its own values and, if it is itself a cascade, through the
    values of the turns it inherited from (`ancestors`): a reply after a chain of cascades may repeat
    the wrong value of the first cause.
    """
    if o.failure_reason in _NEVER_CASCADE or not o.mismatches:
        return None
    upstream = sorted((d for d in o.depends_on if d in failed), reverse=True)  # the nearest producer first
    if not upstream:
        return None
    roots: list[int] = []
    used: set[int] = set()
    for item in o.mismatches:
        explainer = next(
            (
                u
                for u in upstream
                if any(_explains(failed[a], item, o, direct=a == u) for a in {u} | ancestors.get(u, set()))
            ),
            None,
        )
        if explainer is None:
            return None
        used |= {explainer} | ancestors.get(explainer, set())
        roots.append(done[explainer].root_turn or explainer)
    ancestors[o.flow.turn_no] = used
    return min(roots)


def _explains(upstream: Outcome, item: Mismatch, turn: Outcome, direct: bool = True) -> bool:
    if item.kind != "value":
        return False
    if item.predicted is not None and any(
        m.predicted is not None
        and _texts(m.gold) == _texts(item.gold)
        and _texts(m.predicted) == _texts(item.predicted)
        for m in upstream.mismatches
    ):  # the very substitution the failed turn made ("3" → "2" passengers), however short the values
        return True
    wrong, should = _taint(upstream)
    produced = _texts(item.predicted)
    expected = _texts(item.gold)
    if any(contains(p, w) for p in produced for w in wrong) or any(
        contains(e, s) or (significant(e) and contains(s, e)) for e in expected for s in should
    ):  # the gold value holds what the failed turn should have produced, or is a word of it ('units')
        return True
    if item.source_turn is not None and item.source_turn == upstream.flow.turn_no:
        return True  # grounding traced the value to this turn's result (`Mismatch.source_turn`)
    traceable = _has_output(upstream.flow.predicted) or _has_output(upstream.flow.gold)
    return direct and not traceable and upstream.flow.turn_no in turn.flow.explicit


def _taint(o: Outcome) -> tuple[set[str], set[str]]:
    """(what the failed turn produced wrongly, what it should have produced), normalized."""
    wrong: set[str] = set()
    should: set[str] = set()
    for m in o.mismatches:
        wrong |= _texts(m.predicted)
        should |= _texts(m.gold)
    for content, bucket in ((o.flow.predicted, wrong), (o.flow.gold, should)):
        if isinstance(content, ActionContent):
            bucket |= {normalize_text(v) for v in leaf_texts(content.result)}
    failed_call = isinstance(o.flow.predicted, ActionContent) and bool(o.flow.predicted.error)
    if failed_call and isinstance(o.flow.gold, ActionContent):
        # a call that failed had no effect at all: every fact of it (its arguments too) is missing downstream
        should |= {normalize_text(v) for v in leaf_texts(o.flow.gold.args)}
    common = wrong & should
    return {w for w in wrong - common if significant(w)}, {s for s in should - common if significant(s)}


def _texts(value: object) -> set[str]:
    return {normalize_text(v) for v in leaf_texts(value)}


def _has_output(content: TurnContent | None) -> bool:
    return isinstance(content, ResponseContent) or (
        isinstance(content, ActionContent) and content.result is not None
    )
