"""Failing turns carry their trace id as an OpenMetrics exemplar on `aem_turns_total{verdict="fail"}`
and `aem_turn_failures_total`, served when the scraper asks for OpenMetrics (issue 28)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from monitor.publish.prometheus import MonitorMetrics
from monitor.sources.otlp_http import build_metrics_app

ROOT = Path(__file__).resolve().parents[2]


def strands_wrong_metric(tmp_path: Path) -> dict[str, Any]:
    from monitor.cli import main

    out = tmp_path / "r.jsonl"
    gold = ROOT / "monitor" / "data" / "demo" / "gold"
    main(["replay", str(ROOT / "tests/fixtures/otlp/strands"), "--gold", str(gold), "--out", str(out)])
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    report: dict[str, Any] = next(r for r in reports if r["conversation_id"] == "strands-wrong-metric")
    return report


def test_metrics_in_openmetrics_carry_the_failing_turns_trace_id(tmp_path: Path) -> None:
    report = strands_wrong_metric(tmp_path)
    failing = {t["turn_no"] for t in report["turns"] if not t["success"]}
    traces = {t["trace_id"] for t in report["observed_turns"] if t["turn_no"] in failing}
    metrics = MonitorMetrics()
    metrics.observe_report(report)

    async def scrape() -> tuple[str, str, str]:
        async with TestClient(TestServer(build_metrics_app(metrics))) as client:
            accept = {"Accept": "application/openmetrics-text; version=1.0.0"}
            om = await client.get("/metrics", headers=accept)
            plain = await client.get("/metrics")
            return om.headers["Content-Type"], await om.text(), await plain.text()

    content_type, text, plain = asyncio.run(scrape())
    assert content_type.startswith("application/openmetrics-text")
    fail_lines = [
        line for line in text.splitlines() if line.startswith("aem_turns_total{") and 'verdict="fail"' in line
    ]
    assert fail_lines and all(" # {trace_id=" in line for line in fail_lines)
    found = set(re.findall(r'# \{trace_id="([0-9a-f]{32})"\}', text))
    assert found and found <= traces
    assert any(
        line.startswith("aem_turn_failures_total{") and "# {trace_id=" in line for line in text.splitlines()
    )
    assert "# {trace_id=" not in plain  # the Prometheus text format has no exemplars
    passing = [
        line for line in text.splitlines() if line.startswith("aem_turns_total{") and 'verdict="pass"' in line
    ]
    assert passing and not any("# {" in line for line in passing)
