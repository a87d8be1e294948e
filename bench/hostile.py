"""What a long, odd text costs: scoring must grow with a text's length, never with its square.

    .venv/bin/python -m bench.hostile                 # every shape, 5,000 and 20,000 characters
    .venv/bin/python -m bench.hostile --chars 8000 --factor 8 --rounds 1

An agent's output is not always prose. A model stuck in a repetition loop writes `1. 1. 1. …` for
thousands of tokens, a tool returns a blob of digits, a base64 body, a table of ids. Patterns that try a
match at every character of a long run of digits, and checks of every fact against every fact found,
cost the square of such a text: a 20,000-character reply took 15 s to read (issue 25's review), and a
consumer that stops polling for that long is dropped from its group and replays the same message.

Traffic: real τ-bench runs (`../shared/data/tau-bench`), converted as `bench.taubench` converts them, with
gold and with the τ-bench policy (grounding on) — every path a text takes: the gold reply and argument
comparisons, the grounding of arguments and replies, the reading of tool results. In each run, one text
shape of `--chars` characters replaces the last reply, a string argument of the first call and the first
tool result; the same run with each replaced by a shape of `--chars × --factor` characters is the second
measurement. The figure per shape is the growth of the CPU time the shape adds (the time of the run less
that of the unaltered run, `time.process_time`, the least of `--rounds`): linear cost grows by `--factor`,
quadratic by its square. Target: growth ≤ 2 × `--factor` for every shape. Both lengths are above
`textcache.CACHED_CHARS` (4,000): a shorter text's second read comes from a cache, a longer one's does
not, and a pair across that line would measure the cache, not the reading.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench import taubench
from monitor.compare.ladder import build_ladder
from monitor.compare.textcache import CACHED_CHARS
from monitor.config import ScoringConfig, WindowConfig
from monitor.reference.golden import parse_dialog
from monitor.reference.policy import load_policies
from monitor.runtime.pipeline import Pipeline

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tau-bench"
PROTOBUF = "application/x-protobuf"

#: Text shapes, each a function of a length: what repetition loops and data blobs look like.
SHAPES: dict[str, Callable[[int], str]] = {
    "digits": lambda n: "9" * n,
    "digit groups after `number`": lambda n: "number " + "1234 " * (n // 5),
    "list numbers `1.1.1.`": lambda n: "1." * (n // 2),
    "comma digits": lambda n: "1," * (n // 2),
    "slashes": lambda n: "1/" * (n // 2),
    "dotted letters before @": lambda n: "a." * (n // 2) + "@",
    "ids with dashes": lambda n: "a1-" * (n // 3),
    "digits and dashes": lambda n: "1-" * (n // 2),
    "a long word after a plus": lambda n: "C++ " + "f" * (n - 4),
    "times and amounts": lambda n: "12:30 $5 " * (n // 9),
    "Chinese numerals and digits": lambda n: "一2元" * (n // 3),
    "repeated sentence": lambda n: "Your booking ABC123 is confirmed for $120 on May 5. " * (n // 52),
    "json rows": lambda n: '{"id": "A1B2", "amount": 12.5, "date": "2024-05-01"}, ' * (n // 54),
}
RUNS = 3  # τ-bench runs per measurement (the first reward-1 runs with a tool call and a reply)


def altered(run: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The run with `text` as its last reply, the first string argument of its first call and its first
    tool result."""
    out = copy.deepcopy(dict(run))
    traj = out["traj"]
    replies = [m for m in traj if m["role"] == "assistant" and (m.get("content") or "").strip()]
    replies[-1]["content"] = text
    for m in traj:
        calls = m.get("tool_calls") if m["role"] == "assistant" else None
        if calls:
            args = json.loads(calls[0]["function"]["arguments"])
            key = next((k for k, v in args.items() if isinstance(v, str)), None)
            if key is not None:
                args[key] = text
                calls[0]["function"]["arguments"] = json.dumps(args)
            break
    next(m for m in traj if m["role"] == "tool")["content"] = text
    return out


