"""The Kafka path of a model call recorded twice, without a broker, on real recorded spans (LangChain 1.5 with
OpenInference's LangChain and OpenAI SDK instrumentors, as Phoenix's `auto_instrument` turns them on, a
`thread_id` on LangChain's spans only): the ingest keys each second recording — the SDK's span, an unnamed
trace of its own — under its call's digest, and each named call sends a link there; the score replica
holding that key sends the recording on to the call's conversation, whose replica reports it as `replay`
does. Each message is handed to the replica its key would reach (one partition each)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, cast

import pytest

from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig, WindowConfig
from monitor.runtime.kafka import LONE_KEY, IngestStage, ScoreStage
from monitor.runtime.pipeline import Pipeline
from tests.unit.test_kafka_copies import OFFLINE, Producer, Raw

TRAVEL = Path(__file__).resolve().parents[1] / "fixtures" / "travel"
TWINS = TRAVEL / "langchain-v1-openinference-twins" / "correct.000.pb"
CID = "langchain-v1-openinference-twins-correct"
S = 1_000_000_000


class Request(Raw):
    """An OTLP request as the input topic holds it."""

    def topic(self) -> str:
        return "otlp_spans"


Sent = tuple[str, bytes, dict[str, Any], dict[str, bytes]]


def ingested(path: Path) -> tuple[IngestStage, list[Sent]]:
    """What one ingest replica produces for a recorded request."""
    config = ScoringConfig(kafka=OFFLINE)
    stage = IngestStage(config.kafka, "r1", {}, config.normalize)
    producer = Producer()
    stage.producer = cast(Any, producer)
    stage._repartition(cast(Any, Request(0, path.read_bytes(), [])))
    return stage, producer.sent


def replica(
    clock: list[int], max_open: int = WindowConfig().max_open
) -> tuple[ScoreStage, Pipeline, Producer, list[dict[str, Any]]]:
    """A score replica without a broker: its stage, pipeline, what it produced and what it reported."""
    windows = WindowConfig(inactivity_s=30, trace_root_wait_s=60, max_open=max_open)
    config = ScoringConfig(kafka=OFFLINE, windows=windows)
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(config, Ladder(config, None), {}, reports.append, clock=lambda: clock[0])
    stage = ScoreStage(config.kafka, "r2", pipeline)
    producer = Producer()
    stage.producer = cast(Any, producer)
    stage.pipeline.sink = reports.append
    return stage, pipeline, producer, reports


def read(stage: ScoreStage, sent: list[Sent]) -> None:
    """Produced messages, read in order by the replica holding their partition."""
    messages = []
    for i, (_, _, value, headers) in enumerate(sent):
        messages.append(Raw(i, json.dumps(value).encode(), list(headers.items())))
    stage._feed(cast(Any, messages))


def ended(sent: list[Sent]) -> int:
    """When the recording's last span ended: the replicas' clock as its spans arrive."""
    return max(int(m[2]["span"]["end_ns"]) for m in sent if "span" in m[2])


def keyed(sent: list[Sent], prefix: str) -> list[Sent]:
    return [m for m in sent if m[1].decode().startswith(prefix)]


def replayed(path: Path) -> dict[str, Any]:
    config = ScoringConfig()
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(config, Ladder(config, None), {}, reports.append)
    pipeline.ingest(path.read_bytes(), "application/x-protobuf", "test")
    pipeline.flush()
    [report] = reports
    return report


def seen(report: dict[str, Any]) -> tuple[Any, ...]:
    """What a user reads of a report: its spans, turns, tokens and verdict."""
    turns = [
        (t["turn_no"], t["type"], t["predicted"], t["success"], t["failure_reason"]) for t in report["turns"]
    ]
    return report["conversation_id"], report["spans"], turns, report["input_tokens"], report["test_pass"]


def test_each_second_recording_waits_under_its_calls_digest_and_each_named_call_links_there() -> None:
    _, sent = ingested(TWINS)
    lone = keyed(sent, f"trace:{LONE_KEY}")
    links = [m for m in lone if m[3].get("aem.kind") == b"link"]
    spans = [m for m in lone if "aem.kind" not in m[3]]
    assert len(links) == len(spans) == 7  # the seven model calls: each recorded by both
    assert {m[1] for m in links} == {m[1] for m in spans}  # each recording under its own call's key
    assert {m[2]["conversation_id"] for m in links} == {CID}
    assert all(m[2]["span"]["name"] == "ChatCompletion" for m in spans)
    assert len(keyed(sent, CID)) == 24  # LangChain's spans, under the conversation's id


def test_a_named_stream_recorded_once_pays_for_no_digest_and_sends_no_link() -> None:
    stage, sent = ingested(TRAVEL / "langchain-v1-openinference" / "correct.000.pb")
    assert not stage.lone_systems and not stage.named_systems
    assert not keyed(sent, f"trace:{LONE_KEY}") and not [m for m in sent if "call" in m[2]]


def decided(stage: ScoreStage, out: Producer) -> list[Sent]:
    """The second recordings' wait (`windows.second_recording_wait_s`) is over: each one is decided and sent
    on at once, its decision a link on its key's partition (taken out of `out`, returned)."""
    for _ in range(2):  # (one no link holds waits once more)
        for trace_id in stage.lone_due:
            stage.lone_due[trace_id] = 0.0
        stage._decide_lone(time.monotonic())
    decisions = [m for m in out.sent if m[1].startswith(f"trace:{LONE_KEY}".encode()) and "call" not in m[2]]
    out.sent = [m for m in out.sent if m not in decisions]
    return decisions


