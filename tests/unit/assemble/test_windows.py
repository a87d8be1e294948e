"""Conversation windows: when a conversation is reported, and that nothing is lost."""

from __future__ import annotations

import json
from typing import Any

from monitor.assemble.windows import Closed, WindowStore
from monitor.compare.ladder import Ladder
from monitor.config import ScoringConfig, WindowConfig
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from monitor.normalize.capture import conversation_id_hint
from monitor.report import latest_reports
from monitor.runtime.pipeline import Pipeline
from tests.unit.spans import span


def agent_span(conv: str | None, start_s: float, trace: str = "t1", end: bool = False) -> AgentSpan:
    a: dict[str, object] = {"gen_ai.operation.name": "chat"}
    if end:
        a["aem.conversation.end"] = True
    if conv:
        a["session.id"] = conv
    return normalize_span(span("chat", a, trace=trace, start_s=start_s))


S = 1_000_000_000


def test_inactivity_on_arrival_time() -> None:
    store = WindowStore(WindowConfig(inactivity_s=30))
    assert store.add(agent_span("a", 0), now_ns=100 * S) == []
    assert store.advance(120 * S) == []
    [closed] = store.advance(131 * S)
    assert (closed.conversation.conversation_id, closed.closed_by) == ("a", "inactivity")


def test_event_time_does_not_close_anything() -> None:
    """Old timestamps (recorded traffic, a slow agent clock) arriving now stay open for the whole window;
    a span dated far ahead neither closes its own conversation early nor anyone else's."""
    store = WindowStore(WindowConfig(inactivity_s=30))
    store.add(agent_span("old", 0), now_ns=10_000 * S)  # event time 1970, arrival now
    store.add(agent_span("future", 7_258_118_400), now_ns=10_000 * S)  # dated 2200
    assert store.advance(10_029 * S) == [] and set(store.open) == {"old", "future"}
    assert store.spans_clamped == 1
    [future] = [c for c in store.advance(10_030 * S) if c.conversation.conversation_id == "future"]
    assert future.conversation.spans[0].span.end_ns == (10_000 + 3600) * S  # clamped to max_future_s


def test_past_bound_is_off_by_default_and_clamps_when_set() -> None:
    store = WindowStore(WindowConfig(max_past_s=60))
    store.add(agent_span("a", 0), now_ns=1_000 * S)
    assert store.spans_clamped == 1 and store.open["a"].spans[0].span.start_ns == 940 * S
    assert WindowStore(WindowConfig())._clamp(agent_span("b", 0), 1_000 * S).span.start_ns == 0


def test_end_marker_closes_at_the_end_of_its_request() -> None:
    """Replay (no grace: the whole input has arrived): the marker closes at the end of its request."""
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    store.add(agent_span("a", 0), 0)
    assert store.add(agent_span("a", 2, end=True), 0) == []
    store.add(agent_span("a", 1), 0)  # the same request delivered a span after the marker
    [closed] = store.close_marked()
    assert closed.closed_by == "end_marker" and len(closed.conversation.spans) == 3
    assert store.close_marked() == [] and not store.open


def test_max_age() -> None:
    store = WindowStore(WindowConfig(max_age_s=60, inactivity_s=30))
    for t in range(0, 70, 10):
        store.add(agent_span("a", t), t * S)
    [closed] = store.advance(65 * S)
    assert closed.closed_by == "max_age"


def test_eviction_reports_instead_of_dropping() -> None:
    store = WindowStore(WindowConfig(max_open=2))
    store.add(agent_span("a", 0), 0)
    store.add(agent_span("b", 1), 1 * S)
    [evicted] = store.add(agent_span("c", 2), 2 * S)
    assert (evicted.conversation.conversation_id, evicted.closed_by) == (
        "a",
        "evicted",
    ) and store.evictions == 1
    assert set(store.open) == {"b", "c"}


def test_span_cap_counts_what_it_drops() -> None:
    store = WindowStore(WindowConfig(max_spans=3))
    for t in range(5):
        store.add(agent_span("a", t), t * S)
    [closed] = store.flush()
    assert len(closed.conversation.spans) == 3 and closed.conversation.spans_dropped == 2


def test_late_span_reopens_with_a_new_version() -> None:
    store = WindowStore(WindowConfig(inactivity_s=5))
    store.add(agent_span("a", 0), 0)
    [first] = store.advance(10 * S)
    store.add(agent_span("a", 1), 11 * S)  # late: event time 1 s, arriving after the report
    [second] = store.flush()
    assert (first.conversation.version, second.conversation.version) == (1, 2)
    assert len(second.conversation.spans) == 2 and store.late_reopened == 1


def test_spans_without_a_conversation_join_their_trace_once_it_is_named() -> None:
    store = WindowStore(WindowConfig())
    store.add(agent_span(None, 0, trace="t9"), 0)  # child, exported first
    store.add(agent_span(None, 1, trace="t9"), 0)
    store.add(agent_span("conv", 2, trace="t9"), 0)  # the root names the conversation
    store.add(agent_span(None, 3, trace="t9"), 0)  # later ones go straight there
    [closed] = store.flush()
    assert closed.conversation.conversation_id == "conv" and len(closed.conversation.spans) == 4


def test_an_unnamed_trace_is_its_own_conversation() -> None:
    store = WindowStore(WindowConfig())
    store.add(agent_span(None, 0, trace="t5"), 0)
    [closed] = store.flush()
    assert closed.conversation.conversation_id.startswith("trace:t5")


def test_versions_continue_from_an_earlier_owner() -> None:
    store = WindowStore(WindowConfig(inactivity_s=5))
    store.note_version("a", 3)  # another replica reported version 3 before this one took over
    store.add(agent_span("a", 0), 0)
    [closed] = store.flush()
    assert closed.conversation.version == 4
    rebuilt = WindowStore(WindowConfig())
    rebuilt.add(agent_span("b", 0), 0)  # re-read first, the note after it
    rebuilt.note_version("b", 1)
    assert rebuilt.flush()[0].conversation.version == 2


