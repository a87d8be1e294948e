"""Reports as `show` presents them: read, dedupe, filter, and one row per turn. I/O (reads files).

In: paths of `run` / `replay` / `consume` JSONL (one report per line; per conversation the documented
dedupe keeps one: most `spans`, then highest `version`, then the later line; none for an id merged into
another) or of a `score` JSON
document (`{"aggregate", "dialogs"}`). Out: `Shown` conversations in first-seen order, each with its
`Row`s — what the agent did, the verdict (pass, root cause, cascade with its root turn, not scored),
the reason and its evidence (field, gold and predicted values) — and the problems found, each naming
file and line. A bad line never hides the good ones. Report content is shown as written: the monitor
redacted it before it left the process, and nothing here un-redacts or re-reads the spans.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from monitor.model import DialogReport, FailureReason, Rung, TurnVerdict
from monitor.report import latest_reports
from monitor.words import counted

Verdict = Literal["pass", "root", "cascade", "not scored"]
SHORT_CHARS = 60  # what the agent did, in a table cell

#: what the ≈ mark of a turn means, in the terminal's legend and the page's tooltip
UNCERTAIN = (
    "uncertain: a comparison in the band between the thresholds (no judge), or a value nobody could see"
)


@dataclass(frozen=True)
class Row:
    """One turn as a person reads it."""

    turn_no: int
    role: str
    did: str  # tool + arguments, or the reply; one line, not shortened (renderers shorten)
    verdict: Verdict
    reason: str = ""  # the failure reason
    showed: str = ""  # for a cascade, the failure it showed before attribution
    evidence: str = ""  # the fields and gold values that decided, e.g. "metric: gold 'revenue', got 'profit'"
    root_turn: int | None = None
    uncertain: bool = False
    turn: TurnVerdict | None = None  # the full verdict, for details


@dataclass(frozen=True)
class Shown:
    """One conversation (or `score` dialog) to show."""

    key: str
    origin: str  # file:line (JSONL) or file: dialogs[i] (score)
    rows: tuple[Row, ...]
    report: DialogReport | None = None  # None: not scored
    agent: str | None = None
    release: str | None = None
    reference_id: str | None = None
    unscored_reason: str | None = None
    left_out: str = ""  # the turns that have no row, and why ("turns 1, 3 (the user's messages)")

    @property
    def failed(self) -> bool:
        return self.report is not None and not self.report.test_pass

    @property
    def reasons(self) -> tuple[str, ...]:
        """The failure reasons of its turns, in turn order: the list view's filter."""
        return tuple(dict.fromkeys(r.reason for r in self.rows if r.reason))

    @property
    def root_turns(self) -> tuple[int, ...]:
        return tuple(r.turn_no for r in self.rows if r.verdict == "root")

    def headline(self) -> str:
        """One line: pass, or which turn broke and how many turns only inherited it."""
        if self.report is None:
            return f"not scored ({self.unscored_reason or 'no reference'})"
        if self.report.test_pass:
            return f"PASS — {counted(len(self.rows), 'turn')}, success {_pct(self.report.success_rate)}"
        roots = [r for r in self.rows if r.verdict == "root"]
        cascades = [r for r in self.rows if r.verdict == "cascade"]
        broke = ", ".join(f"{r.turn_no} ({r.reason})" for r in roots)
        text = f"FAIL — turn{_s(roots)} {broke} broke" if roots else "FAIL"
        if cascades:
            text += f"; turn{_s(cascades)} {_numbers(cascades)} only inherited it (cascade)"
        return f"{text}; success {_pct(self.report.success_rate)}"


@dataclass
class Loaded:
    conversations: list[Shown] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read_reports(paths: Sequence[Path]) -> Loaded:
    """Every report in `paths`, deduped per conversation, with a problem line for each bad input."""
    loaded = Loaded()
    candidates: list[dict[str, Any]] = []
    origin: dict[int, str] = {}
    for path in paths:
        for where, data in _documents(path, loaded.problems):
            problem = _problem(data)
            if problem:
                loaded.problems.append(f"{where}: {problem}")
                continue
            candidates.append(data)
            origin[id(data)] = where
    for key, data in latest_reports(candidates).items():
        loaded.conversations.append(_shown(key, dict(data), origin[id(data)]))
    return loaded


