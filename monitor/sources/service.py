"""The long-running services, `run` and `consume`: their parts started, ticked and stopped. I/O and
lifecycle only.

`run` (`serve`): receivers + pipeline + timer + graceful shutdown.

Starts OTLP/HTTP (aiohttp) and OTLP/gRPC (grpcio) on the configured address, ticks the pipeline with
its clock (the wall clock; processing time, never event time) every `tick_s` (so idle conversations
close when traffic stops), and on SIGTERM/SIGINT
stops accepting, then flushes every open conversation (`closed_by: shutdown`) before exiting.
With `demo=True` it posts the bundled recorded traffic to its own OTLP/HTTP receiver once it is up, each
recording's root spans carrying the end marker (`normalize.end_marker_attribute`), as an agent that
knows its conversation is over would send it: the recording knows it ended, so its report follows at
once instead of after the inactivity window.

`consume`: the Kafka stages (monitor/runtime/kafka.py), each on a thread, and /metrics. A stage that
dies stops the process (exit 3), so its supervisor restarts it; SIGTERM/SIGINT stop the stages, which
commit what is safe and leave open conversations to the partitions' next owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from monitor.config import ScoringConfig, ServerConfig
from monitor.errors import InputError
from monitor.runtime.kafka import IngestStage, ScoreStage, ensure_topics
from monitor.runtime.pipeline import Pipeline
from monitor.sources.connections import ConnectionGuard, guarded_runner
from monitor.sources.otlp_grpc import start_grpc
from monitor.sources.otlp_http import build_app, build_metrics_app

log = logging.getLogger(__name__)
#: loggers that write one line per failed accept or connection: rate-limited while serving
NOISY_LOGGERS = ("asyncio", "aiohttp.server", "aiohttp.access", "aiohttp.internal")


class RepeatFilter(logging.Filter):
    """Lets each distinct message (logger and template) through once per `every_s` and counts the rest
    (`log_lines_suppressed`): "Too many open files" 100,000 times is one line a minute and a number."""

    def __init__(
        self, stats: Any, every_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.stats, self.every_s, self.clock = stats, every_s, clock
        self.last: dict[tuple[str, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = self.clock()
        last = self.last.get(key)
        if last is not None and now - last < self.every_s:
            self.stats["log_lines_suppressed"] = self.stats.get("log_lines_suppressed", 0) + 1
            return False
        if len(self.last) > 1000:
            self.last.clear()
        self.last[key] = now
        return True


@contextlib.contextmanager
def _listening(receiver: str, host: str, port: int, setting: str) -> Iterator[None]:
    """Name the receiver, address and setting when it cannot bind (aiohttp raises OSError, grpc a
    RuntimeError that says only "Failed to bind")."""
    try:
        yield
    except (OSError, RuntimeError) as exc:
        in_use = isinstance(exc, RuntimeError) or exc.errno == errno.EADDRINUSE
        why = "the port is in use (another agent-monitor, or a Collector?)" if in_use else str(exc)
        raise InputError(
            f"{host}:{port}", f"the {receiver} cannot listen: {why}; choose another port with {setting}"
        ) from exc


def demo_dir() -> Path:
    return Path(str(resources.files("monitor") / "data" / "demo"))


async def serve(
    config: ServerConfig,
    pipeline: Pipeline,
    *,
    demo: bool = False,
    stop: asyncio.Event | None = None,
    on_ready: Callable[[int, int, int], None] | None = None,
) -> None:
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    token = config.bearer_token.get_secret_value() if config.bearer_token else None
    tls = (config.tls_cert, config.tls_key) if config.tls_cert and config.tls_key else None
    ready = False
    ssl_context = None
    if tls is not None:
        ssl_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ssl_context.load_cert_chain(str(tls[0]), str(tls[1]))
    quiet = RepeatFilter(pipeline.stats)  # a flood must not turn into a flood of log lines
    for name in NOISY_LOGGERS:
        logging.getLogger(name).addFilter(quiet)
    guard = ConnectionGuard(config.max_connections, config.header_timeout_s, pipeline.stats)
    # auto_decompress off: the receiver gunzips itself, with a cap against gzip bombs
    otlp_app = build_app(pipeline.ingest, pipeline.snapshot, config.max_request_bytes, token, lambda: ready)
    with _listening("OTLP/HTTP receiver", config.host, config.http_port, "--http-port"):
        runner, http_port = await start_site(
            otlp_app, config.host, config.http_port, ssl_context, guard=guard, auto_decompress=False
        )
    with _listening("metrics endpoint", config.host, config.metrics_port, "server.metrics_port"):
        metrics_runner, metrics_port = await start_site(
            build_metrics_app(pipeline.metrics), config.host, config.metrics_port, ssl_context, guard=guard
        )
    with _listening("OTLP/gRPC receiver", config.host, config.grpc_port, "--grpc-port"):
        grpc_server, grpc_port = start_grpc(
            pipeline.ingest, config.host, config.grpc_port, config.max_request_bytes, token, tls,
            idle_timeout_s=config.header_timeout_s,
        )  # fmt: skip
    ready = True
    scheme = "https" if tls else "http"
    log.info(
        "OTLP/HTTP on %s://%s:%d/v1/traces, OTLP/gRPC on %s:%d, metrics on %s://%s:%d/metrics",
        scheme, config.host, http_port, config.host, grpc_port, scheme, config.host, metrics_port,
    )  # fmt: skip
    if on_ready is not None:
        on_ready(http_port, grpc_port, metrics_port)
    ticker = asyncio.create_task(_tick(pipeline, config.tick_s, stop))
    demo_task = (
        asyncio.create_task(
            _send_demo(
                f"{scheme}://127.0.0.1:{http_port}/v1/traces",
                token,
                pipeline.config.normalize.end_marker_attribute,
            )
        )
        if demo
        else None
    )
    await stop.wait()
    log.info("shutting down: no new requests; flushing open conversations")
    ticker.cancel()
    if demo_task is not None:
        demo_task.cancel()
    grpc_server.stop(grace=5).wait()
    await runner.cleanup()
    await metrics_runner.cleanup()
    await loop.run_in_executor(None, pipeline.flush, "shutdown")
    for name in NOISY_LOGGERS:
        logging.getLogger(name).removeFilter(quiet)


def consume(config: ScoringConfig, pipeline: Pipeline, replica: str, stage: str) -> list[str]:
    """Run the Kafka `stage` (`ingest`, `score` or `both`) as `replica` until SIGTERM/SIGINT or a stage
    fails; returns why stages failed (empty on a clean stop)."""
    ensure_topics(config.kafka)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    failures: list[str] = []

    def guarded(name: str, target: Callable[..., None], *args: Any) -> threading.Thread:
        def run() -> None:
            try:
                target(*args)
            except Exception as exc:  # a dead stage must take the process down, so it gets restarted
                log.exception("%s stage failed", name)
                failures.append(f"{name}: {exc}")
                stop.set()

        return threading.Thread(target=run, name=name)

    threads = []
    if stage in ("ingest", "both"):
        ingest = IngestStage(config.kafka, replica, pipeline.stats, config.normalize)
        threads.append(guarded("ingest", ingest.run, stop))
    if stage in ("score", "both"):
        score = ScoreStage(config.kafka, replica, pipeline)
        threads.append(guarded("score", score.run, stop, lambda: pipeline.tick(time.time_ns())))
    for t in threads:
        t.start()

    async def serve_metrics() -> None:
        runner, _ = await start_site(
            build_metrics_app(pipeline.metrics), config.server.host, config.server.metrics_port
        )
        while not stop.is_set():
            await asyncio.sleep(0.5)
        await runner.cleanup()

    log.info("consuming as %s (%s) from %s", replica, stage, config.kafka.bootstrap_servers)
    asyncio.run(serve_metrics())
    for t in threads:
        t.join(timeout=60)
    return failures


async def start_site(
    app: web.Application,
    host: str,
    port: int,
    ssl_context: ssl.SSLContext | None = None,
    guard: ConnectionGuard | None = None,
    **runner_args: Any,
) -> tuple[web.AppRunner, int]:
    """Serve an aiohttp app; returns its runner (for cleanup) and the port it bound (port 0 = any).
    With a `guard`, its connections are capped and must send their headers in time."""
    runner = guarded_runner(app, guard, **runner_args) if guard else web.AppRunner(app, **runner_args)
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


async def _tick(pipeline: Pipeline, every_s: float, stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        await asyncio.sleep(every_s)
        await loop.run_in_executor(None, pipeline.tick, pipeline.clock())


async def _send_demo(url: str, token: str | None, end_marker: str) -> None:
    """Post the bundled recorded traffic (real spans from Strands, openai-agents and a τ-bench run) to
    ourselves, one request per recorded conversation, its end marked (module docstring)."""
    headers = {"Content-Type": "application/x-protobuf"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    files = sorted((demo_dir() / "traffic").glob("*.pb"))
    async with aiohttp.ClientSession() as session:
        for f in files:
            body = marked_end(f.read_bytes(), end_marker)
            async with session.post(url, data=body, headers=headers, ssl=False) as response:
                if response.status != 200:
                    log.warning("demo traffic %s: HTTP %d %s", f.name, response.status, await response.text())
    log.info("demo: sent %d recorded conversations; reports follow as each one ends", len(files))


def marked_end(request: bytes, attribute: str) -> bytes:
    """An OTLP trace request whose root spans (no parent) carry `attribute` = true: a whole recorded
    conversation, marked as ended."""
    body = ExportTraceServiceRequest.FromString(request)
    for resource_spans in body.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                if not span.parent_span_id:
                    span.attributes.append(KeyValue(key=attribute, value=AnyValue(bool_value=True)))
    return body.SerializeToString()
