"""Read golden dialogs (DESIGN.md format) from .json, .jsonl or a directory of them. I/O at the edge:
`load_dialogs` reads files; `parse_dialog` is pure.

Formats: a .json file holds one dialog — a JSON array of turns, or `{"dialog_id", "turns",
"metadata"}` — or an array of such dialog objects; a .jsonl file holds one dialog per line. A
directory is read recursively (*.json, *.jsonl, sorted).

Every error names the file, line (JSONL) or position, dialog, turn and field, and says what is wrong.
Errors are collected, not raised: one bad dialog never hides the others (`--keep-going` scores them).
Checks beyond the schema: non-empty turns, unique `turn_no`, `depends_on` pointing to an earlier turn
that exists, role matching the content (`Tool` ↔ action, `Agent` ↔ response is not required — an
agent may call a tool — but `Tool` must be an action), a gold turn on every Agent/Tool turn, and bounds
on nesting depth and value size.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.model import ActionContent, Dialog, DialogTurn, ResponseContent

MAX_DEPTH = 32
MAX_STRING_CHARS = 1_000_000
MAX_LINE_BYTES = 64 * 1024 * 1024


@dataclass
class LoadResult:
    dialogs: list[Dialog] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def load_dialogs(path: Path) -> LoadResult:
    result = LoadResult()
    if not path.exists():
        result.errors.append(f"{path}: no such file or directory")
        return result
    files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl")) if path.is_dir() else [path]
    if path.is_dir() and not files:
        result.errors.append(f"{path}: no .json or .jsonl files in this directory")
    for file in files:
        for dialog, error in _read_file(file):
            if error is not None:
                result.errors.append(error)
            elif dialog is not None:
                result.dialogs.append(dialog)
    seen: dict[str, str] = {}
    for d in result.dialogs:
        if d.dialog_id in seen:
            result.errors.append(f"{d.source}: dialog_id {d.dialog_id!r} already used at {seen[d.dialog_id]}")
        seen.setdefault(d.dialog_id, d.source)
    return result


def _read_file(file: Path) -> Iterator[tuple[Dialog | None, str | None]]:
    try:
        raw = file.read_bytes()
    except OSError as exc:
        yield None, f"{file}: cannot read ({exc.strerror})"
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield None, f"{file}: not UTF-8 (byte {exc.start}: {exc.reason})"
        return
    if file.suffix == ".jsonl":
        for line_no, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{file}:{line_no}"
            if len(line) > MAX_LINE_BYTES:
                yield None, f"{where}: line longer than {MAX_LINE_BYTES} bytes"
                continue
            data, error = _json(line, where)
            if error is not None:
                yield None, error
                continue
            yield _parse_any(data, where, f"{file.stem}:{line_no}")
        return
    data, error = _json(text, str(file))
    if error is not None:
        yield None, error
        return
    if isinstance(data, list) and data and all(isinstance(d, dict) and "turns" in d for d in data):
        for i, item in enumerate(data):
            yield _parse_any(item, f"{file} [dialog #{i}]", f"{file.stem}#{i}")
    else:
        yield _parse_any(data, str(file), file.stem)


def _json(text: str, where: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        line = (
            f"line {exc.lineno} column {exc.colno}"
            if ":" not in where.rsplit("/", 1)[-1]
            else f"column {exc.colno}"
        )
        return None, f"{where}: malformed JSON at {line}: {exc.msg}"
    except RecursionError:
        return None, f"{where}: JSON nested too deeply to read"


def _parse_any(data: Any, where: str, default_id: str) -> tuple[Dialog | None, str | None]:
    try:
        return parse_dialog(data, where, default_id), None
    except DialogError as exc:
        return None, str(exc)


class DialogError(ValueError):
    pass


def parse_dialog(data: Any, where: str, default_id: str) -> Dialog:
    """Validate one dialog (pure). Raises `DialogError` with every problem found, each located."""
    if isinstance(data, list):
        data = {"dialog_id": default_id, "turns": data}
    if not isinstance(data, dict):
        raise DialogError(
            f"{where}: a dialog is a JSON array of turns or an object with 'turns', got {_type(data)}"
        )
    data = {"dialog_id": default_id, **data, "source": where}
    dialog_id = data.get("dialog_id")
    label = f"{where} dialog {dialog_id!r}"
    problems = _depth_and_size(data)
    if problems:
        raise DialogError("\n".join(f"{label}: {p}" for p in problems))
    turns_raw = data.get("turns")
    try:
        dialog = Dialog.model_validate(data)
    except ValidationError as exc:
        lines = [f"{label}{_locate(err['loc'], turns_raw)}: {_message(err)}" for err in exc.errors()]
        raise DialogError("\n".join(lines)) from None
    problems = _semantic_problems(dialog)
    if problems:
        raise DialogError("\n".join(f"{label}: {p}" for p in problems))
    return dialog


def unrecorded_marks(turn: DialogTurn) -> list[str]:
    """`unrecorded` on a turn given as input: the monitor's own mark on live replies no span recorded, which a
    dialog (or a trajectory handed to the Strands evaluator) cannot carry."""
    return [
        f"turn {turn.turn_no} field '{side}.unrecorded': set by the monitor on live replies no span recorded, "
        "never in a golden dialog (unknown field)"
        for side, content in (("gold_turn", turn.gold_turn), ("predict_turn", turn.predict_turn))
        if isinstance(content, ResponseContent) and content.unrecorded is not None
    ]


def _semantic_problems(dialog: Dialog) -> list[str]:
    problems: list[str] = _metadata_problems(dialog.metadata)
    if not dialog.turns:
        problems.append("field 'turns': a dialog needs at least one turn")
    numbers = [t.turn_no for t in dialog.turns]
    duplicates = sorted({n for n in numbers if numbers.count(n) > 1})
    if duplicates:
        problems.append(f"field 'turn_no': duplicate turn numbers {duplicates}")
    for t in dialog.turns:
        problems += unrecorded_marks(t)
    schemas = dialog.metadata.get("tool_schemas")
    if schemas is not None and not (
        isinstance(schemas, dict) and all(isinstance(v, dict) for v in schemas.values())
    ):
        problems.append(
            "field 'metadata.tool_schemas': must map each tool name to a JSON Schema object, "
            f"got {_type(schemas)}"
            + ("" if not isinstance(schemas, dict) else " with a value that is not an object")
        )
    known = set(numbers)
    for t in dialog.turns:
        at = f"turn {t.turn_no}"
        for d in t.depends_on:
            if d not in known:
                problems.append(f"{at}, field 'depends_on': turn {d} does not exist")
            elif d >= t.turn_no:
                problems.append(f"{at}, field 'depends_on': turn {d} is not earlier than turn {t.turn_no}")
        if t.turn != "User" and t.gold_turn is None and t.predict_turn is None:
            problems.append(f"{at}, field 'gold_turn': required on {t.turn} turns (or a predict_turn alone)")
        if t.gold_turn is None and (t.optional or t.compare):
            problems.append(f"{at}: 'optional' and 'compare' describe a gold_turn, and this turn has none")
        if t.turn == "Tool" and t.gold_turn is not None and not isinstance(t.gold_turn, ActionContent):
            problems.append(f"{at}, field 'gold_turn': a Tool turn needs tool_id, action and args")
    return problems


_MODES = ("ignore", "exact", "semantic")


def _metadata_problems(metadata: dict[str, Any]) -> list[str]:
    """The metadata keys scoring reads: lists of tool names, per-tool argument modes."""
    problems: list[str] = []
    for key in ("read_only_tools", "allowed_extra_tools"):
        value = metadata.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            problems.append(f"field 'metadata.{key}': a list of tool names, got {_type(value)}")
    schemas = metadata.get("tool_schemas")
    if schemas is not None and not isinstance(schemas, dict):
        problems.append(
            f"field 'metadata.tool_schemas': an object of tool name -> JSON Schema, got {_type(schemas)}"
        )
    compare = metadata.get("compare")
    if compare is not None and not isinstance(compare, dict):
        problems.append(
            f"field 'metadata.compare': an object of tool name -> {{argument: mode}}, got {_type(compare)}"
        )
    for tool, modes in compare.items() if isinstance(compare, dict) else ():
        if not isinstance(modes, dict):
            problems.append(
                f"field 'metadata.compare.{tool}': an object of argument -> mode, got {_type(modes)}"
            )
            continue
        for arg, mode in modes.items():
            if mode not in _MODES:
                problems.append(
                    f"field 'metadata.compare.{tool}.{arg}': {mode!r} is not one of {', '.join(_MODES)}"
                )
    return problems


def _depth_and_size(data: Any) -> list[str]:
    problems: list[str] = []

    def walk(value: Any, depth: int, path: str) -> None:
        if len(problems) >= 5:
            return
        if depth > MAX_DEPTH:
            problems.append(f"field '{path}': nested deeper than {MAX_DEPTH} levels")
            return
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, depth + 1, f"{path}.{k}" if path else str(k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, depth + 1, f"{path}[{i}]")
        elif isinstance(value, str) and len(value) > MAX_STRING_CHARS:
            problems.append(f"field '{path}': value of {len(value)} characters exceeds {MAX_STRING_CHARS}")

    walk(data, 0, "")
    return problems


def _locate(loc: tuple[Any, ...], turns_raw: Any) -> str:
    """Turn a pydantic location into 'turn N, field a.b'."""
    parts = list(loc)
    prefix = ""
    if len(parts) >= 2 and parts[0] == "turns" and isinstance(parts[1], int):
        idx = parts[1]
        turn_no = None
        if isinstance(turns_raw, list) and idx < len(turns_raw) and isinstance(turns_raw[idx], dict):
            turn_no = turns_raw[idx].get("turn_no")
        prefix = f", turn {turn_no}" if isinstance(turn_no, int) else f", turn #{idx + 1}"
        parts = parts[2:]
    parts = [p for p in parts if p not in ("action", "response") or parts.index(p) != 1]
    field_path = ".".join(str(p) for p in parts)
    return f"{prefix}, field '{field_path}'" if field_path else prefix


def _message(err: Any) -> str:
    msg = str(err["msg"])
    if err["type"] == "extra_forbidden":
        return "unknown field (check the spelling; see the golden dialog format in docs/scoring.md)"
    if err["type"] == "literal_error" and err["loc"] and err["loc"][-1] == "turn":
        return f"unknown turn role {err['input']!r}; use 'Agent', 'Tool' or 'User'"
    return msg


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__
