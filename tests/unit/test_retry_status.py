"""The RESOURCE_EXHAUSTED details the gRPC receiver sends when the scoring queue is full: a real
`google.rpc.Status` carrying a `google.rpc.RetryInfo`, read back with message classes built from the
googleapis definitions (the package itself is not installed; the fields are three)."""

from __future__ import annotations

from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, duration_pb2, message_factory

from monitor.sources.otlp_grpc import retry_status


def _rpc_messages() -> tuple[Any, Any]:
    pool = descriptor_pool.DescriptorPool()
    for dep in (any_pb2, duration_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        dep.DESCRIPTOR.CopyToProto(proto)
        pool.Add(proto)
    f = descriptor_pb2.FileDescriptorProto(
        name="rpc.proto", package="google.rpc", syntax="proto3",
        dependency=["google/protobuf/any.proto", "google/protobuf/duration.proto"],
    )  # fmt: skip
    T = descriptor_pb2.FieldDescriptorProto
    status = f.message_type.add(name="Status")
    status.field.add(name="code", number=1, type=T.TYPE_INT32, label=T.LABEL_OPTIONAL)
    status.field.add(name="message", number=2, type=T.TYPE_STRING, label=T.LABEL_OPTIONAL)
    status.field.add(
        name="details",
        number=3,
        type=T.TYPE_MESSAGE,
        label=T.LABEL_REPEATED,
        type_name=".google.protobuf.Any",
    )
    retry = f.message_type.add(name="RetryInfo")
    retry.field.add(
        name="retry_delay", number=1, type=T.TYPE_MESSAGE, label=T.LABEL_OPTIONAL,
        type_name=".google.protobuf.Duration",
    )  # fmt: skip
    pool.Add(f)
    return (
        message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.Status")),
        message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.RetryInfo")),
    )


def test_retry_status_is_a_status_with_retry_info() -> None:
    status_cls, retry_cls = _rpc_messages()
    status = status_cls.FromString(retry_status(8, "256 conversations are waiting to be scored", 2.5))
    assert status.code == 8 and status.message == "256 conversations are waiting to be scored"
    (detail,) = status.details
    assert detail.type_url == "type.googleapis.com/google.rpc.RetryInfo"
    delay = retry_cls.FromString(detail.value).retry_delay
    assert (delay.seconds, delay.nanos) == (2, 500_000_000)