def replay_seconds(runs: Sequence[Mapping[str, Any]], refs: Mapping[str, Any], policies: Any) -> float:
    """CPU seconds of one in-process replay of `runs` (decode → score → report), gold and policy."""
    config = ScoringConfig(windows=WindowConfig(end_marker_grace_s=0))
    started_ns = time.time_ns()
    reports: list[dict[str, Any]] = []
    bodies = []
    for n, run in enumerate(runs):
        conv = taubench.live_conversation(run)
        request = taubench.export_request(conv, 1_715_000_000 * 10**9 + n * 3600 * 10**9, n, None)
        bodies.append(request.SerializeToString())
    pipeline = Pipeline(
        config, build_ladder(config), dict(refs), reports.append, policies=policies, clock=lambda: started_ns
    )
    start = time.process_time()
    for body in bodies:
        pipeline.ingest(body, PROTOBUF, "bench")
    pipeline.flush()
    seconds = time.process_time() - start
    if len(reports) < len(runs):
        raise SystemExit(f"{len(reports)} reports for {len(runs)} runs")
    return seconds


def measure(chars: int, factor: int, rounds: int, data: Path) -> dict[str, Any]:
    all_runs = json.loads((data / "gpt-4o-airline.json").read_text())
    tasks = dict(enumerate(json.loads((data / "airline_tasks_test.json").read_text())))
    runs = [
        r
        for r in all_runs
        if r["reward"] == 1
        and any(m["role"] == "tool" for m in r["traj"])
        and any(m.get("tool_calls") for m in r["traj"] if m["role"] == "assistant")
    ][:RUNS]
    refs = {}
    for r in runs:
        d = taubench.gold_dialog(r["task_id"], tasks[r["task_id"]])
        refs[d["dialog_id"]] = parse_dialog(d, "tau-bench", d["dialog_id"])
    policies = load_policies(data / "policy-airline.yaml")

    def least(text: Callable[[int], str] | None, length: int = 0) -> float:
        best = float("inf")
        for k in range(rounds):  # each round's texts differ, so no cache answers for an earlier round
            batch = [dict(r) if text is None else altered(r, f"{text(length)} #{length}-{k}") for r in runs]
            best = min(best, replay_seconds(batch, refs, policies))
        return best

    least(None)  # warm: the lexicon loaded, the unaltered texts read (cached for every measurement alike)
    base = least(None)
    rows: dict[str, Any] = {}
    for name, shape in SHAPES.items():
        small, large = least(shape, chars), least(shape, chars * factor)
        added_small, added_large = max(small - base, 1e-4), max(large - base, 1e-4)
        rows[name] = {
            "seconds_small": round(small, 3),
            "seconds_large": round(large, 3),
            "growth": round(added_large / added_small, 1),
        }
    return {"chars": chars, "factor": factor, "base_seconds": round(base, 3), "shapes": rows}


def table(result: Mapping[str, Any]) -> str:
    factor = result["factor"]
    lines = [
        f"{RUNS} τ-bench runs, gold and policy; unaltered {result['base_seconds']} CPU s; "
        f"texts of {result['chars']} and {result['chars'] * factor} characters "
        f"(linear growth {factor}, quadratic {factor * factor}; target ≤ {2 * factor})",
        f"{'shape':32s} {'small s':>8s} {'large s':>8s} {'growth':>7s}",
    ]
    for name, row in result["shapes"].items():
        mark = "" if row["growth"] <= 2 * factor else "  ← over target"
        lines.append(
            f"{name:32s} {row['seconds_small']:8.3f} {row['seconds_large']:8.3f} {row['growth']:7.1f}{mark}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.hostile", description=__doc__.split("\n")[0])
    ap.add_argument("--chars", type=int, default=5000, help="the smaller text's length")
    ap.add_argument("--factor", type=int, default=4, help="the larger text is this many times longer")
    ap.add_argument("--rounds", type=int, default=3, help="the least CPU time of this many replays")
    ap.add_argument("--data", type=Path, default=DATA, help="the τ-bench data folder")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    if args.chars <= CACHED_CHARS:
        ap.error(f"--chars must be above {CACHED_CHARS}: shorter texts are cached, longer ones are not")
    result = measure(args.chars, args.factor, args.rounds, args.data)
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    over = [n for n, r in result["shapes"].items() if r["growth"] > 2 * args.factor]
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
