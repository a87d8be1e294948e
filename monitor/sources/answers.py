"""The answer to one OTLP export request, for both receivers (HTTP and gRPC). Pure.

In: what the pipeline made of the request (`IngestResult`) and its signal. Out: the
`ExportTraceServiceResponse` / `ExportLogsServiceResponse`, whose `partial_success` counts what was not
used and says the first reason why; empty when everything was used.
"""

from __future__ import annotations

from typing import Literal, overload

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from monitor.runtime.pipeline import IngestResult


@overload
def export_response(result: IngestResult, signal: Literal["traces"]) -> ExportTraceServiceResponse: ...
@overload
def export_response(result: IngestResult, signal: Literal["logs"]) -> ExportLogsServiceResponse: ...
def export_response(
    result: IngestResult, signal: Literal["traces", "logs"]
) -> ExportTraceServiceResponse | ExportLogsServiceResponse:
    response: ExportTraceServiceResponse | ExportLogsServiceResponse
    if signal == "logs":
        response = ExportLogsServiceResponse()
        if result.rejected:
            response.partial_success.rejected_log_records = result.rejected
            response.partial_success.error_message = result.rejection("log records")
    else:
        response = ExportTraceServiceResponse()
        if result.rejected:
            response.partial_success.rejected_spans = result.rejected
            response.partial_success.error_message = result.rejection("spans")
    return response
