"""`show --html`: one self-contained page of conversations. Pure (Shown in, HTML text out).

The page needs nothing but itself: CSS, SVG and a small script are inline, and its Content-Security-
Policy forbids every fetch (`default-src 'none'`) and any script but its own (by hash), so it renders
the same offline, from a mail attachment or a CI artifact. Per conversation: a timeline of turn cards
(the root cause red, cascades amber, each cascade with an SVG arrow to its root turn), sub-metric
badges per turn and per conversation, and expandable details (the comparisons with gold, predicted,
score and rung). Above them, with more than one conversation, a list with filters: failed only, by
failure reason, by release.

Everything that comes from a report is agent or user content and is escaped (`html.escape`, quotes
too) wherever it lands; ids and numbers in attributes are made here, never taken from the report.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from html import escape
from typing import Any

from monitor.model import TurnVerdict
from monitor.view.reports import UNCERTAIN, Row, Shown, shorten

CARD_W, GAP, ARC_STEP = 210, 34, 16  # px: turn card width, space between cards, height per arc level
SPREAD = 36  # px between the arrow heads that end on one root card
VERDICT_LABEL = {"root": "ROOT CAUSE", "cascade": "CASCADE", "pass": "PASS", "not scored": "NOT SCORED"}
SUB_METRICS = ("structural", "completeness", "truthfulness")

_SCRIPT = """
(function () {
  var failed = document.getElementById("f-failed"), reason = document.getElementById("f-reason"),
      release = document.getElementById("f-release"), count = document.getElementById("f-count");
  function apply() {
    var shown = 0;
    document.querySelectorAll("[data-conv]").forEach(function (el) {
      var ok = (!failed || !failed.checked || el.dataset.failed === "1") &&
               (!reason || !reason.value || el.dataset.reasons.split(" ").indexOf(reason.value) >= 0) &&
               (!release || !release.value || el.dataset.release === release.value);
      el.hidden = !ok;
      if (ok && el.tagName === "TR") { shown += 1; }
    });
    if (count) { count.textContent = shown + " shown"; }
  }
  [failed, reason, release].forEach(function (el) { if (el) { el.addEventListener("change", apply); } });
  document.querySelectorAll(".turn[data-details]").forEach(function (card) {
    card.addEventListener("click", function () {
      var d = document.getElementById(card.dataset.details);
      d.open = true;
      d.scrollIntoView({block: "nearest"});
    });
  });
  apply();
})();
"""

_CSS = """
:root { --root: #c62828; --cascade: #e08a00; --pass: #2e7d32; --none: #757575; --ink: #1d1d1f; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink);
       margin: 0; padding: 16px 24px; background: #f6f7f9; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 0; }
code, pre { font: 12px/1.35 ui-monospace, "DejaVu Sans Mono", monospace; }
.muted { color: #5f6368; } .small { font-size: 12px; }
.filters { margin: 10px 0; display: flex; gap: 16px; align-items: center; }
table.list { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: 18px; }
table.list td, table.list th { border-bottom: 1px solid #e3e3e3; padding: 4px 8px; text-align: left; }
.conv { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 14px 16px; margin: 0 0 18px; }
.headline { font-size: 15px; margin: 6px 0; font-weight: 600; }
.badge { display: inline-block; border-radius: 4px; padding: 1px 6px; font-size: 12px; font-weight: 600;
         color: #fff; background: var(--none); margin-right: 4px; white-space: nowrap; }
.badge.root, .badge.fail { background: var(--root); } .badge.cascade { background: var(--cascade); }
.badge.pass { background: var(--pass); } .badge.na { background: #bdbdbd; color: #333; }
.badge.uncertain { background: #6a1b9a; }
.timeline { position: relative; overflow-x: auto; padding-bottom: 6px; }
.timeline svg { display: block; }
.arrow { fill: none; stroke: var(--cascade); stroke-width: 2.5; }
.arrow-label { fill: var(--cascade); font-size: 11px; font-weight: 600; }
ol.turns { list-style: none; margin: 0; padding: 0; display: flex; gap: GAPpx; }
.turn { width: CARD_Wpx; flex: none; border: 2px solid var(--pass); border-radius: 8px; padding: 8px;
        background: #fff; cursor: pointer; }
.turn.root { border: 4px solid var(--root); background: #fdecea; }
.turn.cascade { border: 2px dashed var(--cascade); background: #fff8e1; }
.turn.not-scored { border-color: #bbb; }
.turn .no { font-weight: 700; } .turn .tag { margin: 4px 0; }
.turn .did { display: block; word-break: break-word; margin: 4px 0; }
.turn .why { font-weight: 600; overflow-wrap: break-word; } .turn .ev { font-size: 12px; word-break: break-word; }
.turn.root .why { color: var(--root); } .turn.cascade .why { color: #8a5300; font-weight: 400; }
.turn.cascade .ev, .turn.cascade .did { color: #6d5a3a; }
details { margin: 4px 0; } summary { cursor: pointer; }
table.cmp { border-collapse: collapse; margin: 6px 0; } table.cmp td, table.cmp th
  { border: 1px solid #e0e0e0; padding: 2px 6px; vertical-align: top; font-size: 12px; }
pre { background: #f3f3f3; padding: 6px; overflow-x: auto; }
""".replace("CARD_W", str(CARD_W)).replace("GAP", str(GAP))


def render_html(conversations: Sequence[Shown], sources: str = "") -> str:
    failed = sum(s.failed for s in conversations)
    title = f"agent-monitor: {len(conversations)} conversation{'s' if len(conversations) != 1 else ''}"
    body = [
        f"<header><h1>{escape(title)}</h1><p class='muted'>{failed} failed · from {escape(sources)}</p></header>"
    ]
    if len(conversations) > 1:
        body.append(_list(conversations))
    body.extend(_conversation(i, s) for i, s in enumerate(conversations))
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    csp = f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; img-src data:"
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{csp}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )


# -- list view ----------------------------------------------------------------------------------


def _list(conversations: Sequence[Shown]) -> str:
    reasons = sorted({r for s in conversations for r in s.reasons})
    releases = sorted({s.release for s in conversations if s.release})
    rows = "".join(
        f"<tr {_filter_attrs(s)}><td><a href='#c-{i}'>{escape(s.key)}</a></td>"
        f"<td>{_verdict_badge(s)}</td><td>{_wrappable(s.headline())}</td>"
        f"<td>{escape(s.release or '')}</td><td>{escape(s.agent or '')}</td></tr>"
        for i, s in enumerate(conversations)
    )
    return (
        "<section id='list'><div class='filters'>"
        "<label><input type='checkbox' id='f-failed'> failed only</label>"
        f"<label>reason {_select('f-reason', 'any reason', reasons)}</label>"
        f"<label>release {_select('f-release', 'any release', releases)}</label>"
        "<span id='f-count' class='muted'></span></div>"
        "<table class='list'><thead><tr><th>conversation</th><th></th><th>what happened</th><th>release</th>"
        f"<th>agent</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _select(element_id: str, any_label: str, values: Sequence[str]) -> str:
    options = "".join(f"<option value='{escape(v)}'>{escape(v)}</option>" for v in values)
    return f"<select id='{element_id}'><option value=''>{escape(any_label)}</option>{options}</select>"


def _filter_attrs(s: Shown) -> str:
    return (
        f"data-conv='' data-failed='{int(s.failed)}' data-reasons='{escape(' '.join(s.reasons))}' "
        f"data-release='{escape(s.release or '')}'"
    )


def _verdict_badge(s: Shown) -> str:
    if s.report is None:
        return "<span class='badge na'>NOT SCORED</span>"
    return "<span class='badge fail'>FAIL</span>" if s.failed else "<span class='badge pass'>PASS</span>"


# -- one conversation ---------------------------------------------------------------------------


def _conversation(i: int, s: Shown) -> str:
    meta = " · ".join(
        f"{k} {escape(v)}"
        for k, v in (
            ("agent", s.agent),
            ("release", s.release),
            ("reference", s.reference_id),
            ("from", s.origin),
        )
        if v
    )
    sub = ""
    if s.report is not None:
        sub = "<div class='sub'>" + "".join(
            _badge(name, stats.rate, f"{stats.passed}/{stats.passed + stats.failed}")
            for name, stats in s.report.sub_metrics.items()
        )
        if s.report.uncertain_comparisons:
            sub += f"<span class='badge uncertain'>≈ {s.report.uncertain_comparisons} uncertain</span>"
        sub += "</div>"
    left_out = f"<p class='muted small'>not shown: {escape(s.left_out)}</p>" if s.left_out else ""
    return (
        f"<article class='conv' id='c-{i}' {_filter_attrs(s)}>"
        f"<h2>{_verdict_badge(s)}{escape(s.key)}</h2><p class='headline'>{_wrappable(s.headline())}</p>"
        f"<p class='muted small'>{meta}</p>{sub}{_timeline(i, s.rows)}{left_out}"
        f"<div class='details'>{''.join(_details(i, r) for r in s.rows)}</div></article>"
    )


def _wrappable(text: str) -> str:
    """Escaped, with a line-break opportunity after each underscore: a long failure reason such as
    `inconsistent_parameter_values` wraps between its words, never inside one."""
    return escape(text).replace("_", "_<wbr>")


def _timeline(i: int, rows: Sequence[Row]) -> str:
    index = {r.turn_no: k for k, r in enumerate(rows)}
    arrows = [(k, index[r.root_turn], r) for k, r in enumerate(rows) if r.root_turn in index]
    width = len(rows) * (CARD_W + GAP)
    height = 22 + ARC_STEP * max((abs(a - b) for a, b, _ in arrows), default=0)
    paths = []
    for k, (src, dst, row) in enumerate(arrows):
        into = [a for a in arrows if a[1] == dst]
        x1, x2 = _centre(src), _centre(dst) + SPREAD * (2 * into.index(arrows[k]) + 1 - len(into)) // 2
        top = height - 4 - ARC_STEP * abs(src - dst)
        paths.append(
            f"<path class='arrow' data-from='{row.turn_no}' data-to='{row.root_turn}' marker-end='url(#ah-{i})' "
            f"d='M {x1} {height} C {x1} {top} {x2} {top} {x2} {height - 2}'/>"
            f"<text class='arrow-label' x='{x1 + 6}' y='{height - 6}'>from turn {row.root_turn}</text>"
        )
    svg = ""
    if arrows:
        svg = (
            f"<svg class='arrows' width='{width}' height='{height + 2}' role='img' "
            f"aria-label='{len(arrows)} cascade arrows to their root turns'>"
            f"<defs><marker id='ah-{i}' viewBox='0 0 10 10' refX='5' refY='8' markerWidth='7' markerHeight='7' "
            "orient='auto-start-reverse'><path d='M0,0 L10,0 L5,10 z' fill='#e08a00'/></marker></defs>"
            + "".join(paths)
            + "</svg>"
        )
    cards = "".join(_card(i, r) for r in rows)
    return f"<div class='timeline'>{svg}<ol class='turns' style='width:{width}px'>{cards}</ol></div>"


def _centre(k: int) -> int:
    return k * (CARD_W + GAP) + CARD_W // 2


def _card(i: int, r: Row) -> str:
    tag = VERDICT_LABEL[r.verdict]
    if r.verdict == "cascade":
        tag += f" ← turn {r.root_turn}"
    badges = "".join(_check_badge(name, r.turn) for name in SUB_METRICS) if r.turn is not None else ""
    if r.uncertain:
        badges += f"<span class='badge uncertain' title='{escape(UNCERTAIN, quote=True)}'>≈</span>"
    ev = "; ".join(p for p in (f"showed {r.showed}" if r.showed else "", r.evidence) if p)
    return (
        f"<li class='turn {r.verdict.replace(' ', '-')}' data-turn='{r.turn_no}' data-verdict='{r.verdict}' "
        f"data-details='c-{i}-d-{r.turn_no}'>"
        f"<div class='no'>turn {r.turn_no} · {escape(r.role)}</div>"
        f"<div class='tag'><span class='badge {r.verdict.replace(' ', '-')}'>{escape(tag)}</span></div>"
        f"<code class='did'>{escape(shorten(r.did, 90))}</code>"
        f"<div class='why'>{_wrappable(r.reason)}</div><div class='ev'>{_wrappable(shorten(ev, 160))}</div>"
        f"<div class='scores'>{badges}</div></li>"
    )


def _check_badge(name: str, t: TurnVerdict | None) -> str:
    check = next((c for c in t.checks if c.sub_metric == name), None) if t is not None else None
    if check is None or check.passed is None:
        return f"<span class='badge na' title='{name}: not evaluated'>{name[0].upper()} –</span>"
    score = "" if check.score is None else f" {check.score:.2f}"
    tone = "pass" if check.passed else "root"
    return f"<span class='badge {tone}' title='{name}'>{name[0].upper()}{score}</span>"


def _badge(name: str, rate: float | None, label: str) -> str:
    tone = "na" if rate is None else "pass" if rate == 1 else "root"
    return f"<span class='badge {tone}'>{escape(name)} {escape(label)}</span>"


def _details(i: int, r: Row) -> str:
    head = f"turn {r.turn_no} · {VERDICT_LABEL[r.verdict]}" + (f" · {r.reason}" if r.reason else "")
    parts = [f"<p><code>{escape(r.did)}</code></p>"]
    t = r.turn
    if t is not None:
        if t.detail:
            parts.append(f"<p>{escape(t.detail)}</p>")
        if t.comparisons:
            parts.append(
                "<table class='cmp'><tr><th>field</th><th>gold</th><th>predicted</th><th>equal</th><th>score</th>"
                "<th>rung</th><th>note</th></tr>"
                + "".join(
                    f"<tr><td>{escape(c.field)}</td><td>{_json(c.gold)}</td><td>{_json(c.predicted)}</td>"
                    f"<td>{'yes' if c.equal else 'no'}{' ≈ uncertain' if c.uncertain else ''}</td>"
                    f"<td>{'' if c.score is None else f'{c.score:.3f}'}</td><td>{escape(str(c.rung))}</td>"
                    f"<td>{escape(c.note)}</td></tr>"
                    for c in t.comparisons
                )
                + "</table>"
            )
        if t.provenance:
            parts.append(
                "<table class='cmp provenance'><tr><th>argument</th><th>came from</th><th>turn</th><th>kind</th></tr>"
                + "".join(
                    f"<tr><td>{escape(path)}</td><td>{escape(str(p.get('source')))}"
                    f"{' (only a result of ungrounded turn ' + str(p['tainted_by']) + ')' if p.get('tainted_by') else ''}"
                    f"</td><td>{escape(str(p.get('turn', '')))}</td><td>{escape(str(p.get('kind')))}</td></tr>"
                    for path, p in t.provenance.items()
                )
                + "</table>"
            )
        deps = ", ".join(str(d) for d in t.depends_on) or "none"
        parts.append(
            f"<p class='small muted'>depends on: {deps} · reference: {escape(t.reference or '-')}</p>"
        )
        if t.predicted is not None:
            parts.append(f"<pre>{_json(t.predicted, indent=2)}</pre>")
    elif r.evidence:
        parts.append(f"<p>{escape(r.evidence)}</p>")
    return f"<details id='c-{i}-d-{r.turn_no}'><summary>{escape(head)}</summary>{''.join(parts)}</details>"


def _json(value: Any, indent: int | None = None) -> str:
    text = (
        value
        if isinstance(value, str) and indent is None
        else json.dumps(value, ensure_ascii=False, indent=indent)
    )
    return escape(text)