def test_end_marker_waits_its_grace_for_spans_sent_in_another_batch() -> None:
    """Streaming: a Collector writes each trace as its own Kafka message, read from another partition,
    so the marked trace may come first; the rest of the conversation arriving within the grace joins
    it, and it closes once it has seen nothing for that long — cut by neither the marker nor the wait."""
    store = WindowStore(WindowConfig(end_marker_grace_s=2, inactivity_s=30))
    store.add(agent_span("a", 5, trace="t2", end=True), 0)
    assert store.close_marked() == [] and store.advance(int(1.5 * S)) == []
    store.add(agent_span("a", 1, trace="t1"), int(1.5 * S))  # the earlier trace, 1.5 s later
    assert store.advance(3 * S) == []  # 1.5 s since its last span: still open
    [closed] = store.advance(int(3.5 * S))
    assert closed.closed_by == "end_marker" and len(closed.conversation.spans) == 2


def test_held_conversations_wait_and_a_redelivered_span_reopens_nothing() -> None:
    store = WindowStore(WindowConfig(inactivity_s=5, end_marker_grace_s=0))
    first = agent_span("a", 0, end=True)
    store.add(first, 0)
    assert (
        store.close_marked(hold=lambda cid: cid == "a") == [] and store.advance(10 * S, lambda c: True) == []
    )
    [closed] = store.close_marked()  # released: the marker still counts
    assert closed.closed_by == "end_marker"
    store.add(first, 20 * S)  # the same span again (at-least-once delivery): already reported
    assert not store.open and store.duplicates == 1


def test_a_marker_on_a_trace_named_later_in_its_request_still_closes_the_conversation() -> None:
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    store.add(agent_span(None, 2, trace="t1", end=True), 0)  # the marker, on a span that names nothing
    store.add(agent_span("a", 1, trace="t1"), 0)  # the root names the trace's conversation
    [closed] = store.close_marked()
    assert (closed.conversation.conversation_id, closed.closed_by) == ("a", "end_marker")
    assert len(closed.conversation.spans) == 2


def test_a_late_span_after_the_marker_reopens_a_conversation_that_still_ends_after_the_grace() -> None:
    store = WindowStore(WindowConfig(end_marker_grace_s=2, inactivity_s=30))
    store.add(agent_span("a", 5, trace="t2", end=True), 0)
    [first] = store.advance(3 * S)
    store.add(agent_span("a", 1, trace="t1"), 10 * S)  # a Collector's split trace, after the report
    [again] = store.advance(13 * S)  # the grace again, not the 30 s of inactivity
    assert (first.closed_by, again.closed_by, again.conversation.version) == ("end_marker", "end_marker", 2)
    assert len(again.conversation.spans) == 2


def chat(
    trace: str, history: list[tuple[str, str]], reply: str, start_s: float, child: bool = False
) -> AgentSpan:
    """A model call with no conversation id: the history it was sent, and its answer (as a trace's root
    span, or its `child`)."""
    messages = [{"role": r, "parts": [{"type": "text", "content": t}]} for r, t in history]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": reply}]}]
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
             "gen_ai.output.messages": json.dumps(answer)}  # fmt: skip
    model_call = span("chat", attrs, trace=trace, start_s=start_s)
    if child:
        model_call = model_call.model_copy(update={"parent_span_id": "ff" * 8})
    return normalize_span(model_call)


TURN_1 = chat("a1", [("system", "Be brief."), ("user", "Weather in Paris?")], "Sunny.", 0)
TURN_2 = chat(
    "a2", [("user", "Weather in Paris?"), ("assistant", "Sunny."), ("user", "And Rome?")], "Rain.", 5
)


def test_a_trace_that_continues_an_earlier_history_joins_its_conversation_in_any_order() -> None:
    for order in ((TURN_1, TURN_2), (TURN_2, TURN_1)):
        store = WindowStore(WindowConfig())
        for n, s in enumerate(order):
            store.add(s, n * S)
        [closed] = store.flush()
        assert closed.conversation.conversation_id == "trace:" + "a1".ljust(32, "0")
        assert len(closed.conversation.spans) == 2 and store.joined_by_history == 1


def test_two_conversations_that_opened_alike_each_take_one_of_the_first_traces() -> None:
    """Two conversations open with the very same exchange; the second turn of one continues a history
    both showed. It joins one of them (the earlier), never both: two conversations, none merged into
    the other, and the one it joined reads exactly as its own would (the first traces read the same)."""
    other_1 = chat("b1", [("user", "Weather in Paris?")], "Sunny.", 1)
    store = WindowStore(WindowConfig())
    for n, s in enumerate((TURN_1, other_1, TURN_2)):
        store.add(s, n * S)
    closed = store.flush()
    assert sorted(len(c.conversation.spans) for c in closed) == [1, 2] and store.joined_by_history == 1


def test_a_trace_whose_root_names_it_is_not_joined_by_history() -> None:
    """The root span ends, and is exported, last, and may name the conversation: a trace that continues
    a history waits for it before it is joined by that history."""
    store = WindowStore(WindowConfig())
    store.add(TURN_1, 0)
    second = chat(
        "a2",
        [("user", "Weather in Paris?"), ("assistant", "Sunny."), ("user", "And Rome?")],
        "Rain.",
        5,
        child=True,
    )
    store.add(second, S)  # its trace's root, which names it, is still to come
    store.close_marked()  # the end of that request: not joined yet
    root = normalize_span(
        span("agent", {"gen_ai.operation.name": "invoke_agent", "session.id": "c9"}, trace="a2")
    )
    store.add(root, 2 * S)
    closed = {c.conversation.conversation_id: len(c.conversation.spans) for c in store.flush()}
    assert closed == {"trace:" + "a1".ljust(32, "0"): 1, "c9": 2} and store.joined_by_history == 0


