"""Aggregate dialog reports into one run summary; flatten turns for CSV. Pure.

In: `DialogReport`s (and the inputs that could not be read). Out: an `AggregateReport` — overall and
strict success rates, per-sub-metric rates, the failure-reason distribution (all failures and root
causes only), root-cause vs cascade counts, success by action-chain length — and CSV rows, one per
turn, for people. Also the one dedupe of streaming reports that every reader of them applies.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from monitor.model import AggregateReport, ChainStats, DialogReport, FailureReason, SubMetricStats
from monitor.words import counted

CSV_COLUMNS = (
    "dialog_id",
    "turn_no",
    "gold_turn_no",
    "role",
    "type",
    "success",
    "failure_reason",
    "observed_failure_reason",
    "sub_metric",
    "fields",
    "root_turn",
    "depends_on",
    "chain_no",
    "chain_length",
    "structural",
    "completeness",
    "truthfulness",
    "uncertain",
    "unscorable",
    "predicted",
    "detail",
)


def latest_reports(reports: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The report that counts per conversation (the documented dedupe): most `spans`, then the highest
    `version`, then the later one — among the versions no later report `replaces` (spans moved out of
    the conversation after those were written); none for an id when the report so chosen is of a lower
    version than one `merged_into` another (its spans are in that one's report). A `score` report has
    neither and no `conversation_id`: by `dialog_id`."""
    reports = list(reports)
    replaced: dict[str, int] = {}  # id -> the highest version a later report replaces
    merged: dict[str, int] = {}  # id -> the version that merged it into another
    for r in reports:
        cid = str(r.get("conversation_id", r.get("dialog_id")))
        if r.get("replaces"):
            replaced[cid] = max(replaced.get(cid, 0), int(r["replaces"]))
        if r.get("merged_into"):
            merged[cid] = max(merged.get(cid, 0), r.get("version") or 0)
    best: dict[str, Mapping[str, Any]] = {}
    for r in reports:
        cid = str(r.get("conversation_id", r.get("dialog_id")))
        if r.get("merged_into") or (cid in replaced and (r.get("version") or 0) <= replaced[cid]):
            continue
        old = best.get(cid)
        if old is None or _rank(r) >= _rank(old):
            best[cid] = r
    for cid, version in merged.items():
        if cid in best and (best[cid].get("version") or 0) < version:
            del best[cid]
    return best


def _rank(report: Mapping[str, Any]) -> tuple[int, int]:
    return (report.get("spans") or 0, report.get("version") or 0)


def aggregate(reports: Sequence[DialogReport], rejected: Sequence[str] = ()) -> AggregateReport:
    turns = [t for r in reports for t in r.turns]
    sub: dict[str, list[int]] = {}
    for r in reports:
        for name, stats in r.sub_metrics.items():
            acc = sub.setdefault(name, [0, 0])
            acc[0] += stats.passed
            acc[1] += stats.failed
    chains: dict[str, list[int]] = {}
    for r in reports:
        for bucket, c in r.chain_lengths.items():
            acc = chains.setdefault(bucket, [0, 0, 0, 0])
            for i, v in enumerate((c.chains, c.chains_passed, c.turns, c.turns_passed)):
                acc[i] += v
    failures = Counter(str(t.failure_reason) for t in turns if not t.success)
    roots = Counter(
        str(t.failure_reason)
        for t in turns
        if not t.success and t.failure_reason is not FailureReason.PRIOR_ACTION_FAILED
    )
    latencies = [t.latency_ms for t in turns if t.latency_ms is not None]
    passed = sum(r.test_pass for r in reports)
    return AggregateReport(
        dialogs=len(reports),
        dialogs_passed=passed,
        strict_success_rate=_rate(passed, len(reports)),
        turns=len(turns),
        turns_passed=sum(t.success for t in turns),
        success_rate=_rate(sum(t.success for t in turns), len(turns)),
        mean_dialog_success_rate=_rate(sum(r.success_rate for r in reports), len(reports)),
        sub_metrics={
            n: SubMetricStats(passed=p, failed=f, rate=_rate(p, p + f)) for n, (p, f) in sub.items()
        },
        failure_reasons=dict(failures.most_common()),
        root_cause_reasons=dict(roots.most_common()),
        root_cause_count=sum(r.root_cause_count for r in reports),
        cascading_count=sum(r.cascading_count for r in reports),
        chain_lengths={
            b: ChainStats(
                chains=c,
                chains_passed=cp,
                turns=t,
                turns_passed=tp,
                chain_success_rate=_rate(cp, c),
                turn_success_rate=_rate(tp, t),
            )
            for b, (c, cp, t, tp) in sorted(chains.items())
        },
        uncertain_comparisons=sum(r.uncertain_comparisons for r in reports),
        unscorable_comparisons=sum(r.unscorable_comparisons for r in reports),
        mean_turn_latency_ms=round(sum(latencies) / len(latencies), 3) if latencies else None,
        rejected=tuple(rejected),
    )


def csv_rows(reports: Sequence[DialogReport]) -> Iterator[dict[str, Any]]:
    for r in reports:
        for t in r.turns:
            yield {
                "dialog_id": r.dialog_id,
                "turn_no": t.turn_no,
                "gold_turn_no": t.gold_turn_no,
                "role": t.role,
                "type": t.type,
                "success": t.success,
                "failure_reason": t.failure_reason or "",
                "observed_failure_reason": t.observed_failure_reason or "",
                "sub_metric": t.sub_metric or "",
                "fields": ";".join(t.fields),
                "root_turn": t.root_turn or "",
                "depends_on": ";".join(str(d) for d in t.depends_on),
                "chain_no": t.chain_no or "",
                "chain_length": t.chain_length or "",
                "structural": _num(t.scores.get("structural")),
                "completeness": _num(t.scores.get("completeness")),
                "truthfulness": _num(t.scores.get("truthfulness")),
                "uncertain": t.uncertain,
                "unscorable": t.unscorable,
                "predicted": json.dumps(t.predicted, ensure_ascii=False),
                "detail": t.detail,
            }


def summary_text(agg: AggregateReport) -> str:
    """A few readable lines for the terminal."""
    lines = [
        f"{counted(agg.dialogs, 'dialog')} (passed {agg.dialogs_passed}, strict success "
        f"{_pct(agg.strict_success_rate)}); {counted(agg.turns, 'turn')} (success rate {_pct(agg.success_rate)})",
        "sub-metrics: " + ", ".join(f"{n} {_pct(s.rate)}" for n, s in agg.sub_metrics.items()),
        f"failures: {counted(agg.root_cause_count, 'root cause')}, {counted(agg.cascading_count, 'cascade')}"
        + (f" — root causes by reason: {agg.root_cause_reasons}" if agg.root_cause_reasons else ""),
    ]
    if agg.chain_lengths:
        lines.append(
            "by chain length: "
            + ", ".join(
                f"{b}: {_pct(c.turn_success_rate)} of {counted(c.turns, 'turn')}"
                for b, c in agg.chain_lengths.items()
            )
        )
    if agg.uncertain_comparisons or agg.unscorable_comparisons:
        lines.append(
            f"review: {counted(agg.uncertain_comparisons, 'uncertain comparison')}, "
            f"{agg.unscorable_comparisons} unscorable"
        )
    if agg.rejected:
        lines.append(f"rejected inputs: {len(agg.rejected)} (listed in the report's 'rejected')")
    return "\n".join(lines)


def _rate(n: float, d: float) -> float | None:
    return round(n / d, 6) if d else None


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:.4f}"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"
