"""Embedding scorer benchmark (issue 3). Ratios from one run, never timed assertions.

    .venv/bin/python -m bench.embedder [--fp32-model DIR] [--dialogs 200] [--out bench/results/embedder.json]

Measures, on this machine, in one process:
- embeddings per second for short values and for sentences, at batch 1 / 32 / 128, with the model
  run per text (`exact_per_text`, the default: reproducible) and batched; int8 (shipped) and, when
  `--fp32-model` points at an fp32 export, fp32;
- the end-to-end cost of scoring a dialog file with prefetch + cache against a naive baseline that
  scores one pair at a time with no cache — reported as a ratio;
- resident memory (RSS) after loading the model.
"""

from __future__ import annotations

import argparse
import copy
import json
import resource
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from monitor.compare.embedder import OnnxEmbedder
from monitor.compare.ladder import Ladder
from monitor.compare.similarity import PairScore
from monitor.config import EmbedderConfig, ScoringConfig
from monitor.model import Dialog
from monitor.reference.golden import parse_dialog
from monitor.score.dialog import score_dialog, texts_to_embed

ROOT = Path(__file__).resolve().parent.parent
SHORT = [f"value {i}" for i in range(256)] + [f"ORD-{i:05d} EU" for i in range(256)]
SENTENCES = [
    f"Your order A{i} for the EMEA revenue report is delayed by {i % 9} days; I opened ticket T{i}."
    for i in range(512)
]


class NaiveScorer:
    """Baseline: embeds both texts of every pair, one pair at a time, with no cache and no prefetch."""

    name = "naive"

    def __init__(self, inner: OnnxEmbedder) -> None:
        self.inner = inner

    def prefetch(self, texts: Iterable[str]) -> None:
        pass

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[PairScore]:
        import numpy as np

        out = []
        for a, b in pairs:
            ea, eb = self.inner._compute([a])[0], self.inner._compute([b])[0]
            if ea.vector is None or eb.vector is None:
                out.append(PairScore(None, ea.unscorable or eb.unscorable))
            else:
                out.append(PairScore(max(0.0, min(1.0, float(np.dot(ea.vector, eb.vector))))))
        return out


def throughput(model_dir: Path | None, texts: list[str], batch: int, exact: bool) -> float:
    e = OnnxEmbedder(
        EmbedderConfig(model_dir=model_dir, batch_size=batch, cache_size=0, exact_per_text=exact)
    )
    e._compute(texts[:4])  # warm up
    start = time.perf_counter()
    for i in range(0, len(texts), batch):
        e._compute(texts[i : i + batch])
    return len(texts) / (time.perf_counter() - start)


def dialogs(n: int) -> list[Dialog]:
    base = json.loads((ROOT / "examples" / "article_sales_report.json").read_text())
    regions = ["EU", "US", "APAC", "LATAM", "EMEA"]
    metrics = [
        ("revenue", "profit"),
        ("revenue", "revenue"),
        ("headcount", "payroll"),
        ("churn rate", "churn rate"),
    ]
    out = []
    for i in range(n):
        d = copy.deepcopy(base)
        region = regions[i % len(regions)]
        gold_metric, pred_metric = metrics[i % len(metrics)]
        for t in d["turns"]:
            for side in ("gold_turn", "predict_turn"):
                text = json.dumps(t[side]).replace("EU", region)
                metric = gold_metric if side == "gold_turn" else pred_metric
                text = (
                    text.replace("revenue", metric).replace("profit", metric).replace("ch_rev_77", f"ch_{i}")
                )
                t[side] = json.loads(text)
        out.append(parse_dialog(d, "bench", f"bench-{i}"))
    return out


def end_to_end(n: int) -> dict[str, float]:
    data = dialogs(n)
    config = ScoringConfig()
    fast = OnnxEmbedder(config.embedder)
    start = time.perf_counter()
    fast.prefetch(texts_to_embed(data))
    fast_reports = [score_dialog(d, Ladder(config, fast)) for d in data]
    fast_s = time.perf_counter() - start
    naive = NaiveScorer(OnnxEmbedder(EmbedderConfig(cache_size=0)))
    start = time.perf_counter()
    naive_reports = [score_dialog(d, Ladder(config, naive)) for d in data]
    naive_s = time.perf_counter() - start
    same = [a.model_dump() == b.model_dump() for a, b in zip(fast_reports, naive_reports, strict=True)]
    return {
        "dialogs": n,
        "cached_s": round(fast_s, 3),
        "naive_s": round(naive_s, 3),
        "speedup": round(naive_s / fast_s, 2),
        "dialogs_per_s_cached": round(n / fast_s, 1),
        "identical_reports": all(same),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--fp32-model", type=Path, help="an fp32 export (agent-monitor export-model without --quantize)"
    )
    p.add_argument("--dialogs", type=int, default=200)
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "embedder.json")
    args = p.parse_args()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    OnnxEmbedder(EmbedderConfig())
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    models: dict[str, Path | None] = {"int8": None}
    if args.fp32_model:
        models["fp32"] = args.fp32_model
    rows: list[dict[str, Any]] = []
    for name, model in models.items():
        for kind, texts in (("short", SHORT), ("sentence", SENTENCES)):
            for batch in (1, 32, 128):
                for exact in (True, False) if batch > 1 else (True,):
                    rate = throughput(model, texts, batch, exact)
                    rows.append(
                        {
                            "model": name,
                            "texts": kind,
                            "batch": batch,
                            "exact_per_text": exact,
                            "per_s": round(rate),
                        }
                    )
    e2e = end_to_end(args.dialogs)
    result = {"rss_mb_after_load": round(rss_after / 1024, 1), "rss_mb_before_load": round(rss_before / 1024, 1),
              "throughput": rows, "end_to_end": e2e}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"RSS after model load: {result['rss_mb_after_load']} MB (before: {result['rss_mb_before_load']} MB)"
    )
    print(f"{'model':<6} {'texts':<9} {'batch':>5} {'mode':<10} {'texts/s':>8}")
    for r in rows:
        mode = "per-text" if r["exact_per_text"] else "batched"
        print(f"{r['model']:<6} {r['texts']:<9} {r['batch']:>5} {mode:<10} {r['per_s']:>8}")
    print(
        f"end to end, {e2e['dialogs']} dialogs: prefetch+cache {e2e['cached_s']} s, naive {e2e['naive_s']} s "
        f"-> {e2e['speedup']}x faster; identical reports: {e2e['identical_reports']}"
    )


if __name__ == "__main__":
    main()