def headline_of(report: Mapping[str, Any], origin: str = "") -> str:
    """One conversation report (a JSONL line's object) as one line: its id, `Shown.headline` and what
    it was scored against (gold, a policy, or the built-in policy and grounding)."""
    shown = _shown(str(report.get("conversation_id") or report.get("dialog_id") or "?"), dict(report), origin)
    policy = (report.get("process") or {}).get("policy")
    if report.get("reference_id"):
        against = f"  (gold {report['reference_id']})"
    elif policy == "builtin":
        against = "  (no gold: built-in policy and grounding)"
    elif policy:
        against = f"  (policy {policy})"
    else:
        against = ""
    return f"{shown.key:<26} {shown.headline()}{against}"


def select(
    shown: Sequence[Shown], conversation: str | None = None, failed: bool = False, release: str | None = None
) -> list[Shown]:
    return [
        s
        for s in shown
        if (conversation is None or s.key == conversation)
        and (not failed or s.failed)
        and (release is None or s.release == release)
    ]


def shorten(text: str, limit: int = SHORT_CHARS) -> str:
    """One line of at most `limit` characters, cut with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# -- reading ------------------------------------------------------------------------------------


def _documents(path: Path, problems: list[str]) -> Iterator[tuple[str, Any]]:
    """(where, parsed JSON) for each report in the file: a score document's dialogs, or JSONL lines."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})")
        return
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("dialogs"), list):
        for i, dialog in enumerate(whole["dialogs"]):
            yield f"{path}: dialogs[{i}]", dialog
        return
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"{path}:{n}", json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{n}: not JSON ({exc.msg} at column {exc.colno}); line skipped")


def _problem(data: Any) -> str:
    if not isinstance(data, dict):
        return f"not a report (a JSON {type(data).__name__}, not an object); line skipped"
    if "turns" in data:
        try:
            DialogReport.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            return f"not a dialog report ({loc}: {err['msg']}); line skipped"
        return ""
    if isinstance(data.get("observed_turns"), list) and "conversation_id" in data:
        return ""
    return "not an agent-monitor report (no 'turns' nor 'observed_turns'); line skipped"


def _shown(key: str, data: dict[str, Any], origin: str) -> Shown:
    agent, release, reference_id = (_str(data.get(k)) for k in ("agent", "release", "reference_id"))
    if "turns" not in data:
        rows = tuple(_observed_row(t) for t in data["observed_turns"] if isinstance(t, dict))
        reason = _str(data.get("unscored_reason")) or "no reference"
        return Shown(key, origin, rows, None, agent, release, reference_id, unscored_reason=reason)
    report = DialogReport.model_validate(data)
    rows = tuple(_row(t) for t in report.turns)
    # the observed turns the rows judge (reports before `live_turn_no` existed: the row's own number)
    judged = {t.get("live_turn_no", t.get("turn_no")) for t in data.get("turns") or [] if isinstance(t, dict)}
    left_out = _left_out(data, {n for n in judged if isinstance(n, int)})
    return Shown(key, origin, rows, report, agent, release, reference_id, left_out=left_out)


#: why a live turn has no verdict row, by `UnmatchedTurn.why`
FREE_WHY = {
    "reply_without_gold": "replies no gold turn asks for",
    "read_only": "read-only calls no gold turn asks for",
    "allowed_extra": "extra calls the reference allows",
    "recovered_attempt": "failed attempts the agent recovered from",
}


def _left_out(data: Mapping[str, Any], shown: set[int]) -> str:
    """The observed turns without a verdict row, grouped by why: user messages are not scored, and a
    turn the gold or policy does not ask for is free (`unmatched`)."""
    observed = data.get("observed_turns")
    if not isinstance(observed, list):
        return ""
    free = {
        u.get("live_turn_no"): FREE_WHY.get(str(u.get("why")), str(u.get("why")))
        for u in data.get("unmatched") or []
        if isinstance(u, dict)
    }
    groups: dict[str, list[int]] = {}
    for t in observed:
        no = t.get("turn_no") if isinstance(t, dict) else None
        if not isinstance(no, int) or no in shown:
            continue
        why = "the user's messages" if t.get("role") == "User" else free.get(no, "no verdict in the report")
        groups.setdefault(why, []).append(no)
    return "; ".join(f"{_turns(nos)} ({why})" for why, nos in groups.items())


def _turns(nos: Sequence[int]) -> str:
    return f"turn{'s' if len(nos) != 1 else ''} {', '.join(str(n) for n in nos)}"


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


# -- rows ---------------------------------------------------------------------------------------


def _row(t: TurnVerdict) -> Row:
    did = describe(t.predicted, t.provenance)
    if t.success:
        return Row(t.turn_no, t.role, did, "pass", uncertain=t.uncertain, turn=t)
    cascade = t.failure_reason is FailureReason.PRIOR_ACTION_FAILED
    return Row(
        t.turn_no,
        t.role,
        did,
        "cascade" if cascade else "root",
        reason=str(t.failure_reason or ""),
        showed=str(t.observed_failure_reason or "") if cascade else "",
        evidence=_evidence(t),
        root_turn=t.root_turn if cascade else None,
        uncertain=t.uncertain,
        turn=t,
    )


