"""The score stage without a broker: re-reading a conversation's partition (a new owner after a
rebalance), whose batch holds the conversation's own spans and, after them, the copies of the trace's
early spans that the earlier owner joined in memory (the report has them all); a trace routed by its
opening, reported alone, then merged."""

from __future__ import annotations

import json
import time
from typing import Any, cast

import pytest

from monitor.compare.ladder import Ladder
from monitor.config import KafkaConfig, ScoringConfig, WindowConfig
from monitor.model import AgentSpan, Span
from monitor.normalize import normalize_span
from monitor.report import latest_reports
from monitor.runtime.kafka import ROUTE_WAIT_S, ScoreStage
from monitor.runtime.pipeline import Pipeline
from tests.unit.assemble.test_windows import TURN_1, TURN_2, S, chat
from tests.unit.spans import span as span_of

#: a stage with no broker: librdkafka would say so every 50 ms for the rest of the session (on the terminal,
#: under `pytest -n 2`), and these tests feed the stage by hand
OFFLINE = KafkaConfig(bootstrap_servers="127.0.0.1:9", librdkafka={"log_level": "0"})


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
    config = ScoringConfig(kafka=OFFLINE)
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
    config = ScoringConfig(kafka=OFFLINE)
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
    config = ScoringConfig(kafka=OFFLINE)
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


class Producer:
    """What the stage produces, kept instead of sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes, dict[str, Any], dict[str, bytes]]] = []

    def produce(self, topic: str, key: bytes, value: bytes, headers: Any = None) -> None:
        self.sent.append((topic, key, json.loads(value), dict(headers or [])))

    def poll(self, _: float = 0) -> int:
        return 0

    def flush(self, _: float = 0) -> int:
        return 0


class Raw(Msg):
    """A message of the internal topic on partition 0: a span the ingest routed by its conversation's
    opening (key `history:<digest>`), or a version note."""

    def __init__(self, offset: int, value: bytes, headers: list[tuple[str, bytes]]) -> None:
        self._offset, self._value, self._headers = offset, value, headers


def routed(offset: int, span: AgentSpan) -> Raw:
    value = span.model_copy(update={"conversation_id": "history:opening"}).model_dump_json(by_alias=True)
    return Raw(offset, value.encode(), [])


def note(offset: int, conversation_id: str, version: int, merged_into: str | None = None) -> Raw:
    written: dict[str, Any] = {"conversation_id": conversation_id, "version": version}
    if merged_into:
        written["merged_into"] = merged_into
    value = json.dumps(written).encode()
    return Raw(offset, value, [("aem.kind", b"version")])


def replica(
    name: str, grace_s: float = 60.0, max_open: int = WindowConfig().max_open
) -> tuple[ScoreStage, Pipeline, Producer, list[int]]:
    """A score replica without a broker: its stage, pipeline, what it produced, and its clock."""
    clock = [0]
    config = ScoringConfig(
        kafka=OFFLINE,
        windows=WindowConfig(inactivity_s=30, trace_root_wait_s=60, late_grace_s=grace_s, max_open=max_open),
    )
    pipeline = Pipeline(config, Ladder(config, None), {}, lambda _: None, clock=lambda: clock[0])
    stage = ScoreStage(config.kafka, name, pipeline)
    producer = Producer()
    stage.producer = cast(Any, producer)
    return stage, pipeline, producer, clock


A1, A2 = "trace:" + "a1".ljust(32, "0"), "trace:" + "a2".ljust(32, "0")
#: the partition as the first owner leaves it: TURN_2 reported alone (v1), TURN_1, TURN_2 merged (v2)
LOG = [routed(0, TURN_2), note(1, A2, 1), routed(2, TURN_1), note(3, A2, 2)]
LATER = 8 * S  # past `server.lateness_s`: the watermark passes the turn that came


def results(*producers: Producer) -> list[dict[str, Any]]:
    return [value for p in producers for topic, _, value, _ in p.sent if topic == "aem_reports"]


def report_alone(stage: ScoreStage, pipeline: Pipeline, clock: list[int]) -> None:
    """TURN_2 is read, and reported alone once idle: the turn it continues has not come."""
    stage._feed(cast(Any, LOG[:1]))
    clock[0] = 200 * S
    pipeline.tick(clock[0])


def then_read(stage: ScoreStage, pipeline: Pipeline, clock: list[int], messages: list[Raw]) -> None:
    """`messages` are read, and the watermark passes them."""
    stage._feed(cast(Any, messages))
    clock[0] += LATER
    pipeline.tick(clock[0])


def test_a_trace_reported_alone_is_merged_when_the_turn_before_it_comes() -> None:
    """Without a conversation id, a turn's trace (routed by its opening) is reported alone: the turn
    before it had not come (a slow partition, a slow exporter). When that turn comes it joins it, as in
    `run`: the conversation is reported whole, the id reported first gets a last report naming where its
    spans went (`merged_into`, also a header), so the documented dedupe keeps one conversation; and the
    trace's offsets are held with the conversation it joined, so a new owner rebuilds it whole."""
    stage, pipeline, producer, clock = replica("r2")
    report_alone(stage, pipeline, clock)
    then_read(stage, pipeline, clock, LOG[2:3])
    assert stage.offsets.safe(pipeline.is_open, now=time.monotonic() + 3600) == {0: 0}
    pipeline.flush()
    assert [
        (r["conversation_id"], r["version"], r["spans"], r.get("merged_into")) for r in results(producer)
    ] == [
        (A2, 1, 1, None),
        (A2, 2, 0, A1),
        (A1, 1, 2, None),
    ]
    [merged] = [h for topic, _, v, h in producer.sent if topic == "aem_reports" and v.get("merged_into")]
    assert merged["aem.merged_into"] == A1.encode()
    [whole] = latest_reports(results(producer)).values()
    assert whole["conversation_id"] == A1 and whole["spans"] == 2


