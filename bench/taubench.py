"""τ-bench airline: the monitor's verdicts against a benchmark's own grade, on real agent runs.

    .venv/bin/python -m bench.taubench                      # all 200 runs, replies kept
    .venv/bin/python -m bench.taubench --replies drop       # the same spans without the agent's replies
    .venv/bin/python -m bench.taubench --swap-gold-order    # each task's write actions in reverse order
    .venv/bin/python -m bench.taubench --rendering openinference          # spans written another way
    .venv/bin/python -m bench.taubench --gold FILE --policy POLICY.yaml   # gold written another way

τ-bench (github sierra-research/tau-bench, MIT) publishes real gpt-4o runs against a simulated airline
user, each graded by the benchmark (`reward` 1 or 0). This converts every run into the OTLP spans an
instrumented agent would have sent (OTel GenAI, `gen_ai_latest_experimental` attribute form: one trace
per user message, model-call spans with the whole history, tool spans with arguments and results; a
tool that raised is a span with status ERROR, as τ-bench's "Error: …" observations are exceptions),
writes the gold references the way a user would write them from the task (below), runs the real
`agent-monitor replay` over them, and prints the agreement with the reward as a confusion matrix plus
every disagreement with its run id, the monitor's reason and its reviewed category.

Gold references from a task, as a user who knows how τ-bench grades would write them:
- the task's actions in the task's order: each write is a required `Tool` turn; τ-bench grades the final
  database state, not the order of the writes, so the writes form one `OrderInvariant_writes` group;
  each lookup (the read-only tools below) is an `optional` turn: scored when the agent makes it, no
  failure when it does not; the read-only tools are `metadata.read_only_tools` (extra lookups free);
- `transfer_to_human_agents` changes no data and the reward ignores it: `metadata.allowed_extra_tools`;
- each required output (`outputs`: a fact the agent must state, such as "23553") is an `Agent` response
  turn whose gold is that bare fact;
- a task with neither (the agent must change nothing: refuse, or transfer) is one `User` turn after which
  no call is expected.

A disagreement that remains is listed with the category from `bench/taubench_review.json` (reviewed by
reading the run): a real agent error the benchmark missed, or a difference between grading database
state and grading actions. A disagreement with no review is printed as `unreviewed`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from bench import taubench_openinference as oi
from monitor.loadgen.scenarios import Conversation, Family, LiveTurn, Reference
from monitor.loadgen.spans import SCOPES, Timing, render
from monitor.report import latest_reports

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "tau-bench"
REVIEW = Path(__file__).with_name("taubench_review.json")
READ_ONLY = (
    "get_user_details",
    "get_reservation_details",
    "search_direct_flight",
    "search_onestop_flight",
    "list_all_airports",
    "calculate",
    "think",
)
NO_EFFECT = ("transfer_to_human_agents",)
AGENT = "airline-agent"
CONVENTION = "genai"
_FAMILY = Family(
    "tau-airline", AGENT, make_task=lambda rng, first: (_ for _ in ()).throw(NotImplementedError())
)


def reference_id(task_id: int) -> str:
    return f"tau-airline-{task_id}"


def conversation_id(run: Mapping[str, Any]) -> str:
    return f"tau-{run['task_id']}-{run['trial']}"


def gold_dialog(task_id: int, task: Mapping[str, Any], *, swap_order: bool = False) -> dict[str, Any]:
    """The gold reference of one task (module docstring)."""
    turns: list[dict[str, Any]] = []
    actions = [a for a in task["actions"] if a["name"] not in NO_EFFECT]
    if swap_order:  # the writes in reverse order, in the places the writes hold
        slots = [i for i, a in enumerate(actions) if a["name"] not in READ_ONLY]
        for i, a in zip(slots, [actions[i] for i in reversed(slots)], strict=True):
            actions[i] = a
    for action in actions:
        if action["name"] in READ_ONLY:
            turns.append({"turn": "Tool", "gold_turn": _call(action), "optional": True})
        else:
            turns.append({"turn": "Tool", "gold_turn": _call(action), "tags": ["OrderInvariant_writes"]})
    for fact in task.get("outputs", []):
        turns.append({"turn": "Agent", "gold_turn": {"response": fact}})
    if not turns:  # the agent must change nothing: a user turn after which no call is expected
        turns.append({"turn": "User", "gold_turn": {"response": task["instruction"]}})
    for no, turn in enumerate(turns, start=1):
        turn["turn_no"] = no
    return {
        "dialog_id": reference_id(task_id),
        "turns": turns,
        "metadata": {"read_only_tools": list(READ_ONLY), "allowed_extra_tools": list(NO_EFFECT)},
    }


def _call(action: Mapping[str, Any]) -> dict[str, Any]:
    return {"tool_id": action["name"], "action": action["name"], "args": action["kwargs"]}


def live_conversation(run: Mapping[str, Any], *, replies: bool = True) -> Conversation:
    """A run's messages as the live turns the span renderer draws: one exchange per user message."""
    exchanges: list[list[LiveTurn]] = []
    calls: list[LiveTurn] = []
    for m in run["traj"]:
        role = m["role"]
        if role == "user":
            exchanges.append([LiveTurn(kind="user", text=m["content"])])
        elif role == "assistant" and exchanges:
            if replies and (m.get("content") or "").strip():
                exchanges[-1].append(LiveTurn(kind="reply", text=m["content"]))
            for c in m.get("tool_calls") or ():
                call = LiveTurn(
                    kind="call",
                    tool=c["function"]["name"],
                    args=_json_or(c["function"]["arguments"], {}),
                    call_id=c["id"],
                )
                exchanges[-1].append(call)
                calls.append(call)
        elif role == "tool":
            # call ids are reused within a run: a result answers the latest call with its id
            answered = next((c for c in reversed(calls) if c.call_id == m["tool_call_id"]), None)
            if answered is None:
                continue
            content = m.get("content") or ""
            if content.startswith("Error"):
                answered.error = content
            else:
                answered.result = _json_or(content, content)
    ref = Reference(reference_id(run["task_id"]), _FAMILY, [])
    return Conversation(conversation_id(run), ref, exchanges, truth=[], faults=[])


