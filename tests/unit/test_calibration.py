"""Calibration: the shipped thresholds are what the shipped pairs produce on the embedding route they were
fitted on, and a refit with the differential rung does not beat them held apart; the CLI writes configs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from monitor.cli import main
from monitor.config import LadderConfig, ScoringConfig, load_config
from monitor.errors import InputError
from monitor.facts import language_of
from monitor.score.calibration import Pair, calibrate, fit_thresholds, ladder_with, load_pairs, split_of
from monitor.score.embedder import OnnxEmbedder
from monitor.score.ladder import Ladder, build_ladder

PAIRS = Path(__file__).resolve().parents[2] / "monitor" / "data" / "calibration_pairs.jsonl"


#: The English thresholds were fitted on the first 181 pairs, before the set grew; they are kept (the
#: English verdicts of the default stay), and the grown set reports their held-apart accuracy.
FITTED_ON = 181


def test_shipped_set_is_big_enough_and_has_both_kinds() -> None:
    pairs = load_pairs(PAIRS)
    kinds = {p.kind for p in pairs}
    assert len(pairs) >= 500 and kinds == {"short", "text"}
    assert sum(language_of(p.a + p.b) == "zh" for p in pairs) >= 150
    assert len({(p.a, p.b) for p in pairs}) == len(pairs)
    assert {split_of(p) for p in pairs} == {"fit", "test"}
    assert all(
        sum(p.equivalent == e for p in pairs if p.kind == k) >= 25 for k in kinds for e in (True, False)
    )


#: How far a fitted threshold may move between machines: the int8 model's kernels differ by CPU
#: instruction set (AVX2 against AVX-512 VNNI), which moves cosines by up to ~0.01 and the short-value
#: threshold from 0.744 to 0.755.
CROSS_CPU = 0.02


#: The route the shipped thresholds were fitted on: every pair the rungs before the model leave open,
#: the differential rung off (it came later; see the held-out test below for why they were kept).
EMBEDDING_ROUTE = ScoringConfig(ladder=LadderConfig(differential=False))


def test_shipped_defaults_match_calibration(embedder: OnnxEmbedder) -> None:
    reports, _ = calibrate(load_pairs(PAIRS)[:FITTED_ON], Ladder(EMBEDDING_ROUTE, embedder), held_apart=False)
    defaults = ScoringConfig().thresholds
    for kind in ("short", "text"):
        fitted, shipped = reports[kind].thresholds, getattr(defaults, kind)
        assert fitted.threshold == pytest.approx(shipped.threshold, abs=CROSS_CPU), kind
        assert fitted.reject == pytest.approx(shipped.reject, abs=CROSS_CPU), kind
        assert fitted.accept == pytest.approx(shipped.accept, abs=CROSS_CPU), kind
    assert reports["text"].roc_auc is not None and reports["text"].roc_auc > 0.9
    assert reports["short"].ladder_accuracy is not None and reports["short"].ladder_accuracy > 0.8


def test_refitting_after_the_differential_rung_does_not_beat_the_shipped_thresholds(ladder: Ladder) -> None:
    """With the differential rung, fewer (and easier) pairs reach the model and a refit moves the short
    threshold (0.744 to ~0.62-0.69). Held apart: fit on one half of the pairs, score the other half with
    the whole ladder. Since verbs are in the lexicon the refit is one short pair better on one half (58
    against 57 of 62) and equal on the other three: no reason to change every English verdict, so the
    shipped thresholds stay, and this fails if a refit ever wins by more."""
    pairs = load_pairs(PAIRS)[:FITTED_ON]
    for fit_on, held_out in ((pairs[0::2], pairs[1::2]), (pairs[1::2], pairs[0::2])):
        reports, _ = calibrate(fit_on, ladder, held_apart=False)
        refit = ladder_with(ladder, {k: r.thresholds for k, r in reports.items()})
        for kind in ("short", "text"):
            items = [p for p in held_out if p.kind == kind]
            shipped = sum(ladder.compare_text("v", p.a, p.b, kind=kind).equal == p.equivalent for p in items)
            fitted = sum(refit.compare_text("v", p.a, p.b, kind=kind).equal == p.equivalent for p in items)
            assert shipped >= fitted - 1, (kind, shipped, fitted, len(items))


def test_article_pairs_with_the_shipped_thresholds(ladder: Ladder) -> None:
    assert ladder.compare("city", "NYC", "New York City").equal
    assert ladder.compare("period", "Q3 2024 revenue", "third quarter revenue figures for 2024").equal
    assert not ladder.compare("metric", "revenue", "profit").equal


def test_fit_separates_a_clean_split() -> None:
    thresholds, (precision, recall, f1) = fit_thresholds(
        [0.1, 0.2, 0.3, 0.8, 0.9, 0.95], [False] * 3 + [True] * 3
    )
    assert 0.3 < thresholds.threshold <= 0.8 and precision == recall == f1 == 1.0


def test_calibrate_cli_writes_a_loadable_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "monitor.yaml"
    cfg.write_text("composition:\n  rule: weighted\nladder:\n  differential: false\n")
    out = tmp_path / "cal.json"
    args = ["calibrate", str(PAIRS), "--config", str(cfg), "--write-config", str(cfg), "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "ROC-AUC" in printed and "short" in printed and "text" in printed
    loaded = load_config(cfg)
    assert loaded.composition.rule == "weighted"  # the rest of the file is kept
    report = json.loads(out.read_text())
    assert loaded.thresholds.short.threshold == report["short"]["thresholds"]["threshold"]
    assert {"short", "text", "accuracy"} <= set(report)
    assert "lang zh" in printed and "rung typed" in printed
    assert "thresholds" in yaml.safe_load(cfg.read_text())


def test_bad_pairs_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"a": "x", "b": "y", "equivalent": true}\n{"a": "x", "equivalent": "maybe"}\n')
    with pytest.raises(InputError) as err:
        load_pairs(bad)
    assert f"{bad}:2" in str(err.value) and "'b'" in str(err.value) and "'equivalent'" in str(err.value)


def test_thresholds_are_fitted_only_on_what_reaches_the_embedding_rung(ladder: Ladder) -> None:
    """A reply pair the differential rung decides (a negation) does not fit the text thresholds, and a
    reply with typed facts fits them with the score the embedding rung gives it (facts taken out)."""
    pairs = [
        Pair(
            a="I have reserved a table for you.", b="I have not reserved a table for you.", equivalent=False
        ),
        Pair(a="Your parcel left the warehouse.", b="The package has been shipped.", equivalent=True),
        Pair(a="Your parcel left the warehouse.", b="We could not locate your parcel.", equivalent=False),
        Pair(a="Order A77 will arrive soon.", b="A77 is on its way to you.", equivalent=True),
    ]
    pairs = [p.model_copy(update={"kind": "text"}) for p in pairs]
    reports, _ = calibrate(pairs, ladder, held_apart=False)
    assert reports["text"].fitted_on == 3  # not the negated pair: the differential rung decides it
    decided = [ladder.compare_text("v", p.a, p.b, kind="text") for p in pairs[1:]]
    assert all(c.rung == "embedding" for c in decided)
    expected, _ = fit_thresholds([c.score or 0.0 for c in decided], [p.equivalent for p in pairs[1:]])
    assert reports["text"].thresholds == expected  # fitted on the scores the ladder decides with


def test_multilingual_defaults_are_what_the_fit_split_gives() -> None:
    """The Chinese thresholds a user of the multilingual extra gets are the ones `calibrate` fits on the
    `fit` split (the `test` split stays held apart)."""
    built = build_ladder(ScoringConfig())
    if built.multilingual is None:
        if os.environ.get("CI"):
            pytest.fail("the multilingual extra is not installed in CI (.ci/setup installs it)")
        pytest.skip("pip install 'agent-monitor[multilingual]' to run")
    reports, _ = calibrate(load_pairs(PAIRS), built)
    defaults = ScoringConfig().thresholds
    for kind in ("multilingual_short", "multilingual_text"):
        fitted, shipped = reports[kind].thresholds, getattr(defaults, kind)
        for edge in ("threshold", "reject", "accept"):
            assert getattr(fitted, edge) == pytest.approx(getattr(shipped, edge), abs=CROSS_CPU), (kind, edge)
