"""The scorer interface: how the comparison ladder asks a model whether two texts mean the same.

Pure types only, and the cache the embedding scorers share. Implementations: `embedder.OnnxEmbedder`
(rung 5, cosine of sentence embeddings), `multilingual.E5Embedder` (the same for scripts the shipped
model cannot read) and `judge.LlmJudge` (rung 6, an OpenAI-compatible model that resolves the
uncertain band). All
return a score in [0, 1] or say the text is unscorable — never a number for a text the model
cannot read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


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


class TextCache(Generic[T]):
    """What a model made of each text, the least recently used forgotten beyond `size` (0 keeps
    nothing); hits are counted in `stats["cache_hits"]`. Thread-safe."""

    def __init__(self, size: int, stats: dict[str, int]) -> None:
        self._size = size
        self._stats = stats
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, text: str) -> bool:
        return text in self._items

    def __len__(self) -> int:
        return len(self._items)

    def texts(self) -> list[str]:
        """The texts held, least recently used first."""
        with self._lock:
            return list(self._items)

    def get(self, text: str) -> T | None:
        with self._lock:
            hit = self._items.get(text)
            if hit is not None:
                self._items.move_to_end(text)
                self._stats["cache_hits"] += 1
            return hit

    def put(self, text: str, value: T) -> None:
        if not self._size:
            return
        with self._lock:
            self._items[text] = value
            self._items.move_to_end(text)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