def check_reported_as_replay(links_first: bool) -> None:
    _, sent = ingested(TWINS)
    lone = keyed(sent, f"trace:{LONE_KEY}")
    if not links_first:  # the named calls' request came after their second recordings
        lone = sorted(lone, key=lambda m: m[3].get("aem.kind") == b"link")
    clock = [ended(sent)]
    meeting, _, out, alone = replica(clock)
    read(meeting, lone)
    assert not keyed(out.sent, CID)  # each waits for the links of its key (two users' calls may be alike)
    decided(meeting, out)
    forwarded = keyed(out.sent, CID)
    assert len(forwarded) == 7 and all(m[2]["second_recording"] for m in forwarded)
    owner, pipeline, _, reports = replica(clock)
    read(owner, [*keyed(sent, CID), *forwarded])
    pipeline.flush()
    meeting.pipeline.flush()
    assert alone == []  # no second recording reported on its own
    [report] = reports
    assert seen(report) == seen(replayed(TWINS))
    assert report["spans"] == 31  # LangChain's 24 and the SDK's 7


def test_second_recordings_reach_their_calls_conversation_when_the_links_come_first() -> None:
    check_reported_as_replay(links_first=True)


def test_second_recordings_reach_their_calls_conversation_when_the_links_come_after() -> None:
    check_reported_as_replay(links_first=False)


def first_call() -> tuple[list[Sent], Sent, Sent]:
    """What the ingest produced for the recording, and its first call's link and second recording."""
    _, sent = ingested(TWINS)
    lone = keyed(sent, f"trace:{LONE_KEY}")
    link = next(m for m in lone if m[1] == lone[0][1] and m[3].get("aem.kind") == b"link")
    recording = next(m for m in lone if m[1] == lone[0][1] and "aem.kind" not in m[3])
    return sent, link, recording


def again(message: Sent, n: int, conversation: str) -> Sent:
    """The same call made `n` × 1,000 s later by `conversation`'s user: its link, or its second recording."""
    topic, key, value, headers = message
    value = json.loads(json.dumps(value))
    later = n * 1000 * S
    if "call" in value:
        trace_id, start, end = value["call"]
        value["call"] = [f"{n:02x}{trace_id[2:]}", start + later, end + later]
        value["conversation_id"] = conversation
    else:
        span = value["span"]
        span["trace_id"], span["span_id"] = f"{n:02x}{span['trace_id'][2:]}", f"{n:02x}{span['span_id'][2:]}"
        span["start_ns"] += later
        span["end_ns"] += later
    return topic, key, value, headers


