"""File source for `replay`: recorded OTLP files → payloads. I/O (reads files), nothing else.

Accepts `.pb` (one protobuf ExportTraceServiceRequest, as an SDK exporter sends it), `.json` (one
OTLP/JSON request), `.jsonl` (one OTLP/JSON request per line — the Collector's file exporter format),
each optionally gzip-compressed (`.gz`, every member of a multi-member file), and directories of them
(recursively, sorted by path, so a replay is deterministic). A name ending `.logs.pb` (`.logs.json`,
`.logs.jsonl`) holds OTLP logs requests (`ExportLogsServiceRequest`: GenAI events sent as log records).
Each payload carries its origin (`file` or `file:line`) for error reports. A payload is capped at
`max_bytes` after decompression, as the receivers cap a request, so a gzip bomb costs at most that much
memory; a file or line that cannot be read is yielded as an error and the files after it are still read.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, cast

from monitor.errors import InputError

SUFFIXES = (".pb", ".json", ".jsonl")
PROTOBUF = "application/x-protobuf"
JSON = "application/json"
DEFAULT_MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Payload:
    data: bytes
    content_type: str
    origin: str
    error: str | None = None  # set when the file or line could not be read: `data` is then empty
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


def read_payloads(paths: Sequence[Path], max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[Payload]:
    """Every request in `paths`, in order. A file or line that cannot be read (bad gzip, over
    `max_bytes` once decompressed) comes out as a `Payload` with `error` set, and the rest goes on."""
    for file in expand(paths):
        kind = _kind(file)
        logs = file.name.removesuffix(".gz").removesuffix(kind or "").endswith(".logs")
        signal: Literal["traces", "logs"] = "logs" if logs else "traces"
        content_type = PROTOBUF if kind == ".pb" else JSON
        try:
            with _open(file) as fh:
                if kind == ".jsonl":
                    yield from _lines(fh, str(file), max_bytes, signal)
                    continue
                raw = fh.read(max_bytes + 1)
            if len(raw) > max_bytes:
                yield Payload(b"", content_type, str(file), _too_large(max_bytes, file), signal)
            else:
                yield Payload(raw, content_type, str(file), signal=signal)
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            yield Payload(b"", content_type, str(file), f"cannot read ({exc})", signal)


def _open(file: Path) -> IO[bytes]:
    # GzipFile reads every member of a multi-member file (what `cat a.gz b.gz` and many loggers write)
    if file.suffix == ".gz":
        return cast(IO[bytes], gzip.open(file, "rb"))
    return file.open("rb")


def _lines(
    fh: IO[bytes], origin: str, max_bytes: int, signal: Literal["traces", "logs"]
) -> Iterator[Payload]:
    """One request per line, each at most `max_bytes`; memory stays bounded by one line."""
    n = 0
    while True:
        line = fh.readline(max_bytes + 1)
        if not line:
            return
        n += 1
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the over-long line
                line = fh.readline(1 << 20)
            yield Payload(b"", JSON, f"{origin}:{n}", _too_large(max_bytes), signal)
            continue
        if line.strip():
            yield Payload(line.rstrip(b"\r\n"), JSON, f"{origin}:{n}", signal=signal)


def _too_large(max_bytes: int, file: Path | None = None) -> str:
    unpacked = " once decompressed" if file is not None and file.suffix == ".gz" else ""
    return (
        f"larger than {max_bytes} bytes{unpacked} (the cap is server.max_request_bytes, as for the receivers)"
    )


def _kind(path: Path) -> str | None:
    name = path.name.removesuffix(".gz")
    return next((s for s in SUFFIXES if name.endswith(s)), None)
