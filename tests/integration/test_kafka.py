"""The consumer-group path on a real Apache Kafka broker (KRaft, from Maven Central; deploy/kafka).

Traffic: the recorded real spans, copied into N distinct conversations (fresh trace ids, timestamps
moved to now), one trace per message, random keys, 4 input partitions. The expected reports are what
`replay` gives for exactly the same requests.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.cli import load_references
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig
from monitor.report import latest_reports
from monitor.runtime.pipeline import Pipeline
from tests import poison
from tests.traces import long_turns

pytestmark = pytest.mark.kafka
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "otlp"
GOLD = ROOT / "monitor" / "data" / "demo" / "gold"
BROKER = ROOT / "deploy" / "kafka" / "broker.sh"


def _free_pair() -> int:
    for _ in range(50):
        port = random.randint(20000, 32000)  # below Linux's ephemeral ports: no outbound socket takes it
        with socket.socket() as a, socket.socket() as b:
            try:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port pair")


class Broker:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.port = _free_pair()
        self.bootstrap = f"127.0.0.1:{self.port}"

    def start(self) -> None:
        subprocess.run(
            ["bash", str(BROKER), "start", str(self.dir), str(self.port)],
            check=True,
            capture_output=True,
            timeout=300,
        )

    def stop(self) -> None:
        subprocess.run(
            ["bash", str(BROKER), "stop", str(self.dir)], check=True, capture_output=True, timeout=120
        )


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    b = Broker(tmp_path_factory.mktemp("kafka"))
    b.start()
    yield b
    b.stop()


def traffic(n: int, seed: int = 1) -> list[bytes]:
    """n conversations from the recorded requests, one trace per request, timestamps shifted to now."""
    sources = [
        FIXTURES / lib / f"{c}.000.pb"
        for lib in ("strands", "openai-agents")
        for c in ("correct", "wrong-metric")
    ]
    rng = random.Random(seed)
    out: list[bytes] = []
    for i in range(n):
        request = ExportTraceServiceRequest.FromString(sources[i % len(sources)].read_bytes())
        spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
        shift = time.time_ns() - max(s.end_time_unix_nano for s in spans)
        traces: dict[bytes, bytes] = {}
        for s in spans:
            s.trace_id = traces.setdefault(s.trace_id, rng.randbytes(16))
            s.start_time_unix_nano += shift
            s.end_time_unix_nano += shift
            for kv in s.attributes:
                if kv.key == "session.id":
                    kv.value.string_value = f"conv-{seed}-{i}"
        for trace_id in traces.values():
            one = ExportTraceServiceRequest()
            for rs in request.resource_spans:
                r = one.resource_spans.add()
                r.resource.CopyFrom(rs.resource)
                for ss in rs.scope_spans:
                    picked = [s for s in ss.spans if s.trace_id == trace_id]
                    if picked:
                        scope = r.scope_spans.add()
                        scope.scope.CopyFrom(ss.scope)
                        for s in picked:
                            scope.spans.add().CopyFrom(s)
            out.append(one.SerializeToString())
    return out


def expected(ladder: Ladder, requests: list[bytes]) -> dict[str, dict[str, Any]]:
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, load_references(GOLD), reports.append)
    for r in requests:
        pipeline.ingest(r, "application/x-protobuf", "test")
    pipeline.flush()
    return {r["conversation_id"]: verdict(r) for r in reports}


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "success_rate",
        "test_pass",
        "first_failure_turn",
        "root_cause",
        "root_cause_count",
        "cascading_count",
        "tool_calls",
    )
    turns = [(t["turn_no"], t["success"], t["failure_reason"], t["root_turn"]) for t in report["turns"]]
    return {**{k: report[k] for k in keys}, "turns": turns}


class Topics:
    def __init__(self, broker: Broker, name: str) -> None:
        self.broker = broker
        self.input, self.internal, self.results, self.dlq = (
            f"{name}.in",
            f"{name}.spans",
            f"{name}.reports",
            f"{name}.dlq",
        )
        self.env = dict(
            os.environ,
            AGENT_MONITOR_KAFKA__BOOTSTRAP_SERVERS=broker.bootstrap, AGENT_MONITOR_KAFKA__INPUT_TOPIC=self.input,
            AGENT_MONITOR_KAFKA__INTERNAL_TOPIC=self.internal, AGENT_MONITOR_KAFKA__RESULTS_TOPIC=self.results,
            AGENT_MONITOR_KAFKA__DEAD_LETTER_TOPIC=self.dlq, AGENT_MONITOR_KAFKA__INGEST_GROUP=f"{name}-ingest",
            AGENT_MONITOR_KAFKA__SCORE_GROUP=f"{name}-score", AGENT_MONITOR_KAFKA__MAX_MESSAGE_BYTES="200000",
            AGENT_MONITOR_WINDOWS__INACTIVITY_S="3", AGENT_MONITOR_SERVER__LATENESS_S="8",
            AGENT_MONITOR_SERVER__TICK_S="0.5", AGENT_MONITOR_SERVER__METRICS_PORT="0",
        )  # fmt: skip
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.create_topics([NewTopic(self.input, 4, 1)]).values():
            f.result()

    def add_logs_topic(self) -> str:
        """A logs topic of its own (GenAI events as log records), set as `kafka.logs_topic`."""
        logs_topic = f"{self.input}.logs"
        admin = AdminClient({"bootstrap.servers": self.broker.bootstrap})
        for created in admin.create_topics([NewTopic(logs_topic, 2, 1)]).values():
            created.result()
        self.env["AGENT_MONITOR_KAFKA__LOGS_TOPIC"] = logs_topic
        return logs_topic

    def replica(self, name: str, gold: Path = GOLD, *extra: str) -> subprocess.Popen[bytes]:
        # logs go to a file: a pipe nobody reads fills up and blocks the replica on its next log line
        log = (self.broker.dir / f"{self.input}-{name}.log").open("ab")
        return subprocess.Popen(
            [sys.executable, "-m", "monitor", "consume", "--stage", "both", "--gold", str(gold), "--replica", name, *extra],
            env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
        )  # fmt: skip

    def produce(self, requests: list[bytes], extra: list[bytes] = ()) -> None:  # type: ignore[assignment]
        producer = Producer({"bootstrap.servers": self.broker.bootstrap})
        rng = random.Random(7)
        for r in [*requests, *extra]:
            key = (
                None if rng.random() < 0.3 else uuid.UUID(int=rng.getrandbits(128)).bytes
            )  # no key, or a random one
            producer.produce(self.input, value=r, key=key)
        assert producer.flush(30) == 0

    def read(
        self,
        topic: str,
        want: int,
        settle_s: float = 6.0,
        timeout_s: float = 120.0,
        until: Callable[[list[Any]], bool] | None = None,
    ) -> list[Any]:
        """All messages of a topic, once `want` distinct keys are present and nothing new came for
        `settle_s` — or, with `until`, as soon as `until(messages)` holds (at `timeout_s`, whatever came)."""
        consumer = Consumer(
            {
                "bootstrap.servers": self.broker.bootstrap,
                "group.id": f"reader-{uuid.uuid4()}",
                "auto.offset.reset": "earliest",
            }
        )
        consumer.subscribe([topic])
        messages: list[Any] = []
        deadline, last_new = time.monotonic() + timeout_s, time.monotonic()
        try:
            while time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is not None and msg.error() is None:
                    messages.append(msg)
                    last_new = time.monotonic()
                    if until is not None and until(messages):
                        break
                if (
                    until is None
                    and len({m.key() for m in messages}) >= want
                    and time.monotonic() - last_new >= settle_s
                ):
                    break
        finally:
            consumer.close()
        return messages


def latest(messages: list[Any]) -> tuple[dict[str, dict[str, Any]], dict[str, set[str]]]:
    """Dedupe as docs/operations.md tells consumers to (`latest_reports`): most spans, then highest version,
    then the later message; none for a key whose highest version is merged into another conversation."""
    replicas: dict[str, set[str]] = {}
    for m in messages:
        replicas.setdefault(m.key().decode(), set()).add(dict(m.headers())["aem.replica"].decode())
    reports = latest_reports(json.loads(m.value()) for m in messages)
    return {k: dict(v) for k, v in reports.items()}, replicas


def read_until_whole(topics: Topics, want: dict[str, dict[str, Any]]) -> list[Any]:
    """The results topic, read until the latest reports hold `want`'s conversations with their spans
    (at most 180 s)."""
    spans = {k: r["spans"] for k, r in want.items()}
    return topics.read(
        topics.results,
        want=len(want),
        timeout_s=180,
        until=lambda m: {k: r["spans"] for k, r in latest(m)[0].items()} == spans,
    )


def wait_for_group(topics: Topics, members: int, timeout_s: float = 90.0) -> None:
    """Until the replicas are in: both groups (ingest, score) stable with `members` members (no more than the
    topics' 4 partitions), each holding partitions, twice in a row a second apart (a cooperative rebalance
    moves partitions in two rounds). Traffic sent earlier would be scored all the same, but a test of who
    does what needs every replica in first."""
    admin = AdminClient({"bootstrap.servers": topics.broker.bootstrap})
    groups = [topics.env["AGENT_MONITOR_KAFKA__INGEST_GROUP"], topics.env["AGENT_MONITOR_KAFKA__SCORE_GROUP"]]
    deadline, settled, seen = time.monotonic() + timeout_s, 0, ""
    while settled < 2:
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the replicas did not settle into groups of {members} in {timeout_s:.0f} s: {seen}"
            )
        time.sleep(1)
        try:
            described = [
                f.result() for f in admin.describe_consumer_groups(groups, request_timeout=10).values()
            ]
        except Exception as e:  # the coordinator is still loading the group: ask again
            seen, settled = repr(e), 0
            continue
        seen = "; ".join(
            f"{g.group_id} {g.state.name}: {[len(m.assignment.topic_partitions) for m in g.members]}"
            for g in described
        )
        ready = all(
            g.state.name == "STABLE"
            and len(g.members) == members
            and all(m.assignment.topic_partitions for m in g.members)
            for g in described
        )
        settled = settled + 1 if ready else 0


def stop(*procs: subprocess.Popen[bytes]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()


def run_replicas(topics: Topics, names: tuple[str, ...], requests: list[bytes]) -> list[Any]:
    """Start the replicas, wait for the group, produce, and collect the reports."""
    procs = [topics.replica(n) for n in names]
    try:
        wait_for_group(topics, len(names))
        topics.produce(requests)
        return topics.read(topics.results, want=_conversations(requests))
    finally:
        stop(*procs)


def _conversations(requests: list[bytes]) -> int:
    ids = set()
    for r in requests:
        for rs in ExportTraceServiceRequest.FromString(r).resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    ids |= {kv.value.string_value for kv in span.attributes if kv.key == "session.id"}
    return len(ids)


def test_two_replicas_report_every_conversation_once_like_replay(broker: Broker, ladder: Ladder) -> None:
    requests = traffic(16, seed=1)
    reports, replicas = latest(run_replicas(Topics(broker, "t1"), ("r1", "r2"), requests))
    assert {k: verdict(v) for k, v in reports.items()} == expected(ladder, requests)
    assert all(len(r) == 1 for r in replicas.values()), replicas  # each conversation scored by one replica
    assert {r for rs in replicas.values() for r in rs} == {"r1", "r2"}  # and both replicas did work


def test_kill_9_mid_stream_loses_nothing(broker: Broker, ladder: Ladder) -> None:
    topics = Topics(broker, "t2")
    # the killed replica leaves the group when its session times out: 6 s, not librdkafka's 45 s
    topics.env["AGENT_MONITOR_KAFKA__LIBRDKAFKA"] = json.dumps(
        {"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"}
    )
    requests = traffic(16, seed=2)
    r1, r2 = topics.replica("r1"), topics.replica("r2")
    try:
        wait_for_group(topics, 2)
        topics.produce(requests[: len(requests) // 2])
        time.sleep(2)
        r1.send_signal(signal.SIGKILL)  # no flush, no commit
        r1.wait(timeout=30)
        topics.produce(requests[len(requests) // 2 :])
        r1 = topics.replica("r1-restarted")
        messages = topics.read(topics.results, want=16, settle_s=8)
    finally:
        stop(r1, r2)
    reports, _ = latest(messages)
    want = expected(ladder, requests)
    assert {k: verdict(v) for k, v in reports.items()} == want  # nothing lost
    final_spans = {k: r["spans"] for k, r in reports.items()}
    for m in messages:  # every other report is a recognizable, superseded one: same verdict, or fewer spans
        key, report = m.key().decode(), json.loads(m.value())
        assert verdict(report) == want[key] or report["spans"] < final_spans[key], (
            key,
            report["spans"],
            final_spans[key],
        )


def test_broker_restart_during_consumption(broker: Broker, ladder: Ladder) -> None:
    topics = Topics(broker, "t3")
    requests = traffic(8, seed=3)
    r1 = topics.replica("r1")
    try:
        wait_for_group(topics, 1)
        topics.produce(requests[:8])
        broker.stop()
        time.sleep(2)
        broker.start()
        topics.produce(requests[8:])
        messages = topics.read(topics.results, want=8, settle_s=8, timeout_s=180)
    finally:
        stop(r1)
    reports, _ = latest(messages)
    assert {k: verdict(v) for k, v in reports.items()} == expected(ladder, requests)


def test_poison_messages_go_to_the_dead_letter_topic_and_the_rest_is_scored(
    broker: Broker, ladder: Ladder
) -> None:
    topics = Topics(broker, "t4")
    requests = traffic(4, seed=4)
    poison = [
        b"\x0a\xff\xff\xff not protobuf",
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}',
        b"\x00" * 300_000,
    ]
    r1 = topics.replica("r1")
    try:
        wait_for_group(topics, 1)
        topics.produce(requests, extra=poison)
        messages = topics.read(topics.results, want=4)
        dead = topics.read(topics.dlq, want=0, settle_s=3, timeout_s=30)
    finally:
        stop(r1)
    reports, _ = latest(messages)
    assert {k: verdict(v) for k, v in reports.items()} == expected(ladder, requests)
    assert len(dead) == 3
    errors = sorted(dict(m.headers())["aem.error"].decode() for m in dead)
    assert any("not an OTLP protobuf" in e for e in errors) and any("not a hex id" in e for e in errors)
    assert any("exceeds kafka.max_message_bytes" in e for e in errors)
    for m in dead:
        headers = dict(m.headers())
        assert headers["aem.source.topic"].decode() == topics.input
        assert int(headers["aem.source.partition"]) in range(4) and int(headers["aem.source.offset"]) >= 0


def test_loadgen_over_kafka_agrees_with_the_truth(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`loadgen --send kafka://…` produces generated traffic into the input topic, in real time; two
    consumer replicas score it, and the reports topic agrees with the generator's truth."""
    from monitor.cli import main

    topics = Topics(broker, "lg")
    args = [
        "--conversations",
        "30",
        "--seed",
        "9",
        "--rate",
        "30",
        "--time-scale",
        "0.02",
        "--references",
        "4",
        "--batch-spans",
        "64",  # messages under this test's kafka.max_message_bytes (200 kB)
    ]
    assert main(["loadgen", "--out", str(tmp_path / "files"), *args]) == 0  # the same seed: the same gold
    procs = [topics.replica(n, gold=tmp_path / "files" / "gold") for n in ("g1", "g2")]
    try:
        wait_for_group(topics, 2)
        target = f"kafka://{broker.bootstrap}/{topics.input}"
        assert main(["loadgen", "--out", str(tmp_path / "live"), *args, "--send", target]) == 0
        # forwarded early spans re-open a conversation its end marker closed: its complete report comes
        # after the inactivity window (3 s) plus the lateness allowance (8 s)
        messages = topics.read(topics.results, want=30, settle_s=20)
    finally:
        stop(*procs)
    reports, _ = latest(messages)
    (tmp_path / "reports.jsonl").write_text("".join(json.dumps(r) + "\n" for r in reports.values()))
    capsys.readouterr()
    assert main(["loadgen", "--out", str(tmp_path / "live"), "--check", str(tmp_path / "reports.jsonl")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["reported"] == result["conversations"] == 30
    assert result["verdict_accuracy"] == 1.0, result["top_disagreements"]


def test_poison_spans_are_isolated_and_the_replica_keeps_consuming(
    broker: Broker, ladder: Ladder, tmp_path: Path
) -> None:
    """Issue 15's poison inputs, each in a request with a good conversation beside it, among good
    traffic: no replica crashes; every good conversation is reported once, whole, as `replay` gives
    it; a conversation that cannot be scored is reported unscored with the reason; a span that cannot
    be read is dropped and its message copied to the dead-letter topic with where it came from."""
    from monitor.reference.policy import load_policies

    policy = tmp_path / "policy.yaml"
    policy.write_text(poison.POLICY_YAML)
    topics = Topics(broker, "t5")
    topics.env["AGENT_MONITOR_KAFKA__MAX_MESSAGE_BYTES"] = "1000000"  # the 10,000-deep request is ~300 kB
    requests = traffic(4, seed=5)
    cases = poison.cases()
    r1 = topics.replica("r1", GOLD, "--policy", str(policy))
    try:
        wait_for_group(topics, 1)
        topics.produce(requests, extra=[c.payload for c in cases])
        want = _conversations(requests) + sum(2 if c.outcome != "rejected" else 1 for c in cases)
        messages = topics.read(topics.results, want=want)
        dead = topics.read(topics.dlq, want=0, settle_s=3, timeout_s=30)
        assert r1.poll() is None, "the replica stopped"
    finally:
        stop(r1)
    reports, _ = latest(messages)
    replayed: list[dict[str, Any]] = []
    pipeline = Pipeline(
        ScoringConfig(), ladder, load_references(GOLD), replayed.append, policies=load_policies(policy)
    )
    for body, content_type in [
        *[(r, "application/x-protobuf") for r in requests],
        *[(c.payload, c.content_type) for c in cases],
    ]:
        pipeline.ingest(body, content_type, "replay")
    pipeline.flush()
    by_replay = {r["conversation_id"]: r for r in replayed}
    assert set(reports) == set(by_replay) and len(reports) == want
    for (
        cid,
        report,
    ) in reports.items():  # nothing cut: every conversation whole (all its spans), once scored alike
        assert (report["spans"], report["scored"], report.get("success_rate")) == (
            by_replay[cid]["spans"],
            by_replay[cid]["scored"],
            by_replay[cid].get("success_rate"),
        ), cid
    for case in cases:
        assert reports[poison.beside(case)]["scored"] is True
        if case.outcome == "unscored":
            assert case.reason in reports[poison.poisoned(case)]["unscored_reason"]
    [copy] = [m for m in dead if b"spans not used" in dict(m.headers())["aem.error"]]
    headers = dict(copy.headers())
    assert (
        b"Couldn't parse integer" in headers["aem.error"]
        and headers["aem.source.topic"].decode() == topics.input
    )
    assert int(headers["aem.source.partition"]) in range(4) and int(headers["aem.source.offset"]) >= 0


def test_scaling_1_to_3_to_2_mid_stream_cuts_nothing(broker: Broker, ladder: Ladder) -> None:
    """Replicas join and leave while traffic flows: after dedupe every conversation is whole (replay's
    verdicts, no `trace:` fragment), every superseded report is recognisably older (same verdict, or
    fewer spans), and the kept report carries its conversation's highest version."""
    topics = Topics(broker, "t6")
    requests = traffic(18, seed=6)
    third = len(requests) // 3
    r1 = topics.replica("r1")
    r2 = r3 = None
    try:
        wait_for_group(topics, 1)
        topics.produce(requests[:third])
        time.sleep(2)
        r2, r3 = topics.replica("r2"), topics.replica("r3")
        wait_for_group(topics, 3)
        topics.produce(requests[third : 2 * third])
        time.sleep(2)
        stop(r3)  # graceful leave: revoke, commit what is safe, the others take over
        topics.produce(requests[2 * third :])
        messages = topics.read(topics.results, want=18, settle_s=8)
    finally:
        stop(*[p for p in (r1, r2, r3) if p is not None])
    reports, _ = latest(messages)
    want = expected(ladder, requests)
    assert {k: verdict(v) for k, v in reports.items()} == want  # nothing lost, nothing cut, no fragment
    for m in messages:
        key, report = m.key().decode(), json.loads(m.value())
        assert verdict(report) == want[key] or report["spans"] < reports[key]["spans"], key
        assert report["version"] <= reports[key]["version"], (key, report["version"], reports[key]["version"])


def test_a_conversation_moved_to_a_new_replica_keeps_the_spans_its_traces_sent_ahead(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trace's children arrive keyed by the trace (its root, which names the conversation, comes
    later); one replica owning both partitions used to join them in memory only. When the
    conversation's partition then moved to a new replica and the trace's stayed, the new owner rebuilt
    the conversation without them, and the kept report was short of spans. Every span of a
    conversation must be on the conversation's own partition, so whoever owns it rebuilds it whole."""
    traffic = long_turns(tmp_path, "--conversations", "40", "--seed", "12", "--references", "4")
    capsys.readouterr()
    children, roots, rest, replayed = traffic.children, traffic.roots, traffic.rest, traffic.replayed_spans
    assert len(children) > 10 and rest
    topics = Topics(broker, "t11")
    # r1 must report the conversations it holds before they move (their roots carry the end marker):
    # the marker closes at once here, as with no grace, so each moved conversation is reported by both
    topics.env["AGENT_MONITOR_WINDOWS__END_MARKER_GRACE_S"] = "0"
    r1 = topics.replica("r1", tmp_path / "gold")
    r2 = None
    try:
        wait_for_group(topics, 1)
        topics.produce(children)  # keyed by their trace: no span of it named the conversation yet
        time.sleep(3)
        topics.produce(roots)  # r1 owns every partition: it joins each trace to its conversation
        time.sleep(3)
        r2 = topics.replica("r2", tmp_path / "gold")
        wait_for_group(topics, 2)  # r2 takes half of the partitions, and the conversations on them
        topics.produce(rest)
        messages = topics.read(topics.results, want=len(replayed), settle_s=20)  # past the idle close
    finally:
        stop(*[p for p in (r1, r2) if p is not None])
    reports, replicas = latest(messages)
    assert sum(len(names) == 2 for names in replicas.values()) >= 3, "too few conversations moved"
    assert {k: r["spans"] for k, r in reports.items()} == replayed  # none missing, cut or a fragment


def _kill_9_and_sigstop(topics: Topics, gold: Path, procs: list[subprocess.Popen[bytes]]) -> None:
    g1, g2 = procs
    time.sleep(2)
    g1.send_signal(signal.SIGKILL)  # no flush, no commit
    g1.wait(timeout=30)
    procs.append(topics.replica("g1-restarted", gold))
    time.sleep(2)
    g2.send_signal(signal.SIGSTOP)  # past session.timeout.ms: the group moves on without it
    time.sleep(9)
    g2.send_signal(signal.SIGCONT)


def _scale_2_1_3_2(topics: Topics, gold: Path, procs: list[subprocess.Popen[bytes]]) -> None:
    time.sleep(2)
    stop(procs[1])  # 2 -> 1
    time.sleep(2)
    procs += [topics.replica("g3", gold), topics.replica("g4", gold)]  # 1 -> 3
    time.sleep(5)
    stop(procs[2])  # 3 -> 2


@pytest.mark.parametrize(
    "faults", [_kill_9_and_sigstop, _scale_2_1_3_2], ids=["kill-9+sigstop", "scale-2-1-3-2"]
)
def test_faults_under_generated_traffic_give_replay_s_conversations(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str], faults: Any
) -> None:
    """Generated traffic (children exported before their root, links, late spans) sent in real time
    while replicas fail or the group is rescaled: after dedupe, exactly replay's conversations — none
    missing, none partial (the same span count), no `trace:` fragment — with replay's verdicts."""
    from monitor.cli import main

    topics = Topics(broker, f"t7-{faults.__name__.strip('_')}")
    topics.env["AGENT_MONITOR_KAFKA__LIBRDKAFKA"] = json.dumps(
        {"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"}
    )
    args = ["--conversations", "60", "--seed", "11", "--rate", "6", "--time-scale", "0.02",
            "--references", "4", "--batch-spans", "64"]  # fmt: skip
    assert main(["loadgen", "--out", str(tmp_path / "files"), *args]) == 0  # the same traffic, to files
    gold = tmp_path / "files" / "gold"
    assert main(["replay", str(tmp_path / "files" / "traffic"), "--gold", str(gold),
                 "--out", str(tmp_path / "replayed.jsonl")]) == 0  # fmt: skip
    replayed = {
        r["conversation_id"]: r
        for r in map(json.loads, (tmp_path / "replayed.jsonl").read_text().splitlines())
    }
    procs = [topics.replica("g1", gold), topics.replica("g2", gold)]
    try:
        wait_for_group(topics, 2)
        sender = subprocess.Popen(
            [sys.executable, "-m", "monitor", "loadgen", "--out", str(tmp_path / "live"), *args,
             "--send", f"kafka://{broker.bootstrap}/{topics.input}"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        faults(topics, gold, procs)
        assert sender.wait(timeout=120) == 0
        messages = topics.read(topics.results, want=60, settle_s=20, timeout_s=240)
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGCONT)
        stop(*procs)
    capsys.readouterr()
    reports, _ = latest(messages)
    assert set(replayed) <= set(reports)  # none missing
    fragments = sorted(set(reports) - set(replayed))  # `trace:` conversations cut off another
    partial = {
        k: (reports[k]["spans"], replayed[k]["spans"])
        for k in replayed
        if reports[k]["spans"] != replayed[k]["spans"]
    }
    whole = [k for k in replayed if k not in partial]
    assert {k: verdict(reports[k]) for k in whole} == {k: verdict(replayed[k]) for k in whole}
    assert fragments == [] and partial == {}  # nothing cut


def test_genai_events_on_the_logs_topic_join_their_spans(broker: Broker, ladder: Ladder) -> None:
    """opentelemetry-instrumentation-openai-v2 sends content as log records; the Collector's Kafka
    exporter writes them to a logs topic of their own. With `kafka.logs_topic` set, the consumer group
    gives the reports `replay` gives for the same recorded files."""
    travel = ROOT / "tests" / "fixtures" / "travel"
    files = sorted((travel / "openai-v2").glob("*.pb"))
    logs = [f for f in files if f.name.endswith(".logs.pb")]
    spans = [f for f in files if f not in logs]
    assert logs and spans
    topics = Topics(broker, "t10")
    logs_topic = topics.add_logs_topic()
    replica = topics.replica("r1", travel / "gold")
    try:
        wait_for_group(topics, 1)
        producer = Producer({"bootstrap.servers": broker.bootstrap})
        for f in spans:
            producer.produce(topics.input, value=f.read_bytes())
        for f in logs:
            producer.produce(logs_topic, value=f.read_bytes())
        assert producer.flush(30) == 0
        reports, _ = latest(topics.read(topics.results, want=2))
    finally:
        stop(replica)
    replayed = replay(
        ladder, travel / "gold", [(f.read_bytes(), "logs" if f in logs else "traces") for f in files]
    )
    assert {r["conversation_id"]: verdict(r) for r in replayed} == {k: verdict(v) for k, v in reports.items()}
    assert reports["openai-v2-correct"]["test_pass"] is True
    assert reports["openai-v2-wrong"]["root_cause"] == "inconsistent_parameter_values"


def per_trace(path: Path, shift: int, copies: bool = True) -> list[bytes]:
    """A recorded request as a Collector's Kafka exporter may write it: one trace per message, in the
    order the traces started, timestamps moved by `shift`. The Anthropic SDK's own metadata-only copies
    of its calls are traces of their own too: each reaches an ingest replica apart from its call, and
    joins it after the call's route (`ScoreStage._follow_link`). Without `copies` they are left out, as
    their user may (`ANTHROPIC_OPEN_TELEMETRY=false`, the hint of a copy reported alone)."""
    request = ExportTraceServiceRequest.FromString(path.read_bytes())
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            if not copies and ss.scope.name.startswith(ANTHROPIC_SDK):
                del ss.spans[:]
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    starts: dict[bytes, int] = {}
    for s in spans:
        s.start_time_unix_nano += shift
        s.end_time_unix_nano += shift
        starts[s.trace_id] = min(starts.get(s.trace_id, s.start_time_unix_nano), s.start_time_unix_nano)
    out = []
    for trace_id in sorted(starts, key=starts.__getitem__):
        one = ExportTraceServiceRequest()
        for rs in request.resource_spans:
            r = one.resource_spans.add()
            r.resource.CopyFrom(rs.resource)
            for ss in rs.scope_spans:
                scope = r.scope_spans.add()
                scope.scope.CopyFrom(ss.scope)
                for s in ss.spans:
                    if s.trace_id == trace_id:
                        scope.spans.add().CopyFrom(s)
        out.append(one.SerializeToString())
    return out


def consumed_by_two(
    broker: Broker, prefix: str, gold: Path, requests: list[bytes], want: int
) -> dict[str, Any]:
    """The latest reports of `requests` read by two replicas, once `want` conversations are reported and
    nothing more came for ten seconds."""
    topics = Topics(broker, prefix)
    replicas = [topics.replica(name, gold) for name in ("r1", "r2")]
    try:
        wait_for_group(topics, 2)
        topics.produce(requests)
        reports, _ = latest(topics.read(topics.results, want=want, settle_s=10))
    finally:
        stop(*replicas)
    return reports


def test_traces_without_a_conversation_id_are_joined_by_the_history_they_resend(
    broker: Broker, ladder: Ladder
) -> None:
    """Five setups with no conversation id (Vercel AI SDK 7, OpenAI Agents with the GenAI contrib
    instrumentation, Haystack's tracer: one trace per user turn; OpenLLMetry on an app's Anthropic tool
    loop: one trace per model call, and the Anthropic SDK's own copy of each call a trace too; LangChain
    with both OpenInference instrumentors: a trace per turn, and each model call's second recording, the
    OpenAI SDK's, a trace of its own, which joins it where the turns' traces are routed), each
    trace written as its own message under a random key, read by two replicas — except the Anthropic
    wrong run, written as its application's exporter sent it (one request, as a Collector's Kafka
    exporter writes a batch). Each trace lands on a partition of its own; routed by its opening, every
    trace of a conversation reaches one partition, where the traces are joined by the history they
    resend, and each copy joins its call by the response id both carry, as `replay` joins them: each
    conversation reported once, whole, with replay's verdicts and its hint (runs that opened with the
    same message are still told apart), and no copy reported alone."""
    travel = ROOT / "tests" / "fixtures" / "travel"
    runs = [travel / f / f"{run}.000.pb" for f in NO_ID_SECOND for run in ("correct", "wrong")]
    last = max(s.end_time_unix_nano for p in runs for s in _spans(p))
    whole = travel / "anthropic-openllmetry-noid" / "wrong.000.pb"
    requests = [
        r
        for p in runs
        for r in ([shifted(p, time.time_ns() - last)] if p == whole else per_trace(p, time.time_ns() - last))
    ]
    want = {
        r["conversation_id"]: r for r in replay(ladder, travel / "gold", [(r, "traces") for r in requests])
    }
    assert len(want) == 2 * len(NO_ID_SECOND) < len(requests)  # replay joins each run's traces
    reports = consumed_by_two(broker, "t12", travel / "gold", requests, len(want))
    assert sorted(reports) == sorted(want)  # no trace reported alone, no conversation twice
    for cid, report in reports.items():
        assert report["spans"] == want[cid]["spans"]  # whole
        assert verdict(report) == verdict(want[cid])
        assert "joined by the history each resends" in report["conversation_hint"]
    copied = [r for r in reports.values() if "of its model calls' copies" in r["conversation_hint"]]
    assert len(copied) == 2 and all(r["spans"] == 14 for r in copied)  # the Anthropic runs, copies in
    second = [
        r for r in reports.values() if "7 second recordings of its model calls" in r["conversation_hint"]
    ]
    assert len(second) == 2 and all(r["spans"] == 31 for r in second)  # LangChain's, the SDK's traces in


def test_a_named_call_and_its_second_recording_apart_are_one_conversation(
    broker: Broker, ladder: Ladder
) -> None:
    """LangChain with both OpenInference instrumentors (Phoenix's `auto_instrument`), with a conversation id:
    LangChain's spans carry the `thread_id`, and the OpenAI SDK records every model call again as an
    unnamed trace of its own (a second recording), keyed apart from its conversation. Each run is written as
    its application's exporter sent it (one request, as a Collector's Kafka exporter writes a batch), read by
    two replicas: the second recordings reach their calls' partition, so each conversation is reported once,
    whole, with `replay`'s verdict and tokens, and no second recording is reported alone."""
    travel = ROOT / "tests" / "fixtures" / "travel"
    runs = [travel / "langchain-v1-openinference-twins" / f"{run}.000.pb" for run in ("correct", "wrong")]
    last = max(s.end_time_unix_nano for p in runs for s in _spans(p))
    requests = [shifted(p, time.time_ns() - last) for p in runs]
    want = {
        r["conversation_id"]: r for r in replay(ladder, travel / "gold", [(r, "traces") for r in requests])
    }
    assert sorted(want) == [f"langchain-v1-openinference-twins-{run}" for run in ("correct", "wrong")]
    reports = consumed_by_two(broker, "t21", travel / "gold", requests, len(want))
    assert sorted(reports) == sorted(want)  # no second recording reported alone
    for cid, report in reports.items():
        assert report["spans"] == want[cid]["spans"] == 31  # whole: LangChain's spans and the SDK's
        assert verdict(report) == verdict(want[cid])  # each call read once: the same turns
        assert report["input_tokens"] == want[cid]["input_tokens"]  # and counted once
    assert reports["langchain-v1-openinference-twins-correct"]["test_pass"] is True
    assert reports["langchain-v1-openinference-twins-wrong"]["test_pass"] is False


def shifted(path: Path, shift: int) -> bytes:
    """A recorded request whole, its timestamps moved by `shift`."""
    request = ExportTraceServiceRequest.FromString(path.read_bytes())
    for s in (s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans):
        s.start_time_unix_nano += shift
        s.end_time_unix_nano += shift
    return request.SerializeToString()


def test_traces_without_a_conversation_id_stay_whole_when_a_replica_is_killed_mid_route(
    broker: Broker, ladder: Ladder
) -> None:
    """The same traces without a conversation id, with a replica killed (SIGKILL: no flush, no commit)
    once the first traces of every run were routed and before the rest are sent, and a fresh replica in
    its place. The routes are messages in the log: whoever owns a partition next follows them again, and
    a conversation reported before its later traces came is reopened, not cut. So, as in `replay`: each
    conversation reported once, whole (the latest report of each key), with replay's verdicts, once the
    killed replica's partitions were re-read by a survivor."""
    travel = ROOT / "tests" / "fixtures" / "travel"
    runs = [travel / f / f"{run}.000.pb" for f in NO_ID for run in ("correct", "wrong")]
    last = max(s.end_time_unix_nano for p in runs for s in _spans(p))
    per_run = [per_trace(p, time.time_ns() - last) for p in runs]
    first = [r for traces in per_run for r in traces[: len(traces) // 2]]
    rest = [r for traces in per_run for r in traces[len(traces) // 2 :]]
    assert first and rest
    want = {
        r["conversation_id"]: r
        for r in replay(ladder, travel / "gold", [(r, "traces") for traces in per_run for r in traces])
    }
    topics = Topics(broker, "t13")
    topics.env["AGENT_MONITOR_KAFKA__LIBRDKAFKA"] = json.dumps(
        {"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"}
    )
    procs = [topics.replica(name, travel / "gold") for name in ("r1", "r2")]
    try:
        wait_for_group(topics, 2)
        topics.produce(first)
        topics.read(topics.internal, want=0, timeout_s=90, until=lambda m: len(_routed(m)) >= len(first))
        procs[0].send_signal(signal.SIGKILL)  # every first trace routed; the rest not yet sent
        procs[0].wait(timeout=30)
        procs.append(topics.replica("r3", travel / "gold"))
        time.sleep(10)  # the group moves r1's partitions to r3, which re-reads what r1 left uncommitted
        topics.produce(rest)
        messages = read_until_whole(topics, want)
    finally:
        stop(*procs)
    reports, _ = latest(messages)
    assert sorted(reports) == sorted(want)  # no trace reported alone, no conversation under two keys
    assert {k: r["spans"] for k, r in reports.items()} == {k: r["spans"] for k, r in want.items()}  # whole
    assert {k: verdict(r) for k, r in reports.items()} == {k: verdict(r) for k, r in want.items()}
    # the killed replica's partitions (its routes among them) were taken over and re-read to their end;
    # which survivor took them, and whether conversations were routed to them, the group decides
    logs = [(broker.dir / f"{topics.input}-{name}.log").read_text() for name in ("r2", "r3")]
    assert any("re-read to its end" in log for log in logs)


def test_later_turns_reported_alone_are_merged_when_the_first_turn_comes(
    broker: Broker, ladder: Ladder
) -> None:
    """Traces without a conversation id whose later turns come first (a slow partition, a slow exporter):
    each run's later turns are reported as a conversation of their own, since the turn they continue has
    not come. When the first turns come, each run's later turns join them, as in `replay`: one report
    per run, whole, with replay's verdict, and the ids reported first are retired by a last report with
    no spans (`merged_into`, also the header `aem.merged_into`), so the documented dedupe keeps one
    conversation per run."""
    travel = ROOT / "tests" / "fixtures" / "travel"
    runs = [travel / f / f"{run}.000.pb" for f in NO_ID for run in ("correct", "wrong")]
    last = max(s.end_time_unix_nano for p in runs for s in _spans(p))
    # (no SDK copies: the first call's copy, sent before it, would be reported alone and stay so)
    per_run = [per_trace(p, time.time_ns() - last, copies=False) for p in runs]
    assert all(len(traces) > 1 for traces in per_run)
    want = {
        r["conversation_id"]: r
        for r in replay(ladder, travel / "gold", [(r, "traces") for traces in per_run for r in traces])
    }
    topics = Topics(broker, "t16")
    # the first turns must come while the alone reports hold their offsets: a grace a slow machine keeps
    topics.env["AGENT_MONITOR_WINDOWS__LATE_GRACE_S"] = "300"
    procs = [topics.replica(name, travel / "gold") for name in ("r1", "r2")]
    try:
        wait_for_group(topics, 2)
        topics.produce([r for traces in per_run for r in traces[1:]])
        alone = latest(topics.read(topics.results, want=len(per_run), timeout_s=120))[0]
        topics.produce([traces[0] for traces in per_run])
        messages = read_until_whole(topics, want)
    finally:
        stop(*procs)
    assert len(alone) == len(per_run) and not set(alone) & set(want)  # first reported under other ids
    reports, _ = latest(messages)
    assert {k: r["spans"] for k, r in reports.items()} == {k: r["spans"] for k, r in want.items()}  # whole
    assert {k: verdict(r) for k, r in reports.items()} == {k: verdict(r) for k, r in want.items()}
    retired = {
        m.key().decode(): dict(m.headers())["aem.merged_into"].decode()
        for m in messages
        if "aem.merged_into" in dict(m.headers())
    }
    assert set(retired) == set(alone) and set(retired.values()) == set(want)


def _routed(messages: list[Any]) -> set[str]:
    """The traces a link on the internal topic routes by their opening (`history:`)."""
    out = set()
    for m in messages:
        if dict(m.headers() or []).get("aem.kind") == b"link":
            link = json.loads(m.value())
            if str(link["conversation_id"]).startswith("history:"):
                out.add(link["trace_id"])
    return out


def test_traces_without_a_conversation_id_join_with_the_messages_their_logs_carry(
    broker: Broker, ladder: Ladder
) -> None:
    """Microsoft Agent Framework with no conversation id sends its messages as log records, which the
    Collector writes to a logs topic of their own: one trace per user turn on the input topic, the log
    records of both runs on the logs topic, sent after them. A trace's log records are keyed by its id
    like its spans, so they follow its route to the conversation's partition — here the route is taken
    when the trace would close, since its messages (what the route is computed from) come late: each
    run reported once, whole, as `replay` reports the same files."""
    travel = ROOT / "tests" / "fixtures" / "travel"
    traces = [travel / "maf-noid" / f"{run}.000.pb" for run in ("correct", "wrong")]
    logs = [travel / "maf-noid" / f"{run}.001.logs.pb" for run in ("correct", "wrong")]
    last = max(s.end_time_unix_nano for p in traces for s in _spans(p))
    shift = time.time_ns() - last
    requests = [r for p in traces for r in per_trace(p, shift)]
    records = [_shifted_logs(p, shift) for p in logs]
    want = {
        r["conversation_id"]: r
        for r in replay(
            ladder, travel / "gold", [*[(r, "traces") for r in requests], *[(r, "logs") for r in records]]
        )
    }
    assert len(want) == 2 < len(requests)  # replay joins each run's traces
    topics = Topics(broker, "t14")
    logs_topic = topics.add_logs_topic()
    replicas = [topics.replica(name, travel / "gold") for name in ("r1", "r2")]
    try:
        wait_for_group(topics, 2)
        topics.produce(requests)
        producer = Producer({"bootstrap.servers": broker.bootstrap})
        for body in records:
            producer.produce(logs_topic, value=body)
        assert producer.flush(30) == 0
        reports, _ = latest(topics.read(topics.results, want=len(want), settle_s=10))
    finally:
        stop(*replicas)
    assert sorted(reports) == sorted(want)
    for cid, report in reports.items():
        assert report["spans"] == want[cid]["spans"]
        assert verdict(report) == verdict(want[cid])
    assert [r["test_pass"] for r in sorted(reports.values(), key=lambda r: r["test_pass"])] == [False, True]


def _shifted_logs(path: Path, shift: int) -> bytes:
    """A recorded logs request with its records' times moved by `shift`, as `per_trace` moves spans."""
    request = ExportLogsServiceRequest.FromString(path.read_bytes())
    for rl in request.resource_logs:
        for sl in rl.scope_logs:
            for record in sl.log_records:
                record.time_unix_nano += shift if record.time_unix_nano else 0
                record.observed_time_unix_nano += shift if record.observed_time_unix_nano else 0
    return request.SerializeToString()


#: (MAF sends its messages as logs); the Anthropic one is an app's tool loop, one trace per model call
NO_ID = ("vercel-7-noid", "openai-agents-genai-noid", "haystack-noid", "anthropic-openllmetry-noid")
#: and LangChain with OpenInference's OpenAI SDK instrumentor too: each model call also a lone trace of its own
NO_ID_SECOND = (*NO_ID, "langchain-v1-openinference-twins-noid")
ANTHROPIC_SDK = "com.anthropic.sdk"


def _spans(path: Path) -> list[Any]:
    request = ExportTraceServiceRequest.FromString(path.read_bytes())
    return [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]


def replay(
    ladder: Ladder, gold: Path, requests: list[tuple[bytes, Literal["traces", "logs"]]]
) -> list[dict[str, Any]]:
    """What `replay` reports for the same requests (`traces` or `logs`), in the order given."""
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, load_references(gold), reports.append)
    for body, signal_ in requests:
        pipeline.ingest(body, "application/x-protobuf", "test", signal_)
    pipeline.flush()
    return reports


def test_generated_conversations_without_an_id_stay_whole_through_a_replica_killed_mid_stream(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generated traffic with every conversation id stripped — four span shapes, a trace per user turn,
    conversations that open with the very same exchange, children before their roots, late spans —
    sent over about twenty seconds while one of two replicas is killed (SIGKILL) and replaced. After
    dedupe, what `replay` reports for the same traffic *with* its ids: the same turns in order, span
    counts and verdicts (as multisets: a conversation without an id is keyed by its first trace, and two
    that opened alike may swap first traces), as many reports as conversations, and every trace in
    exactly one report."""
    from bench.joins import strip_ids, turns
    from monitor.cli import main
    from monitor.report import latest_reports

    args = ["--conversations", "60", "--seed", "17", "--rate", "6", "--time-scale", "0.02",
            "--references", "4", "--batch-spans", "64"]  # fmt: skip
    assert main(["loadgen", "--out", str(tmp_path / "files"), *args]) == 0
    gold = tmp_path / "files" / "gold"
    assert main(["replay", str(tmp_path / "files" / "traffic"), "--gold", str(gold),
                 "--out", str(tmp_path / "replayed.jsonl")]) == 0  # fmt: skip
    lines = (tmp_path / "replayed.jsonl").read_text().splitlines()
    named = [dict(r) for r in latest_reports(json.loads(line) for line in lines).values()]
    owner: dict[str, str] = {}
    shift: int | None = None
    requests = []
    for path in sorted((tmp_path / "files" / "traffic").glob("*.pb")):
        body = ExportTraceServiceRequest.FromString(path.read_bytes())
        spans = [s for rs in body.resource_spans for ss in rs.scope_spans for s in ss.spans]
        shift = shift if shift is not None else time.time_ns() - min(s.start_time_unix_nano for s in spans)
        for s in spans:  # the traffic's own pace, from now
            s.start_time_unix_nano += shift
            s.end_time_unix_nano += shift
        requests.append(strip_ids(body, owner))
    topics = Topics(broker, "t15")
    topics.env["AGENT_MONITOR_KAFKA__LIBRDKAFKA"] = json.dumps(
        {"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000"}
    )
    procs = [topics.replica(name, gold) for name in ("r1", "r2")]
    try:
        wait_for_group(topics, 2)
        for n, request in enumerate(requests):
            topics.produce([request])
            time.sleep(20 / len(requests))
            if n == len(requests) // 2:
                procs[0].send_signal(signal.SIGKILL)
                procs[0].wait(timeout=30)
                procs.append(topics.replica("r3", gold))

        def every_trace_reported(messages: list[Any]) -> bool:
            shown = [t["trace_id"] for r in latest(messages)[0].values() for t in r["observed_turns"]]
            return set(shown) >= set(owner)

        messages = topics.read(topics.results, want=0, timeout_s=240, until=every_trace_reported)
        time.sleep(15)  # and whatever a replica still re-reports comes in
        messages = topics.read(topics.results, want=len({m.key() for m in messages}), timeout_s=90)
    finally:
        stop(*procs)
    capsys.readouterr()
    reports = list(latest(messages)[0].values())
    shown: dict[str, int] = {}
    for report in reports:
        for trace in {t["trace_id"] for t in report["observed_turns"] if t.get("trace_id")}:
            shown[trace] = shown.get(trace, 0) + 1
    assert {t: shown.get(t, 0) for t in owner} == dict.fromkeys(owner, 1)  # each trace in one report
    assert len(reports) == len(named) == 60  # no conversation cut in two
    said = sorted(json.dumps([turns(r), r["spans"]]) for r in reports)
    assert said == sorted(json.dumps([turns(r), r["spans"]]) for r in named)  # whole, with replay's verdicts