@pytest.mark.parametrize("link_first", [True, False])
def test_a_second_recording_two_conversations_calls_hold_is_routed_by_its_opening(link_first: bool) -> None:
    """Two users' calls alike at once both hold the recording in time: it cannot say whose, whichever came
    first, and goes on to no conversation; once its wait is over it is routed by its opening from where it
    waits (a link on its key, for its own trace), as an unnamed trace is. The route is that trace's alone:
    the same call made later by another user, its recording first, still reaches that user's conversation."""
    sent, link, recording = first_call()
    other = (link[0], link[1], {**link[2], "conversation_id": "another-user"}, link[3])
    clock = [ended(sent)]
    meeting, _, out, _ = replica(clock)
    read(meeting, [link, other, recording] if link_first else [recording, other, link])
    [decision] = decided(meeting, out)  # on the key's partition, for the recording's own trace
    assert decision[1] == link[1] and decision[2]["trace_id"] == recording[2]["span"]["trace_id"]
    assert decision[2]["conversation_id"].startswith("history:")
    assert not keyed(out.sent, CID) and not keyed(out.sent, "another-user")
    [sent_on] = keyed(out.sent, "history:")  # where its conversation's traces are routed
    assert sent_on[2]["span"]["name"] == "ChatCompletion" and not sent_on[2]["second_recording"]
    read(meeting, [again(recording, 1, "user-2"), again(link, 1, "user-2")])
    decided(meeting, out)
    [theirs] = keyed(out.sent, "user-2")
    assert theirs[2]["second_recording"] and theirs[2]["span"]["trace_id"].startswith("01")


def test_each_call_s_link_holds_its_own_offset() -> None:
    """Two users' calls alike, a moment apart, link to one key: each link holds its offset (a new owner
    re-reading the partition must meet the link that claims the recording after it), so the commit stays
    before the first."""
    sent, link, recording = first_call()
    clock = [ended(sent)]
    meeting, pipeline, _, _ = replica(clock)
    read(meeting, [link, again(link, 1, "user-2"), recording])
    assert meeting.offsets.safe(pipeline.is_open, time.monotonic()) == {0: 0}


def test_a_new_owner_follows_the_decision_in_the_log() -> None:
    """A second recording is sent on when its wait is over, and its decision is written to its key's
    partition: a replica that re-reads the partition after a rebalance sends it where the first one did,
    though it reads no link of the call (the commit passed it) or an alike call of another user linked
    later (it would have made it ambiguous), and reading the decision back changes nothing."""
    sent, link, recording = first_call()
    late = (link[0], link[1], {**link[2], "conversation_id": "another-user"}, link[3])
    clock = [ended(sent)]
    first, _, out, _ = replica(clock)
    read(first, [link, recording])
    [decision] = decided(first, out)
    assert decision[2]["conversation_id"] == CID
    assert [m[2]["second_recording"] for m in keyed(out.sent, CID)] == [True]
    read(first, [decision])
    assert len(keyed(out.sent, CID)) == 1
    for log in ([recording, decision, late], [link, recording, late, decision]):
        second, _, out_2, _ = replica(clock)
        read(second, log)
        decided(second, out_2)  # its own wait, over after it read the decision: nothing more
        assert [m[2]["second_recording"] for m in keyed(out_2.sent, CID)] == [True]
        assert not keyed(out_2.sent, "history:") and not keyed(out_2.sent, "another-user")


