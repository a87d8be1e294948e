"""Framework payloads inside convention attributes, on hand-built spans shaped like the recorded ones."""

from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.normalize import normalize_span
from monitor.normalize.capture import content_capture_hint
from monitor.normalize.payloads import bind_declared, unwrap_arguments, unwrap_result
from tests.unit.spans import span

TOOL_MESSAGE = {
    "type": "tool",
    "data": {"content": '{"temp_c": 21}', "tool_call_id": "c1", "status": "success"},
}
LC_DUMP = {
    "output": {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
               "kwargs": {"content": '{"temp_c": 21}', "tool_call_id": "c1", "status": "error"}},
    "kwargs": {"color": "green"},
}  # fmt: skip


@pytest.mark.parametrize(
    ("payload", "arguments", "call_id"),
    [
        ({"input_str": "{'city': 'Paris'}", "inputs": {"city": "Paris"}, "kwargs": {"tool_call_id": "c1"}},
         {"city": "Paris"}, "c1"),
        ({"input_str": "{'city': 'Paris'}", "tags": [], "kwargs": {"color": "green"}}, {"city": "Paris"}, None),
        ({"kwargs": {"city": "Paris"}}, {"city": "Paris"}, None),
        ({"args": [], "sanitize_inputs_outputs": True, "kwargs": {"city": "Paris"}}, {"city": "Paris"}, None),
        ({"args": ["Paris"], "sanitize_inputs_outputs": True, "kwargs": {}}, "Paris", None),
        ({"kwargs": {"city": "Paris"}, "units": "C"}, {"kwargs": {"city": "Paris"}, "units": "C"}, None),
        ("Paris", "Paris", None),
    ],
)  # fmt: skip
def test_arguments_come_out_of_their_wrappers(payload: Any, arguments: Any, call_id: str | None) -> None:
    found = unwrap_arguments(json.dumps(payload) if isinstance(payload, dict) else payload)
    assert (found.value, found.call_id) == (arguments, call_id)


@pytest.mark.parametrize(
    ("payload", "result", "call_id", "error"),
    [
        (TOOL_MESSAGE, {"temp_c": 21}, "c1", None),
        (LC_DUMP, {"temp_c": 21}, "c1", "error"),
        ({"blocks": [{"text": '{"temp_c": 21}'}], "tool_name": "w", "raw_output": '{"temp_c": 21}'},
         {"temp_c": 21}, None, None),
        ({"blocks": [{"text": "sunny"}], "tool_name": "w", "is_error": True}, "sunny", None, "error"),
        ({"temp_c": 21}, {"temp_c": 21}, None, None),
        # the flat ToolMessage Langfuse's LangChain handler writes
        ({"content": '{"temp_c": 21}', "type": "tool", "name": "w", "tool_call_id": "c1", "status": "error"},
         {"temp_c": 21}, "c1", "error"),
        ({"content": "x", "type": "tool"}, {"content": "x", "type": "tool"}, None, None),  # no call id: no message
    ],
)  # fmt: skip
def test_results_come_out_of_their_wrappers(
    payload: Any, result: Any, call_id: str | None, error: str | None
) -> None:
    found = unwrap_result(json.dumps(payload))
    assert (found.value, found.call_id, found.error) == (result, call_id, error)


