"""Reply verdicts on labelled pairs, through the path a gold reply turn takes (`score_response`).

    .venv/bin/python -m bench.replies bench/data/replies_blind_3/pairs.jsonl
    .venv/bin/python -m bench.replies FILE --json out.json --show-errors

Each line is `{"a": gold reply, "b": agent reply, "equivalent": bool, "lang"?: "en"|"zh", …}`. A pair is
scored as the reply turn of a gold dialog would be, with no conversation vocabulary, and gets one verdict:
- `fail`: completeness or truthfulness failed (what raises an alert);
- `uncertain`: nothing failed, but a comparison that decided is flagged uncertain (what goes to review,
  or to the judge when one is configured);
- `pass`: nothing failed and nothing is uncertain.

Printed per language: equivalent pairs that do not fail (**precision of the failures**: a reply a
reviewer would accept is never alerted on), equivalent pairs that pass outright, and non-equivalent
pairs that do not pass outright (**recall**: each is failed or sent to review) and that fail. Sets
written by people who had not read the rules measure the rules; a set the rules were fitted on measures
nothing (docs/comparison.md says which is which).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from monitor.compare.facts import has_cjk
from monitor.compare.ladder import Ladder, build_ladder
from monitor.config import ScoringConfig
from monitor.score.response import ResponseScore, score_response


def verdict(score: ResponseScore) -> str:
    """`fail`, `uncertain` or `pass` (module docstring)."""
    if score.completeness.passed is False or score.truthfulness.passed is False:
        return "fail"
    return "uncertain" if any(c.uncertain for c in score.comparisons) else "pass"


def why(score: ResponseScore) -> str:
    failed = [c for c in (score.completeness, score.truthfulness) if c.passed is False]
    if failed:
        return "; ".join(f"{c.failure_reason}: {c.detail}" for c in failed)[:300]
    return "; ".join(f"{c.field} {c.rung} {c.note}" for c in score.comparisons if c.uncertain)[:300]


def evaluate(ladder: Ladder, pairs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Counts per language and label, and every pair scored the wrong way."""
    counts: dict[str, Counter[str]] = {}
    errors: list[dict[str, Any]] = []
    for p in pairs:
        lang = p.get("lang") or ("zh" if has_cjk(p["a"] + p["b"]) else "en")
        score = score_response(ladder, p["a"], p["b"], frozenset())
        v = verdict(score)
        label = "equivalent" if p["equivalent"] else "different"
        counts.setdefault(lang, Counter())[f"{label} {v}"] += 1
        if (p["equivalent"] and v == "fail") or (not p["equivalent"] and v == "pass"):
            errors.append({"lang": lang, "equivalent": p["equivalent"], "verdict": v, "why": why(score)} | p)
    return {"counts": {k: dict(v) for k, v in sorted(counts.items())}, "errors": errors}


def summary(result: dict[str, Any]) -> list[str]:
    lines = [
        "| lang | equivalent | not failed (precision) | passed | different | not passed (recall) | failed |"
    ]
    lines.append("|---|---|---|---|---|---|---|")
    for lang, c in result["counts"].items():
        eq = sum(v for k, v in c.items() if k.startswith("equivalent"))
        ne = sum(v for k, v in c.items() if k.startswith("different"))
        eq_ok = eq - c.get("equivalent fail", 0)
        ne_caught = ne - c.get("different pass", 0)
        lines.append(
            f"| {lang} | {eq} | {_pct(eq_ok, eq)} | {_pct(c.get('equivalent pass', 0), eq)} | {ne} "
            f"| {_pct(ne_caught, ne)} | {_pct(c.get('different fail', 0), ne)} |"
        )
    return lines


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.0f} %)" if d else "-"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.replies", description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs", type=Path, nargs="+", help="labelled pairs (JSONL)")
    ap.add_argument("--json", type=Path, help="write counts and errors here")
    ap.add_argument("--show-errors", action="store_true", help="print every pair scored the wrong way")
    args = ap.parse_args(argv)
    pairs = [
        json.loads(line) for path in args.pairs for line in path.read_text().splitlines() if line.strip()
    ]
    result = evaluate(build_ladder(ScoringConfig()), pairs)
    print(f"{len(pairs)} pairs from {', '.join(str(p) for p in args.pairs)}")
    print("\n".join(summary(result)))
    if args.show_errors:
        for e in result["errors"]:
            print(f"- [{e['lang']} {'equivalent' if e['equivalent'] else 'different'} → {e['verdict']}]")
            print(f"    gold:  {e['a']}\n    reply: {e['b']}\n    why:   {e['why']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
