"""Fit the embedding thresholds per value kind from labelled pairs. Pure apart from the injected ladder.

In: pairs (`a`, `b`, `equivalent`, optional `kind` and `split`). Out: per kind and model (`short`,
`text` for the main model; `multilingual_short`, `multilingual_text` for pairs in scripts only the
multilingual model reads — the names of the `thresholds` config fields) —
- the model alone on every pair: ROC-AUC, Pearson and Spearman correlation between score and label
  (the article's check of the automated score against human judgment);
- the thresholds, fitted only on the pairs that reach the embedding rung (pairs the ladder decides
  earlier — same facts, initialisms, different identifiers, a differing span the differential rung
  decides — would only distort them), on the score that rung computes (typed facts taken out): the decision
  `threshold` maximises balanced accuracy; `accept` / `reject` bound the uncertain band where the
  empirical precision on each side reaches `band_precision`;
- precision, recall and F1 (positive = equivalent) of that threshold on those pairs;
- the whole ladder's accuracy, end to end, with the fitted thresholds (and with the thresholds it was
  given, `shipped`), per kind, per language (`en`, `zh`, …) and per deciding rung.

Held apart: thresholds are fitted on the `fit` split and accuracy is reported on the `test` split. A
pair's split is its `split` field, else a hash of its gold value `a` (one in three is `test`), so every
pair about one gold value falls on the same side and a minimal pair never helps fit the threshold its
twin is scored with. `held_apart=False` fits and scores on every pair.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError
from scipy.stats import mannwhitneyu, pearsonr, spearmanr

from monitor.compare.facts import language_of, normalize_text
from monitor.compare.ladder import Ladder
from monitor.config import KindThresholds, Thresholds
from monitor.errors import InputError
from monitor.model import Rung

BAND_PRECISION = 0.95
#: the fewest pairs the `accept` edge is read from. A pair above it passes outright, with no doubt for a
#: judge to read, and a precision of 95 % read from one or two pairs is one pair's luck: it moved with the int8
#: model's kernels from one CPU to another (the English text `accept` was 0.9559 on AVX-512 machines, set by
#: the few pairs above it, and 1.0 on AVX2, where a wrong pair scores 0.964 and tops the list). The `reject`
#: edges are read from two pairs each and have held on both; a pair below one fails outright, and the
#: same rule there would turn those failures into passes in doubt (`score/response.py`), so it is not applied.
MIN_BAND_PAIRS = 5


class Pair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    a: str
    b: str
    equivalent: bool
    kind: str | None = None
    split: Literal["fit", "test"] | None = None


def split_of(p: Pair) -> str:
    """`fit` or `test`: the pair's own field, else one in three gold values by hash."""
    if p.split is not None:
        return p.split
    digest = hashlib.sha256(normalize_text(p.a).encode("utf-8")).hexdigest()
    return "test" if int(digest[:8], 16) % 3 == 0 else "fit"


@dataclass(frozen=True)
class Accuracy:
    """The ladder's accuracy on one group of scored pairs (a kind, a language, a rung)."""

    group: str
    pairs: int
    right: int
    right_shipped: int

    @property
    def accuracy(self) -> float:
        return round(self.right / self.pairs, 4) if self.pairs else 0.0

    @property
    def accuracy_shipped(self) -> float:
        return round(self.right_shipped / self.pairs, 4) if self.pairs else 0.0


