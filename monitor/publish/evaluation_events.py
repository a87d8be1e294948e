"""Verdicts as OpenTelemetry evaluation events, on the spans they judge. I/O (an OTLP log exporter).

In: a conversation report as the sink gets it (already redacted). Out: OTLP log records, sent by the
OpenTelemetry SDK's own OTLP log exporter (HTTP/protobuf or gRPC) to `evaluation_events.endpoint`,
each a `gen_ai.evaluation.result` event (semantic-conventions-genai, `model/gen-ai/events.yaml`)
carrying the trace id and span id of the span it judges, so a trace backend shows the verdict on the
agent's own span:
- per scored turn, on the span the turn was read from (a tool call's tool span, the LLM span of a
  reply; the conversation's root span for a gold turn no live turn matched): `gen_ai.evaluation.name`
  `aem.correctness`, score 1/0, label `pass` / `fail` / `uncertain`, the explanation of a `fail` or
  `uncertain` (failure reason, field, gold and got; the comparison's note), `error.type` = the failure
  reason, and `aem.turn_no`, `aem.attribution`
  (`root_cause` / `cascade`), `aem.root_cause_turn`, `aem.reference`;
- per failed sub-metric of a turn, one more: `aem.structural`, `aem.completeness`, `aem.truthfulness`
  with that check's score and reason;
- per conversation, on its root span: `aem.conversation`, score = success rate, label from `test_pass`,
  the root cause and its turn, and the conversation's agent, release and reference (`aem.agent`, …).
Every event names its conversation (`aem.conversation_id`); the event name travels in the log record's
`event_name` field (OTLP 1.5), as the semantic conventions define.
Only a conversation's first report (version 1) is sent, as the Prometheus counters count only it.

Off the scoring path: `__call__` only queues; one thread of this class's own exports, batch by batch
(`EvaluationEvents` says why not the SDK's batch processor). The queue is bounded (`max_queue`): a
record that finds it full is dropped and counted, and so is every record of a batch the exporter
could not deliver (endpoint down, refused, timed out after the exporter's own retries) — `counts()`:
`evaluation_events_sent`, `evaluation_events_dropped`, and the CPU seconds spent on them
(`evaluation_events_cpu_seconds`: queueing on the caller's thread, encoding and sending on the other).
Intake and reports never wait for it; `close` waits at most the exporter's timeout and 5 s more.
Endpoint, headers and TLS come from the config; what the config leaves unset the exporter reads from
the standard `OTEL_EXPORTER_OTLP_LOGS_*` / `OTEL_EXPORTER_OTLP_*` variables (headers, certificate,
compression, gRPC `insecure`; the timeout is always `timeout_s`; gRPC header names are sent in lower
case, as gRPC requires).
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from time import monotonic, thread_time, time_ns
from typing import Any

from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.context import _SUPPRESS_INSTRUMENTATION_KEY, Context, attach, set_value
from opentelemetry.sdk._logs import LogRecordLimits, ReadableLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context

from monitor import __version__
from monitor.config import EvaluationEventsConfig

EVENT_NAME = "gen_ai.evaluation.result"


@dataclass(frozen=True)
class Event:
    """One evaluation result, before it becomes a log record."""

    trace_id: str
    span_id: str
    attributes: dict[str, str | int | float | bool]
    failed: bool


def events_of(report: Mapping[str, Any]) -> list[Event]:
    """The evaluation events of one conversation report (module docstring); none for a report that was
    not scored, has no span ids (a `score` dialog), or re-reports a conversation (version > 1)."""
    root = (report.get("trace_id"), report.get("span_id"))
    if not report.get("scored") or report.get("version", 1) > 1 or not root[0] or not root[1]:
        return []
    where = {
        t["turn_no"]: (t["trace_id"], t["span_id"])
        for t in report.get("observed_turns") or []
        if t.get("trace_id") and t.get("span_id")
    }
    common: dict[str, str | int | float | bool] = {"aem.conversation_id": str(report["conversation_id"])}
    about = {f"aem.{k}": str(report[k]) for k in ("agent", "release", "reference_id") if report.get(k)}
    out = []
    for turn in report.get("turns") or []:
        trace_id, span_id = where.get(turn.get("live_turn_no"), root)  # rows are renumbered by alignment
        out += [Event(trace_id, span_id, {**common, **a}, failed) for a, failed in _turn_results(turn)]
    passed = bool(report.get("test_pass"))
    conversation: dict[str, str | int | float | bool] = {
        "gen_ai.evaluation.name": "aem.conversation",
        "gen_ai.evaluation.score.value": float(report.get("success_rate") or 0.0),
        "gen_ai.evaluation.score.label": "pass" if passed else "fail",
        "gen_ai.evaluation.explanation": _conversation_explanation(report),
    }
    if not passed and report.get("root_cause"):
        conversation["error.type"] = str(report["root_cause"])
        conversation["aem.root_cause_turn"] = int(report.get("first_failure_turn") or 0)
    out.append(Event(str(root[0]), str(root[1]), {**common, **about, **conversation}, not passed))
    return out


def _turn_results(turn: Mapping[str, Any]) -> Iterator[tuple[dict[str, str | int | float | bool], bool]]:
    ok = bool(turn["success"])
    label = "pass" if ok and not turn.get("uncertain") else "uncertain" if ok else "fail"
    attrs: dict[str, str | int | float | bool] = {
        "gen_ai.evaluation.name": "aem.correctness",
        "gen_ai.evaluation.score.value": 1.0 if ok else 0.0,
        "gen_ai.evaluation.score.label": label,
        "aem.turn_no": int(turn["turn_no"]),
        "aem.reference": str(turn.get("reference") or ""),
    }
    if label != "pass":  # a plain pass needs no words (most turns: each attribute costs export CPU)
        attrs["gen_ai.evaluation.explanation"] = _explanation(turn)
    if not ok:
        reason = str(turn.get("failure_reason") or "")
        cascade = reason == "prior_action_failed"
        attrs["error.type"] = reason
        attrs["aem.attribution"] = "cascade" if cascade else "root_cause"
        attrs["aem.root_cause_turn"] = int(turn.get("root_turn") or 0) if cascade else int(turn["turn_no"])
    yield attrs, not ok
    for check in turn.get("checks") or []:
        if check.get("passed") is False:
            sub = {
                **attrs,
                "gen_ai.evaluation.name": f"aem.{check['sub_metric']}",
                "gen_ai.evaluation.score.value": float(check.get("score") or 0.0),
                "gen_ai.evaluation.score.label": "fail",
                "gen_ai.evaluation.explanation": _reason_and_detail(check),
                "error.type": str(check.get("failure_reason") or attrs.get("error.type", "")),
            }
            yield sub, True


def _explanation(turn: Mapping[str, Any]) -> str:
    if not turn["success"]:
        return _reason_and_detail(turn)
    doubts = [c for c in turn.get("comparisons") or [] if c.get("uncertain")]
    notes = "; ".join(n for n in (c.get("note") or "" for c in doubts) if n)
    if doubts and all(c.get("rung") == "unrecorded" for c in doubts):
        return f"not compared: {notes}"  # a reply no span recorded
    return "passed on an uncertain comparison: " + notes


def _reason_and_detail(item: Mapping[str, Any]) -> str:
    reason, detail = str(item.get("failure_reason") or ""), str(item.get("detail") or "")
    return f"{reason}: {detail}" if detail else reason


def _conversation_explanation(report: Mapping[str, Any]) -> str:
    if report.get("test_pass"):
        return "every turn passed"
    return (
        f"root cause at turn {report.get('first_failure_turn')} ({report.get('root_cause')}); "
        f"{report.get('root_cause_count', 0)} root cause(s), {report.get('cascading_count', 0)} cascade(s)"
    )


class EvaluationEvents:
    """The exporter (module docstring): call it with each report; `close` sends what is queued.

    The records are the SDK's own (`ReadableLogRecord`, the resource and scope the SDK would give them)
    and the SDK's OTLP exporter sends them, but they go to it through this class's bounded queue and
    one sending thread rather than through `Logger.emit` and `BatchLogRecordProcessor`: that path
    re-validates every attribute value one by one and copies each record: about 65 µs a record on the
    scoring thread, against 15 µs for all of `__call__` (the events read from the report included)
    measured beside it. What is left is the SDK's encoding and the HTTP on the sending thread, about
    three quarters of the events' CPU (in December 2026 ~25 µs a record on the scoring thread, ~60–70 µs
    on the sending one; the resource's hash computed once, `_HashedResource`; each span's context made
    once per report).
    The attributes are built here from typed report fields (strings, ints, floats, bools), so the
    validation has nothing to reject; the limits an operator sets still apply, as the SDK applies them:
    value length (`OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT`, `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`) and
    count (`OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT`, `OTEL_ATTRIBUTE_COUNT_LIMIT`; an event has at most 14).
    So do `OTEL_SDK_DISABLED=true` (nothing is sent or counted) and the SDK's rule that its own exports
    are not traced: the sending thread's context suppresses instrumentation, as the batch processor's
    does. Ids that are no OTLP trace or span id (not 32 / 16 hex digits, or all zero) lose their event
    only, counted dropped: an id the encoder cannot take would otherwise lose its whole batch."""

    def __init__(self, config: EvaluationEventsConfig) -> None:
        self.config = config
        self._exporter = _exporter(config)
        self._resource = _HashedResource(
            Resource.create({"service.name": config.service_name, "service.version": __version__})
        )
        self._scope = InstrumentationScope("agent-monitor", __version__)
        limits = LogRecordLimits()
        self._max_len, self._max_attributes = (
            limits.max_log_record_attribute_length,
            limits.max_log_record_attributes,
        )
        self._disabled = os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
        self._batch = min(config.batch_size, config.max_queue)
        self._queue: deque[tuple[float, ReadableLogRecord]] = deque()  # (queued at, record)
        self._wake = threading.Condition()
        self._counts: dict[str, float] = dict.fromkeys(
            ("evaluation_events_sent", "evaluation_events_dropped", "evaluation_events_cpu_seconds"), 0
        )
        self._pending = 0  # queued or being exported: at most `max_queue`
        self._closing = self._closed = False
        self._sender = threading.Thread(target=self._send, name="evaluation-events", daemon=True)
        self._sender.start()

    def __call__(self, report: Mapping[str, Any]) -> None:
        if self._disabled or self._closed:  # after close the counts are final: nothing more is taken
            return
        start = thread_time()
        self._queue_events(report)
        self._count("evaluation_events_cpu_seconds", thread_time() - start)

    def _queue_events(self, report: Mapping[str, Any]) -> None:
        try:
            events = events_of(report)
        except (KeyError, TypeError, ValueError):  # a report this code does not know: counted, not raised
            self._count("evaluation_events_dropped", 1)
            return
        now, records, lost = time_ns(), [], 0
        contexts: dict[tuple[str, str], Context | None] = {}  # a span's events share its context
        for e in events:
            where = (e.trace_id, e.span_id)
            if not isinstance(e.trace_id, str) or not isinstance(e.span_id, str):
                context = None  # ids a hand-edited report holds as something else (a list): no key
            elif where in contexts:
                context = contexts[where]
            else:
                context = contexts[where] = _span_context(*where)
            if context is None:  # not a span's ids (a report rewritten by hand): that event only is lost
                lost += 1
                continue
            records.append(self._record(e, context, now))
        with self._wake:
            room = 0 if self._closing else max(0, self.config.max_queue - self._pending)
            queued_at = monotonic()
            self._queue.extend((queued_at, r) for r in records[:room])
            self._pending += min(room, len(records))
            self._counts["evaluation_events_dropped"] += lost + max(0, len(records) - room)
            if len(self._queue) >= self._batch:
                self._wake.notify()

    def _record(self, e: Event, context: Context, now: int) -> ReadableLogRecord:
        attributes = e.attributes
        if self._max_len is not None:
            attributes = {k: v[: self._max_len] if isinstance(v, str) else v for k, v in attributes.items()}
        if self._max_attributes is not None and len(attributes) > self._max_attributes:
            attributes = dict(list(attributes.items())[: self._max_attributes])
        record = LogRecord(
            timestamp=now,
            observed_timestamp=now,
            context=context,
            event_name=EVENT_NAME,
            severity_number=SeverityNumber.WARN if e.failed else SeverityNumber.INFO,
            body=f"{e.attributes['gen_ai.evaluation.name']}: {e.attributes['gen_ai.evaluation.score.label']}",
            attributes=attributes,
        )
        return ReadableLogRecord(
            log_record=record, resource=self._resource, instrumentation_scope=self._scope
        )

    def counts(self) -> dict[str, float]:
        with self._wake:
            return {k: float(v) for k, v in self._counts.items()}

    def close(self) -> None:
        """Send what is queued, waiting at most the exporter's timeout and 5 s more, then stop: what has
        not been sent by then is counted dropped, and the counts no longer change (a summary printed
        after `close` is final). A second call does nothing."""
        with self._wake:
            if self._closing:
                return
            self._closing = True
            self._wake.notify()
        self._sender.join(self.config.timeout_s + 5)
        with self._wake:
            self._closed = True
            self._queue.clear()
            self._counts["evaluation_events_dropped"] += self._pending
            self._pending = 0
        self._exporter.shutdown()  # type: ignore[no-untyped-call]  # the SDK leaves it unannotated

    def _send(self) -> None:
        """The sending thread: a batch when `batch_size` records wait or the oldest has waited
        `schedule_delay_s`; at close, what is left, batch by batch. Its exports are not traced."""
        attach(set_value(_SUPPRESS_INSTRUMENTATION_KEY, True))
        delay = self.config.schedule_delay_s
        while True:
            with self._wake:
                while not self._closing and len(self._queue) < self._batch:
                    if not self._queue:
                        self._wake.wait(delay)  # nothing queued: look again after a delay, or when woken
                        continue
                    left = self._queue[0][0] + delay - monotonic()  # until the oldest has waited its delay
                    if left <= 0:
                        break
                    self._wake.wait(left)
                if self._closed or (self._closing and not self._queue):
                    return
                batch = [self._queue.popleft()[1] for _ in range(min(self._batch, len(self._queue)))]
            if batch:
                self._deliver(batch)

    def _deliver(self, batch: list[ReadableLogRecord]) -> None:
        start = thread_time()
        try:
            sent = self._exporter.export(batch) is LogRecordExportResult.SUCCESS
        except Exception:  # the SDK's exporters should not raise; if one does, the batch is lost
            sent = False
        with self._wake:
            if self._closed:  # counted dropped at close; an export that ends later changes nothing
                return
            self._counts["evaluation_events_cpu_seconds"] += thread_time() - start
            self._pending -= len(batch)
            self._counts["evaluation_events_sent" if sent else "evaluation_events_dropped"] += len(batch)

    def _count(self, key: str, n: float) -> None:
        with self._wake:
            self._counts[key] += n


def _span_context(trace_id: str, span_id: str) -> Context | None:
    """The context of the judged span (sampled, remote) that places a record on it; None for ids that
    are no OTLP trace and span id."""
    ids = _otlp_ids(trace_id, span_id)
    if ids is None:
        return None
    span = NonRecordingSpan(SpanContext(*ids, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)))
    return set_span_in_context(span)


class _HashedResource(Resource):
    """The SDK's resource, its hash computed once. The SDK's encoder groups every record of a batch by
    its resource, and `Resource.__hash__` serialises the attributes to JSON on each call: 5 µs a record
    here, a tenth of the events' own CPU. The attributes are immutable, so one hash serves."""

    def __init__(self, resource: Resource) -> None:
        super().__init__(resource.attributes, resource.schema_url)
        self._hash = super().__hash__()

    def __hash__(self) -> int:
        return self._hash


