"""Caches of functions of texts that keep short texts only. Pure.

An `lru_cache` bounds how many entries it keeps, not their size: 32,768 entries are 32,768 megabytes
when the texts are megabytes, and a tool result, a reply or an argument value may be one (a document, a
web page, base64). `short_cached` caches a function's results when every text among its arguments is at
most `CACHED_CHARS` long and computes those of longer ones each time, so a cache of `maxsize` entries
holds at most about `maxsize × CACHED_CHARS` characters of keys (and results of the same order): every
cache of a text in `compare/` and `score/` is one of these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache, wraps
from typing import Concatenate, ParamSpec, TypeVar

#: the longest text a `short_cached` cache keeps
CACHED_CHARS = 4_000

_P = ParamSpec("_P")
_R = TypeVar("_R")


def short_cached(
    maxsize: int,
) -> Callable[[Callable[Concatenate[str, _P], _R]], Callable[Concatenate[str, _P], _R]]:
    """`lru_cache(maxsize)` for calls whose texts (the first argument, and any other `str` argument) are
    each at most `CACHED_CHARS` long."""

    def wrap(fn: Callable[Concatenate[str, _P], _R]) -> Callable[Concatenate[str, _P], _R]:
        cached = lru_cache(maxsize=maxsize)(fn)

        @wraps(fn)
        def call(text: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            if len(text) <= CACHED_CHARS and (not (args or kwargs) or _short(args, kwargs.values())):
                return cached(text, *args, **kwargs)  # type: ignore[arg-type]  # hashable, as lru_cache needs
            return fn(text, *args, **kwargs)

        call.cache_info = cached.cache_info  # type: ignore[attr-defined]  # as lru_cache's, for tests and a REPL
        return call

    return wrap


def _short(args: Iterable[object], more: Iterable[object]) -> bool:
    """No text among these arguments is longer than `CACHED_CHARS`."""
    return not any(isinstance(a, str) and len(a) > CACHED_CHARS for a in (*args, *more))
