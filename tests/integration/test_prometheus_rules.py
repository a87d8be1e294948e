"""Alert rules: `promtool check rules` and `promtool test rules` (series that must fire and must not)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.prometheus
DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"


@pytest.fixture(scope="module")
def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.fail(
            "promtool not found: .ci/test installs Debian's 'prometheus' package (apt-get install prometheus)"
        )
    return found


def test_rules_are_valid(promtool: str) -> None:
    result = subprocess.run(
        [promtool, "check", "rules", str(DEPLOY / "alerts.yml")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_rule_unit_tests_pass(promtool: str) -> None:
    result = subprocess.run(
        [promtool, "test", "rules", "alerts_test.yml"],
        capture_output=True,
        text=True,
        cwd=DEPLOY,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
