"""Redaction of report values before they leave the process. Pure.

Configured by `redaction` (see config.RedactionConfig): keys inside arguments, results, messages and
details (`CONTENT_KEYS`) whose name matches `key_patterns` have their whole value replaced, and so
do the gold and predicted values of a comparison whose field matches (the report's own keys, such as
`input_tokens`, are never matched); string contents matching `value_patterns` (emails,
card numbers, … by default) are replaced where they occur, in arguments, results, replies, gold and
predicted values, and failure details alike. The replacement keeps the pattern's name
(`[redacted:email]`) so a reviewer still sees what kind of value was there. Metric labels never carry
such values in the first place (they are bounded: agent, release, reasons).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from monitor.config import RedactionConfig

#: report keys whose values are what the agent and its tools exchanged: key patterns apply below them
CONTENT_KEYS = frozenset({"args", "arguments", "result", "results", "messages", "details"})
_SCALARS = frozenset({int, float, bool, type(None)})  # nothing to redact inside
#: the report's own span ids, hex strings that a value pattern may mistake for a card number
ID_KEYS = frozenset({"trace_id", "span_id"})
_MEMO_ENTRIES, _MEMO_MAX_CHARS = 50_000, 200  # strings remembered, and the longest remembered


class Redactor:
    """Walks a report once. Hot path (every report): key decisions are cached (keys repeat), and a string
    is scanned by one combined pattern first; only strings that match are rewritten pattern by pattern."""

    def __init__(self, config: RedactionConfig) -> None:
        self.enabled = config.enabled
        self._key = (
            re.compile("|".join(f"(?:{p})" for p in config.key_patterns), re.IGNORECASE)
            if config.key_patterns
            else None
        )
        self._values = [
            (re.compile(p), functools.partial(_replacement, name))
            for name, p in config.value_patterns.items()
        ]
        self._any_value = _combined([p for p in config.value_patterns.values()])
        self._secret: dict[str, bool] = {}
        self._clean: set[str] = set()

    def __call__(self, value: Any) -> Any:
        return self._walk(value, False) if self.enabled else value

    def _walk(self, value: Any, content: bool) -> Any:
        """`content`: inside what the agent and its tools exchanged (CONTENT_KEYS), where key patterns
        apply; the report's own keys (`input_tokens`, …) are never taken for secrets. Scalars are
        handled inline, without a call each: a report has hundreds of them."""
        kind = type(value)
        if kind is dict:
            field = value.get("field")
            secret_field = isinstance(field, str) and self._secret_key(field)  # a comparison of a secret
            out = {}
            for k, v in value.items():
                if content and self._secret_key(k):
                    out[k] = f"[redacted:{k}]"
                elif secret_field and k in ("gold", "predicted"):
                    out[k] = f"[redacted:{field}]"
                elif not content and k in ID_KEYS:
                    out[k] = v
                else:
                    inner = type(v)
                    if inner is str:
                        out[k] = self._text(v)
                    elif inner in _SCALARS:
                        out[k] = v
                    else:
                        out[k] = self._walk(v, content or k in CONTENT_KEYS)
            return out
        if kind is list or kind is tuple:
            return [
                self._text(v) if type(v) is str else v if type(v) in _SCALARS else self._walk(v, content)
                for v in value
            ]
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, dict | list | tuple):  # subclasses: the same walk, by the slow path
            return self._walk(dict(value) if isinstance(value, dict) else list(value), content)
        return value

    def _text(self, value: str) -> str:
        """Strings repeat across a report and across reports (gold values, tool names, rungs): each
        distinct short string with nothing to redact is remembered as such (a bounded memo, cleared
        when full). A string that has something to redact is not remembered: the memo never keeps
        a secret for the life of the process."""
        if value in self._clean:
            return value
        if self._values and (self._any_value is None or self._any_value.search(value)):
            out = value
            for pattern, replace in self._values:
                out = pattern.sub(replace, out)
            if out != value:
                return out
        if len(value) <= _MEMO_MAX_CHARS:
            if len(self._clean) >= _MEMO_ENTRIES:
                self._clean.clear()
            self._clean.add(value)
        return value

    def _secret_key(self, key: str) -> bool:
        found = self._secret.get(key)
        if found is None:
            if len(self._secret) > 50_000:
                self._secret.clear()
            found = self._secret[key] = bool(self._key and self._key.search(key))
        return found


def _combined(patterns: list[str]) -> re.Pattern[str] | None:
    """One alternation to pre-screen strings; None (screen nothing) when patterns cannot be combined,
    e.g. two of them define the same group name."""
    try:
        return re.compile("|".join(f"(?:{p})" for p in patterns))
    except re.error:
        return None


def _replacement(name: str, match: re.Match[str]) -> str:
    """`card` matches must pass the Luhn check, so long ids and timestamps are left alone."""
    found = match.group(0)
    if name == "card" and not _luhn(found):
        return found
    return f"[redacted:{name}]"


def _luhn(text: str) -> bool:
    digits = [int(c) for c in text if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0
