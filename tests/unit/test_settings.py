"""`run` configuration: flags over environment over file, every error naming its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.config import load_settings
from monitor.errors import ConfigError


def test_flags_over_environment_over_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "monitor.yaml"
    cfg.write_text("server: {http_port: 1111, grpc_port: 2222, tick_s: 2}\nwindows: {inactivity_s: 10}\n")
    monkeypatch.setenv("AGENT_MONITOR_SERVER__GRPC_PORT", "3333")
    monkeypatch.setenv("AGENT_MONITOR_SERVER__BEARER_TOKEN", "from-env")
    config = load_settings(cfg, {"server": {"http_port": 4444}})
    assert (config.server.http_port, config.server.grpc_port, config.server.tick_s) == (4444, 3333, 2.0)
    assert config.windows.inactivity_s == 10.0
    assert (
        config.server.bearer_token is not None and config.server.bearer_token.get_secret_value() == "from-env"
    )
    assert "from-env" not in repr(config)  # secrets never printed


def test_bad_environment_value_names_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_MONITOR_WINDOWS__INACTIVITY_S", "-5")
    with pytest.raises(ConfigError, match=r"windows\.inactivity_s"):
        load_settings(None)


def test_non_loopback_bind_without_tls_is_refused_at_start() -> None:
    with pytest.raises(ConfigError, match="exposes the receivers"):
        load_settings(None, {"server": {"host": "0.0.0.0"}})


def test_embedder_switched_off_by_environment_loads_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """`embedder.enabled: false` is the exact/policy scoring of the benches, for `run` and `consume` too."""
    from monitor.compare.ladder import build_ladder

    monkeypatch.setenv("AGENT_MONITOR_EMBEDDER__ENABLED", "false")
    ladder = build_ladder(load_settings(None))
    assert ladder.scorer is None
    assert ladder.similarity("a refund", "money back").unscorable == "no embedding scorer configured"
