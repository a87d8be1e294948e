"""Score a live conversation against a reference policy (no gold needed). Pure.

In: the conversation's turns (golden-dialog form, predicted side), the tool error of each call, the
policy, and tool schemas found in spans. Out: one `TurnScore` per turn in the same taxonomy and
sub-metrics as gold scoring, synthetic rows for required tools never called, and the process
metrics of the practice post.

Per call, in the article's order:
- structural: a tool the policy does not allow (`tool_mismatch`), a call repeated beyond the limit
  with identical arguments (`duplicate_call`), a call before the call it must follow
  (`planning_error`), a failed call not recovered as the policy expects (`tool_execution_error`:
  `retry` wants the same tool again next, `ask_user` wants a reply next, `stop` wants no further call;
  any other next call continues on invented data: a false recovery);
- completeness: required argument keys (`missing_parameters`); a conditional rule whose required
  call never followed (`policy_violation`, on the reply that closed the request — a reply can sound
  right and still fail);
- truthfulness: argument values against the JSON Schema — types, enums, patterns, ranges
  (`invalid_parameter_values`); grounding (`score/grounding`, unless the policy turns it off): an
  identifying or typed value nothing in the conversation states (`ungrounded_parameter_value`), a reply
  fact or done-claim nothing supports (`unsupported_claim`); a state field (`order_id`) whose value
  changes across calls to one neither the user nor a tool result gave (`state_drift`: grounding's
  provenance decides).
Recovery after a failed call is `score/recovery`'s model, the one gold scoring uses: a later successful
call of the same tool in the same exchange recovers it; a reply next escalates; nothing next stops; other
calls continue (a value they use that the failed call would have given is ungrounded: a false recovery).
A required tool (always, or for a task type the user's words select) never called is a synthetic
`missing_action` turn. Conditions are CEL over the triggering call's `result` and `args`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict

from monitor.compare.redaction import holds_mask, masked
from monitor.model import (
    ActionContent,
    Check,
    Comparison,
    DialogTurn,
    FailureReason,
    Mismatch,
    ResponseContent,
    SubMetric,
)
from monitor.reference.policy import MAX_CONDITION_COST, Policy, compiled_condition
from monitor.score.grounding import ConversationEvidence, Grounded, ground
from monitor.score.recovery import attempts, exchanges, recoveries
from monitor.score.turn import TurnScore, finish_checks, unrecorded_reply, unrecorded_score


class RecoveryStats(BaseModel):
    model_config = ConfigDict(frozen=True)
    faults: int = 0
    recovered: int = 0
    escalated: int = 0
    false_recoveries: int = 0
    unrecovered: int = 0
    recovery_success_rate: float | None = None
    mean_recovery_steps: float | None = None
    escalation_rate: float | None = None


class ProcessMetrics(BaseModel):
    """The practice post's process metrics for one conversation (rates over its tool calls)."""

    model_config = ConfigDict(frozen=True)
    policy: str
    tool_calls: int
    tool_selection_accuracy: float | None
    parameter_completeness_rate: float | None
    parameter_validity_rate: float | None
    tool_call_success_rate: float | None
    invalid_call_rate: float | None
    duplicate_call_rate: float | None
    state_consistency_score: float | None
    drifting_fields: tuple[str, ...] = ()
    missing_required_tools: tuple[str, ...] = ()
    unexpected_tools: tuple[str, ...] = ()
    recovery: RecoveryStats = RecoveryStats()
    strict_success: bool
    loose_success: bool


@dataclass
class PolicyOutcome:
    scores: dict[int, TurnScore]
    extra_rows: list[DialogTurn]
    metrics: ProcessMetrics
    grounded: Grounded


@dataclass
class _Call:
    turn_no: int
    tool: str
    args: dict[str, Any]
    result: Any
    error: str | None
    problems: dict[SubMetric, list[tuple[FailureReason, str, str, Mismatch]]] = field(default_factory=dict)

    def fail(
        self, sub: SubMetric, reason: FailureReason, field_: str, detail: str, mismatch: Mismatch
    ) -> None:
        self.problems.setdefault(sub, []).append((reason, field_, detail, mismatch))


