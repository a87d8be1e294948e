"""Kafka path benchmark (issue 5): end-to-end spans/s with 1 and 2 replicas, and report delay.

    .venv/bin/python -m bench.kafka [--conversations 300] [--out bench/results/kafka.json]

Starts its own single-node broker (deploy/kafka/broker.sh) in a temporary folder. For each replica
count it produces the recorded traffic (N conversations, one trace per message, random keys, 4
partitions), runs `agent-monitor consume --stage both` replicas, and measures:
- spans per second from the first message produced to the last conversation reported
  (produce → repartition → score → report), which includes the closing window;
- the delay from a conversation's last span to its report, and the part of it beyond the configured
  window (inactivity + lateness), p50 and p99.
A ratio of 2 to 1 replicas on this 2-core machine shows how much scale-out buys here; absolute
figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.integration.test_kafka import Broker, Topics, latest, stop, traffic, wait_for_group

ROOT = Path(__file__).resolve().parent.parent
INACTIVITY_S, LATENESS_S = 2.0, 1.0


def run(broker: Broker, replicas: int, n: int) -> dict[str, Any]:
    topics = Topics(broker, f"bench{replicas}-{int(time.time())}")
    topics.env.update(
        AGENT_MONITOR_WINDOWS__INACTIVITY_S=str(INACTIVITY_S),
        AGENT_MONITOR_SERVER__LATENESS_S=str(LATENESS_S),
    )
    procs = [topics.replica(f"b{i}") for i in range(replicas)]
    try:
        wait_for_group(topics, replicas)
        requests = traffic(n, seed=100 + replicas)  # stamped now: delays start at the conversation's real end
        started = time.time()
        topics.produce(requests)
        messages = topics.read(topics.results, want=n, settle_s=4, timeout_s=600)
    finally:
        stop(*procs)
    spans = sum(
        len(ss.spans)
        for r in requests
        for rs in ExportTraceServiceRequest.FromString(r).resource_spans
        for ss in rs.scope_spans
    )
    reports, _ = latest(messages)
    first_seen: dict[str, float] = {}
    for m in messages:
        key = m.key().decode()
        ts = m.timestamp()[1] / 1000
        first_seen[key] = min(first_seen.get(key, ts), ts)
    done = max(first_seen.values())
    delays = sorted(first_seen[k] - reports[k]["ended_ns"] / 1e9 for k in reports)
    beyond = [d - INACTIVITY_S - LATENESS_S for d in delays]

    def pct(xs: list[float], q: float) -> float:
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 3)

    return {
        "replicas": replicas, "conversations": len(reports), "spans": spans,
        "seconds": round(done - started, 2), "spans_per_s": round(spans / (done - started), 1),
        "delay_p50_s": pct(delays, 0.5), "delay_p99_s": pct(delays, 0.99),
        "beyond_window_p50_s": pct(sorted(beyond), 0.5), "beyond_window_p99_s": pct(sorted(beyond), 0.99),
    }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--conversations", type=int, default=1000)
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "kafka.json")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(Path(tmp))
        broker.start()
        try:
            rows = [run(broker, r, args.conversations) for r in (1, 2)]
        finally:
            broker.stop()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n")
    head = (
        "replicas",
        "convs",
        "spans",
        "seconds",
        "spans/s",
        "delay p50",
        "p99",
        "beyond-window p50",
        "p99",
    )
    widths = (8, 6, 6, 8, 8, 10, 7, 18, 7)
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True)))
    for r in rows:
        print(
            f"{r['replicas']:>8} {r['conversations']:>6} {r['spans']:>6} {r['seconds']:>8} {r['spans_per_s']:>8} "
            f"{r['delay_p50_s']:>10} {r['delay_p99_s']:>7} {r['beyond_window_p50_s']:>18} {r['beyond_window_p99_s']:>7}"
        )
    print(f"2 replicas vs 1: {rows[1]['spans_per_s'] / rows[0]['spans_per_s']:.2f}x spans/s")


if __name__ == "__main__":
    main()