def _otlp_ids(trace_id: object, span_id: object) -> tuple[int, int] | None:
    """A trace id and a span id as OTLP carries them (16 and 8 bytes, not zero), or None."""
    if not (
        isinstance(trace_id, str) and isinstance(span_id, str) and len(trace_id) == 32 and len(span_id) == 16
    ):
        return None
    if not _HEX.fullmatch(trace_id + span_id):
        return None
    ids = int(trace_id, 16), int(span_id, 16)
    return ids if all(ids) else None


_HEX = re.compile(r"[0-9a-fA-F]+")


def _exporter(config: EvaluationEventsConfig) -> LogRecordExporter:
    """The SDK's OTLP log exporter for the configured protocol; unset options left to `OTEL_*`."""
    headers = {k: v.get_secret_value() for k, v in config.headers.items()} or None
    if config.protocol == "grpc":
        # gRPC metadata keys are lower case (`Authorization` is refused as invalid metadata)
        headers = {k.lower(): v for k, v in headers.items()} if headers else None
        from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter as GrpcExporter

        return GrpcExporter(
            endpoint=config.endpoint, insecure=config.insecure, headers=headers, timeout=config.timeout_s
        )
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter as HttpExporter

    endpoint = f"{(config.endpoint or '').rstrip('/')}/v1/logs"
    return HttpExporter(
        endpoint=endpoint,
        headers=headers,
        timeout=config.timeout_s,
        certificate_file=str(config.certificate_file) if config.certificate_file else None,
        client_certificate_file=str(config.client_certificate_file)
        if config.client_certificate_file
        else None,
        client_key_file=str(config.client_key_file) if config.client_key_file else None,
    )
