"""Real agent runs that a benchmark graded (τ-bench airline, gpt-4o; `tests/fixtures/tau-bench/`), through
`agent-monitor replay` as a user runs it: the monitor's verdict must be the benchmark's, for the reasons
each run was chosen (the fixture README). Spans and gold references are made by `bench.taubench`, the
same conversion the whole-set benchmark uses.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.taubench import conversation_id, write_inputs
from monitor.cli import main
from monitor.publish.prometheus import MonitorMetrics
from tests.unit.test_metrics import samples, value

SLICE = Path(__file__).resolve().parent.parent / "fixtures" / "tau-bench"
RUNS: list[dict[str, Any]] = json.loads((SLICE / "gpt-4o-airline.slice.json").read_text())
TASKS = {int(k): v for k, v in json.loads((SLICE / "airline_tasks.slice.json").read_text()).items()}

Replay = Callable[..., dict[str, dict[str, Any]]]


def _replay(out: Path, *, swap_order: bool = False, config: str | None = None) -> dict[str, dict[str, Any]]:
    traffic, gold = write_inputs(RUNS, TASKS, out, swap_order=swap_order)
    args = ["replay", str(traffic), "--gold", str(gold), "--out", str(out / "reports.jsonl")]
    if config is not None:
        (out / "monitor.yaml").write_text(config)
        args += ["--config", str(out / "monitor.yaml")]
    assert main(args) == 0
    reports = [json.loads(line) for line in (out / "reports.jsonl").read_text().splitlines()]
    by_id = {r["conversation_id"]: r for r in reports}
    assert len(by_id) == len(reports) == len(RUNS), "one report per run: nothing lost, nothing cut"
    return by_id


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _replay(tmp_path_factory.mktemp("tau"))


def _run(task: int, trial: int) -> dict[str, Any]:
    return next(r for r in RUNS if r["task_id"] == task and r["trial"] == trial)


def test_verdicts_agree_with_the_benchmark(reports: dict[str, dict[str, Any]]) -> None:
    disagree = {
        conversation_id(r): reports[conversation_id(r)]["test_pass"]
        for r in RUNS
        if reports[conversation_id(r)]["test_pass"] != (r["reward"] >= 1)
    }
    # 13-1: the agent tried to change a partially flown reservation; the tool refused, so the database the
    # benchmark grades is right, but the attempt is the agent's error (bench/taubench_review.json)
    assert disagree == {"tau-13-1": False}
    failed = reports["tau-13-1"]["turns"]
    assert [t["failure_reason"] for t in failed if not t["success"]] == ["tool_execution_error"]


def test_replies_nothing_asks_for_are_listed_not_failed(reports: dict[str, dict[str, Any]]) -> None:
    report = reports["tau-34-3"]
    replies = [t for t in report["observed_turns"] if t["role"] == "Agent"]
    assert len(replies) >= 5
    free = [u for u in report["unmatched"] if u["why"] == "reply_without_gold"]
    assert len(free) == len(replies)
    assert report["test_pass"] and all(t["success"] for t in report["turns"])


def test_writes_in_the_other_order_pass(tmp_path: Path) -> None:
    swapped = _replay(tmp_path, swap_order=True)
    report = swapped["tau-34-3"]
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    assert {m["how"] for m in report["matching"]} >= {"order_invariant"}
    assert {cid for cid, r in swapped.items() if r["test_pass"]} == {
        cid for cid, r in _replay(tmp_path / "straight").items() if r["test_pass"]
    }


def test_a_refused_write_retried_successfully_is_recovered(reports: dict[str, dict[str, Any]]) -> None:
    report = reports["tau-26-2"]
    assert report["test_pass"] and not report["strict_test_pass"]
    assert report["recovery"]["failed_attempts"] == report["recovery"]["recovered"] == 1
    forgiven = [u for u in report["unmatched"] if u["why"] == "recovered_attempt"]
    assert [u["tool"] for u in forgiven] == ["update_reservation_flights"]
    update = next(m for m in report["matching"] if m["live_turn_no"] is not None and m["gold_turn_no"] == 6)
    observed = {t["turn_no"]: t for t in report["observed_turns"]}
    assert observed[update["live_turn_no"]]["predicted"]["args"]["payment_id"] == "credit_card_9074831"


def test_failed_attempts_can_be_configured_to_fail(tmp_path: Path) -> None:
    strict = _replay(tmp_path, config="alignment:\n  failed_attempts: fail\n")
    report = strict["tau-26-2"]
    assert not report["test_pass"]
    assert report["root_cause"] == "tool_execution_error"


def test_a_reused_call_id_does_not_hide_a_call(reports: dict[str, dict[str, Any]]) -> None:
    run = _run(16, 3)
    made = [c for m in run["traj"] if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    ids = [c["id"] for c in made]
    assert len(set(ids)) < len(ids), "the model reused a call id in this run"
    report = reports["tau-16-3"]
    observed = [t["predicted"]["tool_id"] for t in report["observed_turns"] if t["type"] == "action"]
    assert observed == [c["function"]["name"] for c in made]
    assert report["test_pass"]


def test_nested_objects_may_carry_more_detail_than_gold(reports: dict[str, dict[str, Any]]) -> None:
    report = reports["tau-5-1"]
    assert report["test_pass"], [t["detail"] for t in report["turns"] if not t["success"]]
    flights = [
        c
        for t in report["turns"]
        for c in t["comparisons"]
        if c["field"] == "flights" and "extra keys" in c.get("note", "")
    ]
    assert flights and all(c["equal"] for c in flights)


@pytest.mark.parametrize(("run", "fact"), [("tau-44-0", "4"), ("tau-2-2", "23553")])
def test_a_bare_fact_passes_when_a_reply_states_it(
    reports: dict[str, dict[str, Any]], run: str, fact: str
) -> None:
    report = reports[run]
    assert report["test_pass"]
    answer = next(t for t in report["turns"] if t["type"] == "response")
    assert answer["success"] and answer["comparisons"][0]["gold"] == fact
    said = answer["predicted"]["response"].replace(",", "")
    assert fact in said and said.strip() != fact


def test_the_benchmarks_failures_are_flagged(reports: dict[str, dict[str, Any]]) -> None:
    for run in RUNS:
        if run["reward"] < 1:
            assert not reports[conversation_id(run)]["test_pass"], conversation_id(run)


def test_recovery_and_free_turns_reach_the_metrics(reports: dict[str, dict[str, Any]]) -> None:
    metrics = MonitorMetrics()
    for report in reports.values():
        metrics.observe_report(report)
    seen = samples(metrics)
    assert value(seen, "aem_process_recoveries_total", outcome="recovered") >= 1  # tau-26-2's retry
    assert value(seen, "aem_process_recoveries_total", outcome="unrecovered") >= 1  # tau-13-1's refusal
    replies = sum(1 for r in reports.values() for u in r["unmatched"] if u["why"] == "reply_without_gold")
    assert value(seen, "aem_unmatched_turns_total", why="reply_without_gold") == replies > 0
