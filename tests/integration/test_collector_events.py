"""The Collector path of issue 28 with a real OpenTelemetry Collector running the shipped
deploy/otel-collector/fanout.yaml: the Collector fans the recorded agent spans out to a trace backend (an
in-process OTLP receiver here) and to `agent-monitor run`; the monitor's evaluation events come back into
the Collector's logs pipeline and reach the backend, each on a span that was in the input.

Needs the Collector that `bench/collector/build.sh` builds (Go, a few minutes; the test command,
.ci/test, builds it first): without it these tests are skipped and say how to build it. The same events
are also checked against an in-process receiver (tests/integration/test_evaluation_events.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from bench.otlp_sink import otlp_sink
from bench.pipeline import free_port
from tests.integration.test_dashboards import _wait
from tests.integration.test_evaluation_events import FIXTURES, GOLD, recorded_spans

ROOT = Path(__file__).resolve().parents[2]
FANOUT = ROOT / "deploy" / "otel-collector" / "fanout.yaml"
BUILD = ROOT / "bench" / "collector" / "build.sh"
OTELCOL = Path(subprocess.run(["bash", str(BUILD), "path"], capture_output=True, text=True).stdout.strip())
WAIT_S = 120  # a guard against a hung process, not a measurement

pytestmark = [
    pytest.mark.collector,
    pytest.mark.skipif(
        not os.access(OTELCOL, os.X_OK),
        reason=f"the Collector is not built ({OTELCOL}): run bench/collector/build.sh (needs Go)",
    ),
]


def test_the_fanout_config_is_valid_for_the_collector_it_names() -> None:
    env = {**os.environ, "TRACE_BACKEND": "http://127.0.0.1:1", "AEM_ENDPOINT": "http://127.0.0.1:2"}
    done = subprocess.run(
        [str(OTELCOL), "validate", "--config", str(FANOUT)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr


def test_verdicts_reach_the_trace_backend_through_the_collector(tmp_path: Path) -> None:
    monitor_http, collector_http, collector_grpc = free_port(), free_port(), free_port()
    out = tmp_path / "reports.jsonl"
    with otlp_sink() as backend:
        monitor = subprocess.Popen(
            [sys.executable, "-m", "monitor", "run", "--gold", str(GOLD), "--out", str(out),
             "--http-port", str(monitor_http), "--grpc-port", "0",
             "--evaluation-events", f"http://127.0.0.1:{collector_http}"],
            cwd=ROOT, stdout=(tmp_path / "monitor.log").open("w"), stderr=subprocess.STDOUT,
            env={"PATH": "/usr/bin:/bin", "AGENT_MONITOR_SERVER__METRICS_PORT": "0",
                 "AGENT_MONITOR_WINDOWS__INACTIVITY_S": "2", "AGENT_MONITOR_SERVER__TICK_S": "0.5"},
        )  # fmt: skip
        collector = subprocess.Popen(
            [str(OTELCOL), "--config", str(FANOUT),
             "--set", f"receivers::otlp::protocols::http::endpoint=127.0.0.1:{collector_http}",
             "--set", f"receivers::otlp::protocols::grpc::endpoint=127.0.0.1:{collector_grpc}",
             "--set", "service::telemetry::metrics::level=none"],
            stdout=(tmp_path / "collector.log").open("w"), stderr=subprocess.STDOUT,
            env={**os.environ, "TRACE_BACKEND": backend.url, "AEM_ENDPOINT": f"http://127.0.0.1:{monitor_http}"},
        )  # fmt: skip
        try:
            files = sorted((FIXTURES / "strands").glob("*.pb")) + sorted(
                (FIXTURES / "openai-agents").glob("*.pb")
            )
            _wait(lambda: _accepts(f"http://127.0.0.1:{monitor_http}/readyz"), "the monitor up", WAIT_S)
            with httpx.Client(timeout=10) as client:
                _wait(
                    lambda: _posts(client, collector_http, files),
                    "the Collector taking the recordings",
                    WAIT_S,
                )
            _wait(lambda: out.exists() and len(out.read_text().splitlines()) >= 4, "four reports", WAIT_S)
            reports = [json.loads(line) for line in out.read_text().splitlines()]
            turns = sum(len(r["turns"]) for r in reports)
            _wait(
                lambda: (
                    sum(r[3]["gen_ai.evaluation.name"] == "aem.correctness" for r in backend.records())
                    >= turns
                ),
                "the events at the backend",
                WAIT_S,
            )
            time.sleep(2)  # anything more would be a duplicate
            records = backend.records()
        finally:
            monitor.send_signal(signal.SIGTERM)
            monitor.wait(timeout=60)
            collector.terminate()
            collector.wait(timeout=60)
    spans = recorded_spans("strands", "openai-agents")
    assert backend.span_ids() == spans  # the backend got the agents' spans: the fan-out
    per_turn = [r for r in records if r[3]["gen_ai.evaluation.name"] == "aem.correctness"]
    assert len(per_turn) == turns == 16  # one event per scored turn, each once
    assert all((trace, span) in spans for _, trace, span, _ in records)
    wrong = {
        r[3]["aem.turn_no"]: r[3] for r in per_turn if r[3]["aem.conversation_id"] == "strands-wrong-metric"
    }
    assert wrong[4]["error.type"] == "inconsistent_parameter_values"
    assert "metric" in wrong[4]["gen_ai.evaluation.explanation"]
    assert [wrong[n]["aem.root_cause_turn"] for n in (5, 6)] == [4, 4]
    assert {wrong[n]["aem.attribution"] for n in (5, 6)} == {"cascade"}


def _accepts(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _posts(client: httpx.Client, port: int, files: list[Path]) -> bool:
    try:
        for f in files:
            response = client.post(
                f"http://127.0.0.1:{port}/v1/traces", content=f.read_bytes(),
                headers={"Content-Type": "application/x-protobuf"},
            )  # fmt: skip
            response.raise_for_status()
    except httpx.HTTPError:
        return False
    return True
