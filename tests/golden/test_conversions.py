"""The same real runs, converted another way, get the same verdicts (issue 27). A verdict rule that holds
on one way of writing the data only is tuned to that data: here the τ-bench slice
(`tests/fixtures/tau-bench/`) is converted into spans twice — OTel GenAI through the load generator's
renderer (`bench.taubench`) and OpenInference through the OpenTelemetry SDK
(`bench.taubench_openinference`: tool errors as span status and `{"error": …}` results) — and its gold is
written twice — by `bench.taubench.gold_dialog` and by `bench.taubench_gold_alt`, written from the docs
alone by someone who had not read the first (with and without the task pasted as a user turn) — with
and without the τ-bench policy attached. Every combination must give every run the same verdict.

The causes the issue measured each have a test here, on the same real runs: free-text arguments,
calls to tools that do not exist, and replies that differ in wording only.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from bench.taubench import READ_ONLY, conversation_id, gold_dialog, reference_id, write_inputs
from bench.taubench_gold_alt import dialog as alt_dialog
from monitor.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tau-bench"
RUNS: list[dict[str, Any]] = json.loads((FIXTURES / "gpt-4o-airline.slice.json").read_text())
TASKS = {int(k): v for k, v in json.loads((FIXTURES / "airline_tasks.slice.json").read_text()).items()}
HANDOFF = json.loads((FIXTURES / "gpt-4o-airline.handoff.json").read_text())
POLICY = Path(__file__).resolve().parents[3] / "shared" / "data" / "tau-bench" / "policy-airline.yaml"
#: the one run the monitor and the benchmark disagree on (bench/taubench_review.json: an agent error the
#: state grade misses)
DISAGREE = {"tau-13-1": False}


def _replay(
    out: Path,
    runs: list[dict[str, Any]],
    *,
    rendering: str = "genai",
    gold: list[dict[str, Any]] | None = None,
    policy: bool = False,
) -> dict[str, dict[str, Any]]:
    traffic, own_gold = write_inputs(runs, TASKS | {38: HANDOFF["task"]}, out, rendering=rendering)
    if gold is not None:
        own_gold.write_text("".join(json.dumps(d) + "\n" for d in gold))
    args = ["replay", str(traffic), "--gold", str(own_gold), "--out", str(out / "reports.jsonl")]
    if policy:
        args += ["--policy", str(POLICY)]
    assert main(args) == 0
    reports = [json.loads(line) for line in (out / "reports.jsonl").read_text().splitlines()]
    by_id = {r["conversation_id"]: r for r in reports}
    assert len(by_id) == len(reports) == len(runs), "one report per run: nothing lost, nothing cut"
    return by_id


def _alt_gold(user_turns: bool) -> list[dict[str, Any]]:
    return [alt_dialog(task_id, task, user_turns) for task_id, task in sorted(TASKS.items())]


VARIANTS: dict[str, dict[str, Any]] = {
    "genai spans, bench gold": {"rendering": "genai"},
    "openinference spans, bench gold": {"rendering": "openinference"},
    "openinference spans, gold from the docs": {"rendering": "openinference", "alt": False},
    "genai spans, gold from the docs with the task as a user turn": {"rendering": "genai", "alt": True},
    "openinference spans, bench gold, policy attached": {"rendering": "openinference", "policy": True},
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_conversion_gives_the_same_verdicts(variant: str, tmp_path: Path) -> None:
    spec: dict[str, Any] = VARIANTS[variant]
    if spec.get("policy") and not POLICY.exists():
        pytest.skip(f"needs {POLICY}")
    gold = _alt_gold(spec["alt"]) if "alt" in spec else None
    reports = _replay(
        tmp_path, RUNS, rendering=spec["rendering"], gold=gold, policy=spec.get("policy", False)
    )
    verdicts = {conversation_id(r): reports[conversation_id(r)]["test_pass"] for r in RUNS}
    disagree = {
        cid: v
        for cid, v in verdicts.items()
        if v != (next(r for r in RUNS if conversation_id(r) == cid)["reward"] >= 1)
    }
    assert disagree == DISAGREE
    failed = [t["failure_reason"] for t in reports["tau-13-1"]["turns"] if not t["success"]]
    assert failed == ["tool_execution_error"], "the refused write, and nothing else, in every conversion"


# -- free text -----------------------------------------------------------------------------------


def _handoff_gold(summary: str) -> list[dict[str, Any]]:
    gold = gold_dialog(38, HANDOFF["task"])
    gold["metadata"]["allowed_extra_tools"] = []  # the hand-off is required here, not an allowed extra
    turns = [t for t in gold["turns"] if t["turn"] != "User"]
    transfer = {"tool_id": "transfer_to_human_agents", "action": "transfer_to_human_agents"}
    turns.append({"turn": "Tool", "gold_turn": transfer | {"args": {"summary": summary}}})
    for no, t in enumerate(turns, start=1):
        t["turn_no"] = no
    return [gold | {"turns": turns}]


def _transfer_turn(report: dict[str, Any]) -> dict[str, Any]:
    return next(t for t in report["turns"] if t["predicted"].get("action") == "transfer_to_human_agents")


@pytest.mark.parametrize("rendering", ["genai", "openinference"])
def test_a_handoff_summary_worded_otherwise_passes(rendering: str, tmp_path: Path) -> None:
    summary = next(a for a in HANDOFF["task"]["actions"] if a["name"] == "transfer_to_human_agents")["kwargs"]
    reports = _replay(tmp_path, HANDOFF["runs"], rendering=rendering, gold=_handoff_gold(summary["summary"]))
    for report in reports.values():
        assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
        turn = _transfer_turn(report)  # before: inconsistent_parameter_values on the summary's wording
        assert turn["success"] and turn["uncertain"]
        assert any(c["field"] == "summary" and c["uncertain"] for c in turn["comparisons"])


def test_a_wrong_id_in_a_handoff_summary_fails(tmp_path: Path) -> None:
    summary = (
        "The user asks for a refund of the travel insurance on reservation H8Q05K and wants a supervisor."
    )
    report = _replay(tmp_path, HANDOFF["runs"], gold=_handoff_gold(summary))["tau-38-0"]
    turn = _transfer_turn(report)  # 38-0's summary names H8Q05L
    assert turn["failure_reason"] == "inconsistent_parameter_values"
    assert "H8Q05K" in turn["detail"] and "H8Q05L" in turn["detail"]


# -- a call to a tool that does not exist --------------------------------------------------------


def _with_bad_call(run: dict[str, Any], name: str, *, answered_by_right_call: bool = True) -> dict[str, Any]:
    """The run with a call of `name`, answered with an error, just before its first write (a model that
    named a tool wrongly, then called the right one); without the right call when told so."""
    run = copy.deepcopy(run)
    traj = run["traj"]
    k = next(
        i
        for i, m in enumerate(traj)
        if m["role"] == "assistant"
        and any(c["function"]["name"] not in READ_ONLY for c in m.get("tool_calls") or ())
    )
    write = next(c for c in traj[k]["tool_calls"] if c["function"]["name"] not in READ_ONLY)
    bad = {
        "id": "call_wrong_name",
        "type": "function",
        "function": {"name": name, "arguments": write["function"]["arguments"]},
    }
    error = f"Error: unknown tool {name}"
    inserted = [
        {"role": "assistant", "content": None, "tool_calls": [bad]},
        {"role": "tool", "tool_call_id": "call_wrong_name", "name": name, "content": error},
    ]
    if answered_by_right_call:
        traj[k:k] = inserted
    else:  # the agent gives up there: the rest of the run is cut
        run["traj"] = [*traj[:k], *inserted, {"role": "assistant", "content": "Sorry, I cannot do that now."}]
    return run


@pytest.mark.parametrize("name", ["functions.cancel_reservation", "cancel-reservation", "cancel_booking"])
@pytest.mark.parametrize("rendering", ["genai", "openinference"])
def test_a_call_to_a_tool_that_does_not_exist_then_the_right_one_is_recovered(
    name: str, rendering: str, tmp_path: Path
) -> None:
    run = next(r for r in RUNS if conversation_id(r) == "tau-34-3")
    report = _replay(tmp_path, [_with_bad_call(run, name)], rendering=rendering)["tau-34-3"]
    # before: tool_execution_error ("… failed and no reference turn is left for it")
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    assert not report["strict_test_pass"]
    assert [u["tool"] for u in report["unmatched"] if u["why"] == "recovered_attempt"] == [name]
    assert report["recovery"]["recovered"] == 1


def test_a_call_to_a_tool_that_does_not_exist_left_unrecovered_fails(tmp_path: Path) -> None:
    run = next(r for r in RUNS if conversation_id(r) == "tau-34-3")
    report = _replay(tmp_path, [_with_bad_call(run, "cancel_booking", answered_by_right_call=False)])[
        "tau-34-3"
    ]
    assert not report["test_pass"]
    failed = [t for t in report["turns"] if not t["success"]]
    assert any((t["predicted"] or {}).get("action") == "cancel_booking" for t in failed)
    assert not [u for u in report["unmatched"] if u["why"] == "recovered_attempt"]


# -- replies: evidence fails, wording does not ----------------------------------------------------

_REPLY = "The reservations XEHM4B and 59XX6W have been successfully cancelled."  # said in tau-34-3


def _gold_with_reply(reply: str) -> list[dict[str, Any]]:
    gold = gold_dialog(34, TASKS[34])
    no = len(gold["turns"]) + 1
    gold["turns"].append({"turn_no": no, "turn": "Agent", "gold_turn": {"response": reply}})
    return [gold]


def _reply_turn(report: dict[str, Any]) -> dict[str, Any]:
    return next(
        t for t in report["turns"] if t["type"] == "response" and "XEHM4B" in t["predicted"]["response"]
    )


@pytest.mark.parametrize(
    "gold_reply",
    [
        "Both reservations, XEHM4B and 59XX6W, are cancelled; your refund goes back to the card you paid "
        "with in five to seven business days.",
        "I've cancelled XEHM4B and 59XX6W for you, and the money goes back to your original payment "
        "method within 5-7 business days.",
    ],
)
def test_a_reply_worded_otherwise_is_not_failed(gold_reply: str, tmp_path: Path) -> None:
    run = next(r for r in RUNS if conversation_id(r) == "tau-34-3")
    assert _REPLY in json.dumps(run["traj"])
    report = _replay(tmp_path, [run], rendering="openinference", gold=_gold_with_reply(gold_reply))[
        "tau-34-3"
    ]
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    assert _reply_turn(report)["success"]


@pytest.mark.parametrize(
    ("gold_reply", "reason", "said"),
    [
        (
            "Both reservations, XEHM4B and 59XX6W, are cancelled; the refund takes 10 to 14 business days.",
            "inconsistent_response",
            "10",
        ),
        ("Reservations XEHM4B and 59XX6W could not be cancelled.", "inconsistent_response", "could not"),
        (
            "XEHM4B and 59XX6W are cancelled. I have also booked you a new flight to Boston.",
            "incomplete_response",
            "Boston",
        ),
    ],
)
def test_a_reply_with_evidence_against_it_fails(
    gold_reply: str, reason: str, said: str, tmp_path: Path
) -> None:
    run = next(r for r in RUNS if conversation_id(r) == "tau-34-3")
    report = _replay(tmp_path, [run], gold=_gold_with_reply(gold_reply))["tau-34-3"]
    turn = _reply_turn(report)
    assert turn["failure_reason"] == reason and said in turn["detail"]


def test_reference_ids_match_the_bench() -> None:
    assert {d["dialog_id"] for d in _alt_gold(False)} == {reference_id(t) for t in TASKS}
