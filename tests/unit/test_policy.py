"""Reference policies: scoring live traffic that has no gold dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from monitor.compare.ladder import Ladder
from monitor.errors import ConfigError
from monitor.model import ActionContent, Dialog, DialogReport, DialogTurn, FailureReason, ResponseContent
from monitor.reference.policy import Policy, ToolPolicy, load_policies
from monitor.score.dialog import score_dialog
from monitor.score.policy import check_policy

ROOT = Path(__file__).resolve().parents[2]
LOGISTICS = load_policies(ROOT / "examples" / "policies" / "logistics.yaml")["logistics-agent"]


def user(text: str) -> tuple[str, Any]:
    return ("User", text)


def reply(text: str) -> tuple[str, Any]:
    return ("Agent", text)


def call(tool: str, args: dict[str, Any], result: Any = None, error: str | None = None) -> tuple[str, Any]:
    return ("Tool", (tool, args, result, error))


def run(
    ladder: Ladder,
    steps: list[tuple[str, Any]],
    policy: Policy = LOGISTICS,
    span_schemas: dict[str, Any] | None = None,
) -> Any:
    turns, errors = [], {}
    for i, (role, what) in enumerate(steps, start=1):
        if role == "Tool":
            tool, args, result, error = what
            content: Any = ActionContent(tool_id=tool, action=tool, args=args, result=result)
            errors[i] = error
        else:
            content = ResponseContent(response=what)
        turns.append(DialogTurn(turn_no=i, turn=role, predict_turn=content))
    outcome = check_policy(turns, errors, policy, span_schemas or {})
    dialog = Dialog(dialog_id="c", turns=(*turns, *outcome.extra_rows))
    report = score_dialog(dialog, ladder, policy_scores=outcome.scores)
    return report, outcome.metrics


def reason_of(report: DialogReport, turn_no: int) -> FailureReason | None:
    return next(t.failure_reason for t in report.turns if t.turn_no == turn_no)


def test_practice_post_logistics_example(ladder: Ladder) -> None:
    """A 4-day delay requires an urge-delivery ticket; a fluent reply without it still fails."""
    base = [
        user("Where is my order A123? If it's more than 3 days late, chase it."),
        call("query_order_logistics", {"order_id": "A123"}, {"delay_days": 4, "status": "delayed"}),
    ]
    good, metrics = run(
        ladder,
        [
            *base,
            call("create_ticket", {"type": "urge_delivery", "order_id": "A123"}, {"ticket_id": "T9008"}),
            reply("Order A123 is 4 days late; I opened ticket T9008."),
        ],
    )
    assert good.test_pass and metrics.strict_success and metrics.loose_success
    bad, metrics = run(ladder, [*base, reply("Order A123 is 4 days late; I've chased it for you.")])
    assert reason_of(bad, 3) is FailureReason.POLICY_VIOLATION and not bad.test_pass
    assert "ticket_if_delayed" in next(t.detail for t in bad.turns if t.turn_no == 3)
    assert not metrics.strict_success and not metrics.loose_success
    on_time, _ = run(
        ladder,
        [
            user("Where is A123?"),
            call("query_order_logistics", {"order_id": "A123"}, {"delay_days": 1}),
            reply("It arrives tomorrow."),
        ],
    )
    assert on_time.test_pass and all(t.reference == "policy" for t in on_time.turns)


@pytest.mark.parametrize(
    ("steps", "turn", "reason"),
    [
        ([call("delete_everything", {})], 1, FailureReason.TOOL_MISMATCH),
        ([call("query_order_logistics", {})], 1, FailureReason.MISSING_PARAMETERS),
        ([call("query_order_logistics", {"order_id": "a-123"})], 1, FailureReason.INVALID_PARAMETER_VALUES),
        (
            [
                call("query_order_logistics", {"order_id": "A1"}),
                call("create_ticket", {"type": "hurry", "order_id": "A1"}),
            ],
            2,
            FailureReason.INVALID_PARAMETER_VALUES,
        ),
        (
            [
                call("query_order_logistics", {"order_id": "A1"}),
                call("create_ticket", {"type": "refund", "order_id": "A1", "priority": 9}),
            ],
            2,
            FailureReason.INVALID_PARAMETER_VALUES,
        ),
        (
            [
                call("create_ticket", {"type": "refund", "order_id": "A1"}),
                call("query_order_logistics", {"order_id": "A1"}),
            ],
            1,
            FailureReason.PLANNING_ERROR,
        ),
        (
            [
                call("query_order_logistics", {"order_id": "A1"}),
                call("query_order_logistics", {"order_id": "A1"}),
            ],
            2,
            FailureReason.DUPLICATE_CALL,
        ),
        (
            [
                user("order A1 please"),
                call("query_order_logistics", {"order_id": "A1"}),
                call("create_ticket", {"type": "refund", "order_id": "B2"}),
            ],
            3,
            FailureReason.STATE_DRIFT,
        ),
        (
            [
                call("query_order_logistics", {"order_id": "A1"}, error="timeout"),
                call("create_ticket", {"type": "refund", "order_id": "A1"}),
            ],
            1,
            FailureReason.TOOL_EXECUTION_ERROR,
        ),
        (
            [
                user("I want a refund for A1"),
                call("query_order_logistics", {"order_id": "A1"}),
                reply("Done."),
            ],
            4,
            FailureReason.MISSING_ACTION,
        ),
        ([user("hello"), reply("Hi!")], 3, FailureReason.MISSING_ACTION),
    ],
    ids=[
        "disallowed",
        "missing-key",
        "pattern",
        "enum",
        "range",
        "order",
        "duplicate",
        "drift",
        "false-recovery",
        "task-type",
        "required",
    ],
)
def test_each_rule_fails(
    ladder: Ladder, steps: list[tuple[str, Any]], turn: int, reason: FailureReason
) -> None:
    report, _ = run(ladder, steps)
    assert reason_of(report, turn) is reason, [(t.turn_no, t.failure_reason, t.detail) for t in report.turns]


def test_each_rule_passes_when_followed(ladder: Ladder) -> None:
    report, metrics = run(
        ladder,
        [
            user("Order A1 is late, I want a refund"),
            call("query_order_logistics", {"order_id": "A1"}, error="timeout"),
            call(
                "query_order_logistics", {"order_id": "A1"}, {"delay_days": 2}
            ),  # the retry the policy expects
            user("Actually it is order B2"),
            call(
                "query_order_logistics", {"order_id": "B2"}, {"delay_days": 0}
            ),  # the user changed the order id
            call("create_ticket", {"type": "refund", "order_id": "B2", "priority": 2}, {"ticket_id": "T1"}),
            reply("Refund ticket T1 opened for B2."),
        ],
    )
    assert report.test_pass, [(t.turn_no, t.failure_reason, t.detail) for t in report.turns]
    assert (
        metrics.recovery.faults == 1
        and metrics.recovery.recovered == 1
        and metrics.recovery.mean_recovery_steps == 1
    )
    assert metrics.state_consistency_score == 1.0 and metrics.tool_call_success_rate == 0.75


def test_process_metrics(ladder: Ladder) -> None:
    _, m = run(
        ladder,
        [
            user("where is A1"),
            call("query_order_logistics", {"order_id": "A1"}, {"delay_days": 0}),
            call("query_order_logistics", {"order_id": "A1"}, {"delay_days": 0}),
            call("create_ticket", {"type": "refund"}),
            call("teleport", {}),
            reply("ok"),
        ],
    )
    assert (m.tool_calls, m.tool_selection_accuracy, m.parameter_completeness_rate) == (4, 0.75, 0.75)
    assert (m.duplicate_call_rate, m.invalid_call_rate, m.parameter_validity_rate) == (0.25, 0.25, 0.75)
    assert m.unexpected_tools == ("teleport",) and not m.strict_success and m.loose_success


def test_schemas_from_real_spans(ladder: Ladder) -> None:
    """traceloop recording: the model's tool definitions (gen_ai.tool.definitions) become the schema."""
    from monitor.decode.otlp import decode_request
    from monitor.normalize import normalize_span

    data = (ROOT / "tests/fixtures/otlp/traceloop/correct.000.pb").read_bytes()
    spans = [normalize_span(s) for s in decode_request(data, "application/x-protobuf", "x").spans]
    schemas = {k: v for s in spans for k, v in s.tool_definitions.items()}
    policy = Policy(agent="reports-agent", schemas_from_spans=True)
    report, _ = run(ladder, [call("filter_data", {"metric": "revenue"})], policy, schemas)
    assert reason_of(report, 1) is FailureReason.MISSING_PARAMETERS and "region" in report.turns[0].detail
    ok, _ = run(ladder, [call("filter_data", {"metric": "revenue", "region": "EU"})], policy, schemas)
    assert ok.test_pass


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("policies:\n  - agent: a\n    colour: red\n", [":3:", "colour", "Extra inputs"]),
        (
            "policies:\n  - agent: a\n    tools:\n      t: {schema: {type: objekt}}\n",
            [":4:", "tools.t.schema", "not a valid JSON Schema"],
        ),
        (
            "policies:\n  - agent: a\n    conditions:\n      - {name: c, when_tool: t, then_tool: t, if: 'result.x >'}\n",
            [":4:", "not a valid CEL"],
        ),
        (
            "policies:\n  - agent: a\n    conditions:\n      - {name: c, when_tool: t, then_tool: t,\n"
            "         if: 'result.xs.all(x, result.xs.all(y, x < y))'}\n",
            ["macros", "unbounded"],
        ),
        (  # a comment and a line break between the dot and the macro: the parse tree still shows the call
            "policies:\n  - agent: a\n    conditions:\n      - {name: c, when_tool: t, then_tool: t,\n"
            '         if: "result.xs.// hidden\\n map(result, result.xs).size() > 0"}\n',
            ["macros", "unbounded"],
        ),
        (
            "policies:\n  - agent: a\n    conditions:\n      - {name: c, when_tool: t, then_tool: t, if: 'env.HOME == \"x\"'}\n",
            ["unknown variable", "env"],
        ),
        (
            "policies:\n  - agent: a\n    conditions:\n      - {name: c, when_tool: t, then_tool: t, if: '"
            + " + ".join(["result.x"] * 60)
            + " > 1'}\n",
            ["longer than 500"],
        ),
        ("policies:\n  - agent: a\n  - agent: a\n", ["more than one policy"]),
        ("policies: [", ["not valid YAML"]),
    ],
    ids=[
        "unknown-key",
        "bad-schema",
        "bad-expression",
        "exploding",
        "macro-behind-a-comment",
        "foreign-variable",
        "too-long",
        "duplicate-agent",
        "not-yaml",
    ],
)
def test_bad_policy_files_are_rejected_with_line_and_key(
    tmp_path: Path, text: str, fragments: list[str]
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_policies(path)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)


