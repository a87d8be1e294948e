"""Tiny hand-built spans for unit tests of normalize/ and assemble/."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitor.model import Span, SpanEvent

_counter = [0]


def span(
    name: str = "s",
    attrs: dict[str, Any] | None = None,
    *,
    trace: str = "t1",
    start_s: float = 0.0,
    end_s: float | None = None,
    events: Sequence[tuple[str, dict[str, Any]]] = (),
    status: str = "UNSET",
    scope: str = "",
    resource: dict[str, Any] | None = None,
) -> Span:
    _counter[0] += 1
    return Span(
        trace_id=trace.ljust(32, "0"),
        span_id=f"{_counter[0]:016x}",
        parent_span_id=None,
        name=name,
        kind=1,
        start_ns=int(start_s * 1e9),
        end_ns=int((end_s if end_s is not None else start_s + 0.1) * 1e9),
        status=status,
        attributes=attrs or {},
        resource=resource or {},
        scope=scope,
        events=tuple(SpanEvent(name=n, time_ns=int(start_s * 1e9), attributes=a) for n, a in events),
    )


def to_otlp_json(request: Any) -> bytes:
    """OTLP/JSON as the spec and the Collector's otlp_json write it: protobuf JSON mapping, ids in hex."""
    import base64
    import json

    from google.protobuf import json_format

    def hexify(v: Any) -> Any:
        if isinstance(v, dict):
            return {
                k: (base64.b64decode(x).hex() if k in ("traceId", "spanId", "parentSpanId") else hexify(x))
                for k, x in v.items()
            }
        return [hexify(x) for x in v] if isinstance(v, list) else v

    return json.dumps(hexify(json_format.MessageToDict(request))).encode()