def _observed_row(t: Mapping[str, Any]) -> Row:
    no = t.get("turn_no")
    predicted = t.get("predicted")
    return Row(
        no if isinstance(no, int) else 0,
        str(t.get("role", "")),
        describe(predicted if isinstance(predicted, dict) else None),
        "not scored",
        evidence=str(t.get("error") or ""),
    )


def describe(predicted: Mapping[str, Any] | None, provenance: Mapping[str, Any] | None = None) -> str:
    """What the agent did: `tool.action(arg="value", …)` for a call, the quoted reply for a reply; with
    grounding's provenance, each argument marked with where its value came from (`source_mark`)."""
    if predicted is None:
        return "(nothing: no live turn matched)"
    if predicted.get("unrecorded"):
        return "(a reply no span recorded)"
    if "response" in predicted:
        return json.dumps(str(predicted["response"]), ensure_ascii=False)
    tool, action = str(predicted.get("tool_id", "?")), str(predicted.get("action", "?"))
    name = tool if tool == action else f"{tool}.{action}"
    args = predicted.get("args")
    if isinstance(args, dict):
        inner = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}{source_mark(provenance, str(k))}"
            for k, v in args.items()
        )
    else:
        inner = json.dumps(args, ensure_ascii=False)
    error = f" → error: {predicted['error']}" if predicted.get("error") else ""
    return f"{name}({inner}){error}"


#: How `show` names a value's source: the turn it came from, like a cascade's arrow to its root.
_SOURCE_MARKS = {"user": "user", "tool_result": "turn", "system": "system", "tool_definition": "schema",
                 "computed": "computed", "redacted": "redacted"}  # fmt: skip


def source_mark(provenance: Mapping[str, Any] | None, key: str) -> str:
    """` ‹user 3›`, ` ‹turn 5›`, ` ‹system›`, ` ‹schema›`, ` ‹computed›`, ` ‹nowhere›` for an identifying
    value nothing stated, ` ‹turn 4, ungrounded›` for one only an ungrounded call's result gave; "" for free
    text and where grounding did not run. A nested argument takes its leaves' worst source."""
    if not provenance:
        return ""
    leaves = [p for path, p in provenance.items() if path == key or path.startswith((f"{key}.", f"{key}["))]
    leaves = [p for p in leaves if isinstance(p, dict)]
    tainted = next((p["tainted_by"] for p in leaves if p.get("checked") and p.get("tainted_by")), None)
    if tainted is not None:
        return f" ‹turn {tainted}, ungrounded›"
    if any(p.get("checked") and p.get("source") == "agent" for p in leaves):
        return " ‹nowhere›"
    if len(leaves) != 1 or leaves[0].get("source") not in _SOURCE_MARKS:
        return ""
    p = leaves[0]
    turn = f" {p['turn']}" if p.get("turn") is not None else ""
    return f" ‹{_SOURCE_MARKS[p['source']]}{turn}›"


_GROUNDING = frozenset({FailureReason.UNGROUNDED_PARAMETER_VALUE, FailureReason.UNSUPPORTED_CLAIM})


def _evidence(t: TurnVerdict) -> str:
    """The field and gold value behind a failure: the comparisons that differ, else the fields named;
    for a grounding failure (no gold) what nothing stated."""
    if t.failure_reason in _GROUNDING or t.observed_failure_reason in _GROUNDING:
        return t.detail
    compared = [c for c in t.comparisons if c.rung is not Rung.UNRECORDED]  # nothing was compared there
    differing = [c for c in compared if not c.equal and c.field in t.fields] or [
        c for c in compared if not c.equal
    ]
    if differing:
        return "; ".join(
            f"{c.field}: gold {_value(c.gold)}, got {_value(c.predicted)}"
            + (" (uncertain)" if c.uncertain else "")
            for c in differing[:3]
        )
    if t.fields:
        return "fields: " + ", ".join(t.fields)
    return t.detail


def _value(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return repr(shorten(text, 40)) if isinstance(v, str) else shorten(text, 40)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _s(rows: Sequence[Row]) -> str:
    return "s" if len(rows) != 1 else ""


def _numbers(rows: Sequence[Row]) -> str:
    nos = [r.turn_no for r in rows]
    if len(nos) > 1 and nos == list(range(nos[0], nos[-1] + 1)):
        return f"{nos[0]}–{nos[-1]}"
    return ", ".join(str(n) for n in nos)
