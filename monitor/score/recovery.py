"""Recovery after a failed tool call: one model for gold and policy scoring. Pure.

A failed call is recovered when a later call of the same tool succeeds, with nothing in between but calls
in the same exchange (before the next user message), read-only lookups, failed attempts at the same
tool, and the conversation with the user (asking which payment method to use, then retrying, recovers).
A *false* recovery is decided by grounding instead: a later call that uses a value nothing stated (the
output the failed call never produced) is `ungrounded_parameter_value` itself, and the policy's recovery
statistics count it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
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


def retried(calls: Sequence[Attempt], index: int, read_only: Collection[str] = ()) -> int | None:
    """Calls from the failed call at `index` to the later call of the same tool that recovered it (1 when
    it is the next call); None when none did (module docstring)."""
    failed = calls[index]
    for steps, later in enumerate(calls[index + 1 :], start=1):
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


def attempts(
    turns: Sequence[DialogTurn], errors: Mapping[int, str | None], exchange_of: Mapping[int, int]
) -> list[Attempt]:
    """The calls among `turns`, in order, as attempts: failed when `errors` or the call itself says so."""
    return [
        Attempt(
            t.turn_no,
            t.predict_turn.name,
            bool(errors.get(t.turn_no) or t.predict_turn.error),
            exchange_of.get(t.turn_no, 0),
            identifying(t.predict_turn.args),
        )
        for t in turns
        if isinstance(t.predict_turn, ActionContent)
    ]


def recoveries(calls: Sequence[Attempt], read_only: Collection[str] = ()) -> dict[int, int]:
    """Each failed call that a later one recovered: its index in `calls` -> calls until that one."""
    out: dict[int, int] = {}
    for i, a in enumerate(calls):
        steps = retried(calls, i, read_only) if a.failed else None
        if steps is not None:
            out[i] = steps
    return out