@dataclass(frozen=True)
class KindReport:
    kind: str
    pairs: int
    equivalent: int
    roc_auc: float | None
    pearson: float | None
    spearman: float | None
    fitted_on: int
    thresholds: KindThresholds
    precision: float | None
    recall: float | None
    f1: float | None
    ladder_accuracy: float | None
    ladder_uncertain: int
    ladder_errors: tuple[tuple[str, str, bool], ...]

    def as_dict(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["thresholds"] = self.thresholds.model_dump()
        d["ladder_errors"] = [{"a": a, "b": b, "equivalent": e} for a, b, e in self.ladder_errors]
        return d


def load_pairs(path: Path) -> list[Pair]:
    """Read JSONL pairs; every error names the file, line and field."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(str(path), f"cannot read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise InputError(str(path), "not UTF-8") from exc
    pairs: list[Pair] = []
    problems: list[str] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            pairs.append(Pair.model_validate_json(line))
        except ValidationError as exc:
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"]) or "(line)"
                problems.append(f"{path}:{n}, field '{loc}': {err['msg']}")
    if problems:
        raise InputError(str(path), "invalid pairs:\n" + "\n".join(problems))
    if not pairs:
        raise InputError(str(path), "no pairs found")
    return pairs


def calibrate(
    pairs: Sequence[Pair], ladder: Ladder, held_apart: bool = True
) -> tuple[dict[str, KindReport], list[Accuracy]]:
    """Per-kind reports, and the ladder's accuracy by kind, language and rung on the scored pairs."""
    assert ladder.scorer is not None, "calibration needs the embedding scorer"
    fit_on = [p for p in pairs if not held_apart or split_of(p) == "fit"]
    scored_on = [p for p in pairs if not held_apart or split_of(p) == "test"]
    by_kind: dict[str, list[Pair]] = {}
    for p in fit_on:
        by_kind.setdefault(_group(p, ladder), []).append(p)
    ladder.scorer.prefetch(t for p in pairs for t in (p.a, p.b))
    fitted: dict[str, KindThresholds] = {}
    partial: dict[str, dict[str, Any]] = {}
    for kind, items in sorted(by_kind.items()):
        raw = [ladder.similarity(p.a, p.b) for p in items]
        scored = [(s.score, p.equivalent) for s, p in zip(raw, items, strict=True) if s.score is not None]
        scores = np.array([s for s, _ in scored], dtype=float)
        labels = np.array([y for _, y in scored], dtype=bool)
        routed = _embedding_scores(items, _base_kind(kind), ladder)
        thresholds, prf = fit_thresholds([s for s, _ in routed], [y for _, y in routed])
        fitted[kind] = thresholds
        partial[kind] = {
            "pairs": len(items),
            "equivalent": sum(p.equivalent for p in items),
            "roc_auc": _auc(scores, labels),
            "pearson": _corr(pearsonr, scores, labels),
            "spearman": _corr(spearmanr, scores, labels),
            "fitted_on": len(routed),
            "thresholds": thresholds,
            "precision": prf[0],
            "recall": prf[1],
            "f1": prf[2],
        }
    tuned = ladder_with(ladder, fitted)
    reports: dict[str, KindReport] = {}
    groups: dict[str, list[tuple[bool, bool]]] = {}
    for kind in sorted(by_kind):
        items = [p for p in scored_on if _group(p, ladder) == kind]
        results = [tuned.compare_text("value", p.a, p.b, kind=_base_kind(kind)) for p in items]
        shipped = [ladder.compare_text("value", p.a, p.b, kind=_base_kind(kind)) for p in items]
        errors = tuple(
            (p.a, p.b, p.equivalent) for p, r in zip(items, results, strict=True) if r.equal != p.equivalent
        )
        reports[kind] = KindReport(
            kind=kind,
            **partial[kind],
            ladder_accuracy=round(1 - len(errors) / len(items), 4) if items else None,
            ladder_uncertain=sum(1 for r in results if r.uncertain),
            ladder_errors=errors,
        )
        for p, r, r0 in zip(items, results, shipped, strict=True):
            outcome = (r.equal == p.equivalent, r0.equal == p.equivalent)
            lang = language_of(p.a + p.b)
            for group in (
                f"kind {_base_kind(kind)}",
                f"lang {lang}",
                f"{_base_kind(kind)} {lang}",
                f"rung {r.rung}",
            ):
                groups.setdefault(group, []).append(outcome)
    accuracy = [
        Accuracy(g, len(o), sum(a for a, _ in o), sum(b for _, b in o)) for g, o in sorted(groups.items())
    ]
    return reports, accuracy


def _group(p: Pair, ladder: Ladder) -> str:
    """The thresholds a pair is fitted into: its kind, for the model that scores it."""
    kind = p.kind or _guess_kind(p, ladder)
    multilingual = ladder.multilingual is not None and ladder.scorer_for(p.a, p.b) is ladder.multilingual
    return f"multilingual_{kind}" if multilingual else kind


def _base_kind(group: str) -> str:
    return group.removeprefix("multilingual_")


def fit_thresholds(
    scores: Sequence[float], labels: Sequence[bool]
) -> tuple[KindThresholds, tuple[float | None, ...]]:
    """Decision threshold by balanced accuracy; band edges by one-sided precision."""
    s = np.array(scores, dtype=float)
    y = np.array(labels, dtype=bool)
    if len(s) == 0 or y.all() or (~y).all():
        default = KindThresholds(threshold=0.5, reject=0.5, accept=0.5)
        return default, (None, None, None)
    candidates = np.unique(np.concatenate([[0.0, 1.0], (np.sort(s)[1:] + np.sort(s)[:-1]) / 2]))
    best_t, best_bacc = 0.5, -1.0
    for t in candidates:
        pred = s >= t
        tpr = (pred & y).sum() / y.sum()
        tnr = (~pred & ~y).sum() / (~y).sum()
        bacc = (tpr + tnr) / 2
        if bacc > best_bacc + 1e-12:
            best_t, best_bacc = float(t), float(bacc)
    accept = 1.0  # no edge (scores are at most 1.0: a pair the model scores 1.0 still passes outright)
    for t in sorted(c for c in candidates if c >= best_t):
        above = s >= t
        if above.sum() == 0 or (
            above.sum() >= MIN_BAND_PAIRS and (y & above).sum() / above.sum() >= BAND_PRECISION
        ):
            accept = float(t)
            break
    reject = best_t
    for t in sorted((c for c in candidates if c <= best_t), reverse=True):
        below = s < t
        if below.sum() == 0 or (~y & below).sum() / below.sum() >= BAND_PRECISION:
            reject = float(t)
            break
    pred = s >= best_t
    tp = float((pred & y).sum())
    precision = tp / pred.sum() if pred.sum() else None
    recall = tp / y.sum() if y.sum() else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else None
    thresholds = KindThresholds(threshold=round(best_t, 4), reject=round(reject, 4), accept=round(accept, 4))
    return thresholds, (_round4(precision), _round4(recall), _round4(f1))


def _round4(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


def ladder_with(ladder: Ladder, fitted: dict[str, KindThresholds]) -> Ladder:
    t = ladder.config.thresholds
    thresholds = t.model_copy(update={k: v for k, v in fitted.items() if k in Thresholds.model_fields})
    config = ladder.config.model_copy(update={"thresholds": thresholds})
    return Ladder(config, ladder.scorer, ladder.judge, ladder.multilingual)


def thresholds_document(reports: dict[str, KindReport]) -> dict[str, Any]:
    """The `thresholds` section of a config file, as `--write-config` writes it."""
    return {
        "thresholds": {
            k: r.thresholds.model_dump() for k, r in reports.items() if k in Thresholds.model_fields
        }
    }


def _embedding_scores(items: Sequence[Pair], kind: str, ladder: Ladder) -> list[tuple[float, bool]]:
    """(score, label) of the pairs the ladder leaves to the embedding rung, scored as that rung scores
    them: on what is left once the typed facts are taken out (`Q3 2024 revenue` is compared as
    `revenue`), and only pairs no earlier rung (typed, alias, differential) decided."""
    no_judge = Ladder(ladder.config, ladder.scorer, None, ladder.multilingual)
    out = []
    for p in items:
        result = no_judge.compare_text("value", p.a, p.b, kind=kind)
        if result.rung is Rung.EMBEDDING and result.score is not None:
            out.append((result.score, p.equivalent))
    return out


def _guess_kind(p: Pair, ladder: Ladder) -> str:
    words = max(len(p.a.split()), len(p.b.split()))
    return "short" if words <= ladder.config.thresholds.short_max_words else "text"


def _auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    if labels.all() or (~labels).all():
        return None
    u = mannwhitneyu(scores[labels], scores[~labels], alternative="two-sided").statistic
    return round(float(u) / float(labels.sum() * (~labels).sum()), 4)


def _corr(fn: Any, scores: np.ndarray, labels: np.ndarray) -> float | None:
    if len(scores) < 3 or labels.all() or (~labels).all():
        return None
    return round(float(fn(scores, labels.astype(float))[0]), 4)


def report_table(reports: dict[str, KindReport]) -> str:
    head = (
        "kind                pairs  equiv  ROC-AUC  Pearson  Spearman  fit-on  reject  thresh  accept  "
        "P      R      F1     ladder-acc"
    )
    rows = [head]
    for r in reports.values():
        t = r.thresholds
        rows.append(
            f"{r.kind:<19} {r.pairs:>5}  {r.equivalent:>5}  {_f(r.roc_auc):>7}  {_f(r.pearson):>7}  {_f(r.spearman):>8}  "
            f"{r.fitted_on:>6}  {t.reject:>6.3f}  {t.threshold:>6.3f}  {t.accept:>6.3f}  {_f(r.precision):>5}  "
            f"{_f(r.recall):>5}  {_f(r.f1):>5}  {_f(r.ladder_accuracy):>9}"
        )
    return "\n".join(rows)


def accuracy_table(accuracy: Sequence[Accuracy]) -> str:
    rows = ["group              pairs  right  accuracy  with-shipped-thresholds"]
    rows += [
        f"{a.group:<18} {a.pairs:>5}  {a.right:>5}  {a.accuracy:>8.3f}  {a.accuracy_shipped:>8.3f}"
        for a in accuracy
    ]
    return "\n".join(rows)


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def dump_json(reports: dict[str, KindReport], accuracy: Sequence[Accuracy] = ()) -> str:
    doc: dict[str, Any] = {k: r.as_dict() for k, r in reports.items()}
    doc["accuracy"] = [
        {**a.__dict__, "accuracy": a.accuracy, "accuracy_shipped": a.accuracy_shipped} for a in accuracy
    ]
    return json.dumps(doc, indent=2, ensure_ascii=False)
