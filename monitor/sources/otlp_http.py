"""OTLP/HTTP receiver (aiohttp). I/O: bytes in from the network, handed to an `Ingest` callable (the pipeline's).

`POST /v1/traces` takes `application/x-protobuf` (or `application/protobuf`) or `application/json`,
optionally `Content-Encoding: gzip` (every member of a multi-member body); answers an
`ExportTraceServiceResponse` in the request's encoding, with `partial_success.rejected_spans` (and the
first reason) when some spans could not be used. `POST /v1/logs` takes OTLP logs the same way (GenAI
events sent as log records, joined to their spans by trace and span id) and answers an
`ExportLogsServiceResponse` (`rejected_log_records`). 400 with a message for payloads
that cannot be decoded, 401 without the configured bearer token, 413 over `max_request_bytes` (also
after decompression), 415 for other content types, 429 with `Retry-After` while the scoring workers'
queue is full (`server.score_queue`; retryable). `GET /healthz` (alive), `GET /readyz` (model loaded,
receivers up), `GET /stats` (pipeline counters). A bad request never stops the receiver.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import zlib
from collections.abc import Callable
from typing import Literal

from aiohttp import web
from google.protobuf import json_format

from monitor.errors import InputError, Overloaded
from monitor.publish.prometheus import MonitorMetrics
from monitor.runtime.pipeline import Ingest, IngestResult
from monitor.sources.answers import export_response

PROTOBUF = "application/x-protobuf"
PROTOBUF_TYPES = (PROTOBUF, "application/protobuf")  # OTLP/HTTP names both; the Collector sends either
JSON = "application/json"


def build_app(
    ingest: Ingest,
    stats: Callable[[], dict[str, float]],
    max_bytes: int,
    token: str | None,
    ready: Callable[[], bool],
) -> web.Application:
    """OTLP/HTTP export (each request body handed to `ingest`), health, readiness and `/stats`."""
    app = web.Application(client_max_size=max_bytes)

    async def traces(request: web.Request) -> web.Response:
        return await export(request, "traces")

    async def logs(request: web.Request) -> web.Response:
        return await export(request, "logs")

    async def export(request: web.Request, signal: Literal["traces", "logs"]) -> web.Response:
        if token is not None and not _authorized(request.headers.get("Authorization", ""), token):
            return web.Response(status=401, text="missing or wrong bearer token\n")
        content_type = request.content_type
        if content_type not in (*PROTOBUF_TYPES, JSON):
            return web.Response(
                status=415, text=f"unsupported content type {content_type!r}; use {PROTOBUF} or {JSON}\n"
            )
        if request.content_length is not None and request.content_length > max_bytes:
            return web.Response(status=413, text=f"request larger than {max_bytes} bytes\n")
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return web.Response(status=413, text=f"request larger than {max_bytes} bytes\n")
        if request.headers.get("Content-Encoding", "").lower() == "gzip":
            try:
                body = _gunzip(body, max_bytes)
            except ValueError as exc:
                status = 413 if "larger" in str(exc) else 400
                return web.Response(status=status, text=f"{exc}\n")
        origin = f"otlp-http {request.remote}"
        loop = asyncio.get_running_loop()
        try:
            result: IngestResult = await loop.run_in_executor(
                None, ingest, body, content_type, origin, signal
            )
        except InputError as exc:
            return web.Response(status=400, text=f"{exc.message}\n")
        except Overloaded as exc:  # retryable (OTLP/HTTP): the exporter waits Retry-After and sends again
            headers = {"Retry-After": str(max(1, round(exc.retry_after_s)))}
            return web.Response(status=429, text=f"{exc.message}\n", headers=headers)
        return _response(result, content_type, signal)

    async def healthz(_: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(_: web.Request) -> web.Response:
        return web.Response(text="ready\n") if ready() else web.Response(status=503, text="starting\n")

    async def stats_page(_: web.Request) -> web.Response:
        return web.json_response(stats())

    app.router.add_post("/v1/traces", traces)
    app.router.add_post("/v1/logs", logs)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/stats", stats_page)
    return app


def build_metrics_app(metrics: MonitorMetrics | None) -> web.Application:
    """`GET /metrics` on its own port (scrapers need no OTLP auth): the Prometheus text format, or
    OpenMetrics — with the exemplars that link failing turns to their traces — when the scraper asks
    for `application/openmetrics-text` (Prometheus does with exemplar storage on)."""
    from prometheus_client.exposition import choose_encoder

    app = web.Application()

    async def metrics_page(request: web.Request) -> web.Response:
        if metrics is None:
            return web.Response(status=404, text="metrics are off\n")
        encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
        return web.Response(body=encoder(metrics.registry), headers={"Content-Type": content_type})

    app.router.add_get("/metrics", metrics_page)
    return app


def _authorized(header: str, token: str) -> bool:
    scheme, _, value = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


def _gunzip(body: bytes, max_bytes: int) -> bytes:
    """Decompress every gzip member (RFC 1952 allows several; `cat a.gz b.gz` makes them) with one cap
    over all of them, so a small gzip bomb cannot grow past `max_bytes`."""
    out = bytearray()
    rest = body
    while True:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += d.decompress(rest, max_bytes + 1 - len(out))
        except zlib.error as exc:
            raise ValueError(f"Content-Encoding gzip, but the body is not gzip ({exc})") from exc
        if len(out) > max_bytes or d.unconsumed_tail:
            raise ValueError(f"decompressed request larger than {max_bytes} bytes")
        if not d.eof:
            raise ValueError("Content-Encoding gzip, but the body ends inside a gzip member (truncated)")
        rest = d.unused_data
        if not rest.strip(b"\0"):  # nothing, or the zero padding some writers leave: done
            return bytes(out)


def _response(result: IngestResult, content_type: str, signal: Literal["traces", "logs"]) -> web.Response:
    """The export answer in the request's encoding (OTLP/JSON spells the int64 counts as strings)."""
    response = export_response(result, signal)
    if content_type == JSON:
        return web.Response(body=json.dumps(json_format.MessageToDict(response)).encode(), content_type=JSON)
    return web.Response(
        body=response.SerializeToString(),
        content_type=content_type if content_type in PROTOBUF_TYPES else PROTOBUF,
    )
