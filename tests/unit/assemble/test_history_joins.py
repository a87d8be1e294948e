"""Which traces of an app's own tool loop (each model call a root trace of its own, no conversation id) the
window store joins by their histories (assemble/history.py): each with its own conversation, never two
conversations swapped, when providers reuse call ids, requests carry no ids, calls run in parallel or
their results come back in another order. Written by a review that had not written the rules."""

from __future__ import annotations

import json
from typing import Any

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
    trace: str, messages: list[dict[str, Any]], answer: dict[str, Any], start_s: float, **attrs: Any
) -> AgentSpan:
    """A model call, named by `attrs` (`gen_ai.conversation.id`) or not, from `start_s` for a second."""
    attrs |= {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
              "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
    return normalize_span(span("chat", attrs, trace=trace, start_s=start_s, end_s=start_s + 1))


NAMED = {"gen_ai.conversation.id": "c1"}


def test_an_unnamed_trace_recording_a_named_call_whole_at_the_same_time_joins_its_conversation() -> None:
    """Twins (a second instrumentation whose spans do not nest under the first's): the unnamed trace joins
    the named conversation, whichever comes first, and the trace that continues it joins along with it."""
    asked = asks("get_weather", "call_1", {"city": "Paris"})
    turn = [HELP, asked, result("call_1", "sunny")]
    named = [_twin("n1", [HELP], asked, 0, **NAMED), _twin("n1", turn, says("Sunny."), 2, **NAMED)]
    twins = [_twin("u1", [HELP], asked, 0.2), _twin("u2", turn, says("Sunny."), 2.2)]
    for order in ([*named, *twins], [*twins, *named], [twins[0], named[0], twins[1], named[1]]):
        assert groups(order) == [["n1", "u1", "u2"]]


def test_an_unnamed_call_alike_but_at_another_time_or_with_another_prompt_is_no_twin() -> None:
    """The same exchange a minute later is another conversation's (a greeting many open with); so is one at
    the same time under another system prompt (another agent)."""
    hi = says("Hello! How can I help?")
    named = _twin("n1", [user("hi")], hi, 0, **NAMED)
    later = _twin("u1", [user("hi")], hi, 60)
    other = _twin(
        "u2",
        [{"role": "system", "parts": [{"type": "text", "content": "You sell shoes."}]}, user("hi")],
        hi,
        0.1,
    )
    assert groups([named, later, other]) == [["n1"], ["u1"], ["u2"]]
