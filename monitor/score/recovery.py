"""Recovery after a failed tool call: one model for gold and policy scoring. Pure.

A failed call is recovered when a later call of the same tool succeeds, with nothing in between but calls
in the same exchange (before the next user message), read-only lookups, failed attempts at the same
tool, and the conversation with the user (asking which payment method to use, then retrying, recovers).
A failed call to a tool that does not exist (not among the tools the reference or the agent's spans
declare) is an attempt too: a malformed name (`functions.get_user`, `get-user`, `get_usr`) is an attempt
at the declared tool it spells, and a name that spells none is recovered by the next successful call of a
declared tool in the same exchange (the agent found the right tool).
A *false* recovery is decided by grounding instead: a later call that uses a value nothing stated (the
output the failed call never produced) is `ungrounded_parameter_value` itself, and the policy's recovery
statistics count it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from monitor.model import ActionContent, DialogTurn

_ID = re.compile(r"[A-Za-z]*\d[\w-]*|[A-Z]{3,}")


def identifying(args: Any) -> frozenset[str]:
    """The top-level argument values of a call that look like identifiers (`AAA111`, `ORD-77`)."""
    if not isinstance(args, dict):
        return frozenset()
    return frozenset(v for v in args.values() if isinstance(v, str) and _ID.fullmatch(v.strip()))


@dataclass(frozen=True)
class Attempt:
    """One call, in conversation order."""

    turn_no: int
    tool: str
    failed: bool
    exchange: int  # which exchange (user message) it serves
    keys: frozenset[str] = frozenset()  # its identifying argument values (`identifying`)
    unknown: bool = False  # a tool nothing declares, whose name spells no declared one


#: How alike a malformed name must be to a declared one to be an attempt at it (difflib's ratio).
_SPELLS = 0.8


def declared_tool(name: str, known: Collection[str]) -> str | None:
    """The declared tool a called name means: itself, the declared name it ends with or contains once
    (`functions.get_user`, `get_user<|end|>`), one spelled alike (`get-user`, `get_usr`), or None."""
    if name in known:
        return name
    plain = re.sub(r"[^0-9A-Za-z]+", "_", name).strip("_").casefold()
    folded = {re.sub(r"[^0-9A-Za-z]+", "_", k).casefold(): k for k in known}
    if plain in folded:
        return folded[plain]
    inside = [k for f, k in folded.items() if f and (plain.endswith("_" + f) or plain.startswith(f + "_"))]
    if len(inside) == 1:
        return inside[0]
    close = get_close_matches(plain, list(folded), n=1, cutoff=_SPELLS)
    return folded[close[0]] if close else None


def retried(calls: Sequence[Attempt], index: int, read_only: Collection[str] = ()) -> int | None:
    """Calls from the failed call at `index` to the later call of the same tool that recovered it (1 when
    it is the next call); None when none did (module docstring)."""
    failed = calls[index]
    for steps, later in enumerate(calls[index + 1 :], start=1):
        if failed.unknown and later.exchange == failed.exchange and not later.failed and not later.unknown:
            return steps  # the right tool found
        if later.tool == failed.tool:
            # in a later exchange, a call of the same tool on something else (the user asked to cancel
            # BBB222 instead) is a new request, not the failed one retried
            same = later.exchange == failed.exchange or not failed.keys or bool(failed.keys & later.keys)
            if not later.failed and same:
                return steps
            continue
        if later.exchange != failed.exchange and later.tool not in read_only:
            return None
    return None


def exchanges(turns: Sequence[DialogTurn]) -> dict[int, int]:
    """Each turn's exchange: how many user messages came up to it."""
    out: dict[int, int] = {}
    users = 0
    for t in turns:
        users += t.turn == "User"
        out[t.turn_no] = users
    return out


def call_failed(turn: DialogTurn, errors: Mapping[int, str | None]) -> bool:
    """A call that failed: by the error reported beside it (`errors`: span status, an error result) or in
    its own content."""
    call = turn.predict_turn
    return isinstance(call, ActionContent) and bool(errors.get(turn.turn_no) or call.error)


def attempts(
    turns: Sequence[DialogTurn],
    errors: Mapping[int, str | None],
    exchange_of: Mapping[int, int],
    known: Collection[str] = (),
) -> list[Attempt]:
    """The calls among `turns`, in order, as attempts: failed when `errors` or the call itself says so.
    `known`: the declared tools (none: every name is taken as written)."""
    out = []
    for t in turns:
        if not isinstance(t.predict_turn, ActionContent):
            continue
        failed = call_failed(t, errors)
        tool = t.predict_turn.name
        unknown = False
        if known and failed and tool not in known:
            meant = declared_tool(tool, known)
            tool, unknown = (meant, False) if meant is not None else (tool, True)
        keys = identifying(t.predict_turn.args)
        out.append(Attempt(t.turn_no, tool, failed, exchange_of.get(t.turn_no, 0), keys, unknown))
    return out


def recoveries(calls: Sequence[Attempt], read_only: Collection[str] = ()) -> dict[int, int]:
    """Each failed call that a later one recovered: its index in `calls` -> calls until that one."""
    out: dict[int, int] = {}
    for i, a in enumerate(calls):
        steps = retried(calls, i, read_only) if a.failed else None
        if steps is not None:
            out[i] = steps
    return out
