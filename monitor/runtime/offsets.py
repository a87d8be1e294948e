"""Which offsets of the Kafka score stage's input are safe to commit. Pure state; no clock, no I/O.

The score stage reads its internal topic at least once. A partition's committed offset is where its
next owner starts after a crash or rebalance, so it may only pass messages whose conversation was
reported and can no longer need them. Per partition the tracker keeps:
- `consumed`: the next offset to read;
- what each *open* key (a conversation, or `trace:<id>` spans waiting for their conversation's name)
  first read there;
- what each *held* key first read there: a reported conversation (for `late_grace_s`, so a late span,
  or a new owner, re-reads it whole) and a link message (so whoever re-reads the trace's early spans
  re-reads their link too);
- `catching_up`: partitions re-read up to where they ended at assignment. Until then no conversation
  with spans on them may close (`re_reading`): the rest of it may still be behind.

`safe(...)` is, per partition, the oldest first offset of an open or held key, else everything
consumed. Times are the caller's monotonic seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass
class OffsetTracker:
    grace_s: float  # how long a reported conversation or a link holds its offsets
    consumed: dict[int, int] = field(default_factory=dict)  # partition -> next offset to read
    committed: dict[int, int] = field(default_factory=dict)  # partition -> last committed offset
    catching_up: dict[int, int] = field(default_factory=dict)  # partition -> end when assigned
    open_at: dict[str, dict[int, int]] = field(default_factory=dict)  # key -> {partition: first offset}
    held: dict[str, tuple[dict[int, int], float]] = field(default_factory=dict)  # key -> (offsets, since)

    def read(self, partition: int, offset: int) -> None:
        """A message at `offset` was consumed (whatever it was)."""
        self.consumed[partition] = offset + 1

    def opened(self, key: str, partition: int, offset: int) -> None:
        """A span of `key` was read at `offset`; its first offset per partition is kept while open."""
        self.open_at.setdefault(key, {}).setdefault(partition, offset)

    def held_with(self, key: str, partition: int, offset: int) -> None:
        """Another message `key` needs re-read with it (a link that may claim it) is held while it is open
        (never one the commit has passed: that would move the commit back)."""
        if offset < self.committed.get(partition, -1):
            return
        at = self.open_at.setdefault(key, {})
        at[partition] = min(at.get(partition, offset), offset)

    def merge(self, key: str, into: str) -> None:
        """`key`'s spans joined `into` (a trace joined by its history on the same partition): its first
        offsets are held as long as `into` is open, not only as long as `key` was. A `key` reported
        alone before the history it continues came (held, its grace not yet over) brings its held offsets:
        a new owner re-reading `into` must re-read them too."""
        if key == into:
            return
        where = self.open_at.pop(key, None)
        alone = self.held.pop(key, None)
        if where is None and alone is None:
            return
        reported = self.held.pop(into, None)  # reopened by the join: its own first offsets are needed again
        self.open_at[into] = _earliest(
            self.open_at.get(into), reported and reported[0], alone and alone[0], where
        )

    def holds(self, key: str, now: float) -> bool:
        """Whether a reported `key` still holds its offsets (its grace not over, its partition not revoked)."""
        entry = self.held.get(key)
        return entry is not None and now - entry[1] <= self.grace_s

    def forget(self, key: str) -> None:
        """`key` no longer needs its offsets (its spans were sent on, and are flushed before a commit)."""
        self.open_at.pop(key, None)

    def closed(self, key: str, now: float) -> None:
        """`key` was reported: its offsets are held `grace_s` longer (none, with a grace of 0). Reported
        again (reopened by a late span), it holds what its earlier report held too: a new owner must
        re-read it whole, not from the late span on."""
        where = self.open_at.pop(key, None)
        if where is not None and self.grace_s > 0:
            earlier = self.held.get(key)
            self.held[key] = (_earliest(earlier and earlier[0], where), now)

    def hold(self, key: str, partition: int, offset: int, now: float) -> None:
        """Hold one message (a link) for `grace_s`."""
        if self.grace_s > 0:
            self.held[key] = ({partition: offset}, now)

    def tidy(
        self,
        still_open: Callable[[str], bool],
        reported: Callable[[str], bool] | None = None,
        now: float | None = None,
    ) -> list[int]:
        """Forget keys no longer open (a `trace:` key joined to its conversation or sent on). A key read
        again on a partition being re-read after an assign (a partition back from a revoke, from the commit
        its report held), no longer open but still kept as reported (`reported`) and holding nothing, holds
        its first offsets there for `grace_s` from `now`, as a new owner's report of it would — not a
        duplicate a producer's retry sends long after (its grace is over: nothing covers the rest). End the
        re-read of partitions consumed up to their end. Returns the partitions whose re-read ended."""
        if reported is not None and now is None:
            raise ValueError("tidy: `reported` needs `now`")
        for key in [k for k in self.open_at if not still_open(k)]:
            where = self.open_at.pop(key)
            re_read = {p: o for p, o in where.items() if p in self.catching_up}
            if not re_read or reported is None or now is None or self.grace_s <= 0:
                continue
            if key not in self.held and reported(key):
                self.held[key] = (re_read, now)
        done = [p for p, end in self.catching_up.items() if self.consumed.get(p, -1) >= end]
        for partition in done:
            del self.catching_up[partition]
        return done

    def safe(self, still_open: Callable[[str], bool], now: float) -> dict[int, int]:
        """Per consumed partition: the oldest first offset of an open or held key, else all consumed.
        Held keys past their grace are released first."""
        for key in [k for k, (_, since) in self.held.items() if now - since > self.grace_s]:
            del self.held[key]
        safe = dict(self.consumed)
        holding = [where for where, _ in self.held.values()]
        holding += [where for key, where in self.open_at.items() if still_open(key)]
        for where in holding:
            for partition, first in where.items():
                if partition in safe:
                    safe[partition] = min(safe[partition], first)
        return safe

    def to_commit(
        self, still_open: Callable[[str], bool], now: float, only: set[int] | None = None
    ) -> dict[int, int]:
        """The safe offsets that differ from what was committed (of `only` these partitions, if given)."""
        return {
            p: o
            for p, o in self.safe(still_open, now).items()
            if (only is None or p in only) and self.committed.get(p) != o
        }

    def did_commit(self, offsets: dict[int, int]) -> None:
        self.committed.update(offsets)

    def assigned(self, partition: int, end: int, committed: int | None) -> None:
        """A partition was assigned; it must be re-read up to `end` if anything lies past `committed`."""
        if end > max(0, committed or 0):
            self.catching_up[partition] = end

    def re_reading(self, key: str) -> bool:
        """`key` has spans on a partition still being re-read: it must not close yet."""
        return bool(self.catching_up) and any(p in self.catching_up for p in self.open_at.get(key, {}))

    def stop_re_reading(self) -> bool:
        """Stop holding closes for re-reads (the input is paused); True if any re-read was cut short."""
        cut = bool(self.catching_up)
        self.catching_up.clear()
        return cut

    def revoked(self, partitions: Iterable[int]) -> list[str]:
        """Forget the partitions. Open keys with all their offsets on them are returned (the caller drops
        those conversations: the new owner re-reads them); keys with offsets elsewhere too stay."""
        gone_partitions = set(partitions)
        gone = [k for k, where in self.open_at.items() if where and set(where) <= gone_partitions]
        for key in gone:
            del self.open_at[key]
        for where in self.open_at.values():
            for p in gone_partitions & set(where):
                del where[p]
        for key in [k for k, (where, _) in self.held.items() if set(where) & gone_partitions]:
            del self.held[key]
        for p in gone_partitions:
            self.consumed.pop(p, None)
            self.committed.pop(p, None)
            self.catching_up.pop(p, None)
        return gone

    def position(self, partition: int) -> int:
        """Where this replica is in a partition: the next offset to read, else the committed one."""
        return self.consumed.get(partition, self.committed.get(partition, 0))


def _earliest(*wheres: dict[int, int] | None) -> dict[int, int]:
    """Per partition, the lowest first offset among `wheres` (None: none there)."""
    out: dict[int, int] = {}
    for where in wheres:
        for partition, first in (where or {}).items():
            out[partition] = min(first, out.get(partition, first))
    return out
