"""Align a live conversation to its gold dialog before scoring. Pure apart from the ladder's scorers.

In: the live turns (predicted side only, `User` turns included) and the gold dialog. Out: one row per
gold turn and per live turn — paired, gold only, or live only — in live order, with where each row came
from (`RowOrigin`). What an unpaired row means (a missing call, an optional turn not made, a free
lookup, a reply nothing asked for, a recovered attempt) is decided by `score_dialog`, the same rules
for `score` and `replay`.

Live chains rarely match gold turn for turn. The alignment, in order:
1. **Exchanges.** Where the gold has `User` turns, gold and live user turns are paired in order
   (word overlap guides which is which; an extra live user turn, such as the answer to a clarifying
   question, joins the exchange before it, or the first when it comes before every paired one), and
   each gold exchange is aligned only within its live exchange: a call made one user turn early is not
   matched to the later gold turn. A gold exchange with no Agent/Tool turn expects the agent to answer
   without calling (`no_call_expected`). A gold dialog without user turns is one exchange.
2. **Order-invariant groups** (`OrderInvariant_<group>` tags): the group's gold turns are paired with
   the exchange's calls by best assignment (Hungarian) and put in the order of the calls they paired
   with, so two calls made in the other order align as they are.
3. **Calls** by dynamic programming (an edit distance): a call of the gold's tool costs its real turn
   score (0 when it passes, 1.1–1.9 by how much failed), another tool 1.9; a gold turn left unmatched
   costs 1 (0.1 when `optional`); a live call left unmatched costs 1, nothing when its tool is in
   `metadata.read_only_tools` or `metadata.allowed_extra_tools` and it did not fail.
4. **Replies** are not aligned by position: agents talk, and most replies have no gold counterpart. Each
   gold response turn takes the reply of its exchange that states its facts (a bare-fact gold such as
   "23553"), else the one between the calls around it that no span recorded (the answer after words said
   beside calls, `assemble/transcript.py`: those words are then a reply nothing asked for, not compared),
   else the one there with the most words in common, else the nearest in words elsewhere in the exchange.

Conversations larger than `max_cells` call pairs are aligned position by position (bounded cost).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from monitor.compare.facts import content_words, extract_facts, normalize_text, stated
from monitor.compare.ladder import Ladder
from monitor.model import ActionContent, Dialog, DialogTurn, MatchHow, ResponseContent
from monitor.score.dialog import (
    ORDER_INVARIANT_PREFIX,
    OTHER_TOOL,
    RowOrigin,
    call_cost,
    dialog_vocabulary,
    free_tools,
    tool_schemas,
)
from monitor.score.turn import TurnScore

GAP = 1.0
_END = -1  # "after every live turn"
#: An optional turn left unmatched costs a little, so that a call that passes it is matched, but less than
#: any required turn's mismatch: an optional lookup must never pull a required call out of its place.
OPTIONAL_GAP = 0.1
LIVE_USER_GAP = 0.6

How = MatchHow


@dataclass(frozen=True)
class Alignment:
    dialog: Dialog
    positional: bool
    turn_map: dict[int, int]  # live turn number -> aligned row number
    origins: dict[int, RowOrigin]  # aligned row number -> where it came from (for `score_dialog`)
    #: (gold turn_no, live turn_no) -> the call pair's full score, computed while aligning: `score_dialog`
    #: takes the chosen pairs' scores from here instead of scoring them again
    scores: dict[tuple[int, int], TurnScore] = field(default_factory=dict)


@dataclass
class _Block:
    """One exchange: the gold turns and the live turns aligned with each other."""

    gold: list[DialogTurn] = field(default_factory=list)
    live: list[DialogTurn] = field(default_factory=list)
    expects_no_call: bool = False
    user_no: int | None = None  # the gold user turn that opens it


def align_to_gold(
    conversation_id: str, live: Sequence[DialogTurn], gold: Dialog, ladder: Ladder, max_cells: int = 40_000
) -> Alignment:
    metadata = gold.metadata if isinstance(gold.metadata, dict) else {}
    schemas = tool_schemas(metadata)
    free = free_tools(metadata)
    probe = Dialog(dialog_id=conversation_id, turns=tuple(live) + tuple(gold.turns), metadata=metadata)
    vocabulary = dialog_vocabulary(probe)
    calls_live = sum(1 for t in live if _is_call(t))
    calls_gold = sum(1 for t in gold.turns if isinstance(t.gold_turn, ActionContent))
    replies_live = sum(1 for t in live if _is_reply(t))
    replies_gold = sum(1 for t in gold.turns if isinstance(t.gold_turn, ResponseContent) and t.turn != "User")
    positional = calls_live * calls_gold + replies_live * replies_gold > max_cells

    known: dict[tuple[int, int], float] = {}  # (gold, live) turn_no -> cost: each pair scored once
    scores: dict[tuple[int, int], TurnScore] = {}

    def cost(g: DialogTurn, p: DialogTurn) -> float:
        key = (g.turn_no, p.turn_no)
        if key not in known:
            known[key], score = call_cost(ladder, g, p, vocabulary, schemas, metadata)
            if score is not None:
                scores[key] = score
        return known[key]

    pair_of_live: dict[int, list[tuple[DialogTurn, How]]] = {}  # live turn_no -> the gold turns it answers
    missing_after: dict[int, list[DialogTurn]] = {}  # live turn_no (or _END) -> gold turns after it
    exchange_of: dict[int, int] = {}  # live turn_no -> its exchange
    gold_exchange: dict[int, int] = {}  # gold turn_no -> its exchange
    no_call_answer: dict[int, int] = {}  # live turn_no -> the gold user turn it answers without a call
    no_call_broken: dict[int, int] = {}  # live turn_no of a call where gold expects none -> gold user turn
    for index, block in enumerate(_blocks(live, gold.turns)):
        exchange_of.update({t.turn_no: index for t in block.live})
        start = block.live[0].turn_no if block.live else _END
        calls = [t for t in block.live if _is_call(t)]
        gold_calls = [t for t in block.gold if isinstance(t.gold_turn, ActionContent)]
        reordered: set[int] = set()
        if positional:  # bounded cost: position by position, lookups aside
            pairs = _positional([t for t in calls if not _free(t, free)], gold_calls)
        else:
            gold_calls, reordered = _order_invariant(gold_calls, calls, cost)
            pairs = _dp(calls, gold_calls, cost, free)
        anchor = start
        matched_at: dict[int, int] = {}  # gold turn_no -> live turn_no
        for p, g in pairs:
            if p is not None:
                anchor = p.turn_no
            if p is not None and g is not None:
                how: How = "order_invariant" if g.turn_no in reordered else "aligned"
                pair_of_live.setdefault(p.turn_no, []).append((g, how))
                matched_at[g.turn_no] = p.turn_no
            elif g is not None:
                missing_after.setdefault(anchor, []).append(g)
        for g, p_no, how in _replies(block, matched_at, ladder):
            if p_no is None:
                missing_after.setdefault(_last_live_before(block, g, matched_at), []).append(g)
            else:
                pair_of_live.setdefault(p_no, []).append((g, how))
        for g in block.gold:
            gold_exchange.setdefault(g.turn_no, index)
        if block.expects_no_call and block.user_no is not None:
            unasked = [t for t in calls if t.turn_no not in pair_of_live and not _free(t, free)]
            if unasked:
                no_call_broken[unasked[0].turn_no] = block.user_no
            else:
                answer = next(
                    (t.turn_no for t in block.live if _is_reply(t) and t.turn_no not in pair_of_live), start
                )
                no_call_answer[answer] = block.user_no

    rows: list[DialogTurn] = []
    number: dict[int, int] = {}
    origins: dict[int, RowOrigin] = {}

    def add(
        g: DialogTurn | None, p: DialogTurn | None, how: How, exchange: int | None, gold_no: int | None = None
    ) -> None:
        no = len(rows) + 1
        deps = tuple(number[d] for d in (p.depends_on if p is not None else ()) if d in number)
        if p is not None:
            number.setdefault(p.turn_no, no)
        rows.append(_row(no, g, p, deps))
        origins[no] = RowOrigin(g.turn_no if g else gold_no, p.turn_no if p else None, how, exchange)

    for t in live:
        where = exchange_of.get(t.turn_no)
        answered = t.turn_no in no_call_answer and _is_reply(t)
        if answered:
            add(None, t, "no_call_expected", where, no_call_answer[t.turn_no])
        elif t.turn_no in no_call_broken:
            add(None, t, "no_call_expected", where, no_call_broken[t.turn_no])
        elif t.turn == "User" or t.turn_no not in pair_of_live:
            add(None, t, "aligned", where)
        else:
            for g, how in pair_of_live[t.turn_no]:  # a reply may state several gold facts
                add(g, t, how, where)
        if t.turn_no in no_call_answer and not answered:  # a user turn the agent did not answer
            add(None, None, "no_call_expected", where, no_call_answer[t.turn_no])
        for g in missing_after.pop(t.turn_no, []):
            add(g, None, "aligned", gold_exchange.get(g.turn_no))
    for leftover in missing_after.values():  # after a block with no live turns: at the end
        for g in leftover:
            add(g, None, "aligned", gold_exchange.get(g.turn_no))
    dialog = Dialog(dialog_id=conversation_id, turns=tuple(rows), metadata=metadata)
    return Alignment(dialog=dialog, positional=positional, turn_map=number, origins=origins, scores=scores)


# -- exchanges -----------------------------------------------------------------------------------


def _blocks(live: Sequence[DialogTurn], gold: Sequence[DialogTurn]) -> list[_Block]:
    gold = [t for t in gold if t.turn == "User" or t.gold_turn is not None]
    if not any(t.turn == "User" for t in gold):
        return [_Block(gold=list(gold), live=list(live))]
    gold_segments = _segments(gold)
    live_segments = _segments(live)
    pairing = _pair_users(
        [_user_text(s[0]) for s in gold_segments[1:]], [_user_text(s[0]) for s in live_segments[1:]]
    )
    blocks = [_Block(gold=list(seg[1:]), user_no=seg[0].turn_no or None) for seg in gold_segments]
    for i, seg in enumerate(gold_segments[1:], start=1):
        blocks[i].expects_no_call = not seg[1:]
    # the gold exchange an unpaired live exchange joins: the one before it; before the first paired one,
    # the first gold exchange when gold has nothing before its first user turn (a user who pastes the
    # whole task as one user turn: word overlap may pair it with a later message, and what the agent did
    # before that is still the task's)
    owner = 0 if blocks[0].gold else 1
    for j, seg in enumerate(live_segments):
        if j == 0:
            blocks[0].live.extend(seg[1:])
            continue
        gi = pairing.get(j - 1)
        if gi is not None:
            owner = gi + 1
        blocks[owner].live.extend(seg)
    for i in range(len(blocks) - 1, 0, -1):  # a gold exchange no live one answered joins the one before
        if (i - 1) not in pairing.values():
            # the merged exchange expects no call only if neither part expects one
            blocks[i - 1].expects_no_call = blocks[i - 1].expects_no_call and not blocks[i].gold
            blocks[i - 1].gold.extend(blocks[i].gold)
            blocks[i - 1].live.extend(blocks[i].live)
            blocks[i].gold, blocks[i].live, blocks[i].expects_no_call = [], [], False
    return [b for b in blocks if b.gold or b.live or b.expects_no_call]


def _segments(turns: Sequence[DialogTurn]) -> list[list[DialogTurn]]:
    """[turns before the first user turn, then each user turn with the turns after it]."""
    segments: list[list[DialogTurn]] = [[]]
    for t in turns:
        if t.turn == "User":
            segments.append([t])
        else:
            segments[-1].append(t)
    head = segments[0]
    return [[_NO_USER, *head], *segments[1:]]


_NO_USER = DialogTurn(turn_no=0, turn="User")


def _user_text(turn: DialogTurn) -> str:
    content = turn.gold_turn or turn.predict_turn
    return content.response if isinstance(content, ResponseContent) else ""


def _pair_users(gold: Sequence[str], live: Sequence[str]) -> dict[int, int]:
    """live user turn index -> gold user turn index, in order; word overlap decides which is which."""
    n, m = len(live), len(gold)
    words_l = [set(content_words(t)) for t in live]
    words_g = [set(content_words(t)) for t in gold]

    def cost(i: int, j: int) -> float:
        if normalize_text(live[i]) == normalize_text(gold[j]):
            return 0.0
        union = words_l[i] | words_g[j]
        return 1.0 - (len(words_l[i] & words_g[j]) / len(union) if union else 0.0)

    pairs = _edit_distance(n, m, cost, lambda i: LIVE_USER_GAP, lambda j: GAP)
    return {i: j for i, j in pairs if i is not None and j is not None}


# -- calls ---------------------------------------------------------------------------------------


def _order_invariant(
    gold_calls: list[DialogTurn],
    calls: Sequence[DialogTurn],
    cost: Callable[[DialogTurn, DialogTurn], float],
) -> tuple[list[DialogTurn], set[int]]:
    """The gold calls with each order-invariant group in the order of the live calls it pairs with."""
    groups: dict[str, list[int]] = {}
    for i, g in enumerate(gold_calls):
        for tag in g.tags:
            if tag.startswith(ORDER_INVARIANT_PREFIX):
                groups.setdefault(tag, []).append(i)
    out = list(gold_calls)
    moved: set[int] = set()
    for slots in groups.values():
        if len(slots) < 2 or not calls:
            continue
        members = [gold_calls[i] for i in slots]
        grid = np.array([[cost(g, p) for p in calls] for g in members])
        rows, cols = linear_sum_assignment(grid)
        at = {int(r): int(c) for r, c in zip(rows, cols, strict=True) if grid[r, c] < OTHER_TOOL}
        order = sorted(range(len(members)), key=lambda k: (at.get(k, len(calls)), k))
        for slot, k in zip(slots, order, strict=True):
            out[slot] = members[k]
            if members[k] is not gold_calls[slot]:
                moved.add(members[k].turn_no)
    return out, moved


def _dp(
    preds: Sequence[DialogTurn],
    golds: Sequence[DialogTurn],
    cost: Callable[[DialogTurn, DialogTurn], float],
    free: frozenset[str],
) -> list[tuple[DialogTurn | None, DialogTurn | None]]:
    match = [[cost(g, p) for g in golds] for p in preds]
    pairs = _edit_distance(
        len(preds),
        len(golds),
        lambda i, j: match[i][j],
        lambda i: 0.0 if _free(preds[i], free) else GAP,
        lambda j: OPTIONAL_GAP if golds[j].optional else GAP,
    )
    return [(preds[i] if i is not None else None, golds[j] if j is not None else None) for i, j in pairs]


def _edit_distance(
    n: int,
    m: int,
    match: Callable[[int, int], float],
    skip_a: Callable[[int], float],
    skip_b: Callable[[int], float],
) -> list[tuple[int | None, int | None]]:
    """The cheapest monotone pairing of a[0:n] with b[0:m] (ties: pair before skipping)."""
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            if i and best[i - 1][j] + skip_a(i - 1) < best[i][j]:
                best[i][j] = best[i - 1][j] + skip_a(i - 1)
            if j and best[i][j - 1] + skip_b(j - 1) < best[i][j]:
                best[i][j] = best[i][j - 1] + skip_b(j - 1)
            if i and j and best[i - 1][j - 1] + match(i - 1, j - 1) <= best[i][j]:
                best[i][j] = best[i - 1][j - 1] + match(i - 1, j - 1)
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        if i and j and abs(best[i][j] - (best[i - 1][j - 1] + match(i - 1, j - 1))) < 1e-9:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and abs(best[i][j] - (best[i - 1][j] + skip_a(i - 1))) < 1e-9:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()
    return pairs


def _positional(
    preds: Sequence[DialogTurn], golds: Sequence[DialogTurn]
) -> list[tuple[DialogTurn | None, DialogTurn | None]]:
    n = max(len(preds), len(golds))
    return [(preds[i] if i < len(preds) else None, golds[i] if i < len(golds) else None) for i in range(n)]


# -- replies -------------------------------------------------------------------------------------


def _replies(
    block: _Block, matched_at: dict[int, int], ladder: Ladder
) -> list[tuple[DialogTurn, int | None, How]]:
    """Each gold response turn of the exchange with the live reply it is scored against (or None).

    A reply that states a gold turn's facts may answer several gold turns ("4 free bags, $23,553 in
    total"); one chosen by word overlap answers one."""
    day_first = ladder.config.ladder.date_day_first
    replies = [t for t in block.live if _is_reply(t)]
    order = {t.turn_no: i for i, t in enumerate(block.live)}
    texts = {
        r.turn_no: r.predict_turn.response for r in replies if isinstance(r.predict_turn, ResponseContent)
    }
    # a reply no span recorded ends its turn (what was recorded there, if anything, are words said beside
    # calls): in a gold reply's window, what it is paired with when no reply states its facts
    unrecorded = {
        r.turn_no
        for r in replies
        if isinstance(r.predict_turn, ResponseContent) and r.predict_turn.unrecorded
    }
    facts = {no: extract_facts(text, day_first).facts for no, text in texts.items()}
    words = {no: set(content_words(text)) for no, text in texts.items()}
    taken: set[int] = set()
    out: list[tuple[DialogTurn, int | None, How]] = []
    for k, g in enumerate(block.gold):
        if not isinstance(g.gold_turn, ResponseContent):
            continue
        lo, hi = _window(block, k, matched_at, order)
        wanted = extract_facts(g.gold_turn.response, day_first).facts
        gold_words = set(content_words(g.gold_turn.response))
        best: tuple[tuple[bool, bool, bool, float], int] | None = None
        for no in texts:
            says = bool(wanted) and stated(wanted, facts[no])
            if no in taken and not says:
                continue
            inside = lo < order[no] < hi
            # a reply nobody recorded has no words to share: chosen by its place only, never by words
            overlap = -1.0 if no in unrecorded else _overlap(gold_words, words[no])
            key = (says, inside, inside and no in unrecorded, overlap)
            if best is None or key > best[0]:
                best = (key, no)
        if best is None:
            out.append((g, None, "aligned"))
            continue
        (says, inside, _, _), no = best
        if not says:
            taken.add(no)
        out.append((g, no, "fact_in_reply" if says and not inside else "aligned"))
    return out


