"""The deploy folder, validated as far as possible without Docker or a cluster."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


@pytest.mark.prometheus
def test_prometheus_config_is_valid() -> None:
    promtool = shutil.which("promtool")
    assert promtool, "promtool not found: .ci/test installs Debian's 'prometheus' package"
    result = subprocess.run(
        [promtool, "check", "config", str(DEPLOY / "prometheus" / "prometheus.yml")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.prometheus
def test_alertmanager_route_is_valid() -> None:
    amtool = shutil.which("amtool")
    assert amtool, "amtool not found: .ci/test installs Debian's 'prometheus-alertmanager' package"
    result = subprocess.run(
        [amtool, "check-config", str(DEPLOY / "alertmanager" / "alertmanager.yml")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_alert_routes_cover_every_severity_in_the_rules() -> None:
    severities = {
        r["labels"]["severity"]
        for g in load(DEPLOY / "prometheus" / "alerts.yml")["groups"]
        for r in g["rules"]
        if "alert" in r
    }
    routes = load(DEPLOY / "alertmanager" / "alertmanager.yml")["route"]
    routed = {m.split("=")[1].strip('"') for r in routes.get("routes", []) for m in r["matchers"]}
    assert severities == {"page", "ticket"} and "page" in routed  # tickets take the default route


def check_kustomization(base: Path) -> None:
    """Every resource and every ConfigMap source a kustomization names exists."""
    kustomization = load(base / "kustomization.yaml")
    for resource in kustomization["resources"]:
        assert (base / resource).is_file(), resource
    for generator in kustomization["configMapGenerator"]:
        for entry in generator["files"]:
            assert (base / entry.split("=")[-1]).resolve().is_file(), entry


def test_kustomization_references_exist_and_the_sidecar_is_complete() -> None:
    base = DEPLOY / "k8s" / "sidecar"
    check_kustomization(base)
    config = load_config(base / "monitor.yaml")  # the sidecar config passes the monitor's own validation
    assert config.server.host == "127.0.0.1"
    deployment = load(base / "agent-deployment.yaml")
    containers = {c["name"]: c for c in deployment["spec"]["template"]["spec"]["containers"]}
    monitor = containers["agent-monitor"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert probe in monitor
    assert "/readyz" in str(monitor["readinessProbe"]) and "/healthz" in str(monitor["livenessProbe"])
    assert monitor["resources"]["requests"]["memory"] and monitor["resources"]["limits"]["memory"]
    agent_env = {e["name"]: e["value"] for e in containers["agent"]["env"]}
    assert agent_env["OTEL_EXPORTER_OTLP_ENDPOINT"] == f"http://127.0.0.1:{config.server.http_port}"
    mounts = {m["mountPath"] for m in monitor["volumeMounts"]}
    assert {"/etc/agent-monitor/monitor.yaml", "/etc/agent-monitor/gold"} <= mounts


def test_collector_writes_otlp_proto_to_the_monitors_topic() -> None:
    collector = load(DEPLOY / "otel-collector" / "collector.yaml")
    pipeline = collector["service"]["pipelines"]["traces"]
    assert pipeline["receivers"] == ["otlp"] and pipeline["exporters"] == ["kafka"]
    traces = collector["exporters"]["kafka"]["traces"]
    assert (traces["topic"], traces["encoding"]) == ("otlp_spans", "otlp_proto")
    for component in pipeline["receivers"] + pipeline["processors"]:
        assert component in collector["receivers"] or component in collector["processors"]


def test_collector_messages_fit_every_limit_on_the_way_to_the_monitor() -> None:
    """Issue 15: the shipped batch (512 spans, no max size) made 1.4 MB messages, dropped as
    MESSAGE_TOO_LARGE. Batches are capped, each trace is its own message, and the exporter's limit
    sits under Kafka's default message.max.bytes and the monitor's kafka.max_message_bytes."""
    from monitor.config import KafkaConfig

    collector = load(DEPLOY / "otel-collector" / "collector.yaml")
    batch, kafka = collector["processors"]["batch"], collector["exporters"]["kafka"]
    assert 0 < batch["send_batch_max_size"] <= 512
    assert batch["send_batch_size"] <= batch["send_batch_max_size"]
    assert kafka["partition_traces_by_id"] is True
    limit = kafka["producer"]["max_message_bytes"]
    assert limit <= 1_048_588 <= KafkaConfig().max_message_bytes  # Kafka's default message.max.bytes


def test_compose_and_dockerfile_reference_real_files() -> None:
    compose_dir = DEPLOY / "docker"
    compose = load(compose_dir / "compose.yaml")
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert (compose_dir / source).resolve().exists(), (name, source)
        if "build" in service:
            context = (compose_dir / service["build"]["context"]).resolve()
            assert (context / service["build"]["dockerfile"]).is_file()
    dockerfile = (compose_dir / "Dockerfile").read_text()
    for source in re.findall(r"^COPY (?!--from)(.+?) \S+$", dockerfile, re.MULTILINE):
        for part in source.split():
            assert (ROOT / part).exists(), part
    assert 'ENTRYPOINT ["agent-monitor"]' in dockerfile
    scripts = (ROOT / "pyproject.toml").read_text()
    assert 'agent-monitor = "monitor.cli:main"' in scripts


def test_grafana_provisioning_points_at_the_dashboards() -> None:
    provider = load(DEPLOY / "grafana" / "provisioning" / "dashboards" / "agent-monitor.yaml")
    mount = next(
        v
        for v in load(DEPLOY / "docker" / "compose.yaml")["services"]["grafana"]["volumes"]
        if "dashboards:" in v
    )
    assert mount.split(":")[1] == provider["providers"][0]["options"]["path"]


def test_consumer_group_deployment_is_consistent() -> None:
    base = DEPLOY / "k8s" / "consumer-group"
    check_kustomization(base)
    config = load_config(base / "monitor.yaml")  # passes the monitor's own validation
    container = load(base / "deployment.yaml")["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][:3] == ["consume", "--stage", "both"]
    assert container["ports"][0]["containerPort"] == config.server.metrics_port
    hpa = load(base / "autoscaler.yaml")
    metric = hpa["spec"]["metrics"][0]["external"]["metric"]
    assert (
        metric["name"] == "aem_kafka_consumer_lag"
        and metric["selector"]["matchLabels"]["group"] == config.kafka.score_group
    )
    assert hpa["spec"]["maxReplicas"] <= config.kafka.internal_partitions
    from monitor.publish.prometheus import METRICS

    assert "aem_kafka_consumer_lag" in {m.name for m in METRICS}


# Measured by bench/pipeline.py: open_memory(10000) (57.5 MB per 1000 open loadgen conversations) and
# the peak RSS of `run` in a soak with both models and the bounded caches filling (`--soak 480
# --soak-rate 20`: 624-638 MB; `--soak 1200 --soak-rate 10`: 619 MB); docs/operations.md, Deployment.
OPEN_MB_PER_1000 = 57.5
WITH_MODEL_MIB = 640


def _mib(quantity: str) -> float:
    units = {"Mi": 1, "Gi": 1024}
    return float(quantity[:-2]) * units[quantity[-2:]]


@pytest.mark.parametrize(
    ("base", "container", "share"),
    [("sidecar", "agent-monitor", 1.0), ("consumer-group", "agent-monitor", 0.9)],
)
def test_memory_limits_cover_the_open_conversation_cap(base: str, container: str, share: float) -> None:
    """Raising windows.max_open without the memory limit would get the pod OOM-killed at the cap (the
    consumer's input pauses at kafka.pause_at_open of it)."""
    config = load_config(DEPLOY / "k8s" / base / "monitor.yaml")
    deployment = load(
        DEPLOY / "k8s" / base / ("agent-deployment.yaml" if base == "sidecar" else "deployment.yaml")
    )
    [monitor] = [c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == container]
    at_cap = WITH_MODEL_MIB + config.windows.max_open * share * OPEN_MB_PER_1000 / 1000
    assert _mib(monitor["resources"]["limits"]["memory"]) >= at_cap * 1.15, (base, at_cap)
