"""Which call a tool result answers, as instrumentations write them: with the call's id, without one, or with an
id the instrumentation made up. The whole recorded runs are in tests/golden/test_frameworks.py."""

from __future__ import annotations

import json
from typing import Any

from monitor.assemble.transcript import build_transcript
from monitor.normalize import normalize_span
from tests.unit.spans import span


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _asks(*calls: tuple[str, dict[str, Any]], said: str | None = None) -> dict[str, Any]:
    """The model's content as opentelemetry-instrumentation-google-genai writes it when the API gave the calls no
    id: each call numbered `{name}_{index of its part}` (message.py `_to_part`)."""
    parts: list[dict[str, Any]] = [{"type": "text", "content": said}] if said is not None else []
    for name, args in calls:
        parts.append({"type": "tool_call", "id": f"{name}_{len(parts)}", "name": name, "arguments": args})
    return {"role": "assistant", "parts": parts}


def _answers(*results: tuple[str, Any]) -> dict[str, Any]:
    """The SDK's automatic function calling answers in the calls' order; responses numbered by part index too."""
    return {"role": "user", "parts": [
        {"type": "tool_call_response", "id": f"{name}_{i}", "response": {"result": json.dumps(value)}}
        for i, (name, value) in enumerate(results)
    ]}  # fmt: skip


def _google_genai(history: list[dict[str, Any]], reply: str) -> Any:
    attrs = {
        "gen_ai.operation.name": "generate_content", "gen_ai.provider.name": "gemini",
        "gen_ai.input.messages": json.dumps(history), "gen_ai.output.messages": json.dumps([_text("assistant", reply)]),
    }  # fmt: skip
    return normalize_span(
        span("generate_content gemini", attrs, scope="opentelemetry.instrumentation.google_genai")
    )


def test_a_numbered_result_id_an_earlier_request_used_does_not_take_the_result_from_the_call_it_answers() -> (
    None
):
    """Turn 1 asked get_weather(Rome) as part 0 (`get_weather_0`); turn 2 the model says a word before two
    get_weather calls (`get_weather_1`, `get_weather_2`) and the SDK answers them as `get_weather_0`,
    `get_weather_1`. The first id names Rome's call, the second Paris's: London's result goes to Paris and
    London gets none, though the protocol's order (which 89f9f3a applies to ids no call has) says which is which."""
    history = [
        _text("user", "Weather in Rome?"),
        _asks(("get_weather", {"city": "Rome"})),
        _answers(("get_weather", {"city": "Rome", "temp_c": 15})),
        _text("assistant", "15 C in Rome."),
        _text("user", "And Paris and London?"),
        _asks(("get_weather", {"city": "Paris"}), ("get_weather", {"city": "London"}), said="Checking both."),
        _answers(
            ("get_weather", {"city": "Paris", "temp_c": 21}),
            ("get_weather", {"city": "London", "temp_c": 12}),
        ),
    ]
    calls = [
        t
        for t in build_transcript([_google_genai(history, "21 C in Paris, 12 C in London.")])
        if t.kind == "call"
    ]
    got = {t.arguments["city"]: t.result for t in calls}
    assert got == {
        "Rome": {"city": "Rome", "temp_c": 15},
        "Paris": {"city": "Paris", "temp_c": 21},
        "London": {"city": "London", "temp_c": 12},
    }


def test_words_beside_tool_results_in_one_user_message_stay_the_user_s() -> None:
    """Anthropic's form: the results of the calls and the user's next words in one user message."""
    history = [
        _text("user", "Weather in Rome?"),
        _asks(("get_weather", {"city": "Rome"})),
        {
            "role": "user",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": "get_weather_0",
                    "response": {"result": '{"temp_c": 15}'},
                },
                {"type": "text", "content": "Actually, and Paris?"},
            ],
        },
    ]
    turns = build_transcript([_google_genai(history, "15 C in Rome.")])
    assert sorted(t.text or "" for t in turns if t.kind == "user") == [
        "Actually, and Paris?",
        "Weather in Rome?",
    ]
    assert [t.result for t in turns if t.kind == "call"] == [{"temp_c": 15}]