@pytest.mark.parametrize("reported_before_the_move", [False, True])
def test_a_new_owner_rebuilds_a_merged_conversation_whole(reported_before_the_move: bool) -> None:
    """The partition moves (a rebalance) after the merge, before or after the conversation it joined was
    reported: the new owner re-reads from the committed offset, which the merge keeps before the trace
    reported alone for as long as the conversation it joined needs it (not only for the alone report's
    own grace), and the latest reports hold one conversation with both turns."""
    first, pipeline, out_first, clock = replica("r1")
    report_alone(first, pipeline, clock)
    then_read(first, pipeline, clock, LOG[1:3])
    log = list(LOG)
    if reported_before_the_move:
        clock[0] += 100 * S
        pipeline.tick(clock[0])
        log.append(note(4, A1, 1))
    # committed after the alone report's own grace: what holds it now is the conversation it joined
    committed = first.offsets.safe(pipeline.is_open, now=time.monotonic() + 61)
    first._drop({0})
    second, pipeline_2, out_second, _ = replica("r2")
    second._feed(cast(Any, [m for m in log if m.offset() >= committed[0]]))
    pipeline_2.flush()
    best = latest_reports(results(out_first, out_second))
    assert list(best) == [A1] and best[A1]["spans"] == 2


@pytest.mark.parametrize("grace_s", [0.0, 60.0])
def test_a_trace_alone_past_its_grace_is_not_merged_and_nothing_is_lost_when_its_partition_moves(
    grace_s: float,
) -> None:
    """Past its report's grace (or with none) nothing holds a trace reported alone: the commit passes it.
    Merged then, a new owner would rebuild the conversation without it while consumers drop the id it
    was reported under. So it stays its own conversation: after a rebalance both turns are still in the
    latest reports, each once."""
    first, pipeline, out_first, clock = replica("r1", grace_s)
    report_alone(first, pipeline, clock)
    assert first.offsets.safe(pipeline.is_open, now=time.monotonic() + grace_s + 1) == {0: 1}
    then_read(first, pipeline, clock, LOG[1:3])
    assert not [r for r in results(out_first) if r.get("merged_into")]
    committed = first.offsets.safe(pipeline.is_open, now=time.monotonic() + 2 * grace_s + 2)
    first._drop({0})
    second, pipeline_2, out_second, _ = replica("r2", grace_s)
    second._feed(cast(Any, [m for m in LOG[:3] if m.offset() >= committed[0]]))
    pipeline_2.flush()
    best = latest_reports(results(out_first, out_second))
    assert sorted((cid, r["spans"]) for cid, r in best.items()) == [(A1, 1), (A2, 1)]


