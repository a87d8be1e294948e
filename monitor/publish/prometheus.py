"""Prometheus metrics: verdicts and pipeline health. I/O only in exposition (`/metrics`).

One table (`METRICS`) declares every metric — name, type, labels, help — and is used both to create
them and to generate docs/metrics.md (`python -m monitor.publish.prometheus`), so the docs cannot
drift. Each `MonitorMetrics` owns its own `CollectorRegistry` (no global registry). Labels are
bounded: agent and release values past `max_label_values` distinct ones collapse into `other`; no
label ever carries a conversation id, an argument or free text. Names follow
`aem_<subsystem>_<name>_<unit>` with `_total` on counters and base units (seconds).

Report metrics are observed once per conversation report — a re-report after late spans (version >
1) is not counted again, so counters are not inflated by late spans; `aem_pipeline_late_rereports_total`
counts those. Pipeline counters are read from the pipeline at scrape time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from monitor.model import CONVENTIONS

RATE_BUCKETS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 0.9, 1.0)
SCORE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
TURN_BUCKETS = (1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30)
SECONDS_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)

#: an unscored report's reason as a label (a bounded set): the named reasons as they are, the worded
#: ones (which carry details) by how they start
_NAMED_REASONS = frozenset({"content_not_captured", "no_agent_activity_recognized"})
_WORDED_REASONS = (
    ("reference ", "reference_not_found"),
    ("no reference id", "no_reference"),
    ("a span could not be read", "unreadable_span"),
    ("scoring failed", "scoring_failed"),
    ("the scoring worker process died", "scoring_failed"),
    ("the report could not be redacted", "redaction_failed"),
)


def unscored_label(reason: Any) -> str:
    """Why a conversation was not scored, as a metric label."""
    text = str(reason or "")
    if text in _NAMED_REASONS:
        return text
    return next((label for start, label in _WORDED_REASONS if text.startswith(start)), "other")


@dataclass(frozen=True)
class Spec:
    name: str
    kind: str  # counter | histogram | gauge
    labels: tuple[str, ...]
    help: str
    buckets: tuple[float, ...] = ()
    scrape: bool = (
        False  # read from the pipeline's counters at scrape time (PipelineCollector), not instrumented
    )


METRICS: tuple[Spec, ...] = (
    Spec("aem_turns_total", "counter", ("agent", "release", "turn_type", "verdict"), "Scored turns by type (response, action) and verdict (pass, fail)."),
    Spec("aem_sub_metric_checks_total", "counter", ("agent", "release", "sub_metric", "outcome"), "Sub-metric checks that ran (structural, completeness, truthfulness) by outcome (pass, fail)."),
    Spec("aem_turn_failures_total", "counter", ("agent", "release", "sub_metric", "reason"), "Failed turns by failure reason (final, so cascades count as prior_action_failed) and sub-metric."),
    Spec("aem_failures_total", "counter", ("agent", "release", "attribution"), "Failed turns by attribution: root_cause or cascade."),
    Spec("aem_conversations_total", "counter", ("agent", "release", "scored", "test_pass"), "Reported conversations; test_pass is 'true', 'false' or 'none' when not scored."),
    Spec("aem_unscored_conversations_total", "counter", ("agent", "release", "reason"), "Conversations reported unscored (scored: false), by why: content_not_captured, no_agent_activity_recognized (spans no adapter understood: never counted as failures), no_reference, reference_not_found, unreadable_span, scoring_failed, redaction_failed, other."),
    Spec("aem_conversation_success_rate", "histogram", ("agent", "release"), "Per-conversation AEM success rate (share of passing turns).", RATE_BUCKETS),
    Spec("aem_first_failure_turn", "histogram", ("agent", "release"), "Turn number of the first root-cause failure in failing conversations.", TURN_BUCKETS),
    Spec("aem_chain_turns_total", "counter", ("agent", "release", "chain_length", "verdict"), "Turns inside action chains by chain length (1, 2, 3+) and verdict."),
    Spec("aem_similarity_score", "histogram", ("sub_metric", "rung"), "Scores of value comparisons by sub-metric and deciding ladder rung.", SCORE_BUCKETS),
    Spec("aem_comparisons_total", "counter", ("rung", "outcome"), "Value comparisons by deciding rung and outcome (equal, different, uncertain, unscorable)."),
    Spec("aem_conversation_duration_seconds", "histogram", ("agent", "release", "test_pass"), "Wall time from a conversation's first to last span, by verdict (latency vs correctness).", SECONDS_BUCKETS),
    Spec("aem_turn_latency_seconds", "histogram", ("agent", "turn_type", "verdict"), "Tool-call latency of action turns by verdict.", SECONDS_BUCKETS),
    Spec("aem_tokens_total", "counter", ("agent", "release", "direction"), "Model tokens (input, output) of reported conversations, where spans carry usage."),
    Spec("aem_tool_errors_total", "counter", ("agent", "release"), "Tool calls that ended in an error."),
    Spec("aem_process_tool_calls_total", "counter", ("agent", "release", "check", "outcome"), "Tool calls under a policy by check (selection, completeness, validity, execution, duplicate) and outcome (pass, fail)."),
    Spec("aem_process_conversations_total", "counter", ("agent", "release", "strict", "loose"), "Conversations under a policy by strict success (every hard constraint held) and loose success (acceptable outcome)."),
    Spec("aem_process_state_drift_total", "counter", ("agent", "release"), "Conversations under a policy where a state field (e.g. order_id) drifted."),
    Spec("aem_process_recoveries_total", "counter", ("agent", "release", "outcome"), "Tool faults by what followed: recovered (retry), escalated (asked the user), false_recovery, unrecovered; under a policy, and for gold scoring (recovered: retried successfully, unrecovered)."),
    Spec("aem_unmatched_turns_total", "counter", ("agent", "release", "why"), "Live turns no gold turn asks for, left unscored, by why (reply_without_gold, read_only, allowed_extra, recovered_attempt)."),
    Spec("aem_pipeline_scoring_seconds", "histogram", (), "Time to score one closed conversation.", SECONDS_BUCKETS),
    Spec("aem_pipeline_requests_total", "counter", ("outcome",), "OTLP requests and replayed payloads by outcome (accepted, rejected)."),
    Spec("aem_pipeline_spans_total", "counter", ("convention",), "Decoded spans by the convention adapter that read them.", scrape=True),
    Spec("aem_pipeline_spans_rejected_total", "counter", ("reason",), "Spans or values not used, by reason (no_id, unreadable, value_truncated, dropped_over_cap).", scrape=True),
    Spec("aem_pipeline_errors_total", "counter", ("stage",), "Inputs a stage failed on (decode, normalize, score, publish, kafka): the payload is refused or dead-lettered, or the conversation reported unscored with the reason.", scrape=True),
    Spec("aem_receiver_connections_closed_total", "counter", ("reason",), "HTTP connections the receivers closed to stay available: header_timeout (no request headers in server.header_timeout_s), evicted (shed for a new one at server.max_connections), refused.", scrape=True),
    Spec("aem_receiver_requests_throttled_total", "counter", (), "OTLP requests refused because server.score_queue conversations were waiting for a scoring worker (HTTP 429 with Retry-After, gRPC RESOURCE_EXHAUSTED; retryable).", scrape=True),
    Spec("aem_pipeline_scoring_queue", "gauge", (), "Closed conversations handed to the scoring workers and not yet reported (server.workers > 1).", scrape=True),
    Spec("aem_pipeline_workers_replaced_total", "counter", (), "Scoring worker processes that died and were replaced (the conversation each was scoring is reported unscored with the reason).", scrape=True),
    Spec("aem_pipeline_spans_time_clamped_total", "counter", (), "Spans whose timestamps lay further from their arrival than windows.max_future_s / max_past_s allow, clamped to the bound (event time never moves the clock).", scrape=True),
    Spec("aem_pipeline_open_conversations", "gauge", (), "Conversations currently open (not yet reported).", scrape=True),
    Spec("aem_pipeline_open_spans", "gauge", (), "Spans held by open conversations.", scrape=True),
    Spec("aem_pipeline_evictions_total", "counter", (), "Conversations reported early because the open-conversation cap was reached.", scrape=True),
    Spec("aem_pipeline_traces_joined_total", "counter", (), "Traces with no conversation id joined to the conversation whose history their model calls resend (one trace per user turn).", scrape=True),
    Spec("aem_pipeline_call_copies_joined_total", "counter", (), "Traces with no conversation id of only metadata-only copies of model calls (a provider SDK tracing each call beside an instrumentation that records it whole) joined to the conversation holding those calls, by their response ids.", scrape=True),
    Spec("aem_pipeline_second_recordings_joined_total", "counter", (), "Traces with no conversation id that recorded again, whole and at the same time, a model call another conversation recorded (a second instrumentation whose spans do not nest under the first's: each call a trace of its own), joined to that conversation.", scrape=True),
    Spec("aem_pipeline_late_rereports_total", "counter", (), "Re-reports (new version) of conversations after late spans.", scrape=True),
    Spec("aem_pipeline_conversations_merged_total", "counter", (), "Traces reported alone, then merged into the conversation whose earlier turn came later (their id's last report names it: merged_into).", scrape=True),
    Spec("aem_kafka_consumer_lag", "gauge", ("group", "partition"), "Messages between the scoring stage's position and the end of each internal-topic partition.", scrape=True),
    Spec("aem_kafka_dead_letters_total", "counter", (), "Poison messages (undecodable, oversized) sent to the dead-letter topic.", scrape=True),
    Spec("aem_embedding_texts_total", "counter", ("source",), "Texts the embedder served, by source (model, cache).", scrape=True),
    Spec("aem_embedding_batches_total", "counter", (), "Model inference calls of the embedder.", scrape=True),
    Spec("aem_evaluation_events_total", "counter", ("outcome",), "gen_ai.evaluation.result events by outcome: sent (the endpoint took them), dropped (queue full, or the endpoint refused or was down).", scrape=True),
    Spec("aem_evaluation_events_cpu_seconds_total", "counter", (), "CPU seconds the evaluation events took: read from reports and queued on the scoring thread, encoded and sent on the exporter's.", scrape=True),
)  # fmt: skip

_BY_NAME = {s.name: s for s in METRICS}
#: the scrape-time metrics without labels, and the stats key each is read from
_SCALARS: tuple[tuple[str, str], ...] = (
    ("aem_receiver_requests_throttled_total", "requests_throttled"),
    ("aem_pipeline_scoring_queue", "scoring_queue"),
    ("aem_pipeline_workers_replaced_total", "workers_replaced"),
    ("aem_pipeline_spans_time_clamped_total", "spans_time_clamped"),
    ("aem_pipeline_open_conversations", "open_conversations"),
    ("aem_pipeline_open_spans", "open_spans"),
    ("aem_pipeline_evictions_total", "evictions"),
    ("aem_pipeline_traces_joined_total", "traces_joined_by_history"),
    ("aem_pipeline_call_copies_joined_total", "call_copies_joined"),
    ("aem_pipeline_second_recordings_joined_total", "second_recordings_joined"),
    ("aem_pipeline_late_rereports_total", "late_rereports"),
    ("aem_pipeline_conversations_merged_total", "conversations_merged"),
    ("aem_embedding_batches_total", "batches"),
    ("aem_kafka_dead_letters_total", "kafka_dead_letters"),
)


class LabelCap:
    """Keeps at most `limit` distinct values per label; later ones become `other`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._seen: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def __call__(self, label: str, value: str | None) -> str:
        value = value or "unknown"
        with self._lock:
            seen = self._seen.setdefault(label, set())
            if value in seen:
                return value
            if len(seen) >= self.limit:
                return "other"
            seen.add(value)
            return value


