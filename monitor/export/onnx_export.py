"""Export a sentence-transformers model folder to ONNX for the runtime embedder. I/O, offline tool.

In: a sentence-transformers folder (config.json, weights, tokenizer.json, modules.json,
1_Pooling/config.json). Out: `model.onnx` (mean pooling and L2 normalisation inside the graph,
dynamic batch and sequence axes, output `sentence_embedding`), `tokenizer.json`, `model_card.json`
(source, licence, hashes, settings, verification figures), and the source's LICENSE / NOTICE.

It verifies itself: fp32 ONNX must match PyTorch at cosine >= 0.9999 on a fixed text set (padding and
over-long texts included); an int8 export (per-channel dynamic quantization) must stay >= 0.97
against fp32. A failed check raises; nothing unverified is written as final.

Needs the optional `export` extra (torch, transformers, onnx). The runtime never imports this module.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from monitor.errors import ModelError

FP32_MIN_COSINE = 0.9999
INT8_MIN_COSINE = 0.97
OPSET = 17

#: Fixed verification texts: short values, sentences, a padded batch, an over-long text.
VERIFY_TEXTS: tuple[str, ...] = (
    "NYC",
    "New York City",
    "revenue",
    "profit",
    "Q3 2024 revenue",
    "third quarter revenue figures for 2024",
    "A123",
    "Which region should the report cover?",
    "Sure, which region would you like the report for?",
    "Your order A123 is delayed by 4 days; I opened ticket T9008 to chase it.",
    "",
    "ok",
    " ".join(["the quarterly sales report for the EMEA region"] * 80),
)

#: Scripts the model reads well, by model id; the runtime reports text in other scripts unscorable.
KNOWN_SCRIPTS: dict[str, list[str]] = {"sentence-transformers/all-MiniLM-L6-v2": ["LATIN"]}


@dataclass(frozen=True)
class ExportResult:
    out_dir: Path
    min_cosine_fp32: float
    min_cosine_int8: float | None


def export_model(
    source_dir: Path, out_dir: Path, quantize: str | None = None, model_id: str | None = None
) -> ExportResult:
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ModelError(
            "export-model needs the optional export extra: pip install 'agent-monitor[export]'"
        ) from exc
    import onnxruntime as ort
    from tokenizers import Tokenizer

    _check_source(source_dir)
    max_len = _max_seq_length(source_dir)
    tokenizer = Tokenizer.from_file(str(source_dir / "tokenizer.json"))
    hf_model = AutoModel.from_pretrained(str(source_dir))
    hf_model.eval()

    class SentenceEncoder(torch.nn.Module):  # type: ignore[misc]
        """Transformer → masked mean pooling → L2 normalise, as sentence-transformers does."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            summed = (hidden * mask).sum(dim=1)
            counts = mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed / counts, p=2.0, dim=1)

    encoder = SentenceEncoder(hf_model).eval()
    feeds = _encode(tokenizer, VERIFY_TEXTS, max_len)
    with torch.no_grad():
        reference = encoder(*(torch.from_numpy(feeds[k]) for k in _INPUT_NAMES)).numpy()

    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32_path = Path(tmp) / "model.fp32.onnx"
        sample = _encode(tokenizer, ("warm up", "a longer warm up sentence"), max_len)
        torch.onnx.export(
            encoder,
            tuple(torch.from_numpy(sample[k]) for k in _INPUT_NAMES),
            str(fp32_path),
            input_names=list(_INPUT_NAMES),
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "token_type_ids": {0: "batch", 1: "sequence"},
                "sentence_embedding": {0: "batch"},
            },
            opset_version=OPSET,
            dynamo=False,
        )
        fp32 = _run(ort, fp32_path, feeds)
        cos_fp32 = float(_rowwise_cosine(reference, fp32).min())
        if cos_fp32 < FP32_MIN_COSINE:
            raise ModelError(
                f"fp32 export drifted from PyTorch: min cosine {cos_fp32:.6f} < {FP32_MIN_COSINE}"
            )
        final_path = out_dir / "model.onnx"
        cos_int8: float | None = None
        if quantize == "int8":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            quantize_dynamic(
                str(fp32_path),
                str(final_path),
                per_channel=True,
                weight_type=QuantType.QInt8,
                nodes_to_exclude=_ffn_down_projections(fp32_path),
            )
            cos_int8 = float(_rowwise_cosine(fp32, _run(ort, final_path, feeds)).min())
            if cos_int8 < INT8_MIN_COSINE:
                raise ModelError(
                    f"int8 export drifted from fp32: min cosine {cos_int8:.4f} < {INT8_MIN_COSINE}"
                )
        elif quantize is None:
            shutil.copyfile(fp32_path, final_path)
        else:
            raise ModelError(f"--quantize: unknown mode {quantize!r}; use int8 or leave it out")

    shutil.copyfile(source_dir / "tokenizer.json", out_dir / "tokenizer.json")
    for extra in ("LICENSE", "NOTICE"):
        if (source_dir / extra).is_file():
            shutil.copyfile(source_dir / extra, out_dir / extra)
    model_id = model_id or _guess_model_id(source_dir)
    card = {
        "model_id": model_id,
        "source_dir_name": source_dir.name,
        "license": _license_name(source_dir),
        "embedding_dim": int(reference.shape[1]),
        "max_seq_length": max_len,
        "pooling": "mean, L2-normalised (inside the graph)",
        "inputs": list(_INPUT_NAMES),
        "output": "sentence_embedding",
        "opset": OPSET,
        "quantization": (
            "int8 dynamic, per-channel weights (QInt8); feed-forward down-projections kept fp32"
            if quantize == "int8"
            else "none (fp32)"
        ),
        "scripts": KNOWN_SCRIPTS.get(model_id, []),
        "verification": {
            "texts": len(VERIFY_TEXTS),
            "min_cosine_fp32_vs_pytorch": round(cos_fp32, 6),
            "min_cosine_int8_vs_fp32": None if cos_int8 is None else round(cos_int8, 6),
        },
        "exported_with": {"torch": torch.__version__, "onnxruntime": ort.__version__},
        "sha256": {
            name: _sha256(out_dir / name)
            for name in ("model.onnx", "tokenizer.json", "LICENSE", "NOTICE")
            if (out_dir / name).is_file()
        },
    }
    (out_dir / "model_card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return ExportResult(out_dir=out_dir, min_cosine_fp32=cos_fp32, min_cosine_int8=cos_int8)


_INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


def _ffn_down_projections(onnx_path: Path) -> list[str]:
    """MatMuls of each layer's feed-forward down-projection (`.../output/dense/MatMul`).

    Their inputs are GELU activations with a wide range; quantizing them dynamically costs most of
    the drift on short strings (min cosine 0.955 with them, 0.977 without, on VERIFY_TEXTS for
    all-MiniLM-L6-v2). Keeping these 6 fp32 grows the model from 22 MB to 34 MB.
    """
    import onnx

    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    return [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and "/output/dense/" in node.name and "/attention/" not in node.name
    ]


def _check_source(source_dir: Path) -> None:
    needed = ["config.json", "tokenizer.json"]
    missing = [n for n in needed if not (source_dir / n).is_file()]
    if missing:
        raise ModelError(
            f"{source_dir}: not a sentence-transformers model folder (missing {', '.join(missing)})"
        )
    pooling = source_dir / "1_Pooling" / "config.json"
    if pooling.is_file():
        conf = json.loads(pooling.read_text(encoding="utf-8"))
        if not conf.get("pooling_mode_mean_tokens", False):
            raise ModelError(f"{pooling}: only mean pooling is supported by this exporter")


def _max_seq_length(source_dir: Path) -> int:
    conf = source_dir / "sentence_bert_config.json"
    if conf.is_file():
        return int(json.loads(conf.read_text(encoding="utf-8")).get("max_seq_length", 256))
    return 256


def _encode(tokenizer: Any, texts: tuple[str, ...], max_len: int) -> dict[str, np.ndarray]:
    tokenizer.enable_truncation(max_length=max_len)
    tokenizer.enable_padding()
    enc = tokenizer.encode_batch(list(texts))
    return {
        "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
    }


def _run(ort: Any, path: Path, feeds: dict[str, np.ndarray]) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(["sentence_embedding"], feeds)[0])


def _rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    num = (a * b).sum(axis=1)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.asarray(num / np.maximum(den, 1e-12))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _guess_model_id(source_dir: Path) -> str:
    name = source_dir.name
    return name.replace("__", "/") if "__" in name else name


def _license_name(source_dir: Path) -> str:
    notice = source_dir / "NOTICE"
    if notice.is_file():
        for line in notice.read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("license:"):
                return line.split(":", 1)[1].strip()
    return "see LICENSE" if (source_dir / "LICENSE").is_file() else "unknown"
