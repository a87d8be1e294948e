"""Dependency edges between turns. Pure.

In: the turns of a dialog in order (role, gold and predicted content, explicit `depends_on`).
Out: for each turn number, the earlier turns it depends on, and why (`explicit`, `data_flow`,
`chain`). Three sources, unioned:

- explicit: the turn's `depends_on` annotation;
- data flow: a value that an earlier turn *introduced* — in a tool result, or as a typed fact in a
  reply — and that was not seen before it, reappears in a later turn's arguments or reply. Checked on
  the predicted side (what happened) and the gold side (what should have happened);
- chain: inside an action chain, a call whose arguments reuse any value of the previous call's result
  depends on it (a looser value filter than data flow: short values count there).

Trivial values (booleans, generic status words, one-letter strings) never create an edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from monitor.compare.facts import extract_facts, normalize_text
from monitor.model import ActionContent, ResponseContent, TurnContent

GENERIC = frozenset(
    [
        "success",
        "succeeded",
        "ok",
        "okay",
        "true",
        "false",
        "done",
        "failed",
        "failure",
        "error",
        "pending",
        "none",
        "null",
        "yes",
        "no",
        "status",
        "result",
        "results",
        "data",
        "ok200",
        "created",
        "updated",
        "deleted",
        "found",
    ]
)


@dataclass(frozen=True)
class TurnFlow:
    """What attribution needs of one turn: its number, contents and explicit dependencies."""

    turn_no: int
    role: str
    gold: TurnContent | None
    predicted: TurnContent | None
    explicit: tuple[int, ...] = ()
    chain_no: int | None = None


@dataclass
class Dependencies:
    edges: dict[int, set[int]] = field(default_factory=dict)
    why: dict[tuple[int, int], set[str]] = field(default_factory=dict)

    def add(self, later: int, earlier: int, reason: str) -> None:
        if later == earlier:
            return
        self.edges.setdefault(later, set()).add(earlier)
        self.why.setdefault((later, earlier), set()).add(reason)

    def of(self, turn_no: int) -> tuple[int, ...]:
        return tuple(sorted(self.edges.get(turn_no, ())))


def infer_dependencies(turns: Sequence[TurnFlow]) -> Dependencies:
    deps = Dependencies()
    for t in turns:
        for earlier in t.explicit:
            deps.add(t.turn_no, earlier, "explicit")
    for side in ("predicted", "gold"):
        _data_flow(turns, side, deps)
    for prev, cur in pairwise(turns):
        if prev.chain_no is None or prev.chain_no != cur.chain_no:
            continue
        for side in ("predicted", "gold"):
            p, c = getattr(prev, side), getattr(cur, side)
            if isinstance(p, ActionContent) and p.result is not None and c is not None:
                produced = {v for v in leaf_texts(p.result) if _loose(v)}
                if any(contains(consumed, v) for v in produced for consumed in consumed_texts(c)):
                    deps.add(cur.turn_no, prev.turn_no, "chain")
    return deps


def _data_flow(turns: Sequence[TurnFlow], side: str, deps: Dependencies) -> None:
    seen: set[str] = set()
    introduced: list[tuple[int, list[str]]] = []  # turn -> the values it introduced, space-padded
    for t in turns:
        content: TurnContent | None = getattr(t, side)
        if content is None:
            continue
        consumed = consumed_texts(content)
        padded = [f" {text} " for text in consumed]  # `contains` on normalized values, without re-normalizing
        for earlier, values in introduced:
            if any(v in text for v in values for text in padded):
                deps.add(t.turn_no, earlier, "data_flow")
        own_inputs = {normalize_text(v) for v in consumed}
        if t.role == "User":
            seen |= own_inputs | {normalize_text(w) for text in consumed for w in text.split()}
            continue
        new = {v for v in produced_texts(content) if v not in seen and v not in own_inputs and significant(v)}
        padded_inputs = [f" {i} " for i in own_inputs]
        new = {v for v in new if not any(f" {v} " in i for i in padded_inputs)}
        if new:
            introduced.append((t.turn_no, [f" {v} " for v in new]))
        seen |= own_inputs | new


def produced_texts(content: TurnContent) -> set[str]:
    """Normalized values a turn put into the conversation: result leaves, or a reply's typed facts."""
    if isinstance(content, ActionContent):
        return {normalize_text(v) for v in leaf_texts(content.result)}
    facts = extract_facts(content.response)
    return {
        normalize_text(original)
        for canon, original in facts.spans
        if original and not canon.startswith("bool")
    }


def consumed_texts(content: TurnContent) -> list[str]:
    """Normalized texts a turn used: argument leaves, or its reply."""
    if isinstance(content, ActionContent):
        return [normalize_text(v) for v in leaf_texts(content.args)]
    if isinstance(content, ResponseContent):
        return [normalize_text(content.response)]
    return []


def leaf_texts(value: Any) -> list[str]:
    """Every scalar inside a JSON value as text, in document order; booleans and nulls carry no value."""
    out: list[str] = []
    _leaves(value, out)
    return out


def _leaves(value: Any, out: list[str]) -> None:
    kind = type(value)
    if kind is str:
        out.append(value)
    elif kind is dict:
        for v in value.values():
            _leaves(v, out)
    elif kind is list:
        for v in value:
            _leaves(v, out)
    elif not (value is None or isinstance(value, bool)):
        if isinstance(value, dict | list):  # subclasses, by the slow path
            for v in value.values() if isinstance(value, dict) else value:
                _leaves(v, out)
        else:
            out.append(str(value))


def significant(norm: str) -> bool:
    """A value distinctive enough that its reappearance means it was consumed."""
    if not norm or norm in GENERIC:
        return False
    return len(norm) >= 3 or (len(norm) == 2 and any(c.isdigit() for c in norm))


def _loose(value: str) -> bool:
    norm = normalize_text(value)
    return bool(norm) and norm not in GENERIC and (len(norm) >= 2 or norm.isdigit())


def contains(text: str, value: str) -> bool:
    """Does normalized `value` occur in normalized `text` as whole words?"""
    value = normalize_text(value)
    if not value:
        return False
    if text == value:
        return True
    return f" {value} " in f" {text} "
