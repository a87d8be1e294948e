"""OTLP/gRPC receiver (grpcio, opentelemetry-proto's TraceService). I/O.

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
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from monitor.errors import InputError, Overloaded
from monitor.runtime.pipeline import Ingest, IngestResult
from monitor.sources.answers import export_response


class _Receiver:
    def __init__(self, ingest: Ingest, token: str | None) -> None:
        self.ingest = ingest
        self.token = token

    def _ingest(
        self, request: Any, context: grpc.ServicerContext, signal: Literal["traces", "logs"]
    ) -> IngestResult:
        if self.token is not None:
            header = dict(context.invocation_metadata()).get("authorization", "")
            scheme, _, value = str(header).partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                value.strip().encode(), self.token.encode()
            ):
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token")
        try:
            return self.ingest(
                request.SerializeToString(), "application/x-protobuf", f"otlp-grpc {context.peer()}", signal
            )
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


class _TraceService(_Receiver, trace_service_pb2_grpc.TraceServiceServicer):
    def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: grpc.ServicerContext
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        return export_response(self._ingest(request, context, "traces"), "traces")


class _LogsService(_Receiver, logs_service_pb2_grpc.LogsServiceServicer):
    def Export(
        self, request: logs_service_pb2.ExportLogsServiceRequest, context: grpc.ServicerContext
    ) -> logs_service_pb2.ExportLogsServiceResponse:
        return export_response(self._ingest(request, context, "logs"), "logs")


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
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_TraceService(ingest, token), server)
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(_LogsService(ingest, token), server)
    address = f"{host}:{port}"
    if tls is not None:
        cert, key = tls
        credentials = grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())])
        bound = server.add_secure_port(address, credentials)
    else:
        bound = server.add_insecure_port(address)
    server.start()
    return server, bound
