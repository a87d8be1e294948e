"""The streaming pipeline: payloads in, conversation reports out. Wiring, no I/O of its own.

decode → normalize → windows → (on close) score_conversation → redact → sink. Scoring sees the real
values (a redacted email could not be compared); only what leaves the process is redacted. The same object runs under
`replay` (files, watermark from the spans only, flushed at the end) and `run` (receivers on several
threads call `ingest`; a timer calls `tick` with the wall clock; shutdown calls `flush`), so a recorded
file and a live stream give the same reports. Thread-safe: one lock around state.

Bad input never stops it: an undecodable payload raises `InputError` to its receiver (which answers
400) and is counted; a span that cannot be used is counted by reason; per-item problems are counters,
not log lines (`stats`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from monitor.assemble.windows import Closed, WindowStore
from monitor.config import ScoringConfig
from monitor.decode.otlp import decode_logs_request, decode_request
from monitor.errors import InputError
from monitor.model import AgentSpan, Dialog
from monitor.normalize import normalize_span
from monitor.publish.prometheus import MonitorMetrics
from monitor.publish.redact import Redactor
from monitor.reference.policy import Policy
from monitor.score.conversation import score_conversation
from monitor.score.ladder import Ladder

log = logging.getLogger(__name__)
Sink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class IngestResult:
    spans: int
    rejected: int
    reports: int


class Pipeline:
    def __init__(
        self,
        config: ScoringConfig,
        ladder: Ladder,
        references: Mapping[str, Dialog],
        sink: Sink,
        metrics: MonitorMetrics | None = None,
        policies: Mapping[str, Policy] | None = None,
    ) -> None:
        self.config = config
        self.ladder = ladder
        self.references = references
        self.sink = sink
        self.policies = dict(policies or {})
        self.on_close: Callable[[str], None] | None = None  # the Kafka stage releases offsets here
        self.store = WindowStore(config.windows)
        self.redact = Redactor(config.redaction)
        self.stats: Counter[str] = Counter()
        self.watermark_ns = 0
        self._lock = threading.Lock()
        self._warned: set[str] = set()
        self.metrics = metrics
        if metrics is not None:
            metrics.attach(self.snapshot)

    def ingest(
        self, payload: bytes, content_type: str, origin: str, signal: Literal["traces", "logs"] = "traces"
    ) -> IngestResult:
        """Decode, normalize and window one request (`signal`: `traces`, or `logs` for GenAI events sent as
        log records); score and emit what closes."""
        self.stats["requests"] += 1
        decode = decode_logs_request if signal == "logs" else decode_request
        try:
            decoded = decode(payload, content_type, origin)
        except InputError as exc:
            self.stats["requests_rejected"] += 1
            if self.metrics is not None:
                self.metrics.observe_request(accepted=False)
            self._warn_once("undecodable", f"rejecting undecodable payloads, e.g. {exc}")
            raise
        if self.metrics is not None:
            self.metrics.observe_request(accepted=True)
        with self._lock:
            self.stats["spans_received"] += len(decoded.spans) + len(decoded.rejected)
            self.stats["spans_rejected_no_id"] += len(decoded.rejected)
            self.stats["attribute_values_truncated"] += decoded.truncated_values
            if signal == "logs":
                self.stats["log_records_ignored"] += decoded.ignored
            reports = self._add([normalize_span(span, self.config.normalize) for span in decoded.spans])
        return IngestResult(spans=len(decoded.spans), rejected=len(decoded.rejected), reports=reports)

    def ingest_spans(self, spans: list[AgentSpan]) -> int:
        """Add spans that an earlier stage already decoded and normalized (Kafka repartition topic)."""
        with self._lock:
            self.stats["spans_received"] += len(spans)
            return self._add(spans)

    def _add(self, spans: list[AgentSpan]) -> int:
        closed: list[Closed] = []
        for agent_span in spans:
            self.stats[f"spans_{agent_span.convention}"] += 1
            closed += self.store.add(agent_span)
            self.watermark_ns = max(self.watermark_ns, agent_span.span.end_ns)
        closed += self.store.close_marked()
        closed += self.store.advance(self.watermark_ns)
        return self._emit(closed)

    def tick(self, now_ns: int) -> int:
        """Wall-clock progress for a live service: idle conversations close even when traffic stops."""
        with self._lock:
            lateness = int(self.config.server.lateness_s * 1e9)
            self.watermark_ns = max(self.watermark_ns, now_ns - lateness)
            return self._emit(self.store.advance(self.watermark_ns))

    def flush(self, reason: str = "end_of_input") -> int:
        with self._lock:
            return self._emit(self.store.flush(reason))

    def _emit(self, closed: list[Closed]) -> int:
        for c in closed:
            conv = c.conversation
            if conv.spans and all(s.setup for s in conv.spans):  # e.g. a lone create_agent trace
                self.stats["setup_traces_skipped"] += 1
                if self.on_close is not None:
                    self.on_close(conv.conversation_id)
                continue
            started = time.perf_counter()
            report = score_conversation(
                conv.conversation_id,
                conv.spans,
                self.references,
                self.ladder,
                version=conv.version,
                closed_by=c.closed_by,
                spans_dropped=conv.spans_dropped,
                separator=self.config.normalize.tool_action_separator,
                policies=self.policies,
                composition=self.config.composition,
                alignment_config=self.config.alignment,
            )
            self.stats["conversations_reported"] += 1
            if self.on_close is not None:
                self.on_close(conv.conversation_id)
            self.stats["conversations_scored" if report.scored else "conversations_unscored"] += 1
            if conv.version > 1:
                self.stats["late_rereports"] += 1
            data = report.to_json()
            if self.metrics is not None:
                self.metrics.observe_scoring(time.perf_counter() - started)
                self.metrics.observe_report(data)
            self.sink(self.redact(data))
        return len(closed)

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
        """Counters for /stats and /metrics: pipeline, windows and embedder."""
        with self._lock:
            out: dict[str, float] = dict(self.stats)
            out["open_conversations"] = len(self.store.open)
            out["open_spans"] = self.store.open_spans
            out["evictions"] = self.store.evictions
            out["spans_dropped"] = self.store.spans_dropped
        embedder_stats = getattr(self.ladder.scorer, "stats", None)
        if isinstance(embedder_stats, dict):
            out.update({k: float(v) for k, v in embedder_stats.items()})
        return out

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message)
