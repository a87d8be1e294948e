"""The AEM article's own examples, scored with the real shipped model."""

from __future__ import annotations

import copy
import json

from monitor.compare.ladder import Ladder
from monitor.model import FailureReason
from monitor.score.dialog import score_dialog
from tests.conftest import article_dialog, dialog


def test_five_turn_sales_report_matches_the_article(ladder: Ladder) -> None:
    data = article_dialog()
    report = score_dialog(dialog(data["turns"], dialog_id=data["dialog_id"]), ladder)
    assert report.success_rate == 0.2
    assert report.test_pass is False
    assert report.first_failure_turn == 2
    assert report.root_cause is FailureReason.INCONSISTENT_PARAMETER_VALUES
    assert report.root_cause_count == 1
    assert report.cascading_count == 3
    assert report.total_failures == 4
    by_no = {t.turn_no: t for t in report.turns}
    assert by_no[2].fields == ("metric",)
    assert by_no[2].sub_metric == "truthfulness"
    for later in (3, 4, 5):
        assert by_no[later].failure_reason is FailureReason.PRIOR_ACTION_FAILED
        assert by_no[later].root_turn == 2
    # the reply names the wrong metric: a cascade whose observed failure is an inconsistent reply
    assert by_no[5].observed_failure_reason is FailureReason.INCONSISTENT_RESPONSE
    assert report.chain_lengths["3+"].chains == 1


def test_golden_dataset_section_turns(ladder: Ladder) -> None:
    """The two example turns: the paraphrased reply passes, profit-for-revenue fails on truthfulness."""
    turns = copy.deepcopy(article_dialog()["turns"][:2])
    for t in turns:
        for side in ("gold_turn", "predict_turn"):
            t[side].pop("result", None)
    report = score_dialog(dialog(turns), ladder)
    first, second = report.turns
    assert first.success is True
    assert second.success is False
    assert second.failure_reason is FailureReason.INCONSISTENT_PARAMETER_VALUES
    assert second.fields == ("metric",)
    cmp = next(c for c in second.comparisons if c.field == "metric")
    # decided by the lexicon, not left to the uncertain band (0.7175 cosine, 0.03 under the threshold)
    assert cmp.rung == "differential" and cmp.uncertain is False and "'income'" in cmp.note


def test_fixing_the_root_cause_clears_the_cascade(ladder: Ladder) -> None:
    """Fix turn 2's parameter and turns 3–5 follow: the article's 'fix the root, the rest resolves'."""
    data = article_dialog()
    for t in data["turns"]:
        t["predict_turn"] = copy.deepcopy(t["gold_turn"])
    data["turns"][0]["predict_turn"] = {"response": "Sure, which region would you like the report for?"}
    report = score_dialog(dialog(data["turns"]), ladder)
    assert report.success_rate == 1.0 and report.test_pass is True and report.total_failures == 0


def test_digitless_identifiers_give_the_articles_numbers(ladder: Ladder) -> None:
    """Issue 17: with identifiers that carry no digits (`ds_eu_profit`, `ch_prof`), the typed rung cannot
    tell them apart; the differential rung does (revenue / profit), so the numbers stay the article's."""
    text = json.dumps(article_dialog()).replace("_2024", "")
    data = json.loads(text.replace("ch_rev_77", "ch_rev").replace("ch_prof_91", "ch_prof"))
    report = score_dialog(dialog(data["turns"], dialog_id=data["dialog_id"]), ladder)
    assert (report.success_rate, report.root_cause_count, report.cascading_count) == (0.2, 1, 3)
    assert report.first_failure_turn == 2
    by_no = {t.turn_no: t for t in report.turns}
    for later in (3, 4, 5):
        assert by_no[later].failure_reason is FailureReason.PRIOR_ACTION_FAILED
