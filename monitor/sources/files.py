"""File source for `replay`: recorded OTLP files → payloads. I/O (reads files), nothing else.

Accepts `.pb` (one protobuf ExportTraceServiceRequest, as an SDK exporter sends it), `.json` (one
OTLP/JSON request), `.jsonl` (one OTLP/JSON request per line — the Collector's file exporter format),
each optionally gzip-compressed (`.gz`), and directories of them (recursively, sorted by path, so a
replay is deterministic). A name ending `.logs.pb` (`.logs.json`, `.logs.jsonl`) holds OTLP logs
requests (`ExportLogsServiceRequest`: GenAI events sent as log records). Each payload carries its
origin (`file` or `file:line`) for error reports.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from monitor.errors import InputError

SUFFIXES = (".pb", ".json", ".jsonl")
PROTOBUF = "application/x-protobuf"
JSON = "application/json"


@dataclass(frozen=True)
class Payload:
    data: bytes
    content_type: str
    origin: str
    signal: Literal["traces", "logs"] = (
        "traces"  # `logs`: an ExportLogsServiceRequest (files named *.logs.pb, *.logs.json, …)
    )


def expand(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and _kind(p) is not None)
            if not found:
                raise InputError(
                    str(path), f"no {', '.join(SUFFIXES)} files (optionally .gz) in this directory"
                )
            files += found
        elif path.is_file():
            if _kind(path) is None:
                raise InputError(
                    str(path), f"unknown file type; replay reads {', '.join(SUFFIXES)} (optionally .gz)"
                )
            files.append(path)
        else:
            raise InputError(str(path), "no such file or directory")
    return files


def read_payloads(paths: Sequence[Path]) -> Iterator[Payload]:
    for file in expand(paths):
        try:
            raw = file.read_bytes()
            if file.suffix == ".gz":
                raw = gzip.decompress(raw)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(str(file), f"cannot read ({exc})") from exc
        kind = _kind(file)
        logs = file.name.removesuffix(".gz").removesuffix(kind or "").endswith(".logs")
        signal: Literal["traces", "logs"] = "logs" if logs else "traces"
        if kind == ".jsonl":
            for n, line in enumerate(raw.split(b"\n"), start=1):
                if line.strip():
                    yield Payload(line, JSON, f"{file}:{n}", signal)
        else:
            yield Payload(raw, PROTOBUF if kind == ".pb" else JSON, str(file), signal)


def _kind(path: Path) -> str | None:
    name = path.name.removesuffix(".gz")
    return next((s for s in SUFFIXES if name.endswith(s)), None)
