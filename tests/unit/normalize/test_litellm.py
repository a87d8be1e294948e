"""LiteLLM's OpenTelemetry callback, in the shapes litellm 1.110 writes (the whole runs, recorded, are in
tests/golden/test_frameworks.py: `litellm`, `litellm-request-span`, `litellm-semconv`, `litellm-noid`,
`litellm-no-content`)."""

from __future__ import annotations

import json
from typing import Any

from monitor.assemble.history import history_keys
from monitor.assemble.transcript import build_transcript
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
