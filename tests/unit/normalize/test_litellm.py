"""LiteLLM's OpenTelemetry callback, in the shapes litellm 1.110 writes (the whole runs, recorded, are in
tests/golden/test_frameworks.py: `litellm`, `litellm-request-span`, `litellm-semconv`, `litellm-noid`,
`litellm-no-content`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.assemble.history import history_keys
from monitor.assemble.transcript import build_transcript
from monitor.assemble.windows import WindowStore
from monitor.config import WindowConfig
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from tests.unit.spans import span

SYSTEM = {"role": "system", "parts": [{"type": "text", "content": "You are a travel assistant."}]}
USER = {"role": "user", "parts": [{"type": "text", "content": "What's the weather in Paris today?"}]}
# LiteLLM's messages: GenAI parts, with the OpenAI chat fields beside them
ASKED: dict[str, Any] = {"role": "assistant", "parts": [{"type": "text", "content": ""}], "tool_calls": [
    {"function": {"arguments": '{"city": "Paris"}', "name": "get_weather"}, "id": "call_1", "type": "function"}]}  # fmt: skip
RESULT = {"role": "tool", "parts": [{"type": "text", "content": '{"temp_c": 21}'}], "tool_call_id": "call_1"}
CALLS = {"role": "assistant", "parts": [], "finish_reason": "tool_calls"}  # an answer that called a tool
SAYS = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny, 21 C."}], "finish_reason": "stop"}
ASKS_WEATHER = {
    "gen_ai.completion.0.function_call.name": "get_weather",
    "gen_ai.completion.0.function_call.arguments": '{"city": "Paris"}',
}


def litellm_call(
    messages: list[dict[str, Any]],
    answer: dict[str, Any],
    extra: dict[str, str] | None = None,
    *,
    trace: str = "t1",
    start_s: float = 0.0,
) -> AgentSpan:
    attrs = {
        "litellm.call_id": "6db43132", "litellm.provider.model": "openai/gpt-4o", "llm.request.type": "completion",
        "gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages),
        "gen_ai.output.messages": json.dumps([answer]),
        "llm.request.functions.0.name": "get_weather", "llm.request.functions.0.description": "",
        "llm.request.functions.0.parameters": '{"type": "object", "properties": {"city": {"type": "string"}}}',
        **(extra or {}),
    }  # fmt: skip
    return normalize_span(span("litellm_request", attrs, trace=trace, start_s=start_s, scope="litellm"))


def test_the_openai_fields_beside_the_parts_are_the_calls_and_the_call_a_result_answers() -> None:
    s = litellm_call([SYSTEM, USER, ASKED, RESULT], SAYS)
    assert (s.convention, s.kind) == ("litellm", "llm")
    assert [(m.role, m.text, m.tool_call_id) for m in s.input_messages] == [
        ("system", "You are a travel assistant.", None), ("user", "What's the weather in Paris today?", None),
        ("assistant", None, None), ("tool", '{"temp_c": 21}', "call_1"),
    ]  # fmt: skip
    assert [(c.call_id, c.name, c.arguments) for c in s.input_messages[2].tool_calls] == [
        ("call_1", "get_weather", {"city": "Paris"})
    ]
    assert [(m.text, m.tool_calls) for m in s.output_messages] == [("Sunny, 21 C.", ())]
    assert s.tool_definitions == {
        "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}}
    }


def test_an_answer_that_called_a_tool_is_read_from_the_function_call_keys() -> None:
    """The output message of a call that asked for a tool has empty parts; the call is in
    `gen_ai.completion.0.function_call.*`, without its id."""
    s = litellm_call([SYSTEM, USER], CALLS, ASKS_WEATHER)
    assert [[(c.call_id, c.name, c.arguments) for c in m.tool_calls] for m in s.output_messages] == [
        [(None, "get_weather", {"city": "Paris"})]
    ]


def test_a_function_call_an_earlier_call_left_on_the_app_s_span_is_not_read_beside_a_reply() -> None:
    """Inside an app's span LiteLLM writes each call onto that span: the turn's reply overwrites the messages,
    while the first call's `function_call` keys stay. The reply is what the span answered."""
    s = litellm_call([SYSTEM, USER, ASKED, RESULT], SAYS, ASKS_WEATHER)
    assert [(m.text, m.tool_calls) for m in s.output_messages] == [("Sunny, 21 C.", ())]