def test_a_second_recording_is_held_while_the_input_is_paused_and_decided_after() -> None:
    """Paused for backpressure, no link can be read: the recording waits (it is not reported alone however
    long the pause), its wait starts again when reading resumes, and it is decided on the link read then."""
    sent, link, recording = first_call()
    clock = [ended(sent)]
    meeting, pipeline, out, alone = replica(clock)
    read(meeting, [recording])
    meeting.paused = True
    assert decided(meeting, out) == []
    clock[0] += 100 * S
    pipeline.tick(clock[0])
    assert alone == []
    meeting._backpressure()  # few open: reading resumes, and the wait starts again
    assert not meeting.paused
    read(meeting, [link])
    assert not keyed(out.sent, CID)
    [decision] = decided(meeting, out)
    assert decision[2]["conversation_id"] == CID and len(keyed(out.sent, CID)) == 1


def test_a_revoked_partition_s_second_recordings_are_not_decided_there() -> None:
    sent, _, recording = first_call()
    meeting, _, out, _ = replica([ended(sent)])
    read(meeting, [recording])
    meeting._drop({0})
    assert decided(meeting, out) == [] and out.sent == []


def test_the_links_a_waiting_second_recording_may_follow_are_held_with_it() -> None:
    """However long a recording waits undecided (paused, a long re-read), the commit stays before the links
    read for its key: a replica that re-reads the partition after a rebalance reads them with it."""
    sent, link, recording = first_call()
    meeting, pipeline, _, _ = replica([ended(sent)])
    read(meeting, [link, recording])  # at offsets 0 and 1
    meeting.paused = True
    assert meeting.offsets.safe(pipeline.is_open, time.monotonic() + 3600) == {0: 0}
    # a link whose call cannot claim it (the same call made by another user an hour later) is not held
    later, pipeline, _, _ = replica([ended(sent)])
    read(later, [again(link, 1, "user-2"), recording])
    assert later.offsets.safe(pipeline.is_open, time.monotonic() + 3600) == {0: 1}


def test_second_recordings_held_while_paused_do_not_keep_the_input_paused() -> None:
    """Held undecided while paused, second recordings would keep the open count up for ever (they are
    decided only once reading resumes): pausing and resuming leave them out alike (else the stage would
    pause and resume on alternate ticks, the recordings never decided)."""
    sent, _, recording = first_call()
    meeting, pipeline, _, _ = replica([ended(sent)], max_open=2)
    read(meeting, [recording, again(recording, 1, "")])
    assert pipeline.open_count() == 2 and len(meeting.lone_due) == 2
    meeting._backpressure()
    assert not meeting.paused  # they do not pause it
    meeting.paused = True  # (paused by other conversations, since closed)
    meeting._backpressure()
    assert not meeting.paused  # nor keep it paused


def test_a_second_recording_no_link_holds_waits_longer_for_it() -> None:
    """Its agent's calls are recorded twice (the ingest keyed it so): with no link at the end of its wait,
    its call's link is late (an ingest replica behind), and it waits once more, to half of `inactivity_s`:
    a link read then still claims it; with none even then, it is routed by its opening."""
    sent, link, recording = first_call()
    clock = [ended(sent)]
    meeting, _, out, _ = replica(clock)
    read(meeting, [recording])
    trace_id = recording[2]["span"]["trace_id"]
    meeting.lone_due[trace_id] = 0.0
    meeting._decide_lone(time.monotonic())
    assert out.sent == [] and meeting.lone_due[trace_id] > time.monotonic() + 5  # 15 s of a 30 s inactivity
    read(meeting, [link])
    [decision] = decided(meeting, out)
    assert (
        decision[2]["conversation_id"] == CID and meeting.pipeline.stats["kafka_second_recordings_sent"] == 1
    )
    alone, _, out_2, _ = replica(clock)
    read(alone, [recording])
    [decision] = decided(alone, out_2)
    assert decision[2]["conversation_id"].startswith("history:")
    assert alone.pipeline.stats["kafka_second_recordings_routed"] == 1
