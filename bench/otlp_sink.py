"""An OTLP/HTTP receiver that keeps every trace and log request it is sent and answers as a Collector
would (200, empty protobuf response), or refuses with `status`: the trace backend of the evaluation-
events tests (in-process), and the endpoint of `bench.ratios`' exporter measurement (its own process,
so its CPU is not the monitor's):

    .venv/bin/python -m bench.otlp_sink PORT      # serve until killed, keeping nothing
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@dataclass
class Received:
    url: str
    logs: list[ExportLogsServiceRequest] = field(default_factory=list)
    traces: list[ExportTraceServiceRequest] = field(default_factory=list)

    def records(self) -> list[tuple[str, str, str, dict[str, Any]]]:
        """(event name, trace id hex, span id hex, attributes) of every log record received."""
        out = []
        for request in list(self.logs):
            for resource in request.resource_logs:
                for scope in resource.scope_logs:
                    for r in scope.log_records:
                        attrs = {kv.key: _value(kv.value) for kv in r.attributes}
                        out.append((r.event_name, r.trace_id.hex(), r.span_id.hex(), attrs))
        return out

    def span_ids(self) -> set[tuple[str, str]]:
        return {
            (s.trace_id.hex(), s.span_id.hex())
            for request in list(self.traces)
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for s in scope.spans
        }


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


def _handler(received: Received | None, status: int) -> type[BaseHTTPRequestHandler]:
    """Answers every POST with `status`; with `received`, keeps what a 200 took (else keeps nothing)."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if received is not None and status == 200:
                if self.headers.get("Content-Encoding") == "gzip":  # a Collector's otlphttp exporter gzips
                    body = gzip.decompress(body)
                with lock:
                    if self.path.endswith("/v1/logs"):
                        received.logs.append(ExportLogsServiceRequest.FromString(body))
                    elif self.path.endswith("/v1/traces"):
                        received.traces.append(ExportTraceServiceRequest.FromString(body))
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    return Handler


@contextmanager
def otlp_sink(status: int = 200) -> Iterator[Received]:
    """A receiver on a free port for the length of the block: what it was sent, and its URL."""
    received = Received("")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(received, status))
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()


def serve(port: int) -> None:
    """Answer every request with 200 and keep nothing (a sink that costs its caller nothing)."""
    ThreadingHTTPServer(("127.0.0.1", port), _handler(None, 200)).serve_forever()


if __name__ == "__main__":
    import sys

    serve(int(sys.argv[1]))
