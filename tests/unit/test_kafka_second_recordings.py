"""The Kafka path of a model call recorded twice, without a broker, on real recorded spans (LangChain 1.5 with
OpenInference's LangChain and OpenAI SDK instrumentors, as Phoenix's `auto_instrument` turns them on, a
`thread_id` on LangChain's spans only): the ingest keys each second recording — the SDK's span, an unnamed
trace of its own — under its call's digest, and each named call sends a link there; the score replica
holding that key sends the recording on to the call's conversation, whose replica reports it as `replay`
does. Each message is handed to the replica its key would reach (one partition each)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

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


def replica(clock: list[int]) -> tuple[ScoreStage, Pipeline, Producer, list[dict[str, Any]]]:
    """A score replica without a broker: its stage, pipeline, what it produced and what it reported."""
    config = ScoringConfig(kafka=OFFLINE, windows=WindowConfig(inactivity_s=30, trace_root_wait_s=60))
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


def check_reported_as_replay(links_first: bool) -> None:
    _, sent = ingested(TWINS)
    lone = keyed(sent, f"trace:{LONE_KEY}")
    if not links_first:  # the named calls' request came after their second recordings
        lone = sorted(lone, key=lambda m: m[3].get("aem.kind") == b"link")
    clock = [ended(sent)]
    meeting, _, out, alone = replica(clock)
    read(meeting, lone)
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


def test_a_second_recording_two_conversations_calls_hold_is_routed_by_its_opening() -> None:
    """Two users' calls alike at once both hold the recording in time: it cannot say whose, and goes on to
    no conversation; once it would close it is routed by its opening from where it waits (a link on its own
    key), as an unnamed trace is."""
    _, sent = ingested(TWINS)
    lone = keyed(sent, f"trace:{LONE_KEY}")
    first_key = lone[0][1]
    link = next(m for m in lone if m[1] == first_key and m[3].get("aem.kind") == b"link")
    other = (link[0], link[1], {**link[2], "conversation_id": "another-user"}, link[3])
    clock = [ended(sent)]
    meeting, pipeline, out, _ = replica(clock)
    same = [m for m in lone if m[1] == first_key]  # the call's link, then its second recording
    assert same[0] == link and len(same) == 2
    read(meeting, [same[0], other, same[1]])
    assert not keyed(out.sent, CID) and not keyed(out.sent, "another-user")
    clock[0] += 100 * S
    pipeline.tick(clock[0])
    meeting._send_routes()
    [route] = [m for m in out.sent if m[3].get("aem.kind") == b"link"]
    assert route[1] == first_key and route[2]["conversation_id"].startswith("history:")
    read(meeting, [route])  # read back: the recording goes on where its conversation's traces are routed
    [sent_on] = keyed(out.sent, "history:")
    assert sent_on[2]["span"]["name"] == "ChatCompletion" and not sent_on[2]["second_recording"]
