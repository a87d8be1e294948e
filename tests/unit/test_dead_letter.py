"""Dead letters always fit what the producer may send: the limit follows `kafka.max_message_bytes`."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import Message

from monitor.config import KafkaConfig
from monitor.runtime.kafka import HEADER_ROOM, dead_letter


class Recorder:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def produce(self, topic: str, **kw: Any) -> None:
        self.sent.append({"topic": topic, **kw})


@pytest.mark.parametrize(
    ("size", "kept"),
    [(10_000, True), (20_000, True), (20_001, False)],  # over the limit: headers only, the original located
)
def test_a_dead_letter_keeps_the_value_only_up_to_the_limit(size: int, kept: bool) -> None:
    config = KafkaConfig(max_message_bytes=20_000)
    msg = Message(topic="otlp_spans", partition=2, offset=41, key=b"k", value=b"x" * size)
    producer, stats = Recorder(), dict[str, int]()
    dead_letter(producer, config, msg, "bad", stats)  # type: ignore[arg-type]
    (sent,) = producer.sent
    headers = dict(sent["headers"])
    assert sent["topic"] == config.dead_letter_topic and stats == {"kafka_dead_letters": 1}
    assert (headers["aem.source.partition"], headers["aem.source.offset"]) == (b"2", b"41")
    assert headers["aem.source.bytes"] == str(size).encode()
    assert len(sent["value"]) == (size if kept else 0)
    assert len(sent["value"]) + sum(len(k) + len(v) for k, v in headers.items()) < 20_000 + HEADER_ROOM