class MonitorMetrics:
    def __init__(self, max_label_values: int = 50, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        self.cap = LabelCap(max_label_values)
        self._m: dict[str, Any] = {}
        for spec in METRICS:
            if spec.scrape:
                continue
            name = spec.name.removesuffix("_total") if spec.kind == "counter" else spec.name
            if spec.kind == "counter":
                self._m[spec.name] = Counter(name, spec.help, spec.labels, registry=self.registry)
            else:
                self._m[spec.name] = Histogram(
                    name, spec.help, spec.labels, buckets=spec.buckets, registry=self.registry
                )
        # the comparisons a reviewer must look at exist from the start, at 0: a dashboard shows "0", not
        # "no data", when the ladder decided everything (client_python: initialise labelled metrics)
        for rung, outcome in (("embedding", "uncertain"), ("unscorable", "unscorable")):
            self._m["aem_comparisons_total"].labels(rung, outcome)

    def attach(self, stats: Callable[[], dict[str, float]]) -> None:
        """Expose pipeline and embedder counters, read at scrape time."""
        self.registry.register(PipelineCollector(stats))

    def observe_request(self, accepted: bool) -> None:
        self._m["aem_pipeline_requests_total"].labels("accepted" if accepted else "rejected").inc()

    def observe_scoring(self, seconds: float) -> None:
        self._m["aem_pipeline_scoring_seconds"].observe(seconds)

    def observe_report(self, report: dict[str, Any]) -> None:
        if report.get("version", 1) > 1:
            return
        agent, release = self.cap("agent", report.get("agent")), self.cap("release", report.get("release"))
        scored = bool(report.get("scored"))
        verdict = "none" if not scored else ("true" if report.get("test_pass") else "false")
        self._m["aem_conversations_total"].labels(agent, release, str(scored).lower(), verdict).inc()
        self._m["aem_conversation_duration_seconds"].labels(agent, release, verdict).observe(
            report.get("duration_ms", 0) / 1000
        )
        for direction in ("input", "output"):
            tokens = report.get(f"{direction}_tokens")
            if tokens:
                self._m["aem_tokens_total"].labels(agent, release, direction).inc(tokens)
        if report.get("tool_errors"):
            self._m["aem_tool_errors_total"].labels(agent, release).inc(report["tool_errors"])
        if report.get("process"):
            self._observe_process(agent, release, report["process"])
        if not scored:
            reason = unscored_label(report.get("unscored_reason"))
            self._m["aem_unscored_conversations_total"].labels(agent, release, reason).inc()
            return
        self._m["aem_conversation_success_rate"].labels(agent, release).observe(report["success_rate"])
        self._observe_matching(agent, release, report)
        if report.get("first_failure_turn") is not None:
            self._m["aem_first_failure_turn"].labels(agent, release).observe(report["first_failure_turn"])
        traces = {t["turn_no"]: t.get("trace_id") for t in report.get("observed_turns") or []}
        for turn in report.get("turns", []):
            self._observe_turn(
                agent, release, turn, traces.get(turn.get("live_turn_no")) or report.get("trace_id")
            )

    def _observe_matching(self, agent: str, release: str, report: dict[str, Any]) -> None:
        """Gold scoring's free turns and recovery (policy reports count their own recoveries)."""
        for u in report.get("unmatched", []):
            self._m["aem_unmatched_turns_total"].labels(agent, release, u["why"]).inc()
        recovery = report.get("recovery") or {}
        if report.get("process") or not recovery.get("failed_attempts"):
            return
        recovered = recovery.get("recovered", 0)
        for outcome, n in (
            ("recovered", recovered),
            ("unrecovered", recovery["failed_attempts"] - recovered),
        ):
            if n:
                self._m["aem_process_recoveries_total"].labels(agent, release, outcome).inc(n)

    def _observe_process(self, agent: str, release: str, process: dict[str, Any]) -> None:
        n = process["tool_calls"]
        rates = {
            "selection": process["tool_selection_accuracy"], "completeness": process["parameter_completeness_rate"],
            "validity": process["parameter_validity_rate"], "execution": process["tool_call_success_rate"],
            "duplicate": None if process["duplicate_call_rate"] is None else 1 - process["duplicate_call_rate"],
        }  # fmt: skip
        for check, rate in rates.items():
            if rate is not None and n:
                passed = round(rate * n)
                self._m["aem_process_tool_calls_total"].labels(agent, release, check, "pass").inc(passed)
                self._m["aem_process_tool_calls_total"].labels(agent, release, check, "fail").inc(n - passed)
        strict, loose = str(process["strict_success"]).lower(), str(process["loose_success"]).lower()
        self._m["aem_process_conversations_total"].labels(agent, release, strict, loose).inc()
        if process["drifting_fields"]:
            self._m["aem_process_state_drift_total"].labels(agent, release).inc()
        recovery = process["recovery"]
        for outcome, key in (
            ("recovered", "recovered"),
            ("escalated", "escalated"),
            ("false_recovery", "false_recoveries"),
            ("unrecovered", "unrecovered"),
        ):
            if recovery[key]:
                self._m["aem_process_recoveries_total"].labels(agent, release, outcome).inc(recovery[key])

    def _observe_turn(self, agent: str, release: str, turn: dict[str, Any], trace_id: str | None) -> None:
        verdict = "pass" if turn["success"] else "fail"
        # a failing turn's trace id rides along as an OpenMetrics exemplar: Grafana jumps from a spike to it
        exemplar = {"trace_id": trace_id} if trace_id and not turn["success"] else None
        self._m["aem_turns_total"].labels(agent, release, turn["type"], verdict).inc(exemplar=exemplar)
        for check in turn.get("checks", []):
            if check["passed"] is not None:
                outcome = "pass" if check["passed"] else "fail"
                self._m["aem_sub_metric_checks_total"].labels(
                    agent, release, check["sub_metric"], outcome
                ).inc()
        if not turn["success"]:
            reason = turn["failure_reason"]
            self._m["aem_turn_failures_total"].labels(
                agent, release, turn.get("sub_metric") or "none", reason
            ).inc(exemplar=exemplar)
            attribution = "cascade" if reason == "prior_action_failed" else "root_cause"
            self._m["aem_failures_total"].labels(agent, release, attribution).inc()
        if turn.get("chain_length"):
            bucket = "3+" if turn["chain_length"] >= 3 else str(turn["chain_length"])
            self._m["aem_chain_turns_total"].labels(agent, release, bucket, verdict).inc()
        if turn["type"] == "action" and turn.get("latency_ms") is not None:
            self._m["aem_turn_latency_seconds"].labels(agent, "action", verdict).observe(
                turn["latency_ms"] / 1000
            )
        for cmp in turn.get("comparisons", []):  # value and reply comparisons: truthfulness
            outcome = (
                "unscorable"
                if cmp["unscorable"]
                else "uncertain"
                if cmp["uncertain"]
                else ("equal" if cmp["equal"] else "different")
            )
            self._m["aem_comparisons_total"].labels(cmp["rung"], outcome).inc()
            if cmp["score"] is not None:
                self._m["aem_similarity_score"].labels("truthfulness", cmp["rung"]).observe(cmp["score"])
        if turn["type"] == "response":  # reply coverage: completeness
            coverage = next((c for c in turn.get("checks", []) if c["sub_metric"] == "completeness"), None)
            if coverage is not None and coverage.get("score") is not None:
                self._m["aem_similarity_score"].labels("completeness", "coverage").observe(coverage["score"])


class PipelineCollector(Collector):
    """Pipeline and embedder counters, read at scrape time from a stats snapshot."""

    def __init__(self, stats: Callable[[], dict[str, float]]) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        s = self.stats()
        spans = CounterMetricFamily(
            "aem_pipeline_spans", _BY_NAME["aem_pipeline_spans_total"].help, labels=["convention"]
        )
        for key, value in s.items():
            if key.startswith("spans_") and key.removeprefix("spans_") in CONVENTIONS:
                spans.add_metric([key.removeprefix("spans_")], value)
        yield spans
        rejected = CounterMetricFamily(
            "aem_pipeline_spans_rejected",
            _BY_NAME["aem_pipeline_spans_rejected_total"].help,
            labels=["reason"],
        )
        rejected.add_metric(["no_id"], s.get("spans_rejected_no_id", 0))
        rejected.add_metric(["unreadable"], s.get("spans_rejected_unreadable", 0))
        rejected.add_metric(["value_truncated"], s.get("attribute_values_truncated", 0))
        rejected.add_metric(["dropped_over_cap"], s.get("spans_dropped", 0))
        yield rejected
        errors = CounterMetricFamily(
            "aem_pipeline_errors", _BY_NAME["aem_pipeline_errors_total"].help, labels=["stage"]
        )
        for stage in ("decode", "normalize", "score", "publish", "kafka"):
            errors.add_metric([stage], s.get(f"pipeline_errors:{stage}", 0))
        yield errors
        closed = CounterMetricFamily(
            "aem_receiver_connections_closed",
            _BY_NAME["aem_receiver_connections_closed_total"].help,
            labels=["reason"],
        )
        for reason in ("header_timeout", "evicted", "refused"):
            closed.add_metric([reason], s.get(f"connections_closed:{reason}", 0))
        yield closed
        if "evaluation_events_sent" in s:  # only where the exporter is on
            events = CounterMetricFamily(
                "aem_evaluation_events", _BY_NAME["aem_evaluation_events_total"].help, labels=["outcome"]
            )
            for outcome in ("sent", "dropped"):
                events.add_metric([outcome], s.get(f"evaluation_events_{outcome}", 0))
            yield events
            spec = _BY_NAME["aem_evaluation_events_cpu_seconds_total"]
            yield CounterMetricFamily(
                spec.name.removesuffix("_total"), spec.help, value=s.get("evaluation_events_cpu_seconds", 0)
            )
        for name, key in _SCALARS:
            spec = _BY_NAME[name]
            family = CounterMetricFamily if spec.kind == "counter" else GaugeMetricFamily
            yield family(name.removesuffix("_total"), spec.help, value=s.get(key, 0))
        texts = CounterMetricFamily(
            "aem_embedding_texts", _BY_NAME["aem_embedding_texts_total"].help, labels=["source"]
        )
        texts.add_metric(["model"], s.get("embedded", 0))
        texts.add_metric(["cache"], s.get("cache_hits", 0))
        yield texts
        lag = GaugeMetricFamily(
            "aem_kafka_consumer_lag", _BY_NAME["aem_kafka_consumer_lag"].help, labels=["group", "partition"]
        )
        for key, value in s.items():
            if key.startswith("kafka_lag:"):
                _, group, partition = key.split(":", 2)
                lag.add_metric([group, partition], value)
        yield lag


def metrics_doc() -> str:
    """The metric table for docs/metrics.md, generated from `METRICS`."""
    lines = [
        "# Metrics",
        "",
        "Generated from `monitor/publish/prometheus.py` (`python -m monitor.publish.prometheus > docs/metrics.md`);",
        "a test fails when this file and the code disagree. Served on `/metrics` (default port 9464).",
        "",
        "| name | type | labels | meaning |",
        "|---|---|---|---|",
    ]
    for s in METRICS:
        labels = ", ".join(f"`{label}`" for label in s.labels) or "—"
        lines.append(f"| `{s.name}` | {s.kind} | {labels} | {s.help} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(metrics_doc(), end="")