def test_the_raw_request_span_and_calls_that_are_no_model_answer_are_carried_unread() -> None:
    """`raw_gen_ai_request` repeats the call's request and response as Python reprs; an embedding call answers
    no messages. Neither is agent activity, nor a tool call no adapter could read."""
    raw = normalize_span(span("raw_gen_ai_request", {
        "llm.openai.messages": "[{'role': 'user', 'content': 'Hi'}]", "llm.openai.tools": "[{'type': 'function'}]",
    }, scope="litellm"))  # fmt: skip
    assert (raw.convention, raw.kind, raw.input_messages, raw.unread_tool) == ("litellm", "other", (), None)
    embedding = litellm_call([USER], SAYS, {"llm.request.type": "embedding"})
    assert (embedding.kind, embedding.output_messages) == ("other", ())


def test_a_call_read_without_its_id_and_then_with_it_is_one_call() -> None:
    """The first call's answer names `get_weather` without an id; the next call's history shows it with its
    id and result: one call, with that id and result. The same call made again is a second call."""
    asks = litellm_call([SYSTEM, USER], CALLS, ASKS_WEATHER, start_s=0)
    answers = litellm_call([SYSTEM, USER, ASKED, RESULT], SAYS, start_s=1)
    calls = [t for t in build_transcript([asks, answers]) if t.kind == "call"]
    assert [(t.call_id, t.tool, t.arguments, t.result) for t in calls] == [
        ("call_1", "get_weather", {"city": "Paris"}, {"temp_c": 21})
    ]
    again_user = {"role": "user", "parts": [{"type": "text", "content": "And now?"}]}
    history = [SYSTEM, USER, ASKED, RESULT, SAYS, again_user]
    asks_again = litellm_call(history, CALLS, ASKS_WEATHER, start_s=2)
    second = {**ASKED, "tool_calls": [{**ASKED["tool_calls"][0], "id": "call_2"}]}
    answers_again = litellm_call([*history, second, {**RESULT, "tool_call_id": "call_2"}], SAYS, start_s=3)
    calls = [t for t in build_transcript([asks, answers, asks_again, answers_again]) if t.kind == "call"]
    assert sorted(str(t.call_id) for t in calls) == ["call_1", "call_2"]


def test_a_call_after_tool_results_continues_the_answer_that_named_the_calls_without_their_ids() -> None:
    """One trace per model call and no conversation id: the answer that asked for the tool carries no call
    id, the next call's history shows the request with it. The digests with every id left out tie them
    (`loose`), which only an answer with calls lacking ids offers."""
    asks = history_keys(litellm_call([SYSTEM, USER], CALLS, ASKS_WEATHER, trace="a1"))
    answers = history_keys(litellm_call([SYSTEM, USER, ASKED, RESULT], SAYS, trace="a2"))
    assert answers.continues != asks.state and answers.continues_loose == asks.loose is not None
    with_ids = history_keys(litellm_call([SYSTEM, USER], ASKED, trace="a1"))
    assert with_ids.loose is None and answers.continues == with_ids.state


def _oi_message(
    n: int, role: str, content: str | None = None, calls: tuple[tuple[str, str], ...] = ()
) -> dict[str, str]:
    """OpenInference's flattened `llm.input_messages.N`; `calls`: (id, city) of `get_weather` calls."""
    out = {f"llm.input_messages.{n}.message.role": role}
    if content is not None:
        out[f"llm.input_messages.{n}.message.content"] = content
    for i, (call_id, city) in enumerate(calls):
        prefix = f"llm.input_messages.{n}.message.tool_calls.{i}.tool_call"
        out |= {f"{prefix}.id": call_id, f"{prefix}.function.name": "get_weather",
                f"{prefix}.function.arguments": json.dumps({"city": city})}  # fmt: skip
    return out


