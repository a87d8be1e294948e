"""Decode stage: OTLP `ExportTraceServiceRequest` (and `ExportLogsServiceRequest`) bytes → internal `Span`s. Pure.

In: one payload (protobuf, or OTLP/JSON as the SDK exporters and the Collector's `otlp_json` write it:
hex trace/span ids, `intValue` as strings, `kvlistValue` / `arrayValue`), its content type, and where
it came from (for error messages). Out: `Decoded` — the spans, and one line per span that could not be
used (no trace or span id; in OTLP/JSON also a span that does not parse: a bad hex id, an integer of
100,000 digits), so the rest of the request is still processed.

Log records (`decode_logs_request`) carry GenAI events where an instrumentation sends content as
events (opentelemetry-instrumentation-openai-v2 does by default). The records of one span become one
span of their own, child of that span, whose events are the records (event name, attributes and the
body's map), so they join their trace's conversation exactly as events on the span itself would. Its
id is the parent span's id plus a digest of the records, so a re-delivered request is a duplicate,
not new content. A record without trace and span id cannot be joined (rejected, counted); one
without an event name is an application log, not a GenAI event (ignored, counted).

A payload that cannot be decoded at all (or has no readable span) raises `InputError` naming the origin
and why. Attribute values longer than `max_value_chars` are cut and counted, never kept whole; JSON
values nested deeper than `MAX_JSON_DEPTH` (e.g. an `arrayValue` 10,000 deep) are cut to an empty
value and counted, without recursion, instead of failing the request. Uses opentelemetry-proto's
generated classes; convention keys are not interpreted here (that is normalize/).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span as _PbSpan

from monitor.errors import InputError
from monitor.model import Span, SpanEvent, SpanLink

PROTOBUF_TYPES = ("application/x-protobuf", "application/protobuf", "otlp_proto")
JSON_TYPES = ("application/json", "otlp_json")

MAX_VALUE_CHARS = 1_000_000
MAX_JSON_DEPTH = 48  # containers below a span; protobuf's JSON parser stops at 100 messages
_ID_FIELDS = {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"}
_STATUS: dict[int, Literal["UNSET", "OK", "ERROR"]] = {0: "UNSET", 1: "OK", 2: "ERROR"}


@dataclass
class Decoded:
    spans: list[Span] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # no trace or span id
    unreadable: list[str] = field(default_factory=list)  # OTLP/JSON spans that did not parse
    truncated_values: int = 0  # values cut: too long, or nested too deeply
    ignored: int = 0  # log records that are no GenAI event (no event name)


def decode_request(
    payload: bytes, content_type: str, origin: str, max_value_chars: int = MAX_VALUE_CHARS
) -> Decoded:
    """Decode one request; `content_type` is `application/x-protobuf` or `application/json`."""
    kind = content_type.split(";", 1)[0].strip().lower()
    unreadable: list[str] = []
    cut = 0
    if kind in PROTOBUF_TYPES:
        request = _from_protobuf(ExportTraceServiceRequest, payload, origin)
    elif kind in JSON_TYPES:
        request, unreadable, cut = _from_json(payload, origin)
    else:
        raise _unsupported(content_type, origin)
    decoded = _spans(request, origin, max_value_chars)
    decoded.unreadable = unreadable
    decoded.truncated_values += cut
    return decoded


def decode_logs_request(
    payload: bytes, content_type: str, origin: str, max_value_chars: int = MAX_VALUE_CHARS
) -> Decoded:
    """Decode one OTLP logs request: GenAI events as log records → one child span per span they name."""
    kind = content_type.split(";", 1)[0].strip().lower()
    cut = 0
    if kind in PROTOBUF_TYPES:
        request = _from_protobuf(ExportLogsServiceRequest, payload, origin)
    elif kind in JSON_TYPES:
        data, cut = _load_json(payload, origin)
        if not isinstance(data, dict) or ("resourceLogs" not in data and "resource_logs" not in data):
            raise InputError(origin, "JSON that is not OTLP logs: expected an object with 'resourceLogs'")
        counter = [cut]
        try:
            request = json_format.ParseDict(
                _hex_ids(data, counter, origin), ExportLogsServiceRequest(), ignore_unknown_fields=True
            )
        except (json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
            raise InputError(origin, f"not valid OTLP/JSON logs: {_short(str(exc))}") from exc
        cut = counter[0]
    else:
        raise _unsupported(content_type, origin)
    decoded = _log_spans(request, origin, max_value_chars)
    decoded.truncated_values += cut
    return decoded


def _unsupported(content_type: str, origin: str) -> InputError:
    return InputError(
        origin, f"unsupported content type {content_type!r}; send application/x-protobuf or application/json"
    )


def _from_protobuf(cls: Any, payload: bytes, origin: str) -> Any:
    try:
        return cls.FromString(payload)
    except DecodeError as exc:
        error = exc
    try:  # invalid UTF-8 in a string field fails the strict parse; the lenient one keeps every span
        return _lenient_request_class(cls).FromString(payload)
    except DecodeError:
        raise InputError(
            origin, f"not an OTLP protobuf {cls.DESCRIPTOR.name} ({error}); truncated or wrong encoding?"
        ) from error


@functools.cache
def _lenient_request_class(cls: Any) -> Any:
    """The request class with every `string` field read as `bytes` (decoded with U+FFFD later).

    Built from opentelemetry-proto's own descriptors, renamed into a private package, so the wire
    format is exactly OTLP's.
    """
    files: dict[str, Any] = {}

    def collect(fd: Any) -> None:
        for dep in fd.dependencies:
            collect(dep)
        files.setdefault(fd.name, fd)

    collect(cls.DESCRIPTOR.file)
    pool = descriptor_pool.DescriptorPool()
    for fd in files.values():
        proto = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(proto)
        proto.name = "lenient/" + proto.name
        proto.package = "lenient." + proto.package
        proto.dependency[:] = ["lenient/" + d for d in proto.dependency]
        for message in _all_messages(proto.message_type):
            for f in message.field:
                if f.type == descriptor_pb2.FieldDescriptorProto.TYPE_STRING:
                    f.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
                if f.type_name.startswith(".opentelemetry."):
                    f.type_name = ".lenient" + f.type_name
        proto.ClearField("service")
        proto.options.Clear()
        pool.Add(proto)
    full_name = "lenient." + cls.DESCRIPTOR.full_name
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))


def _all_messages(messages: Any) -> Any:
    for m in messages:
        yield m
        yield from _all_messages(m.nested_type)


def _text(value: str | bytes) -> str:
    """A string field, from the strict (str) or lenient (bytes) parse."""
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else value


def _from_json(payload: bytes, origin: str) -> tuple[ExportTraceServiceRequest, list[str], int]:
    """The request, the spans that could not be read (each located, with why), and how many values
    nested deeper than `MAX_JSON_DEPTH` were cut. Spans are parsed one by one, so one bad span (a bad id,
    a 100,000-digit number) costs only itself; a request with nothing readable raises `InputError`."""
    data, cut = _load_json(payload, origin)
    if not isinstance(data, dict) or ("resourceSpans" not in data and "resource_spans" not in data):
        raise InputError(origin, "JSON that is not OTLP: expected an object with 'resourceSpans'")
    request = ExportTraceServiceRequest()
    unreadable: list[str] = []
    counter = [cut]
    for r_i, rs in enumerate(_list(data.get("resourceSpans", data.get("resource_spans")))):
        if not isinstance(rs, dict):
            unreadable.append(f"{origin}: resourceSpans[{r_i}]: not an object")
            continue
        into = request.resource_spans.add()
        try:
            head = {k: v for k, v in rs.items() if k not in ("scopeSpans", "scope_spans")}
            json_format.ParseDict(_hex_ids(head, counter), into, ignore_unknown_fields=True)
        except (json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
            unreadable.append(f"{origin}: resourceSpans[{r_i}]: resource not valid OTLP/JSON: {exc}")
            del request.resource_spans[-1]
            continue
        for ss in _list(rs.get("scopeSpans", rs.get("scope_spans"))):
            if not isinstance(ss, dict):
                unreadable.append(f"{origin}: resourceSpans[{r_i}]: a scopeSpans entry is not an object")
                continue
            scope = into.scope_spans.add()
            try:
                head = {k: v for k, v in ss.items() if k != "spans"}
                json_format.ParseDict(_hex_ids(head, counter), scope, ignore_unknown_fields=True)
            except (json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
                unreadable.append(f"{origin}: resourceSpans[{r_i}]: scope not valid OTLP/JSON: {exc}")
                del into.scope_spans[-1]
                continue
            for s_i, raw in enumerate(_list(ss.get("spans"))):
                name = raw.get("name") if isinstance(raw, dict) else None
                where = f"{origin}: resourceSpans[{r_i}] span #{s_i} {name!r}"
                try:
                    one = _PbSpan()
                    json_format.ParseDict(_hex_ids(raw, counter, where), one, ignore_unknown_fields=True)
                except InputError as exc:
                    unreadable.append(exc.args[0])
                    continue
                except (json_format.ParseError, ValueError, TypeError, AttributeError, RecursionError) as exc:
                    unreadable.append(f"{where}: not valid OTLP/JSON: {_short(str(exc))}")
                    continue
                scope.spans.append(one)
    if unreadable and not any(ss.spans for rs in request.resource_spans for ss in rs.scope_spans):
        raise InputError(origin, f"no readable span; {unreadable[0].removeprefix(origin + ': ')}")
    return request, unreadable, counter[0]


def _load_json(payload: bytes, origin: str) -> tuple[Any, int]:
    """The parsed JSON and how many values nested deeper than `MAX_JSON_DEPTH` were cut to read it."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(origin, f"OTLP/JSON is not UTF-8 (byte {exc.start})") from exc
    try:
        return _loads(text), 0
    except RecursionError:  # nested past the parser's stack: cut the deep values first, then parse
        text, cut = _cut_deep(text, MAX_JSON_DEPTH)
        try:
            return _loads(text), cut
        except (RecursionError, ValueError) as exc:
            raise InputError(origin, f"OTLP/JSON nested too deeply to read ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise InputError(
            origin, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except ValueError as exc:
        raise InputError(origin, f"unreadable JSON: {exc}") from exc


def _loads(text: str) -> Any:
    # integers past Python's 4300-digit conversion limit become floats (inf): a field that must be an
    # integer then fails for that span alone, instead of failing the whole request
    return json.loads(text, parse_int=lambda s: int(s) if len(s) <= 4000 else float(s))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _cut_deep(text: str, max_depth: int) -> tuple[str, int]:
    """Replace every JSON object or array that opens deeper than `max_depth` with an empty one (an
    OTLP AnyValue without a value); linear, no recursion. Returns the text and how many were cut."""
    out: list[str] = []
    depth = last = cut = 0
    skip_from = -1
    opener = "{"
    for m in _JSON_TOKENS.finditer(text):
        token = m.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == max_depth + 1 and skip_from < 0:
                skip_from, opener = m.start(), token
        else:
            if depth == max_depth + 1 and skip_from >= 0:
                out += [text[last:skip_from], "{}" if opener == "{" else "[]"]
                last, skip_from, cut = m.end(), -1, cut + 1
            depth -= 1
    out.append(text[last:])
    return "".join(out), cut


def _hex_ids(value: Any, counter: list[int], where: str = "", depth: int = 0) -> Any:
    """OTLP/JSON writes ids as hex; protobuf's JSON mapping expects base64 for bytes. Values nested
    deeper than `MAX_JSON_DEPTH` are cut to an empty value and counted (protobuf refuses past 100)."""
    if depth > MAX_JSON_DEPTH and isinstance(value, (dict, list)):
        counter[0] += 1
        return {} if isinstance(value, dict) else []
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in _ID_FIELDS and isinstance(v, str):
                try:
                    out[k] = base64.b64encode(bytes.fromhex(v)).decode("ascii")
                except ValueError as exc:
                    raise InputError(where, f"field '{k}': {_short(repr(v), 80)} is not a hex id") from exc
            else:
                out[k] = _hex_ids(v, counter, where, depth + 1)
        return out
    if isinstance(value, list):
        return [_hex_ids(v, counter, where, depth + 1) for v in value]
    return value


def _spans(request: Any, origin: str, max_chars: int) -> Decoded:
    out = Decoded()
    counter = [0]
    for r_i, rs in enumerate(request.resource_spans):
        resource = _attributes(rs.resource.attributes, max_chars, counter)
        for ss in rs.scope_spans:
            for s_i, s in enumerate(ss.spans):
                if not s.trace_id or not s.span_id:
                    out.rejected.append(
                        f"{origin}: resourceSpans[{r_i}] span #{s_i} {s.name!r}: no trace or span id"
                    )
                    continue
                # every field is typed by the protobuf reading above: no validation pass (and no copy of
                # each attribute dict) is needed, so the models are constructed directly
                out.spans.append(
                    Span.model_construct(
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_span_id=s.parent_span_id.hex() or None,
                        name=_text(s.name),
                        kind=int(s.kind),
                        start_ns=int(s.start_time_unix_nano),
                        end_ns=int(s.end_time_unix_nano),
                        status=_STATUS.get(int(s.status.code), "UNSET"),
                        status_message=_text(s.status.message),
                        attributes=_attributes(s.attributes, max_chars, counter),
                        resource=resource,
                        scope=_text(ss.scope.name),
                        events=tuple(
                            SpanEvent.model_construct(
                                name=_text(e.name),
                                time_ns=int(e.time_unix_nano),
                                attributes=_attributes(e.attributes, max_chars, counter),
                            )
                            for e in s.events
                        ),
                        links=tuple(
                            SpanLink.model_construct(
                                trace_id=lk.trace_id.hex(),
                                span_id=lk.span_id.hex(),
                                attributes=_attributes(lk.attributes, max_chars, counter),
                            )
                            for lk in s.links
                        ),
                        origin=origin,
                    )
                )
    out.truncated_values = counter[0]
    return out


def _log_spans(request: Any, origin: str, max_chars: int) -> Decoded:
    out = Decoded()
    counter = [0]
    for r_i, rl in enumerate(request.resource_logs):
        resource = _attributes(rl.resource.attributes, max_chars, counter)
        for sl in rl.scope_logs:
            by_span: dict[tuple[bytes, bytes], list[Any]] = {}
            for l_i, record in enumerate(sl.log_records):
                name = _text(record.event_name) or _event_name(record.attributes)
                if not name:
                    out.ignored += 1
                elif not record.trace_id or not record.span_id:
                    out.rejected.append(
                        f"{origin}: resourceLogs[{r_i}] log record #{l_i} {name!r}: no trace or span id, "
                        "so it cannot be joined to its span"
                    )
                else:
                    by_span.setdefault((bytes(record.trace_id), bytes(record.span_id)), []).append(record)
            for (trace_id, span_id), records in by_span.items():
                out.spans.append(_events_span(trace_id, span_id, records, resource, _text(sl.scope.name), origin,
                                              max_chars, counter))  # fmt: skip
    out.truncated_values = counter[0]
    return out


def _events_span(
    trace_id: bytes, span_id: bytes, records: list[Any], resource: dict[str, Any], scope: str, origin: str,
    max_chars: int, counter: list[int],
) -> Span:  # fmt: skip
    """The log records of one span as one child span whose events they are."""
    records = sorted(records, key=_record_time)
    events, record_attributes = [], []
    for record in records:
        attributes = _attributes(record.attributes, max_chars, counter)
        record_attributes.append(attributes)
        body = _value(record.body, max_chars, counter) if record.HasField("body") else None
        fields = body if isinstance(body, dict) else {} if body is None else {"body": body}
        name = _text(record.event_name) or str(attributes.get("event.name", ""))
        events.append(SpanEvent(name=name, time_ns=_record_time(record), attributes={**attributes, **fields}))
    digest = hashlib.blake2b(b"".join(r.SerializeToString() for r in records), digest_size=8).hexdigest()
    # what every record says as a record attribute (e.g. gen_ai.system) also describes the span
    common = {k: v for k, v in record_attributes[0].items() if all(a.get(k) == v for a in record_attributes)}
    return Span(
        trace_id=trace_id.hex(),
        span_id=f"{span_id.hex()}:{digest}",
        parent_span_id=span_id.hex(),
        name=events[0].name if len(events) == 1 else "log records",
        kind=0,
        start_ns=events[0].time_ns,
        end_ns=events[-1].time_ns,
        status="UNSET",
        attributes={k: v for k, v in common.items() if not isinstance(v, dict | list)},
        resource=resource,
        scope=scope,
        events=tuple(events),
        origin=origin,
    )


def _record_time(record: Any) -> int:
    return int(record.time_unix_nano or record.observed_time_unix_nano)


def _event_name(kvs: Any) -> str:
    """Older SDKs put the event name in the `event.name` attribute."""
    for kv in kvs:
        if _text(kv.key) == "event.name":
            return _text(kv.value.string_value)
    return ""


def _attributes(kvs: Any, max_chars: int, counter: list[int]) -> dict[str, Any]:
    """Key -> value; string values (most of them) are read inline, without a call each."""
    out: dict[str, Any] = {}
    for kv in kvs:
        v = kv.value
        if v.WhichOneof("value") == "string_value":
            text = v.string_value
            if type(text) is not str:
                text = _text(text)
            if len(text) > max_chars:
                counter[0] += 1
                text = text[:max_chars]
            value: Any = text
        else:
            value = _value(v, max_chars, counter)
        key = kv.key
        out[key if type(key) is str else _text(key)] = value
    return out


def _value(v: Any, max_chars: int, counter: list[int]) -> Any:
    which = v.WhichOneof("value")
    if which == "string_value":
        text = _text(v.string_value)
        if len(text) > max_chars:
            counter[0] += 1
            return text[:max_chars]
        return text
    if which == "bool_value":
        return v.bool_value
    if which == "int_value":
        return int(v.int_value)
    if which == "double_value":
        return float(v.double_value)
    if which == "array_value":
        return [_value(x, max_chars, counter) for x in v.array_value.values]
    if which == "kvlist_value":
        return {_text(kv.key): _value(kv.value, max_chars, counter) for kv in v.kvlist_value.values}
    if which == "bytes_value":
        return v.bytes_value.hex()
    return None
