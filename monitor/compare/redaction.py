"""What a scrubber or a redaction writes in place of a value. Pure.

Instrumentations and pipelines redact before export: Logfire's default scrubbing replaces the value of a key
(or a string) that speaks of a session, a password, auth, … by `[Scrubbed due to 'session']`; the OpenTelemetry
Collector's redaction processor writes `****`; others `[REDACTED]` and its kin. Such a value says nothing of
what the agent did: never a conversation id (normalize), never a wrong argument (score/turn.py: compared as
uncertain), never a value to ground (compare/evidence.py), never invalid under a policy's schema, a
duplicate of another call or a state field's drift (score/policy.py).
"""

from __future__ import annotations

from typing import Any

#: how Logfire replaces an attribute value its scrubbing matched (its keys with `session`, `auth`, …)
SCRUBBED = "[Scrubbed due to "
#: what redaction writes in place of a value: the Collector's redaction processor `****`, and the usual words
#: (not the bare word `redacted`: a value an export tool's `mode` may take); each starts with `[` or `<`
_MASKS = frozenset({"[redacted]", "<redacted>", "[masked]", "<masked>", "[filtered]"})


def masked(value: Any) -> bool:
    """A value a scrubber or a redaction put in place of the real one: Logfire's `[Scrubbed due to
    'session']`, the Collector's redaction processor's `****`, `[REDACTED]` and its kin."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    first = text[:1]  # every mask starts with one of three characters: most values are none (asked of each)
    if first == "*":
        return len(text) >= 3 and not text.strip("*")
    return first in ("[", "<") and (text.startswith(SCRUBBED) or text.lower() in _MASKS)


def unmasked(predicted: Any, gold: Any) -> tuple[Any, bool]:
    """`predicted` with each value a redaction replaced (`masked`, at any depth of objects and lists) taken
    from `gold` where gold has one at that place: what is left to compare; and whether any was."""
    if masked(predicted) and gold is not None:
        return gold, True
    if isinstance(predicted, dict) and isinstance(gold, dict):
        out, any_ = {}, False
        for key, value in predicted.items():
            out[key], found = unmasked(value, gold.get(key)) if key in gold else (value, False)
            any_ = any_ or found
        return (out, True) if any_ else (predicted, False)
    if isinstance(predicted, list) and isinstance(gold, list) and len(predicted) == len(gold):
        pairs = [unmasked(p, g) for p, g in zip(predicted, gold, strict=True)]
        if any(found for _, found in pairs):
            return [value for value, _ in pairs], True
    return predicted, False


def holds_mask(value: Any) -> bool:
    """Whether a redaction replaced `value` or anything inside it (objects and lists, any depth)."""
    if isinstance(value, dict):
        return any(holds_mask(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_mask(v) for v in value)
    return masked(value)
