"""Minimal pairs (issue 17's table, row by row), through the whole ladder with the real model, and the
differential rung, the shipped lexicon and the airport table on their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.compare.differential import compare_spans, tokens
from monitor.compare.embedder import OnnxEmbedder
from monitor.compare.ladder import Ladder
from monitor.compare.lexicon import Relation, load_airports, load_lexicon
from monitor.compare.lexicon_build import build, read_data_file, serialize
from monitor.config import LadderConfig, ScoringConfig
from monitor.model import Rung
from monitor.score.response import score_response

WORDNET = Path("/usr/share/wordnet")


# -- the table: one test a row ---------------------------------------------------------


def test_identifier_parts_revenue_vs_profit_fail(ladder: Ladder) -> None:
    c = ladder.compare("dataset", "rpt_eu_revenue", "rpt_eu_profit")  # today: pass (0.874, embedding)
    assert (c.equal, c.rung, c.uncertain) == (False, Rung.DIFFERENTIAL, False)
    assert "'revenue' vs 'profit'" in c.note


def test_revenue_by_month_vs_profit_by_month_fail(ladder: Ladder) -> None:
    c = ladder.compare("query", "revenue by month", "profit by month")  # today: pass (0.838)
    assert (c.equal, c.rung) == (False, Rung.DIFFERENTIAL)


def test_revenue_vs_profit_fail_decisively(ladder: Ladder) -> None:
    c = ladder.compare("metric", "revenue", "profit")  # today: 0.7175, uncertain
    assert (c.equal, c.rung, c.uncertain) == (False, Rung.DIFFERENTIAL, False)
    assert "different kinds of 'income'" in c.note


def test_tuesday_vs_thursday_sentence_fails(ladder: Ladder) -> None:
    gold, predicted = "The meeting is moved to Tuesday at 3 pm.", "The meeting is moved to Thursday at 3 pm."
    c = ladder.compare("reply", gold, predicted)
    assert (c.equal, c.rung) == (False, Rung.TYPED) and "weekday:2" in c.note
    r = score_response(ladder, gold, predicted, frozenset())
    assert r.truthfulness.passed is False and "Thursday" in r.truthfulness.detail


def test_could_not_find_any_vs_found_three_fails(ladder: Ladder) -> None:
    gold, predicted = "I could not find any flights on that date.", "I found three flights on that date."
    assert ladder.compare("reply", gold, predicted).equal is False
    r = score_response(ladder, gold, predicted, frozenset())  # today: the reply passes
    assert r.truthfulness.passed is False and "could not find any" in r.truthfulness.detail
    assert any(c.rung is Rung.DIFFERENTIAL and "negated" in c.note for c in r.comparisons)


@pytest.mark.parametrize(
    ("gold", "predicted", "rung", "why"),
    [
        ("Alice Smith", "Alice Jones", Rung.DIFFERENTIAL, "different names"),
        ("last quarter", "next quarter", Rung.TYPED, "period:-1|quarter"),
    ],
)
def test_names_and_relative_periods_fail(
    ladder: Ladder, gold: str, predicted: str, rung: Rung, why: str
) -> None:
    c = ladder.compare("f", gold, predicted)
    assert (c.equal, c.rung) == (False, rung) and why in c.note


def test_different_airport_codes_fail_by_a_rung(ladder: Ladder) -> None:
    c = ladder.compare("destination", "CDG", "LHR")  # today: fail by luck (embedding 0.29)
    assert (c.equal, c.rung) == (False, Rung.ALIAS)
    assert "different airports" in c.note and "charles de gaulle" in c.note and "heathrow" in c.note


@pytest.mark.parametrize(
    ("gold", "predicted", "why"),
    [("urgent", "high priority", "glossary: high priority"), ("London Heathrow", "LHR", "airport: LHR")],
)
def test_urgent_and_heathrow_pass(ladder: Ladder, gold: str, predicted: str, why: str) -> None:
    c = ladder.compare("f", gold, predicted)  # today: both fail
    assert (c.equal, c.rung) == (True, Rung.ALIAS) and why in c.note


# -- the differential rung on its own ----------------------------------------------------------


def _no_alias(a: str, b: str) -> str:
    return ""


def test_tokens_split_identifier_parts() -> None:
    assert tokens("rptEURevenue") == ["rpt", "EU", "Revenue"]
    assert tokens("rpt_eu-revenue") == ["rpt", "eu", "revenue"]
    assert tokens("I couldn't, it cannot") == ["I", "could", "not", "it", "can", "not"]


@pytest.mark.parametrize(
    ("gold", "predicted", "equal", "why"),
    [
        ("high priority", "low priority", False, "antonyms"),
        ("cheap hotel", "inexpensive hotel", True, "synonyms"),
        ("Sydney office", "Melbourne office", False, "different kinds of"),
        ("customer record", "client record", True, "synonyms"),
        ("flights are available", "flights are not available", False, "negated"),
        ("order 3 items", "order 4 items", False, "different numbers"),
        ("the report", "report", True, "only stopwords"),
        ("Acme", "Apex", None, "perhaps names"),  # capitalised: not the synonyms acme / apex
        ("weekly sales", "weekly zorbs", None, "not in the lexicon"),  # unknown: the embedding decides
    ],
)
def test_the_differing_span_decides(gold: str, predicted: str, equal: bool | None, why: str) -> None:
    diff = compare_spans(gold, predicted, _no_alias)
    assert diff is not None and diff.equal is equal and why in diff.reason, diff


def test_long_differences_are_left_to_the_embedding() -> None:
    gold = "please send the quarterly revenue report to the finance team"
    assert (
        compare_spans(gold, "please send a summary of what the sales people did last month", _no_alias)
        is None
    )


def test_very_long_texts_are_not_aligned() -> None:
    long = "the quarterly revenue report for the EMEA region " * 2500  # ~20,000 tokens: 10 s to align
    assert compare_spans(long, long.replace("revenue", "profit", 1), _no_alias) is None


def test_configured_glossary_passes_the_span(embedder: OnnxEmbedder) -> None:
    config = ScoringConfig(ladder=LadderConfig(glossary={"invoice": ["bill"]}))
    c = Ladder(config, embedder).compare("doc", "send the invoice today", "send the bill today")
    assert (c.equal, c.rung) == (True, Rung.DIFFERENTIAL) and "glossary: invoice" in c.note


def test_the_rung_can_be_switched_off(embedder: OnnxEmbedder) -> None:
    config = ScoringConfig(ladder=LadderConfig(differential=False))
    assert Ladder(config, embedder).compare("metric", "revenue", "profit").rung is Rung.EMBEDDING


def test_a_paraphrase_with_its_facts_written_otherwise_is_no_span_difference(ladder: Ladder) -> None:
    r = score_response(
        ladder, "The refund of $1,200 was issued.", "The refund of 1200 USD was issued.", frozenset()
    )
    assert r.truthfulness.passed is True


# -- the shipped data --------------------------------------------------------------------------


def test_lexicon_relations() -> None:
    lex = load_lexicon()
    assert lex.relate("revenue", "profit")[0] is Relation.SIBLING
    assert lex.relate("tuesday", "thursday") == (Relation.SIBLING, "different kinds of 'weekday'")
    assert lex.relate("booking", "reservation")[0] is Relation.SYNONYM
    assert lex.relate("flights", "flight")[0] is Relation.SYNONYM  # plural folded
    assert lex.relate("net", "gross")[0] is Relation.ANTONYM
    assert lex.relate("revenue", "zorb")[0] is Relation.UNKNOWN


def test_airport_table() -> None:
    airports = load_airports()
    assert airports.code_of("LHR") == airports.code_of("london heathrow") == "LHR"
    assert airports.code_of("lhr") is None  # a code only as written: "the" is no airport
    assert airports.code_of("London") is None  # a city's name names several airports
    assert airports.code_of("San Francisco International") == airports.code_of("SFO") == "SFO"
    assert airports.code_of("San Francisco") is None


_DATA_NOUN = """\
  1 This software and database is being provided to you, the LICENSEE, by