def test_a_trace_alone_on_a_revoked_partition_is_not_merged_there_later() -> None:
    """A trace reported alone whose partition moved to another replica (which reports it again) is that
    replica's now: if the partition comes back and the turn before it is read, the first replica does not
    merge its stale copy (that would show the turn twice)."""
    first, pipeline, out_first, clock = replica("r1")
    report_alone(first, pipeline, clock)
    first._drop({0})
    second, pipeline_2, out_second, clock_2 = replica("r2")
    second._feed(cast(Any, LOG[:2]))
    clock_2[0] = 200 * S
    pipeline_2.tick(clock_2[0])
    then_read(first, pipeline, clock, [routed(10, TURN_1)])  # the partition back, the rest committed
    pipeline.flush()
    best = latest_reports(results(out_first, out_second))
    assert sorted((cid, r["spans"]) for cid, r in best.items()) == [(A1, 1), (A2, 1)]


def test_a_trace_alone_whose_partition_comes_back_to_the_same_replica_is_merged() -> None:
    """A trace reported alone, its partition revoked and assigned back to the same replica before any
    other read it: the replica re-reads the trace's spans from the committed offset (its report held them),
    which it knows already. Read again, they hold their offsets again as a new owner's report would, so
    when the turn before the trace comes it is merged: one conversation, whole (it stayed split before)."""
    first, pipeline, out_first, clock = replica("r1")
    report_alone(first, pipeline, clock)
    first._drop({0})
    first.offsets.assigned(0, end=len(LOG), committed=0)  # assigned back: re-read to where it ends
    first._feed(cast(Any, LOG[:1]))  # re-read from the committed offset: the trace's own spans again
    then_read(first, pipeline, clock, LOG[2:3])
    pipeline.flush()
    best = latest_reports(results(out_first))
    assert sorted((cid, r["spans"]) for cid, r in best.items()) == [(A1, 2)]


def test_a_duplicate_read_long_after_a_trace_was_reported_alone_does_not_make_it_joinable() -> None:
    """A producer's retry re-delivers one span of a trace reported alone after its grace is over (no
    revoke, no re-read): that duplicate holds nothing, so the trace is not merged with offsets that would
    cover only the duplicate (a later owner would rebuild fragments); it stays as reported (review)."""
    stage, pipeline, out, clock = replica("r1")
    child = late_span_of_turn_2(6)
    stage._feed(cast(Any, [routed(0, TURN_2), routed(1, child)]))
    clock[0] = 200 * S
    pipeline.tick(clock[0])  # reported alone, with its two spans
    where, _ = stage.offsets.held[A2]
    stage.offsets.held[A2] = (where, time.monotonic() - 61)  # its grace is over
    assert stage.offsets.safe(pipeline.is_open, time.monotonic()) == {0: 2}  # a commit passes it
    stage._feed(cast(Any, [routed(5, child)]))  # one duplicate span
    assert not stage._still_held(A2)
    then_read(stage, pipeline, clock, [routed(6, TURN_1)])
    pipeline.flush()
    assert not [r for r in results(out) if r.get("merged_into")]


def late_span_of_turn_2(start_s: float) -> AgentSpan:
    """A child span of TURN_2's trace that comes after the trace was reported."""
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather"}
    child = span_of("tool", attributes, trace="a2", start_s=start_s)
    return normalize_span(child.model_copy(update={"parent_span_id": TURN_2.span.span_id}))


