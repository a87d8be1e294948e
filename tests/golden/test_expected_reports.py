"""Reviewed expected reports: the whole report for the article's dialog, field for field.

Fields may be added to the report (then regenerate and review the diff:
`agent-monitor score examples/article_sales_report.json --out tests/golden/expected/article_sales_report.report.json`),
never renamed or dropped: dashboards and users' scripts read them.

Similarity scores are compared to two decimals: the int8 model's kernels differ by CPU instruction set
(AVX2 against AVX-512 VNNI), which moves a cosine by up to ~0.01 (revenue/profit: 0.7175 on one machine,
0.7137 on another). Every verdict, reason, field, rung and turn number is compared exactly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main
from tests.conftest import EXAMPLES

EXPECTED = Path(__file__).parent / "expected"


def _keys(value: Any, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        return {k for key, v in value.items() for k in {f"{prefix}{key}"} | _keys(v, f"{prefix}{key}.")}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v, f"{prefix}[].")}
    return set()


def test_article_report_matches_the_reviewed_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    assert main(["score", str(EXAMPLES / "article_sales_report.json"), "--out", str(out)]) == 0
    actual = json.loads(out.read_text())
    expected = json.loads((EXPECTED / "article_sales_report.report.json").read_text())
    missing = _keys(expected) - _keys(actual)
    assert not missing, f"report fields disappeared (contract break): {sorted(missing)}"
    for report in (actual, expected):  # where the input was read from depends on the invocation
        for dialog in report["dialogs"]:
            dialog.pop("source")
    assert _rounded(actual) == _rounded(expected)


_SCORE = re.compile(r"\b0\.\d{3,}\b")


def _rounded(value: Any) -> Any:
    """Scores to two decimals, also where a detail string quotes one."""
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, str):
        return _SCORE.sub(lambda m: f"{float(m.group()):.2f}", value)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value