def test_a_condition_over_its_evaluation_budget_is_refused_not_run(ladder: Ladder) -> None:
    """Cost = parse nodes x the call's JSON values; over the budget, scoring raises and the runtime
    reports the conversation unscored with this reason, as for any scoring fault (test_faults_replay.py)."""
    huge = {"delay_days": 5, "events": list(range(400_000))}
    with pytest.raises(ValueError, match=r"ticket_if_delayed.*over its evaluation budget"):
        run(ladder, [call("query_order_logistics", {"order_id": "A1"}, huge)])


SCRUBBED = "[Scrubbed due to 'session']"  # Logfire's default scrubbing of any key that says session


def _policy_run(ladder: Ladder, policy: Policy, calls: list[dict[str, Any]]) -> Any:
    turns = [
        DialogTurn(
            turn_no=1, turn="User", predict_turn=ResponseContent(response="Close sessions S-1 and S-2.")
        )
    ]
    for i, args in enumerate(calls, start=2):
        turns.append(DialogTurn(turn_no=i, turn="Tool", predict_turn=ActionContent(
            tool_id="close_session", action="close_session", args=args, result={"closed": True})))  # fmt: skip
    outcome = check_policy(turns, {}, policy, {})
    return score_dialog(Dialog(dialog_id="c", turns=tuple(turns)), ladder, policy_scores=outcome.scores)


