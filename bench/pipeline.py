"""Whole-pipeline benchmark suite (issue 8): correctness against generated truth, throughput, delay,
memory, scaling, soak. Figures are ratios against baselines measured in the same run, never timed
assertions; the table and a JSON file are the output.

    .venv/bin/python -m bench.pipeline                       # the suite (about 10 minutes on 2 cores)
    .venv/bin/python -m bench.pipeline --quick               # a smaller run of the same measurements
    .venv/bin/python -m bench.pipeline --scale 100000        # also the 100k-conversation point
    .venv/bin/python -m bench.pipeline --scale-only 100000   # only that point
    .venv/bin/python -m bench.pipeline --soak 300            # only the soak: fixed rate, fixed time

Measured, on generated traffic (`monitor.loadgen`, seed fixed):
- correctness: the monitor's reports vs the truth (verdicts, reasons, root cause vs cascade, roots);
- replay throughput in spans/s and spans per CPU-second, four ways: `exact` (no embedding rung: the
  policy/exact figure), `embedding` (the shipped scorer: per-text, lazy, cached), `batched` (the same
  with `exact_per_text: false`), and the naive baseline (every text comparison embeds both texts first,
  one pair at a time, no cache, no fast path) — speed-ups are ratios;
- `run` over OTLP/HTTP: a real `agent-monitor run` subprocess fed as fast as it answers, spans/s; and
  paced at a fixed rate, the delay from the request that closes a conversation to its report line;
- memory per open conversation and per open span (Python heap growth, by tracemalloc, with every
  conversation held open — RSS would hide the reuse of memory freed earlier);
- scaling of replay throughput and memory from 1k to 10k (to 100k with --scale) conversations;
- soak: `run` at a fixed rate for a fixed time; RSS sampled; nothing lost and memory flat. Bounded
  structures fill first (the embedding cache, 50k texts; 1000 closed conversations kept for late
  spans; the normalisation caches), so memory rises until they are full, then stays: run it long
  enough (at 10 conversations/s the embedding cache is full after about 8 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from monitor.compare.embedder import OnnxEmbedder, load_embedder
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig, WindowConfig
from monitor.loadgen.evaluate import evaluate
from monitor.loadgen.scenarios import gold_dialog
from monitor.loadgen.send import deliver, write_references
from monitor.loadgen.traffic import LoadConfig, Request, Traffic
from monitor.publish.evaluation_events import EvaluationEvents
from monitor.reference.golden import parse_dialog
from monitor.report import latest_reports
from monitor.runtime.pipeline import Pipeline

ROOT = Path(__file__).resolve().parent.parent
PROTOBUF = "application/x-protobuf"


def generate(n: int, seed: int = 11, **kw: Any) -> tuple[Traffic, list[Request], list[dict[str, Any]]]:
    traffic = Traffic(LoadConfig(conversations=n, seed=seed, **kw))
    truth: list[dict[str, Any]] = []
    return traffic, list(traffic.requests(truth)), truth


def references(traffic: Traffic) -> dict[str, Any]:
    out = {}
    for ref in traffic.all_references():
        d = gold_dialog(ref)
        out[d["dialog_id"]] = parse_dialog(d, "generated", d["dialog_id"])
    return out


def ladder(mode: str, embedder: OnnxEmbedder | None) -> Ladder:
    config = ScoringConfig()
    if mode == "exact":
        return Ladder(config, None)
    if mode == "naive":
        from bench.embedder import NaiveScorer

        assert embedder is not None
        return NaiveLadder(config, NaiveScorer(embedder))
    if mode == "batched":  # exact_per_text off: batches run through the model together (not bit-reproducible)
        config = config.model_copy(
            update={"embedder": config.embedder.model_copy(update={"exact_per_text": False})}
        )
    fresh = OnnxEmbedder(config.embedder)  # not load_embedder (one per process): its own, cold cache
    return Ladder(config, fresh)


class NaiveLadder(Ladder):
    """The baseline: every comparison pays an embedding call for both texts — no exact/normalized/typed
    fast path first, no batching, no cache — then decides as the real ladder does (same verdicts)."""

    def compare_text(
        self, field: str, gold: str, predicted: str, enum_values: Any = (), kind: Any = None
    ) -> Any:
        assert self.scorer is not None
        self.scorer.score_pairs([(gold, predicted)])
        return super().compare_text(field, gold, predicted, enum_values=enum_values, kind=kind)


def replay(
    requests: list[Request],
    refs: dict[str, Any],
    lad: Ladder,
    policies: dict[str, Any] | None = None,
    events: EvaluationEvents | None = None,
) -> dict[str, Any]:
    """`events`: also send the evaluation events (closed, so everything queued is sent, within the time)."""
    reports: list[dict[str, Any]] = []
    config = ScoringConfig(windows=WindowConfig(end_marker_grace_s=0))  # as `replay`: all input is in
    # as `replay`: the whole input arrives at the instant the replay starts, so nothing closes by
    # inactivity while it is read, however slowly (under callgrind a pass takes minutes, and a running
    # clock would close and reopen conversations that a native pass scores once)
    started_ns = time.time_ns()
    pipeline = Pipeline(
        config, lad, refs, reports.append, policies=policies, events=events, clock=lambda: started_ns
    )
    cpu0, t0 = time.process_time(), time.perf_counter()
    for r in requests:
        pipeline.ingest(r.encode(), PROTOBUF, "bench")
    pipeline.flush()
    if events is not None:
        events.close()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    spans = sum(r.spans for r in requests)
    rungs = comparisons_by_rung(reports)
    return {
        "spans": spans,
        "seconds": round(wall, 2),
        "spans_per_s": round(spans / wall),
        "spans_per_cpu_s": round(spans / cpu),
        "reports": len(reports),
        "comparisons_by_rung": rungs,
        "embedding_share": round(rungs.get("embedding", 0) / max(sum(rungs.values()), 1), 4),
        "_reports": reports,
    }


def comparisons_by_rung(reports: list[dict[str, Any]]) -> dict[str, int]:
    """Which rung of the ladder decided each comparison of every turn: how often the model is consulted
    (issue 17: less often than before, at no loss of accuracy)."""
    counts: dict[str, int] = {}
    for report in reports:
        for turn in report.get("turns", []):
            for c in turn.get("comparisons", []):
                counts[c["rung"]] = counts.get(c["rung"], 0) + 1
    return dict(sorted(counts.items()))


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def open_memory(n: int) -> dict[str, Any]:
    """RSS growth while `n` conversations are all open (no end marker, nothing idle long enough)."""
    traffic, requests, _ = generate(n, seed=23, end_marker=False)
    config = ScoringConfig(windows=WindowConfig(inactivity_s=10**6, max_age_s=10**7, max_open=10**7))
    pipeline = Pipeline(config, Ladder(config, None), {}, lambda _r: None)
    payloads = [r.encode() for r in requests]
    del requests
    import gc
    import tracemalloc

    gc.collect()
    tracemalloc.start()  # Python heap held by open conversations (RSS would hide reuse of freed memory)
    before = tracemalloc.get_traced_memory()[0]
    for p in payloads:
        pipeline.ingest(p, PROTOBUF, "bench")
    gc.collect()
    grown = (tracemalloc.get_traced_memory()[0] - before) / 2**20
    tracemalloc.stop()
    spans = pipeline.store.open_spans
    out = {
        "conversations_open": len(pipeline.store.open),
        "spans_open": spans,
        "heap_growth_mb": round(grown, 1),
        "kb_per_open_span": round(grown * 1024 / max(spans, 1), 2),
        "mb_per_1000_conversations": round(grown * 1000 / max(len(pipeline.store.open), 1), 1),
    }
    del traffic
    return out


# -- `run` as a subprocess --------------------------------------------------------------------


def free_port() -> int:
    """A port nothing listens on now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    """`agent-monitor run` on free ports, its report lines timestamped as they appear."""

    def __init__(self, workdir: Path, gold: Path, env_extra: dict[str, str] | None = None) -> None:
        self.out = workdir / "reports.jsonl"
        self.http = free_port()
        env = {
            **os.environ,
            "AGENT_MONITOR_SERVER__METRICS_PORT": str(free_port()),
            "AGENT_MONITOR_SERVER__TICK_S": "0.2",
            **(env_extra or {}),
        }
        cmd = [sys.executable, "-m", "monitor", "run", "--gold", str(gold), "--out", str(self.out),
               "--http-port", str(self.http), "--grpc-port", str(free_port())]  # fmt: skip
        self.log = (workdir / "service.log").open("w")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.seen: dict[str, float] = {}  # conversation -> wall time its first report line appeared
        self.lines = 0
        self._stop = threading.Event()
        deadline = time.time() + 60
        while not self._ready():
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"agent-monitor run did not start: see {workdir / 'service.log'}")
            time.sleep(0.2)
        self._tail = threading.Thread(target=self._follow, daemon=True)
        self._tail.start()

    def _ready(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.http)) == 0

    def _follow(self) -> None:
        while not self.out.exists():
            time.sleep(0.05)
        with self.out.open() as f:
            buf = ""
            while not self._stop.is_set():
                chunk = f.readline()
                if not chunk:
                    time.sleep(0.01)
                    continue
                buf += chunk
                if not buf.endswith("\n"):
                    continue
                now = time.time()
                cid = json.loads(buf)["conversation_id"]
                buf = ""
                self.lines += 1
                self.seen.setdefault(cid, now)

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def wait_for(self, conversations: set[str], timeout: float) -> None:
        deadline = time.time() + timeout
        while not conversations <= set(self.seen) and time.time() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        self.proc.terminate()
        self.proc.wait(30)
        self.log.close()