def test_a_joined_trace_follows_its_conversation_once_a_later_span_names_it() -> None:
    store = WindowStore(WindowConfig())
    store.add(TURN_1, 0)
    store.add(TURN_2, S)
    store.add(agent_span("c7", 2, trace="a1"), 2 * S)  # the first trace's root names the conversation
    store.add(agent_span(None, 3, trace="a2"), 3 * S)  # a later span of the joined trace
    [closed] = store.flush()
    assert closed.conversation.conversation_id == "c7" and len(closed.conversation.spans) == 4


def test_a_user_who_answers_after_the_window_closed_reopens_their_conversation() -> None:
    """The first trace was reported (30 s without a span); the second turn comes a minute later and
    continues its history: the conversation is reported again, whole, as version 2 — never the second
    turn alone."""
    store = WindowStore(WindowConfig())
    store.add(TURN_1, 0)
    [first] = store.advance(40 * S)
    assert (first.conversation.conversation_id, first.closed_by) == (
        "trace:" + "a1".ljust(32, "0"),
        "inactivity",
    )
    store.add(TURN_2, 60 * S)
    [again] = store.flush()
    assert again.conversation.conversation_id == first.conversation.conversation_id
    assert (again.conversation.version, len(again.conversation.spans)) == (2, 2)


def test_a_trace_whose_root_is_in_another_service_joins_once_the_root_wait_is_over() -> None:
    """A child span whose parent lives in another service: its trace never shows a root here. It joins
    the conversation it continues when `trace_root_wait_s` has passed, before inactivity closes it."""
    second = chat(
        "a2",
        [("user", "Weather in Paris?"), ("assistant", "Sunny."), ("user", "And Rome?")],
        "Rain.",
        5,
        child=True,
    )
    store = WindowStore(WindowConfig(inactivity_s=30, trace_root_wait_s=60))
    store.add(
        TURN_1.model_copy(update={"span": TURN_1.span.model_copy(update={"parent_span_id": "ee" * 8})}), 0
    )
    store.add(second, S)
    closed = store.advance(200 * S)
    assert [len(c.conversation.spans) for c in closed] == [2] and store.joined_by_history == 1


def test_a_conversation_joined_first_is_preferred_over_one_already_reported() -> None:
    """Two users said "Weather in Paris?" and got "Sunny."; the first left (reported). The second user's
    next turn joins the second user's conversation, still open, not the reported one."""
    left = chat("b1", [("user", "Weather in Paris?")], "Sunny.", 0)
    store = WindowStore(WindowConfig())
    store.add(left, 0)
    store.advance(40 * S)  # the first user's conversation is reported
    store.add(chat("a1", [("user", "Weather in Paris?")], "Sunny.", 50), 50 * S)
    store.add(
        chat(
            "a2", [("user", "Weather in Paris?"), ("assistant", "Sunny."), ("user", "And Rome?")], "Rain.", 60
        ),
        60 * S,
    )
    [closed] = store.flush()
    assert (
        closed.conversation.conversation_id == "trace:" + "a1".ljust(32, "0")
        and len(closed.conversation.spans) == 2
    )


def twins() -> tuple[AgentSpan, AgentSpan, AgentSpan, AgentSpan]:
    """Two users' first and second turns; both opened with the very same exchange, the second user's
    first turn answered after the first user's second turn began."""
    paris = [("user", "Weather in Paris?"), ("assistant", "Sunny.")]
    a1, b1 = (chat(t, paris[:1], "Sunny.", start) for t, start in (("a1", 0), ("b1", 100)))
    a2 = chat("a2", [*paris, ("user", "And Rome?")], "Rain.", 5)
    b2 = chat("b2", [*paris, ("user", "And Oslo?")], "Snow.", 105)
    return a1, a2, b1, b2