def test_tool_messages_without_a_call_id_answer_the_request_s_calls_in_order() -> None:
    """OpenInference's LiteLLM instrumentation writes the tool messages of a history without their
    `tool_call_id`: as the chat protocol orders them, they answer the calls of the request before them."""
    attrs = {
        "openinference.span.kind": "LLM", **_oi_message(0, "user", "Weather in Paris and Rome?"),
        **_oi_message(1, "assistant", calls=(("c1", "Paris"), ("c2", "Rome"))),
        **_oi_message(2, "tool", '{"temp_c": 21}'), **_oi_message(3, "tool", '{"temp_c": 17}'),
        "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": "21 and 17.",
    }  # fmt: skip
    calls = [t for t in build_transcript([normalize_span(span("completion", attrs))]) if t.kind == "call"]
    assert sorted((str(t.call_id), t.arguments["city"], t.result["temp_c"]) for t in calls) == [
        ("c1", "Paris", 21),
        ("c2", "Rome", 17),
    ]


S = 1_000_000_000


def _conversations(*spans: AgentSpan) -> list[list[str]]:
    """The traces of each conversation a store makes of `spans`, added one a second in this order."""
    store = WindowStore(WindowConfig())
    for n, s in enumerate(spans):
        store.add(s, n * S)
    return sorted(sorted({s.span.trace_id[:2] for s in c.conversation.spans}) for c in store.flush())


#: an answer with words beside its call: LiteLLM keeps the words in the parts, the call in function_call keys
SAID = {
    "role": "assistant",
    "parts": [{"type": "text", "content": "Let me check."}],
    "finish_reason": "tool_calls",
}
ASKED_SAID = {**ASKED, "parts": [{"type": "text", "content": "Let me check."}]}


def test_words_beside_a_call_keep_the_call_and_the_next_call_continues_it() -> None:
    s = litellm_call([SYSTEM, USER], SAID, ASKS_WEATHER)
    assert [(m.text, [c.name for c in m.tool_calls]) for m in s.output_messages] == [
        ("Let me check.", ["get_weather"])
    ]
    asks = litellm_call([SYSTEM, USER], SAID, ASKS_WEATHER, trace="a1", start_s=0)
    answers = litellm_call([SYSTEM, USER, ASKED_SAID, RESULT], SAYS, trace="a2", start_s=5)
    assert _conversations(asks, answers) == [["a1", "a2"]]


def test_a_message_whose_content_was_a_list_keeps_its_text() -> None:
    """LiteLLM copies OpenAI content parts over as they are (`{"type": "text", "text": …}`): list content,
    as prompt caching and images send it."""
    listed = {"role": "user", "parts": [
        {"type": "text", "text": "What's the weather in Paris today?", "cache_control": {"type": "ephemeral"}}]}  # fmt: skip
    s = litellm_call([SYSTEM, listed], SAYS)
    assert [(m.role, m.text) for m in s.input_messages][1] == ("user", "What's the weather in Paris today?")
    assert [t.text for t in build_transcript([s]) if t.kind == "user"] == [
        "What's the weather in Paris today?"
    ]


NEW_YORK = {"role": "user", "parts": [{"type": "text", "content": "Find me a flight to New York tomorrow."}]}


def _search(dest: str) -> dict[str, str]:
    return {"gen_ai.completion.0.function_call.name": "search_flights",
            "gen_ai.completion.0.function_call.arguments": json.dumps({"destination": dest})}  # fmt: skip


def _asked(call_id: str, dest: str) -> dict[str, Any]:
    fn = {"name": "search_flights", "arguments": json.dumps({"destination": dest})}
    return {"role": "assistant", "parts": [{"type": "text", "content": ""}],
            "tool_calls": [{"id": call_id, "type": "function", "function": fn}]}  # fmt: skip


