"""Which traces of an app's own tool loop (each model call a root trace of its own, no conversation id) the
window store joins by their histories (assemble/history.py): each with its own conversation, never two
conversations swapped, when providers reuse call ids, requests carry no ids, calls run in parallel or
their results come back in another order. Written by a review that had not written the rules."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from monitor.assemble.windows import WindowStore
from monitor.config import WindowConfig
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from tests.unit.spans import span

S = 1_000_000_000


def call(trace: str, messages: list[dict[str, Any]], answer: dict[str, Any], start_s: float) -> AgentSpan:
    """A root model call (an app's own tool loop, one trace per model call), no conversation id."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
             "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
    return normalize_span(span("chat", attrs, trace=trace, start_s=start_s))


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"type": "text", "content": text}]}


def asks(name: str, call_id: str | None, args: dict[str, Any]) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "tool_call", "name": name, "arguments": args}
    if call_id is not None:
        part["id"] = call_id
    return {"role": "assistant", "parts": [part]}


def result(call_id: str | None, text: str) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "tool_call_response", "response": text}
    if call_id is not None:
        part["id"] = call_id
    return {"role": "tool", "parts": [part]}


def says(text: str) -> dict[str, Any]:
    return {"role": "assistant", "parts": [{"type": "text", "content": text}]}


def groups(spans: list[AgentSpan]) -> list[list[str]]:
    store = WindowStore(WindowConfig())
    for n, s in enumerate(spans):
        store.add(s, n * S)
    closed = store.flush()
    return sorted(sorted({s.span.trace_id.rstrip("0") for s in c.conversation.spans}) for c in closed)


HELP = user("I need help with my trip to Paris.")


def test_two_conversations_whose_provider_reuses_call_ids_are_not_swapped() -> None:
    """A stub / provider that numbers calls per response (`call_1`): two conversations open alike, the
    model asks a different tool in each. Each call sent a result must continue its own conversation."""
    a_asks = asks("get_weather", "call_1", {"city": "Paris"})
    b_asks = asks("search_flights", "call_1", {"origin": "CDG"})
    spans = [
        call("a1", [HELP], a_asks, 0),
        call("b1", [HELP], b_asks, 1),
        call("b2", [HELP, b_asks, result("call_1", "flight AF022")], says("AF022 it is."), 2),
        call("a2", [HELP, a_asks, result("call_1", "sunny")], says("Sunny."), 3),
    ]
    assert groups(spans) == [["a1", "a2"], ["b1", "b2"]]


def test_a_tool_loop_whose_requests_carry_no_id_but_results_do_still_joins() -> None:
    """The assistant's calls are recorded without an id (the schema allows a null id), the results with
    one: the call sent the result continues the call that asked, as before the change."""
    a_asks = asks("get_weather", None, {"city": "Paris"})
    spans = [
        call("a1", [HELP], a_asks, 0),
        call("a2", [HELP, a_asks, result("toolu_1", "sunny")], says("Sunny."), 1),
    ]
    assert groups(spans) == [["a1", "a2"]]


def test_parallel_calls_whose_request_lists_only_some_ids_still_join() -> None:
    """Parallel calls: the assistant message asked two tools; the history's request names the ids of
    both, but the results come in the other order. (Control: no restoration should happen.)"""
    both = {
        "role": "assistant",
        "parts": [
            {"type": "tool_call", "id": "c_a", "name": "get_weather", "arguments": {"city": "Paris"}},
            {"type": "tool_call", "id": "c_b", "name": "get_weather", "arguments": {"city": "Rome"}},
        ],
    }
    spans = [
        call("a1", [HELP], both, 0),
        call("a2", [HELP, both, result("c_b", "rain"), result("c_a", "sunny")], says("ok"), 1),
    ]
    assert groups(spans) == [["a1", "a2"]]


