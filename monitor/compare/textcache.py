"""Caches of functions of a text that keep short texts only. Pure.

An `lru_cache` bounds how many entries it keeps, not their size: 32,768 entries are 32,768 megabytes
when the texts are megabytes, and an argument value may be one (base64). `short_cached` caches a
function's results for texts up to `CACHED_CHARS` and computes those of longer ones each time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Concatenate, ParamSpec, TypeVar

#: the longest text a `short_cached` cache keeps
CACHED_CHARS = 4_000

_P = ParamSpec("_P")
_R = TypeVar("_R")


def short_cached(
    maxsize: int,
) -> Callable[[Callable[Concatenate[str, _P], _R]], Callable[Concatenate[str, _P], _R]]:
    """`lru_cache(maxsize)` for calls whose first argument, a text, is at most `CACHED_CHARS` long."""

    def wrap(fn: Callable[Concatenate[str, _P], _R]) -> Callable[Concatenate[str, _P], _R]:
        cached = lru_cache(maxsize=maxsize)(fn)

        @wraps(fn)
        def call(text: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            if len(text) <= CACHED_CHARS:
                return cached(text, *args, **kwargs)  # type: ignore[arg-type]  # hashable, as lru_cache needs
            return fn(text, *args, **kwargs)

        return call

    return wrap