def check_policy(
    turns: Sequence[DialogTurn],
    errors: dict[int, str | None],
    policy: Policy,
    span_schemas: dict[str, Any],
    context: ConversationEvidence | None = None,
) -> PolicyOutcome:
    calls = [_call(t, errors.get(t.turn_no)) for t in turns if isinstance(t.predict_turn, ActionContent)]
    replies = [t for t in turns if t.turn == "Agent" and isinstance(t.predict_turn, ResponseContent)]
    users = [t for t in turns if t.turn == "User"]
    schemas = {
        **({k: v for k, v in span_schemas.items()} if policy.schemas_from_spans else {}),
        **{name: tp.schema_ for name, tp in policy.tools.items() if tp.schema_ is not None},
    }

    known = _declared(policy)
    read_only = _read_only(policy)
    settings = policy.grounding
    grounded = (  # provenance also decides state drift; with neither, grounding costs nothing
        ground(turns, errors, schemas, settings, context or ConversationEvidence(), known, read_only)
        if settings.arguments or settings.replies or policy.state_fields
        else Grounded()
    )
    _selection(calls, policy)
    _arguments(calls, schemas)
    _duplicates(calls, policy)
    _ordering(calls, policy)
    for c in calls:
        for problem in grounded.problems.get(c.turn_no, ()):
            c.fail(SubMetric.TRUTHFULNESS, *problem)
    drifting = _state(calls, policy, grounded)
    recovery = _recovery(calls, turns, policy, grounded)
    reply_problems = _conditions(calls, replies, policy)
    for r in replies:
        for problem in grounded.problems.get(r.turn_no, ()):
            reply_problems.setdefault(r.turn_no, {}).setdefault(SubMetric.TRUTHFULNESS, []).append(problem)
    missing = _required(calls, users, policy)

    scores: dict[int, TurnScore] = {}
    for c in calls:
        scores[c.turn_no] = _score(c.problems, grounded.uncertain.get(c.turn_no, ()))
    for r in replies:
        doubts = tuple(grounded.uncertain.get(r.turn_no, ()))
        problems = reply_problems.get(r.turn_no, {})
        why = r.predict_turn.unrecorded if isinstance(r.predict_turn, ResponseContent) else None
        if why is None:
            scores[r.turn_no] = _score(problems, doubts)
        elif problems:  # a rule that fires on the reply after a call still fails it
            scores[r.turn_no] = _score(problems, (*doubts, unrecorded_reply(why)))
        else:
            scores[r.turn_no] = unrecorded_score(why, (*doubts, unrecorded_reply(why)), "policy")
    extra_rows: list[DialogTurn] = []
    last = max((t.turn_no for t in turns), default=0)
    for i, tool in enumerate(missing, start=1):
        row = DialogTurn(turn_no=last + i, turn="Tool")
        extra_rows.append(row)
        problem = (
            FailureReason.MISSING_ACTION,
            tool,
            f"the policy requires a call to {tool}; none was made",
            Mismatch(tool, tool, None, "structure"),
        )
        scores[row.turn_no] = _score({SubMetric.COMPLETENESS: [problem]})
    failed = any(not s.success for s in scores.values())
    hard = {FailureReason.MISSING_ACTION, FailureReason.POLICY_VIOLATION, FailureReason.TOOL_EXECUTION_ERROR}
    loose = bool(replies) and not any(s.failure_reason in hard for s in scores.values())
    metrics = _metrics(policy, calls, drifting, missing, recovery, strict=not failed, loose=loose)
    return PolicyOutcome(scores=scores, extra_rows=extra_rows, metrics=metrics, grounded=grounded)


def _call(t: DialogTurn, error: str | None) -> _Call:
    c = t.predict_turn
    assert isinstance(c, ActionContent)
    return _Call(turn_no=t.turn_no, tool=c.name, args=dict(c.args), result=c.result, error=error)


def _selection(calls: list[_Call], policy: Policy) -> None:
    for c in calls:
        if not policy.allowed(c.tool):
            c.fail(
                SubMetric.STRUCTURAL,
                FailureReason.TOOL_MISMATCH,
                c.tool,
                f"{c.tool} is not an allowed tool for agent {policy.agent}",
                Mismatch("tool", None, c.tool, "structure"),
            )


