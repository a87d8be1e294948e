"""The scorer interface: how the comparison ladder asks a model whether two texts mean the same.

Pure types only. Implementations: `embedder.OnnxEmbedder` (rung 5, cosine of sentence embeddings)
and `judge.LlmJudge` (rung 6, an OpenAI-compatible model that resolves the uncertain band). Both
return a score in [0, 1] or say the text is unscorable — never a number for a text the model
cannot read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class PairScore:
    """Similarity of one pair. `score is None` exactly when `unscorable` says why. `multilingual`: the
    multilingual model scored it, so its own thresholds apply."""

    score: float | None
    unscorable: str | None = None
    truncated: bool = False
    multilingual: bool = False


class Scorer(Protocol):
    """Anything that scores text pairs: an embedding model, an LLM judge, a test double."""

    name: str

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        """Score each (gold, predicted) pair; batched by the implementation."""
        ...

    def prefetch(self, texts: Iterable[str]) -> None:
        """Hint: these texts are about to be compared; compute them in large batches now."""
        ...
