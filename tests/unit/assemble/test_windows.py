"""Conversation windows: when a conversation is reported, and that nothing is lost."""

from __future__ import annotations

from monitor.assemble.windows import WindowStore
from monitor.config import WindowConfig
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from tests.unit.spans import span


def agent_span(conv: str | None, start_s: float, trace: str = "t1", end: bool = False) -> AgentSpan:
    a: dict[str, object] = {"gen_ai.operation.name": "chat"}
    if end:
        a["aem.conversation.end"] = True
    if conv:
        a["session.id"] = conv
    return normalize_span(span("chat", a, trace=trace, start_s=start_s))


def test_inactivity_on_event_time() -> None:
    store = WindowStore(WindowConfig(inactivity_s=30))
    assert store.add(agent_span("a", 0)) == []
    assert store.advance(int(20e9)) == []
    [closed] = store.advance(int(31e9))
    assert (closed.conversation.conversation_id, closed.closed_by) == ("a", "inactivity")


def test_end_marker_closes_at_the_end_of_its_request() -> None:
    store = WindowStore(WindowConfig())
    store.add(agent_span("a", 0))
    assert store.add(agent_span("a", 2, end=True)) == []
    store.add(agent_span("a", 1))  # the same request delivered a span after the marker
    [closed] = store.close_marked()
    assert closed.closed_by == "end_marker" and len(closed.conversation.spans) == 3
    assert store.close_marked() == [] and not store.open


def test_max_age() -> None:
    store = WindowStore(WindowConfig(max_age_s=60, inactivity_s=30))
    for t in range(0, 70, 10):
        store.add(agent_span("a", t))
    [closed] = store.advance(int(65e9))
    assert closed.closed_by == "max_age"


def test_eviction_reports_instead_of_dropping() -> None:
    store = WindowStore(WindowConfig(max_open=2))
    store.add(agent_span("a", 0))
    store.add(agent_span("b", 1))
    [evicted] = store.add(agent_span("c", 2))
    assert (evicted.conversation.conversation_id, evicted.closed_by) == (
        "a",
        "evicted",
    ) and store.evictions == 1
    assert set(store.open) == {"b", "c"}


def test_span_cap_counts_what_it_drops() -> None:
    store = WindowStore(WindowConfig(max_spans=3))
    for t in range(5):
        store.add(agent_span("a", t))
    [closed] = store.flush()
    assert len(closed.conversation.spans) == 3 and closed.conversation.spans_dropped == 2


def test_late_span_reopens_with_a_new_version() -> None:
    store = WindowStore(WindowConfig(inactivity_s=5))
    store.add(agent_span("a", 0))
    [first] = store.advance(int(10e9))
    store.add(agent_span("a", 1))  # late: event time 1 s, after the report
    [second] = store.flush()
    assert (first.conversation.version, second.conversation.version) == (1, 2)
    assert len(second.conversation.spans) == 2 and store.late_reopened == 1


def test_spans_without_a_conversation_join_their_trace_once_it_is_named() -> None:
    store = WindowStore(WindowConfig())
    store.add(agent_span(None, 0, trace="t9"))  # child, exported first
    store.add(agent_span(None, 1, trace="t9"))
    store.add(agent_span("conv", 2, trace="t9"))  # the root names the conversation
    store.add(agent_span(None, 3, trace="t9"))  # later ones go straight there
    [closed] = store.flush()
    assert closed.conversation.conversation_id == "conv" and len(closed.conversation.spans) == 4


def test_an_unnamed_trace_is_its_own_conversation() -> None:
    store = WindowStore(WindowConfig())
    store.add(agent_span(None, 0, trace="t5"))
    [closed] = store.flush()
    assert closed.conversation.conversation_id.startswith("trace:t5")
