"""Compose per-turn verdicts into one dialog score and a pass/fail (the article: pluggable). Pure.

Rules (`CompositionConfig.rule`):
- `mean` (default): unweighted mean of passing turns; the dialog passes when every turn passes.
- `weighted`: mean weighted by each turn's `weight` (turns that cost more when wrong count more);
  passes when every turn passes.
- `gating`: the mean, capped at `gate_cap` when any turn marked `critical` fails; passes when every
  turn passes.
- `sub_metric_thresholds`: the mean; the dialog passes when each sub-metric's pass rate reaches its
  own bar (a sub-metric that was never evaluated does not block).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from monitor.config import CompositionConfig
from monitor.model import SubMetricStats, TurnVerdict


def compose(
    verdicts: Sequence[TurnVerdict], sub_metrics: Mapping[str, SubMetricStats], config: CompositionConfig
) -> tuple[float, bool]:
    """(score, test_pass) of a dialog under the configured rule."""
    if not verdicts:
        return 1.0, True
    mean = sum(v.success for v in verdicts) / len(verdicts)
    all_pass = all(v.success for v in verdicts)
    if config.rule == "weighted":
        total = sum(v.weight for v in verdicts)
        score = sum(v.weight for v in verdicts if v.success) / total if total > 0 else mean
        return score, all_pass
    if config.rule == "gating":
        if any(v.critical and not v.success for v in verdicts):
            return min(mean, config.gate_cap), False
        return mean, all_pass
    if config.rule == "sub_metric_thresholds":
        passes = all(
            stats.rate is None or stats.rate >= config.sub_metric_thresholds.get(name, 1.0)  # type: ignore[call-overload]
            for name, stats in sub_metrics.items()
        )
        return mean, passes
    return mean, all_pass
