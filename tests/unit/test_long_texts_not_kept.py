"""A long-running monitor keeps no copy of the long texts it has read.

Tool results, replies and argument values may be documents, web pages or base64. The text caches of
`compare/` and `score/` (`compare/textcache.short_cached`) keep results for texts up to `CACHED_CHARS`
only, so a sidecar that reads many long results holds none of them once their conversations are done.
"""

from __future__ import annotations

import gc
import random
import string
import tracemalloc

from monitor.compare.evidence import Evidence
from monitor.compare.facts import compare_acts, extract_facts, normalize_text
from monitor.compare.textcache import CACHED_CHARS


def _document(rng: random.Random, words: int) -> str:
    """Prose of random words with a date and an amount now and then (`words` words, ~7 characters each)."""
    out = []
    for i in range(words):
        out.append("".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))))
        if i % 50 == 0:
            out.append(f"on 2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} for ${rng.randint(100, 999)}.")
    return " ".join(out)


def _conversation(n: int, document: str) -> None:
    """One conversation's evidence: a lookup of a document, and a reply quoting it."""
    evidence = Evidence(today="2025-05-01")
    evidence.add_user(1, f"Please look up document DOC-{n:04d}.")
    evidence.provenance("get_document", {"document_id": f"DOC-{n:04d}"})
    evidence.add_call(2, "get_document", {"document_id": f"DOC-{n:04d}"}, {"text": document}, False, False)
    evidence.unsupported(f"Here it is: {document[:5_000]}", ["get_document"])


def test_conversations_with_long_results_leave_no_copies_behind() -> None:
    rng = random.Random(7)
    documents = [_document(rng, 80_000) for _ in range(11)]  # ~600 kB each
    assert all(len(d) > CACHED_CHARS for d in documents)
    _conversation(0, documents.pop())  # loads the airports table and the like, once per process
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n, doc in enumerate(documents, start=1):
            _conversation(n, doc)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # the documents themselves are still in `documents`; what grew is only the caches of short texts
    # (a document's first `CACHED_CHARS` are read for facts and kept), never a whole document
    per_conversation = kept / len(documents)
    assert per_conversation < 25 * CACHED_CHARS, f"{per_conversation:,.0f} bytes kept per conversation"


def test_a_long_text_is_read_the_same_and_not_cached() -> None:
    long_text = "Flight UA 123 on 2025-05-01 costs $450. " * 200
    assert len(long_text) > CACHED_CHARS
    misses = normalize_text.cache_info().misses  # type: ignore[attr-defined]
    assert normalize_text(long_text) == normalize_text(long_text)
    assert normalize_text.cache_info().misses == misses  # type: ignore[attr-defined]  # not asked of the cache
    facts = extract_facts(long_text)
    assert "date:2025-05-01" in facts.facts and facts == extract_facts(long_text)
    # a second text argument counts too: a short gold beside a long reply is not kept
    misses = compare_acts.cache_info().misses  # type: ignore[attr-defined]
    compare_acts("Your flight is booked.", long_text)
    compare_acts("Your flight is booked.", long_text)
    assert compare_acts.cache_info().misses == misses  # type: ignore[attr-defined]  # not asked of the cache
    short = f"I have booked your flight, reference {id(long_text)}."  # a pair no other test asks
    compare_acts("Your flight is booked.", short)
    compare_acts("Your flight is booked.", short)
    assert compare_acts.cache_info().misses == misses + 1  # type: ignore[attr-defined]  # kept once
