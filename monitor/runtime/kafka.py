"""The Kafka consumer-group path (confluent-kafka): ingest and score stages. I/O and lifecycle.

Ingest (group `kafka.ingest_group`): reads `kafka.input_topic` as the Collector's Kafka exporter
writes it (one ExportTraceServiceRequest per message, `otlp_proto` or `otlp_json`, detected per
message, any key), and `kafka.logs_topic` when set (one ExportLogsServiceRequest per message: GenAI
events sent as log records, joined to their spans as in `run`), decodes and normalizes (with the
`normalize` settings, as `run` does), and produces every span, keyed by its conversation id, to
`kafka.internal_topic` (the repartition pattern: a conversation then lives on exactly one scoring
replica); a conversation's end marker is produced after the rest of its spans from the same request,
so it cannot close the conversation before them. Spans
without a conversation id take the conversation of their trace when this ingest replica has seen it
named, else `trace:<id>`. Exporters send a trace's children before its root (the root ends last),
often in another request, and only the root may carry the conversation id: so the first time an
ingest replica sees a trace named, it also produces a *link* (`aem.kind: link`, keyed `trace:<id>`)
to the replica that holds that trace's early spans, which sends them on under their conversation's
key (and forwards later ones straight away). Where one score replica holds both partitions and joins
a trace's early spans to their conversation in memory, it still copies them to the conversation's
partition: every span of a conversation is on that partition, so whichever replica owns it next
rebuilds the conversation whole (re-read copies are dropped by span id). A trace that nothing names
(a framework with no conversation id, one trace per user turn) is routed by its opening once its root
is in: the score replica holding it produces a link to `history:<digest>` (assemble/history.py), so
every trace of the conversation reaches one partition, where they are joined by the history they
resend as in `run` (in the order they started, once the watermark has passed them). A provider SDK's
copy of a model call, a trace of its own (`AgentSpan.call_copy`), is keyed to its call's trace when the
ingest has read that call, else to `trace:call-<response id>`, where it waits for the link the call's
trace sends when it is sent on (`ScoreStage._route_copies`): either way it reaches the call's partition
and joins it by the response id, as in `run`. A model call's second recording (`AgentSpan.lone_call`: an
SDK's instrumentation beside a framework's, the call an unnamed trace of its own) is keyed
`trace:lone-<digest of the call>` once the ingest has seen its agent's lone and named calls, and each
named call alike sends a link there with its conversation and time (`IngestStage._second_recordings`):
the recording within that time goes on to the conversation (`ScoreStage._decide_lone`). A trace reported
alone there because the history it continues had not come joins it when it comes, as in `run`, while
its report still holds its offsets (`windows.late_grace_s`; asked once the report is out): they pass
to the conversation it joins (or, a named one elsewhere, its spans are copied there), and its id gets
a last report with no spans and `merged_into` (header `aem.merged_into`), which retires that id for
consumers; its version note names it too, so a new owner that merges the trace again does not count the
merge again.

Poison never stops a stage (a restart would only meet it again): a message that cannot be decoded, is
oversized, or makes a stage fail goes to `kafka.dead_letter_topic` with headers `aem.error`,
`aem.source.topic`, `aem.source.partition`, `aem.source.offset`, and is counted
(`aem_kafka_dead_letters_total`, `aem_pipeline_errors_total{stage="kafka"}`); a message with some
unreadable spans is processed for the rest and a copy naming them is dead-lettered; a span that fails
normalization travels marked and its conversation is reported unscored with the reason. Offsets are
committed (also on revoke, before the partitions move) after the produced spans are flushed
(at-least-once; the scoring stage drops re-delivered spans by span id).

Score (group `kafka.score_group`): reads the internal topic into the same `Pipeline` as `run` and
`replay`, one consumed batch at a time, and writes each report to `kafka.results_topic`, keyed by
conversation id, with headers `aem.version`, `aem.spans` and `aem.replica`, plus a version note
(`aem.kind: version`) on the conversation's own internal partition. Offsets, per partition, are
committed only up to the oldest message of a conversation not yet reported (the low watermark of open
state), so a crash or rebalance re-reads what was in flight and nothing is lost. A reported
conversation keeps holding its offsets for `windows.late_grace_s`, so late spans — or a new owner
after a crash — re-score it whole. On assign, each partition is re-read up to where it ended at
assignment before any conversation with spans on it may close (end marker, inactivity or age), so a
re-read conversation is rebuilt whole, with its link messages and its earlier owner's version notes,
and its next report continues the versions (monotonic across owners). If open conversations reach the
pause threshold first, the wait is cut short (`kafka_re_reads_cut_short`) rather than wedge the stage.
A link message holds its offset for `late_grace_s` too: an ingest replica killed before its commit
sends a trace's early spans again, and whoever reads them must have read the link. A report always
covers every span seen so far, so consumers keep, per key, the report with the most `aem.spans`, then
the highest `aem.version`, then the last one — and none for a key when the report so chosen is of a
lower version than one carrying `aem.merged_into` (`monitor.report.latest_reports` is that rule). On
revoke: commit what is safe, drop the revoked partitions' open conversations (the new owner re-reads
them), their held offsets and their lag gauges; on assign: re-read past the commit (conversations this
replica reported and still keeps stay known: their spans read again count as duplicates, and hold their
offsets again for `late_grace_s`, as a new owner's report would, so a trace reported alone may still be
merged). On
shutdown, open conversations are not flushed (that would report them cut): what is safe is
committed, and the partition's next owner rebuilds and reports them. When open
conversations reach `kafka.pause_at_open` of `windows.max_open`, the input partitions are paused until
half of that drains. Consumer lag is exported for owned partitions only.

Manual commits only (`enable.auto.commit=false`), cooperative-sticky assignment, idempotent
producer; any librdkafka setting passes through from `kafka.librdkafka` (values are secrets).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer as _Consumer
from confluent_kafka import KafkaError, KafkaException, Message, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from monitor.assemble.history import history_keys, system_key
from monitor.assemble.windows import remember
from monitor.config import KafkaConfig, NormalizeConfig
from monitor.decode.otlp import decode_logs_request, decode_request
from monitor.errors import InputError
from monitor.model import AgentSpan, within
from monitor.runtime.offsets import OffsetTracker
from monitor.runtime.pipeline import Pipeline, normalize_spans

log = logging.getLogger(__name__)
BATCH = 500  # messages taken per consume() call
HEADER_ROOM = 64 * 1024  # a dead letter's headers (an error of at most 2,000 bytes, its origin) and framing
LAG_EVERY_S = 5.0
#: a copy of a model call whose call the ingest has not read waits under `trace:call-<response id>`
#: for the link its call's route sends there (`ScoreStage._follow_link`)
CALL_KEY = "call-"
#: a model call's second recording (`AgentSpan.lone_call`) waits under `trace:lone-<digest>` for the link its
#: call's named recording sends there (`IngestStage._second_recordings`, `ScoreStage._decide_lone`)
LONE_KEY = "lone-"
#: how many agents (`history.system_key`) the ingest keeps as seen with lone and with named model calls
SYSTEMS_KEPT = 1024
ROUTE_WAIT_S = 60.0  # a trace routed by its opening waits this long for its link to come back
_LONE_LINKS = 32  # the named calls' links kept per second recordings' key (one call many users make alike)


def client_config(config: KafkaConfig, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"bootstrap.servers": config.bootstrap_servers}
    base.update({k: v.get_secret_value() for k, v in config.librdkafka.items()})
    base.update(extra)
    return base


def ensure_topics(config: KafkaConfig) -> None:
    """Create the internal, results and dead-letter topics if missing (input topics are the fleet's)."""
    admin = AdminClient(client_config(config))
    existing = set(admin.list_topics(timeout=10).topics)
    wanted = [
        NewTopic(config.internal_topic, config.internal_partitions, 1),
        NewTopic(config.results_topic, config.internal_partitions, 1),
        NewTopic(config.dead_letter_topic, 1, 1, config={"max.message.bytes": str(_produce_limit(config))}),
    ]
    missing = [t for t in wanted if t.topic not in existing]
    if missing:
        for future in admin.create_topics(missing).values():
            try:
                future.result()
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise


class IngestStage:
    def __init__(self, config: KafkaConfig, replica: str, stats: Any, normalize: NormalizeConfig) -> None:
        self.config = config
        self.stats = stats
        self.normalize = normalize
        self.consumer, self.producer = _clients(config, config.ingest_group, f"{replica}-ingest")
        self.trace_owner: OrderedDict[str, str] = OrderedDict()  # a trace here named for the first time: link
        # a model call's response id -> its trace, start and end (`_key`)
        self.calls: OrderedDict[str, tuple[str, int, int]] = OrderedDict()
        # the agents (`system_key`) whose lone model calls, and whose named ones, this replica has read; a
        # lone call's trace -> the key it went under (`_second_recordings`)
        self.lone_systems: OrderedDict[bytes, None] = OrderedDict()
        self.named_systems: OrderedDict[bytes, None] = OrderedDict()
        self.lone_traces: OrderedDict[str, str] = OrderedDict()
        self._last_commit = time.monotonic()
        self._pending = False

    def run(self, stop: threading.Event) -> None:
        topics = [self.config.input_topic, *([self.config.logs_topic] if self.config.logs_topic else [])]
        self.consumer.subscribe(topics, on_revoke=self._on_revoke)
        try:
            while not stop.is_set():
                for msg in self.consumer.consume(num_messages=BATCH, timeout=0.5):
                    self._handle(msg)
                self._maybe_commit()
            self._commit()
        finally:
            self.consumer.close()

    def _handle(self, msg: Message) -> None:
        if not _usable(msg, "ingest"):
            return
        self._pending = True
        try:
            self._repartition(msg)
        except Exception as exc:  # one message must never stop the stage (a restart would meet it again)
            _count(self.stats, "pipeline_errors:kafka")
            dead_letter(
                self.producer, self.config, msg, f"ingest failed: {type(exc).__name__}: {exc}", self.stats
            )

    def _repartition(self, msg: Message) -> None:
        origin = f"{msg.topic()}/{msg.partition()}@{msg.offset()}"
        value = msg.value() or b""
        if len(value) > self.config.max_message_bytes:
            error = f"message of {len(value)} bytes exceeds kafka.max_message_bytes"
            dead_letter(self.producer, self.config, msg, error, self.stats)
            return
        try:
            decode = decode_logs_request if msg.topic() == self.config.logs_topic else decode_request
            decoded = decode(value, _content_type(self.config.input_encoding, value), origin)
        except InputError as exc:
            dead_letter(self.producer, self.config, msg, exc.message, self.stats)
            return
        if decoded.unreadable:  # the rest of the message goes on; a copy names the spans not used
            _count(self.stats, "spans_rejected_unreadable", len(decoded.unreadable))
            error = (
                f"{len(decoded.unreadable)} spans not used (the rest was processed): {decoded.unreadable[0]}"
            )
            dead_letter(self.producer, self.config, msg, error, self.stats)
        named = normalize_spans(
            decoded.spans, self.normalize, lambda stage, exc: _count(self.stats, f"pipeline_errors:{stage}")
        )
        # traces with spans besides a root copy in this request: such a copy stays with them (`_key`)
        busy = {n.span.trace_id for n in named if n.span.parent_span_id or not n.call_copy}
        for n in named:  # learn which conversation each trace belongs to, and its calls, before keying
            if n.conversation_id:
                if n.span.trace_id not in self.trace_owner:
                    self._link(n.span.trace_id, n.conversation_id)
                remember(self.trace_owner, n.span.trace_id, n.conversation_id)
            unnamed = not n.conversation_id and n.span.trace_id not in self.trace_owner
            if n.response_id is not None and not n.call_copy and unnamed:  # copies follow unnamed calls
                remember(self.calls, n.response_id, n.when)
        self._second_recordings(named)
        # end markers last: one conversation's spans keep their order on its partition, so its marker
        # reaches the score stage after the rest of the request it came with
        for n in sorted(named, key=lambda n: n.end_marker):
            key = self._key(n, busy)
            if not n.conversation_id:
                n = n.model_copy(update={"conversation_id": key})
            self.producer.produce(
                self.config.internal_topic, key=key.encode(), value=n.model_dump_json(by_alias=True).encode()
            )
        self.producer.poll(0)
        _count(self.stats, "kafka_spans_repartitioned", len(named))

    def _key(self, span: AgentSpan, busy: set[str]) -> str:
        """Its conversation, else its trace's (named here), else `trace:<id>`. A copy of a model call
        (`call_copy`: a provider SDK's own span, metadata only) that is its trace's root, with no other
        span of its trace in the request, goes with its call's trace when this replica has read that call,
        in the same request or before; else to `trace:call-<response id>`, where the call's trace sends a
        link when it is sent on (`ScoreStage._route_copies`). Either way it reaches its call's partition,
        where the score stage joins it by the response id both carry, as `run` does."""
        trace_id = span.span.trace_id
        named = span.conversation_id or self.trace_owner.get(trace_id)
        if named:
            return named
        lone = self.lone_traces.get(trace_id)
        if lone is not None:  # a second recording's trace waits for its call's link (`_second_recordings`)
            return lone
        if not span.call_copy or span.span.parent_span_id or trace_id in busy:
            return f"trace:{trace_id}"
        call = self.calls.get(span.response_id or "")
        if call is not None and span.same_call(call):
            return self.trace_owner.get(call[0]) or f"trace:{call[0]}"
        return f"trace:{CALL_KEY}{span.response_id}"  # to meet its call's route (`ScoreStage._follow_link`)

    def _second_recordings(self, spans: list[AgentSpan]) -> None:
        """One model call recorded whole twice, by instrumentations whose spans do not nest (Phoenix's
        `auto_instrument` with LangChain and the OpenAI SDK): the framework's recording is in its turn's
        trace, named; the SDK's is an unnamed trace of its own (`AgentSpan.lone_call`), keyed apart from its
        conversation. Once this replica has read an agent's (`system_key`) lone calls and named ones, each
        lone call goes under `trace:lone-<digest of all it saw and answered>`, and each named call alike
        sends a link there with its conversation and its time: the lone call within that time goes on to
        the conversation (`ScoreStage._decide_lone`), where it is read once, as in `run`; one no link
        claims is routed by its opening after a short wait, as any unnamed trace. An agent's named calls
        cost a digest and a link each only once this replica has read an unnamed model call of that agent
        that is its trace's root. An agent's calls a replica reads before it has seen both kinds (in
        separate requests: its first, or after a restart) stay under their trace's key, and so do a
        trace's spans read before its lone root."""
        lone = {
            n.span.span_id: system_key(n)
            for n in spans
            if n.lone_call
            and n.span.trace_id not in self.trace_owner
            and (n.input_messages or n.output_messages)
        }
        for system in lone.values():
            remember(self.lone_systems, system, None, SYSTEMS_KEPT)
        if not self.lone_systems:
            return
        for n in spans:
            cid = n.conversation_id or self.trace_owner.get(n.span.trace_id)
            if n.kind != "llm" or not cid or not (n.input_messages or n.output_messages):
                continue
            system = system_key(n)
            remember(self.named_systems, system, None, SYSTEMS_KEPT)
            digest = history_keys(n).call if system in self.lone_systems else None
            if digest is not None:
                produce_link(self.producer, self.config, f"{LONE_KEY}{digest.hex()}", cid, call=n.when)
        for n in spans:
            if lone.get(n.span.span_id) in self.named_systems:
                digest = history_keys(n).call
                if digest is not None:
                    remember(self.lone_traces, n.span.trace_id, f"trace:{LONE_KEY}{digest.hex()}")

    def _link(self, trace_id: str, conversation_id: str) -> None:
        """Tell whoever holds `trace:<id>` spans (from this or another ingest replica) whose they are."""
        produce_link(self.producer, self.config, trace_id, conversation_id)

    def _on_revoke(self, consumer: Any, partitions: list[TopicPartition]) -> None:
        """Commit what was repartitioned before the partitions move: a new owner re-reading it would
        send spans again, keyed by a trace it has not seen named (their link long passed)."""
        if not self._pending or self.producer.flush(30):
            return
        try:
            consumer.commit(asynchronous=False)
            self._pending = False
        except KafkaException as exc:
            log.warning("ingest commit on revoke failed: %s", exc)

    def _maybe_commit(self) -> None:
        if self._pending and time.monotonic() - self._last_commit >= self.config.commit_interval_s:
            self._commit()

    def _commit(self) -> None:
        if not self._pending:
            return
        remaining = self.producer.flush(30)  # outputs first, then offsets: nothing consumed is lost
        if remaining:
            log.warning("ingest: %d spans not yet delivered; offsets not committed", remaining)
            return
        try:
            self.consumer.commit(asynchronous=False)
        except KafkaException as exc:
            log.warning("ingest commit failed (will retry): %s", exc)
            return
        self._pending = False
        self._last_commit = time.monotonic()


def produce_link(
    producer: Producer,
    config: KafkaConfig,
    trace_id: str,
    owner: str,
    call: tuple[str, int, int] | None = None,
    at: str | None = None,
) -> None:
    """A link message on `trace:<id>`'s partition (or on `at`'s, where the trace's spans wait): that trace's
    spans belong to `owner` (a conversation id, or a `history:` route), whoever reads them there. With
    `call` (a model call's `when`), on a `lone-` key: the second recordings within that call's time do
    (`ScoreStage._decide_lone`)."""
    link: dict[str, Any] = {"trace_id": trace_id, "conversation_id": owner}
    if call is not None:
        link["call"] = list(call)
    producer.produce(
        config.internal_topic, key=(at or f"trace:{trace_id}").encode(), value=json.dumps(link).encode(),
        headers=[("aem.kind", b"link")],
    )  # fmt: skip


def dead_letter(producer: Producer, config: KafkaConfig, msg: Message, error: str, stats: Any) -> None:
    """The message, as it was, to `kafka.dead_letter_topic`, with where it came from and why. One over
    `kafka.max_message_bytes` goes without its value (the headers locate the original), so every dead
    letter fits the producer's limit."""
    value = msg.value() or b""
    headers: list[tuple[str, str | bytes | None]] = [
        ("aem.error", error[:2000].encode()), ("aem.source.topic", str(msg.topic()).encode()),
        ("aem.source.partition", str(msg.partition()).encode()), ("aem.source.offset", str(msg.offset()).encode()),
        ("aem.source.bytes", str(len(value)).encode()),
    ]  # fmt: skip
    if len(value) > config.max_message_bytes:
        value = b""
    producer.produce(config.dead_letter_topic, key=msg.key(), value=value, headers=headers)
    _count(stats, "kafka_dead_letters")


def _count(stats: Any, key: str, n: int = 1) -> None:
    stats[key] = stats.get(key, 0) + n


class ScoreStage:
    """The score stage: the internal topic into one `Pipeline`, reports out; which offsets are safe to
    commit is `OffsetTracker`'s (monitor/runtime/offsets.py). It talks to the pipeline through its
    methods only."""

    def __init__(self, config: KafkaConfig, replica: str, pipeline: Pipeline) -> None:
        self.config = config
        self.replica = replica
        self.pipeline = pipeline
        # a trace keyed by its id lives on its own partition, which may move to another replica: only the
        # traces routed here by their opening (all of their conversation's traces are on that partition)
        # are joined by history, as `run` joins them
        pipeline.store.join_by_history = lambda trace_id: trace_id in self.routed
        pipeline.store.join_after_watermark = True
        pipeline.store.keeps_alone = self._still_held
        # a trace of a call's copies joins that call's trace only where it was read under that trace's key
        # or `trace:call-<response id>` (the ingest's `_key`), or sent on with it by a link
        pipeline.store.join_copies = lambda trace_id: trace_id in self.routed or trace_id in self.call_copies
        self.consumer, self.producer = _clients(config, config.score_group, f"{replica}-score")
        self.offsets = OffsetTracker(pipeline.config.windows.late_grace_s)
        self.links: OrderedDict[str, str] = OrderedDict()  # trace id -> conversation, from link messages
        self.routed: OrderedDict[str, str] = OrderedDict()  # trace id -> `history:` key it was read under
        # a call copy's trace -> its call's trace key, and a second recording's -> its `trace:lone-` key: both
        # are read under a key not their trace's (`copy_of` in `_span`)
        self.call_copies: OrderedDict[str, str] = OrderedDict()
        # `trace:call-<response id>` -> the copies' traces waiting there for their call's link
        self.waiting_copies: OrderedDict[str, list[str]] = OrderedDict()
        # second recordings (`_decide_lone`):
        # `lone-<digest>` -> the named calls' links read there: (conversation, the call's `when`, the link's
        # partition and offset; held while a recording it may claim waits)
        self.lone_links: OrderedDict[str, list[tuple[str, tuple[str, int, int], int, int]]] = OrderedDict()
        # a second recording's trace -> its lone call's `when`
        self.lone_waiting: OrderedDict[str, tuple[str, int, int]] = OrderedDict()
        # a second recording's trace, not decided yet -> when it is due (monotonic s)
        self.lone_due: OrderedDict[str, float] = OrderedDict()
        self.lone_extended: OrderedDict[str, None] = OrderedDict()  # those that waited longer: no link came
        # trace id -> when its route was sent (monotonic s), its link not yet read back
        self.routing: OrderedDict[str, float] = OrderedDict()
        self.unroutable: OrderedDict[str, str] = OrderedDict()  # unnamed traces that show no opening
        # traces to route by their opening once the pipeline's lock is free (True: it would close now)
        self._to_route: dict[str, bool] = {}
        self.paused = False
        self._joined: list[tuple[str, list[AgentSpan]]] = []  # copies to send once the batch is in
        self._last_commit = time.monotonic()
        self._lock = threading.Lock()  # the tracker, between the poll loop and the metrics thread
        pipeline.attach(sink=self._publish, on_close=self._closed, hold=self._hold, on_join=self._copy_joined)

    def run(self, stop: threading.Event, tick: Callable[[], None]) -> None:
        self.consumer.subscribe(
            [self.config.internal_topic],
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_lost,
        )
        last_tick = last_lag = 0.0
        try:
            while not stop.is_set():
                self._feed(self.consumer.consume(num_messages=BATCH, timeout=0.2))
                if time.monotonic() - last_tick >= self.pipeline.config.server.tick_s:
                    tick()
                    self._decide_lone(time.monotonic())
                    self._send_routes()
                    last_tick = time.monotonic()
                    self._backpressure()
                if time.monotonic() - last_lag >= LAG_EVERY_S:
                    self._lag()
                    last_lag = time.monotonic()
                if time.monotonic() - self._last_commit >= self.config.commit_interval_s:
                    self._commit()
            # no flush of open conversations: reported now they would be cut (and a `trace:` one a
            # fragment); their offsets stay uncommitted, so the partition's next owner rebuilds them whole
            self._commit()
        finally:
            self.producer.flush(30)
            self.consumer.close()

    def _feed(self, messages: list[Message]) -> None:
        """One consumed batch into the pipeline at once, so an end marker closes its conversation only
        after the rest of the batch (its request) is in; links and version notes apply in order."""
        spans: list[AgentSpan] = []
        batch: set[str] = set()  # conversations with spans in `spans`, not yet in the window store
        for msg in messages:
            if not _usable(msg, "score"):
                continue
            partition, offset = msg.partition(), msg.offset()
            assert partition is not None and offset is not None, (
                "a consumed message has a partition and offset"
            )
            headers = dict(msg.headers() or [])
            header = headers.get("aem.kind")
            kind = header.encode() if isinstance(header, str) else header
            try:
                if kind is not None:
                    self._ingest(spans)  # what came before a link or note is in before it applies
                    spans, batch = [], set()
                    self._control(kind, msg.value() or b"", partition, offset)
                else:
                    span = self._span(msg, partition, offset, bool(headers.get("aem.copy")), batch)
                    if span is not None:
                        spans.append(span)
                        batch.add(span.conversation_id or f"trace:{span.span.trace_id}")
            except Exception as exc:  # a message the stage cannot use: dead-lettered, never a crash loop
                _count(self.pipeline.stats, "pipeline_errors:kafka")
                dead_letter(
                    self.producer, self.config, msg, f"{type(exc).__name__}: {exc}", self.pipeline.stats
                )
            with self._lock:
                self.offsets.read(partition, offset)
        self._ingest(spans)
        self._decide_lone(time.monotonic())  # once the whole batch is read: its links too
        with self._lock:
            for partition in self.offsets.tidy(self.pipeline.is_open, self.pipeline.knows, time.monotonic()):
                log.info("score: partition %d re-read to its end; its conversations may close", partition)

    def _ingest(self, spans: list[AgentSpan]) -> None:
        if spans:
            self.pipeline.ingest_spans(spans)
        joined, self._joined = self._joined, []  # produced here, not under the pipeline's lock
        for conversation_id, copies in joined:
            self._forward(copies, conversation_id, copy=True)
        self._send_routes()

    def _span(
        self, msg: Message, partition: int, offset: int, copy: bool, batch: set[str]
    ) -> AgentSpan | None:
        span = AgentSpan.model_validate_json(msg.value() or b"")  # unreadable: raises, dead-lettered
        cid = span.conversation_id or f"trace:{span.span.trace_id}"
        if copy and cid not in batch and not self.pipeline.knows(cid):
            # a copy of a span already reported with its conversation, read back after the window store
            # forgot it: taken as a late span it would report a fragment under a higher version
            self.pipeline.stats["kafka_copies_already_reported"] += 1
            return None
        if cid.startswith("history:"):  # routed here by its opening: unnamed, joined by history as in `run`
            remember(self.routed, span.span.trace_id, cid)
            span = span.model_copy(update={"conversation_id": None})
            cid = f"trace:{span.span.trace_id}"  # its offsets pass to the conversation it joins (on_join)
        elif cid.startswith("trace:"):  # keyed by its trace: its conversation may be known by now
            copy_of = cid[6:] != span.span.trace_id  # a call's copy, keyed to its call (`IngestStage._key`)
            if copy_of:  # delivered again after it joined its call here: where that call went
                cid = self.pipeline.followed(span.span.trace_id) or cid
            lone = cid[6:].startswith(LONE_KEY)
            if lone and span.kind == "llm" and not span.span.parent_span_id:  # a second recording: it waits
                remember(self.lone_waiting, span.span.trace_id, span.when)
                if span.span.trace_id not in self.links and span.span.trace_id not in self.routing:
                    self.lone_due.setdefault(span.span.trace_id, time.monotonic() + self._lone_wait())
                    with self._lock:  # the links read before it that may claim it are held while it waits
                        for _, call, at_partition, at in self.lone_links.get(cid[6:], []):
                            if span.within(call):
                                self.offsets.held_with(f"trace:{span.span.trace_id}", at_partition, at)
            # a second recording's trace goes where it was sent (`_decide_lone`), a copy where its call went
            owner = self.links.get(span.span.trace_id if lone else cid[6:])
            if lone and owner is not None:
                second = not owner.startswith("history:")
                self._forward([span.model_copy(update={"conversation_id": None})], owner, second=second)
                return None
            if owner is not None and not (copy_of and self.pipeline.knows(f"trace:{span.span.trace_id}")):
                # named by a link: on to its conversation's partition (a copy reported alone here stays so)
                self._forward([span], owner)
                self._route_copies([span], owner)
                return None
            if copy_of:
                remember(self.call_copies, span.span.trace_id, cid)
                waiting = self.waiting_copies.get(cid, [])
                if cid[6:].startswith(CALL_KEY) and span.span.trace_id not in waiting and len(waiting) < 16:
                    remember(self.waiting_copies, cid, [*waiting, span.span.trace_id])  # (a call has few)
                cid = f"trace:{span.span.trace_id}"  # held as its own until it joins the call (`on_join`)
            elif not span.span.parent_span_id:  # its root is in: unnamed still, it may be routed now
                self._to_route.setdefault(span.span.trace_id, False)
            # unnamed for the window store too, so it joins its trace's conversation if one here named
            # it (and is copied to that conversation's partition: `_copy_joined`)
            span = span.model_copy(update={"conversation_id": None})
            if self.pipeline.names_trace(span.span.trace_id):
                return span  # its offset is safe once the copy is flushed, as every commit does first
        with self._lock:
            self.offsets.opened(cid, partition, offset)
        return span

    def _control(self, kind: bytes, value: bytes, partition: int, offset: int) -> None:
        data = json.loads(value)
        if kind == b"link":
            held = f"link:{data['trace_id']}"
            if "call" in data:  # a named call's, to its second recordings' key: one per call
                trace_id, start, end = data["call"]
                key = str(data["trace_id"])
                call = (str(trace_id), int(start), int(end))
                links = [
                    *self.lone_links.get(key, []),
                    (str(data["conversation_id"]), call, partition, offset),
                ]
                remember(self.lone_links, key, links[-_LONE_LINKS:])
                held += f":{trace_id}"
                with self._lock:  # held while a recording it may claim waits: a re-reader must read it
                    for waiting in self.lone_due:
                        when = self.lone_waiting.get(waiting)
                        if self.call_copies.get(waiting) == f"trace:{key}" and when and within(when, call):
                            self.offsets.held_with(f"trace:{waiting}", partition, offset)
            else:
                self._follow_link(str(data["trace_id"]), str(data["conversation_id"]))
            # a link is held like a reported conversation: an ingest replica killed before its commit
            # sends the trace's early spans again, and whoever re-reads them must re-read the link too
            with self._lock:
                self.offsets.hold(held, partition, offset, time.monotonic())
        elif kind == b"version":  # a report of this conversation, by this or an earlier owner
            merged = data.get("merged_into")
            self.pipeline.note_version(
                str(data["conversation_id"]), int(data["version"]), str(merged) if merged else None
            )
        else:
            raise ValueError(f"unknown aem.kind {kind!r}")

    def _follow_link(self, trace_id: str, owner: str) -> None:
        """`trace_id`'s spans belong to `owner` (a conversation, or a `history:` route): what of it is held
        here goes on there, and so will what comes. A second recording's (`lone_waiting`) first decision is
        the one followed (`_decide_lone`): a later one, read back or re-read, changes nothing."""
        self.routing.pop(trace_id, None)
        if trace_id in self.lone_waiting:  # a second recording's decision (`_decide_lone`): the first one
            self.lone_due.pop(trace_id, None)
            if trace_id in self.links:
                return
        named = self.links.get(trace_id)
        if owner.startswith("history:") and named is not None and not named.startswith("history:"):
            return  # named meanwhile: a name beats a route
        remember(self.links, trace_id, owner)
        waiting = self.waiting_copies.pop(f"trace:{trace_id}", [])  # copies of a call routed to `owner`
        # a second recording's trace goes on to its call's conversation as one (`_decide_lone`)
        second = trace_id in self.lone_waiting and not owner.startswith("history:")
        for key in [f"trace:{trace_id}", *(f"trace:{t}" for t in waiting)]:
            held = self.pipeline.take(key)
            if held:
                self._forward(held, owner, second=second)
                with self._lock:  # its offsets are released once the forwarded copies are flushed (_commit)
                    self.offsets.forget(key)
                self._route_copies(held, owner)

    def _decide_lone(self, now: float) -> None:
        """Each second recording (`IngestStage._second_recordings`) whose wait is over is decided on the links
        read, at the end of a consumed batch (or a tick), never in the middle of one, whose next message
        may be its link. The wait: `windows.second_recording_wait_s` of this replica's reading (at most
        half of `inactivity_s`), again after a pause, not over while its partition is re-read; one no link
        holds yet waits on, once, to half of `inactivity_s` (its agent's calls are recorded twice, so its
        call's link is late: an ingest replica behind). Then it goes on to the conversation of the one named
        call whose link holds it in time (`_lone_links`), marked a second recording; with none, or two
        conversations' (two users' alike calls at once), it is routed by its opening, as an unnamed trace is
        (with no opening shown, it is reported alone). Counted: `kafka_second_recordings_sent`, `_routed`.
        The decision is a link on its key's partition too, for whoever reads it next (after a rebalance):
        the first one there is followed (`_follow_link`), so every reader sends it where the first did."""
        if self.paused:  # no link can be read meanwhile (it is held: `_hold`)
            return
        for trace_id in [t for t, at in self.lone_due.items() if at <= now]:
            del self.lone_due[trace_id]
            with self._lock:
                re_reading = self.offsets.re_reading(f"trace:{trace_id}")
            if re_reading:  # its links, or an earlier owner's decision, may still be behind: wait again
                self.lone_due[trace_id] = now + self._lone_wait()
                continue
            key = self.call_copies.get(trace_id, "")
            if not key.startswith(f"trace:{LONE_KEY}"):
                continue
            links = self._lone_links(key[6:], trace_id)
            if not links and trace_id not in self.lone_extended:  # its agent's calls are recorded twice (the
                # ingest keyed it so): its call's link is late (an ingest replica behind): wait longer, once
                remember(self.lone_extended, trace_id, None)
                longer = self.pipeline.config.windows.inactivity_s / 2 - self._lone_wait()
                if longer > 0:
                    self.lone_due[trace_id] = now + longer
                    continue
            owner = links.pop() if len(links) == 1 else None
            stat = "kafka_second_recordings_sent" if owner is not None else "kafka_second_recordings_routed"
            owner = owner or self.pipeline.opening(f"trace:{trace_id}")
            if owner is not None:
                produce_link(self.producer, self.config, trace_id, owner, at=key)
                self._follow_link(trace_id, owner)
                self.pipeline.stats[stat] += 1

    def _lone_wait(self) -> float:
        windows = self.pipeline.config.windows
        return min(windows.second_recording_wait_s, windows.inactivity_s / 2)

    def _lone_links(self, key: str, trace_id: str) -> set[str]:
        """The conversations of the named calls of `lone-<digest>` whose time holds the second recording
        `trace_id`: one is its call's; two are two users' alike calls at once (it cannot say whose)."""
        when = self.lone_waiting.get(trace_id)
        return {
            owner
            for owner, call, *_ in self.lone_links.get(key, [])
            if when is not None and within(when, call)
        }

    def _route_copies(self, spans: list[AgentSpan], owner: str) -> None:
        """The model calls among spans sent on to `owner`: a link to `trace:call-<response id>` for each,
        where the ingest keys those calls' copies it read apart from them (`IngestStage._key`), so they
        follow to `owner` and join their call there by the response id. Only calls that are their
        trace's root: under a span of the application's, the SDK's copies are children, not traces."""
        for s in spans:  # a copy is a trace of its own only where nothing encloses its call
            if s.response_id is not None and not s.call_copy and not s.span.parent_span_id:
                produce_link(self.producer, self.config, f"{CALL_KEY}{s.response_id}", owner)

    def _forward(self, spans: list[AgentSpan], owner: str, copy: bool = False, second: bool = False) -> None:
        """Spans on to their conversation's partition; `copy`: of spans this replica already holds; `second`:
        a second recording's trace, its lone model call marked so (`AgentSpan.second_recording`)."""
        headers: list[tuple[str, str | bytes | None]] | None = [("aem.copy", b"1")] if copy else None
        for s in spans:
            update = {"conversation_id": owner, "second_recording": second and s.lone_call}
            value = s.model_copy(update=update).model_dump_json(by_alias=True).encode()
            for _ in range(60):
                try:
                    self.producer.produce(
                        self.config.internal_topic, key=owner.encode(), value=value, headers=headers
                    )
                    break
                except BufferError:  # the producer's queue is full: let it deliver, then retry
                    self.producer.poll(0.5)
            else:
                raise BufferError(f"producer queue full for 30 s; {owner!r} not forwarded")
        self.producer.poll(0)
        self.pipeline.stats["kafka_spans_forwarded"] += len(spans)

    def _copy_joined(self, conversation_id: str, spans: list[AgentSpan]) -> None:
        """Spans read under their trace's key joined the conversation that named the trace here: copies
        go to the conversation's own partition, so every span of a conversation is on that partition
        and whoever owns it next rebuilds the conversation whole (re-read copies are dropped by span
        id; one read back after its conversation was reported and forgotten is dropped). Joined in
        memory only, a moved conversation came back without them. Sent after the batch is in, outside
        the pipeline's lock. A trace joined by its history (`conversation_id` is `trace:<id>`) is on
        that partition already (routed there by its opening): its offsets are held while it is open."""
        if conversation_id.startswith("trace:"):
            with self._lock:
                for trace_id in {s.span.trace_id for s in spans}:
                    self.offsets.merge(f"trace:{trace_id}", conversation_id)
            return
        self._joined.append((conversation_id, list(spans)))

    def _hold(self, conversation_id: str) -> bool:
        """Not closable yet: being re-read (`_re_reading`), or an unnamed trace about to be routed by its
        opening (decided once the pipeline's lock is free, `_send_routes`) or whose route is on its way, or
        a second recording not decided yet (`_decide_lone`)."""
        trace_id = conversation_id[6:] if conversation_id.startswith("trace:") else None
        if trace_id in self.lone_due:  # a second recording, not decided yet (paused too: they are few)
            return True
        if (
            trace_id is not None
            and not self.paused  # paused, its link cannot be read back: holding it would wedge the stage
            and not any(trace_id in t for t in (self.routed, self.unroutable, self.links))
        ):
            sent = self.routing.get(trace_id)
            if sent is None:
                self._to_route[trace_id] = True
                return True
            if time.monotonic() - sent < ROUTE_WAIT_S:
                return True
            # its link never came back (not delivered): reported alone rather than held for ever
        return self._re_reading(conversation_id)

    def _send_routes(self) -> None:
        """Route each unnamed trace whose root came (or that would close) by its opening: a link to
        `history:<digest>` on its own partition, read back like a name's link, sends its spans to the
        partition where every trace of its conversation goes, so one replica joins them by history. The
        decision is in the log, so a replica that re-reads the partition follows it. A trace that shows no
        opening is reported alone, as before."""
        pending, self._to_route = self._to_route, {}
        for trace_id, closing in pending.items():
            if trace_id in self.routing or trace_id in self.links or trace_id in self.routed:
                continue
            key = self.pipeline.opening(f"trace:{trace_id}")
            if key is None:
                if closing:
                    remember(self.unroutable, trace_id, "")
                continue
            remember(self.routing, trace_id, time.monotonic())
            # a second recording no call claimed is routed from where it waits (`_decide_lone`)
            held = self.call_copies.get(trace_id, "")
            produce_link(self.producer, self.config, trace_id, key, at=held if LONE_KEY in held else None)
            self.pipeline.stats["kafka_traces_routed_by_history"] += 1

    def _re_reading(self, conversation_id: str) -> bool:
        """A conversation with spans on a partition not yet re-read to where it ended when this replica
        got it must not close: the rest of it (and its earlier owner's version) may still be behind."""
        with self._lock:
            return self.offsets.re_reading(conversation_id)

    def _still_held(self, conversation_id: str) -> bool:
        """A trace reported alone joins the conversation it continues only while its report holds its
        offsets (`late_grace_s`, its partition still this replica's): they pass to that conversation
        (`offsets.merge`). Joined later, a new owner could rebuild that conversation without it while
        consumers drop the id it was reported under; so it stays the conversation it was reported as."""
        with self._lock:
            return self.offsets.holds(conversation_id, time.monotonic())

    def _closed(self, conversation_id: str) -> None:
        """A reported conversation keeps its first offsets for `late_grace_s`: a late span, or a new owner
        after a crash or rebalance, then re-reads the whole conversation instead of only what came after."""
        with self._lock:
            self.offsets.closed(conversation_id, time.monotonic())
        if conversation_id.startswith("trace:"):  # a second recording reported alone (evicted)
            self.lone_due.pop(conversation_id[6:], None)

    def _publish(self, report: dict[str, Any]) -> None:
        cid, version = str(report["conversation_id"]), int(report.get("version", 1))
        headers: list[tuple[str, str | bytes | None]] = [
            ("aem.version", str(version).encode()),
            ("aem.spans", str(report.get("spans", 0)).encode()),
            ("aem.replica", self.replica.encode()),
        ]
        if report.get("merged_into"):  # this id's spans are in that conversation's report: it retires here
            headers.append(("aem.merged_into", str(report["merged_into"]).encode()))
        self.producer.produce(
            self.config.results_topic, key=cid.encode(),
            value=json.dumps(report, ensure_ascii=False).encode(), headers=headers,
        )  # fmt: skip
        # a note on the conversation's own partition (a joined trace's: where its opening routed it): a
        # later owner re-reading it continues the versions
        route = self.routed.get(cid[6:]) if cid.startswith("trace:") else None
        written: dict[str, Any] = {"conversation_id": cid, "version": version}
        if report.get("merged_into"):  # so a later owner merging it again does not count the merge again
            written["merged_into"] = str(report["merged_into"])
        self.producer.produce(
            self.config.internal_topic, key=(route or cid).encode(), value=json.dumps(written).encode(),
            headers=[("aem.kind", b"version")],
        )  # fmt: skip
        self.producer.poll(0)

    def _commit(self, only: set[int] | None = None) -> None:
        self._last_commit = time.monotonic()
        if self.producer.flush(30):  # reports and forwarded copies out before their inputs are released
            return
        with self._lock:
            offsets = self.offsets.to_commit(self.pipeline.is_open, time.monotonic(), only)
        if not offsets:
            return
        try:
            self.consumer.commit(
                offsets=[TopicPartition(self.config.internal_topic, p, o) for p, o in offsets.items()],
                asynchronous=False,
            )
        except KafkaException as exc:
            log.warning("score commit failed (will retry): %s", exc)
            return
        with self._lock:
            self.offsets.did_commit(offsets)

    def _on_assign(self, consumer: Any, partitions: list[TopicPartition]) -> None:
        """Re-read each new partition to where it ends now before its conversations may close."""
        try:
            committed = {tp.partition: tp.offset for tp in consumer.committed(partitions, timeout=5)}
        except KafkaException:
            committed = {}
        for tp in partitions:
            try:
                _, end = consumer.get_watermark_offsets(tp, timeout=5, cached=False)
            except KafkaException as exc:
                log.warning(
                    "score: no end offset for partition %d (%s); not waiting to re-read it", tp.partition, exc
                )
                continue
            with self._lock:
                self.offsets.assigned(tp.partition, end, committed.get(tp.partition))
        log.info("score: assigned %s", [p.partition for p in partitions])

    def _on_revoke(self, consumer: Any, partitions: list[TopicPartition]) -> None:
        revoked = {p.partition for p in partitions}
        self._commit(only=revoked)
        self._drop(revoked)
        log.info("score: revoked %s", sorted(revoked))

    def _on_lost(self, consumer: Any, partitions: list[TopicPartition]) -> None:
        self._drop({p.partition for p in partitions})

    def _drop(self, partitions: set[int]) -> None:
        """Forget what the revoked partitions held; their conversations are the new owner's to rebuild."""
        with self._lock:
            gone = self.offsets.revoked(partitions)
            for p in partitions:  # the autoscaler reads lag: a partition this replica no longer owns has none
                self.pipeline.stats.pop(f"kafka_lag:{self.config.score_group}:{p}", None)
        for cid in gone:  # nor are their second recordings this replica's to decide
            self.lone_due.pop(cid[6:], None)
        self.pipeline.drop(gone)

    def _backpressure(self) -> None:
        limit = self.pipeline.config.windows.max_open
        # second recordings held undecided do not count: held while paused, decided once reading resumes,
        # they would keep it paused
        waiting = sum(1 for t in self.lone_due if self.pipeline.is_open(f"trace:{t}"))
        open_now = self.pipeline.open_count() - waiting
        assignment = self.consumer.assignment()
        if not self.paused and open_now >= self.config.pause_at_open * limit and assignment:
            self.consumer.pause(assignment)
            self.paused = True
            self.pipeline.stats["kafka_pauses"] += 1
            with self._lock:  # paused, a re-read cannot finish: stop holding closes, or nothing drains
                cut = self.offsets.stop_re_reading()
            if cut:
                self.pipeline.stats["kafka_re_reads_cut_short"] += 1
                log.warning("score: open conversations at the cap while re-reading; closing without waiting")
        elif self.paused and open_now <= self.config.pause_at_open * limit / 2:
            self.consumer.resume(assignment)
            self.paused = False
            restart = time.monotonic() + self._lone_wait()  # a second recording's wait ran on no reading
            for trace_id in self.lone_due:
                self.lone_due[trace_id] = max(self.lone_due[trace_id], restart)

    def _lag(self) -> None:
        for tp in self.consumer.assignment():
            try:
                # cached: the high watermark the fetcher already knows; no broker round trip in the poll loop
                _, high = self.consumer.get_watermark_offsets(tp, cached=True)
            except KafkaException:
                continue
            with self._lock:
                position = self.offsets.position(tp.partition)
            self.pipeline.stats[f"kafka_lag:{self.config.score_group}:{tp.partition}"] = max(
                0, high - position
            )


def _clients(config: KafkaConfig, group: str, client_id: str) -> tuple[_Consumer, Producer]:
    """A stage's consumer (manual commits, cooperative-sticky) and its idempotent producer."""
    consumer = _Consumer(client_config(
        config, **{"group.id": group, "enable.auto.commit": False, "auto.offset.reset": "earliest",
                   "partition.assignment.strategy": "cooperative-sticky", "client.id": client_id},
    ))  # fmt: skip
    settings: dict[str, Any] = {"enable.idempotence": True, "linger.ms": 5}
    if "message.max.bytes" not in config.librdkafka:  # librdkafka's own 1,000,000 would refuse dead letters
        settings["message.max.bytes"] = _produce_limit(config)
    return consumer, Producer(client_config(config, **settings))


def _produce_limit(config: KafkaConfig) -> int:
    """The largest message this process produces: a dead letter of a message it accepted."""
    return config.max_message_bytes + HEADER_ROOM


def _usable(msg: Message, stage: str) -> bool:
    """A consumed message with data; errors other than end-of-partition are logged."""
    error = msg.error()
    if error is None:
        return True
    if error.code() != KafkaError._PARTITION_EOF:
        log.warning("%s consumer: %s", stage, error)
    return False


def _content_type(encoding: str, value: bytes) -> str:
    if encoding == "otlp_json" or (encoding == "auto" and value[:1] in (b"{", b"[")):
        return "application/json"
    return "application/x-protobuf"
