"""The runtime embedder: loads once, caches, batches, refuses what it cannot read, fails clearly."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from monitor.compare.embedder import OnnxEmbedder, shipped_model_dir
from monitor.config import EmbedderConfig
from monitor.errors import ModelError


def test_embeddings_are_normalised_and_cached(embedder: OnnxEmbedder) -> None:
    before = embedder.stats["embedded"]
    [a] = embedder.embed(["a value seen once in this test"])
    assert a.vector is not None and abs(float(np.linalg.norm(a.vector)) - 1.0) < 1e-3
    hits = embedder.stats["cache_hits"]
    embedder.embed(["a value seen once in this test"])
    assert embedder.stats["embedded"] == before + 1
    assert embedder.stats["cache_hits"] == hits + 1


def test_batched_and_single_agree(embedder: OnnxEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about order A123", "EU"]
    fresh = OnnxEmbedder(EmbedderConfig(cache_size=0))
    batch = [e.vector for e in fresh.embed(texts)]
    single = [fresh.embed([t])[0].vector for t in texts]
    for b, s in zip(batch, single, strict=True):
        assert b is not None and s is not None
        assert float(np.dot(b, s)) > 0.999  # padding must not change a text's embedding


def test_cache_is_bounded() -> None:
    small = OnnxEmbedder(EmbedderConfig(cache_size=3))
    small.embed([f"value {i}" for i in range(10)])
    assert len(small._cache) == 3


@pytest.mark.parametrize("text", ["帮我查询订单A123的物流", "Привет, как дела", "مرحبا بالعالم"])
def test_foreign_scripts_are_unscorable(embedder: OnnxEmbedder, text: str) -> None:
    [e] = embedder.embed([text])
    assert e.vector is None and e.unscorable and "unscorable by this model" in e.unscorable


def test_missing_model_names_the_path_and_how_to_regenerate(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as err:
        OnnxEmbedder(EmbedderConfig(model_dir=tmp_path / "nowhere"))
    assert "nowhere" in str(err.value) and "export-model" in str(err.value)


def test_corrupt_model_names_the_path(tmp_path: Path) -> None:
    broken = tmp_path / "model"
    shutil.copytree(shipped_model_dir(), broken)
    (broken / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(ModelError) as err:
        OnnxEmbedder(EmbedderConfig(model_dir=broken))
    assert str(broken / "model.onnx") in str(err.value) and "export-model" in str(err.value)


def test_shipped_model_has_licence_notice_and_card() -> None:
    folder = shipped_model_dir()
    for name in ("model.onnx", "tokenizer.json", "model_card.json", "LICENSE", "NOTICE"):
        assert (folder / name).is_file(), name
    assert "Apache" in (folder / "NOTICE").read_text()
