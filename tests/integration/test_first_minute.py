"""What a new user meets first: `run --demo` reports each recorded conversation as its recording ends,
whole and once; a port in use is named with its receiver; counts read in the right number."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.sources.service import demo_dir, marked_end
from monitor.words import counted

WAIT_S = 120  # a guard against a hung service, not a measurement


def recorded() -> dict[str, int]:
    """Spans per recorded demo file."""
    out = {}
    for f in sorted((demo_dir() / "traffic").glob("*.pb")):
        body = ExportTraceServiceRequest.FromString(f.read_bytes())
        out[f.stem] = sum(len(s.spans) for r in body.resource_spans for s in r.scope_spans)
    return out


def test_the_demo_reports_every_recorded_conversation_as_its_recording_ends(tmp_path: Path) -> None:
    out = tmp_path / "reports.jsonl"
    service = subprocess.Popen(
        [sys.executable, "-m", "monitor", "run", "--demo", "--out", str(out),
         "--http-port", "0", "--grpc-port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={"AGENT_MONITOR_SERVER__METRICS_PORT": "0", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    expected = recorded()
    lines: list[str] = []  # the log as it comes: the sender says what it sent after its last request
    stdout = service.stdout
    assert stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(iter(stdout.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and service.poll() is None:
        reported = out.exists() and len(out.read_text().splitlines()) >= len(expected)
        if reported and any("demo: sent" in line for line in lines):
            break
        time.sleep(0.2)
    service.send_signal(signal.SIGINT)
    service.wait(timeout=60)
    reader.join(timeout=10)
    log = "".join(lines)
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    # closed by the end of its recording, not by the inactivity window nor the Ctrl-C flush
    assert [r["closed_by"] for r in reports] == ["end_marker"] * len(expected), log
    # every conversation once and whole: each report holds every span of its recording
    assert {r["conversation_id"]: r["spans"] for r in reports} == expected
    verdicts = {r["conversation_id"]: (r["test_pass"], r["root_cause"]) for r in reports}
    assert verdicts["strands-wrong-metric"] == (False, "inconsistent_parameter_values")
    assert verdicts["tau-44-0-m1-id"] == (False, "ungrounded_parameter_value")  # no gold: grounding
    assert verdicts["tau-44-0"] == (True, None)
    assert "demo: sent 6 recorded conversations" in log


def test_the_end_marker_goes_on_root_spans_only() -> None:
    raw = (demo_dir() / "traffic" / "strands-correct.pb").read_bytes()
    body = ExportTraceServiceRequest.FromString(marked_end(raw, "aem.conversation.end"))
    spans = [span for r in body.resource_spans for s in r.scope_spans for span in s.spans]
    marked = [s for s in spans if any(a.key == "aem.conversation.end" for a in s.attributes)]
    assert marked and all(not s.parent_span_id for s in marked)
    assert len(spans) == recorded()["strands-correct"]


def test_a_port_in_use_is_named_with_its_receiver() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "monitor", "run", "--http-port", "0", "--grpc-port", str(port)],
            capture_output=True, text=True, timeout=120,
            env={"AGENT_MONITOR_SERVER__METRICS_PORT": "0", "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
    assert done.returncode == 2
    assert f"127.0.0.1:{port}: the OTLP/gRPC receiver cannot listen: the port is in use" in done.stderr
    assert "--grpc-port" in done.stderr and "Traceback" not in done.stderr


def test_counts_read_in_the_right_number() -> None:
    assert counted(1, "request") == "1 request"
    assert counted(0, "request") == "0 requests"
    assert counted(2, "span without ids") == "2 spans without ids"
    assert counted(1, "span without ids") == "1 span without ids"