def test_a_redacted_value_is_not_an_invalid_value_under_the_policy_s_schema(ladder: Ladder) -> None:
    """268e348 makes a redacted value uncertain against gold and unchecked by grounding, but the policy's
    JSON Schema check still validates `[Scrubbed due to 'session']` against the pattern: an alert for a setting of
    the pipeline, the very case the commit set out to remove."""
    schema = {"type": "object", "properties": {"session_id": {"type": "string", "pattern": "^S-[0-9]+$"}}}
    policy = Policy(agent="default", tools={"close_session": ToolPolicy(schema=schema)})
    report = _policy_run(ladder, policy, [{"session_id": SCRUBBED}])
    assert [t.failure_reason for t in report.turns if t.type == "action"] == [None]


def test_two_calls_whose_values_were_redacted_are_not_duplicates(ladder: Ladder) -> None:
    """Two sessions closed, S-1 and S-2, both exported as `[Scrubbed due to 'session']`: nothing says they were
    the same call, yet `duplicate_call` fails the second."""
    policy = Policy(agent="default", max_identical_calls=1)
    report = _policy_run(ladder, policy, [{"session_id": SCRUBBED}, {"session_id": SCRUBBED}])
    assert [t.failure_reason for t in report.turns if t.type == "action"] == [None, None]
