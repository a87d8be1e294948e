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


def test_a_misspelt_key_in_the_file_names_its_line_and_the_spelling_meant(tmp_path: Path) -> None:
    path = tmp_path / "monitor.yaml"
    path.write_text("server:\n  http_port: 4318\nwindows:\n  inactivty_s: 3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert f"windows.inactivty_s: unknown key; did you mean 'inactivity_s'? ({path}:4)" in str(info.value)


def test_a_bad_environment_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_MONITOR_WINDOWS__INACTIVITY_S", "soon")
    with pytest.raises(ConfigError) as info:
        load_settings(None)
    assert "(environment variable AGENT_MONITOR_WINDOWS__INACTIVITY_S)" in str(info.value)


def test_a_misspelt_environment_variable_is_an_error_not_a_silent_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_MONITOR_WINDOWS__INACTIVTY_S", "3")
    with pytest.raises(ConfigError) as info:
        load_settings(None)
    assert "windows.inactivty_s: unknown key; did you mean 'inactivity_s'?" in str(info.value)
    assert "AGENT_MONITOR_WINDOWS__INACTIVTY_S" in str(info.value)
    monkeypatch.delenv("AGENT_MONITOR_WINDOWS__INACTIVTY_S")
    monkeypatch.setenv("AGENT_MONITOR_WINDOWZ__INACTIVITY_S", "3")
    with pytest.raises(ConfigError, match="windowz: unknown key; did you mean 'windows'"):
        load_settings(None)


def test_a_mapping_value_from_the_environment_is_not_taken_for_a_typo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_MONITOR_KAFKA__LIBRDKAFKA", '{"socket.timeout.ms": "5000"}')
    settings = load_settings(None).kafka.librdkafka
    assert {k: v.get_secret_value() for k, v in settings.items()} == {"socket.timeout.ms": "5000"}


def test_a_bad_flag_is_named_as_a_flag() -> None:
    with pytest.raises(ConfigError, match=r"server.http_port: .*65535 \(a command-line flag\)"):
        load_settings(None, {"server": {"http_port": 99999}})


def test_an_environment_value_that_is_not_json_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_MONITOR_EVALUATION_EVENTS__HEADERS", "{bad")
    with pytest.raises(ConfigError, match="environment: invalid config"):
        load_settings(None)
