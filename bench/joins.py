"""Conversations without a conversation id (issue 26): loadgen traffic with every conversation id
stripped, replayed; how many conversations come back whole — one report holding every trace of the
conversation and no trace of another — against the goal of 99 %.

    .venv/bin/python -m bench.joins                       # 1,000 conversations, all span shapes
    .venv/bin/python -m bench.joins --conversations 300 --conventions genai

Loadgen starts a trace per user turn and resends the history with every model call, as frameworks do;
with `session.id` / `gen_ai.conversation.id` removed from every span, only that history joins a
conversation's traces (assemble/history.py). Which trace belonged to which conversation is read from
the traffic before stripping. A report's traces are those its observed turns were read from (every
trace starts with a user message, so each shows at least one turn). Scoring runs as in `replay`
(exact ladder). Two figures:
- `same_turns_share` (the goal): conversations whose report says what the report of the same traffic
  with its ids says — the same turns, in order, and the same verdict (as multisets of reports);
- `whole_share`: conversations whose report holds exactly their own traces. Loadgen reuses each
  reference's opening, so many conversations open with the very same exchange (down to the system
  prompt); a second turn then joins one of them, the same in content, not always its own by trace id.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from bench.pipeline import PROTOBUF, ROOT, generate, ladder, references, write_results
from monitor.config import ScoringConfig, WindowConfig
from monitor.report import latest_reports
from monitor.runtime.pipeline import Pipeline

ID_KEYS = frozenset({"session.id", "gen_ai.conversation.id"})
GOAL = 0.99


def strip_ids(body: ExportTraceServiceRequest, owner: dict[str, str]) -> bytes:
    """The request without conversation ids; `owner` learns each trace's conversation on the way."""
    stripped = ExportTraceServiceRequest()
    stripped.CopyFrom(body)
    for rs in stripped.resource_spans:
        for ss in rs.scope_spans:
            for span in ss.spans:
                kept = [a for a in span.attributes if a.key not in ID_KEYS]
                for a in span.attributes:
                    if a.key in ID_KEYS:
                        owner[span.trace_id.hex()] = a.value.string_value
                del span.attributes[:]
                span.attributes.extend(kept)
    return stripped.SerializeToString()


def replay(bodies: list[bytes], refs: dict[str, Any]) -> tuple[list[dict[str, Any]], Pipeline]:
    reports: list[dict[str, Any]] = []
    config = ScoringConfig(windows=WindowConfig(end_marker_grace_s=0))  # as `replay`: all input is in
    pipeline = Pipeline(config, ladder("exact", None), refs, reports.append)
    for body in bodies:
        pipeline.ingest(body, PROTOBUF, "bench")
    pipeline.flush()
    return [dict(r) for r in latest_reports(reports).values()], pipeline


def turns(report: dict[str, Any]) -> str:
    """What a conversation's report says happened, turn by turn, and its verdict: no ids, no times."""
    said = [(t["role"], t["predicted"]) for t in report["observed_turns"]]
    return json.dumps([said, report.get("test_pass"), report.get("root_cause")], sort_keys=True)


def measure(conversations: int, conventions: str | None, seed: int, **load: Any) -> dict[str, Any]:
    kw = {"conventions": tuple(conventions.split(","))} if conventions else {}
    kw |= {key: value for key, value in load.items() if value is not None}
    traffic, requests, _ = generate(conversations, seed=seed, **kw)
    owner: dict[str, str] = {}
    bodies = [strip_ids(r.body, owner) for r in requests]
    refs = references(traffic)
    named, _ = replay([r.encode() for r in requests], refs)
    reports, pipeline = replay(bodies, refs)
    traces_of: dict[str, set[str]] = defaultdict(set)
    for trace, conversation in owner.items():
        traces_of[conversation].add(trace)
    reported: dict[str, int] = defaultdict(int)  # trace -> how many latest reports show it
    groups = []
    for report in reports:
        traces = {t["trace_id"] for t in report["observed_turns"] if t.get("trace_id")}
        groups.append(traces)
        for trace in traces:
            reported[trace] += 1
    whole_sets = {frozenset(g) for g in groups}
    whole = sum(1 for traces in traces_of.values() if frozenset(traces) in whole_sets)
    merged = sum(1 for g in groups if len({owner.get(t) for t in g}) > 1)
    # the same turns and verdicts as with the ids, conversation for conversation (as multisets): where
    # two conversations opened with the very same exchange, which of the two first traces a second turn
    # joined changes the trace ids, not what the report says
    expected = Counter(turns(r) for r in named)
    same_turns = sum((Counter(turns(r) for r in reports) & expected).values())
    return {
        "conversations": len(traces_of),
        "traces": len(owner),
        "reports": len(groups),
        "whole": whole,
        "whole_share": round(whole / max(len(traces_of), 1), 4),
        "reports_mixing_conversations": merged,
        "same_turns_and_verdict": same_turns,
        "same_turns_share": round(same_turns / max(len(named), 1), 4),
        "traces_shown_in_no_report": sum(1 for t in owner if reported[t] == 0),
        "traces_shown_in_several_reports": sum(1 for t in owner if reported[t] > 1),
        "traces_joined_by_history": int(pipeline.snapshot()["traces_joined_by_history"]),
        "goal_same_turns_share": GOAL,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--conventions", default=None, help="span shapes, comma-separated (default: all)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--batch-spans", type=int, default=None, help="spans per request (default: loadgen's)"
    )
    parser.add_argument(
        "--references", type=int, default=None, help="gold variants per family (default: loadgen's)"
    )
    parser.add_argument("--time-scale", type=float, default=None, help="simulated durations × (default 1)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "joins.json")
    args = parser.parse_args(argv)
    result = measure(
        args.conversations,
        args.conventions,
        args.seed,
        batch_spans=args.batch_spans,
        references=args.references,
        time_scale=args.time_scale,
    )
    met = result["same_turns_share"] >= GOAL
    shown = "\n".join(f"{key:28} {value}" for key, value in result.items())
    write_results(result, args.out, shown + ("\ngoal met" if met else "\ngoal NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
