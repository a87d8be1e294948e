"""Prometheus metrics as a scraper sees them, after real recorded traffic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from monitor.cli import load_references
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig
from monitor.publish.prometheus import MonitorMetrics, metrics_doc
from monitor.runtime.pipeline import Pipeline
from tests.unit.test_pipeline_bad_spans import request, travel_gold

ROOT = Path(__file__).resolve().parents[2]


def samples(metrics: MonitorMetrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = generate_latest(metrics.registry).decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(all_: dict[Any, float], name: str, **labels: str) -> float:
    return sum(
        v for (n, ls), v in all_.items() if n == name and all(dict(ls).get(k) == x for k, x in labels.items())
    )


def test_verdicts_and_pipeline_health_after_recorded_traffic(ladder: Ladder) -> None:
    metrics = MonitorMetrics()
    pipeline = Pipeline(
        ScoringConfig(), ladder, load_references(ROOT / "monitor/data/demo/gold"), lambda r: None, metrics
    )
    for f in sorted((ROOT / "tests/fixtures/otlp").glob("*/*.pb")):
        pipeline.ingest(f.read_bytes(), "application/x-protobuf", str(f))
    pipeline.flush()
    s = samples(metrics)
    assert value(s, "aem_conversations_total", test_pass="true") == 4
    assert value(s, "aem_conversations_total", test_pass="false") == 4
    # each wrong-metric conversation: 1 root cause (the call) + 2 cascades (chart, reply)
    assert value(s, "aem_failures_total", attribution="root_cause") == 4
    assert value(s, "aem_failures_total", attribution="cascade") == 8
    assert (
        value(s, "aem_turn_failures_total", reason="inconsistent_parameter_values", sub_metric="truthfulness")
        == 4
    )
    assert value(s, "aem_turns_total", verdict="pass") == 4 * 4 + 4 * 1
    assert value(s, "aem_sub_metric_checks_total", sub_metric="truthfulness", outcome="fail") == 12
    assert value(s, "aem_chain_turns_total", chain_length="2", verdict="fail") == 12
    assert value(s, "aem_conversation_success_rate_count", agent="reports-agent", release="1.4.0") == 8
    assert value(s, "aem_first_failure_turn_sum") == 4 * 4
    assert value(s, "aem_pipeline_spans_total", convention="strands") > 0
    assert value(s, "aem_pipeline_requests_total", outcome="accepted") == 8
    assert value(s, "aem_pipeline_open_conversations") == 0
    assert value(s, "aem_embedding_texts_total", source="cache") > 0
    # the wrong metric (revenue / profit) of each failing conversation: decided by the lexicon, not flagged
    assert value(s, "aem_comparisons_total", rung="differential", outcome="different") >= 4


def test_labels_are_bounded_and_never_carry_ids(ladder: Ladder) -> None:
    metrics = MonitorMetrics(max_label_values=2)
    for i in range(5):
        metrics.observe_report(
            {
                "agent": f"agent-{i}",
                "release": "r1",
                "scored": False,
                "duration_ms": 10,
                "conversation_id": f"c{i}",
            }
        )
    s = samples(metrics)
    agents = {dict(ls)["agent"] for (n, ls) in s if n == "aem_conversations_total"}
    assert agents == {"agent-0", "agent-1", "other"}
    assert not any("c3" in str(ls) for (_, ls) in s)


def test_a_rereport_is_not_counted_twice() -> None:
    metrics = MonitorMetrics()
    report = {"agent": "a", "release": "r", "scored": False, "duration_ms": 1}
    metrics.observe_report({**report, "version": 1})
    metrics.observe_report({**report, "version": 2})
    assert value(samples(metrics), "aem_conversations_total") == 1


def test_metric_docs_are_generated_from_the_code() -> None:
    assert (ROOT / "docs" / "metrics.md").read_text() == metrics_doc()


def test_a_scrape_is_answered_while_a_conversation_is_being_scored() -> None:
    """Prometheus scrapes /metrics on the receivers' event loop: a scrape that waited for the conversation
    being scored would stall every receiver with it. It is answered at once, mid-scoring."""
    import threading

    from monitor.compare.similarity import PairScore

    scoring, release = threading.Event(), threading.Event()

    class SlowScorer:  # the embedding rung, stuck on a long text
        def __init__(self) -> None:
            self.stats: dict[str, float] = {"embedded": 0}

        def prefetch(self, texts: Any) -> None:
            return None

        def score_pairs(self, pairs: Any) -> list[PairScore]:
            scoring.set()
            release.wait(30)
            return [PairScore(score=1.0) for _ in pairs]

    metrics = MonitorMetrics()
    pipeline = Pipeline(
        ScoringConfig(),
        Ladder(ScoringConfig(), SlowScorer()),  # type: ignore[arg-type]
        load_references(ROOT / "monitor/data/demo/gold"),
        lambda r: None,
        metrics,
    )
    for f in sorted((ROOT / "tests/fixtures/otlp").glob("*/*.pb")):
        pipeline.ingest(f.read_bytes(), "application/x-protobuf", str(f))
    flushing = threading.Thread(target=pipeline.flush)
    flushing.start()
    try:
        assert scoring.wait(30), "no conversation reached the embedding rung"
        scraped: list[dict[Any, float]] = []
        scrape = threading.Thread(target=lambda: scraped.append(samples(metrics)))
        scrape.start()
        scrape.join(10)
        assert scraped, "the scrape waited for scoring"
        assert value(scraped[0], "aem_pipeline_open_conversations") == 0  # all closed, being scored
    finally:
        release.set()
        flushing.join(60)
    assert value(samples(metrics), "aem_conversations_total") == 8


def test_unscored_conversations_are_counted_by_a_bounded_reason_never_as_failures() -> None:
    metrics = MonitorMetrics()
    for version, reason in enumerate(
        (
            "no_agent_activity_recognized",
            "content_not_captured",
            "reference 'travel' not found among the loaded gold dialogs, and no policy applies",
            "scoring failed: ValueError: x",
            "something new",
        ),
        start=1,
    ):
        metrics.observe_report(
            {"conversation_id": f"c{version}", "agent": "a", "release": "r", "scored": False,
             "unscored_reason": reason, "duration_ms": 1}
        )  # fmt: skip
    s = samples(metrics)
    reasons = {dict(ls)["reason"]: v for (n, ls), v in s.items() if n == "aem_unscored_conversations_total"}
    assert reasons == {
        "no_agent_activity_recognized": 1, "content_not_captured": 1, "reference_not_found": 1,
        "scoring_failed": 1, "other": 1,
    }  # fmt: skip
    assert value(s, "aem_turn_failures_total") == 0 and value(s, "aem_turns_total") == 0


def test_spans_of_an_unknown_convention_count_no_failure_anywhere(ladder: Ladder) -> None:
    """A framework nobody tuned for, with gold for its reference: one unscored report with the reason,
    counted by that reason, and not one failed turn, failure or failed conversation in any metric."""
    metrics = MonitorMetrics()
    reports: list[dict[str, Any]] = []
    pipeline = Pipeline(ScoringConfig(), ladder, travel_gold(), reports.append, metrics)
    attrs = {"session.id": "c1", "aem.reference_id": "travel-booking", "acme.step": "plan"}
    pipeline.ingest(request({"name": "acme.plan", "attrs": attrs}, {"name": "acme.act", "attrs": attrs}),
                    "application/x-protobuf", "test")  # fmt: skip
    pipeline.flush()
    [report] = reports
    assert (report["scored"], report["unscored_reason"]) == (False, "no_agent_activity_recognized")
    s = samples(metrics)
    assert value(s, "aem_unscored_conversations_total", reason="no_agent_activity_recognized") == 1
    assert value(s, "aem_conversations_total", scored="false", test_pass="none") == 1
    for failures in ("aem_turn_failures_total", "aem_failures_total"):
        assert value(s, failures) == 0
    assert value(s, "aem_turns_total", verdict="fail") == 0
    assert value(s, "aem_conversations_total", test_pass="false") == 0