def _arguments(calls: list[_Call], schemas: dict[str, Any]) -> None:
    for c in calls:
        schema = schemas.get(c.tool)
        if schema is None:
            continue
        validator = Draft202012Validator(schema)
        for err in sorted(validator.iter_errors(c.args), key=lambda e: list(e.path)):
            if masked(err.instance):  # `[Scrubbed due to 'session']`: a redaction's, not the agent's value
                continue
            where = ".".join(str(p) for p in err.path) or "(arguments)"
            if err.validator == "required":
                key = re.findall(r"'([^']+)' is a required property", err.message)
                name = key[0] if key else where
                c.fail(
                    SubMetric.COMPLETENESS,
                    FailureReason.MISSING_PARAMETERS,
                    name,
                    f"missing parameter {name} (required by the {c.tool} schema)",
                    Mismatch(name, None, None, "key"),
                )
            else:
                c.fail(
                    SubMetric.TRUTHFULNESS,
                    FailureReason.INVALID_PARAMETER_VALUES,
                    where,
                    f"{where}: {err.message}",
                    Mismatch(where, None, err.instance, "value"),
                )


def _duplicates(calls: list[_Call], policy: Policy) -> None:
    seen: dict[str, int] = {}
    for c in calls:
        if c.error:  # a failed call does not count: retrying it is what `after_tool_error: retry` asks for
            continue
        if holds_mask(c.args):  # two sessions closed, both exported as `[Scrubbed due to 'session']`: not one
            continue
        key = c.tool + json.dumps(c.args, sort_keys=True, default=str)
        seen[key] = seen.get(key, 0) + 1
        tool_policy = policy.tools.get(c.tool)
        limit = (tool_policy.max_identical_calls if tool_policy else None) or policy.max_identical_calls
        if limit is not None and seen[key] > limit:
            c.fail(
                SubMetric.STRUCTURAL,
                FailureReason.DUPLICATE_CALL,
                c.tool,
                f"{c.tool} called {seen[key]} times with the same arguments (limit {limit})",
                Mismatch("tool", None, c.tool, "structure"),
            )


def _ordering(calls: list[_Call], policy: Policy) -> None:
    for rule in policy.ordering:
        done = False
        for c in calls:
            if c.tool == rule.before:
                done = True
            elif c.tool == rule.after and not done:
                c.fail(
                    SubMetric.STRUCTURAL,
                    FailureReason.PLANNING_ERROR,
                    c.tool,
                    f"{rule.after} called before {rule.before}",
                    Mismatch("order", rule.before, c.tool, "structure"),
                )


def _state(calls: list[_Call], policy: Policy, grounded: Grounded) -> list[str]:
    """State fields whose value changed to one neither the user nor a tool result gave (grounding's
    provenance of that argument decides)."""
    drifting: set[str] = set()
    for name in policy.state_fields:
        previous: tuple[int, Any] | None = None
        for c in calls:
            if name not in c.args or c.args[name] in (None, "") or holds_mask(c.args[name]):
                continue  # absent, empty, or redacted before export: nothing to compare
            value = c.args[name]
            if previous is not None and str(value) != str(previous[1]):
                origin = next((p for p in grounded.provenance.get(c.turn_no, ()) if p.path == name), None)
                given = origin is not None and origin.grounded and origin.source in ("user", "tool_result")
                if not given:
                    drifting.add(name)
                    c.fail(
                        SubMetric.TRUTHFULNESS,
                        FailureReason.STATE_DRIFT,
                        name,
                        f"{name} changed from {previous[1]!r} to {value!r}, a value neither the user nor a "
                        "tool result gave",
                        Mismatch(name, previous[1], value, "value"),
                    )
            previous = (c.turn_no, value)
    return sorted(drifting)


