"""The score stage re-reading a conversation's partition (a new owner after a rebalance), without a
broker: the batch it consumes holds the conversation's own spans and, after them, the copies of the
trace's early spans that the earlier owner joined in memory. The report has them all."""

from __future__ import annotations

import time
from typing import Any, cast

from monitor.compare.ladder import Ladder
from monitor.config import KafkaConfig, ScoringConfig
from monitor.model import AgentSpan, Span
from monitor.runtime.kafka import ROUTE_WAIT_S, ScoreStage
from monitor.runtime.pipeline import Pipeline


class Msg:
    """What the stage reads of a consumed message."""

    def __init__(self, offset: int, span: AgentSpan, headers: list[tuple[str, bytes]]) -> None:
        self._offset, self._value, self._headers = (
            offset,
            span.model_dump_json(by_alias=True).encode(),
            headers,
        )

    def error(self) -> None:
        return None

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset

    def headers(self) -> list[tuple[str, bytes]]:
        return self._headers

    def value(self) -> bytes:
        return self._value

    def topic(self) -> str:
        return "aem_spans"

    def key(self) -> bytes:
        return b"conv-a"


def span(span_id: str, parent: str | None) -> AgentSpan:
    return AgentSpan(
        span=Span(trace_id="ab" * 16, span_id=span_id, parent_span_id=parent, name="work", kind=1,
                  status="UNSET", start_ns=10**18, end_ns=10**18 + 1),
        convention="genai", kind="other", conversation_id="conv-a",
    )  # fmt: skip


def test_copies_read_in_the_same_batch_as_their_conversation_are_kept() -> None:
    reports: list[dict[str, Any]] = []
    config = ScoringConfig(kafka=KafkaConfig(bootstrap_servers="127.0.0.1:9"))
    pipeline = Pipeline(config, Ladder(config, None), {}, reports.append)
    stage = ScoreStage(config.kafka, "r2", pipeline)
    stage.pipeline.sink = reports.append  # what the stage would publish, without a broker
    root, child = span("00000000000000a1", None), span("00000000000000a2", "00000000000000a1")
    stage._feed(cast(Any, [Msg(0, root, []), Msg(1, child, [("aem.copy", b"1")])]))
    pipeline.flush()
    [report] = reports
    assert report["conversation_id"] == "conv-a" and report["spans"] == 2
    assert pipeline.stats["kafka_copies_already_reported"] == 0


def test_a_copy_of_a_conversation_long_reported_and_forgotten_is_dropped() -> None:
    reports: list[dict[str, Any]] = []
    config = ScoringConfig(kafka=KafkaConfig(bootstrap_servers="127.0.0.1:9"))
    pipeline = Pipeline(config, Ladder(config, None), {}, reports.append)
    stage = ScoreStage(config.kafka, "r2", pipeline)
    stage.pipeline.sink = reports.append
    stage._feed(cast(Any, [Msg(7, span("00000000000000a2", "00000000000000a1"), [("aem.copy", b"1")])]))
    pipeline.flush()
    assert reports == [] and pipeline.stats["kafka_copies_already_reported"] == 1


def test_a_trace_waiting_for_its_route_never_wedges_the_stage() -> None:
    """An unnamed trace is held while its route by opening is on its way; not while the input is paused
    (its link could not be read back, and the open count would never fall), and not past the route's
    wait (a link never delivered): then it is reported alone rather than held for ever."""
    config = ScoringConfig(kafka=KafkaConfig(bootstrap_servers="127.0.0.1:9"))
    stage = ScoreStage(config.kafka, "r2", Pipeline(config, Ladder(config, None), {}, lambda _: None))
    trace = "trace:" + "ab" * 16
    assert stage._hold(trace)  # to be routed once the pipeline's lock is free
    stage.routing["ab" * 16] = time.monotonic()
    assert stage._hold(trace) and not stage._hold("conv-a")
    stage.paused = True
    assert not stage._hold(trace)
    stage.paused = False
    stage.routing["ab" * 16] = time.monotonic() - ROUTE_WAIT_S - 1
    assert not stage._hold(trace)
