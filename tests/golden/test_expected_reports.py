"""Reviewed expected reports: the whole report for the article's dialog, field for field.

Fields may be added to the report (then regenerate and review the diff:
`agent-monitor score examples/article_sales_report.json --out tests/golden/expected/article_sales_report.report.json`),
never renamed or dropped: dashboards and users' scripts read them.

Similarity scores are compared within 0.015: the int8 model's kernels differ by CPU instruction set
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
    differences = _differences(actual, expected)
    assert not differences, differences[:10]


CROSS_CPU = 0.015  # the measured spread of a cosine between AVX2 and AVX-512 VNNI machines
_SCORE = re.compile(r"\b0\.\d{3,}\b")


def _differences(actual: Any, expected: Any, path: str = "") -> list[str]:
    """Where the reports differ: scores by more than CROSS_CPU (also where a detail quotes one, which
    is then compared without its numbers), anything else at all."""
    if isinstance(actual, float) and isinstance(expected, float):
        return [] if abs(actual - expected) <= CROSS_CPU else [f"{path}: {actual} != {expected}"]
    if isinstance(actual, str) and isinstance(expected, str):
        found, wanted = _SCORE.findall(actual), _SCORE.findall(expected)
        same_text = _SCORE.sub("#", actual) == _SCORE.sub("#", expected) and len(found) == len(wanted)
        close = all(abs(float(a) - float(b)) <= CROSS_CPU for a, b in zip(found, wanted, strict=False))
        return [] if same_text and close else [f"{path}: {actual!r} != {expected!r}"]
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            return [f"{path}: keys {sorted(set(actual) ^ set(expected))}"]
        return [d for k in actual for d in _differences(actual[k], expected[k], f"{path}.{k}")]
    if isinstance(actual, list) and isinstance(expected, list):
        if len(actual) != len(expected):
            return [f"{path}: {len(actual)} items != {len(expected)}"]
        return [
            d
            for i, (a, b) in enumerate(zip(actual, expected, strict=True))
            for d in _differences(a, b, f"{path}[{i}]")
        ]
    return [] if actual == expected else [f"{path}: {actual!r} != {expected!r}"]
