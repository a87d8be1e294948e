"""The Kafka score stage's commit rule (monitor/runtime/offsets.py): what a partition's next owner
must re-read is never committed past."""

from __future__ import annotations

import pytest

from monitor.runtime.offsets import OffsetTracker


def always(_: str) -> bool:
    return True


def test_an_open_conversation_holds_its_first_offset_and_nothing_else_does() -> None:
    t = OffsetTracker(grace_s=60)
    for offset in range(10):
        t.read(0, offset)
    t.opened("conv-a", 0, 3)
    t.opened("conv-a", 0, 7)  # a later span of the same conversation changes nothing
    t.read(1, 4)
    assert t.safe(always, now=0) == {0: 3, 1: 5}


def test_a_reported_conversation_holds_its_offsets_for_the_grace_then_releases_them() -> None:
    t = OffsetTracker(grace_s=60)
    t.read(0, 9)
    t.opened("conv-a", 0, 2)
    t.closed("conv-a", now=100)
    assert t.safe(lambda _: False, now=159) == {0: 2}  # a late span re-reads it whole
    assert t.safe(lambda _: False, now=161) == {0: 10}


def test_without_a_grace_a_reported_conversation_releases_at_once() -> None:
    t = OffsetTracker(grace_s=0)
    t.read(0, 9)
    t.opened("conv-a", 0, 2)
    t.closed("conv-a", now=100)
    assert t.safe(always, now=100) == {0: 10}


def test_a_link_is_held_like_a_reported_conversation() -> None:
    t = OffsetTracker(grace_s=30)
    t.read(2, 50)
    t.hold("link:abc", 2, 40, now=0)
    assert t.safe(always, now=10) == {2: 40}
    assert t.safe(always, now=31) == {2: 51}


def test_trace_keys_joined_or_sent_on_stop_holding() -> None:
    t = OffsetTracker(grace_s=60)
    t.read(1, 20)
    t.opened("trace:abc", 1, 5)
    t.opened("trace:def", 1, 8)
    t.tidy(lambda key: key == "trace:def")  # abc joined its conversation, def still waits
    assert t.safe(always, now=0) == {1: 8}


def test_a_span_read_again_after_its_conversation_was_reported_holds_nothing() -> None:
    t = OffsetTracker(grace_s=60)
    t.read(0, 30)
    t.opened("conv-a", 0, 4)
    t.closed("conv-a", now=0)
    t.opened("conv-a", 0, 25)  # a re-delivered copy: the window store drops it, the conversation stays closed
    t.tidy(lambda _: False)
    assert "conv-a" not in t.open_at and t.safe(lambda _: False, now=61) == {0: 31}


def test_a_reported_key_read_again_after_a_revoke_holds_its_offsets_again() -> None:
    """The partition came back to the replica that reported `trace:abc` (kept): its spans, re-read from the
    commit its report held, hold their offsets for the grace again — what a new owner's report would hold
    — so it may still be merged; a key still held from its report is not held longer."""
    t = OffsetTracker(grace_s=60)
    t.read(0, 30)
    t.opened("trace:abc", 0, 12)
    t.tidy(lambda _: False, reported=lambda key: key == "trace:abc", now=100)
    assert not t.holds("trace:abc", now=100)  # no re-read after an assign: a duplicate, nothing held
    t.assigned(0, end=40, committed=10)
    t.opened("trace:abc", 0, 12)
    t.tidy(lambda _: False, reported=lambda key: key == "trace:abc", now=100)
    assert t.holds("trace:abc", now=150) and t.safe(lambda _: False, now=150) == {0: 12}
    assert not t.holds("trace:abc", now=161) and t.safe(lambda _: False, now=161) == {0: 31}
    t.opened("conv-a", 0, 14)
    t.closed("conv-a", now=0)
    t.opened("conv-a", 0, 25)
    t.tidy(lambda _: False, reported=always, now=50)
    assert not t.holds("conv-a", now=61)  # still its report's grace, from 0
    with pytest.raises(ValueError):
        t.tidy(always, reported=always)


def test_a_partition_being_re_read_keeps_its_conversations_open_until_read_to_its_end() -> None:
    t = OffsetTracker(grace_s=60)
    t.assigned(0, end=100, committed=40)
    t.assigned(1, end=7, committed=7)  # nothing to re-read
    t.read(0, 41)
    t.opened("conv-a", 0, 41)
    t.read(1, 7)
    t.opened("conv-b", 1, 7)
    assert t.re_reading("conv-a") and not t.re_reading("conv-b")
    assert t.tidy(always) == []
    t.read(0, 99)
    assert t.tidy(always) == [0]
    assert not t.re_reading("conv-a")


