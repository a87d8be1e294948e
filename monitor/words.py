"""How counts read in messages for people: `counted(1, "request")` is "1 request", `counted(2,
"request")` "2 requests". Pure; imports nothing of the monitor, so every layer may use it."""

from __future__ import annotations


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """`n` and the noun in the number `n` takes: `nouns` when given, else `noun` + "s" (on the last word
    of `noun` before any "without …"/"of …" tail: "span without ids" → "spans without ids")."""
    if n == 1:
        return f"{n} {noun}"
    if nouns is None:
        head, sep, tail = noun.partition(" without ")
        nouns = f"{head}s{sep}{tail}"
    return f"{n} {nouns}"