def _recovery(
    calls: list[_Call], turns: Sequence[DialogTurn], policy: Policy, grounded: Grounded
) -> RecoveryStats:
    """Each failed call's outcome (`score/recovery`), against what `after_tool_error` expects."""
    exchange_of = exchanges(turns)
    errors = {c.turn_no: c.error for c in calls}
    tries = attempts(turns, errors, exchange_of, _declared(policy))
    read_only = _read_only(policy)
    retries = recoveries(tries, read_only)
    call_of = {c.turn_no: c for c in calls}
    faults = recovered = escalated = false_rec = unrecovered = 0
    steps: list[int] = []
    for i, c in enumerate(calls):
        if not c.error:
            continue
        faults += 1
        retry = retries.get(i)
        later = [
            t
            for t in turns
            if t.turn_no > c.turn_no and t.turn != "User" and exchange_of[t.turn_no] == exchange_of[c.turn_no]
        ]
        recovering = tries[i + retry].turn_no if retry is not None else None
        window = [t for t in later if recovering is None or t.turn_no < recovering]
        invented = [
            t.turn_no for t in window if t.turn_no in call_of and _ungrounded_failure(grounded, t.turn_no)
        ]
        nxt = next(
            (t for t in later if not (t.turn_no in call_of and call_of[t.turn_no].tool in read_only)), None
        )
        if invented:
            outcome, false_rec = "false recovery", false_rec + 1
        elif retry is not None:
            outcome, recovered = "retry", recovered + 1
            steps.append(retry)
        elif nxt is None:
            outcome = "stop"
        elif nxt.turn_no not in call_of:
            outcome, escalated = "ask_user", escalated + 1
        else:
            outcome = "continued"
        ok = {
            "retry": {"retry"},
            "ask_user": {"ask_user"},
            "stop": {"stop", "ask_user"},
            "any": {"retry", "ask_user", "stop", "continued"},
        }[policy.after_tool_error]
        if outcome not in ok:
            unrecovered += 1
            why = (
                f"turn {invented[0]} went on with a value nothing stated (false recovery)"
                if outcome == "false recovery"
                else f"the policy expects '{policy.after_tool_error}' after a tool error, the agent did '{outcome}'"
            )
            c.fail(
                SubMetric.STRUCTURAL,
                FailureReason.TOOL_EXECUTION_ERROR,
                c.tool,
                f"{c.tool} failed ({c.error}) and was not recovered: {why}",
                Mismatch("error", None, c.error, "structure"),
            )
    return RecoveryStats(
        faults=faults,
        recovered=recovered,
        escalated=escalated,
        false_recoveries=false_rec,
        unrecovered=unrecovered,
        recovery_success_rate=round((recovered + escalated) / faults, 4) if faults else None,
        mean_recovery_steps=round(sum(steps) / len(steps), 4) if steps else None,
        escalation_rate=round(escalated / faults, 4) if faults else None,
    )


def _declared(policy: Policy) -> set[str]:
    """The tools a policy names: `allowed_tools` and those it says something of."""
    return set(policy.allowed_tools or ()) | set(policy.tools)


def _read_only(policy: Policy) -> frozenset[str]:
    return frozenset(name for name, tp in policy.tools.items() if tp.read_only)


def _ungrounded_failure(grounded: Grounded, turn: int) -> bool:
    """A call grounding failed (not exempt, not merely uncertain): the mark of a false recovery."""
    return any(r == FailureReason.UNGROUNDED_PARAMETER_VALUE for r, *_ in grounded.problems.get(turn, ()))


def _conditions(
    calls: list[_Call], replies: list[DialogTurn], policy: Policy
) -> dict[int, dict[SubMetric, list[Any]]]:
    problems: dict[int, dict[SubMetric, list[Any]]] = {}
    if not policy.conditions:
        return problems
    import celpy.adapter

    for rule in policy.conditions:
        _, program, nodes = compiled_condition(rule.if_)
        for c in calls:
            if c.tool != rule.when_tool or not isinstance(c.result, dict):
                continue
            cost = nodes * (_json_values(c.result) + _json_values(c.args))
            if (
                cost > MAX_CONDITION_COST
            ):  # raised: the runtime counts it and reports the conversation unscored
                raise ValueError(
                    f"policy condition {rule.name!r} over its evaluation budget on turn {c.turn_no} "
                    f"(cost {cost} > {MAX_CONDITION_COST}: {nodes} parse nodes x the call's JSON values)"
                )
            try:
                triggered = bool(
                    program.evaluate(
                        {
                            "result": celpy.adapter.json_to_cel(c.result),
                            "args": celpy.adapter.json_to_cel(c.args),
                        }
                    )
                )
            except Exception:  # a result without the fields the rule reads does not trigger it
                continue
            if not triggered:
                continue
            followed = any(
                d.tool == rule.then_tool
                and d.turn_no > c.turn_no
                and all(str(d.args.get(k)) == str(v) for k, v in rule.with_args.items())
                for d in calls
            )
            if followed:
                continue
            reply = next((r for r in replies if r.turn_no > c.turn_no), None)
            wanted = rule.then_tool + (f" with {rule.with_args}" if rule.with_args else "")
            detail = (
                f"rule {rule.name}: {rule.when_tool} returned a result where `{rule.if_}` holds, "
                f"so {wanted} must follow; it did not"
            )
            problem = (
                FailureReason.POLICY_VIOLATION,
                rule.name,
                detail,
                Mismatch(rule.name, wanted, None, "structure"),
            )
            if reply is not None:
                problems.setdefault(reply.turn_no, {}).setdefault(SubMetric.COMPLETENESS, []).append(problem)
            else:
                c.fail(SubMetric.COMPLETENESS, *problem)
    return problems


