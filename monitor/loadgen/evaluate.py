"""Load generator, part 4: the monitor's reports against the generator's truth. Pure.

In: truth records (`truth.jsonl`) and the reports the monitor wrote (JSONL; the highest `version` of
each conversation counts, as a consumer of the reports topic would keep). Out: the figures issue 8
asks for — per-turn verdict accuracy, failure-reason accuracy, root-cause and cascade precision and
recall, cascade root-turn accuracy, first-failure-turn accuracy — plus a breakdown by injected fault
and the most frequent disagreements, so a miss can be traced to its cause.

Report rows (Agent and Tool turns; user turns are context and have none) map to the truth's judged
turns in order of the live turns (rows with a `predicted` side); a gold turn
the monitor reported as `missing_action` is counted as a disagreement of its own (`extra_rows`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

CASCADE = "prior_action_failed"


@dataclass
class Score:
    conversations: int = 0
    reported: int = 0
    turns: int = 0
    verdict_ok: int = 0
    failed_turns: int = 0
    reason_ok: int = 0
    roots_true: int = 0
    roots_predicted: int = 0
    roots_both: int = 0
    cascades_true: int = 0
    cascades_predicted: int = 0
    cascades_both: int = 0
    cascade_root_ok: int = 0
    first_failure_ok: int = 0
    test_pass_ok: int = 0
    extra_rows: int = 0
    by_fault: dict[str, Counter[str]] = field(default_factory=dict)
    disagreements: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "conversations": self.conversations,
            "reported": self.reported,
            "turns": self.turns,
            "verdict_accuracy": ratio(self.verdict_ok, self.turns),
            "reason_accuracy": ratio(self.reason_ok, self.failed_turns),
            "root_cause_precision": ratio(self.roots_both, self.roots_predicted),
            "root_cause_recall": ratio(self.roots_both, self.roots_true),
            "cascade_precision": ratio(self.cascades_both, self.cascades_predicted),
            "cascade_recall": ratio(self.cascades_both, self.cascades_true),
            "cascade_root_turn_accuracy": ratio(self.cascade_root_ok, self.cascades_both),
            "first_failure_turn_accuracy": ratio(self.first_failure_ok, self.reported),
            "test_pass_accuracy": ratio(self.test_pass_ok, self.reported),
            "extra_rows": self.extra_rows,
            "by_fault": {
                k: {
                    "turns": c["turns"],
                    "verdict_accuracy": ratio(c["verdict_ok"], c["turns"]),
                    "reason_accuracy": ratio(c["reason_ok"], c["turns"]),
                }
                for k, c in sorted(self.by_fault.items())
            },
            "top_disagreements": dict(self.disagreements.most_common(12)),
        }


def evaluate(truth: Iterable[Mapping[str, Any]], reports: Mapping[str, Mapping[str, Any]]) -> Score:
    score = Score()
    for record in truth:
        score.conversations += 1
        report = reports.get(str(record["conversation_id"]))
        truth_turns = record["turns"]
        judged = [t for t in truth_turns if t["success"] is not None]
        score.turns += len(judged)
        for t in judged:
            if not t["success"]:
                score.failed_turns += 1
                if t.get("failure_reason") == CASCADE:
                    score.cascades_true += 1
                else:
                    score.roots_true += 1
        if report is None:
            score.disagreements["conversation not reported"] += 1
            continue
        score.reported += 1
        rows = [r for r in report.get("turns", []) if r.get("predicted") is not None]
        score.extra_rows += len(report.get("turns", [])) - len(rows)
        row_no = {t["turn_no"]: row["turn_no"] for t, row in zip(judged, rows, strict=False)}
        for i, t in enumerate(judged):
            _turn(score, t, rows[i] if i < len(rows) else None, row_no)
        expected_first = record.get("first_failure_turn")
        expected_row = row_no.get(expected_first) if expected_first is not None else None
        if report.get("first_failure_turn") == expected_row:
            score.first_failure_ok += 1
        if bool(report.get("test_pass")) == (expected_first is None):
            score.test_pass_ok += 1
    return score


def _turn(
    score: Score, t: Mapping[str, Any], row: Mapping[str, Any] | None, row_no: Mapping[int, int]
) -> None:
    fault = t.get("fault") or (CASCADE if t.get("failure_reason") == CASCADE else "none")
    tally = score.by_fault.setdefault(fault, Counter())
    tally["turns"] += 1
    success = row.get("success") if row else None
    reason = row.get("failure_reason") if row else None
    verdict_ok = row is not None and bool(success) == bool(t["success"])
    reason_ok = verdict_ok and (t["success"] or reason == t.get("failure_reason"))
    score.verdict_ok += verdict_ok
    tally["verdict_ok"] += verdict_ok
    tally["reason_ok"] += reason_ok
    if not t["success"]:
        score.reason_ok += reason_ok
    if row is not None and not success:
        if reason == CASCADE:
            score.cascades_predicted += 1
        else:
            score.roots_predicted += 1
    if row is not None and not success and not t["success"]:
        if reason == CASCADE and t.get("failure_reason") == CASCADE:
            score.cascades_both += 1
            if row.get("root_turn") == row_no.get(int(t.get("root_turn") or 0)):
                score.cascade_root_ok += 1
        elif reason != CASCADE and t.get("failure_reason") != CASCADE:
            score.roots_both += 1
    if not reason_ok:
        expected = "pass" if t["success"] else t.get("failure_reason")
        got = "no row" if row is None else "pass" if success else reason
        score.disagreements[f"{fault}: expected {expected}, got {got}"] += 1
