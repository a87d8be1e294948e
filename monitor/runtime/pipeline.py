"""The streaming pipeline: payloads in, conversation reports out. Wiring, no I/O of its own.

decode → normalize → windows → (on close) score_conversation → redact → sink. Scoring sees the real
values (a redacted email could not be compared); only what leaves the process is redacted. The same object
runs under `replay`, `run` and the Kafka score stage, so a recorded file and a live stream give the same
reports. Thread-safe: one lock around state; `snapshot` (scrapes) reads counters without it.

Scoring workers (`run` with `server.workers` > 1, a `ScoringPool`; monitor/runtime/workers.py): decode,
normalize and windows stay here; each closed conversation is handed to a worker process and its report
comes back to be counted (under the lock), observed, redacted and written (outside it, one at a time).
While `server.score_queue` conversations wait, `ingest` refuses requests with `Overloaded` before
reading them (counted: `requests_throttled`); `flush` returns once every queued one is reported. The
embedder counters in `snapshot` are then the workers' summed (each worker has its own cache), and
`scoring_queue` and `workers_replaced` are added. Without a pool (the default, `replay`, Kafka)
everything runs inline, under the lock, as described above.

Time: windows run on arrival (processing) time, from the injected `clock` (ns): `run` and Kafka pass the
wall clock and call `tick` on a timer, so idle conversations close when traffic stops; `replay` passes a
clock that stands still (its whole input arrives at once, in file order), so nothing closes by
inactivity or age while reading and the rest closes at `flush`. Event time never moves the clock.

Failure isolation: an undecodable payload raises `InputError` to its source (400, a bad-payload line, a
dead letter); an exception nobody foresaw while decoding is turned into one. An exception while
normalizing one span, or scoring one conversation, is counted (`pipeline_errors:<stage>`, exported as
`aem_pipeline_errors_total{stage}`) and that conversation is reported unscored with the reason
(`unscored_reason`); the rest of the request and of the stream go on. Per-item problems are counters,
not log lines (the first of each kind is logged once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from monitor.assemble.history import opening_key
from monitor.assemble.windows import Closed, OpenConversation, WindowStore
from monitor.compare.ladder import Ladder
from monitor.config import NormalizeConfig, ScoringConfig
from monitor.decode.otlp import decode_logs_request, decode_request
from monitor.errors import InputError, Overloaded
from monitor.model import AgentSpan, Dialog, Span
from monitor.normalize import normalize_span
from monitor.normalize.common import bare, identity
from monitor.publish.prometheus import MonitorMetrics
from monitor.publish.redact import Redactor
from monitor.reference.policy import Policy
from monitor.runtime.conversation import Outcome, describe, merged_report, report_closed, unscored_report
from monitor.runtime.workers import Job, ScoringPool

log = logging.getLogger(__name__)
Sink = Callable[[dict[str, Any]], None]


class ReportObserver(Protocol):
    """Given each published report beside the sink, with counters of its own (`EvaluationEvents`)."""

    def __call__(self, report: dict[str, Any]) -> None: ...

    def counts(self) -> dict[str, float]: ...


Signal = Literal["traces", "logs"]


@dataclass(frozen=True)
class IngestResult:
    spans: int
    rejected: int
    reports: int
    problems: tuple[str, ...] = ()  # why spans were rejected, each located

    def rejection(self, what: str) -> str:
        """The partial-success message receivers answer: how many `what` were not used, and the first why."""
        if not self.rejected:
            return ""
        first = f", e.g. {self.problems[0]}" if self.problems else ""
        return f"{self.rejected} {what} not used{first}"


#: what a receiver hands a request to: (body, content type, origin, signal) -> how it went
Ingest = Callable[[bytes, str, str, Signal], IngestResult]


class Pipeline:
    def __init__(
        self,
        config: ScoringConfig,
        ladder: Ladder,
        references: Mapping[str, Dialog],
        sink: Sink,
        metrics: MonitorMetrics | None = None,
        policies: Mapping[str, Policy] | None = None,
        clock: Callable[[], int] = time.time_ns,
        pool: ScoringPool | None = None,
        events: ReportObserver | None = None,
    ) -> None:
        """`pool`: score closed conversations in worker processes (`run` with `server.workers` > 1);
        `ladder` then scores nothing (the workers build their own). `events`: also given each report
        as published (redacted), whatever the sink: the evaluation events' exporter, which only queues."""
        self.config = config
        self.ladder = ladder
        self.references = references
        self.sink = sink
        self.policies = dict(policies or {})
        self.on_close: Callable[[str], None] | None = None  # the Kafka stage releases offsets here
        self.hold: Callable[[str], bool] | None = None  # Kafka: not yet closable (partition being re-read)
        self.store = WindowStore(config.windows)
        self.redact = Redactor(config.redaction)
        self.stats: Counter[str] = Counter()
        self.clock = clock  # arrival (processing) time in ns; replay's stands still
        self._lock = threading.Lock()
        self._warned: set[str] = set()
        self.failures: deque[str] = deque(maxlen=100)  # the latest conversations not scored by a fault
        self.metrics = metrics
        self.events = events
        self.pool = pool
        if pool is not None:
            pool.bind(self._scored_in_worker)
        if metrics is not None:
            metrics.attach(self.snapshot)

    def ingest(
        self, payload: bytes, content_type: str, origin: str, signal: Literal["traces", "logs"] = "traces"
    ) -> IngestResult:
        """Decode, normalize and window one request (`signal`: `traces`, or `logs` for GenAI events sent as
        log records); score and emit what closes. `Overloaded` (nothing read) while `server.score_queue`
        conversations wait for a scoring worker."""
        if self.pool is not None and self.pool.waiting() >= self.config.server.score_queue:
            with self._lock:
                self.stats["requests_throttled"] += 1
            retry = self.config.server.retry_after_s
            raise Overloaded(
                f"{self.config.server.score_queue} conversations are waiting to be scored; retry in {retry} s",
                retry,
            )
        self.stats["requests"] += 1
        decode = decode_logs_request if signal == "logs" else decode_request
        try:
            decoded = decode(payload, content_type, origin)
        except Exception as exc:
            error = exc if isinstance(exc, InputError) else self._unforeseen("decode", origin, exc)
            self.stats["requests_rejected"] += 1
            if self.metrics is not None:
                self.metrics.observe_request(accepted=False)
            self._warn_once("undecodable", f"rejecting undecodable payloads, e.g. {error}")
            if error is exc:
                raise
            raise error from exc
        if self.metrics is not None:
            self.metrics.observe_request(accepted=True)
        # normalized outside the state lock (pure; receivers' threads do it side by side); its
        # errors are counted under the lock with the rest
        errors: list[tuple[str, BaseException]] = []
        named = normalize_spans(decoded.spans, self.config.normalize, lambda *e: errors.append(e))
        with self._lock:
            self.stats["spans_received"] += (
                len(decoded.spans) + len(decoded.rejected) + len(decoded.unreadable)
            )
            self.stats["spans_rejected_no_id"] += len(decoded.rejected)
            self.stats["spans_rejected_unreadable"] += len(decoded.unreadable)
            self.stats["attribute_values_truncated"] += decoded.truncated_values
            if signal == "logs":
                self.stats["log_records_ignored"] += decoded.ignored
            for stage, fault in errors:
                self._count_error(stage, fault)
            reports = self._add(named)
        problems = (*decoded.rejected, *decoded.unreadable)
        return IngestResult(len(decoded.spans), len(problems), reports, problems)

    def ingest_spans(self, spans: list[AgentSpan]) -> int:
        """Add spans that an earlier stage already decoded and normalized (Kafka repartition topic)."""
        with self._lock:
            self.stats["spans_received"] += len(spans)
            return self._add(spans)

    def _add(self, spans: list[AgentSpan]) -> int:
        now = self.clock()
        closed: list[Closed] = []
        for agent_span in spans:
            self.stats[f"spans_{agent_span.convention}"] += 1
            closed += self.store.add(agent_span, now)
        closed += self.store.close_marked(self.hold)
        closed += self.store.advance(now - int(self.config.server.lateness_s * 1e9), self.hold)
        return self._emit(closed)

    def tick(self, now_ns: int) -> int:
        """Processing-time progress for a live service: idle conversations close even when traffic stops.
        `lateness_s` is an allowance on top of `inactivity_s` (an exporter's batching delay)."""
        with self._lock:
            lateness = int(self.config.server.lateness_s * 1e9)
            closed = self.store.close_marked(self.hold)  # markers a `hold` kept back
            return self._emit(closed + self.store.advance(now_ns - lateness, self.hold))

    def note_version(self, conversation_id: str, version: int, merged_into: str | None = None) -> None:
        """An earlier owner reported `version` of this conversation (Kafka): the next report is higher;
        `merged_into`: that report retired the id into that conversation (a merge counted once)."""
        with self._lock:
            self.store.note_version(conversation_id, version, merged_into)

    def flush(self, reason: str = "end_of_input") -> int:
        """Close and report every open conversation; with a pool, returns once all are reported."""
        with self._lock:
            n = self._emit(self.store.flush(reason))
        if self.pool is not None:
            self.pool.wait_idle()
        return n

    def close(self) -> None:
        """Stop the scoring workers, if any, once everything queued is reported."""
        if self.pool is not None:
            self.pool.close()

    def _emit(self, closed: list[Closed]) -> int:
        for c in closed:
            conv = c.conversation
            if c.merged_into is not None:  # an id reported alone, superseded: no verdict to count, no event
                try:
                    self.sink(self.redact(merged_report(conv, c.merged_into).to_json()))
                except Exception as exc:  # one report's fault must not cost the batch its others
                    self._count_error("publish", exc)
                continue
            if conv.spans and all(s.setup for s in conv.spans):  # e.g. a lone create_agent trace
                self.stats["setup_traces_skipped"] += 1
                if self.on_close is not None:
                    self.on_close(conv.conversation_id)
                continue
            if self.pool is not None:  # scored in a worker process; published when it comes back
                self.pool.submit(conv, c.closed_by)
                continue
            outcome = report_closed(
                conv, c.closed_by, self.references, self.ladder, self.config, self.policies
            )
            self._count_report(conv, outcome)
            self._publish(conv, c.closed_by, outcome)
        return len(closed)

    def _count_report(self, conv: OpenConversation, outcome: Outcome) -> None:
        """Counters and `on_close` for one report (under the state lock)."""
        if outcome.error is not None:
            self._count_error("score", outcome.error)
        if outcome.failure is not None:
            self.failures.append(f"conversation {conv.conversation_id!r}: {outcome.failure}")
        self.stats["conversations_reported"] += 1
        if self.on_close is not None:
            self.on_close(conv.conversation_id)
        self.stats["conversations_scored" if outcome.scored else "conversations_unscored"] += 1
        if conv.version > 1:
            self.stats["late_rereports"] += 1

    def _publish(self, conv: OpenConversation, closed_by: str, outcome: Outcome, locked: bool = True) -> None:
        """Metrics, redaction and the sink for one report (inline: under the state lock, as ever;
        from a worker: outside it, on the pool's one delivery thread)."""
        data = outcome.data
        if self.metrics is not None:
            self.metrics.observe_scoring(outcome.seconds)
            self.metrics.observe_report(data)
        try:
            out = self.redact(data)
        except Exception as exc:
            if locked:
                self._count_error("publish", exc)
            else:
                with self._lock:
                    self._count_error("publish", exc)
            why = f"the report could not be redacted: {describe(exc)}"
            out = self.redact(unscored_report(conv, closed_by, why).to_json())
        self.sink(out)
        if self.events is not None:
            self.events(out)

    def _scored_in_worker(self, job: Job, outcome: Outcome) -> None:
        """A worker's report: counted under the state lock, published outside it."""
        with self._lock:
            self._count_report(job.conversation, outcome)
        self._publish(job.conversation, job.closed_by, outcome, locked=False)

    def attach(
        self,
        sink: Sink,
        on_close: Callable[[str], None],
        hold: Callable[[str], bool],
        on_join: Callable[[str, list[AgentSpan]], None],
    ) -> None:
        """A stage that owns this pipeline's output (Kafka): where reports go (`sink`), who is told a
        conversation closed (`on_close`), which may not close yet (`hold`), and which spans joined a
        conversation through their trace (`on_join`)."""
        with self._lock:
            self.sink, self.on_close, self.hold, self.store.on_join = sink, on_close, hold, on_join

    def is_open(self, conversation_id: str) -> bool:
        return conversation_id in self.store.open

    def open_count(self) -> int:
        return len(self.store.open)

    def knows(self, conversation_id: str) -> bool:
        """Open, or reported and still kept for late spans (`windows.late_retention`)."""
        return conversation_id in self.store.open or conversation_id in self.store.closed

    def names_trace(self, trace_id: str) -> bool:
        """A span seen here named the conversation of this trace (its unnamed spans join it here)."""
        return trace_id in self.store.trace_owner

    def followed(self, trace_id: str) -> str | None:
        """The `trace:<id>` whose trace this one follows here (a call's copy joined to its call), if any."""
        owner = self.store.trace_owner.get(trace_id)
        return owner if owner is not None and owner.startswith("trace:") else None

    def opening(self, conversation_id: str) -> str | None:
        """The routing key of an open conversation's opening message (history.opening_key), if shown."""
        with self._lock:
            conv = self.store.open.get(conversation_id)
            return opening_key(conv.spans) if conv is not None else None

    def take(self, conversation_id: str) -> list[AgentSpan]:
        """Remove an open conversation without reporting it and return its spans (to send them on)."""
        with self._lock:
            conv = self.store.open.pop(conversation_id, None)
            return list(conv.spans) if conv is not None else []

    def drop(self, conversation_ids: list[str]) -> None:
        """Forget open conversations without reporting them (their partition moved to another replica)."""
        with self._lock:
            for cid in conversation_ids:
                self.store.open.pop(cid, None)

    def snapshot(self) -> dict[str, float]:
        """Counters for /stats and /metrics: pipeline, windows and embedder.

        Taken without the state lock: a scrape runs on the receivers' event loop, and waiting there for
        the conversation being scored would stall every receiver. Each read is atomic (copying a dict
        whose iteration is the built-in one, `len`, an int attribute: one step under the interpreter
        lock), so a scrape sees every counter at some instant of the last few milliseconds; counters
        updated together may be one event apart, which a rate over a scrape interval does not notice."""
        out: dict[str, float] = dict(self.stats)
        out["open_conversations"] = len(self.store.open)
        out["open_spans"] = self.store.open_spans
        out["evictions"] = self.store.evictions
        out["traces_joined_by_history"] = self.store.joined_by_history
        out["call_copies_joined"] = self.store.copies_joined
        out["second_recordings_joined"] = self.store.second_recordings_joined
        out["conversations_merged"] = self.store.merged
        out["spans_dropped"] = self.store.spans_dropped
        out["spans_time_clamped"] = self.store.spans_clamped
        if self.pool is not None:  # summed over the workers (each has its own embedder and cache)
            out["scoring_queue"] = self.pool.waiting()
            embedder_stats: Any = dict(self.pool.stats)
        else:
            embedder_stats = getattr(self.ladder.scorer, "stats", None)
        if isinstance(embedder_stats, dict):
            out.update({k: float(v) for k, v in dict(embedder_stats).items()})  # copied first: atomic
        if self.events is not None:
            out.update(self.events.counts())
        return out

    def _warn_once(self, key: str, message: str, exc: BaseException | None = None) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message)
            if exc is not None:  # the traceback is for developers (-v), never for the user
                log.debug("the first %s", key, exc_info=exc)

    def _count_error(self, stage: str, exc: BaseException | str) -> None:
        """Count a stage's fault (`exc`: the exception, or its description from a scoring worker)."""
        self.stats[f"pipeline_errors:{stage}"] += 1
        why = exc if isinstance(exc, str) else describe(exc)
        self._warn_once(
            f"error:{stage}",
            f"{stage} failed on some input (counted, later ones not logged): {why}",
            None if isinstance(exc, str) else exc,
        )

    def _unforeseen(self, stage: str, origin: str, exc: Exception) -> InputError:
        self._count_error(stage, exc)
        return InputError(origin, f"cannot be read ({describe(exc)})")


def normalize_spans(
    spans: list[Span], config: NormalizeConfig, on_error: Callable[[str, BaseException], None]
) -> list[AgentSpan]:
    """Normalize each span; one that fails still comes out, as an `unknown` span carrying its identity
    and why (`unreadable`), so its conversation is reported unscored instead of being lost."""
    out = []
    for span in spans:
        try:
            out.append(normalize_span(span, config))
        except Exception as exc:
            on_error("normalize", exc)
            out.append(_unreadable_span(span, config, f"span {span.span_id} {span.name!r}: {describe(exc)}"))
    return out


def _unreadable_span(span: Span, config: NormalizeConfig, why: str) -> AgentSpan:
    try:
        who = identity(span, config)
        found = {"conversation_id": who.conversation_id, "reference_id": who.reference_id, "agent": who.agent}
    except Exception:  # not even the identity: the span waits under its trace like an unnamed one
        found = {}
    return AgentSpan(span=bare(span), convention="unknown", kind="other", unreadable=why, **found)