def test_openlit_shape_with_a_fixed_id_is_never_joined_to_the_other_conversation() -> None:
    """OpenLIT's shape (results without the request that asked for them) and a provider that numbers calls
    `call_1`: the results say which id they answer, not which tool; two conversations asked for `call_1`
    after the same opening, so which one a result continues is unknown, and neither is taken (each call
    stays alone) rather than a guess that may swap them."""
    a_asks = asks("get_weather", "call_1", {"city": "Paris"})
    b_asks = asks("search_flights", "call_1", {"origin": "CDG"})
    spans = [
        call("a1", [HELP], a_asks, 0),
        call("b1", [HELP], b_asks, 1),
        call("b2", [HELP, result("call_1", "flight AF022")], says("AF022 it is."), 2),
        call("a2", [HELP, result("call_1", "sunny")], says("Sunny."), 3),
    ]
    assert groups(spans) == [["a1"], ["a2"], ["b1"], ["b2"]]
    unique = [call("a1", [HELP], a_asks, 0), call("a2", [HELP, result("call_1", "sunny")], says("Sunny."), 1)]
    assert groups(unique) == [["a1", "a2"]]  # one conversation asked for it: joined


def _race(a2_start: float, b2_start: float) -> list[list[str]]:
    """Conversations a and b (fixed id `call_1`, different tools) half a second apart; each tool takes ~1 s."""
    a_asks = asks("get_weather", "call_1", {"city": "Paris"})
    b_asks = asks("search_flights", "call_1", {"origin": "CDG"})
    spans = [
        call("a1", [HELP], a_asks, 0.0),
        call("b1", [HELP], b_asks, 0.5),
        call("a2", [HELP, a_asks, result("call_1", "sunny")], says("Sunny."), a2_start),
        call("b2", [HELP, b_asks, result("call_1", "AF022")], says("AF022."), b2_start),
    ]
    spans.sort(key=lambda s: s.span.end_ns)  # exported as they end
    return groups(spans)


def test_race_a_s_tool_finishes_first() -> None:
    assert _race(1.1, 1.6) == [["a1", "a2"], ["b1", "b2"]]


def test_race_b_s_tool_finishes_first() -> None:
    assert _race(1.6, 1.1) == [["a1", "a2"], ["b1", "b2"]]


OIMessage = tuple[str, str | None, str | None, str | None]


def _oi_call(trace: str, messages: list[OIMessage], reply: OIMessage, start_s: float) -> AgentSpan:
    """An OpenInference LLM span, its trace's root: messages as (role, content, asked tool, tool_call_id)."""
    attrs: dict[str, Any] = {"openinference.span.kind": "LLM"}
    for i, (role, content, tool, call_id) in enumerate(messages):
        p = f"llm.input_messages.{i}.message"
        attrs[f"{p}.role"] = role
        if content is not None:
            attrs[f"{p}.content"] = content
        if tool is not None:  # the assistant's call, recorded without `tool_call.id`
            attrs[f"{p}.tool_calls.0.tool_call.function.name"] = tool
            attrs[f"{p}.tool_calls.0.tool_call.function.arguments"] = '{"city": "Paris"}'
        if call_id is not None:
            attrs[f"{p}.tool_call_id"] = call_id
    role, content, tool, _ = reply
    attrs["llm.output_messages.0.message.role"] = role
    if content is not None:
        attrs["llm.output_messages.0.message.content"] = content
    if tool is not None:
        attrs["llm.output_messages.0.message.tool_calls.0.tool_call.function.name"] = tool
        attrs["llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments"] = '{"city": "Paris"}'
    return normalize_span(span("ChatCompletion", attrs, trace=trace, start_s=start_s))


def test_openinference_tool_loop_whose_calls_have_no_id_but_results_do_still_joins() -> None:
    asks_ = ("assistant", None, "get_weather", None)
    spans = [
        _oi_call("a1", [("user", "Weather in Paris?", None, None)], asks_, 0),
        _oi_call(
            "a2",
            [("user", "Weather in Paris?", None, None), asks_, ("tool", "sunny", None, "call_abc")],
            ("assistant", "Sunny.", None, None),
            1,
        ),
    ]
    assert spans[0].convention == "openinference"
    assert groups(spans) == [["a1", "a2"]]


