"""Side-by-side anchor (issue 16): the OpenTelemetry Collector and `agent-monitor run` fed the same
traffic by the same sender, in spans per CPU-second of the receiving process.

    bench/collector/build.sh                      # once: the Collector v0.165, built by ocb (~4 min)
    .venv/bin/python -m bench.anchor              # 1000 conversations, 3 rounds, table + JSON
    .venv/bin/python -m bench.anchor --conversations 300 --rounds 1 --modes exact

Traffic: `python -m monitor loadgen --out DIR` (seed fixed), its OTLP protobuf request files read
into memory once. Sender: `--connections` threads (default 4), each one keep-alive HTTP/1.1
connection (httpx), POSTing the files to /v1/traces as fast as they are answered. Receivers, each a
fresh process per round on 127.0.0.1:
- `collector`: otlpreceiver → batch → nop, the Collector's own cost of receiving and batching;
- `run exact`: `agent-monitor run` with `embedder.enabled: false` (exact/policy scoring, the issue's
  ≥ 0.1 × Collector goal);
- `run default`: `agent-monitor run` as shipped (embedding rung on).
The Collector's share of a round is small (a fifth of a second for 1000 conversations, counted in
1/100 s clock ticks), so it is sent the same requests `--collector-passes` times (default 5) in each
round and its CPU time is divided by as many spans. A round ends when every request is answered
and, for `run`, every conversation is reported and the receiver's CPU time has stopped rising. CPU
time is user + system of the receiving process and its descendants, from /proc/<pid>/stat, counted
from just before the first request (start-up and model loading excluded). The figure is the median
over rounds; the ratio to the Collector is from the same run. Absolute figures depend on the
machine: compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.pipeline import Service, free_port, write_results

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "bench" / "collector" / "build.sh"
TICK_S = os.sysconf("SC_CLK_TCK")
MODES = ("exact", "default")


# -- the receiving processes ----------------------------------------------------------------------


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process and its live descendants (/proc/<pid>/stat)."""
    return sum(cpu_by_process(pid).values())


def cpu_by_process(pid: int) -> dict[int, float]:
    """User + system CPU seconds of a live process and of each of its live descendants, by pid."""
    out: dict[int, float] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            out[p] = (int(fields[11]) + int(fields[12])) / TICK_S  # utime, stime (fields 14, 15)
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return out


def settle(pid: int, quiet_s: float = 1.0, step_s: float = 0.25) -> float:
    """The process's CPU time once it has not risen for `quiet_s` (its backlog is done)."""
    last, still = cpu_s(pid), 0.0
    while still < quiet_s:
        time.sleep(step_s)
        now = cpu_s(pid)
        still = still + step_s if now - last < 0.02 else 0.0
        last = now
    return last


def collector_binary() -> Path | None:
    out = subprocess.run(["bash", str(BUILD), "path"], capture_output=True, text=True, check=True)
    path = Path(out.stdout.strip())
    return path if path.is_file() and os.access(path, os.X_OK) else None


class Collector:
    """The built Collector, otlp (HTTP only) → batch → nop, on a free port; its own metrics off."""

    def __init__(self, binary: Path, workdir: Path) -> None:
        self.http = free_port()
        config = workdir / "anchor.yaml"
        config.write_text(
            f"receivers: {{otlp: {{protocols: {{http: {{endpoint: '127.0.0.1:{self.http}'}}}}}}}}\n"
            "processors: {batch: {}}\n"
            "exporters: {nop: {}}\n"
            "service:\n"
            "  telemetry: {metrics: {level: none}}\n"
            "  pipelines: {traces: {receivers: [otlp], processors: [batch], exporters: [nop]}}\n"
        )
        self.log = (workdir / "collector.log").open("w")
        self.proc = subprocess.Popen(
            [str(binary), "--config", str(config)], stdout=self.log, stderr=subprocess.STDOUT
        )
        _wait_open(self.http, self.proc, workdir / "collector.log")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.log.close()


