"""Generate the Grafana dashboards (overview.json, pipeline.json) from one panel list.

    .venv/bin/python dashboards/build.py      # rewrites dashboards/*.json

The JSON is committed (Grafana provisioning reads it); tests/integration/test_dashboards.py checks it is
what this script produces, that it matches the dashboard schema the tests check, that every query is
valid PromQL (promtool), and that every query returns data from a real Prometheus scraping a monitor.
Variables: `datasource` (Prometheus), `agent`, `release` (multi-select, All = `.*`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCHEMA_VERSION = 39
SEL = 'agent=~"$agent", release=~"$release"'
#: the counters that carry a failing turn's trace id as an exemplar: their time series show them as dots
#: that link to the trace (the Prometheus data source's exemplarTraceIdDestinations, deploy/grafana)
EXEMPLAR_METRICS = ("aem_turns_total", "aem_turn_failures_total")

# (title, type, [(expr, legend)], unit, width, height)
OVERVIEW: list[tuple[str, str, list[tuple[str, str]], str, int, int]] = [
    ("AEM success rate by release", "timeseries", [
        (f'sum by (release) (increase(aem_turns_total{{{SEL}, verdict="pass"}}[$__rate_interval])) / sum by (release) (increase(aem_turns_total{{{SEL}}}[$__rate_interval]))', "{{release}}"),
    ], "percentunit", 12, 8),
    ("Strict success (conversations passing every turn)", "stat", [
        (f'sum(increase(aem_conversations_total{{{SEL}, test_pass="true"}}[$__range])) / sum(increase(aem_conversations_total{{{SEL}, scored="true"}}[$__range]))', "strict"),
    ], "percentunit", 6, 8),
    ("Root causes vs cascades", "stat", [
        (f'sum by (attribution) (increase(aem_failures_total{{{SEL}}}[$__range]))', "{{attribution}}"),
    ], "short", 6, 8),
    ("Sub-metric success rate", "timeseries", [
        (f'sum by (sub_metric) (increase(aem_sub_metric_checks_total{{{SEL}, outcome="pass"}}[$__rate_interval])) / sum by (sub_metric) (increase(aem_sub_metric_checks_total{{{SEL}}}[$__rate_interval]))', "{{sub_metric}}"),
    ], "percentunit", 12, 8),
    ("Failing turns by reason (exemplars: a dot opens a failing trace)", "timeseries", [
        (f'sum by (reason) (increase(aem_turn_failures_total{{{SEL}}}[$__rate_interval]))', "{{reason}}"),
    ], "short", 12, 8),
    ("Failure reasons", "bargauge", [
        (f'sort_desc(sum by (reason) (increase(aem_turn_failures_total{{{SEL}}}[$__range])))', "{{reason}}"),
    ], "short", 12, 8),
    ("Correctness by action-chain length", "bargauge", [
        (f'sum by (chain_length) (increase(aem_chain_turns_total{{{SEL}, verdict="pass"}}[$__range])) / sum by (chain_length) (increase(aem_chain_turns_total{{{SEL}}}[$__range]))', "{{chain_length}} steps"),
    ], "percentunit", 8, 8),
    ("Conversation latency by verdict (p90)", "timeseries", [
        (f'histogram_quantile(0.9, sum by (le, test_pass) (rate(aem_conversation_duration_seconds_bucket{{{SEL}}}[$__rate_interval])))', "passed={{test_pass}}"),
    ], "s", 8, 8),
    ("Worst agents (turn success rate)", "table", [
        ('bottomk(10, sum by (agent) (increase(aem_turns_total{verdict="pass"}[$__range])) / sum by (agent) (increase(aem_turns_total[$__range])))', "{{agent}}"),
    ], "percentunit", 8, 8),
    ("First failure turn (median)", "stat", [
        (f'histogram_quantile(0.5, sum by (le) (increase(aem_first_failure_turn_bucket{{{SEL}}}[$__range])))', "turn"),
    ], "short", 6, 6),
    ("Uncertain and unscorable comparisons", "stat", [
        ('sum by (outcome) (increase(aem_comparisons_total{outcome=~"uncertain|unscorable"}[$__range]))', "{{outcome}}"),
    ], "short", 6, 6),
    ("Process: tool-call checks under policies", "bargauge", [
        (f'sum by (check) (increase(aem_process_tool_calls_total{{{SEL}, outcome="pass"}}[$__range])) / sum by (check) (increase(aem_process_tool_calls_total{{{SEL}}}[$__range]))', "{{check}}"),
    ], "percentunit", 8, 8),
    ("Process: strict vs loose task success", "stat", [
        (f'sum(increase(aem_process_conversations_total{{{SEL}, strict="true"}}[$__range])) / sum(increase(aem_process_conversations_total{{{SEL}}}[$__range]))', "strict"),
        (f'sum(increase(aem_process_conversations_total{{{SEL}, loose="true"}}[$__range])) / sum(increase(aem_process_conversations_total{{{SEL}}}[$__range]))', "loose"),
    ], "percentunit", 8, 8),
    ("Process: recovery after tool faults", "stat", [
        (f'sum by (outcome) (increase(aem_process_recoveries_total{{{SEL}}}[$__range])) or vector(0)', "{{outcome}}"),
    ], "short", 8, 8),
    ("Similarity scores by rung (median)", "timeseries", [
        ('histogram_quantile(0.5, sum by (le, rung) (rate(aem_similarity_score_bucket[$__rate_interval])))', "{{rung}}"),
    ], "short", 12, 6),
]  # fmt: skip

PIPELINE: list[tuple[str, str, list[tuple[str, str]], str, int, int]] = [
    ("Spans received by convention", "timeseries", [
        ("sum by (convention) (rate(aem_pipeline_spans_total[$__rate_interval]))", "{{convention}}"),
    ], "ops", 12, 8),
    ("Rejected spans and values by reason", "timeseries", [
        ("sum by (reason) (rate(aem_pipeline_spans_rejected_total[$__rate_interval]))", "{{reason}}"),
    ], "ops", 12, 8),
    ("Requests by outcome", "timeseries", [
        ("sum by (outcome) (rate(aem_pipeline_requests_total[$__rate_interval]))", "{{outcome}}"),
    ], "reqps", 8, 8),
    ("Open conversations and spans", "timeseries", [
        ("sum(aem_pipeline_open_conversations)", "conversations"),
        ("sum(aem_pipeline_open_spans)", "spans"),
    ], "short", 8, 8),
    ("Evictions and late re-reports", "stat", [
        ("sum(increase(aem_pipeline_evictions_total[$__range]))", "evictions"),
        ("sum(increase(aem_pipeline_late_rereports_total[$__range]))", "late re-reports"),
    ], "short", 8, 8),
    ("Scoring time per conversation (p99)", "timeseries", [
        ("histogram_quantile(0.99, sum by (le) (rate(aem_pipeline_scoring_seconds_bucket[$__rate_interval])))", "p99"),
    ], "s", 12, 8),
    ("Embedding cache hit ratio", "stat", [
        ('sum(increase(aem_embedding_texts_total{source="cache"}[$__range])) / sum(increase(aem_embedding_texts_total[$__range]))', "hit ratio"),
    ], "percentunit", 6, 8),
    ("Monitors up", "stat", [
        ('sum(up{job="agent-monitor"})', "up"),
    ], "short", 6, 8),
]  # fmt: skip


def dashboard(
    uid: str, title: str, panels: list[tuple[str, str, list[tuple[str, str]], str, int, int]]
) -> dict[str, Any]:
    laid: list[dict[str, Any]] = []
    x = y = row_h = 0
    for i, (name, kind, targets, unit, w, h) in enumerate(panels, start=1):
        if x + w > 24:
            x, y, row_h = 0, y + row_h, 0
        laid.append({
            "id": i, "type": kind, "title": name,
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "gridPos": {"x": x, "y": y, "w": w, "h": h},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "options": {"reduceOptions": {"calcs": ["lastNotNull"]}} if kind in ("stat", "bargauge") else {},
            "targets": [
                {"refId": chr(ord("A") + j), "expr": expr, "legendFormat": legend, "datasource": {"type": "prometheus", "uid": "${datasource}"},
                 "exemplar": kind == "timeseries" and any(m in expr for m in EXEMPLAR_METRICS)}
                for j, (expr, legend) in enumerate(targets)
            ],
        })  # fmt: skip
        x += w
        row_h = max(row_h, h)
    return {
        "uid": uid, "title": title, "tags": ["agent-monitor", "aem"], "timezone": "browser",
        "schemaVersion": SCHEMA_VERSION, "version": 1, "editable": True, "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {"list": [
            {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus", "current": {}},
            {"name": "agent", "label": "Agent", "type": "query", "datasource": {"type": "prometheus", "uid": "${datasource}"},
             "query": {"query": "label_values(aem_turns_total, agent)", "refId": "agent"}, "refresh": 2,
             "multi": True, "includeAll": True, "allValue": ".*", "current": {}},
            {"name": "release", "label": "Release", "type": "query", "datasource": {"type": "prometheus", "uid": "${datasource}"},
             "query": {"query": 'label_values(aem_turns_total{agent=~"$agent"}, release)', "refId": "release"}, "refresh": 2,
             "multi": True, "includeAll": True, "allValue": ".*", "current": {}},
        ]},
        "annotations": {"list": []},
        "panels": laid,
    }  # fmt: skip


def build() -> dict[str, dict[str, Any]]:
    return {
        "overview.json": dashboard("aem-overview", "agent-monitor overview", OVERVIEW),
        "pipeline.json": dashboard("aem-pipeline", "agent-monitor pipeline health", PIPELINE),
    }


if __name__ == "__main__":
    for name, board in build().items():
        (HERE / name).write_text(json.dumps(board, indent=2) + "\n")
        print(f"wrote dashboards/{name}")