00000001 28 n 01 time_period 0 001 @ 00000009 n 0000 | a period
00000002 28 n 02 Tuesday 0 Tues 0 001 @ 00000001 n 0000 | a weekday
00000003 28 n 01 Thursday 0 001 @ 00000001 n 0000 | another weekday
00000004 05 n 01 dog 0 000 | an animal: not a file the lexicon keeps
"""
_DATA_ADJ = """\
00000100 00 a 01 cheap 0 001 ! 00000200 a 0101 | low in price
00000200 00 a 01 expensive 0 001 ! 00000100 a 0101 | high in price
00000300 00 s 01 dirt_cheap 0 001 & 00000100 a 0000 | very cheap
"""


def test_builder_reads_the_wndb_format(tmp_path: Path) -> None:
    (tmp_path / "data.noun").write_text(_DATA_NOUN)
    (tmp_path / "data.adj").write_text(_DATA_ADJ)
    (tmp_path / "cntlist.rev").write_text("cheap%3:00:00:: 1 5\nexpensive%3:00:00:: 1 3\n")
    nouns = read_data_file(tmp_path / "data.noun", "n", frozenset())
    assert [s.lemmas for s in nouns] == [["time period"], ["tues", "tuesday"], ["thursday"]]
    doc = build(tmp_path)
    synsets = doc["synsets"]
    assert isinstance(synsets, list) and len(synsets) == 5  # the satellite is unattested: left out
    lex_path = tmp_path / "lexicon.json"
    lex_path.write_text(serialize(doc))
    lex = load_lexicon(lex_path)
    assert lex.relate("cheap", "expensive")[0] is Relation.ANTONYM
    assert lex.relate("tues", "tuesday")[0] is Relation.SYNONYM


@pytest.mark.skipif(not (WORDNET / "data.noun").is_file(), reason="needs Debian's wordnet-base")
def test_shipped_lexicon_is_what_wordnet_gives() -> None:
    shipped = Path(__file__).resolve().parents[2] / "monitor" / "data" / "lexicon.json"
    assert shipped.read_text(encoding="utf-8") == serialize(build(WORDNET))


@pytest.mark.parametrize(
    ("gold", "predicted", "equal", "rung"),
    [
        ("周二", "周四", False, Rung.TYPED),
        ("订单A123", "订单A124", False, Rung.TYPED),
        ("已延迟4天", "已延迟5天", False, Rung.TYPED),
        ("星期二", "周二", True, Rung.TYPED),
        ("2024年3月5日", "2024-03-05", True, Rung.TYPED),
        ("三晚", "3晚", True, Rung.TYPED),
        ("已发货", "未发货", False, Rung.DIFFERENTIAL),
        ("可退款", "不可退款", False, Rung.DIFFERENTIAL),
        ("靠窗座位", "靠窗的座位", True, Rung.DIFFERENTIAL),
        ("订单已发货 order shipped today", "订单未发货 order shipped today", False, Rung.DIFFERENTIAL),
    ],
)
def test_chinese_typed_and_differential_rungs(
    ladder: Ladder, gold: str, predicted: str, equal: bool, rung: Rung
) -> None:
    result = ladder.compare_text("v", gold, predicted)
    assert (result.equal, result.rung) == (equal, rung), result.note


def test_chinese_negation_moved_by_word_order_is_no_difference(ladder: Ladder) -> None:
    diff = ladder.differential("优惠券已过期，无法使用。", "这张优惠券过期了，用不了。")
    assert diff is None or diff.equal is not False


def test_chinese_without_a_multilingual_model_is_unscorable_and_says_how(embedder: OnnxEmbedder) -> None:
    english_only = Ladder(ScoringConfig(), embedder, multilingual=None)
    for gold, predicted in (
        ("手机", "电话"),  # 北京 / 上海 is decided before any model: two cities
        ("订单 order 已经 shipped today", "订单 order 已经 packed today"),  # shipped = sent: WordNet verbs
    ):
        result = english_only.compare_text("v", gold, predicted)
        assert result.unscorable and result.rung is Rung.UNSCORABLE and result.score is None
        assert "agent-monitor[multilingual]" in result.note
