"""Which partition a trace without a conversation id goes to in Kafka (history.opening_key): every
trace of a conversation to the same one; and which earlier model call a call continues
(history.history_keys)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.assemble.history import history_keys, opening_key
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from tests.unit.assemble.test_windows import chat
from tests.unit.spans import span

PARIS = [("system", "Be brief."), ("user", "Weather in Paris?"), ("assistant", "Sunny.")]


def test_every_trace_of_a_conversation_has_the_key_of_its_opening() -> None:
    first = [chat("a1", PARIS[:2], "Sunny.", 0)]
    # a later turn: its main call resends the history; a guardrail call sees only the newest message
    guardrail = chat("a2", [("user", "And Rome?")], "ok", 5, child=True)
    later = [guardrail, chat("a2", [*PARIS, ("user", "And Rome?")], "Rain.", 5)]
    assert opening_key(first) == opening_key(later) == opening_key(later[::-1])
    assert opening_key(first) != opening_key([chat("b1", [("user", "Weather in Oslo?")], "Snow.", 0)])


def test_the_system_prompt_rebuilt_per_call_does_not_move_a_conversation() -> None:
    other_prompt = [("system", "Today is Monday. Be brief."), *PARIS[1:2]]
    assert opening_key([chat("a1", PARIS[:2], "Sunny.", 0)]) == opening_key(
        [chat("a1", other_prompt, "Sunny.", 0)]
    )


def test_a_trace_that_shows_no_input_has_no_key() -> None:
    assert opening_key([]) is None


def call(messages: list[dict[str, Any]], answer: dict[str, Any], trace: str, root: bool = True) -> AgentSpan:
    """A model call of an app's own tool loop (the trace's root) or of a framework (under its root)."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
             "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
    model_call = span("chat", attrs, trace=trace, start_s=0)
    return normalize_span(model_call if root else model_call.model_copy(update={"parent_span_id": "ff" * 8}))


USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}
ASKS = {"role": "assistant", "parts": [{"type": "tool_call", "id": "toolu_1", "name": "get_weather",
                                        "arguments": {"city": "Paris"}}]}  # fmt: skip
RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "toolu_1", "response": "sunny"}]}
SAYS = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}


def test_a_root_model_call_after_tool_results_continues_the_call_that_asked_for_them() -> None:
    """One trace per model call (an app's tool loop, no framework span): the call sent the tool's result
    continues the call that asked for it — under a framework's root span it does not (its trace's earlier
    call is its own), and a prefill (an assistant message last) keeps the newest-user-message rule."""
    first = history_keys(call([USER], ASKS, "a1"))
    after = call([USER, ASKS, RESULT], SAYS, "a2")
    assert history_keys(after).continues == first.state is not None
    assert history_keys(call([USER, ASKS, RESULT], SAYS, "a2", root=False)).continues is None
    rome = {"role": "user", "parts": [{"type": "text", "content": "And Rome?"}]}
    prefill = {"role": "assistant", "parts": [{"type": "text", "content": "{"}]}
    before_rome = history_keys(call([USER], SAYS, "b1")).state
    assert history_keys(call([USER, SAYS, rome], SAYS, "b2")).continues == before_rome
    assert history_keys(call([USER, SAYS, rome, prefill], SAYS, "b2")).continues == before_rome


def test_a_history_that_leaves_out_the_tool_request_still_continues_the_call_that_asked() -> None:
    """OpenLIT records the results a call was sent but not the assistant message that asked for them: the
    request is put back by its call id, so the call sent the result continues the one that asked (by the
    digest that counts calls by their ids, `asked`), and the next turn's call continues that one. A
    result no call asked for (another id) continues nothing; nor does a request shown without ids."""
    asked = history_keys(call([USER], ASKS, "a1"))
    left_out = history_keys(call([USER, RESULT], SAYS, "a2"))
    assert left_out.continues == asked.asked is not None and asked.asked != asked.state
    assert history_keys(call([USER, ASKS, RESULT], SAYS, "a2")).continues == asked.state  # shown: as before
    rome = {"role": "user", "parts": [{"type": "text", "content": "And Rome?"}]}
    assert history_keys(call([USER, RESULT, SAYS, rome], SAYS, "a3")).continues == left_out.state
    other = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "toolu_9", "response": "sunny"}]}
    assert history_keys(call([USER, other], SAYS, "a2")).continues != asked.asked
    no_id = {"role": "assistant", "parts": [{"type": "tool_call", "name": "get_weather", "arguments": {}}]}
    assert (
        history_keys(call([USER, no_id, RESULT], SAYS, "a2")).continues
        == history_keys(call([USER], no_id, "a1")).state
    )  # the request is there, without an id: nothing is put back


@pytest.mark.parametrize("words", ["", "One moment."])
def test_two_calls_in_a_turn_continue_though_the_history_left_the_requests_out(words: str) -> None:
    """OpenLIT drops an assistant message's calls, and the message with them unless it has words (those it
    keeps): two calls one after the other leave their results side by side, as if one request had asked
    for both, or each after the words said beside it. Each call still continues the one that asked for
    what it was sent, and the next turn continues the reply."""
    said = [{"type": "text", "content": words}] if words else []
    kept = [{"role": "assistant", "parts": said}] if words else []
    rome = {"type": "tool_call", "id": "toolu_2", "name": "get_weather", "arguments": {"city": "Rome"}}
    again = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "toolu_2", "response": "rain"}]}
    first = history_keys(call([USER], {"role": "assistant", "parts": [*said, ASKS["parts"][0]]}, "a1"))
    second = history_keys(call([USER, *kept, RESULT], {"role": "assistant", "parts": [*said, rome]}, "a2"))
    third = history_keys(call([USER, *kept, RESULT, *kept, again], SAYS, "a3"))
    assert second.continues == first.asked is not None
    assert third.continues == second.asked is not None and second.continues != third.continues
    next_turn = {"role": "user", "parts": [{"type": "text", "content": "And Rome?"}]}
    history = [USER, *kept, RESULT, *kept, again, SAYS, next_turn]
    assert history_keys(call(history, SAYS, "a4")).continues == third.state


def test_a_call_whose_answer_was_not_recorded_is_continued_by_the_history_that_shows_the_answer() -> None:
    """OpenLLMetry's OpenAI Agents instrumentation records a model call's input and not its answer: the next
    turn's history shows that answer, and continues the call by what it saw (`unanswered`); a call that
    recorded its answer offers no such digest."""
    unrecorded = normalize_span(span("chat", {"gen_ai.operation.name": "chat",
                                              "gen_ai.input.messages": json.dumps([USER])}))  # fmt: skip
    first = history_keys(unrecorded)
    rome = {"role": "user", "parts": [{"type": "text", "content": "And Rome?"}]}
    later = history_keys(call([USER, SAYS, rome], SAYS, "b2"))
    assert later.continues != first.state and later.continues_unanswered == first.unanswered is not None
    assert history_keys(call([USER], SAYS, "b1")).unanswered is None