def test_traces_that_come_in_any_order_join_in_the_order_they_started() -> None:
    """Kafka: every trace of a conversation reaches one partition, each from its own, so they come in
    any order. Two users opened with the very same exchange; the second user's next turn comes first.
    Joined once the watermark has passed them, in the order they started, each second turn joins its
    own user's first turn (the second user's first turn answered after the first user's second began)."""
    a1, a2, b1, b2 = twins()
    store = WindowStore(WindowConfig())
    store.join_after_watermark = True
    for n, s in enumerate((b2, a1, b1, a2)):  # as they came, a tenth of a second apart
        store.add(s, 1000 * S + n * S // 10)
        store.close_marked()  # what the pipeline does after each request
    assert store.joined_by_history == 0  # none joined before the watermark passed them
    store.advance(1001 * S)
    traces = {
        c.conversation.conversation_id[6:8]: {s.span.trace_id[:2] for s in c.conversation.spans}
        for c in store.flush()
    }
    assert traces == {"a1": {"a1", "a2"}, "b1": {"b1", "b2"}} and store.joined_by_history == 2


def test_a_turn_that_comes_before_its_twin_s_still_joins_its_own_conversation() -> None:
    """As above, but the first user's second turn comes only after the second user's was joined: the
    second user's turn continues the turn answered last before it began, its own user's, not the
    first user's, which is still to be continued."""
    a1, a2, b1, b2 = twins()
    store = WindowStore(WindowConfig())
    store.join_after_watermark = True
    for n, s in enumerate((b2, a1, b1)):
        store.add(s, 1000 * S + n * S // 10)
        store.close_marked()
    store.advance(1001 * S)  # the second user's turns are joined before the first user's second turn comes
    store.add(a2, 1002 * S)
    store.advance(1003 * S)
    traces = {
        c.conversation.conversation_id[6:8]: {s.span.trace_id[:2] for s in c.conversation.spans}
        for c in store.flush()
    }
    assert traces == {"a1": {"a1", "a2"}, "b1": {"b1", "b2"}} and store.joined_by_history == 2


def test_twins_whose_next_turns_come_out_of_order_each_keep_their_own_first_turn() -> None:
    """Replay and `run` join a trace once its root is in, in the order traces come. The second user's
    next turn comes first and takes the first user's first turn (the earliest answered before it
    began); the first user's next turn, begun before the second user's first turn was answered, could
    continue nothing else and would be reported alone. Instead the second user's turn moves to its own
    user's first turn, still free, and each conversation is whole."""
    a1, a2, b1, b2 = twins()
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    for s in (a1, b1, b2, a2):
        store.add(s, 0)
        store.close_marked()
    traces = {
        c.conversation.conversation_id[6:8]: {s.span.trace_id[:2] for s in c.conversation.spans}
        for c in store.flush()
    }
    assert traces == {"a1": {"a1", "a2"}, "b1": {"b1", "b2"}}
    assert store.joined_by_history == 2 and store.moved_to_twin == 1


def test_a_turn_moved_to_its_twin_takes_the_turns_joined_after_it_and_the_end_marker() -> None:
    """As above, with the second user's third turn (carrying the end marker) joined before the first
    user's second turn comes: it moves with the turn it continues, and its marker closes the second
    user's conversation, not the first's."""
    a1, a2, b1, b2 = twins()
    paris = [("user", "Weather in Paris?"), ("assistant", "Sunny.")]
    b3 = chat("b3", [*paris, ("user", "And Oslo?"), ("assistant", "Snow."), ("user", "Thanks.")], "Bye.", 110)
    b3 = b3.model_copy(update={"end_marker": True})
    store = WindowStore(WindowConfig(end_marker_grace_s=2))
    for n, s in enumerate((a1, b1, b2, b3, a2)):
        store.add(s, n * S)
        store.close_marked()
    assert store.moved_to_twin == 1
    [closed] = store.advance(10 * S)  # the marker's grace over: the second user's conversation
    assert {s.span.trace_id[:2] for s in closed.conversation.spans} == {"b1", "b2", "b3"}
    [rest] = store.flush()
    assert {s.span.trace_id[:2] for s in rest.conversation.spans} == {"a1", "a2"}


def turn_with_late_root(
    trace: str, history: list[tuple[str, str]], reply: str, start_s: float
) -> tuple[AgentSpan, AgentSpan]:
    """A turn's trace as an agent framework exports it: its model call, then its root (the agent's run,
    ended last, so exported last — here so late that it comes after the conversation's end)."""
    model_call = chat(trace, history, reply, start_s, child=True)
    root = normalize_span(
        span("invoke_agent", {"gen_ai.operation.name": "invoke_agent"}, trace=trace, start_s=start_s)
    )
    return model_call.model_copy(
        update={"span": model_call.span.model_copy(update={"parent_span_id": root.span.span_id})}
    ), root


PARIS_ROME = [("user", "Weather in Paris?"), ("assistant", "Sunny."), ("user", "And Rome?")]
TURN_3 = [*PARIS_ROME, ("assistant", "Rain."), ("user", "Thanks, bye.")]


def test_a_turn_whose_root_comes_after_the_end_marker_is_reported_in_its_conversation() -> None:
    """Replay: turn 2's root comes after turn 3, which carries the end marker and joins turn 2. Closed
    at the marker, turns 2 and 3 would be reported as a conversation of their own beside turn 1's, and
    stay so (a report is not taken back): the marker waits for turn 2 to join, then closes all three."""
    call_2, root_2 = turn_with_late_root("a2", PARIS_ROME, "Rain.", 5)
    turn_3 = chat("a3", TURN_3, "Bye!", 10)
    turn_3 = turn_3.model_copy(update={"end_marker": True})
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    closed = []
    for request in ([TURN_1], [call_2], [turn_3], [root_2]):
        for s in request:
            store.add(s, 0)
        closed += store.close_marked()
    assert [c.closed_by for c in closed] == ["end_marker"] and not store.open
    assert {s.span.trace_id[:2] for s in closed[0].conversation.spans} == {"a1", "a2", "a3"}
    assert closed[0].conversation.conversation_id == "trace:" + "a1".ljust(32, "0")


def test_a_turn_whose_earlier_history_comes_after_the_end_marker_is_reported_in_its_conversation() -> None:
    """`run`: the last turn (with the end marker) comes before the model call of the turn it continues;
    past the marker's grace it waits, then all of the conversation closes once that call has joined it."""
    call_2, root_2 = turn_with_late_root("a2", PARIS_ROME, "Rain.", 5)
    turn_3 = chat("a3", TURN_3, "Bye!", 10).model_copy(update={"end_marker": True})
    store = WindowStore(WindowConfig(end_marker_grace_s=2))
    store.add(TURN_1, 0)
    store.add(root_2, S)
    store.add(turn_3, 2 * S)
    assert store.advance(10 * S) == []  # past the grace: turn 3 waits for the history it continues
    store.add(call_2, 11 * S)
    [closed] = store.advance(14 * S)
    assert closed.closed_by == "end_marker" and len(closed.conversation.spans) == 4


def test_a_marked_turn_whose_history_never_comes_is_still_reported() -> None:
    """Nothing waits for ever: a marked turn that continues a history never seen (the monitor started
    mid-conversation) is reported once it has been quiet for `inactivity_s`, every span in it."""
    turn_3 = chat("a3", TURN_3, "Bye!", 10).model_copy(update={"end_marker": True})
    store = WindowStore(WindowConfig(end_marker_grace_s=2, inactivity_s=30))
    store.add(turn_3, 0)
    assert store.advance(10 * S) == []
    [closed] = store.advance(31 * S)
    assert len(closed.conversation.spans) == 1 and not store.open


def test_one_trace_that_holds_a_whole_conversation_closes_at_its_end_marker() -> None:
    """A framework that keeps one trace for every turn: its second model call continues its first, in
    the same trace. No other trace is to come for it, so its end marker closes it at once."""
    first = chat("s1", [("user", "Weather in Paris?")], "Sunny.", 0, child=True)
    second = chat("s1", PARIS_ROME, "Rain.", 5, child=True)
    root = normalize_span(
        span(
            "invoke_agent",
            {"gen_ai.operation.name": "invoke_agent", "aem.conversation.end": True},
            trace="s1",
        )
    )
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    for s in (first, second, root):
        store.add(s, 0)
    [closed] = store.close_marked()
    assert closed.closed_by == "end_marker" and len(closed.conversation.spans) == 3


def test_a_join_that_reopens_a_conversation_in_a_full_store_evicts_neither_side() -> None:
    """With `max_open` reached, reopening the reported first turn a trace joins evicts the least recently
    active conversation — never the trace's own spans or the conversation a twin's turn moves out of.
    Every span is reported once."""
    a1, _, b1, b2 = twins()
    call_a2, _ = turn_with_late_root("a2", PARIS_ROME, "Rain.", 5)
    store = WindowStore(WindowConfig(max_open=3, trace_root_wait_s=60, inactivity_s=300))
    other = agent_span("x", 0, trace="ee")
    closed = store.add(b1, 0)
    closed += store.advance(400 * S)  # the second user's first turn is reported
    for n, s in enumerate((call_a2, a1, b2, other)):  # a2's root never comes
        closed += store.add(s, (401 + n) * S)
        closed += store.close_marked()
    closed += store.advance(470 * S)  # a2's root wait is over: it joins, b2 moves to b1 (reopened)
    closed += store.flush()
    latest = {c.conversation.conversation_id: c.conversation for c in closed}
    spans = [s.span.span_id for c in latest.values() for s in c.spans]
    assert sorted(spans) == sorted(s.span.span_id for s in (a1, call_a2, b1, b2, other))  # each once
    traces = {cid[:8]: {s.span.trace_id[:2] for s in c.spans} for cid, c in latest.items()}
    assert traces == {"trace:a1": {"a1", "a2"}, "trace:b1": {"b1", "b2"}, "x": {"ee"}}


def test_three_twins_whose_next_turns_come_out_of_order_each_keep_their_own_first_turn() -> None:
    """Three users opened with the very same exchange. The second user's next turn comes first and takes
    the first user's first turn; the third user's takes the second user's. The first user's next turn,
    begun before any other first turn was answered, may continue only its own: a chain of moves (the
    third user's turn to its own first turn, then the second user's to its own) frees it. One move at
    a time would leave it alone."""
    paris = [("user", "Weather in Paris?"), ("assistant", "Sunny.")]
    firsts = [chat(t, paris[:1], "Sunny.", start) for t, start in (("a1", 0), ("b1", 50), ("c1", 100))]
    a2, b2, c2 = (
        chat(t, [*paris, ("user", f"And {city}?")], "Rain.", start)
        for t, city, start in (("a2", "Rome", 5), ("b2", "Oslo", 55), ("c2", "Kyiv", 105))
    )
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    for s in (*firsts, b2, c2, a2):
        store.add(s, 0)
        store.close_marked()
    traces = {
        c.conversation.conversation_id[6:8]: {s.span.trace_id[:2] for s in c.conversation.spans}
        for c in store.flush()
    }
    assert traces == {"a1": {"a1", "a2"}, "b1": {"b1", "b2"}, "c1": {"c1", "c2"}}
    assert store.joined_by_history == 3 and store.moved_to_twin == 2


def test_a_turn_reported_alone_before_its_history_came_is_merged_into_its_conversation() -> None:
    """A turn's trace comes and is reported alone (nothing it continues had come); the trace of the turn
    before it comes later. The conversation is reported whole, and the id the turn was reported under
    gets a last report naming where its spans went (`merged`), so a consumer keeping the latest report
    per id sees one conversation, not two."""
    store = WindowStore(WindowConfig(inactivity_s=30, trace_root_wait_s=60))
    store.add(TURN_2, 0)
    [alone] = store.advance(200 * S)
    assert alone.conversation.conversation_id == "trace:" + "a2".ljust(32, "0")
    store.add(TURN_1, 210 * S)
    closed = store.close_marked() + store.flush()
    merged = [c for c in closed if c.closed_by == "merged"]
    whole = [c for c in closed if c.closed_by != "merged"]
    assert [
        (c.conversation.conversation_id, c.conversation.version, c.conversation.spans) for c in merged
    ] == [(alone.conversation.conversation_id, 2, [])]
    assert [c.merged_into for c in merged] == ["trace:" + "a1".ljust(32, "0")]
    assert [(c.conversation.conversation_id, len(c.conversation.spans)) for c in whole] == [
        ("trace:" + "a1".ljust(32, "0"), 2)
    ]
    assert store.merged == 1 and store.joined_by_history == 1


def test_the_report_of_a_turn_merged_later_names_its_conversation_and_counts_no_verdict(
    ladder: Ladder,
) -> None:
    """Through the pipeline: the id a turn was first reported under ends with a report that holds no
    spans and says where they went (`merged_into`); the latest report per id (what `show` and the
    docs' dedupe keep) is one conversation, whole, and only the two conversation reports are counted."""
    clock = [0]
    reports: list[dict[str, Any]] = []
    config = ScoringConfig(windows=WindowConfig(inactivity_s=30, trace_root_wait_s=60))
    pipeline = Pipeline(config, ladder, {}, reports.append, clock=lambda: clock[0])
    pipeline.ingest_spans([TURN_2])
    clock[0] = 200 * S
    pipeline.tick(clock[0])
    pipeline.ingest_spans([TURN_1])
    pipeline.flush()
    merged = [r for r in reports if r["closed_by"] == "merged"]
    assert [(r["conversation_id"][:8], r["version"], r["spans"], r["scored"]) for r in merged] == [
        ("trace:a2", 2, 0, False)
    ]
    assert merged[0]["merged_into"] == "trace:" + "a1".ljust(32, "0")
    [whole] = latest_reports(reports).values()
    assert whole["conversation_id"] == merged[0]["merged_into"] and whole["spans"] == 2
    stats = pipeline.snapshot()
    assert stats["conversations_reported"] == 2 and stats["conversations_merged"] == 1


def latest(closed: list[Closed]) -> dict[str, list[str]]:
    """What a consumer keeps of these reports (the documented dedupe, `replaces` and `merged_into`
    included): per conversation id, the traces of its spans."""
    reports = [
        {
            "conversation_id": c.conversation.conversation_id,
            "version": c.conversation.version,
            "spans": len(c.conversation.spans),
            "merged_into": c.merged_into,
            "replaces": c.conversation.replaces or None,
            "traces": sorted(s.span.trace_id[:2] for s in c.conversation.spans),
        }
        for c in closed
    ]
    return {cid[:8]: r["traces"] for cid, r in latest_reports(reports).items()}


def three_twins() -> tuple[list[AgentSpan], list[AgentSpan]]:
    paris = [("user", "Weather in Paris?"), ("assistant", "Sunny.")]
    firsts = [chat(t, paris[:1], "Sunny.", start) for t, start in (("a1", 0), ("b1", 50), ("c1", 100))]
    seconds = [
        chat(t, [*paris, ("user", f"And {city}?")], "Rain.", start)
        for t, city, start in (("a2", "Rome", 5), ("b2", "Oslo", 55), ("c2", "Kyiv", 105))
    ]
    return firsts, seconds


def test_a_chain_of_moves_in_a_full_store_evicts_none_of_the_conversations_it_moves_spans_between() -> None:
    """A chain of twins' moves reopens a reported first turn while `max_open` is reached: the least
    recently active conversation is evicted, never the trace being joined nor one a move takes spans
    from. Every trace is in one latest report."""
    (a1, b1, c1), (a2, b2, c2) = three_twins()
    store = WindowStore(WindowConfig(max_open=3, inactivity_s=30, end_marker_grace_s=0))
    closed = store.add(c1, 0) + store.advance(40 * S)  # the third user's first turn is reported
    for n, s in enumerate((a1, b1, b2, c2, a2)):
        closed += store.add(s, (50 + n) * S)
        closed += store.close_marked()
    closed += store.flush()
    assert sorted(t for traces in latest(closed).values() for t in traces) == [
        "a1", "a2", "b1", "b2", "c1", "c2"
    ]  # fmt: skip


def test_a_taker_moved_out_of_a_reported_conversation_is_replaced_there_whatever_the_spans() -> None:
    """The second user's turns joined the first user's first turn and were reported with it; the first
    user's second turn then comes. They move to their own first turn, and the first user's conversation
    is reported again with fewer spans, marked `replaces`: the dedupe (most spans first) would otherwise
    keep the fuller, wrong version."""
    (a1, b1, _), (a2, b2, _) = three_twins()
    paris = [("user", "Weather in Paris?"), ("assistant", "Sunny.")]
    b3 = chat("b3", [*paris, ("user", "And Oslo?"), ("assistant", "Rain."), ("user", "Thanks.")], "Bye.", 110)
    store = WindowStore(WindowConfig(inactivity_s=30, end_marker_grace_s=0))
    closed: list[Closed] = []
    for n, s in enumerate((a1, b1, b2, b3)):
        closed += store.add(s, n * S)
        closed += store.close_marked()
    closed += store.advance(40 * S)  # trace:a1 holds a1, b2, b3 when reported
    closed += store.add(a2, 50 * S) + store.close_marked() + store.flush()
    assert latest(closed) == {"trace:a1": ["a1", "a2"], "trace:b1": ["b1", "b2", "b3"]}
    assert [c.conversation.replaces for c in closed if c.conversation.version == 2] == [1, 0]


def test_a_trace_reported_alone_then_reopened_by_its_late_root_is_still_merged() -> None:
    """A turn reported alone (its root and the history it continues still to come) is reopened by its
    late root, then the history comes: it joins, and its id still gets the `merged` report."""
    call_2, root_2 = turn_with_late_root("a2", PARIS_ROME, "Rain.", 5)
    store = WindowStore(WindowConfig(inactivity_s=30, trace_root_wait_s=60))
    closed = store.add(call_2, 0) + store.advance(200 * S)  # reported alone
    closed += store.add(root_2, 210 * S)  # its late root reopens it
    closed += store.add(TURN_1, 220 * S) + store.close_marked() + store.flush()
    assert latest(closed) == {"trace:a1": ["a1", "a2", "a2"]}


def test_a_late_span_of_a_merged_trace_goes_on_from_the_merged_version() -> None:
    """After the merge, the trace's owner is forgotten (other traffic): a late span of it opens its
    `trace:<id>` again, at a version above the `merged` one, so no consumer hides it."""
    store = WindowStore(WindowConfig(max_open=2, inactivity_s=30, trace_root_wait_s=60))
    closed = store.add(TURN_2, 0) + store.advance(200 * S)
    closed += store.add(TURN_1, 210 * S) + store.close_marked()
    for i in range(25):  # the trace owners kept: 10 × max_open
        closed += store.add(agent_span(f"c{i}", 300 + i, trace=f"e{i:02d}"), (300 + i) * S)
    late = agent_span(None, 6, trace="a2")
    late = late.model_copy(update={"span": late.span.model_copy(update={"parent_span_id": "ff" * 8})})
    closed += store.add(late, 400 * S) + store.flush()
    kept = latest(closed)
    assert sum(traces.count("a2") for traces in kept.values()) == 2  # TURN_2 and the late span, once each


def answered(call: AgentSpan, response_id: str) -> AgentSpan:
    """`call` with the response id its provider gave it."""
    return call.model_copy(update={"response_id": response_id})


def call_copy(trace: str, response_id: str, start_s: float) -> AgentSpan:
    """A provider SDK's own span of a model call, metadata only, as a trace of its own."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.response.id": response_id}
    return normalize_span(span("anthropic.messages.create", attrs, trace=trace, start_s=start_s))


def test_traces_of_a_call_s_copies_join_the_call_s_conversation_whichever_comes_first() -> None:
    """The Anthropic SDK traces each model call itself, metadata only, beside the instrumentation that
    records it whole; with no conversation id each copy is a trace of its own. Each joins the trace
    holding its call, by the response id both carry, before or after it comes, and so the conversation
    that trace joins by its history: one conversation, every span in it, once."""
    calls = [answered(TURN_1, "msg_1"), answered(TURN_2, "msg_2")]
    copies = [call_copy("c1", "msg_1", 0.05), call_copy("c2", "msg_2", 5.05)]
    for order in (
        (copies[0], calls[0], copies[1], calls[1]),  # a copy ends, and is exported, before its call
        (calls[0], copies[0], calls[1], copies[1]),
        (calls[1], copies[1], copies[0], calls[0]),
    ):
        store = WindowStore(WindowConfig())
        for n, s in enumerate(order):
            store.add(s, n * S)
            store.close_marked()
        [closed] = store.flush()
        assert closed.conversation.conversation_id == "trace:" + "a1".ljust(32, "0")
        assert sorted(s.span.trace_id[:2] for s in closed.conversation.spans) == ["a1", "a2", "c1", "c2"]
        assert store.copies_joined == 2 and store.joined_by_history == 1


def test_a_copy_whose_call_never_comes_stays_alone_and_a_trace_with_content_is_never_taken() -> None:
    """Only a trace of nothing but copies follows a call: one holding anything else (a model call with its
    content that shares the response id, as two instrumentations of one call write it) stays its own;
    and so does a copy far in time from the call whose id it repeats (a stub's ids, `msg_1` every run)."""
    store = WindowStore(WindowConfig())
    store.add(call_copy("c9", "msg_9", 0), 0)
    store.add(answered(TURN_1, "msg_1"), S)
    store.add(answered(chat("b1", [("user", "Hi")], "Hello.", 2), "msg_1"), 2 * S)
    store.add(call_copy("c8", "msg_1", 60), 3 * S)
    closed = {c.conversation.conversation_id[6:8]: len(c.conversation.spans) for c in store.flush()}
    assert closed == {"c9": 1, "a1": 1, "b1": 1, "c8": 1} and store.copies_joined == 0


def test_a_named_call_takes_its_copies_and_a_store_told_not_to_join_them_leaves_them() -> None:
    """A call in a named conversation takes its copies' traces too; a copy `join_copies` refuses (Kafka:
    one not read on its call's partition) stays its own conversation."""
    named = answered(agent_span("conv-7", 0, trace="n1"), "msg_1").model_copy(update={"kind": "llm"})
    named = named.model_copy(update={"output_messages": TURN_1.output_messages})
    for join in (True, False):
        store = WindowStore(WindowConfig())
        store.join_copies = (lambda _: True) if join else (lambda _: False)
        store.add(call_copy("c1", "msg_1", 0.05), 0)
        store.add(named, S)
        closed = {c.conversation.conversation_id: len(c.conversation.spans) for c in store.flush()}
        assert closed == ({"conv-7": 2} if join else {"conv-7": 1, "trace:" + "c1".ljust(32, "0"): 1})


def test_a_turn_moved_to_its_twin_takes_its_copies_with_it() -> None:
    """Twins' next turns out of order (as above), each model call with its SDK copy: the turn moved to its
    own user's first turn takes its copy along, so no conversation holds another's span."""
    turns = twins()
    ids = {t.span.trace_id[:2]: f"msg_{t.span.trace_id[:2]}" for t in turns}
    a1, a2, b1, b2 = (answered(t, ids[t.span.trace_id[:2]]) for t in turns)
    copy = {
        t.span.trace_id[:2]: call_copy(
            "c" + t.span.trace_id[:2], ids[t.span.trace_id[:2]], t.span.start_ns / S + 0.05
        )
        for t in turns
    }
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    for s in (copy["a1"], a1, copy["b1"], b1, copy["b2"], b2, copy["a2"], a2):
        store.add(s, 0)
        store.close_marked()
    traces = {
        c.conversation.conversation_id[6:8]: {s.span.trace_id[:3].rstrip("0") for s in c.conversation.spans}
        for c in store.flush()
    }
    assert traces == {"a1": {"a1", "a2", "ca1", "ca2"}, "b1": {"b1", "b2", "cb1", "cb2"}}
    assert store.moved_to_twin == 1 and store.copies_joined == 4


def test_a_copy_reported_alone_stays_so_and_a_late_copy_reopens_nothing() -> None:
    """A copy whose trace was reported alone before its call came (evicted, closed) and is delivered again
    is a duplicate, not a span of the call's conversation too; a copy that comes after its call's
    conversation was reported does not reopen it (it has nothing to score): it is reported alone."""
    for config, call_at in ((WindowConfig(max_open=1), S), (WindowConfig(inactivity_s=5), 40 * S)):
        store = WindowStore(config)
        copy = call_copy("c1", "msg_1", 0.05)
        out = store.add(copy, 0) + store.advance(call_at - 1)
        out += store.add(answered(TURN_1, "msg_1"), call_at) + store.add(copy, call_at + S) + store.flush()
        held = [s.span.span_id for c in out for s in c.conversation.spans]
        assert held.count(copy.span.span_id) == 1 and store.duplicates == 1 and store.copies_joined == 0
    store = WindowStore(WindowConfig(inactivity_s=5))
    store.add(answered(TURN_1, "msg_1"), 0)
    out = store.advance(700 * S) + store.add(call_copy("c1", "msg_1", 0.05), 701 * S) + store.flush()
    assert [(c.conversation.conversation_id[6:8], c.conversation.version) for c in out] == [
        ("a1", 1),
        ("c1", 1),
    ]


def test_only_a_copy_that_is_its_trace_s_root_follows_a_call() -> None:
    """A copy under another span of its own trace is part of that trace: it never takes the trace along."""
    copy = call_copy("k1", "msg_1", 0.05)
    copy = copy.model_copy(update={"span": copy.span.model_copy(update={"parent_span_id": "ff" * 8})})
    for first in (copy, answered(TURN_1, "msg_1")):
        store = WindowStore(WindowConfig())
        for n, s in enumerate([first, *(s for s in (copy, answered(TURN_1, "msg_1")) if s is not first)]):
            store.add(s, n * S)
        store.add(chat("k1", [("user", "Something else")], "Sure.", 0.0), 2 * S)  # the root of trace k1
        closed = {c.conversation.conversation_id[6:8]: len(c.conversation.spans) for c in store.flush()}
        assert closed == {"a1": 1, "k1": 2} and store.copies_joined == 0


def test_copies_of_one_response_id_two_calls_carried_at_once_follow_neither() -> None:
    """A stub or proxy answering `msg_1` to two conversations at once: which call a copy is of is unknown."""
    store = WindowStore(WindowConfig())
    for s in (
        answered(chat("a1", [("user", "Weather in Paris?")], "Sunny.", 0.0), "msg_1"),
        answered(chat("b1", [("user", "Book a flight")], "Done.", 0.3), "msg_1"),
        call_copy("ca", "msg_1", 0.02),
        call_copy("cb", "msg_1", 0.32),
    ):
        store.add(s, 0)
    assert len(store.flush()) == 4 and store.copies_joined == 0


def test_a_copy_of_a_call_made_after_its_trace_was_joined_moves_with_that_trace() -> None:
    """Twins: b2 joined a1's conversation first, then moved to b1's; a copy of a later call in b2 (the
    copy before its call) follows b2, not the conversation b2 was in when the call came."""
    a1, a2, b1, b2 = twins()
    later = answered(chat("b2", [("user", "tool result")], "ok", 105.5, child=True), "msg_b2x")
    store = WindowStore(WindowConfig(end_marker_grace_s=0))
    for s in (a1, b1, b2, call_copy("cb2x", "msg_b2x", 105.55), later, a2):
        store.add(s, 0)
        store.close_marked()
    traces = {c.conversation.conversation_id[6:8]: {s.span.trace_id[:4].rstrip("0") for s in c.conversation.spans}
              for c in store.flush()}  # fmt: skip
    assert traces == {"a1": {"a1", "a2"}, "b1": {"b1", "b2", "cb2x"}} and store.moved_to_twin == 1


def test_in_kafka_a_copy_that_follows_a_waiting_trace_does_not_hold_its_join_back() -> None:
    """Kafka joins a trace once the watermark passes its last span: a copy that follows it later (read
    after a round trip) moves that point, and the trace is looked at again once the watermark passes the
    copy — not reported alone."""
    store = WindowStore(WindowConfig())
    store.join_after_watermark = True
    store.add(answered(TURN_1, "msg_1"), 1000 * S)
    store.add(answered(TURN_2, "msg_2"), 1001 * S)
    store.add(call_copy("c2", "msg_2", 5.05), 1002 * S)  # after TURN_2, before the watermark passed it
    store.close_marked()
    assert store.advance(1001 * S + S // 2) == []
    assert store.advance(1003 * S) == [] and store.joined_by_history == 1 and store.copies_joined == 1
    [closed] = store.flush()
    assert len(closed.conversation.spans) == 3


def test_the_hint_names_joined_copies_only_beside_calls() -> None:
    """The hint counts copies apart from the traces joined by history, and a lone copy is only its trace."""
    joined = [answered(TURN_1, "msg_1"), answered(TURN_2, "msg_2"), call_copy("c1", "msg_1", 0.05)]
    assert "2 traces joined by the history each resends, and 1 of its model calls' copies" in (
        conversation_id_hint(joined)
    )
    assert "grouped by its trace;" in conversation_id_hint([call_copy("c9", "msg_9", 0)])
    assert "copies" not in conversation_id_hint([call_copy("c9", "msg_9", 0)])


def test_a_copy_delivered_again_while_it_waits_alone_is_in_its_conversation_once() -> None:
    """A copy late for its call's reported conversation waits alone; the next turn reopens that
    conversation and the copy is delivered again (a retry): it joins once, counted a duplicate once."""
    store = WindowStore(WindowConfig(inactivity_s=30))
    copy = call_copy("c1", "msg_1", 0.05)
    out = store.add(answered(TURN_1, "msg_1"), 0) + store.advance(100 * S) + store.add(copy, 101 * S)
    out += store.add(answered(TURN_2, "msg_2"), 102 * S) + store.close_marked() + store.advance(103 * S)
    out += store.add(copy, 104 * S) + store.flush()
    last = max(out, key=lambda c: c.conversation.version).conversation
    assert [s.span.span_id for s in last.spans].count(copy.span.span_id) == 1 and store.duplicates == 1