def _wait_open(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    import socket

    deadline = time.time() + 60
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.time() > deadline or proc.poll() is not None:
            raise RuntimeError(f"the receiver did not start: see {log}")
        time.sleep(0.1)


# -- the sender -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    refused: int  # answered neither 200 nor 429
    throttled: int  # 429 answers (each request was sent again after its Retry-After)
    wall_s: float


def send(bodies: list[bytes], url: str, connections: int) -> Sent:
    """POST every body over `connections` keep-alive connections, as an OTLP exporter does: a 429 is
    sent again after its Retry-After."""
    work: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    for b in bodies:
        work.put(b)
    for _ in range(connections):
        work.put(None)
    refused, throttled = [0] * connections, [0] * connections
    headers = {"Content-Type": "application/x-protobuf"}

    def worker(i: int) -> None:
        with httpx.Client(timeout=600.0) as client:  # one connection, kept alive for every request
            while (body := work.get()) is not None:
                while (r := client.post(url, content=body, headers=headers)).status_code == 429:
                    throttled[i] += 1
                    time.sleep(float(r.headers.get("Retry-After", "1")))
                if r.status_code != 200:
                    refused[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Sent(sum(refused), sum(throttled), time.perf_counter() - t0)


# -- one round per receiver -----------------------------------------------------------------------


def round_collector(
    binary: Path, workdir: Path, bodies: list[bytes], connections: int, passes: int
) -> dict[str, Any]:
    collector = Collector(binary, workdir)
    try:
        cpu0 = cpu_s(collector.proc.pid)
        sent = send(bodies * passes, f"http://127.0.0.1:{collector.http}/v1/traces", connections)
        cpu = settle(collector.proc.pid) - cpu0
    finally:
        collector.stop()
    return {"cpu_s": cpu / passes, "wall_s": sent.wall_s / passes, "refused": sent.refused, "reported": None}


def round_run(
    mode: str, workdir: Path, gold: Path, bodies: list[bytes], everyone: set[str], connections: int
) -> dict[str, Any]:
    env = {"AGENT_MONITOR_WINDOWS__INACTIVITY_S": "2"}  # conversations without an end marker close soon
    if mode == "exact":
        env["AGENT_MONITOR_EMBEDDER__ENABLED"] = "false"
    service = Service(workdir, gold, env)
    try:
        cpu0 = cpu_s(service.proc.pid)
        sent = send(bodies, f"http://127.0.0.1:{service.http}/v1/traces", connections)
        service.wait_for(everyone, timeout=1800)
        cpu = settle(service.proc.pid) - cpu0
        reported = len(everyone & set(service.seen))
    finally:
        service.stop()
    return {"cpu_s": cpu, "wall_s": sent.wall_s, "refused": sent.refused, "reported": reported}


@dataclass(frozen=True)
class Load:
    """Loadgen traffic in memory: the request bodies, their spans, the conversations, the gold."""

    bodies: list[bytes]
    spans: int
    everyone: set[str]
    gold: Path

    def describe(self, args: argparse.Namespace) -> dict[str, Any]:
        """The machine and the traffic, for a results file."""
        return {
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "load": os.getloadavg()},
            "traffic": {"conversations": len(self.everyone), "spans": self.spans, "requests": len(self.bodies),
                        "seed": args.seed, "connections": args.connections},
        }  # fmt: skip


def load_traffic(traffic: Path, conversations: int, seed: int) -> Load:
    """`monitor loadgen` into `traffic`, its request files read into memory once."""
    subprocess.run(
        [sys.executable, "-m", "monitor", "loadgen", "--out", str(traffic), "--conversations",
         str(conversations), "--seed", str(seed)],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    bodies = [f.read_bytes() for f in sorted((traffic / "traffic").glob("*.pb"))]
    spans = _spans(bodies)
    everyone = {json.loads(line)["conversation_id"] for line in (traffic / "truth.jsonl").open()}
    print(f"traffic: {len(everyone)} conversations, {spans} spans in {len(bodies)} requests "
          f"({sum(map(len, bodies)) / 2**20:.1f} MB)", file=sys.stderr)  # fmt: skip
    return Load(bodies, spans, everyone, traffic / "gold")


def traffic_args(p: argparse.ArgumentParser, conversations: int, rounds: int) -> None:
    """The options every side-by-side bench shares: traffic size and seed, rounds, the sender."""
    p.add_argument("--conversations", type=int, default=conversations)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rounds", type=int, default=rounds, help="fresh receivers per round; medians reported")
    p.add_argument("--connections", type=int, default=4, help="keep-alive HTTP connections of the sender")


def measure(args: argparse.Namespace, binary: Path, tmp: Path) -> dict[str, Any]:
    traffic = tmp / "traffic"
    load = load_traffic(traffic, args.conversations, args.seed)
    bodies, spans, everyone = load.bodies, load.spans, load.everyone
    systems = ["collector", *(f"run {m}" for m in args.modes)]
    rounds: dict[str, list[dict[str, Any]]] = {s: [] for s in systems}
    for i in range(args.rounds):
        for system in systems:  # interleaved, so a slow moment of the machine falls on every system
            workdir = tmp / f"{system.replace(' ', '-')}-{i}"
            workdir.mkdir()
            if system == "collector":
                r = round_collector(binary, workdir, bodies, args.connections, args.collector_passes)
            else:
                r = round_run(
                    system.split()[1], workdir, traffic / "gold", bodies, everyone, args.connections
                )
            r["spans_per_cpu_s"] = spans / r["cpu_s"]
            rounds[system].append(r)
            print(f"  round {i + 1} {system}: {r['spans_per_cpu_s']:,.0f} spans per CPU-second "
                  f"({r['cpu_s']:.2f} CPU-s, {r['wall_s']:.2f} s wall)", file=sys.stderr)  # fmt: skip
    anchor = statistics.median(r["spans_per_cpu_s"] for r in rounds["collector"])
    rows = []
    for system, rs in rounds.items():
        per_cpu = statistics.median(r["spans_per_cpu_s"] for r in rs)
        rows.append({
            "system": system, "spans": spans, "rounds": len(rs),
            "spans_per_cpu_s": round(per_cpu), "cpu_s": round(statistics.median(r["cpu_s"] for r in rs), 2),
            "spans_per_wall_s": round(spans / statistics.median(r["wall_s"] for r in rs)),
            "vs_collector": round(per_cpu / anchor, 4),
            "refused_requests": sum(r["refused"] for r in rs),
            "reported": None if rs[0]["reported"] is None else min(r["reported"] for r in rs),
        })  # fmt: skip
    out = load.describe(args)
    out["traffic"]["collector_passes"] = args.collector_passes
    return {**out, "rows": rows}


def _spans(bodies: list[bytes]) -> int:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    return sum(
        len(ss.spans)
        for b in bodies
        for rs in ExportTraceServiceRequest.FromString(b).resource_spans
        for ss in rs.scope_spans
    )


def table(results: dict[str, Any]) -> str:
    head = f"{'system':<12} {'spans/CPU-s':>12} {'CPU-s':>8} {'spans/s wall':>13} {'vs Collector':>13} {'reported':>9}"
    lines = [head, "-" * len(head)]
    for r in results["rows"]:
        ratio = r["vs_collector"]
        shown = f"{ratio:.3f}" + (f" (1/{1 / ratio:.0f})" if ratio < 1 else "")
        reported = "" if r["reported"] is None else f"{r['reported']}/{results['traffic']['conversations']}"
        lines.append(f"{r['system']:<12} {r['spans_per_cpu_s']:>12,} {r['cpu_s']:>8} "
                     f"{r['spans_per_wall_s']:>13,} {shown:>13} {reported:>9}")  # fmt: skip
    exact = next((r for r in results["rows"] if r["system"] == "run exact"), None)
    if exact:
        verdict = "reached" if exact["vs_collector"] >= 0.1 else "not reached"
        lines.append(f"\nrun exact vs Collector, per CPU-second: {exact['vs_collector']:.3f}× "
                     f"(issue 16 goal ≥ 0.1×: {verdict})")  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    traffic_args(p, conversations=1000, rounds=3)
    p.add_argument(
        "--collector-passes", type=int, default=5, help="times the Collector is sent the traffic per round"
    )
    p.add_argument("--modes", type=lambda s: s.split(","), default=list(MODES), help="exact,default")
    p.add_argument("--build", action="store_true", help="build the Collector first if it is missing")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "anchor.json")
    args = p.parse_args()
    if bad := set(args.modes) - set(MODES):
        p.error(f"--modes: unknown {sorted(bad)}; choose from {','.join(MODES)}")
    binary = collector_binary()
    if binary is None and args.build:
        if shutil.which("go") is None:
            print("bench.anchor: Go is not installed, so the Collector cannot be built "
                  "(bench/collector/build.sh needs Go 1.26+)", file=sys.stderr)  # fmt: skip
            return 2
        if subprocess.run(["bash", str(BUILD)]).returncode != 0:
            print("bench.anchor: the Collector build failed (see the lines above)", file=sys.stderr)
            return 2
        binary = collector_binary()
    if binary is None:
        print("bench.anchor: the Collector is not built; run bench/collector/build.sh (needs Go, about 4 "
              "minutes) or pass --build", file=sys.stderr)  # fmt: skip
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        results = measure(args, binary, Path(tmp))
    write_results(results, args.out, table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