def _run_service(
    workdir: Path, traffic: Traffic, body: Callable[[Service], dict[str, Any]]
) -> dict[str, Any]:
    gold = workdir / "gold" / "references.jsonl"
    write_references(traffic.all_references(), gold)
    service = Service(workdir, gold.parent)
    try:
        return body(service)
    finally:
        service.stop()


def run_throughput(workdir: Path, n: int) -> dict[str, Any]:
    traffic, requests, _ = generate(n, seed=31)
    everyone = set().union(*(r.conversations for r in requests))

    def body(service: Service) -> dict[str, Any]:
        t0 = time.perf_counter()
        done = deliver(requests, f"http://127.0.0.1:{service.http}", paced=False, start_ns=0)
        service.wait_for(everyone, timeout=1800)
        wall = time.perf_counter() - t0
        return {"spans": done.spans, "seconds": round(wall, 1), "spans_per_s": round(done.spans / wall),
                "reported": len(everyone & set(service.seen)), "conversations": len(everyone)}  # fmt: skip

    return _run_service(workdir, traffic, body)


def close_to_report(workdir: Path, n: int, rate: float) -> dict[str, Any]:
    """Paced in real time at `rate` conversations/s: delay from the request carrying a conversation's end
    marker leaving the client to the conversation's report line appearing."""
    start = time.time_ns() + 3 * 10**9
    traffic = Traffic(LoadConfig(conversations=n, seed=37, rate=rate, time_scale=0.25, start_ns=start))
    requests = list(traffic.requests())

    def body(service: Service) -> dict[str, Any]:
        sent: dict[str, float] = {}
        from monitor.loadgen.send import _sender

        send, close = _sender(f"http://127.0.0.1:{service.http}")
        for r in requests:
            wait = r.deliver_ns / 1e9 - time.time()
            if wait > 0:
                time.sleep(wait)
            body = r.encode()
            now = time.time()  # the request leaves now; the receiver scores before it answers
            send(body, 0)
            for cid in r.closes:
                sent[cid] = now
        close()
        service.wait_for(set(sent), timeout=120)
        delays = sorted(service.seen[c] - t for c, t in sent.items() if c in service.seen)
        return {
            "conversations": len(sent), "reported": len(delays), "rate_per_s": rate,
            "spans_per_s": round(sum(r.spans for r in requests) / ((requests[-1].deliver_ns - start) / 1e9)),
            "p50_s": round(_pct(delays, 0.5), 3), "p99_s": round(_pct(delays, 0.99), 3),
            "max_s": round(delays[-1], 3) if delays else None,
        }  # fmt: skip

    return _run_service(workdir, traffic, body)