def system_prompt(run: Mapping[str, Any]) -> str | None:
    """The run's system prompt (τ-bench's airline policy, with the simulated current time)."""
    first = run["traj"][0] if run["traj"] else {}
    return first.get("content") if first.get("role") == "system" else None


def _json_or(text: str, default: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default


def export_request(
    conv: Conversation,
    start_ns: int,
    seed: int,
    system: str | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
) -> ExportTraceServiceRequest:
    """All spans of one run as one export request (its own service resource), as an SDK exporter sends;
    each model call carries the system prompt as `gen_ai.system_instructions` and the tool definitions
    (OpenAI function form) as `gen_ai.tool.definitions`, when given."""
    rng = random.Random(f"{seed}:{conv.conversation_id}")
    spans = render(conv, CONVENTION, start_ns, rng, Timing(), end_marker=True)
    extra = {}
    if system:
        extra["gen_ai.system_instructions"] = json.dumps([{"type": "text", "content": system}])
    if tools:
        extra["gen_ai.tool.definitions"] = json.dumps(list(tools))
    for s in spans:
        if any(
            a.key == "gen_ai.operation.name" and a.value.string_value == "chat" for a in s.span.attributes
        ):
            for key, value in extra.items():
                s.span.attributes.append(KeyValue(key=key, value=AnyValue(string_value=value)))
    body = ExportTraceServiceRequest()
    rs = body.resource_spans.add()
    rs.resource.attributes.append(KeyValue(key="service.name", value=AnyValue(string_value=AGENT)))
    ss = rs.scope_spans.add()
    ss.scope.name = SCOPES[CONVENTION]
    ss.spans.extend(s.span for s in spans)
    return body


def write_inputs(
    runs: Sequence[Mapping[str, Any]],
    tasks: Mapping[int, Mapping[str, Any]],
    out: Path,
    *,
    replies: bool = True,
    swap_order: bool = False,
    rendering: str = "genai",
) -> tuple[Path, Path]:
    """`out/traffic/*.pb` (one request per run) and `out/gold.jsonl` (one reference per task used).

    `rendering` picks the conversion of the runs into spans: `genai` (this module, through the load
    generator's renderer) or `openinference` (`bench.taubench_openinference`, written independently with
    the OpenTelemetry SDK: tool errors as span status and `{"error": …}` results, system prompt and tool
    definitions on every model call)."""
    traffic = out / "traffic"
    traffic.mkdir(parents=True, exist_ok=True)
    start = 1_715_000_000 * 10**9  # May 2024, τ-bench's simulated "now"
    oi_tools = oi.tool_schemas([dict(r) for r in runs])  # the airline tools, declared on model calls
    definitions = [json.loads(t) for t in oi_tools]
    for i, run in enumerate(runs):
        if rendering == "openinference":
            traj = run["traj"] if replies else _without_replies(run["traj"])
            sid = conversation_id(run)
            ref = {"aem.reference_id": reference_id(run["task_id"])}
            data = oi.render(sid, traj, oi.timeline(traj, i), oi_tools, ref)
            (traffic / f"{i:04d}-{sid}.pb").write_bytes(data)
            continue
        conv = live_conversation(run, replies=replies)
        body = export_request(
            conv, start + i * 3600 * 10**9, seed=i, system=system_prompt(run), tools=definitions
        )
        (traffic / f"{i:04d}-{conv.conversation_id}.pb").write_bytes(body.SerializeToString())
    gold = out / "gold.jsonl"
    used = sorted({int(r["task_id"]) for r in runs})
    with gold.open("w") as f:
        for task_id in used:
            f.write(json.dumps(gold_dialog(task_id, tasks[task_id], swap_order=swap_order)) + "\n")
    return traffic, gold


def _without_replies(traj: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The run's messages with the agent's text taken out (its tool calls kept)."""
    out = []
    for m in traj:
        if m["role"] == "assistant" and not m.get("tool_calls"):
            continue
        out.append({**m, "content": None} if m["role"] == "assistant" else dict(m))
    return out


def run_replay(traffic: Path, reports: Path, *options: str) -> list[dict[str, Any]]:
    """`agent-monitor replay traffic --out reports [options]`, the real CLI as a user runs it: every report
    line it wrote; its stderr's end on failure."""
    cmd = [sys.executable, "-m", "monitor", "replay", str(traffic), "--out", str(reports), *options]
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    if done.returncode != 0:
        raise SystemExit(f"agent-monitor replay failed ({done.returncode}):\n{done.stderr[-3000:]}")
    with reports.open() as f:
        return [json.loads(line) for line in f if line.strip()]


def replay(
    traffic: Path, gold: Path, out: Path, config: Path | None = None, policy: Path | None = None
) -> dict[str, dict[str, Any]]:
    """The latest report of each conversation, scored against `gold`."""
    options = ["--gold", str(gold)]
    if config is not None:
        options += ["--config", str(config)]
    if policy is not None:
        options += ["--policy", str(policy)]
    reports = run_replay(traffic, out / "reports.jsonl", *options)
    return {k: dict(v) for k, v in latest_reports(reports).items()}


CATEGORIES = {
    "agent_error_benchmark_missed": "a real agent error the benchmark missed",
    "state_vs_actions": "grading database state differs from grading actions",
    "benchmark_not_graded": "the benchmark did not grade the run",
    "replies_removed": "a fact the agent had to state is only in its replies, removed from these spans",
    "escalation_not_made": "gold hands off to a human and the agent did not, yet the task ended as the "
    "user wanted: a real deviation the state grade does not see",
}
#: Tools that hand the conversation to a person: a gold call of one the agent did not make is its own
#: category in the review (`compare`).
HANDOFF = ("transfer", "handoff", "hand_off", "escalat", "human")


def compare(
    runs: Iterable[Mapping[str, Any]],
    reports: Mapping[str, Mapping[str, Any]],
    review: Mapping[str, Any],
    *,
    replies: bool = True,
) -> dict[str, Any]:
    """Confusion matrix (benchmark reward × monitor verdict) and every disagreement with its category.

    A review applies only to the verdict it reviewed: if the monitor's verdict on a run changes, the run is
    `unreviewed` again. Without replies, a run whose only failures are gold replies nothing answered is
    `replies_removed`."""
    matrix: Counter[str] = Counter()
    disagreements: list[dict[str, Any]] = []
    missing: list[str] = []
    for run in runs:
        cid = conversation_id(run)
        report = reports.get(cid)
        if report is None or not report.get("scored"):
            missing.append(cid)
            continue
        bench_pass = run["reward"] >= 1.0
        monitor_pass = bool(report["test_pass"])
        matrix[
            f"benchmark {'pass' if bench_pass else 'fail'}, monitor {'pass' if monitor_pass else 'fail'}"
        ] += 1
        if bench_pass == monitor_pass:
            continue
        failed = [t for t in report.get("turns", []) if not t["success"]]
        verdict = "pass" if monitor_pass else "fail"
        entry = review.get(cid, {})
        category = entry.get("category", "unreviewed") if entry.get("monitor") == verdict else "unreviewed"
        if not replies and failed and all(_unanswered_reply(t) for t in failed):
            category = "replies_removed"
        if bench_pass and failed and all(_handoff_not_made(t) for t in failed):
            category = "escalation_not_made"
        disagreements.append(
            {
                "run": cid,
                "reward": run["reward"],
                "monitor": verdict,
                "root_cause": report.get("root_cause"),
                "why": "; ".join(
                    f"turn {t['turn_no']} {t['failure_reason']}: {t['detail'][:160]}" for t in failed[:3]
                )
                or "every turn passed",
                "category": category,
                "explanation": entry.get("explanation", "") if category == entry.get("category") else "",
            }
        )
    return {"matrix": dict(sorted(matrix.items())), "disagreements": disagreements, "unscored": missing}


def _handoff_not_made(turn: Mapping[str, Any]) -> bool:
    """A gold hand-off (`transfer_to_human_agents` …) the agent did not make (or made to another tool)."""
    if turn["failure_reason"] not in ("missing_action", "tool_mismatch", "action_mismatch"):
        return False
    expected = str(turn.get("detail", "")).partition("got")[0]  # `expected X; …` / `expected 'X', got 'Y'`
    return any(word in expected.casefold() for word in HANDOFF)


def _unanswered_reply(turn: Mapping[str, Any]) -> bool:
    return turn["type"] == "response" and turn["failure_reason"] in ("missing_action", "incomplete_response")


def print_summary(result: Mapping[str, Any], label: str) -> None:
    m = result["matrix"]
    bp_mp = m.get("benchmark pass, monitor pass", 0)
    bp_mf = m.get("benchmark pass, monitor fail", 0)
    bf_mp = m.get("benchmark fail, monitor pass", 0)
    bf_mf = m.get("benchmark fail, monitor fail", 0)
    print(f"\nτ-bench airline, {label}")
    print("|                  | monitor pass | monitor fail |")
    print("|------------------|--------------|--------------|")
    print(f"| benchmark pass   | {bp_mp:12d} | {bp_mf:12d} |")
    print(f"| benchmark fail   | {bf_mp:12d} | {bf_mf:12d} |")
    if result["unscored"]:
        print(f"not scored: {len(result['unscored'])}: {', '.join(result['unscored'][:10])}")
    by_category = Counter(d["category"] for d in result["disagreements"])
    print(f"disagreements: {len(result['disagreements'])}")
    for category, n in by_category.most_common():
        print(f"  {n} {category}: {CATEGORIES.get(category, 'not reviewed yet: read the run')}")
    for d in result["disagreements"]:
        print(f"- {d['run']} reward {d['reward']:.0f}, monitor {d['monitor']} [{d['category']}] {d['why']}")
        if d["explanation"]:
            print(f"    {d['explanation']}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.taubench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder with gpt-4o-airline.json and the tasks")
    ap.add_argument("--runs", type=int, default=0, help="only the first N runs (0: all)")
    ap.add_argument("--replies", choices=("keep", "drop"), default="keep", help="keep the agent's replies")
    ap.add_argument(
        "--rendering",
        choices=("genai", "openinference"),
        default="genai",
        help="the conversion of runs into spans (write_inputs)",
    )
    ap.add_argument("--swap-gold-order", action="store_true", help="reverse each task's write actions")
    ap.add_argument("--config", type=Path, help="a monitor config file for the replay")
    ap.add_argument("--policy", type=Path, help="a reference policy attached beside the gold")
    ap.add_argument("--gold", type=Path, help="gold dialogs written another way (default: gold_dialog)")
    ap.add_argument("--out", type=Path, help="keep traffic, gold and reports here (default: a temp dir)")
    ap.add_argument("--json", type=Path, help="write the result as JSON here")
    args = ap.parse_args(argv)
    runs = json.loads((args.data / "gpt-4o-airline.json").read_text())
    tasks = dict(enumerate(json.loads((args.data / "airline_tasks_test.json").read_text())))
    if args.runs:
        runs = runs[: args.runs]
    review = json.loads(REVIEW.read_text()) if REVIEW.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        traffic, gold = write_inputs(
            runs,
            tasks,
            out,
            replies=args.replies == "keep",
            swap_order=args.swap_gold_order,
            rendering=args.rendering,
        )
        reports = replay(traffic, args.gold or gold, out, args.config, args.policy)
    result = compare(runs, reports, review, replies=args.replies == "keep")
    label = f"{len(runs)} runs, {args.rendering} spans, replies {args.replies}" + (
        ", gold write order reversed" if args.swap_gold_order else ""
    )
    if args.gold:
        label += f", gold {args.gold}"
    if args.policy:
        label += f", policy {args.policy.name}"
    print_summary(result, label)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
