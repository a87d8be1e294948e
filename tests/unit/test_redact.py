"""Redaction: what must not leave the process, doesn't; everything else is untouched."""

from __future__ import annotations

from typing import Any

from monitor.config import RedactionConfig
from monitor.publish.redact import Redactor


def test_keys_and_values_are_redacted_with_their_kind() -> None:
    redact = Redactor(RedactionConfig())
    report: dict[str, Any] = {
        "turns": [{"predicted": {"args": {"to": "ana@example.com", "api_key": "sk-123", "amount": 12},
                                  "result": {"card": "4111 1111 1111 1111"}},
                   "detail": "to: expected 'bob@example.com', got 'ana@example.com'"}],
        "success_rate": 0.5,
    }  # fmt: skip
    out = redact(report)
    turn = out["turns"][0]
    assert turn["predicted"]["args"] == {
        "to": "[redacted:email]",
        "api_key": "[redacted:api_key]",
        "amount": 12,
    }
    assert turn["predicted"]["result"] == {"card": "[redacted:card]"}
    assert "example.com" not in turn["detail"] and turn["detail"].count("[redacted:email]") == 2
    assert out["success_rate"] == 0.5 and report["turns"][0]["predicted"]["args"]["to"] == "ana@example.com"


def test_ids_and_order_numbers_are_not_mistaken_for_cards() -> None:
    redact = Redactor(RedactionConfig())
    assert (
        redact("order A123, ticket T9008, 412 rows, 2024-03-05")
        == "order A123, ticket T9008, 412 rows, 2024-03-05"
    )


def test_disabled_and_custom_patterns() -> None:
    assert Redactor(RedactionConfig(enabled=False))({"password": "x"}) == {"password": "x"}
    custom = Redactor(RedactionConfig(key_patterns=[], value_patterns={"employee": r"EMP-\d+"}))
    assert custom({"who": "EMP-42 approved"}) == {"who": "[redacted:employee] approved"}


def test_report_keys_are_not_secrets_but_compared_secret_values_are() -> None:
    redact = Redactor(RedactionConfig())
    report = {
        "input_tokens": 120, "output_tokens": 30,
        "turns": [{"predicted": {"args": {"token": "t-1"}},
                   "comparisons": [{"field": "token", "gold": "t-0", "predicted": "t-1", "rung": "exact"}]}],
    }  # fmt: skip
    out = redact(report)
    assert (out["input_tokens"], out["output_tokens"]) == (120, 30)
    assert out["turns"][0]["predicted"]["args"] == {"token": "[redacted:token]"}
    assert out["turns"][0]["comparisons"][0] == {
        "field": "token", "gold": "[redacted:token]", "predicted": "[redacted:token]", "rung": "exact"
    }  # fmt: skip


def test_a_value_seen_again_is_redacted_again_in_every_report() -> None:
    """Redaction remembers what it decided for each string: the second, third, … report carrying the same
    email is redacted as the first was, and a long value (not remembered) every time too."""
    redact = Redactor(RedactionConfig())
    long_text = "contact ana@example.com " + "x" * 500
    for _ in range(3):
        out = redact({"turns": [{"detail": "ana@example.com", "note": long_text, "tool": "send"}]})
        turn = out["turns"][0]
        assert turn["detail"] == "[redacted:email]" and turn["tool"] == "send"
        assert "example.com" not in turn["note"] and turn["note"].endswith("x" * 500)
    assert Redactor(RedactionConfig(enabled=False))({"detail": "ana@example.com"}) == {
        "detail": "ana@example.com"
    }
