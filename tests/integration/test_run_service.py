"""`agent-monitor run` end to end: real OTLP/HTTP and OTLP/gRPC clients against the live service."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from pydantic import SecretStr, ValidationError

from monitor.cli import load_references
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig, ServerConfig, WindowConfig
from monitor.publish.prometheus import MonitorMetrics
from monitor.runtime.pipeline import Pipeline
from monitor.runtime.workers import ScoringPool
from monitor.sources.service import serve
from tests import poison
from tests.traces import long_turns
from tests.unit.spans import to_otlp_json

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "otlp"
GOLD = ROOT / "monitor" / "data" / "demo" / "gold"
TRAVEL = ROOT / "tests" / "fixtures" / "travel"
PB = "application/x-protobuf"


@dataclass
class Running:
    http: str
    grpc_port: int
    metrics_port: int
    reports: list[dict[str, Any]] = field(default_factory=list)
    stop: Any = None
    thread: Any = None
    pipeline: Any = None

    def shutdown(self) -> None:
        self.stop()
        self.thread.join(timeout=20)


def start(
    ladder: Ladder,
    metrics: MonitorMetrics | None = None,
    policies: dict[str, Any] | None = None,
    gold: Path = GOLD,
    clock: Callable[[], int] = time.time_ns,
    windows: WindowConfig | None = None,
    pool: ScoringPool | None = None,
    **server: Any,
) -> Running:
    # windows run on arrival time: by default a short inactivity window, so that the recorded
    # fixtures (one request per conversation, no end marker) close soon
    if windows is None:
        windows, server = WindowConfig(inactivity_s=1.0), {"lateness_s": 0.0, **server}
    config = ScoringConfig(
        server=ServerConfig(http_port=0, grpc_port=0, metrics_port=0, tick_s=0.2, **server),
        windows=windows,
    )
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(
        config, ladder, load_references(gold), reports.append, metrics, policies, clock, pool=pool
    )
    ports: list[int] = []
    holder: dict[str, Any] = {}

    def main() -> None:
        loop = asyncio.new_event_loop()
        stop = asyncio.Event()
        holder["stop"] = lambda: loop.call_soon_threadsafe(stop.set)
        loop.run_until_complete(
            serve(config.server, pipeline, stop=stop, on_ready=lambda h, g, m: ports.extend([h, g, m]))
        )

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not ports and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ports, "service did not start"
    return Running(
        f"http://127.0.0.1:{ports[0]}", ports[1], ports[2], reports, holder["stop"], thread, pipeline
    )


@pytest.fixture
def service(ladder: Ladder) -> Iterator[Running]:
    running = start(ladder)
    yield running
    running.shutdown()


def fixture_bytes(library: str, conversation: str) -> bytes:
    return (FIXTURES / library / f"{conversation}.000.pb").read_bytes()


def wait_for(reports: list[dict[str, Any]], n: int, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while len(reports) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(reports) >= n, f"{len(reports)} reports after {timeout_s}s"


def test_protobuf_json_and_gzip_over_http_are_scored(service: Running) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    wrong = fixture_bytes("strands", "wrong-metric")
    as_json = to_otlp_json(ExportTraceServiceRequest.FromString(fixture_bytes("openai-agents", "correct")))
    with httpx.Client() as client:
        r1 = client.post(f"{service.http}/v1/traces", content=wrong, headers={"Content-Type": PB})
        r2 = client.post(
            f"{service.http}/v1/traces", content=as_json, headers={"Content-Type": "application/json"}
        )
        r3 = client.post(
            f"{service.http}/v1/traces", content=gzip.compress(fixture_bytes("traceloop", "correct")),
            headers={"Content-Type": PB, "Content-Encoding": "gzip"},
        )  # fmt: skip
    assert (r1.status_code, r2.status_code, r3.status_code) == (200, 200, 200)
    assert r1.headers["Content-Type"].startswith(PB) and r2.json() == {}
    wait_for(
        service.reports, 3
    )  # closed by inactivity on arrival time (1 s here), whatever their event times
    by_id = {r["conversation_id"]: r for r in service.reports}
    assert by_id["strands-wrong-metric"]["root_cause"] == "inconsistent_parameter_values"
    assert by_id["openai-agents-correct"]["success_rate"] == 1.0
    assert by_id["traceloop-correct"]["adapter"] == "traceloop"


def test_grpc_export(service: Running) -> None:
    request = trace_service_pb2.ExportTraceServiceRequest.FromString(
        fixture_bytes("openai-agents", "wrong-metric")
    )
    with grpc.insecure_channel(f"127.0.0.1:{service.grpc_port}") as channel:
        trace_service_pb2_grpc.TraceServiceStub(channel).Export(request, timeout=20)
    wait_for(service.reports, 1)
    assert service.reports[0]["conversation_id"] == "openai-agents-wrong-metric"
    assert service.reports[0]["first_failure_turn"] == 4


def test_grpc_request_with_invalid_utf8_is_read_like_http(service: Running) -> None:
    """An exporter that puts invalid UTF-8 into one attribute: OTLP/gRPC keeps the request's spans, as
    OTLP/HTTP does (the bytes are decoded once, leniently), instead of failing the whole export."""
    request = trace_service_pb2.ExportTraceServiceRequest.FromString(
        fixture_bytes("openai-agents", "wrong-metric")
    )
    span = request.resource_spans[0].scope_spans[0].spans[0]
    span.attributes.add(key="note").value.string_value = "MARKER"
    payload = request.SerializeToString().replace(b"MARKER", b"bad\xff\xfe!")
    with grpc.insecure_channel(f"127.0.0.1:{service.grpc_port}") as channel:
        export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        answer = trace_service_pb2.ExportTraceServiceResponse.FromString(export(payload, timeout=20))
    assert answer.partial_success.rejected_spans == 0
    wait_for(service.reports, 1)
    assert service.reports[0]["conversation_id"] == "openai-agents-wrong-metric"
    assert service.reports[0]["first_failure_turn"] == 4


def test_bad_requests_are_answered_and_the_receiver_keeps_serving(service: Running) -> None:
    url = f"{service.http}/v1/traces"
    with httpx.Client() as client:
        truncated = client.post(
            url, content=fixture_bytes("strands", "correct")[:100], headers={"Content-Type": PB}
        )
        not_otlp = client.post(url, content=b'{"hello": 1}', headers={"Content-Type": "application/json"})
        wrong_type = client.post(url, content=b"x", headers={"Content-Type": "text/plain"})
        bad_gzip = client.post(
            url, content=b"not gzip", headers={"Content-Type": PB, "Content-Encoding": "gzip"}
        )
        huge = client.post(url, content=b"\0" * (17 * 1024 * 1024), headers={"Content-Type": PB})
        bomb = client.post(
            url,
            content=gzip.compress(b"\0" * (40 * 1024 * 1024)),
            headers={"Content-Type": PB, "Content-Encoding": "gzip"},
        )
        good = client.post(url, content=fixture_bytes("strands", "correct"), headers={"Content-Type": PB})
        health, ready = client.get(f"{service.http}/healthz"), client.get(f"{service.http}/readyz")
        stats = client.get(f"{service.http}/stats").json()
    assert truncated.status_code == 400 and "not an OTLP protobuf" in truncated.text
    assert not_otlp.status_code == 400 and "not OTLP" in not_otlp.text
    assert wrong_type.status_code == 415
    assert bad_gzip.status_code == 400
    assert huge.status_code == 413 and bomb.status_code == 413
    assert good.status_code == 200 and health.status_code == 200 and ready.status_code == 200
    assert stats["requests_rejected"] == 2
    wait_for(service.reports, 1)


def test_bearer_token_on_both_receivers(ladder: Ladder) -> None:
    running = start(ladder, bearer_token=SecretStr("s3cret"))
    try:
        url = f"{running.http}/v1/traces"
        body = fixture_bytes("strands", "correct")
        with httpx.Client() as client:
            assert client.post(url, content=body, headers={"Content-Type": PB}).status_code == 401
            wrong = {"Content-Type": PB, "Authorization": "Bearer nope"}
            assert client.post(url, content=body, headers=wrong).status_code == 401
            ok = {"Content-Type": PB, "Authorization": "Bearer s3cret"}
            assert client.post(url, content=body, headers=ok).status_code == 200
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
        with grpc.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)
            with pytest.raises(grpc.RpcError) as err:
                stub.Export(request, timeout=10)
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
            stub.Export(request, timeout=10, metadata=[("authorization", "Bearer s3cret")])
    finally:
        running.shutdown()


def test_run_and_replay_agree(ladder: Ladder) -> None:
    """The same spans through OTLP/HTTP and through replay give the same verdicts."""
    files = sorted(FIXTURES.glob("*/*.pb"))
    running = start(ladder)
    try:
        with httpx.Client() as client:
            for f in files:
                assert (
                    client.post(
                        f"{running.http}/v1/traces", content=f.read_bytes(), headers={"Content-Type": PB}
                    ).status_code
                    == 200
                )
        wait_for(running.reports, 8)
    finally:
        running.shutdown()
    replayed: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, load_references(GOLD), replayed.append)
    for f in files:
        pipeline.ingest(f.read_bytes(), PB, str(f))
    pipeline.flush()

    def verdicts(reports: list[dict[str, Any]]) -> dict[str, Any]:
        return {r["conversation_id"]: {k: v for k, v in r.items() if k != "closed_by"} for r in reports}

    assert verdicts(running.reports) == verdicts(replayed)


def test_graceful_shutdown_flushes_open_conversations(ladder: Ladder) -> None:
    running = start(ladder)
    running.pipeline.config = running.pipeline.config.model_copy(
        update={"server": running.pipeline.config.server.model_copy(update={"lateness_s": 10_000_000_000.0})}
    )  # the wall clock never closes anything: only shutdown can
    with httpx.Client() as client:
        client.post(
            f"{running.http}/v1/traces",
            content=fixture_bytes("strands", "correct"),
            headers={"Content-Type": PB},
        )
    time.sleep(0.5)
    assert running.reports == []
    running.shutdown()
    assert [r["closed_by"] for r in running.reports] == ["shutdown"]


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3"])
def test_binding_beyond_loopback_needs_tls_or_an_explicit_flag(host: str) -> None:
    with pytest.raises(ValidationError, match="exposes the receivers"):
        ServerConfig(host=host)
    assert ServerConfig(host=host, trusted_network=True).host == host


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed: cannot make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_tls_on_both_receivers(ladder: Ladder, self_signed: tuple[Path, Path]) -> None:
    cert, key = self_signed
    running = start(ladder, tls_cert=cert, tls_key=key)
    try:
        https = running.http.replace("http://", "https://")
        body = fixture_bytes("strands", "correct")
        with httpx.Client(verify=ssl.create_default_context(cafile=str(cert))) as client:
            assert (
                client.post(f"{https}/v1/traces", content=body, headers={"Content-Type": PB}).status_code
                == 200
            )
        with pytest.raises(httpx.HTTPError), httpx.Client() as plain:  # plain HTTP to a TLS port fails
            plain.post(f"{running.http}/v1/traces", content=body, headers={"Content-Type": PB})
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(f"localhost:{running.grpc_port}", credentials) as channel:
            request = trace_service_pb2.ExportTraceServiceRequest.FromString(
                fixture_bytes("openai-agents", "correct")
            )
            trace_service_pb2_grpc.TraceServiceStub(channel).Export(request, timeout=10)
        wait_for(running.reports, 2)
    finally:
        running.shutdown()


def test_genai_events_as_log_records_over_http_and_grpc_join_their_spans(ladder: Ladder) -> None:
    """opentelemetry-instrumentation-openai-v2 puts content in log records: /v1/logs and LogsService
    take them, and the reports equal a replay of the same recorded files."""
    running = start(ladder, gold=TRAVEL / "gold")
    correct = sorted((TRAVEL / "openai-v2").glob("correct.*"))
    wrong = sorted((TRAVEL / "openai-v2").glob("wrong.*"))
    try:
        with httpx.Client() as client:
            for f in correct:  # `application/protobuf`, as some exporters spell it
                path = "/v1/logs" if f.name.endswith(".logs.pb") else "/v1/traces"
                r = client.post(
                    f"{running.http}{path}",
                    content=f.read_bytes(),
                    headers={"Content-Type": "application/protobuf"},
                )
                # answered in the spelling the request used
                assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/protobuf")
            bad = client.post(
                f"{running.http}/v1/logs",
                content=b'{"resourceSpans": []}',
                headers={"Content-Type": "application/json"},
            )
            assert bad.status_code == 400 and "resourceLogs" in bad.text
        with grpc.insecure_channel(f"127.0.0.1:{running.grpc_port}") as channel:
            for f in wrong:
                if f.name.endswith(".logs.pb"):
                    logs = logs_service_pb2.ExportLogsServiceRequest.FromString(f.read_bytes())
                    logs_service_pb2_grpc.LogsServiceStub(channel).Export(logs, timeout=20)
                else:
                    spans = trace_service_pb2.ExportTraceServiceRequest.FromString(f.read_bytes())
                    trace_service_pb2_grpc.TraceServiceStub(channel).Export(spans, timeout=20)
        wait_for(running.reports, 2)
    finally:
        running.shutdown()
    by_id = {r["conversation_id"]: r for r in running.reports}
    assert by_id["openai-v2-correct"]["test_pass"] is True
    assert by_id["openai-v2-wrong"]["root_cause"] == "inconsistent_parameter_values"
    replayed: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, load_references(TRAVEL / "gold"), replayed.append)
    for f in correct + wrong:
        pipeline.ingest(f.read_bytes(), PB, str(f), "logs" if f.name.endswith(".logs.pb") else "traces")
    pipeline.flush()
    strip = lambda r: {k: v for k, v in r.items() if k != "closed_by"}  # noqa: E731
    assert {r["conversation_id"]: strip(r) for r in replayed} == {k: strip(v) for k, v in by_id.items()}


# -- faults (issue 15) ----------------------------------------------------------------------------


class ManualClock:
    """Arrival time that moves only when the test says: the service's windows and ticks read it."""

    def __init__(self) -> None:
        self.now_ns = time.time_ns()

    def __call__(self) -> int:
        return self.now_ns

    def advance(self, seconds: float) -> None:
        self.now_ns += int(seconds * 1e9)