def test_a_history_continues_the_conversation_whose_call_had_its_arguments() -> None:
    """Two conversations opened with the same words, no ids anywhere: the one whose call the next history shows
    (by its arguments) is continued, not the one that came first."""
    y1 = litellm_call([SYSTEM, NEW_YORK], CALLS, _search("EWR"), trace="y1", start_s=0)
    x1 = litellm_call([SYSTEM, NEW_YORK], CALLS, _search("JFK"), trace="x1", start_s=1)
    result = {
        "role": "tool",
        "parts": [{"type": "text", "content": '{"flight": "AF022"}'}],
        "tool_call_id": "call_x",
    }
    x2 = litellm_call([SYSTEM, NEW_YORK, _asked("call_x", "JFK"), result], SAYS, trace="x2", start_s=5)
    assert _conversations(y1, x1, x2) == [["x1", "x2"], ["y1"]]


def test_the_same_call_made_again_under_a_reused_id_keeps_its_own_result() -> None:
    """A provider that numbers calls `call_1` in every answer, and the same call made again."""
    again = {"role": "user", "parts": [{"type": "text", "content": "And now?"}]}
    later = {**RESULT, "parts": [{"type": "text", "content": '{"temp_c": 25}'}]}
    history = [SYSTEM, USER, ASKED, RESULT, SAYS, again]
    spans = [
        litellm_call([SYSTEM, USER], CALLS, ASKS_WEATHER, start_s=0),
        litellm_call([SYSTEM, USER, ASKED, RESULT], SAYS, start_s=1),
        litellm_call(history, CALLS, ASKS_WEATHER, start_s=2),
        litellm_call([*history, ASKED, later], SAYS, start_s=3),  # call_1 again, same tool and arguments
    ]
    calls = [t for t in build_transcript(spans) if t.kind == "call"]
    assert [t.result for t in calls] == [{"temp_c": 21}, {"temp_c": 25}]


@pytest.mark.parametrize(
    "call_type", ["delete_responses", "aget_responses", "cancel_responses", "aget_messages"]
)
def test_litellm_calls_that_answer_no_messages_are_no_model_calls(call_type: str) -> None:
    assert litellm_call([SYSTEM, USER], SAYS, {"llm.request.type": call_type}).kind == "other"


def test_a_responses_api_item_that_is_no_message_is_no_user_message() -> None:
    """LiteLLM writes a Responses API request's `function_call` / `function_call_output` items as empty user
    messages: no turn, and no newest user message for the history join to start from."""
    empty = {"role": "user", "parts": []}
    s = litellm_call([SYSTEM, USER, empty, empty], SAYS, {"llm.request.type": "aresponses"})
    assert [(m.role, m.text) for m in s.input_messages] == [
        ("system", "You are a travel assistant."),
        ("user", "What's the weather in Paris today?"),
    ]


def test_a_responses_api_answer_resent_in_the_history_keeps_its_text() -> None:
    """`litellm.responses` resends the model's earlier `message` items as they are, their text in `output_text`
    parts (as recorded with LiteLLM 1.110.2): the reply is read from the history too, not only from the answer
    that first said it (what an instrumentation that records no answer, or a history join, reads)."""
    said = {"role": "assistant", "id": "msg_stub0002", "parts": [
        {"annotations": [], "text": "It is sunny and 21 degrees in Paris today.", "type": "output_text"}]}  # fmt: skip
    s = litellm_call([SYSTEM, USER, said, NEW_YORK], SAYS, {"llm.request.type": "responses"})
    assert [(m.role, m.text) for m in s.input_messages][2] == (
        "assistant", "It is sunny and 21 degrees in Paris today.",
    )  # fmt: skip


def test_an_answer_with_only_a_function_call_keeps_its_call_whatever_its_finish_reason() -> None:
    """Ollama through LiteLLM (before litellm#18924), Gemini's and vLLM's OpenAI-compatible endpoints answer a tool
    call with finish_reason `stop`. The output message says nothing and the call is only in the function_call keys:
    before dbeb36c it was read (outputs empty), now the finish reason alone decides and the call vanishes."""
    s = litellm_call(
        [SYSTEM, USER], {"role": "assistant", "parts": [], "finish_reason": "stop"}, ASKS_WEATHER
    )
    assert [[(c.name, c.arguments) for c in m.tool_calls] for m in s.output_messages] == [
        [("get_weather", {"city": "Paris"})]
    ]
