"""How live turns meet gold turns, as a user sees it in the reports of `replay` and `score`.

- Exchanges: where the gold has user turns, a call is aligned only within its user turn, and a user turn
  after which gold expects no call (the agent must ask) is scored: a call there fails, an answer passes.
- The golden-format additions: per-argument `compare`, `optional` gold turns, `allowed_extra_tools`,
  turns with a `predict_turn` and no `gold_turn` — the same rules in `score` as in `replay`.
- Nested objects: keys beyond gold's are detail unless the tool schema forbids them.

Live traffic is made from OpenAI-style chat messages by the converter `bench/taubench.py` uses (real
GenAI span shape: one trace per user message, model and tool spans).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.taubench import export_request, live_conversation
from monitor.cli import main

TOOLS_RO = ["ls"]


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _call(call_id: str, name: str, args: dict[str, Any], result: Any) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]},
        {"role": "tool", "tool_call_id": call_id, "name": name, "content": json.dumps(result)},
    ]  # fmt: skip


def _replay(tmp_path: Path, traj: list[dict[str, Any]], gold: dict[str, Any] | None) -> dict[str, Any]:
    """One τ-bench-shaped run replayed with the real CLI, against `gold` (None: no gold, the built-in
    policy)."""
    run = {"task_id": 900, "trial": 0, "traj": [{"role": "system", "content": "policy"}, *traj]}
    conv = live_conversation(run)
    (tmp_path / "traffic").mkdir()
    (tmp_path / "traffic" / "run.pb").write_bytes(
        export_request(conv, 1_715_000_000 * 10**9, 0).SerializeToString()
    )
    out = tmp_path / "reports.jsonl"
    args = ["replay", str(tmp_path / "traffic"), "--out", str(out)]
    if gold is not None:
        (tmp_path / "gold.json").write_text(json.dumps({"dialog_id": "tau-airline-900", **gold}))
        args += ["--gold", str(tmp_path / "gold.json")]
    assert main(args) == 0
    reports: list[dict[str, Any]] = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(reports) == 1, "one conversation, reported once"
    return reports[0]


FILES_GOLD = {
    "turns": [
        {"turn_no": 1, "turn": "User", "gold_turn": {"response": "Create a folder named reports."}},
        {"turn_no": 2, "turn": "Tool", "gold_turn": {"tool_id": "mkdir", "action": "mkdir", "args": {"dir_name": "reports"}}},
        {"turn_no": 3, "turn": "User", "gold_turn": {"response": "Now move my spreadsheet into it."}},
        {"turn_no": 4, "turn": "User", "gold_turn": {"response": "It is q3.csv."}},
        {"turn_no": 5, "turn": "Tool", "gold_turn": {"tool_id": "mv", "action": "mv",
                                                     "args": {"source": "q3.csv", "destination": "reports"}}},
    ],
    "metadata": {"read_only_tools": TOOLS_RO},
}  # fmt: skip


def test_asking_where_gold_expects_no_call_passes(tmp_path: Path) -> None:
    traj = [
        _user("Create a folder named reports."),
        *_call("c1", "mkdir", {"dir_name": "reports"}, {"ok": True}),
        _reply("Created the folder reports."),
        _user("Now move my spreadsheet into it."),
        *_call("c2", "ls", {}, ["q3.csv", "q4.csv"]),
        _reply("There are two spreadsheets, q3.csv and q4.csv. Which one should I move?"),
        _user("It is q3.csv."),
        *_call("c3", "mv", {"source": "q3.csv", "destination": "reports"}, {"ok": True}),
        _reply("Moved q3.csv into reports."),
    ]
    report = _replay(tmp_path, traj, FILES_GOLD)
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    asked = [m for m in report["matching"] if m["how"] == "no_call_expected"]
    assert len(asked) == 1 and asked[0]["gold_turn_no"] == 3  # the user turn that expects no call
    row = next(t for t in report["turns"] if t["turn_no"] == asked[0]["turn_no"])
    assert row["success"] and "Which one" in row["predicted"]["response"]


def test_a_call_made_one_user_turn_early_fails_there(tmp_path: Path) -> None:
    traj = [
        _user("Create a folder named reports."),
        *_call("c1", "mkdir", {"dir_name": "reports"}, {"ok": True}),
        _reply("Created the folder reports."),
        _user("Now move my spreadsheet into it."),
        *_call("c2", "mv", {"source": "q3.csv", "destination": "reports"}, {"ok": True}),  # a guess
        _reply("Moved q3.csv into reports."),
        _user("It is q3.csv."),
        _reply("Already done!"),
    ]
    report = _replay(tmp_path, traj, FILES_GOLD)
    failed = {t["failure_reason"] for t in report["turns"] if not t["success"]}
    assert not report["test_pass"]
    assert failed == {"unexpected_action", "missing_action"}
    early = next(t for t in report["turns"] if t["failure_reason"] == "unexpected_action")
    assert early["predicted"]["tool_id"] == "mv"


def _score(tmp_path: Path, *dialogs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    path = tmp_path / "dialogs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in dialogs))
    out = tmp_path / "report.json"
    assert main(["score", str(path), "--out", str(out), "--no-progress"]) == 0
    return {d["dialog_id"]: d for d in json.loads(out.read_text())["dialogs"]}


def _action(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool_id": tool, "action": tool, "args": args}


def _turn(no: int, gold: dict[str, Any] | None, pred: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    turn: dict[str, Any] = {"turn_no": no, "turn": "Tool" if (gold or pred or {}).get("tool_id") else "Agent"}
    if gold is not None:
        turn["gold_turn"] = gold
    if pred is not None:
        turn["predict_turn"] = pred
    return {**turn, **extra}


def test_per_argument_compare(tmp_path: Path) -> None:
    post = ("post", "#BusinessOnTheMove", "Booked HAT136 for May 20.")
    gold = _action(post[0], channel=post[1], text=post[2])
    said = _action("post", channel="BusinessOnTheMove", text="All set, your trip is booked!")
    reports = _score(
        tmp_path,
        {"dialog_id": "ladder", "turns": [_turn(1, gold, said)]},
        {"dialog_id": "exact", "turns": [_turn(1, gold, said, compare={"channel": "exact", "text": "ignore"})]},
        {"dialog_id": "ignored", "turns": [_turn(1, gold, _action("post", channel=post[1]), compare={"text": "ignore"})]},
        {"dialog_id": "by-tool", "turns": [_turn(1, gold, _action("post", channel=post[1]))],
         "metadata": {"compare": {"post": {"text": "ignore"}}}},
        {"dialog_id": "semantic", "turns": [_turn(1, _action("note", text="urgent"), _action("note", text="high priority"),
                                                  compare={"text": "semantic"})]},
    )  # fmt: skip
    ladder = reports["ladder"]["turns"][0]
    assert ladder["failure_reason"] == "inconsistent_parameter_values" and ladder["fields"] == ["text"]
    exact = reports["exact"]["turns"][0]
    assert exact["failure_reason"] == "inconsistent_parameter_values" and exact["fields"] == ["channel"]
    assert reports["ignored"]["test_pass"] and reports["by-tool"]["test_pass"]
    assert reports["semantic"]["turns"][0]["comparisons"][0]["kind"] == "text"


def test_optional_turns_and_calls_nothing_asked_for(tmp_path: Path) -> None:
    lookup = _action("get_order", order_id="A123")
    cancel = _action("cancel_order", order_id="A123")
    meta = {"read_only_tools": ["get_order"], "allowed_extra_tools": ["transfer_to_human"]}
    reports = _score(
        tmp_path,
        {"dialog_id": "skipped", "metadata": meta, "turns": [
            _turn(1, lookup, None, optional=True), _turn(2, cancel, cancel)]},
        {"dialog_id": "made-wrong", "metadata": meta, "turns": [
            _turn(1, lookup, _action("get_order", order_id="A124"), optional=True), _turn(2, cancel, cancel)]},
        {"dialog_id": "extras", "metadata": meta, "turns": [
            _turn(1, None, _action("get_order", order_id="B9")),
            _turn(2, None, _action("transfer_to_human", summary="wants a refund")),
            _turn(3, None, {"response": "Let me check that order for you."}),
            _turn(4, cancel, cancel)]},
        {"dialog_id": "unasked-write", "metadata": meta, "turns": [
            _turn(1, None, _action("refund_order", order_id="A123")), _turn(2, cancel, cancel)]},
    )  # fmt: skip
    skipped = reports["skipped"]
    assert skipped["test_pass"] and [m["how"] for m in skipped["matching"]] == [
        "optional_not_made",
        "aligned",
    ]
    assert reports["made-wrong"]["root_cause"] == "inconsistent_parameter_values"
    extras = reports["extras"]
    assert extras["test_pass"] and len(extras["turns"]) == 1
    assert [u["why"] for u in extras["unmatched"]] == ["read_only", "allowed_extra", "reply_without_gold"]
    unasked = reports["unasked-write"]
    assert unasked["root_cause"] == "unexpected_action" and unasked["first_failure_turn"] == 1


def test_nested_keys_beyond_gold_are_detail_unless_the_schema_forbids_them(tmp_path: Path) -> None:
    gold = _action("book", flights=[{"flight_number": "HAT136", "date": "2024-05-20"}])
    said = _action("book", flights=[{"flight_number": "HAT136", "date": "2024-05-20", "origin": "JFK"}])
    closed = {"book": {"type": "object", "properties": {"flights": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "properties": {"flight_number": {"type": "string"}, "date": {"type": "string"}}}}}}}  # fmt: skip
    reports = _score(
        tmp_path,
        {"dialog_id": "open", "turns": [_turn(1, gold, said)]},
        {"dialog_id": "closed", "turns": [_turn(1, gold, said)], "metadata": {"tool_schemas": closed}},
        {
            "dialog_id": "top-level",
            "turns": [_turn(1, gold, {**said, "args": {**gold["args"], "insurance": "no"}})],
        },
    )
    assert reports["open"]["test_pass"]
    assert reports["closed"]["root_cause"] == "inconsistent_parameter_values"
    assert reports["top-level"]["root_cause"] == "extra_parameters"


def test_the_docs_reference_example(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text()
    start = readme.index('{"dialog_id": "cancel-a123"')
    gold = json.loads(readme[start : readme.index("```", start)])
    gold.pop("dialog_id")
    traj = [
        _user("Please cancel order A123."),
        *_call("c1", "cancel_order", {"order_id": "A123", "note": "the customer has changed their mind"}, {}),
        _reply("Order A123 is cancelled."),
        *_call("c2", "transfer_to_human", {"summary": "asked for a refund"}, {}),
    ]
    report = _replay(tmp_path, traj, gold)
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    assert [m["how"] for m in report["matching"]] == ["optional_not_made", "aligned", "aligned"]
    assert {u["why"] for u in report["unmatched"]} == {"allowed_extra"}


def test_an_argument_at_its_schema_default_is_the_same_call(tmp_path: Path) -> None:
    schema = {"ls": {"type": "object", "properties": {"path": {"type": "string", "default": "."},
                                                      "a": {"type": "boolean", "default": False}}}}  # fmt: skip
    meta = {"tool_schemas": schema}
    reports = _score(
        tmp_path,
        {
            "dialog_id": "spelled-out",
            "metadata": meta,
            "turns": [_turn(1, _action("ls"), _action("ls", a=False))],
        },
        {
            "dialog_id": "left-out",
            "metadata": meta,
            "turns": [_turn(1, _action("ls", path="."), _action("ls"))],
        },
        {
            "dialog_id": "not-default",
            "metadata": meta,
            "turns": [_turn(1, _action("ls"), _action("ls", a=True))],
        },
    )
    assert reports["spelled-out"]["test_pass"] and reports["left-out"]["test_pass"]
    assert reports["not-default"]["root_cause"] == "extra_parameters"


def test_a_failed_guess_where_gold_expects_no_call_is_not_forgiven_by_a_later_retry(tmp_path: Path) -> None:
    traj = [
        _user("Create a folder named reports."),
        *_call("c1", "mkdir", {"dir_name": "reports"}, {"ok": True}),
        _user("Now move my spreadsheet into it."),
        *_call("c2", "mv", {"source": "sheet.csv", "destination": "reports"}, {"error": "No such file"}),
        _reply("I could not find it; what is it called?"),
        _user("It is q3.csv."),
        *_call("c3", "mv", {"source": "q3.csv", "destination": "reports"}, {"ok": True}),
        _reply("Moved q3.csv into reports."),
    ]
    report = _replay(tmp_path, traj, FILES_GOLD)
    assert not report["test_pass"] and report["recovery"]["recovered"] == 0
    guess = next(t for t in report["turns"] if not t["success"])
    assert guess["predicted"]["args"]["source"] == "sheet.csv"
    assert {"gold_turn_no": 3, "how": "no_call_expected"}.items() <= next(
        m for m in report["matching"] if m["turn_no"] == guess["turn_no"]
    ).items()


@pytest.mark.parametrize(
    "result",
    [
        {"success": False, "error_code": "SLOT_UNAVAILABLE", "message": "该时段已被预约"},
        {"error": "insufficient_capacity", "spaces_available": 1, "message": "Only 1 space left"},
        {"ok": False, "reason": "lesson is locked"},
        {"error": True, "message": "Slot unavailable", "request_id": "r-1"},
        {"error": {"code": "SLOT_TAKEN", "message": "taken"}, "request_id": "r-2"},
        {"success": "false", "error": "Slot unavailable"},
    ],
)
def test_a_result_that_says_its_call_failed_leaves_the_done_claim_unsupported(
    tmp_path: Path, result: dict[str, Any]
) -> None:
    """Grounding blind sets 4-28: a tool that answers a failed change in its result (`"success": false`,
    an error code beside its context) rather than as an error-only object was taken to have succeeded, so
    `I've moved your lesson` after it passed. Its call fails now, and the claim is unsupported."""
    traj = [
        _user("Please move lesson L-88 to Sunday at 16:00."),
        *_call("c1", "reschedule_lesson", {"lesson_id": "L-88", "day": "Sunday", "time": "16:00"}, result),
        _reply("Done: I've moved your lesson to Sunday at 16:00."),
    ]
    report = _replay(tmp_path, traj, None)
    assert report["tool_errors"] == 1
    assert report["root_cause"] == "unsupported_claim"


@pytest.mark.parametrize(
    "result",
    [
        {"success": True, "error": None, "lesson_id": "L-88", "day": "Sunday", "time": "16:00"},
        {"lesson_id": "L-88", "day": "Sunday", "time": "16:00", "status": "failed_before_moved", "error": ""},
        {"lesson_id": "L-88", "day": "Sunday", "time": "16:00", "error": "ERROR_CODE_UNSPECIFIED"},
        {"ok": True, "lesson_id": "L-88", "error": "SLOT_TAKEN_BEFORE"},
        {"lesson_id": "L-88", "day": "Sunday", "time": "16:00", "status": "failed_over_to_backup"},
        {"lesson_id": "L-88", "day": "Sunday", "time": "16:00", "error": "Piano out of tune (reported)"},
        {"lesson_id": "L-88", "day": "Sunday", "time": "16:00", "error": "E42"},
    ],
)
def test_a_result_that_holds_an_error_field_but_no_failure_is_a_success(
    tmp_path: Path, result: dict[str, Any]
) -> None:
    """`success: true`, an `error` that says there is none, or one that is text or a fault code a record
    holds (a ticket's `"error": "Connection timed out"`, a device's `E42`), and any `status`: the call
    succeeded (review: `create_ticket` recording the user's error text had become a failed call)."""
    traj = [
        _user("Please move lesson L-88 to Sunday at 16:00."),
        *_call("c1", "reschedule_lesson", {"lesson_id": "L-88", "day": "Sunday", "time": "16:00"}, result),
        _reply("Done: I've moved your lesson to Sunday at 16:00."),
    ]
    report = _replay(tmp_path, traj, None)
    assert (report["tool_errors"], report["test_pass"]) == (0, True)


@pytest.mark.parametrize("lookup", ["get_payment", "payment_status"])
def test_a_lookups_record_of_a_failed_thing_is_what_it_read_not_a_failed_call(
    tmp_path: Path, lookup: str
) -> None:
    """Review of the rule above: `get_payment` found a declined payment (`"status": "failed", "error":
    "card_declined"`), then the agent charged the card again. The lookup succeeded — the record is what it
    read — so against gold it is no `tool_execution_error`, and without gold its values are evidence."""
    payment = {
        "payment_id": "pay_881",
        "amount": 49.99,
        "status": "failed",
        "error": "card_declined",
        "ok": False,
    }
    traj = [
        _user("My payment pay_881 failed, can you retry it?"),
        *_call("c1", lookup, {"payment_id": "pay_881"}, payment),
        *_call("c2", "retry_payment", {"payment_id": "pay_881", "amount": 49.99}, {"status": "succeeded"}),
        _reply("The $49.99 payment pay_881 had been declined; I've retried it and it went through."),
    ]
    gold = {"turns": [
        {"turn_no": 1, "turn": "Tool", "gold_turn": {"tool_id": lookup, "action": lookup,
                                                      "args": {"payment_id": "pay_881"}}},
        {"turn_no": 2, "turn": "Tool", "gold_turn": {"tool_id": "retry_payment", "action": "retry_payment",
                                                      "args": {"payment_id": "pay_881", "amount": 49.99}}},
    ]}  # fmt: skip
    (tmp_path / "gold").mkdir()
    with_gold = _replay(tmp_path / "gold", traj, gold)
    assert (with_gold["tool_errors"], with_gold["test_pass"]) == (0, True)
    (tmp_path / "none").mkdir()
    without = _replay(tmp_path / "none", traj, None)
    assert (without["tool_errors"], without["test_pass"]) == (0, True)


def test_a_user_turn_nothing_answered_does_not_swallow_the_gold_reply(tmp_path: Path) -> None:
    gold = {"turns": [
        {"turn_no": 1, "turn": "User", "gold_turn": {"response": "Where is order 4411?"}},
        {"turn_no": 2, "turn": "User", "gold_turn": {"response": "Please hurry."}},
        {"turn_no": 3, "turn": "Agent", "gold_turn": {"response": "Order 4411 arrives on Friday."}},
    ]}  # fmt: skip
    report = _replay(
        tmp_path, [_user("Where is order 4411?"), _reply("Sorry, I cannot help with that.")], gold
    )
    assert not report["test_pass"]
    assert [(m["gold_turn_no"], m["how"]) for m in report["matching"]] == [(3, "aligned")]


def test_one_reply_may_state_several_gold_facts(tmp_path: Path) -> None:
    gold = {"turns": [
        {"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "4"}},
        {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "23553"}},
    ]}  # fmt: skip
    traj = [
        _user("How many bags, and what is the total?"),
        _reply("You can take 4 free bags and the total is $23,553."),
        _user("Thanks."),
        _reply("Anything else?"),
    ]
    report = _replay(tmp_path, traj, gold)
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    assert {t["predicted"]["response"] for t in report["turns"]} == {traj[1]["content"]}


def test_an_optional_turn_inside_an_order_invariant_group(tmp_path: Path) -> None:
    lookup, cancel = _action("get_order", order_id="A1"), _action("cancel_order", order_id="A1")
    group = ["OrderInvariant_g"]
    reports = _score(
        tmp_path,
        {"dialog_id": "oi", "turns": [
            _turn(1, lookup, cancel, optional=True, tags=group), _turn(2, cancel, None, tags=group)]},
    )  # fmt: skip
    report = reports["oi"]
    assert report["test_pass"]
    assert sorted(m["how"] for m in report["matching"]) == ["optional_not_made", "order_invariant"]


def test_an_empty_gold_object_matches_only_an_empty_one(tmp_path: Path) -> None:
    gold = _action("search", filters={})
    reports = _score(
        tmp_path,
        {"dialog_id": "empty", "turns": [_turn(1, gold, _action("search", filters={}))]},
        {
            "dialog_id": "filled",
            "turns": [_turn(1, gold, _action("search", filters={"status": "cancelled"}))],
        },
    )
    assert reports["empty"]["test_pass"]
    assert reports["filled"]["root_cause"] == "inconsistent_parameter_values"


def test_a_misspelt_compare_mode_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.json"
    dialog = {"dialog_id": "d", "metadata": {"compare": {"post": {"text": "exakt"}}},
              "turns": [_turn(1, _action("post", text="a"), _action("post", text="a"))]}  # fmt: skip
    path.write_text(json.dumps(dialog))
    assert main(["score", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "metadata.compare.post.text" in err and "'exakt'" in err and "Traceback" not in err
