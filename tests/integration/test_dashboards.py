"""Grafana dashboards, tested as far as a machine without Grafana can: schema, PromQL, and data.

The end-to-end test runs a real Prometheus (Debian package) that scrapes a running monitor fed with
recorded agent traffic, and asserts that every panel's query returns data.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from bench.pipeline import free_port
from dashboards.build import build
from monitor.publish.prometheus import MonitorMetrics
from monitor.reference.policy import load_policies
from tests.integration.test_run_service import FIXTURES, PB, start

pytestmark = pytest.mark.prometheus
ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "data" / "grafana-dashboard.schema.json").read_text())


def boards() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text()) for p in sorted((ROOT / "dashboards").glob("*.json"))}


def queries(rate_interval: str, range_: str) -> list[tuple[str, str, str]]:
    subs = {"$agent": ".*", "$release": ".*", "$__rate_interval": rate_interval, "$__range": range_}
    out = []
    for name, board in boards().items():
        for panel in board["panels"]:
            for target in panel["targets"]:
                expr = target["expr"]
                for k, v in subs.items():
                    expr = expr.replace(k, v)
                out.append((name, panel["title"], expr))
    return out


def test_committed_dashboards_are_what_the_generator_builds() -> None:
    assert boards() == build(), "run: .venv/bin/python dashboards/build.py"


@pytest.mark.parametrize("name", sorted(build()))
def test_dashboard_matches_the_schema(name: str) -> None:
    board = boards()[name]
    jsonschema.validate(board, SCHEMA)
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert (
        variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    )
    assert {"agent", "release"} <= set(variables) or name == "pipeline.json"
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))


def test_every_panel_query_is_valid_promql(tmp_path: Path) -> None:
    promtool = shutil.which("promtool")
    assert promtool, "promtool not found: .ci/test installs Debian's 'prometheus' package"
    rules = {"groups": [{"name": "panels", "rules": [
        {"record": f"panel:{i}", "expr": expr} for i, (_, _, expr) in enumerate(queries("5m", "1h"))
    ]}]}  # fmt: skip
    path = tmp_path / "panels.yml"
    path.write_text(json.dumps(rules))
    result = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_panel_query_returns_data_from_a_real_prometheus(ladder: Any, tmp_path: Path) -> None:
    binary = shutil.which("prometheus")
    assert binary, "prometheus not found: .ci/test installs Debian's 'prometheus' package"
    policies = load_policies(ROOT / "monitor" / "data" / "demo" / "policy.yaml")
    running = start(ladder, metrics=MonitorMetrics(), policies=policies)
    prom = None
    try:
        metrics_port = running.metrics_port
        (tmp_path / "prometheus.yml").write_text(json.dumps({
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [{"job_name": "agent-monitor", "static_configs": [{"targets": [f"127.0.0.1:{metrics_port}"]}]}],
        }))  # fmt: skip
        port = free_port()
        prom = subprocess.Popen(
            [binary, f"--config.file={tmp_path / 'prometheus.yml'}", f"--storage.tsdb.path={tmp_path / 'data'}",
             f"--web.listen-address=127.0.0.1:{port}", "--enable-feature=exemplar-storage"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        api = f"http://127.0.0.1:{port}/api/v1"
        files = sorted(FIXTURES.glob("*/*.pb"))
        with httpx.Client(timeout=10) as client:
            _wait(lambda: _up(client, api), "Prometheus scraping the monitor")
            for f in files[: len(files) // 2]:  # traffic in two waves, so rates see change between scrapes
                client.post(f"{running.http}/v1/traces", content=f.read_bytes(), headers={"Content-Type": PB})
            time.sleep(4)
            for f in files[len(files) // 2 :]:
                client.post(f"{running.http}/v1/traces", content=f.read_bytes(), headers={"Content-Type": PB})
            _wait(lambda: len(running.reports) >= 8, "all conversations reported")
            time.sleep(4)
            empty = []
            for board, title, expr in queries("30s", "10m"):
                body = client.get(f"{api}/query", params={"query": expr}).json()
                assert body["status"] == "success", (board, title, body)
                if not body["data"]["result"]:
                    empty.append(f"{board}: {title}: {expr}")
        assert not empty, "panels without data:\n" + "\n".join(empty)
        # the exemplars of failing turns are stored, and name traces of failing turns (Grafana's link)
        failing_traces = {
            t["trace_id"]
            for r in running.reports
            for t in r.get("observed_turns", [])
            if t["turn_no"] in {v["turn_no"] for v in r.get("turns", []) if not v["success"]}
        }
        now = time.time()
        with httpx.Client(timeout=10) as client:
            body = client.get(
                f"{api}/query_exemplars",
                params={"query": 'aem_turns_total{verdict="fail"}', "start": now - 600, "end": now},
            ).json()
        stored = {e["labels"]["trace_id"] for series in body["data"] for e in series["exemplars"]}
        assert stored and stored <= failing_traces, body
    finally:
        if prom is not None:
            prom.terminate()
            prom.wait(timeout=20)
        running.shutdown()


def _up(client: httpx.Client, api: str) -> bool:
    try:
        result = client.get(f"{api}/query", params={"query": 'up{job="agent-monitor"}'}).json()["data"][
            "result"
        ]
    except (httpx.HTTPError, KeyError, ValueError):
        return False
    return bool(result) and result[0]["value"][1] == "1"


def _wait(condition: Any, what: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")