def test_langchain_plain_text_argument_is_bound_by_the_schema_the_model_call_declares() -> None:
    schema = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}  # fmt: skip
    llm = normalize_span(span("ChatOpenAI", {"openinference.span.kind": "LLM",
                                             "llm.tools.0.tool.json_schema": json.dumps(schema)}))  # fmt: skip
    tool = normalize_span(span("get_weather", {"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                                               "input.value": "Paris", "output.value": json.dumps(TOOL_MESSAGE)}))  # fmt: skip
    assert tool.tool is not None and tool.tool.call_id == "c1" and tool.tool.result == {"temp_c": 21}
    assert tool.tool.arguments == "Paris" and tool.tool.arguments_error  # alone, the span cannot tell
    [_, bound] = bind_declared([llm, tool])
    assert bound.tool is not None and (bound.tool.arguments, bound.tool.arguments_error) == (
        {"city": "Paris"},
        None,
    )


def test_text_for_a_tool_with_several_parameters_stays_text_and_explained() -> None:
    two = '{"flight_id": {"type": "string"}, "name": {"type": "string"}}'  # smolagents' bare parameter map
    tool = normalize_span(span("book", {"openinference.span.kind": "TOOL", "tool.name": "book", "input.value": "AF022",
                                        "tool.parameters": two}))  # fmt: skip
    [same] = bind_declared([tool])
    assert (
        same.tool is not None
        and same.tool.arguments == "AF022"
        and "not valid JSON" in (same.tool.arguments_error or "")
    )


def test_smolagents_final_answer_is_the_reply_not_a_tool_call() -> None:
    scope = "openinference.instrumentation.smolagents"
    llm = normalize_span(span("OpenAIModel.generate", {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "New task:\nThanks!",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "f1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "final_answer",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"answer": "Welcome!"}',
    }, scope=scope))  # fmt: skip
    assert llm.input_messages[0].text == "Thanks!"
    assert (llm.output_messages[0].text, llm.output_messages[0].tool_calls) == ("Welcome!", ())
    given = {"args": [], "sanitize_inputs_outputs": True, "kwargs": {"answer": "Welcome!"}}
    final = normalize_span(span("FinalAnswerTool", {"openinference.span.kind": "TOOL", "tool.name": "final_answer",
                                                    "input.value": json.dumps(given)}, scope=scope))  # fmt: skip
    assert (final.kind, final.tool) == ("other", None)


def test_create_agent_is_a_setup_span() -> None:
    assert normalize_span(span("create_agent a", {"gen_ai.operation.name": "create_agent"})).setup is True
    assert normalize_span(span("invoke_agent a", {"gen_ai.operation.name": "invoke_agent"})).setup is False


def test_tool_names_without_content_give_the_capture_hint_of_their_instrumentation() -> None:
    bare = span("execute_tool get_weather", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"},
                scope="opentelemetry.instrumentation.openai_v2")  # fmt: skip
    hint = content_capture_hint([normalize_span(bare)])
    assert hint is not None and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" in hint
    full = span("execute_tool get_weather", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                                             "gen_ai.tool.call.arguments": '{"city": "Paris"}'})  # fmt: skip
    assert content_capture_hint([normalize_span(full)]) is None
    assert content_capture_hint([normalize_span(span("other", {}))]) is None  # nothing done, nothing missing


def test_plugin_prefix_is_split_by_the_separator_of_its_instrumentation() -> None:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Travel-get_weather"}
    sk = normalize_span(span("execute_tool", attrs, scope="semantic_kernel.functions.kernel_function"))
    assert sk.tool is not None and sk.tool.name == "Travel.get_weather"  # tool_id Travel, action get_weather
    other = normalize_span(span("execute_tool", attrs, scope="my.app"))
    assert other.tool is not None and other.tool.name == "Travel-get_weather"


def test_an_empty_plugin_separator_is_refused_with_its_key() -> None:
    from pydantic import ValidationError

    from monitor.config import NormalizeConfig

    with pytest.raises(ValidationError, match="must not be empty"):
        NormalizeConfig(plugin_separators={"semantic_kernel": ""})


def test_openllmetry_s_vertexai_spans_get_openllmetry_s_capture_setting() -> None:
    """traceloop/openllmetry's opentelemetry-instrumentation-vertexai traces under the scope
    `opentelemetry.instrumentation.vertexai` too (get_tracer(__name__)) and records content only with
    TRACELOOP_TRACE_CONTENT; its spans are read as OpenLLMetry's (`llm.request.type`). 89f9f3a now tells them to set
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, which that instrumentation never reads."""
    attrs = {
        "gen_ai.system": "VertexAI",
        "llm.request.type": "completion",
        "gen_ai.request.model": "gemini-pro",
    }
    s = normalize_span(
        span("vertexai.generate_content", attrs, scope="opentelemetry.instrumentation.vertexai")
    )
    assert s.convention == "traceloop"
    hint = content_capture_hint([s])
    assert hint is not None and "TRACELOOP_TRACE_CONTENT" in hint
