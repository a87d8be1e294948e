"""`agent-monitor run` with scoring workers (`server.workers` > 1): the same reports as `replay`, every
conversation once, a full queue refused with a retryable answer, a dead worker replaced."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from bench.pipeline import free_port
from monitor.cli import load_references, main
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig
from monitor.runtime.workers import ScoringPool
from tests.integration.test_run_service import GOLD, PB, Running, fixture_bytes, start, wait_for
from tests.workers_hold import held

ROOT = Path(__file__).resolve().parents[2]


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _by_version(reports: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """Each report by (conversation, version), without how its window closed (timing, not verdict)."""
    out = {}
    for r in reports:
        key = (r["conversation_id"], r["version"])
        assert key not in out, f"{key} reported twice"
        out[key] = {k: v for k, v in r.items() if k != "closed_by"}
    return out


def test_run_with_two_workers_reports_what_replay_reports(tmp_path: Path) -> None:
    """Loadgen traffic through a real `agent-monitor run --workers 2`, stopped by SIGTERM right after
    the last request: every conversation (and late re-report) comes out once, with replay's verdicts."""
    out = tmp_path / "lg"
    assert main(["loadgen", "--out", str(out), "--conversations", "40", "--seed", "5"]) == 0
    replayed = tmp_path / "replay.jsonl"
    assert main(["replay", str(out / "traffic"), "--gold", str(out / "gold"), "--out", str(replayed)]) == 0

    http = free_port()
    env = {
        **os.environ,
        "AGENT_MONITOR_SERVER__METRICS_PORT": str(free_port()),
        "AGENT_MONITOR_WINDOWS__INACTIVITY_S": "3600",  # only end markers and the shutdown close
        # as replay: a marker closes at once, so late spans make the same re-reports (versions) as there
        "AGENT_MONITOR_WINDOWS__END_MARKER_GRACE_S": "0",
    }
    reports = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "monitor", "run", "--workers", "2", "--gold", str(out / "gold"),
           "--out", str(reports), "--http-port", str(http), "--grpc-port", str(free_port())]  # fmt: skip
    log = (tmp_path / "run.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        with httpx.Client(timeout=60) as client:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if client.get(f"http://127.0.0.1:{http}/readyz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "run.log").read_text()
                time.sleep(0.2)
            for f in sorted((out / "traffic").glob("*.pb")):
                r = client.post(
                    f"http://127.0.0.1:{http}/v1/traces", content=f.read_bytes(), headers={"Content-Type": PB}
                )
                while r.status_code == 429:  # the queue is full: as an OTLP exporter does, wait and resend
                    time.sleep(float(r.headers["Retry-After"]))
                    r = client.post(
                        f"http://127.0.0.1:{http}/v1/traces",
                        content=f.read_bytes(),
                        headers={"Content-Type": PB},
                    )
                assert r.status_code == 200, r.text
            stats = client.get(f"http://127.0.0.1:{http}/stats").json()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0, (tmp_path / "run.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    assert stats["requests"] > 0
    expected, got = _by_version(_read(replayed)), _by_version(_read(reports))
    assert len({cid for cid, _ in expected}) == 40
    assert got == expected


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Workers started from here hold each job until this file exists (tests/workers_hold.py)."""
    monkeypatch.setenv("AEM_TEST_GATE", str(tmp_path / "go"))
    return tmp_path / "go"


def _held_service(ladder: Ladder, gate: Path, **server: Any) -> tuple[Running, ScoringPool]:
    from monitor.publish.prometheus import MonitorMetrics

    pool = ScoringPool(ScoringConfig(), load_references(GOLD), {}, 2, score=held)
    return start(ladder, MonitorMetrics(), pool=pool, workers=2, **server), pool


def _wait_file(path: Path, timeout_s: float = 60) -> str:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)
    time.sleep(0.05)  # written in one call; let it land
    return path.read_text()


@pytest.fixture
def held_service(ladder: Ladder, gate: Path) -> Iterator[tuple[Running, ScoringPool]]:
    running, pool = _held_service(ladder, gate, score_queue=1, retry_after_s=3)
    yield running, pool
    gate.touch()
    running.shutdown()
    running.pipeline.close()


def test_a_full_scoring_queue_is_refused_retryably_and_counted(
    held_service: tuple[Running, ScoringPool], gate: Path
) -> None:
    running, _ = held_service
    url = f"{running.http}/v1/traces"
    with httpx.Client(timeout=30) as client:
        first = client.post(url, content=fixture_bytes("strands", "correct"), headers={"Content-Type": PB})
        assert first.status_code == 200
        _wait_file(gate.parent / "scoring-strands-correct")  # closed, handed over, held: the queue is full
        refused = client.post(
            url, content=fixture_bytes("traceloop", "correct"), headers={"Content-Type": PB}
        )
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(
            fixture_bytes("traceloop", "correct")
        )
        with (
            grpc.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel,
            pytest.raises(grpc.RpcError) as err,
        ):
            trace_service_pb2_grpc.TraceServiceStub(channel).Export(request, timeout=20)
        stats = client.get(f"{running.http}/stats").json()
        metrics = httpx.get(f"http://127.0.0.1:{running.metrics_port}/metrics").text
        assert running.reports == []
        gate.touch()
        wait_for(running.reports, 1)
        accepted = client.post(
            url, content=fixture_bytes("traceloop", "correct"), headers={"Content-Type": PB}
        )
        wait_for(running.reports, 2)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "3"
    assert "waiting to be scored" in refused.text
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = dict(err.value.trailing_metadata())["grpc-status-details-bin"]
    assert b"type.googleapis.com/google.rpc.RetryInfo" in details  # OTLP: retryable with RetryInfo
    assert stats["requests_throttled"] == 2 and stats["scoring_queue"] == 1
    assert "aem_receiver_requests_throttled_total 2.0" in metrics
    assert "aem_pipeline_scoring_queue 1.0" in metrics
    assert accepted.status_code == 200
    assert [r["conversation_id"] for r in running.reports] == ["strands-correct", "traceloop-correct"]
    assert all(r["scored"] for r in running.reports)


def test_a_killed_worker_costs_its_conversation_and_is_replaced(ladder: Ladder, gate: Path) -> None:
    running, _ = _held_service(ladder, gate)
    try:
        url = f"{running.http}/v1/traces"
        with httpx.Client(timeout=30) as client:
            client.post(url, content=fixture_bytes("strands", "correct"), headers={"Content-Type": PB})
            pid = int(_wait_file(gate.parent / "scoring-strands-correct"))
            os.kill(pid, signal.SIGKILL)  # the worker scoring it dies (out of memory, a native crash)
            wait_for(running.reports, 1)
            gate.touch()
            for conversation in ("correct", "wrong-metric"):
                body = fixture_bytes("openai-agents", conversation)
                assert client.post(url, content=body, headers={"Content-Type": PB}).status_code == 200
            wait_for(running.reports, 3)
            stats = client.get(f"{running.http}/stats").json()
    finally:
        gate.touch()
        running.shutdown()
        running.pipeline.close()
    lost, *later = running.reports
    assert lost["conversation_id"] == "strands-correct" and lost["scored"] is False
    assert "scoring worker process died" in lost["unscored_reason"]
    assert lost["spans"] > 0 and lost["agent"] == "reports-agent"
    by_id = {r["conversation_id"]: r for r in later}
    assert by_id["openai-agents-correct"]["success_rate"] == 1.0
    assert by_id["openai-agents-wrong-metric"]["first_failure_turn"] == 4
    assert stats["workers_replaced"] == 1 and stats["conversations_reported"] == 3


def test_workers_that_cannot_load_the_model_stop_the_start_with_the_reason(tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_MONITOR_EMBEDDER__MODEL_DIR": str(tmp_path / "no-model")}
    cmd = [sys.executable, "-m", "monitor", "run", "--workers", "2", "--http-port", "0", "--grpc-port", "0"]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "embedding model file missing" in done.stderr and "Traceback" not in done.stderr