def test_a_revoked_partition_is_forgotten_and_its_conversations_handed_back() -> None:
    t = OffsetTracker(grace_s=60)
    for p in (0, 1):
        t.read(p, 10)
    t.opened("conv-a", 0, 1)
    t.opened("conv-b", 1, 2)
    t.opened("conv-both", 0, 3)
    t.opened("conv-both", 1, 4)
    t.hold("link:x", 0, 5, now=0)
    t.did_commit({0: 1, 1: 2})
    assert t.revoked([0]) == ["conv-a"]
    assert t.safe(always, now=0) == {1: 2}  # partition 0 is no longer this replica's
    assert t.open_at["conv-both"] == {1: 4} and "link:x" not in t.held
    assert t.position(0) == 0 and t.position(1) == 11


def test_only_changed_offsets_are_committed_again() -> None:
    t = OffsetTracker(grace_s=60)
    t.read(0, 4)
    t.read(1, 4)
    assert t.to_commit(always, now=0) == {0: 5, 1: 5}
    t.did_commit({0: 5, 1: 5})
    t.read(1, 5)
    assert t.to_commit(always, now=0) == {1: 6}
    assert t.to_commit(always, now=0, only={0}) == {}


def test_cutting_re_reads_short_says_whether_any_was_running() -> None:
    t = OffsetTracker(grace_s=60)
    assert t.stop_re_reading() is False
    t.assigned(3, end=10, committed=None)
    assert t.stop_re_reading() is True and not t.catching_up


def test_a_trace_joined_by_history_is_held_while_its_conversation_is_open() -> None:
    """Trace B came first on the partition and joined conversation trace:A, read after it: B's offset,
    the older, is held as long as A is open, though B is no longer a conversation of its own."""
    t = OffsetTracker(grace_s=60)
    t.read(0, 9)
    t.opened("trace:b", 0, 2)
    t.opened("trace:a", 0, 5)
    t.merge("trace:b", into="trace:a")
    open_now = {"trace:a"}
    assert t.safe(open_now.__contains__, now=0) == {0: 2}
    t.closed("trace:a", now=0)
    assert t.safe(open_now.__contains__, now=59) == {0: 2}  # then held with its reported conversation
    assert t.safe(open_now.__contains__, now=61) == {0: 10}


def test_a_reported_conversation_reopened_by_a_join_holds_its_own_offsets_again() -> None:
    """The user answered after the first turn was reported: the joined trace reopens it, and the first
    turn's offsets are held again with it, so a new owner re-reads the conversation whole, not the
    second turn alone."""
    t = OffsetTracker(grace_s=60)
    t.read(0, 9)
    t.opened("trace:a", 0, 2)
    t.closed("trace:a", now=0)
    t.opened("trace:b", 0, 7)
    t.merge("trace:b", into="trace:a")
    assert t.safe({"trace:a"}.__contains__, now=1000) == {0: 2}  # long past the grace: still held


def test_a_trace_reported_alone_then_joined_brings_its_held_offsets_to_its_conversation() -> None:
    """A trace reported alone (held for the grace) joins the conversation whose history came later: its
    offsets are held as long as that conversation is open, past the trace's own grace, so a new owner
    re-reading the partition rebuilds the conversation with it. Past its grace it holds nothing more (and
    the stage no longer lets it join: `holds`)."""
    t = OffsetTracker(grace_s=60)
    t.read(0, 9)
    t.opened("trace:a2", 0, 1)
    t.closed("trace:a2", now=100)
    t.opened("trace:a1", 0, 5)
    assert t.holds("trace:a2", now=150) and not t.holds("trace:a2", now=161)
    t.merge("trace:a2", "trace:a1")
    assert not t.holds("trace:a2", now=150)
    is_open = {"trace:a1"}.__contains__
    assert t.safe(is_open, now=500) == {0: 1}
    t.closed("trace:a1", now=600)
    assert t.safe(lambda _: False, now=659) == {0: 1}  # held with the conversation's own grace
    assert t.safe(lambda _: False, now=661) == {0: 10}
    no_grace = OffsetTracker(grace_s=0)
    no_grace.opened("trace:a2", 0, 1)
    no_grace.closed("trace:a2", now=100)
    assert not no_grace.holds("trace:a2", now=100)