def soak(workdir: Path, seconds: float, rate: float) -> dict[str, Any]:
    n = int(seconds * rate)
    start = time.time_ns() + 3 * 10**9
    traffic = Traffic(LoadConfig(conversations=n, seed=41, rate=rate, time_scale=0.25, start_ns=start))

    def body(service: Service) -> dict[str, Any]:
        samples: list[tuple[float, float]] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                samples.append((time.time(), service.rss_mb()))
                stop.wait(2.0)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        everyone: set[str] = set()

        def track() -> Any:
            for r in traffic.requests():
                everyone.update(r.conversations)
                yield r

        done = deliver(track(), f"http://127.0.0.1:{service.http}", paced=True, start_ns=start - 0)
        service.wait_for(everyone, timeout=120)
        stop.set()
        sampler.join()
        third = max(1, len(samples) // 3)
        first = sum(m for _, m in samples[:third]) / third
        middle = sum(m for _, m in samples[third : 2 * third]) / max(1, len(samples[third : 2 * third]))
        last = sum(m for _, m in samples[-third:]) / third
        return {
            "seconds": seconds, "rate_per_s": rate, "conversations": len(everyone), "spans": done.spans,
            "reported": len(everyone & set(service.seen)), "lost": len(everyone - set(service.seen)),
            "refused_requests": done.failed, "rss_first_third_mb": round(first, 1),
            "rss_middle_third_mb": round(middle, 1), "rss_last_third_mb": round(last, 1),
            "rss_growth_pct": round(100 * (last - first) / first, 1),
            "rss_growth_last_two_thirds_pct": round(100 * (last - middle) / middle, 1),
            "rss_peak_mb": round(max(m for _, m in samples), 1),
        }  # fmt: skip

    return _run_service(workdir, traffic, body)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


# -- the suite ------------------------------------------------------------------------------------


def suite(quick: bool, scale: int) -> dict[str, Any]:
    n = 300 if quick else 1000
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    traffic, requests, truth = generate(n)
    refs = references(traffic)
    base_embedder = load_embedder(ScoringConfig().embedder)

    print(f"replay: {n} conversations, {sum(r.spans for r in requests)} spans", file=sys.stderr)
    modes: dict[str, Any] = {}
    for mode in ("exact", "embedding", "batched", "naive"):
        r = replay(requests, refs, ladder(mode, base_embedder))
        reports = r.pop("_reports")
        summary = evaluate(truth, latest_reports(reports)).summary()
        if mode == "embedding":  # the shipped configuration: its correctness is the headline
            results["correctness"] = summary
        r["correctness"] = {k: v for k, v in summary.items() if k != "by_fault"}
        modes[mode] = r
        print(f"  {mode}: {r['spans_per_s']} spans/s", file=sys.stderr)
    modes["embedding_vs_naive"] = round(modes["embedding"]["spans_per_s"] / modes["naive"]["spans_per_s"], 2)
    results["replay"] = modes

    points = [1000, 10000]
    if scale > points[-1]:
        points.append(scale)
    results["scaling"] = scaling(points)

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "a").mkdir()
        (Path(tmp) / "b").mkdir()
        results["run_http"] = run_throughput(Path(tmp) / "a", n)
        print(f"run over HTTP: {results['run_http']}", file=sys.stderr)
        results["close_to_report"] = close_to_report(Path(tmp) / "b", 200 if quick else 600, rate=10.0)
        print(f"close to report: {results['close_to_report']}", file=sys.stderr)
    results["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return results


def scaling(points: list[int]) -> dict[str, Any]:
    out = {}
    for size in points:
        t, reqs, _ = generate(size, seed=17)
        r = replay(reqs, references(t), ladder("exact", None))
        r.pop("_reports")
        del reqs
        print(f"scaling {size}: replay exact {r['spans_per_s']} spans/s; measuring memory", file=sys.stderr)
        out[str(size)] = {"replay_exact_spans_per_s": r["spans_per_s"], **open_memory(size)}
        print(f"scaling {size}: {out[str(size)]}", file=sys.stderr)
    return out


def table(results: dict[str, Any]) -> str:
    rows: list[tuple[str, str, str]] = []
    c = results.get("correctness")
    if c:
        for key, target in (("verdict_accuracy", "≥ 0.99"), ("reason_accuracy", ""),
                            ("root_cause_precision", "≥ 0.95"), ("root_cause_recall", "≥ 0.95"),
                            ("cascade_precision", ""), ("cascade_recall", ""),
                            ("cascade_root_turn_accuracy", ""), ("first_failure_turn_accuracy", "")):  # fmt: skip
            rows.append((f"correctness: {key}", str(c[key]), target))
    rp = results.get("replay")
    if rp:
        rows.append(("replay exact (policy/exact), spans/s", str(rp["exact"]["spans_per_s"]), "≥ 20000"))
        rows.append(("replay embedding, spans/s", str(rp["embedding"]["spans_per_s"]), "≥ 5000"))
        rows.append(
            ("replay embedding batched (not reproducible), spans/s", str(rp["batched"]["spans_per_s"]), "")
        )
        rows.append(("replay naive baseline, spans/s", str(rp["naive"]["spans_per_s"]), ""))
        rows.append(("embedding vs naive (ratio)", f"{rp['embedding_vs_naive']}×", ""))
        rows.append(("replay exact, spans per CPU-second", str(rp["exact"]["spans_per_cpu_s"]), ""))
        rows.append(("replay embedding, spans per CPU-second", str(rp["embedding"]["spans_per_cpu_s"]), ""))
        rows.append(
            ("comparisons decided by the embedding (share)", str(rp["embedding"]["embedding_share"]), "")
        )
    for size, s in results.get("scaling", {}).items():
        rows.append((f"{size} conversations: replay exact spans/s", str(s["replay_exact_spans_per_s"]), ""))
        rows.append((f"{size} open: KB per open span", str(s["kb_per_open_span"]), "≤ 5"))
        rows.append((f"{size} open: MB per 1000 conversations", str(s["mb_per_1000_conversations"]), ""))
    if "run_http" in results:
        r = results["run_http"]
        rows.append(("run (OTLP/HTTP, embedding), spans/s", str(r["spans_per_s"]), "≥ 5000"))
        rows.append(("run: conversations reported / sent", f"{r['reported']}/{r['conversations']}", "all"))
    if "close_to_report" in results:
        d = results["close_to_report"]
        rows.append((f"close → report p50 / p99 at {d['rate_per_s']} conv/s", f"{d['p50_s']} / {d['p99_s']} s",
                     "p99 ≤ 2 s"))  # fmt: skip
    if "soak" in results:
        s = results["soak"]
        rows.append((f"soak {s['seconds']} s at {s['rate_per_s']} conv/s: lost", str(s["lost"]), "0"))
        rows.append(("soak RSS first → middle → last third (MB)",
                     f"{s['rss_first_third_mb']} → {s['rss_middle_third_mb']} → {s['rss_last_third_mb']}", "flat"))  # fmt: skip
    width = max(len(r[0]) for r in rows)
    lines = [f"{'measure'.ljust(width)}  {'value':>22}  target", "-" * (width + 34)]
    lines += [f"{a.ljust(width)}  {b:>22}  {t}" for a, b, t in rows]
    return "\n".join(lines)


def write_results(results: dict[str, Any], out: Path, shown: str) -> None:
    """The JSON file, then the table and where the JSON went, on stdout."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(shown)
    print(f"\nJSON: {out}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller sizes, same measurements")
    p.add_argument("--scale", type=int, default=0, help="add this many conversations to the scaling points")
    p.add_argument(
        "--scale-only", type=int, default=0, help="only the scaling point of this many conversations"
    )
    p.add_argument("--soak", type=float, default=0, help="only the soak, for this many seconds")
    p.add_argument("--soak-rate", type=float, default=10.0, help="conversations per second in the soak")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "pipeline.json")
    args = p.parse_args()
    if args.soak:
        with tempfile.TemporaryDirectory() as tmp:
            results = {"soak": soak(Path(tmp), args.soak, args.soak_rate)}
        args.out = args.out.with_name("soak.json") if args.out.name == "pipeline.json" else args.out
    elif args.scale_only:
        results = {"scaling": scaling([args.scale_only])}
        if args.out.name == "pipeline.json":
            args.out = args.out.with_name(f"scaling-{args.scale_only}.json")
    else:
        results = suite(args.quick, args.scale)
    write_results(results, args.out, table(results))


if __name__ == "__main__":
    main()
