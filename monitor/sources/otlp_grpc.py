"""OTLP/gRPC receiver (grpcio; TraceService and LogsService by name, requests as bytes). I/O.

`Export` hands the request to the same pipeline as OTLP/HTTP: TraceService for spans, LogsService for
GenAI events sent as log records (joined to their spans by trace and span id). Undecodable requests are
INVALID_ARGUMENT with the reason, a missing bearer token (when configured) UNAUTHENTICATED, partial
rejections are reported in `partial_success`. While the scoring workers' queue is full
(`server.score_queue`) a request is RESOURCE_EXHAUSTED with a `google.rpc.RetryInfo` delay in the
status details (OTLP: retryable only with RetryInfo), encoded here by hand (no googleapis protos
needed for three fields). TLS when a certificate is configured.
"""

from __future__ import annotations

import hmac
from concurrent import futures
from pathlib import Path
from typing import Any, Literal

import grpc
from google.protobuf.duration_pb2 import Duration
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from monitor.errors import InputError, Overloaded
from monitor.runtime.pipeline import Ingest, IngestResult
from monitor.sources.answers import export_response


class _Services:
    """TraceService/Export and LogsService/Export, handed the request's bytes as they came: decoded once,
    by the pipeline's decoder, as for OTLP/HTTP (grpcio's generated servicers would parse each request,
    and reject one with invalid UTF-8 in a string before the lenient decoder could keep its spans)."""

    def __init__(self, ingest: Ingest, token: str | None) -> None:
        self.ingest = ingest
        self.token = token

    def _ingest(
        self, request: bytes, context: grpc.ServicerContext, signal: Literal["traces", "logs"]
    ) -> IngestResult:
        if self.token is not None:
            header = dict(context.invocation_metadata()).get("authorization", "")
            scheme, _, value = str(header).partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                value.strip().encode(), self.token.encode()
            ):
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")
        try:
            return self.ingest(request, "application/x-protobuf", f"otlp-grpc {context.peer()}", signal)
        except InputError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, exc.message)
            raise  # abort raises; this keeps the type checker and a mocked context honest
        except Overloaded as exc:
            details = retry_status(
                grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], exc.message, exc.retry_after_s
            )
            context.set_trailing_metadata((("grpc-status-details-bin", details),))
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, exc.message)
            raise

    def traces(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        return export_response(self._ingest(request, context, "traces"), "traces").SerializeToString()

    def logs(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        return export_response(self._ingest(request, context, "logs"), "logs").SerializeToString()

    def handlers(self) -> list[grpc.GenericRpcHandler]:
        raw = {"request_deserializer": None, "response_serializer": None}  # bytes in, bytes out
        return [
            grpc.method_handlers_generic_handler(
                _service_name(trace_service_pb2, "TraceService"),
                {"Export": grpc.unary_unary_rpc_method_handler(self.traces, **raw)},
            ),
            grpc.method_handlers_generic_handler(
                _service_name(logs_service_pb2, "LogsService"),
                {"Export": grpc.unary_unary_rpc_method_handler(self.logs, **raw)},
            ),
        ]


def retry_status(code: int, message: str, retry_after_s: float) -> bytes:
    """A serialized `google.rpc.Status` {code, message, details: [Any(RetryInfo{retry_delay})]}."""
    delay = Duration(seconds=int(retry_after_s), nanos=int((retry_after_s % 1) * 1e9)).SerializeToString()
    retry_info = _field(1, delay)  # RetryInfo.retry_delay
    any_ = _field(1, b"type.googleapis.com/google.rpc.RetryInfo") + _field(2, retry_info)
    return b"\x08" + _varint(code) + _field(2, message.encode()) + _field(3, any_)


def _field(number: int, value: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _service_name(module: Any, service: str) -> str:
    return str(module.DESCRIPTOR.services_by_name[service].full_name)


def start_grpc(
    ingest: Ingest, host: str, port: int, max_bytes: int, token: str | None,
    tls: tuple[Path, Path] | None = None, workers: int = 4, idle_timeout_s: float = 10.0,
) -> tuple[grpc.Server, int]:  # fmt: skip
    timeout_ms = int(idle_timeout_s * 1000)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers),
        options=[
            ("grpc.max_receive_message_length", max_bytes),
            # a connection that never finishes its handshake, or sits idle, is closed (as for OTLP/HTTP)
            ("grpc.server_handshake_timeout_ms", timeout_ms),
            ("grpc.max_connection_idle_ms", max(timeout_ms, 1000)),
        ],
    )
    server.add_generic_rpc_handlers(_Services(ingest, token).handlers())
    address = f"{host}:{port}"
    if tls is not None:
        cert, key = tls
        credentials = grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())])
        bound = server.add_secure_port(address, credentials)
    else:
        bound = server.add_insecure_port(address)
    server.start()
    return server, bound