def _window(block: _Block, k: int, matched_at: dict[int, int], order: dict[int, int]) -> tuple[int, int]:
    """Live positions between which gold turn k's reply belongs: after the calls matched to the gold
    turns before it, before those matched to the gold turns after it."""
    before = [order[matched_at[g.turn_no]] for g in block.gold[:k] if g.turn_no in matched_at]
    after = [order[matched_at[g.turn_no]] for g in block.gold[k + 1 :] if g.turn_no in matched_at]
    return (max(before, default=-1), min(after, default=len(block.live)))


def _last_live_before(block: _Block, gold: DialogTurn, matched_at: dict[int, int]) -> int:
    """Where a gold turn nothing matched goes: after the live call matched to the gold turn before it."""
    k = block.gold.index(gold)
    before = [matched_at[g.turn_no] for g in block.gold[:k] if g.turn_no in matched_at]
    if before:
        return max(before)
    return block.live[0].turn_no if block.live else _END


def _overlap(gold: set[str], predicted: set[str]) -> float:
    return len(gold & predicted) / len(gold | predicted) if gold | predicted else 1.0


# -- rows ----------------------------------------------------------------------------------------


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
        optional=gold.optional if gold else False,
        compare=gold.compare if gold else {},
    )


def _is_call(t: DialogTurn) -> bool:
    return t.turn != "User" and isinstance(t.predict_turn, ActionContent)


def _is_reply(t: DialogTurn) -> bool:
    return t.turn == "Agent" and isinstance(t.predict_turn, ResponseContent)


def _free(t: DialogTurn, free: frozenset[str]) -> bool:
    p = t.predict_turn
    return isinstance(p, ActionContent) and not p.error and p.name in free
