"""Optional LLM judge for the uncertain band (rung 6). I/O: HTTP to an OpenAI-compatible endpoint.

In: (gold, predicted) text pairs. Out: `PairScore` with the judge's probability that the two are
equivalent. A failing endpoint never fails scoring: the pair comes back unscorable with the reason,
and the ladder falls back to the calibrated threshold and flags the comparison `uncertain`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

import httpx

from monitor.compare.similarity import PairScore
from monitor.config import JudgeConfig

PROMPT = (
    "You compare a value an AI agent produced with the expected (gold) value from a test set. "
    'Answer with JSON only: {"equivalent": true|false, "confidence": 0..1}. Equivalent means a user '
    "would accept the predicted value in place of the gold one (same entity, same metric, same number, "
    "same date); wording may differ."
)


class LlmJudge:
    name = "llm-judge"

    def __init__(self, config: JudgeConfig, client: httpx.Client | None = None) -> None:
        self._config = config
        headers = {}
        if config.api_key is not None:
            headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
        self._client = client or httpx.Client(timeout=config.timeout_s, headers=headers)
        self._cache: dict[tuple[str, str], PairScore] = {}
        self.errors = 0

    def prefetch(self, texts: Iterable[str]) -> None:
        """The judge is called per uncertain pair only; nothing to prefetch."""

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        return [self._one(gold, predicted) for gold, predicted in pairs]

    def _one(self, gold: str, predicted: str) -> PairScore:
        key = (gold, predicted)
        if key not in self._cache:
            self._cache[key] = self._ask(gold, predicted)
        return self._cache[key]

    def _ask(self, gold: str, predicted: str) -> PairScore:
        body = {
            "model": self._config.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": PROMPT},
                {"role": "user", "content": json.dumps({"gold": gold, "predicted": predicted})},
            ],
        }
        url = self._config.url.rstrip("/") + "/chat/completions"
        try:
            response = self._client.post(url, json=body)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
            match = re.search(r"\{.*\}", content, re.DOTALL)
            verdict = json.loads(match.group(0) if match else content)
            equivalent = bool(verdict["equivalent"])
            confidence = float(verdict.get("confidence", 1.0))
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            self.errors += 1
            return PairScore(score=None, unscorable=f"judge at {url} failed: {type(exc).__name__}: {exc}")
        confidence = min(1.0, max(0.0, confidence))
        return PairScore(score=confidence if equivalent else 1.0 - confidence)
