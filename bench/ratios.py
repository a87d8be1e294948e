"""Issue 16's replay targets, as ratios to baselines measured in the same run on the same traffic:

    .venv/bin/python -m bench.ratios                          # 1000 conversations, 3 rounds
    .venv/bin/python -m bench.ratios --conversations 300 --rounds 1
    .venv/bin/python -m bench.ratios --only events --rounds 7  # one cost alone: its systems, more rounds
    .venv/bin/python -m bench.ratios --counter instructions --conversations 100  # steady, slow (~5 min)

Traffic: `monitor.loadgen` (seed fixed), its OTLP protobuf requests held in memory. Every figure is
spans per CPU-second (`time.process_time`) of a process spawned for that one measurement, so that no
cache is warm from the one before; the median over rounds. The systems are interleaved within a
round so that a slow moment of the machine falls on all of them.

- `protobuf only`: `ExportTraceServiceRequest.FromString` of every request, nothing read out of it;
- `parse to dicts` (the baseline of the targets): the same, then every span's ids, times, name,
  status, attributes, events and links into plain dicts and lists (AnyValue by AnyValue) — the least
  any Python consumer of these spans does;
- `replay exact`: the monitor's pipeline (decode → normalize → windows → score → redact) with the
  embedding rung off (exact, normalized, typed, alias, differential rungs; the policy/exact figure);
- `replay exact + policy`: `replay exact` with the built-in policy as every agent's policy beside gold,
  grounding off (schemas, duplicates, recovery); `replay exact + grounding`: the same with grounding on.
  Their ratio is what grounding costs (issue 25: at most 15 % more CPU, `grounding cost` ≥ 0.87);
- `replay exact + events`: `replay exact` sending each verdict as OTLP evaluation events (issue 28) to a
  sink in another process, the exporter flushed inside the timed part; `evaluation events cost` is its
  ratio to `replay exact` (at most 10 % more CPU: ≥ 0.91). Two runs in two processes differ by more
  than that here, so the same run also gives `events, in-run (bound)`: its CPU time against the same
  time less the events' own (`evaluation_events_cpu_seconds`: every `__call__` on the scoring thread and
  every export on the sending thread, each timed by its thread's CPU clock). It is a bound, not the
  cost — it leaves out what the second thread costs the first indirectly (the lock, caches, thread
  switches), which only the two-run ratio includes — so it is printed without a target;
- `replay embedding`: the same as shipped, with the ONNX embedding rung (its cache cold each round);
- `model floor`: the CPU time of the embedding model alone on the texts `replay embedding` embedded
  (each once, by a fresh embedder, as the shipped `exact_per_text` runs them): the most `replay
  embedding` could reach if everything but the model cost nothing. Its ratio bounds what any
  restructuring of the pipeline can give the embedding target while the model and what reaches it stay
  the same (issue 16: batching the model's runs was measured slower per text here, 8.0 against 7.1 ms).

The baselines take about a second a pass, too short to read well on a shared machine, so each of
their measurements runs them `BASELINE_PASSES` (5) times and divides.

`--counter instructions` counts instructions instead of CPU time, with callgrind (valgrind, on every
machine here): each system's process once with its timed part and once without, the difference. The
count of one program on one input is the same on a busy machine as on a quiet one (here within 0.5 %),
where CPU-time pairs spread by ±15 %, so it decides what a few per cent cost — grounding's 15 % — and an
A/B of a change to the pipeline, and the events' 10 %. It counts every system but the embedding rung
(`COUNTED`; of `replay exact + events` both threads, the exporter sending full batches as at full
speed), and not cache misses or stalls: Python code against Python code, it follows the CPU ratio.

`--traffic tau-bench`: instead of loadgen, τ-bench's 200 real airline runs (`../shared/data/tau-bench`,
rendered as `bench.taubench` renders them: OTel GenAI spans, the airline's system prompt of 6,155
characters and its tool definitions on every model call), replayed with no gold, as live traffic is:
`replay exact + policy` / `+ grounding` are then the built-in policy alone, grounding off / on.
Loadgen's conversations have no system prompt and small tool results; real agents' have both, and
there grounding's cost is of another size (`--only grounding --traffic tau-bench`).

Targets (issue 16): replay exact ≥ 0.35 × parse-to-dicts; replay embedding ≥ 0.10 ×. The lexicon and
the model are loaded before timing (start-up is not throughput), and the heap is then settled as the
CLI settles it (`settle_heap`: start-up frozen, fewer young collections), for every system alike. Absolute figures depend on the
machine; compare ratios.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from bench import taubench
from bench.pipeline import free_port, generate, ladder, references, replay, write_results
from monitor.compare.embedder import OnnxEmbedder
from monitor.config import EvaluationEventsConfig
from monitor.publish.evaluation_events import EvaluationEvents
from monitor.reference.policy import BUILTIN, Grounding
from monitor.runtime.heap import settle_heap

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "results" / "ratios.json"
TARGETS = {"replay exact": 0.35, "replay embedding": 0.10}
SYSTEMS = (
    "protobuf only", "parse to dicts", "replay exact", "replay exact + policy", "replay exact + grounding",
    "replay embedding", "replay exact + events",
)  # fmt: skip
#: grounding's cost: `replay exact + grounding` against `replay exact + policy`, in spans per CPU-second
GROUNDING_TARGET = 1 / 1.15
#: the evaluation events' cost: `replay exact + events` against `replay exact` (issue 28: at most 10 %)
EVENTS_TARGET = 1 / 1.10
#: figures measured inside another system's process: the model floor, in `replay embedding`'s
DERIVED = {"model floor": "replay embedding", "events run, less their CPU": "replay exact + events"}
#: the baselines take about a second: each measurement runs them this many times (CPU time divided)
BASELINE_PASSES = 5


#: `--traffic`: what is replayed
TRAFFIC = ("loadgen", "tau-bench")


@dataclass(frozen=True)
class _Recorded:
    """A recorded export request, as `bench.pipeline.replay` reads loadgen's."""

    body: bytes
    spans: int

    def encode(self) -> bytes:
        return self.body


