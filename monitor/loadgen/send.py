"""Load generator, part 5: where the requests go. I/O: files, OTLP/HTTP, OTLP/gRPC, Kafka.

`write_references` and `write_truth` write what the monitor is checked against; `deliver` writes
requests to a directory (one `.pb` per request, named in delivery order, as `replay` reads them) or
sends them, paced so each leaves when its last span has ended (event time mapped onto the wall clock;
with `paced=False` as fast as the receiver takes them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.errors import InputError
from monitor.loadgen.scenarios import Reference, gold_dialog
from monitor.loadgen.traffic import Request


@dataclass
class Delivered:
    requests: int = 0
    spans: int = 0
    bytes: int = 0
    failed: int = 0


def write_references(references: Iterable[Reference], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w") as f:
        for ref in references:
            f.write(json.dumps(gold_dialog(ref), ensure_ascii=False) + "\n")
            n += 1
    return n


def write_truth(records: Iterable[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def deliver(requests: Iterable[Request], target: str, *, paced: bool, start_ns: int) -> Delivered:
    """`target`: a directory, `http://host:port`, `grpc://host:port` or `kafka://bootstrap/topic`."""
    send, close = _sender(target)
    done = Delivered()
    wall0 = time.time_ns()
    try:
        for r in requests:
            if paced:
                wait = (r.deliver_ns - start_ns) - (time.time_ns() - wall0)
                if wait > 0:
                    time.sleep(wait / 1e9)
            body = r.encode()
            ok = send(body, done.requests)
            done.requests += 1
            done.spans += r.spans
            done.bytes += len(body)
            done.failed += not ok
    finally:
        close()
    return done


def _sender(target: str) -> tuple[Callable[[bytes, int], bool], Callable[[], None]]:
    if target.startswith(("http://", "https://")):
        import httpx

        client = httpx.Client(timeout=30.0)
        url = target.rstrip("/") + ("" if target.rstrip("/").endswith("/v1/traces") else "/v1/traces")

        def post(body: bytes, _: int) -> bool:
            r = client.post(url, content=body, headers={"Content-Type": "application/x-protobuf"})
            return r.status_code < 300

        return post, client.close
    if target.startswith("grpc://"):
        import grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

        channel = grpc.insecure_channel(target.removeprefix("grpc://"))
        stub = trace_service_pb2_grpc.TraceServiceStub(channel)  # type: ignore[no-untyped-call]

        def export(body: bytes, _: int) -> bool:
            try:
                stub.Export(trace_service_pb2.ExportTraceServiceRequest.FromString(body), timeout=30)
            except grpc.RpcError:
                return False
            return True

        return export, channel.close
    if target.startswith("kafka://"):
        from confluent_kafka import Producer

        bootstrap, _, topic = target.removeprefix("kafka://").partition("/")
        if not topic:
            raise InputError(target, "a Kafka target is kafka://bootstrap:port/topic")
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
        errors: list[str] = []

        def produce(body: bytes, _: int) -> bool:
            producer.produce(
                topic, value=body, on_delivery=lambda err, _m: errors.append(str(err)) if err else None
            )
            producer.poll(0)
            return True

        def flush() -> None:
            producer.flush(30)
            if errors:
                raise InputError(target, f"{len(errors)} messages not delivered, first: {errors[0]}")

        return produce, flush
    directory = Path(target)
    directory.mkdir(parents=True, exist_ok=True)

    def write(body: bytes, n: int) -> bool:
        (directory / f"{n:07d}.pb").write_bytes(body)
        return True

    return write, lambda: None