def replayed(ladder: Ladder, payloads: list[tuple[bytes, str]], policies: Any = None) -> dict[str, Any]:
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, load_references(GOLD), reports.append, policies=policies)
    for body, content_type in payloads:
        pipeline.ingest(body, content_type, "replay")
    pipeline.flush()
    return {r["conversation_id"]: r for r in reports}


def core(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what depends on when or why it closed."""
    return {k: v for k, v in report.items() if k not in ("closed_by",)}


@pytest.mark.parametrize("case", poison.cases(), ids=lambda c: c.name)
def test_poison_is_isolated_in_run(ladder: Ladder, tmp_path: Path, case: poison.Case) -> None:
    from monitor.reference.policy import load_policies

    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(poison.POLICY_YAML)
    policies = load_policies(policy_file)
    good = [(f.read_bytes(), PB) for f in sorted(FIXTURES.glob("*/*.pb"))]
    running = start(ladder, policies=policies)
    try:
        with httpx.Client() as client:
            bad = client.post(
                f"{running.http}/v1/traces", content=case.payload, headers={"Content-Type": case.content_type}
            )
            answers = [
                client.post(
                    f"{running.http}/v1/traces", content=body, headers={"Content-Type": ct}
                ).status_code
                for body, ct in good
            ]
        expected = replayed(ladder, [(case.payload, case.content_type), *good], policies)
        wait_for(running.reports, len(expected))
        stats = running.pipeline.snapshot()
    finally:
        running.shutdown()
    assert bad.status_code == 200 and answers == [200] * len(good)  # the request is not refused whole
    by_id = {r["conversation_id"]: r for r in running.reports}
    assert len(running.reports) == len(by_id) == len(expected)  # each conversation once: nothing cut
    assert {k: core(v) for k, v in by_id.items()} == {k: core(v) for k, v in expected.items()}
    assert by_id[poison.beside(case)]["scored"] is True
    if case.outcome == "unscored":
        assert case.reason in by_id[poison.poisoned(case)]["unscored_reason"]
        assert sum(v for k, v in stats.items() if k.startswith("pipeline_errors:")) == 1
    elif case.outcome == "rejected":
        assert poison.poisoned(case) not in by_id and stats["spans_rejected_unreadable"] == 1
        assert bad.json()["partialSuccess"]["rejectedSpans"] == "1" and case.reason in bad.text
    else:
        assert stats["attribute_values_truncated"] == 1


def test_old_and_far_future_timestamps_do_not_move_the_clock(ladder: Ladder) -> None:
    """Recorded (2025) traffic replayed into `run`, after one span dated 2200: nothing closes until the
    inactivity window has passed on arrival time, then every conversation closes once, whole, with the
    verdicts of `replay`; the far-future span is clamped and counted."""
    future = trace_service_pb2.ExportTraceServiceRequest()
    poison.add_span(
        future,
        "from-2200",
        1,
        {"gen_ai.operation.name": "chat"},
        start=7_258_118_400 * 10**9,
        end=7_258_118_401 * 10**9,
    )
    payloads = [
        (future.SerializeToString(), PB),
        *[(f.read_bytes(), PB) for f in sorted(FIXTURES.glob("*/*.pb"))],
    ]
    clock = ManualClock()
    running = start(ladder, clock=clock)
    try:
        with httpx.Client() as client:
            for body, ct in payloads:
                assert (
                    client.post(
                        f"{running.http}/v1/traces", content=body, headers={"Content-Type": ct}
                    ).status_code
                    == 200
                )
        assert (
            running.reports == []
        )  # arrival time has not moved: neither old nor future timestamps close anything
        clock.advance(0.9)
        assert running.pipeline.tick(clock()) == 0 and running.reports == []
        clock.advance(0.2)  # now past the 1 s inactivity window on arrival time
        wait_for(running.reports, len(payloads))
        stats = running.pipeline.snapshot()
    finally:
        running.shutdown()
    by_id = {r["conversation_id"]: r for r in running.reports}
    assert len(by_id) == len(running.reports) == len(payloads)
    assert {r["closed_by"] for r in running.reports} == {"inactivity"} and {
        r["version"] for r in running.reports
    } == {1}
    expected = replayed(ladder, payloads)
    assert {k: core(v) for k, v in by_id.items() if k != "from-2200"} == {
        k: core(v) for k, v in expected.items() if k != "from-2200"
    }
    assert stats["spans_time_clamped"] == 1 and by_id["from-2200"]["ended_ns"] <= clock() + 3600 * 10**9


def test_protobuf_media_type_and_multi_member_gzip(service: Running) -> None:
    with httpx.Client() as client:
        plain = client.post(
            f"{service.http}/v1/traces",
            content=fixture_bytes("strands", "correct"),
            headers={"Content-Type": "application/protobuf"},
        )
        # protobuf messages concatenate: two requests' bytes are one request with both their spans;
        # gzipped as two members, the second member used to be dropped silently
        raw = fixture_bytes("openai-agents", "correct") + fixture_bytes("traceloop", "correct")
        half = len(raw) // 2
        gz = client.post(
            f"{service.http}/v1/traces", content=gzip.compress(raw[:half]) + gzip.compress(raw[half:]),
            headers={"Content-Type": PB, "Content-Encoding": "gzip"},
        )  # fmt: skip
    assert plain.status_code == 200 and plain.headers["Content-Type"].startswith("application/protobuf")
    assert gz.status_code == 200
    wait_for(service.reports, 3)
    ids = {r["conversation_id"] for r in service.reports}
    assert ids == {"strands-correct", "openai-agents-correct", "traceloop-correct"}


def _half_header(port: int) -> Any:
    import socket

    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-"
    )  # and no more
    return sock


def test_a_flood_of_half_headers_does_not_lock_good_clients_out(ladder: Ladder) -> None:
    running = start(ladder, max_connections=20, header_timeout_s=300.0)
    port = int(running.http.rsplit(":", 1)[1])
    flood = [_half_header(port) for _ in range(50)]
    try:
        with httpx.Client() as client:
            good = client.post(
                f"{running.http}/v1/traces",
                content=fixture_bytes("strands", "correct"),
                headers={"Content-Type": PB},
            )
        assert good.status_code == 200  # the cap sheds the waiting half-headers, not the good client
        wait_for(running.reports, 1)
        stats = running.pipeline.snapshot()
        assert stats["connections_closed:evicted"] >= 30 and stats.get("connections_closed:refused", 0) == 0
    finally:
        for sock in flood:
            sock.close()
        running.shutdown()


def test_a_connection_that_never_finishes_its_headers_is_closed(ladder: Ladder) -> None:
    running = start(ladder, header_timeout_s=0.3)
    try:
        sock = _half_header(int(running.http.rsplit(":", 1)[1]))
        with sock:
            assert sock.recv(1024) == b""  # closed by the server (the socket's own timeout is 10 s)
        assert running.pipeline.snapshot()["connections_closed:header_timeout"] == 1
        with httpx.Client() as client:  # a good client is served as before
            ok = client.post(
                f"{running.http}/v1/traces",
                content=fixture_bytes("strands", "correct"),
                headers={"Content-Type": PB},
            )
        assert ok.status_code == 200
    finally:
        running.shutdown()


def test_repeated_log_lines_are_counted_not_written() -> None:
    import logging

    from monitor.sources.service import RepeatFilter

    stats: dict[str, float] = {}
    now = [0.0]
    quiet = RepeatFilter(stats, every_s=60, clock=lambda: now[0])
    record = logging.LogRecord(
        "asyncio", logging.ERROR, "x", 1, "socket.accept() out of system resource", (), None
    )
    assert [quiet.filter(record) for _ in range(1000)].count(True) == 1
    now[0] = 61.0
    assert quiet.filter(record) and stats["log_lines_suppressed"] == 999


def test_a_trace_whose_root_comes_after_the_idle_window_is_not_cut_off(
    ladder: Ladder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A long turn: the trace's children are exported first, its root (which names the conversation)
    only when the turn ends, after the inactivity window. The children wait for their root instead of
    closing as a `trace:` fragment, and every conversation is reported once, whole, as `replay` gives."""
    traffic = long_turns(tmp_path, "--conversations", "8", "--seed", "3", "--references", "2")
    capsys.readouterr()
    children, roots, rest, replayed_spans = (
        traffic.children,
        traffic.roots,
        traffic.rest,
        traffic.replayed_spans,
    )
    assert children, "no trace sent its children ahead: test not shown"
    clock = ManualClock()
    running = start(ladder, clock=clock, gold=tmp_path / "gold")
    try:
        with httpx.Client() as client:

            def post(body: bytes) -> httpx.Response:
                return client.post(f"{running.http}/v1/traces", content=body, headers={"Content-Type": PB})

            assert all(post(body).status_code == 200 for body in children)
            clock.advance(1.5)  # past the 1 s inactivity window: the turn is still going on
            running.pipeline.tick(clock())
            assert running.reports == [], [r["conversation_id"] for r in running.reports]
            assert all(post(body).status_code == 200 for body in roots + rest)
        clock.advance(1.5)
        wait_for(running.reports, len(replayed_spans))
    finally:
        running.shutdown()
    assert {r["conversation_id"]: r["spans"] for r in running.reports} == replayed_spans  # once each, whole


def test_a_trace_never_named_closes_on_the_idle_window_once_its_root_is_in(ladder: Ladder) -> None:
    """A trace with no conversation id anywhere is its own conversation: once its root has arrived,
    the idle window closes it, even though its children arrived first and waited for that root."""
    children, root = (
        trace_service_pb2.ExportTraceServiceRequest(),
        trace_service_pb2.ExportTraceServiceRequest(),
    )
    for request, span_id, parent in ((children, 2, 1), (root, 1, 0)):
        span = request.resource_spans.add().scope_spans.add().spans.add()
        span.trace_id, span.span_id = b"\x07" * 16, span_id.to_bytes(8, "big")
        span.parent_span_id = parent.to_bytes(8, "big") if parent else b""
        span.name, span.start_time_unix_nano, span.end_time_unix_nano = "work", 10**18, 10**18 + 10**9
    clock = ManualClock()
    running = start(ladder, clock=clock)
    try:
        with httpx.Client() as client:
            for request in (children, root):
                body = request.SerializeToString()
                response = client.post(
                    f"{running.http}/v1/traces", content=body, headers={"Content-Type": PB}
                )
                assert response.status_code == 200
        clock.advance(1.5)  # past the 1 s idle window; far from trace_root_wait_s (600 s)
        wait_for(running.reports, 1)
    finally:
        running.shutdown()
    [report] = running.reports
    assert report["conversation_id"] == "trace:" + "07" * 16 and report["closed_by"] == "inactivity"
    assert report["spans"] == 2
