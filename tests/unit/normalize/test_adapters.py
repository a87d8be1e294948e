"""Adapter paths the recorded fixtures do not cover, on hand-built spans."""

from __future__ import annotations

import json

from monitor.config import NormalizeConfig
from monitor.normalize import normalize_span
from tests.unit.spans import span


def test_genai_v136_events_and_attributes() -> None:
    s = span(
        "chat m",
        {"gen_ai.operation.name": "chat", "gen_ai.conversation.id": "c9", "gen_ai.agent.version": "2.0"},
        events=[
            ("gen_ai.user.message", {"content": "where is A123?"}),
            (
                "gen_ai.choice",
                {
                    "message": "",
                    "tool_calls": '[{"id": "k1", "function": {"name": "track", "arguments": "{\\"id\\": \\"A123\\"}"}}]',
                },
            ),
        ],
    )
    n = normalize_span(s)
    assert (n.convention, n.kind, n.conversation_id, n.release) == ("genai", "llm", "c9", "2.0")
    assert n.input_messages[0].text == "where is A123?"
    assert n.output_messages[0].tool_calls[0].arguments == {"id": "A123"}


def test_tool_arguments_that_are_not_json_are_kept_and_explained() -> None:
    s = span(
        "execute_tool track",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "track",
            "gen_ai.tool.call.arguments": "{id: A123",
            "error.type": "TimeoutError",
        },
        status="ERROR",
    )
    tool = normalize_span(s).tool
    assert (
        tool is not None
        and tool.arguments == "{id: A123"
        and "not valid JSON" in (tool.arguments_error or "")
    )
    assert tool.error == "TimeoutError"


def test_tool_arguments_read_as_json_keep_every_value_exactly() -> None:
    """JSON in attributes is read the standard library's way: an id past 64 bits stays that integer
    (not a rounded float), NaN stays NaN, and broken JSON is explained with its column."""
    big = 123456789012345678901234567890
    s = span(
        "execute_tool pay",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "pay",
            "gen_ai.tool.call.arguments": f'{{"order": {big}, "ratio": NaN, "note": "caf\\u00e9"}}',
            "gen_ai.tool.call.result": f'{{"paid": [{big}, 1.5]}}',
        },
    )
    tool = normalize_span(s).tool
    assert tool is not None and tool.arguments_error is None
    assert tool.arguments["order"] == big and type(tool.arguments["order"]) is int
    assert tool.arguments["ratio"] != tool.arguments["ratio"]  # NaN
    assert tool.arguments["note"] == "café"
    assert tool.result == {"paid": [big, 1.5]}
    deep = span(  # deep in records, beside no other float: still that integer
        "execute_tool list",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.result": f'{{"orders": [{{"lines": [{{"sku": "A1"}}, {{"id": {big}}}]}}]}}',
        },
    )
    listed = normalize_span(deep).tool
    assert listed is not None and listed.result["orders"][0]["lines"][1]["id"] == big
    assert type(listed.result["orders"][0]["lines"][1]["id"]) is int
    broken = span(
        "execute_tool pay",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.arguments": '{"a": 1,}'},
    )
    explained = normalize_span(broken).tool
    assert explained is not None and "column 9" in (explained.arguments_error or "")


def test_json_past_what_can_be_read_is_kept_as_text_and_explained() -> None:
    """A tool result nested thousands deep and arguments holding a 5,000-digit number are JSON no reader
    takes: the span is still read (its conversation scored), the result kept as its text, the arguments
    as written with the reason — not the whole span unreadable."""
    deep = "[" * 3000 + "]" * 3000
    s = span(
        "execute_tool t",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "t",
            "gen_ai.tool.call.arguments": '{"n": ' + "1" * 5000 + ', "x": 1.5}',
            "gen_ai.tool.call.result": deep,
        },
    )
    read = normalize_span(s)
    assert read.unreadable is None and read.tool is not None and read.tool.result == deep
    assert read.tool.arguments == '{"n": ' + "1" * 5000 + ', "x": 1.5}'
    assert "could not be read as JSON" in (read.tool.arguments_error or "")


def test_traceloop_sdk_tool_span_and_legacy_prompt_attributes() -> None:
    tool = normalize_span(
        span(
            "track.tool",
            {
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "track",
                "traceloop.entity.input": '{"args": [], "kwargs": {"id": "A123"}}',
                "traceloop.entity.output": '{"status": "late"}',
                "traceloop.association.properties.session_id": "s1",
                "traceloop.association.properties.aem.reference_id": "g1",
            },
        )
    )
    assert (tool.convention, tool.kind, tool.conversation_id, tool.reference_id) == (
        "traceloop",
        "tool",
        "s1",
        "g1",
    )
    assert (
        tool.tool is not None
        and tool.tool.arguments == {"id": "A123"}
        and tool.tool.result == {"status": "late"}
    )
    llm = normalize_span(
        span(
            "openai.chat",
            {
                "llm.request.type": "chat",
                "gen_ai.prompt.0.role": "user",
                "gen_ai.prompt.0.content": "hi",
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.tool_calls.0.id": "c1",
                "gen_ai.completion.0.tool_calls.0.name": "track",
                "gen_ai.completion.0.tool_calls.0.arguments": '{"id": "A123"}',
            },
        )
    )
    assert llm.kind == "llm" and llm.input_messages[0].text == "hi"
    assert llm.output_messages[0].tool_calls[0].name == "track"


