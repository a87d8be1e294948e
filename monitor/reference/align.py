"""Align a live conversation to its gold dialog before scoring. Pure apart from the ladder's scorers.

Live chains rarely match gold turn for turn: the agent may look something up twice, skip a step, or
take two steps in another order. Agent/Tool turns of both sides are aligned by dynamic programming
(an edit distance) whose match cost is the real turn score for calls — a call that passes costs 0, a
failing pair 1–2 by how much failed — and word overlap for replies (then scored in full), and whose
gaps cost 1: a predicted call with no gold counterpart is
`unexpected_action` (free, and left out of scoring, when its tool is listed in
`metadata.read_only_tools` — unless the call failed: a failed attempt with no counterpart, such as
the one before a successful retry, is `tool_execution_error`), a gold turn nothing matched is
`missing_action`. Turns of one
`OrderInvariant_` group keep their tags, so the dialog scorer then re-pairs them by best assignment.
User turns of the live side are kept as context. Conversations larger than `max_cells` pairs are
aligned position by position instead (bounded cost).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.assemble.turns import join_tool_name
from monitor.model import ActionContent, Dialog, DialogTurn, ResponseContent
from monitor.score.dialog import dialog_vocabulary
from monitor.score.ladder import Ladder
from monitor.score.turn import score_turn
from monitor.score.values import content_words

GAP = 1.0


@dataclass(frozen=True)
class Alignment:
    dialog: Dialog
    read_only_extra: int
    positional: bool
    turn_map: dict[int, int]  # live turn number -> aligned row number


def align_to_gold(
    conversation_id: str, live: Sequence[DialogTurn], gold: Dialog, ladder: Ladder, max_cells: int = 40_000
) -> Alignment:
    preds = [t for t in live if t.turn != "User"]
    golds = [t for t in gold.turns if t.turn != "User"]
    read_only = set(gold.metadata.get("read_only_tools", []) if isinstance(gold.metadata, dict) else [])
    schemas: dict[str, Any] = gold.metadata.get("tool_schemas", {}) if isinstance(gold.metadata, dict) else {}
    probe = Dialog(dialog_id=conversation_id, turns=tuple(live) + tuple(golds), metadata=gold.metadata)
    vocabulary = dialog_vocabulary(probe)
    positional = len(preds) * len(golds) > max_cells
    pairs = (
        _positional(preds, golds) if positional else _dp(preds, golds, ladder, vocabulary, schemas, read_only)
    )
    rows: list[DialogTurn] = []
    number: dict[int, int] = {}
    read_only_extra = 0
    pair_of_pred = {id(p): g for p, g in pairs if p is not None}
    missing_before: dict[int, list[DialogTurn]] = {}
    order = 0
    for p, g in pairs:  # gold turns nothing matched go where the alignment put them
        if p is None and g is not None:
            missing_before.setdefault(order, []).append(g)
        elif p is not None:
            order += 1
    order = 0
    for t in live:
        if t.turn != "User":
            for g in missing_before.pop(order, []):
                rows.append(_row(len(rows) + 1, g, None, ()))
            order += 1
            g = pair_of_pred.get(id(t))
            if g is None and _tool(t) in read_only and not _failed(t):
                read_only_extra += 1
                continue
        else:
            g = None
        deps = tuple(number[d] for d in t.depends_on if d in number)
        number[t.turn_no] = len(rows) + 1
        rows.append(_row(len(rows) + 1, g, t, deps))
    for leftover in missing_before.values():
        for g in leftover:
            rows.append(_row(len(rows) + 1, g, None, ()))
    dialog = Dialog(dialog_id=conversation_id, turns=tuple(rows), metadata=gold.metadata)
    return Alignment(dialog=dialog, read_only_extra=read_only_extra, positional=positional, turn_map=number)


def _row(no: int, gold: DialogTurn | None, pred: DialogTurn | None, deps: tuple[int, ...]) -> DialogTurn:
    role = pred.turn if pred is not None else gold.turn if gold is not None else "Agent"
    return DialogTurn(
        turn_no=no,
        turn=role,
        gold_turn=gold.gold_turn if gold else None,
        predict_turn=pred.predict_turn if pred else None,
        tags=gold.tags if gold else (),
        depends_on=deps,
        weight=gold.weight if gold else 1.0,
        critical=gold.critical if gold else False,
        latency_ms=pred.latency_ms if pred else None,
    )


def _tool(t: DialogTurn) -> str | None:
    return join_tool_name(t.predict_turn) if isinstance(t.predict_turn, ActionContent) else None


def _failed(t: DialogTurn) -> bool:
    return isinstance(t.predict_turn, ActionContent) and bool(t.predict_turn.error)


def _reply_cost(gold: str, predicted: str) -> float:
    """Which live reply answers which gold reply: word overlap is enough to place it (replies sit between
    the calls that anchor the alignment); the reply is then scored in full, embeddings included. Scoring
    every reply against every gold reply here cost more than the rest of the pipeline."""
    g, p = set(content_words(gold)), set(content_words(predicted))
    if g == p:
        return 0.0
    overlap = len(g & p) / len(g | p)
    return 1.9 - 0.8 * overlap


def _positional(
    preds: Sequence[DialogTurn], golds: Sequence[DialogTurn]
) -> list[tuple[DialogTurn | None, DialogTurn | None]]:
    n = max(len(preds), len(golds))
    return [(preds[i] if i < len(preds) else None, golds[i] if i < len(golds) else None) for i in range(n)]


def _dp(
    preds: Sequence[DialogTurn],
    golds: Sequence[DialogTurn],
    ladder: Ladder,
    vocabulary: frozenset[str],
    schemas: dict[str, Any],
    read_only: set[str],
) -> list[tuple[DialogTurn | None, DialogTurn | None]]:
    n, m = len(preds), len(golds)
    match = [[_cost(ladder, g, p, vocabulary, schemas) for g in golds] for p in preds]
    skip = [0.0 if _tool(p) in read_only and not _failed(p) else GAP for p in preds]
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            if i and best[i - 1][j] + skip[i - 1] < best[i][j]:
                best[i][j] = best[i - 1][j] + skip[i - 1]
            if j and best[i][j - 1] + GAP < best[i][j]:
                best[i][j] = best[i][j - 1] + GAP
            if i and j and best[i - 1][j - 1] + match[i - 1][j - 1] < best[i][j]:
                best[i][j] = best[i - 1][j - 1] + match[i - 1][j - 1]
    pairs: list[tuple[DialogTurn | None, DialogTurn | None]] = []
    i, j = n, m
    while i or j:
        if i and j and abs(best[i][j] - (best[i - 1][j - 1] + match[i - 1][j - 1])) < 1e-9:
            pairs.append((preds[i - 1], golds[j - 1]))
            i, j = i - 1, j - 1
        elif i and abs(best[i][j] - (best[i - 1][j] + skip[i - 1])) < 1e-9:
            pairs.append((preds[i - 1], None))
            i -= 1
        else:
            pairs.append((None, golds[j - 1]))
            j -= 1
    pairs.reverse()
    return pairs


def _cost(
    ladder: Ladder, gold: DialogTurn, pred: DialogTurn, vocabulary: frozenset[str], schemas: dict[str, Any]
) -> float:
    if isinstance(gold.gold_turn, ActionContent) != isinstance(pred.predict_turn, ActionContent):
        return 1.95
    if isinstance(gold.gold_turn, ResponseContent) and isinstance(pred.predict_turn, ResponseContent):
        return _reply_cost(gold.gold_turn.response, pred.predict_turn.response)
    s = score_turn(ladder, gold.gold_turn, pred.predict_turn, vocabulary, schemas)
    return 0.0 if s.success else 1.9 - 0.8 * s.partial
