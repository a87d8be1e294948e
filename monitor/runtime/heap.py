"""The process heap of a long-running command, tuned once its start-up is done. Process-wide; no I/O.

A scoring process holds a large, long-lived heap from start-up on: the lexicon (about 90k objects),
the gold references, the models' tokenizers. Python's cyclic garbage collector scans the objects of
its older generations again and again, and every few hundred allocations it starts a young
collection; on loadgen traffic that cost 12 % of `replay`'s CPU. `settle_heap` moves what start-up
built into the permanent generation (`gc.freeze`: never scanned; freed by reference counting as
usual) and lets young collections wait for 50,000 new container objects instead of 700, so cycles
are still collected, in fewer and larger passes (0.45 → 0.07 CPU-s of collection per 4,510 spans).
Called by `replay`, `run` and `consume` once the ladder, references and policies are loaded.
"""

from __future__ import annotations

import gc

#: (young, middle, old) collection thresholds; Python's defaults are (700, 10, 10)
THRESHOLDS = (50_000, 20, 10)


def settle_heap() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
