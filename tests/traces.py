"""Exported requests regrouped as exporters send a long turn: a trace's children before its root."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

CONVERSATION_KEYS = ("session.id", "gen_ai.conversation.id")


def split_by_trace(requests: list[bytes]) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """Each conversation's first trace as two requests — its children (which do not name the
    conversation) and then its root — and every later trace as one request, as exporters send them."""
    spans: dict[bytes, list[tuple[Any, Any, Any]]] = {}
    for body in requests:
        for rs in ExportTraceServiceRequest.FromString(body).resource_spans:
            for ss in rs.scope_spans:
                for s in ss.spans:
                    spans.setdefault(s.trace_id, []).append((rs.resource, ss.scope, s))
    conversation: dict[bytes, str] = {}
    for trace_id, members in spans.items():
        for _, _, s in members:
            for kv in s.attributes:
                if kv.key in CONVERSATION_KEYS:
                    conversation[trace_id] = kv.value.string_value

    def request(members: list[tuple[Any, Any, Any]]) -> bytes:
        out = ExportTraceServiceRequest()
        for resource, scope, s in members:
            rs = out.resource_spans.add()
            rs.resource.CopyFrom(resource)
            ss = rs.scope_spans.add()
            ss.scope.CopyFrom(scope)
            ss.spans.add().CopyFrom(s)
        return out.SerializeToString()

    children, roots, rest, seen = [], [], [], set()
    for trace_id in sorted(spans, key=lambda t: min(s.start_time_unix_nano for _, _, s in spans[t])):
        members = spans[trace_id]
        if conversation[trace_id] in seen:
            rest.append(request(members))
            continue
        seen.add(conversation[trace_id])
        unnamed = [m for m in members if not any(kv.key in CONVERSATION_KEYS for kv in m[2].attributes)]
        if unnamed:
            children.append(request(unnamed))
        roots.append(request([m for m in members if m not in unnamed]))
    return children, roots, rest


@dataclass(frozen=True)
class LongTurns:
    """Loadgen traffic written to `gold/` and `traffic/`, regrouped by `split_by_trace`, with the span
    count of each conversation as `replay` reports it."""

    children: list[bytes]
    roots: list[bytes]
    rest: list[bytes]
    replayed_spans: dict[str, int]


def long_turns(directory: Path, *loadgen_args: str) -> LongTurns:
    from monitor.cli import main

    assert main(["loadgen", "--out", str(directory), "--late-fraction", "0", *loadgen_args]) == 0
    out = directory / "replayed.jsonl"
    assert (
        main(["replay", str(directory / "traffic"), "--gold", str(directory / "gold"), "--out", str(out)])
        == 0
    )
    replayed = {r["conversation_id"]: r["spans"] for r in map(json.loads, out.read_text().splitlines())}
    children, roots, rest = split_by_trace(
        [f.read_bytes() for f in sorted((directory / "traffic").glob("*.pb"))]
    )
    return LongTurns(children, roots, rest, replayed)
