"""Caches of functions of texts that keep short texts only. Pure.

An `lru_cache` bounds how many entries it keeps, not their size: 32,768 entries are 32,768 megabytes
when the texts are megabytes, and a tool result, a reply or an argument value may be one (a document, a
web page, base64). `short_cached` caches a function's results when every text among its arguments is at
most `CACHED_CHARS` long and computes those of longer ones each time, so a cache of `maxsize` entries
holds at most about `maxsize × CACHED_CHARS` characters of keys (and results of the same order). The
caches of the fact reader, the reply rules, grounding and the ladder's span alignment are these; the
other caches' keys are names (argument and result keys, airport codes) or texts already cut to
`evidence.MAX_FACT_CHARS`. The embedder's vector cache (`similarity.TextCache`) still keys whole texts,
`embedder.cache_size` of them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

#: the longest text a `short_cached` cache keeps
CACHED_CHARS = 4_000

_P = ParamSpec("_P")
_R = TypeVar("_R")


def short_cached(
    maxsize: int,
) -> Callable[[Callable[Concatenate[str, _P], _R]], Callable[Concatenate[str, _P], _R]]:
    """`lru_cache(maxsize)` for calls whose texts (the first argument, and a second one that is a `str`)
    are each at most `CACHED_CHARS` long. Arguments are passed by position. (A wrapper per arity: these
    functions are called hundreds of thousands of times, and packing `*args` costs more than the cache.)"""

    def wrap(fn: Callable[Concatenate[str, _P], _R]) -> Callable[Concatenate[str, _P], _R]:
        cached: Any = lru_cache(maxsize=maxsize)(fn)
        plain: Any = fn
        arity = len(inspect.signature(fn).parameters)

        def call1(text: str) -> Any:
            return cached(text) if len(text) <= CACHED_CHARS else plain(text)

        def call2(text: str, other: Any) -> Any:
            if len(text) <= CACHED_CHARS and not (isinstance(other, str) and len(other) > CACHED_CHARS):
                return cached(text, other)
            return plain(text, other)

        def call(text: str, *args: Any) -> Any:
            if len(text) <= CACHED_CHARS and not any(
                isinstance(a, str) and len(a) > CACHED_CHARS for a in args
            ):
                return cached(text, *args)
            return plain(text, *args)

        chosen: Any = wraps(fn)(call1 if arity == 1 else call2 if arity == 2 else call)
        chosen.cache_info = cached.cache_info  # as lru_cache's, for tests and a REPL
        chosen.cache_clear = cached.cache_clear
        return cast(Callable[Concatenate[str, _P], _R], chosen)

    return wrap