def _required(calls: list[_Call], users: list[DialogTurn], policy: Policy) -> list[str]:
    needed = list(policy.required_tools)
    said = " ".join(u.predict_turn.response for u in users if isinstance(u.predict_turn, ResponseContent))
    for task in policy.task_types:
        if re.search(task.when_user_says, said):
            needed += task.required_tools
    used = {c.tool for c in calls}
    return [t for t in dict.fromkeys(needed) if t not in used]


def _score(
    problems: dict[SubMetric, list[tuple[FailureReason, str, str, Mismatch]]],
    comparisons: Sequence[Comparison] = (),
) -> TurnScore:
    checks = []
    mismatches: list[Mismatch] = []
    for sub in (SubMetric.STRUCTURAL, SubMetric.COMPLETENESS, SubMetric.TRUTHFULNESS):
        found = problems.get(sub, [])
        if found:
            checks.append(
                Check(
                    sub_metric=sub,
                    passed=False,
                    failure_reason=found[0][0],
                    fields=tuple(dict.fromkeys(f for _, f, _, _ in found)),
                    detail="; ".join(d for _, _, d, _ in found),
                )
            )
            mismatches += [m for *_, m in found]
        else:
            checks.append(Check(sub_metric=sub, passed=True, score=1.0))
    return finish_checks(tuple(checks), tuple(comparisons), tuple(mismatches), reference="policy")


def _metrics(
    policy: Policy,
    calls: list[_Call],
    drifting: list[str],
    missing: list[str],
    recovery: RecoveryStats,
    strict: bool,
    loose: bool,
) -> ProcessMetrics:
    n = len(calls)

    def rate(predicate: Any) -> float | None:
        return round(sum(1 for c in calls if predicate(c)) / n, 4) if n else None

    def has(c: _Call, reason: FailureReason) -> bool:
        return any(r == reason for found in c.problems.values() for r, *_ in found)

    invalid = rate(
        lambda c: has(c, FailureReason.INVALID_PARAMETER_VALUES) or has(c, FailureReason.MISSING_PARAMETERS)
    )
    fields_checked = len(policy.state_fields) or 1
    return ProcessMetrics(
        policy=policy.agent,
        tool_calls=n,
        tool_selection_accuracy=rate(lambda c: not has(c, FailureReason.TOOL_MISMATCH)),
        parameter_completeness_rate=rate(lambda c: not has(c, FailureReason.MISSING_PARAMETERS)),
        parameter_validity_rate=None if invalid is None else round(1 - invalid, 4),
        tool_call_success_rate=rate(lambda c: not c.error),
        invalid_call_rate=invalid,
        duplicate_call_rate=rate(lambda c: has(c, FailureReason.DUPLICATE_CALL)),
        state_consistency_score=round(1 - len(drifting) / fields_checked, 4) if policy.state_fields else None,
        drifting_fields=tuple(drifting),
        missing_required_tools=tuple(missing),
        unexpected_tools=tuple(sorted({c.tool for c in calls if has(c, FailureReason.TOOL_MISMATCH)})),
        recovery=recovery,
        strict_success=strict,
        loose_success=loose,
    )


def _json_values(value: Any) -> int:
    """How many JSON values `value` holds (itself included): what a condition may touch."""
    if isinstance(value, dict):
        return 1 + sum(_json_values(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_json_values(v) for v in value)
    return 1
