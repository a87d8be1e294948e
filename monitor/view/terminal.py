"""`show` in the terminal: one table per conversation. Pure (text in, text out).

In: `Shown` conversations. Out: plain text, with ANSI colours only when the caller says the output is
a terminal. Per turn: number, role, what the agent did (shortened), the verdict — pass, ROOT CAUSE,
or `cascade ← N` pointing at the root turn — marked `≈` when an uncertain comparison decided it, and
why: the failure reason with the field and the gold value. The standard library is enough for this;
a table library would add a dependency for column padding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from monitor.view.reports import UNCERTAIN, Row, Shown, shorten

WHY_CHARS = 120
COLUMNS = ("turn", "role", "what the agent did", "verdict", "why")
_COLOUR = {"root": "1;31", "cascade": "33", "pass": "32", "not scored": "2", "head": "1"}
UNCERTAIN_NOTE = f"≈ {UNCERTAIN}"


def render_text(conversations: Sequence[Shown], colour: bool = False) -> str:
    blocks = [_table(s, colour) for s in conversations]
    if any(r.uncertain for s in conversations for r in s.rows):
        blocks.append(UNCERTAIN_NOTE)
    return "\n\n".join(blocks) + "\n"


def _table(s: Shown, colour: bool) -> str:
    paint = _painter(colour)
    tone = "not scored" if s.report is None else "root" if s.failed else "pass"
    meta = "   ".join(
        f"{k} {v}"
        for k, v in (("agent", s.agent), ("release", s.release), ("reference", s.reference_id))
        if v
    )
    lines = [
        paint("head", f"━━ {s.key}") + "  " + paint(tone, s.headline()),
        f"   {s.origin}   {meta}".rstrip(),
    ]
    cells = [COLUMNS, *(_cells(r) for r in s.rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS) - 1)]
    for n, (cell, row) in enumerate(zip(cells, (None, *s.rows), strict=True)):
        padded = [
            c.rjust(w) if i == 0 else c.ljust(w) for i, (c, w) in enumerate(zip(cell, widths, strict=False))
        ]
        if row is not None:
            padded[3] = paint(row.verdict, padded[3])
        line = "  ".join([*padded, cell[-1]]).rstrip()
        lines.append(paint("head", line) if n == 0 else line)
    if s.left_out:
        lines.append(f"   not shown: {s.left_out}")
    return "\n".join(lines)


def _cells(r: Row) -> tuple[str, str, str, str, str]:
    verdict = {"root": "ROOT CAUSE", "cascade": f"cascade ← {r.root_turn}", "pass": "pass"}.get(
        r.verdict, r.verdict
    )
    if r.uncertain:
        verdict += " ≈"
    why = r.reason + (f" (showed {r.showed})" if r.showed else "")
    why = " — ".join(p for p in (why, r.evidence) if p)
    return (str(r.turn_no), r.role, shorten(r.did), verdict, shorten(why, WHY_CHARS))


def _painter(colour: bool) -> Callable[[str, str], str]:
    def paint(kind: str, text: str) -> str:
        return f"\x1b[{_COLOUR[kind]}m{text}\x1b[0m" if colour and text else text

    return paint
