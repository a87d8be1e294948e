"""CI regression gate: compare a run's aggregate report with a baseline. Pure.

In: two `AggregateReport`s and a `GateConfig`. Out: `GateResult` with failures, warnings and a
readable diff. The gate fails when
- the strict success rate (share of dialogs whose every turn passed) drops by more than
  `max_success_drop_points` percentage points (default 1.5);
- any failure reason's rate per dialog rises by more than `max_reason_rise` (default 20 %) relative to
  the baseline — a reason absent from the baseline counts as a rise once it is seen
  `min_reason_count` times;
and warns (never fails) when mean turn latency rises by more than `warn_latency_rise` (default 15 %).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from monitor.config import GateConfig
from monitor.model import AggregateReport


@dataclass
class GateResult:
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    diff: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def run_gate(baseline: AggregateReport, report: AggregateReport, config: GateConfig) -> GateResult:
    result = GateResult()
    b, r = baseline.strict_success_rate, report.strict_success_rate
    if b is not None and r is not None:
        drop = (b - r) * 100
        line = f"strict success rate  {100 * b:6.2f}% -> {100 * r:6.2f}%  ({-drop:+.2f} points)"
        result.diff.append(line)
        if drop > config.max_success_drop_points:
            result.failures.append(
                f"strict success rate dropped {drop:.2f} points (limit {config.max_success_drop_points})"
            )
    if baseline.success_rate is not None and report.success_rate is not None:
        result.diff.append(
            f"turn success rate    {100 * baseline.success_rate:6.2f}% -> {100 * report.success_rate:6.2f}%"
        )
    for name in sorted(set(baseline.sub_metrics) | set(report.sub_metrics)):
        bs, rs = baseline.sub_metrics.get(name), report.sub_metrics.get(name)
        if bs and rs and bs.rate is not None and rs.rate is not None:
            result.diff.append(f"  {name:<13}      {100 * bs.rate:6.2f}% -> {100 * rs.rate:6.2f}%")
    for reason in sorted(set(baseline.failure_reasons) | set(report.failure_reasons)):
        bc, rc = baseline.failure_reasons.get(reason, 0), report.failure_reasons.get(reason, 0)
        b_rate = bc / baseline.dialogs if baseline.dialogs else 0.0
        r_rate = rc / report.dialogs if report.dialogs else 0.0
        if b_rate > 0:
            rise = (r_rate - b_rate) / b_rate
            result.diff.append(
                f"{reason:<30} {bc:>5} -> {rc:>5}  ({b_rate:.3f} -> {r_rate:.3f} per dialog, {rise:+.0%})"
            )
            if rise > config.max_reason_rise and rc >= config.min_reason_count:
                result.failures.append(
                    f"{reason} rose {rise:.0%} per dialog (limit {config.max_reason_rise:.0%})"
                )
        else:
            result.diff.append(
                f"{reason:<30} {bc:>5} -> {rc:>5}  (new)" if rc else f"{reason:<30} {bc:>5} -> {rc:>5}"
            )
            if rc >= config.min_reason_count:
                result.failures.append(
                    f"{reason} appeared {'once' if rc == 1 else f'{rc} times'}; the baseline had none"
                )
    bl, rl = baseline.mean_turn_latency_ms, report.mean_turn_latency_ms
    if bl and rl is not None:
        rise = (rl - bl) / bl
        result.diff.append(f"mean turn latency    {bl:.1f} ms -> {rl:.1f} ms ({rise:+.0%})")
        if rise > config.warn_latency_rise:
            result.warnings.append(
                f"mean turn latency rose {rise:.0%} (warning above {config.warn_latency_rise:.0%})"
            )
    return result