def test_a_trace_alone_reported_again_then_merged_is_re_read_whole_by_a_new_owner() -> None:
    """A trace reported alone, reopened by a late span and reported alone again, then merged: its report
    still holds its first offset (not only the late span's), so a new owner re-reads all of it and the
    latest reports hold one conversation, each span once — also a later span of that trace."""
    first, pipeline, out_first, clock = replica("r1")
    log = [routed(0, TURN_2), note(1, A2, 1), routed(2, late_span_of_turn_2(6))]
    report_alone(first, pipeline, clock)
    then_read(first, pipeline, clock, log[1:3])  # the late span reopens it ...
    clock[0] += 100 * S
    pipeline.tick(clock[0])  # ... and it is reported alone again
    log += [note(3, A2, 2), routed(4, TURN_1)]
    then_read(first, pipeline, clock, log[3:5])  # the turn before it: merged
    log += [note(5, A2, 3), routed(6, late_span_of_turn_2(7))]
    then_read(first, pipeline, clock, log[5:7])
    clock[0] += 100 * S
    pipeline.tick(clock[0])
    log.append(note(7, A1, 1))
    committed = first.offsets.safe(pipeline.is_open, now=time.monotonic() + 30)
    assert committed == {0: 0}
    first._drop({0})
    second, pipeline_2, out_second, _ = replica("r2")
    second._feed(cast(Any, [m for m in log if m.offset() >= committed[0]]))
    pipeline_2.flush()
    best = latest_reports(results(out_first, out_second))
    assert sorted((cid, r["spans"]) for cid, r in best.items()) == [(A1, 4)]


def test_a_trace_alone_evicted_in_the_batch_that_brings_the_turn_before_it_is_merged() -> None:
    """Whether a trace reported alone may still join is asked once its report is out (its offsets held),
    not while the batch that evicted it is still being added."""
    stage, pipeline, producer, clock = replica("r1", max_open=2)
    other = chat("b1", [("system", "Other."), ("user", "Hi")], "Hello.", 1)
    # TURN_2, another conversation, then TURN_1, which evicts TURN_2 (reported alone) and wakes it
    then_read(stage, pipeline, clock, [routed(0, TURN_2), routed(1, other), routed(2, TURN_1)])
    pipeline.flush()
    best = latest_reports(results(producer))
    assert sorted((cid[:8], r["spans"]) for cid, r in best.items()) == [("trace:a1", 2), ("trace:b1", 1)]


def test_a_merge_an_earlier_owner_counted_is_not_counted_again_by_the_next() -> None:
    """A partition moves within the grace after a trace reported alone was merged: the new owner re-reads
    it, reports the trace alone again and merges it again, as the first owner did. Its report is the same
    (the dedupe keeps one conversation), but `conversations_merged` summed over the replicas must say one
    merge: the first owner's version note says the id was merged (`merged_into`), and the next does not
    count it again."""
    first, pipeline, out_first, clock = replica("r1")
    report_alone(first, pipeline, clock)
    then_read(first, pipeline, clock, LOG[2:3])
    assert pipeline.snapshot()["conversations_merged"] == 1
    notes = [
        (v["conversation_id"], v["version"], v.get("merged_into"))
        for t, _, v, h in out_first.sent
        if h.get("aem.kind") == b"version"
    ]
    assert (A2, 2, A1) in notes
    # the partition as the first owner leaves it, its version notes as it wrote them
    log = [LOG[0], note(1, A2, 1), LOG[2], note(3, A2, 2, merged_into=A1)]
    second, pipeline_2, out_second, clock_2 = replica("r2")
    report_alone(second, pipeline_2, clock_2)
    second._feed(cast(Any, log[1:2]))
    then_read(second, pipeline_2, clock_2, log[2:])
    pipeline_2.flush()
    assert pipeline_2.snapshot()["conversations_merged"] == 0
    best = latest_reports(results(out_first, out_second))
    assert list(best) == [A1] and best[A1]["spans"] == 2