def test_unknown_convention_still_yields_a_span_with_identity() -> None:
    n = normalize_span(
        span("db.query", {"session.id": "s7"}, resource={"service.name": "svc", "service.version": "9"})
    )
    assert (n.convention, n.kind, n.conversation_id, n.agent, n.release) == (
        "unknown",
        "other",
        "s7",
        "svc",
        "9",
    )


def test_configured_keys() -> None:
    config = NormalizeConfig(
        conversation_attribute="app.thread",
        reference_attribute="qa.gold",
        release_attribute="app.build",
        end_marker_span_name="conversation.end",
    )
    n = normalize_span(
        span("conversation.end", {"app.thread": "th1", "qa.gold": "g2", "app.build": "b5"}), config
    )
    assert (n.conversation_id, n.reference_id, n.release, n.end_marker) == ("th1", "g2", "b5", True)


def test_a_v136_tool_message_with_an_object_content_stays_json() -> None:
    """A tool result event whose content is a JSON object (not a string) is kept as JSON text, so the
    transcript reads it back as the object — not as Python's repr of it."""
    s = span(
        "chat",
        {"gen_ai.operation.name": "chat"},
        events=[("gen_ai.tool.message", {"content": '{"status": "delayed", "rows": 3}', "id": "call_1"})],
    )
    [message] = normalize_span(s, NormalizeConfig()).input_messages
    assert message.role == "tool" and message.tool_call_id == "call_1"
    assert json.loads(message.text or "") == {"status": "delayed", "rows": 3}


def test_a_resent_openinference_message_is_read_from_its_own_values() -> None:
    """Histories repeat, and messages are remembered by their attributes: a message whose content is
    the number 1 and one whose content is `True` are still two different messages."""
    texts = []
    for content in (1, True, 1.0, "1"):
        s = span(
            "ChatCompletion",
            {
                "openinference.span.kind": "LLM",
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": content,
            },
        )
        texts.append(normalize_span(s).input_messages[0].text)
    assert texts == ["1", "True", "1.0", "1"]


def test_an_openinference_index_that_is_no_decimal_number_is_ignored() -> None:
    """`llm.input_messages.².message.role`: `²` counts as a digit to Python but is no index; the span's
    real messages are read and the odd key ignored (it used to fail the whole span)."""
    s = span(
        "ChatCompletion",
        {
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "where is A123?",
            "llm.input_messages.².message.role": "user",
        },
    )
    assert [m.text for m in normalize_span(s).input_messages] == ["where is A123?"]


def test_resent_calls_keep_nan_infinity_and_null_apart() -> None:
    """Messages are remembered by a canonical spelling of their values; arguments NaN, Infinity and null
    are three different calls, not the first one seen three times."""
    seen = []
    for literal in ("null", "NaN", "Infinity"):
        parts = f'[{{"type": "tool_call", "id": "k1", "name": "f", "arguments": {{"x": {literal}}}}}]'
        s = span(
            "chat m",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": f'[{{"role": "assistant", "parts": {parts}}}]',
            },
        )
        seen.append(repr(normalize_span(s).output_messages[0].tool_calls[0].arguments["x"]))
    assert seen == ["None", "nan", "inf"]


def test_each_model_call_carries_only_its_own_prompt_and_tools() -> None:
    """An agent's system prompt and tool definitions come on every model call, the same text each time,
    and are read once for all of them: what one span adds (its tool span's own schema, a message after the
    prompt) never shows on the next span that sends the same texts."""
    tools = json.dumps(
        [{"type": "function", "function": {"name": "track", "parameters": {"type": "object"}}}]
    )
    prompt = json.dumps([{"type": "text", "content": "You are a parcel agent."}])
    chat = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system_instructions": prompt,
        "gen_ai.tool.definitions": tools,
    }
    call = {
        **chat,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "refund",
        "gen_ai.tool.call.arguments": "{}",
        "gen_ai.tool.json_schema": '{"type": "object"}',
    }
    first = normalize_span(span("chat m", {**chat, "gen_ai.input.messages": json.dumps([
        {"role": "user", "parts": [{"type": "text", "content": "where is A123?"}]}
    ])}))  # fmt: skip
    assert set(normalize_span(span("execute_tool refund", call)).tool_definitions) == {"track", "refund"}
    again = normalize_span(span("chat m", chat))
    assert [(m.role, m.text) for m in first.input_messages] == [
        ("system", "You are a parcel agent."), ("user", "where is A123?"),
    ]  # fmt: skip
    assert [(m.role, m.text) for m in again.input_messages] == [("system", "You are a parcel agent.")]
    assert set(first.tool_definitions) == set(again.tool_definitions) == {"track"}