def load_traffic(traffic: str, conversations: int, seed: int) -> tuple[list[Any], dict[str, Any]]:
    """The requests to replay and the gold they are scored against: loadgen's `conversations` (seed
    `seed`) with their references, or τ-bench's runs with none (`--traffic`)."""
    if traffic == "loadgen":
        generated, requests, _ = generate(conversations, seed=seed)
        return list(requests), references(generated)
    runs = json.loads((taubench.DATA / "gpt-4o-airline.json").read_text())
    tasks = dict(enumerate(json.loads((taubench.DATA / "airline_tasks_test.json").read_text())))
    with tempfile.TemporaryDirectory() as tmp:
        folder, _ = taubench.write_inputs(runs, tasks, Path(tmp))
        bodies = [path.read_bytes() for path in sorted(folder.glob("*.pb"))]
    recorded = []
    for body in bodies:
        request = ExportTraceServiceRequest.FromString(body)
        spans = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        recorded.append(_Recorded(body, spans))
    return recorded, {}


def protobuf_only(bodies: list[bytes]) -> None:
    for body in bodies:
        ExportTraceServiceRequest.FromString(body)


def parse_to_dicts(bodies: list[bytes]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for body in bodies:
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            resource = _kvs(rs.resource.attributes)
            for ss in rs.scope_spans:
                for s in ss.spans:
                    out.append({
                        "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                        "parent_span_id": s.parent_span_id.hex(), "name": s.name, "kind": s.kind,
                        "start_ns": s.start_time_unix_nano, "end_ns": s.end_time_unix_nano,
                        "status": s.status.code, "attributes": _kvs(s.attributes), "resource": resource,
                        "scope": ss.scope.name,
                        "events": [{"name": e.name, "time_ns": e.time_unix_nano, "attributes": _kvs(e.attributes)}
                                   for e in s.events],
                        "links": [{"trace_id": k.trace_id.hex(), "span_id": k.span_id.hex(),
                                   "attributes": _kvs(k.attributes)} for k in s.links],
                    })  # fmt: skip
    return out


def _kvs(kvs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in kvs:
        v = kv.value
        which = v.WhichOneof("value")
        out[kv.key] = v.string_value if which == "string_value" else _any(v, which)
    return out


def _any(v: Any, which: str | None) -> Any:
    if which == "string_value":
        return v.string_value
    if which == "int_value":
        return v.int_value
    if which == "bool_value":
        return v.bool_value
    if which == "double_value":
        return v.double_value
    if which == "array_value":
        return [_any(x, x.WhichOneof("value")) for x in v.array_value.values]
    if which == "kvlist_value":
        return _kvs(v.kvlist_value.values)
    if which == "bytes_value":
        return v.bytes_value.hex()
    return None


def one(
    system: str,
    conversations: int,
    seed: int,
    passes: int | None = None,
    counted: bool = False,
    traffic: str = "loadgen",
) -> tuple[int, float, float | None]:
    """One measurement in a process of its own (spawned): the traffic generated, the ladder and models
    loaded and the heap settled before timing; nothing warm from an earlier measurement (the text,
    fact and message caches are per process). Returns (spans, CPU seconds of the timed part, and the
    CPU seconds of its `DERIVED` figure: for `replay embedding` the model alone on the texts it
    embedded; for `replay exact + events` the timed part less what the exporter counted as its own).
    `passes`: how often the timed part runs (default: once, the baselines `BASELINE_PASSES` times);
    `counted`: run under callgrind (`instructions`): the number of reports of the last pass is printed
    (`reports N`), to be checked. `traffic`: `load_traffic`'s."""
    requests, refs = load_traffic(traffic, conversations, seed)
    bodies = [r.encode() for r in requests]
    run: Callable[[], Any]
    baseline = system in ("protobuf only", "parse to dicts")
    passes = passes if passes is not None else BASELINE_PASSES if baseline else 1
    if system == "protobuf only":
        run = partial(protobuf_only, bodies)
    elif system == "parse to dicts":
        run = partial(parse_to_dicts, bodies)
    else:
        lad = ladder("embedding" if system == "replay embedding" else "exact", None)
        lad.compare_text("warm-up", "revenue by month", "profit by month")  # lexicon and model loaded
        run = partial(replay, requests, refs, lad, _policies(system))
        if system == "replay exact + events":  # the exporter made (and its modules loaded) before timing
            if passes > 1:  # it closes at the end of a pass, and takes nothing after that
                raise ValueError("replay exact + events is measured in one pass")
            sink, events = _events_sink(full_batches=counted)
            run = partial(run, events=events)
    settle_heap()  # as `replay` does once it has loaded (runtime/heap.py), for every system alike
    start = time.process_time()
    result = None
    for _ in range(passes):
        result = run()
    seconds = (time.process_time() - start) / max(passes, 1)
    if counted and isinstance(result, dict):
        print(f"reports {result['reports']}", flush=True)
    derived_seconds = None
    if system == "replay exact + events":
        sink.terminate()
        sink.wait(timeout=30)
        counts = events.counts()
        derived_seconds = seconds - counts["evaluation_events_cpu_seconds"]
        if counts["evaluation_events_dropped"]:  # the count would be of less work than a full run's
            raise RuntimeError(f"{counts['evaluation_events_dropped']:.0f} evaluation events dropped")
    if system == "replay embedding":
        assert isinstance(lad.scorer, OnnxEmbedder)
        texts = lad.scorer.cached_texts()
        fresh = OnnxEmbedder(lad.config.embedder)  # cold: every text through the model once
        start = time.process_time()
        fresh.embed(texts)
        derived_seconds = time.process_time() - start
    return sum(r.spans for r in requests), seconds, derived_seconds


def _events_sink(full_batches: bool = False) -> tuple[subprocess.Popen[bytes], EvaluationEvents]:
    """For `replay exact + events`: a sink in a process of its own (`bench.otlp_sink`: the exporter's
    thread counts in this process's CPU time, the receiver's does not) and the exporter sending to it.
    `full_batches` (under callgrind): no batch sent for having waited its delay, only full ones and the
    rest at close, and time enough at close for the last one (`one` fails the measurement if any event
    was dropped). At full speed most batches fill before the 1 s delay (at 100 conversations every one:
    512, 512, 12; at 1,000 all but three); a run 50 times slower would send nearly all by the clock, in
    batches of a few records, each an HTTP request of its own."""
    port = free_port()
    sink = subprocess.Popen([sys.executable, "-m", "bench.otlp_sink", str(port)], cwd=ROOT)
    _wait_listening(port)
    config = EvaluationEventsConfig(endpoint=f"http://127.0.0.1:{port}")
    if full_batches:
        config = config.model_copy(update={"schedule_delay_s": 3600.0, "timeout_s": 600.0})
    return sink, EvaluationEvents(config)


def _wait_listening(port: int) -> None:
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"bench.otlp_sink did not listen on {port}")


def _policies(system: str) -> dict[str, Any]:
    """`replay exact + policy` / `+ grounding`: the built-in policy as every agent's, grounding off / on.
    No other system has one: `replay exact + events` is `replay exact` and the exporter, nothing more."""
    if system not in ("replay exact + policy", "replay exact + grounding"):
        return {}
    on = system == "replay exact + grounding"
    grounding = Grounding(arguments=on, replies=on)
    return {"default": BUILTIN.model_copy(update={"grounding": grounding})}


#: `--only`: a cost measured alone, with the systems its ratio needs (and the baseline of every row)
COSTS = {
    "grounding": ("parse to dicts", "replay exact + policy", "replay exact + grounding"),
    "events": ("parse to dicts", "replay exact", "replay exact + events"),
}
#: the costs with a target, by the name of their row: (their `COSTS` entry, the target)
COST_TARGETS = {
    "grounding cost": ("grounding", GROUNDING_TARGET),
    "evaluation events cost": ("events", EVENTS_TARGET),
}


def measure(
    conversations: int, seed: int, rounds: int, only: str | None = None, traffic: str = "loadgen"
) -> dict[str, Any]:
    systems = COSTS[only] if only else SYSTEMS
    cpu: dict[str, list[float]] = {name: [] for name in systems}
    cpu.update({name: [] for name, source in DERIVED.items() if source in systems})
    spans = 0
    context = multiprocessing.get_context("spawn")
    for i in range(rounds):
        for name in systems:  # interleaved, one fresh process each
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                job = pool.submit(one, name, conversations, seed, traffic=traffic)
                spans, seconds, derived_seconds = job.result()
            cpu[name].append(seconds)
            print(f"  round {i + 1} {name}: {spans / seconds:,.0f} spans per CPU-second", file=sys.stderr)
            for derived, source in DERIVED.items():
                if source == name and derived_seconds:
                    cpu[derived].append(derived_seconds)
    per_cpu = {name: spans / statistics.median(values) for name, values in cpu.items()}
    baseline = per_cpu["parse to dicts"]
    rows = [
        {
            "system": name,
            "spans_per_cpu_s": round(value),
            "vs_parse_to_dicts": round(value / baseline, 4),
            "target": TARGETS.get(name),
            "reached": None if name not in TARGETS else value / baseline >= TARGETS[name],
        }
        for name, value in per_cpu.items()
    ]
    for label, base, with_it, target in (
        *((label, *COSTS[name][1:], target) for label, (name, target) in COST_TARGETS.items()),
        ("events, in-run (bound)", "events run, less their CPU", "replay exact + events", None),
    ):
        if base in per_cpu and with_it in per_cpu:
            cost = per_cpu[with_it] / per_cpu[base]
            rows.append(
                {
                    "system": label,
                    "spans_per_cpu_s": None,
                    "vs_parse_to_dicts": round(cost, 4),
                    "target": None if target is None else round(target, 4),
                    "reached": None if target is None else cost >= target,
                }
            )
    return {
        "traffic": _described(traffic, conversations, spans, seed),
        "rounds": rounds,
        "rows": rows,
    }


#: `--counter instructions`: every system but the embedding rung (the model under valgrind takes hours).
#: The events' exporter sends on a second thread; callgrind counts both threads, and with full batches
#: (`_events_sink`) the same batches as at full speed
COUNTED = (
    "parse to dicts", "replay exact", "replay exact + policy", "replay exact + grounding", "replay exact + events",
)  # fmt: skip


def instructions(
    system: str, conversations: int, seed: int, passes: int, traffic: str = "loadgen"
) -> tuple[int, int | None]:
    """The instructions `one(system, …, passes)` executes, every thread of its process, counted by
    callgrind (the events' sink is another process and not counted), and the reports its pass made
    (None for the baselines and with no pass). The same program on the same input gives the same count
    whatever else the machine is doing, so hash seeds are fixed; the replay's clock stands still, as in
    `replay`, so the slower run closes nothing early (`bench.pipeline.replay`)."""
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m", "bench.ratios",
        "--child", system, "--passes", str(passes), "--conversations", str(conversations), "--seed", str(seed),
        "--traffic", traffic,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or not found:
        raise RuntimeError(f"callgrind of {system!r} ({passes} passes) failed:\n{done.stderr[-2000:]}")
    reports = re.search(r"^reports (\d+)$", done.stdout, re.MULTILINE)
    return int(found.group(1)), int(reports.group(1)) if reports else None


def measure_instructions(
    conversations: int, seed: int, only: str | None = None, traffic: str = "loadgen"
) -> dict[str, Any]:
    """Each system's timed part in instructions: its process run with one pass and with none, under
    callgrind, the difference (start-up, traffic generation and loading are the same in both). Runs two
    at a time; the counts do not depend on what runs beside them. Instructions are not CPU time (they
    leave out cache misses and stalls, and what one thread costs another through them), but the ratio of
    two Python pipelines' instructions follows their CPU ratio closely and reads the same on a busy
    machine as on a quiet one — which the CPU-time rounds here do not (their pairs spread by ±15 %)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--counter instructions needs valgrind (Debian package valgrind) on the PATH")
    systems = [s for s in COUNTED if not only or s in COSTS[only]]
    requests, refs = load_traffic(traffic, conversations, seed)
    spans = sum(r.spans for r in requests)
    native = replay(requests, refs, ladder("exact", None))["reports"]  # at full speed
    jobs = [(s, p) for s in systems for p in (0, 1)]
    with ThreadPoolExecutor(2) as pool:
        results = pool.map(lambda job: instructions(job[0], conversations, seed, job[1], traffic), jobs)
        counted = dict(zip(jobs, results, strict=True))
    for (system, _), (_, reports) in counted.items():
        if reports is not None and reports != native:  # the count is of different work: say so, not a ratio
            raise RuntimeError(f"{system!r} made {reports} reports under callgrind, {native} at full speed")
    per_pass = {s: counted[(s, 1)][0] - counted[(s, 0)][0] for s in systems}
    per_span = {s: per_pass[s] / spans for s in systems}
    rows: list[dict[str, Any]] = [
        {
            "system": s,
            "instructions_per_span": round(v),
            "vs_parse_to_dicts": round(per_span["parse to dicts"] / v, 4),
        }
        for s, v in per_span.items()
    ]
    for label, (name, target) in COST_TARGETS.items():
        base, with_it = COSTS[name][1:]
        if base in per_span and with_it in per_span:
            cost = per_span[base] / per_span[with_it]
            rows.append({"system": label, "instructions_per_span": None, "vs_parse_to_dicts": round(cost, 4),
                         "target": round(target, 4), "reached": cost >= target})  # fmt: skip
    return {"traffic": _described(traffic, conversations, spans, seed), "counter": "instructions",
            "rows": rows}  # fmt: skip


def _described(traffic: str, conversations: int, spans: int, seed: int) -> dict[str, Any]:
    if traffic == "loadgen":
        return {"conversations": conversations, "spans": spans, "seed": seed}
    return {"source": traffic, "spans": spans}


def table(results: dict[str, Any]) -> str:
    key, unit = (
        ("instructions_per_span", "instr./span")
        if "counter" in results
        else ("spans_per_cpu_s", "spans/CPU-s")
    )
    head = f"{'system':<26} {unit:>12} {'vs parse-to-dicts':>18} {'target':>8}"
    lines = [head, "-" * len(head)]
    for r in results["rows"]:
        target = "" if r.get("target") is None else f"≥ {r['target']}" + (" ✓" if r["reached"] else " ✗")
        figure = "" if r[key] is None else f"{r[key]:,}"
        lines.append(f"{r['system']:<26} {figure:>12} {r['vs_parse_to_dicts']:>18.4f} {target:>8}")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conversations", type=int, default=1000)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument(
        "--only",
        choices=sorted(COSTS),
        help="measure one cost alone (its systems and the baseline), more rounds for less",
    )
    p.add_argument(
        "--counter",
        choices=("cpu", "instructions"),
        default="cpu",
        help="cpu: CPU time, medians of rounds; instructions: counted by callgrind, one round (slow, steady)",
    )
    p.add_argument(
        "--traffic",
        choices=TRAFFIC,
        default="loadgen",
        help="loadgen (generated, with gold) or tau-bench (200 real runs, no gold; needs ../shared/data; "
        "with --only grounding; --conversations and --seed are loadgen's)",
    )
    p.add_argument("--child", choices=COUNTED, help=argparse.SUPPRESS)  # one measurement, under callgrind
    p.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.traffic != "loadgen" and not args.child and args.only != "grounding":
        # no gold: nothing reaches the embedding model, and the other costs are loadgen's figures
        p.error("--traffic tau-bench measures grounding's cost only: add --only grounding")
    if args.child:
        one(args.child, args.conversations, args.seed, args.passes, counted=True, traffic=args.traffic)
        return
    out = args.out
    if out == OUT:  # each kind of figure in a file of its own: `ratios-tau-bench-instructions.json`
        suffix = ("" if args.traffic == "loadgen" else f"-{args.traffic}") + (
            "-instructions" if args.counter == "instructions" else ""
        )
        out = OUT.with_name(f"{OUT.stem}{suffix}.json")
    if args.counter == "instructions":
        results = measure_instructions(args.conversations, args.seed, args.only, args.traffic)
    else:
        results = measure(args.conversations, args.seed, args.rounds, args.only, args.traffic)
    write_results(results, out, table(results))


if __name__ == "__main__":
    main()
