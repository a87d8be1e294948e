"""Assemble stage, part 2: observed turns → the golden-dialog turn form (predicted side). Pure.

User messages become `User` turns, replies `Agent` response turns, tool calls `Tool` action turns
(`tool_id` / `action` split at the configured separator: `reports.FilterData` → `reports`,
`FilterData`; a plain name is both). Dependencies found from tool-call ids and span links become
`depends_on`, so attribution sees them alongside the data flow it infers itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from monitor.assemble.transcript import ObservedTurn
from monitor.model import ActionContent, DialogTurn, ResponseContent


def split_tool_name(name: str, separator: str) -> tuple[str, str]:
    if separator and separator in name:
        tool_id, action = name.split(separator, 1)
        if tool_id and action:
            return tool_id, action
    return name, name


def to_dialog_turns(observed: Sequence[ObservedTurn], separator: str) -> list[DialogTurn]:
    turns: list[DialogTurn] = []
    number_of_call: dict[str, int] = {}
    for i, t in enumerate(observed, start=1):
        if t.kind == "call":
            tool_id, action = split_tool_name(t.tool or "", separator)
            args = (
                t.arguments
                if isinstance(t.arguments, dict)
                else {"_raw": t.arguments}
                if t.arguments is not None
                else {}
            )
            content: ActionContent | ResponseContent = ActionContent(
                tool_id=tool_id, action=action, args=args, result=t.result, error=t.error
            )
            role = "Tool"
            number_of_call[t.call_id or ""] = i
            if t.span_id:
                number_of_call[f"span:{t.span_id}"] = i
        else:
            content = ResponseContent(response=t.text or "", unrecorded=t.unrecorded)
            role = "User" if t.kind == "user" else "Agent"
        deps = tuple(
            sorted(
                {
                    number_of_call[c]
                    for c in t.depends_on_calls
                    if c in number_of_call and number_of_call[c] < i
                }
            )
        )
        turns.append(
            DialogTurn(turn_no=i, turn=role, predict_turn=content, depends_on=deps, latency_ms=t.latency_ms)
        )
    return turns
