"""Load generator, part 3: many conversations → OTLP export requests, as SDK exporters send them. Pure.

Conversations start at `rate` per second of event time. Their spans are delivered when they end, the
way a BatchSpanProcessor exports: requests of at most `batch_spans` spans, spans of many
conversations mixed, shuffled inside each request (out of order), and a fraction `late_fraction`
held back `late_s` seconds more (late spans). Memory stays bounded by the conversations in flight:
a conversation is generated only when the timeline reaches its start.

Alongside the requests, `Traffic` yields the gold references (one per scenario variant, reused by many
conversations, as production references are) and the truth of every conversation.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from monitor.loadgen.scenarios import (
    FAMILIES,
    Conversation,
    Reference,
    choose_faults,
    make_reference,
    play,
)
from monitor.loadgen.spans import CONVENTIONS, SCOPES, TimedSpan, Timing, render


@dataclass(frozen=True)
class LoadConfig:
    conversations: int = 1000
    seed: int = 7
    rate: float = 50.0  # conversations started per second of event time
    references: int = 60  # scenario variants per family
    fault_rate: float = 0.5  # chance that an exchange carries a fault
    conventions: tuple[str, ...] = CONVENTIONS
    batch_spans: int = 512
    export_interval_s: float = 1.0
    late_fraction: float = 0.02
    late_s: float = 3.0
    time_scale: float = 1.0  # multiplies simulated durations (0.05 = twenty times faster)
    end_marker: bool = True
    start_ns: int = 1_790_000_000 * 10**9  # 2026-09-21, fixed so files are reproducible
    release: str = "1.4.2"


@dataclass
class Request:
    """One export request: its delivery time (event time) and its spans."""

    deliver_ns: int
    body: ExportTraceServiceRequest
    spans: int
    conversations: set[str] = field(default_factory=set)
    closes: set[str] = field(default_factory=set)  # conversations whose end-marker span is in this request

    def encode(self) -> bytes:
        return self.body.SerializeToString()


class Traffic:
    def __init__(self, config: LoadConfig) -> None:
        unknown = set(config.conventions) - set(CONVENTIONS)
        if unknown:
            raise ValueError(f"unknown conventions {sorted(unknown)}; known: {', '.join(CONVENTIONS)}")
        self.config = config
        self.references: dict[str, Reference] = {}
        self.rng = random.Random(config.seed)
        self.timing = Timing(
            llm=_scaled(Timing.llm, config.time_scale),
            tool=_scaled(Timing.tool, config.time_scale),
            think=_scaled(Timing.think, config.time_scale),
        )

    def reference(self, family_no: int, number: int) -> Reference:
        family = FAMILIES[family_no]
        ref_id = f"{family.name}-{number:04d}"
        if ref_id not in self.references:
            self.references[ref_id] = make_reference(family, number, self.config.seed)
        return self.references[ref_id]

    def all_references(self) -> list[Reference]:
        return [self.reference(f, n) for f in range(len(FAMILIES)) for n in range(self.config.references)]

    def conversations(self) -> Iterator[tuple[int, Conversation, str]]:
        """(start time, conversation, convention) in start order."""
        c = self.config
        t = c.start_ns
        for i in range(c.conversations):
            rng = random.Random(f"{c.seed}:conversation:{i}")
            ref = self.reference(rng.randrange(len(FAMILIES)), rng.randrange(c.references))
            faults = choose_faults(ref, rng, c.fault_rate)
            conv = play(ref, faults, f"conv-{c.seed}-{i:07d}", rng)
            yield t, conv, c.conventions[i % len(c.conventions)]
            t += int(self.rng.expovariate(c.rate) * 1e9)

    def requests(self, truth: list[dict[str, Any]] | None = None) -> Iterator[Request]:
        """Export requests in delivery order; each conversation's truth record is appended to `truth`."""
        c = self.config
        heap: list[tuple[int, int, TimedSpan]] = []
        counter = itertools.count()
        interval = int(c.export_interval_s * 1e9)
        late = int(c.late_s * 1e9)
        next_flush = c.start_ns + interval
        buffer: list[TimedSpan] = []

        def drain(until: int) -> Iterator[Request]:
            nonlocal next_flush, buffer
            while heap and heap[0][0] <= until:
                when, _, span = heapq.heappop(heap)
                while when > next_flush:  # the exporter's timer fires before this span ends
                    if buffer:
                        yield self._request(next_flush, buffer)
                        buffer = []
                    next_flush += interval
                buffer.append(span)
                if len(buffer) >= c.batch_spans:
                    yield self._request(when, buffer)
                    buffer = []

        for start, conv, convention in self.conversations():
            if truth is not None:
                truth.append(truth_record(conv, convention))
            yield from drain(start)
            rng = random.Random(f"{c.seed}:spans:{conv.conversation_id}")
            for span in render(conv, convention, start, rng, self.timing, c.end_marker):
                when = span.span.end_time_unix_nano
                if rng.random() < c.late_fraction:
                    when += late
                heapq.heappush(heap, (when, next(counter), span))
        yield from drain(2**63)
        if buffer:
            yield self._request(next_flush, buffer)

    def _request(self, when: int, spans: list[TimedSpan]) -> Request:
        self.rng.shuffle(spans)  # the exporter's order is not event order
        body = ExportTraceServiceRequest()
        groups: dict[tuple[str, str], Any] = {}
        for s in spans:
            key = (s.agent, s.convention)
            if key not in groups:
                rs = body.resource_spans.add()
                rs.resource.attributes.extend(
                    [
                        KeyValue(key="service.name", value=AnyValue(string_value=s.agent)),
                        KeyValue(key="service.version", value=AnyValue(string_value=self.config.release)),
                    ]
                )
                ss = rs.scope_spans.add()
                ss.scope.name = SCOPES[s.convention]
                groups[key] = ss
            groups[key].spans.append(s.span)
        closes = {s.conversation_id for s in spans if s.closes}
        return Request(when, body, len(spans), {s.conversation_id for s in spans}, closes)


def _scaled(bounds: tuple[float, float], scale: float) -> tuple[float, float]:
    return (bounds[0] * scale, bounds[1] * scale)


def truth_record(conv: Conversation, convention: str | None = None) -> dict[str, Any]:
    return {
        "conversation_id": conv.conversation_id,
        "reference_id": conv.reference.reference_id,
        "family": conv.reference.family.name,
        "convention": convention,
        "faults": conv.faults,
        "first_failure_turn": conv.first_failure_turn,
        "turns": [t.to_json() for t in conv.truth],
    }
