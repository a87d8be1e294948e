"""Recovery after a failed tool call: one model for gold and policy scoring. Pure.

A failed call is recovered when a later call of the same tool succeeds, with nothing in between but calls
in the same exchange (before the next user message), read-only lookups, failed attempts at the same
tool, and the conversation with the user (asking which payment method to use, then retrying, recovers).
A *false* recovery is decided by grounding instead: a later call that uses a value nothing stated (the
output the failed call never produced) is `ungrounded_parameter_value` itself, and the policy's recovery
statistics count it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Attempt:
    """One call, in conversation order."""

    turn_no: int
    tool: str
    failed: bool
    exchange: int  # which exchange (user message) it serves


def retried(calls: Sequence[Attempt], index: int, read_only: Collection[str] = ()) -> int | None:
    """Calls from the failed call at `index` to the later call of the same tool that recovered it (1 when
    it is the next call); None when none did (module docstring)."""
    failed = calls[index]
    for steps, later in enumerate(calls[index + 1 :], start=1):
        if later.tool == failed.tool:
            if not later.failed:
                return steps
            continue
        if later.exchange != failed.exchange and later.tool not in read_only:
            return None
    return None