def _twin(
    trace: str,
    messages: list[dict[str, Any]],
    answer: dict[str, Any],
    start_s: float,
    nested: bool = False,
    seconds: float = 1.0,
    conversation: str | None = None,
) -> AgentSpan:
    """A model call, named `conversation` (`gen_ai.conversation.id`) or not, from `start_s` for `seconds`; the
    root of its trace, or `nested` in a span of its trace (a framework's turn)."""
    attrs = {} if conversation is None else {"gen_ai.conversation.id": conversation}
    attrs |= {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
              "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
    made = span("chat", attrs, trace=trace, start_s=start_s, end_s=start_s + seconds)
    return normalize_span(made.model_copy(update={"parent_span_id": "ab" * 8}) if nested else made)


def test_an_unnamed_trace_recording_a_named_call_whole_at_the_same_time_joins_its_conversation() -> None:
    """Twins (a second instrumentation whose spans do not nest under the first's): the unnamed trace joins
    the named conversation, whichever comes first, and the trace that continues it joins along with it."""
    asked = asks("get_weather", "call_1", {"city": "Paris"})
    turn = [HELP, asked, result("call_1", "sunny")]
    named = [
        _twin("n1", [HELP], asked, 0, conversation="c1"),
        _twin("n1", turn, says("Sunny."), 2, conversation="c1"),
    ]
    twins = [
        _twin("u1", [HELP], asked, 0.2, seconds=0.6),
        _twin("u2", turn, says("Sunny."), 2.2, seconds=0.6),
    ]
    for order in ([*named, *twins], [*twins, *named], [twins[0], named[0], twins[1], named[1]]):
        assert groups(order) == [["n1", "u1", "u2"]]


def test_an_unnamed_call_alike_but_at_another_time_or_with_another_prompt_is_no_twin() -> None:
    """The same exchange a minute later is another conversation's (a greeting many open with); so is one at
    the same time under another system prompt (another agent)."""
    hi = says("Hello! How can I help?")
    named = _twin("n1", [user("hi")], hi, 0, conversation="c1")
    later = _twin("u1", [user("hi")], hi, 60)
    other = _twin(
        "u2",
        [{"role": "system", "parts": [{"type": "text", "content": "You sell shoes."}]}, user("hi")],
        hi,
        0.1,
    )
    assert groups([named, later, other]) == [["n1"], ["u1"], ["u2"]]


def test_with_no_name_anywhere_a_lone_second_recording_joins_the_turn_s_conversation() -> None:
    """No id at all (the app resends the conversation): the framework's model calls are inside the turn's trace,
    the second instrumentation's each a trace of its own; those join the turn's conversation, in any order."""
    asked = asks("get_weather", "call_1", {"city": "Paris"})
    turn = [HELP, asked, result("call_1", "sunny")]
    framework = [
        _twin("n1", [HELP], asked, 0, nested=True),
        _twin("n1", turn, says("Sunny."), 2, nested=True),
    ]
    seconds = [
        _twin("u1", [HELP], asked, 0.2, seconds=0.6),
        _twin("u2", turn, says("Sunny."), 2.2, seconds=0.6),
    ]
    for order in (
        [*framework, *seconds],
        [*seconds, *framework],
        [seconds[1], framework[1], seconds[0], framework[0]],
    ):
        assert groups(order) == [["n1", "u1", "u2"]]


def test_two_lone_model_calls_alike_at_once_are_two_conversations() -> None:
    """An app's tool loop, each model call a trace of its own, no id: two users greeted alike at the same
    moment are two conversations, not one call recorded twice."""
    hi = says("Hello! How can I help?")
    assert groups([_twin("a1", [user("hi")], hi, 0), _twin("b1", [user("hi")], hi, 0.1)]) == [["a1"], ["b1"]]


def test_a_lone_recording_joins_only_the_call_whose_time_holds_it() -> None:
    """Two users asked alike a moment apart (both named): a lone recording inside one call's time joins that
    conversation; one inside both (it cannot say whose) joins neither."""
    hi = says("Hello! How can I help?")
    a = _twin("a1", [user("hi")], hi, 0, conversation="c1")
    b = _twin("b1", [user("hi")], hi, 0.5, conversation="c2")
    inside_a = _twin("u1", [user("hi")], hi, 0.1, seconds=0.3)
    inside_both = _twin("u2", [user("hi")], hi, 0.6, seconds=0.3)
    assert groups([a, b, inside_a, inside_both]) == [["a1", "u1"], ["b1"], ["u2"]]


@pytest.mark.parametrize("seed", range(40))
def test_every_span_of_second_recordings_is_reported_once_under_evictions_and_late_arrivals(
    seed: int,
) -> None:
    """Two conversations, each call recorded again as a lone trace, in a random order, a few spans at a time,
    with room for one open conversation and time passing: whatever joins, every span is in exactly one
    conversation's latest report."""
    rnd = random.Random(seed)
    spans = []
    for cid, city in (("c1", "Paris"), ("c2", "Rome")):
        asked = asks("get_weather", f"call_{cid}", {"city": city})
        turn = [HELP, asked, result(f"call_{cid}", "sunny")]
        for n, (history, answer) in enumerate(((([HELP]), asked), (turn, says("Sunny.")))):
            spans.append(_twin(f"{cid}n", history, answer, 2 * n, nested=True, conversation=cid))
            spans.append(_twin(f"{cid}u{n}", history, answer, 2 * n + 0.2, seconds=0.6))
    rnd.shuffle(spans)
    store = WindowStore(WindowConfig(max_open=rnd.choice([1, 2, 8]), inactivity_s=5))
    closed, now = [], 0
    while spans:
        n = rnd.randint(1, 3)
        for s in spans[:n]:
            closed += store.add(s, now * S)
        del spans[:n]
        closed += store.close_marked()
        now += rnd.choice([0, 1, 10])
        closed += store.advance(now * S)
    closed += store.flush()
    latest: dict[str, Any] = {}
    for c in closed:
        conv = c.conversation
        if conv.conversation_id not in latest or conv.version >= latest[conv.conversation_id].version:
            latest[conv.conversation_id] = conv
    ids = [s.span.span_id for conv in latest.values() for s in conv.spans]
    assert len(ids) == len(set(ids)) == 8


def test_a_turn_whose_lone_recording_was_joined_by_history_first_still_joins_its_conversation() -> None:
    """No id anywhere; calls recorded twice. A turn's lone recording, whose call's own span comes more than
    `second_recording_wait_s` later (a slow export), is joined by the history it resends in the meantime and
    takes that history; the turn's trace, when it comes, still joins the conversation, not one of its own."""
    asked = asks("get_weather", "call_1", {"city": "Paris"})
    turn2 = [HELP, asked, result("call_1", "sunny"), says("Sunny."), user("Thanks!")]
    store = WindowStore(WindowConfig(inactivity_s=60))
    answered = [HELP, asked, result("call_1", "sunny")]
    first = [
        _twin("t1", [HELP], asked, 0, nested=True),
        _twin("u1", [HELP], asked, 0.2, seconds=0.6),
        _twin("t1", answered, says("Sunny."), 2, nested=True),
        _twin("v1", answered, says("Sunny."), 2.2, seconds=0.6),
    ]
    closed = [c for s in first for c in store.add(s, 4 * S)] + store.close_marked()
    closed += store.advance(5 * S)
    closed += store.add(_twin("u2", turn2, says("Bye."), 10.2, seconds=0.6), 11 * S) + store.close_marked()
    closed += store.advance(20 * S)  # past the wait: u2 is joined by its history
    closed += store.add(_twin("t2", turn2, says("Bye."), 10, nested=True), 21 * S) + store.close_marked()
    closed += store.flush()
    assert sorted(sorted({s.span.trace_id.rstrip("0") for s in c.conversation.spans}) for c in closed) == [
        ["t1", "t2", "u1", "u2", "v1"]
    ]
