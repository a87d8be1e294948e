"""The Langfuse SDK's own spans (`langfuse.observation.*`) and MLflow Tracing's (`mlflow.spanType`), in the
shapes their integrations write; the whole runs are in tests/golden/test_frameworks.py (`langfuse`,
`langfuse-noid`, `langfuse-langchain`, `mlflow`, `mlflow-noid`, `mlflow-genai`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from monitor.decode.otlp import decode_request
from monitor.normalize import normalize_span
from monitor.normalize.capture import content_capture_hint, conversation_id_hint
from tests.unit.spans import span

WEATHER: dict[str, Any] = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}  # fmt: skip


def observation(kind: str, name: str = "s", status: str = "UNSET", **attrs: Any) -> Any:
    values = {
        f"langfuse.observation.{k}": v if isinstance(v, str) else json.dumps(v) for k, v in attrs.items()
    }
    return normalize_span(span(name, {"langfuse.observation.type": kind, **values}, status=status))


def test_a_generation_reads_its_messages_tools_reply_and_usage_in_either_form() -> None:
    request = {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_weather",
                                                                            "arguments": '{"city": "Paris"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"temp_c": 21}'},
        ],
        "tools": [WEATHER],
    }  # fmt: skip
    s = observation(
        "generation", input=request, output="Sunny, 21 C.", usage_details={"input": 40, "output": 7}
    )
    assert s.convention == "langfuse" and s.kind == "llm"
    assert [(m.role, m.text, m.tool_call_id) for m in s.input_messages] == [
        ("system", "Be brief.", None), ("user", "Weather in Paris?", None), ("assistant", None, None),
        ("tool", '{"temp_c": 21}', "c1"),
    ]  # fmt: skip
    assert [(c.call_id, c.name, c.arguments) for c in s.input_messages[2].tool_calls] == [
        ("c1", "get_weather", {"city": "Paris"})
    ]
    assert [(m.role, m.text) for m in s.output_messages] == [("assistant", "Sunny, 21 C.")]
    assert (s.input_tokens, s.output_tokens) == (40, 7)
    assert s.tool_definitions == {"get_weather": WEATHER["function"]["parameters"]}
    openai_usage = observation(
        "generation", input=[], usage_details={"prompt_tokens": 3, "completion_tokens": 2}
    )
    assert (openai_usage.input_tokens, openai_usage.output_tokens) == (3, 2)


def test_langchain_tool_definitions_sent_as_tool_messages_are_definitions_not_results() -> None:
    """Langfuse's LangChain handler appends the model's tools to the input as `tool` messages whose content
    is the definition: read as results, each would be a tool answer no call asked for."""
    items = [{"role": "user", "content": "Weather in Paris?"}, {"role": "tool", "content": WEATHER}]
    reply = {"role": "assistant", "content": "", "tool_calls": [
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}]}  # fmt: skip
    s = observation("generation", input=items, output=reply)
    assert [m.role for m in s.input_messages] == ["user"]
    assert list(s.tool_definitions) == ["get_weather"]
    [out] = s.output_messages
    assert [(c.call_id, c.name, c.arguments) for c in out.tool_calls] == [
        ("c1", "get_weather", {"city": "Paris"})
    ]


def test_a_tool_reads_a_decorated_function_s_call_or_langchain_s_and_its_failure() -> None:
    plain = observation(
        "tool", "get_weather", input={"args": ["Paris"], "kwargs": {}}, output='{"temp_c": 21}'
    )
    assert plain.kind == "tool" and plain.tool is not None
    assert (plain.tool.name, plain.tool.arguments, plain.tool.result, plain.tool.call_id, plain.tool.error) == (
        "get_weather", "Paris", {"temp_c": 21}, None, None,
    )  # fmt: skip
    message = {"content": "no such city", "type": "tool", "tool_call_id": "c1", "status": "error"}
    lc = observation("tool", "get_weather", input={"city": "Atlantis"}, output=message,
                     **{"metadata.tool_call_id": '"c1"'})  # fmt: skip
    assert lc.tool is not None and (lc.tool.arguments, lc.tool.call_id, lc.tool.error) == (
        {"city": "Atlantis"}, "c1", "error",
    )  # fmt: skip
    failed = observation("tool", "get_weather", status="ERROR", input={"args": [], "kwargs": {"city": "X"}},
                         level="ERROR", status_message="ValueError: unknown city")  # fmt: skip
    assert failed.tool is not None and failed.tool.error == "ValueError: unknown city"


def test_an_app_s_agent_function_is_an_agent_and_other_observations_are_carried_not_read() -> None:
    agent = observation("agent", "travel-agent", input={"args": ["hello"], "kwargs": {}}, output="hi")
    assert (agent.kind, agent.input_messages, agent.output_messages) == ("agent", (), ())
    for kind in ("chain", "span", "event", "retriever"):
        assert observation(kind, input={"messages": [{"role": "user", "content": "x"}]}).kind == "other"


def test_without_content_the_hint_names_langfuse_s_capture_settings_and_its_session() -> None:
    spans = [observation("tool", "get_weather"), observation("generation")]
    hint = content_capture_hint(spans)
    assert hint is not None and "LANGFUSE_OBSERVE_DECORATOR_IO_CAPTURE_ENABLED" in hint
    assert "langfuse.propagate_attributes(session_id=<id>)" in conversation_id_hint(spans)


def mlflow_span(kind: str, name: str = "s", /, **attrs: Any) -> Any:
    """MLflow writes every attribute value as JSON, strings quoted."""
    values = {f"mlflow.{k}": json.dumps(v) for k, v in attrs.items()}
    return normalize_span(span(name, {"mlflow.spanType": json.dumps(kind), **values}))


def test_mlflow_reads_a_chat_completion_its_usage_and_tools_and_unquotes_what_it_wrote() -> None:
    request = {
        "model": "m",
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [WEATHER],
    }
    answer = {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}}]}  # fmt: skip
    s = mlflow_span("CHAT_MODEL", spanInputs=request, spanOutputs=answer,
                    **{"chat.tokenUsage": {"input_tokens": 9, "output_tokens": 4}})  # fmt: skip
    assert (s.convention, s.kind, s.input_tokens, s.output_tokens) == ("mlflow", "llm", 9, 4)
    assert [(m.role, m.text) for m in s.input_messages] == [("user", "Weather in Paris?")]
    [out] = s.output_messages
    assert [(c.call_id, c.name, c.arguments) for c in out.tool_calls] == [
        ("c1", "get_weather", {"city": "Paris"})
    ]
    assert list(s.tool_definitions) == ["get_weather"]
    session = normalize_span(span("turn", {"mlflow.spanType": '"AGENT"', "session.id": '"s-1"'}))
    assert (session.kind, session.conversation_id) == ("agent", "s-1")


def test_an_mlflow_tool_reads_its_arguments_its_result_and_its_failure() -> None:
    ok = mlflow_span("TOOL", "get_weather", spanInputs={"city": "Paris"}, spanOutputs='{"temp_c": 21}')
    assert ok.tool is not None and (ok.tool.name, ok.tool.arguments, ok.tool.result) == (
        "get_weather", {"city": "Paris"}, {"temp_c": 21},
    )  # fmt: skip
    text = mlflow_span("TOOL", "get_weather", spanInputs={"city": "Paris"}, spanOutputs="sunny")
    assert text.tool is not None and text.tool.result == "sunny"
    failed = normalize_span(span("get_weather", {"mlflow.spanType": '"TOOL"', "mlflow.spanInputs": '{"city": "X"}'},
                                 status="ERROR").model_copy(update={"status_message": "ValueError: unknown city"}))  # fmt: skip
    assert failed.tool is not None and failed.tool.error == "ValueError: unknown city"
    assert mlflow_span("CHAIN", spanInputs={"messages": []}).kind == "other"


#: the Langfuse SDK's spans of single probes, recorded with the real SDK (record/langfuse_shapes.py)
SHAPES = Path(__file__).resolve().parents[2] / "fixtures" / "langfuse-shapes"


def recorded(name: str) -> list[Any]:
    path = SHAPES / f"{name}.pb"
    return [
        normalize_span(s)
        for s in decode_request(path.read_bytes(), "application/x-protobuf", str(path)).spans
    ]


def test_the_responses_api_is_read_as_chat_is() -> None:
    """`client.responses.create` through langfuse.openai: `instructions` and `input` items in, a
    `function_call` or a `message` with `output_text` parts out (read as empty before: `content_not_captured`)."""
    first, second = [s for s in recorded("responses") if s.kind == "llm"]
    assert [(m.role, m.text) for m in first.input_messages] == [
        ("system", "Be brief."),
        ("user", "Weather in Paris?"),
    ]
    assert [(c.call_id, c.name, c.arguments) for c in first.output_messages[0].tool_calls] == [
        ("call_w1", "get_weather", {"city": "Paris"})
    ]
    assert [(m.role, m.tool_call_id) for m in second.input_messages][-2:] == [
        ("assistant", None),
        ("tool", "call_w1"),
    ]
    assert [m.text for m in second.output_messages] == ["Sunny, 21 C."]


def test_usage_through_the_langchain_handler_counts_cached_and_reasoning_tokens() -> None:
    """The same call (1,000 prompt tokens, 800 of them cached; 500 completion, 400 reasoning): the handler
    writes `input: 200, input_cache_read: 800`; both read as 1,000 / 500."""
    [direct] = [s for s in recorded("openai_usage") if s.kind == "llm"]
    handler = next(s for s in recorded("langchain_usage") if s.span.name == "ChatOpenAI")
    assert (
        (direct.input_tokens, direct.output_tokens)
        == (handler.input_tokens, handler.output_tokens)
        == (1000, 500)
    )
    assert handler.conversation_id == "lc-usage"  # a chat model traced alone: the run's langfuse_session_id


def test_a_custom_generation_s_messages_are_its_function_s_argument() -> None:
    """`@observe(as_type="generation") def call_model(messages)`: input `{"args": [[…]], "kwargs": {}}`."""
    [generation] = recorded("custom_generation")
    assert [(m.role, m.text) for m in generation.input_messages] == [("user", "Weather in Paris?")]
    assert [m.text for m in generation.output_messages] == ["Sunny, 21 C."]


def test_a_json_mode_reply_is_the_reply_s_text() -> None:
    """A reply whose text is a JSON object is what the model said, not a message record."""
    [generation] = [s for s in recorded("json_mode") if s.kind == "llm"]
    assert [m.text for m in generation.output_messages] == ['{"city": "Paris", "temp_c": 21}']
    raw = observation("generation", input=[{"role": "user", "content": "Rates?"}], output="[1, 2]")
    assert [m.text for m in raw.output_messages] == ["[1, 2]"]


def test_recorded_tools_read_their_failure_a_method_s_arguments_and_a_dict_argument() -> None:
    failed, method, booked = [s.tool for s in recorded("tools") if s.kind == "tool"]
    assert failed is not None and failed.error is not None and "unknown city Atlantis" in failed.error
    assert method is not None and method.arguments is not None and method.arguments["destination"] == "JFK"
    assert booked is not None and booked.result == {"status": "confirmed", "flight_id": "AF022"}


def test_tool_parameters_named_args_or_kwargs_are_arguments_not_a_call_s_wrapping() -> None:
    """LangChain writes a tool's arguments as they are: a parameter named `args` or `kwargs` is one (it was
    split into characters, or raised and lost the whole conversation)."""
    listed = observation("tool", "run_command", input={"args": "ls -l"}, output="ok")
    assert listed.tool is not None and listed.tool.arguments == {"args": "ls -l"}
    named = observation("tool", "configure", input={"kwargs": "verbose"}, output="ok")
    assert named.tool is not None and named.tool.arguments == {"kwargs": "verbose"}


def test_beside_an_instrumentation_without_content_its_setting_is_the_hint_not_langfuse_s() -> None:
    """Langfuse records content by default: a Langfuse agent span beside OpenLLMetry's content-less model
    call says to change OpenLLMetry's setting."""
    agent = normalize_span(span("travel-agent", {"langfuse.observation.type": "agent"}, scope="langfuse-sdk"))
    call = normalize_span(span("openai.chat", {"llm.request.type": "chat", "gen_ai.request.model": "m"},
                               scope="opentelemetry.instrumentation.openai.v1"))  # fmt: skip
    hint = content_capture_hint([agent, call])
    assert hint is not None and "TRACELOOP_TRACE_CONTENT" in hint


def test_a_tool_called_with_its_values_by_position_is_the_call_the_model_named() -> None:
    """`search_flights("CDG", "JFK")` under `@observe(as_type="tool")`: Langfuse writes `{"args": […]}` and
    no call id; each value is bound to the parameter the tool declares in its place (the model call's tool
    definitions), so the span is the call the model named, with its names (it was a second call, `arg0`,
    `arg1`, and the run failed `unexpected_action`). Not by the order the model wrote its arguments in: a
    return leg asked as `{destination, origin}` beside the outbound `{origin, destination}` keeps its own."""
    from monitor.assemble.transcript import build_transcript
    from monitor.normalize.payloads import bind_declared

    schema = {"type": "function", "function": {"name": "search_flights", "parameters": {"type": "object",
              "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}}}}}  # fmt: skip
    asks = {"role": "assistant", "tool_calls": [
        {"id": "c1", "function": {"name": "search_flights", "arguments": '{"destination": "CDG", "origin": "JFK"}'}},
        {"id": "c2", "function": {"name": "search_flights", "arguments": '{"origin": "CDG", "destination": "JFK"}'}},
    ]}  # fmt: skip
    request = {"messages": [{"role": "user", "content": "Flights CDG to JFK and back?"}], "tools": [schema]}
    model = observation("generation", input=request, output=asks)
    outbound = observation(
        "tool", "search_flights", input={"args": ["CDG", "JFK"], "kwargs": {}}, output='{"n": 1}'
    )
    back = observation("tool", "search_flights", input={"args": ["JFK"], "kwargs": {"destination": "CDG"}},
                       output='{"n": 2}')  # fmt: skip
    calls = [t for t in build_transcript(bind_declared([model, outbound, back])) if t.kind == "call"]
    assert sorted((t.call_id, t.arguments["origin"], t.result["n"]) for t in calls) == [
        ("c1", "JFK", 2),
        ("c2", "CDG", 1),
    ]


def test_a_call_recorded_by_two_instrumentations_one_inside_the_other_counts_its_tokens_once(
    tmp_path: Path,
) -> None:
    """`langfuse.openai` patches the openai client for the whole process, so a ChatOpenAI call under
    Langfuse's LangChain handler is recorded twice, the client's generation inside the handler's: the report
    counts its 1,000 / 500 tokens once (it said 2,000 / 1,000)."""
    from monitor.cli import main

    out = tmp_path / "reports.jsonl"
    assert main(["replay", str(SHAPES / "langchain_usage.pb"), "--out", str(out)]) == 0
    [report] = [json.loads(line) for line in out.read_text().splitlines()]
    assert (report["input_tokens"], report["output_tokens"]) == (1000, 500)


def test_a_tool_span_that_records_the_function_s_defaults_is_the_call_the_model_made() -> None:
    """MLflow records every bound argument, defaults too (`units="metric"`): the span still answers the
    model's `get_weather{city}` call, which keeps what the model passed (it was a second call)."""
    from monitor.assemble.transcript import build_transcript

    asks = {"role": "assistant", "tool_calls": [{"id": "c1", "function": {
        "name": "get_weather", "arguments": '{"city": "Paris"}'}}]}  # fmt: skip
    model = mlflow_span("CHAT_MODEL", spanInputs={"messages": [{"role": "user", "content": "Paris?"}]},
                        spanOutputs={"choices": [{"message": asks}]})  # fmt: skip
    ran = mlflow_span(
        "TOOL", "get_weather", spanInputs={"city": "Paris", "units": "metric"}, spanOutputs="sunny"
    )
    other = mlflow_span(
        "TOOL", "get_weather", spanInputs={"city": "Rome", "units": "metric"}, spanOutputs="rain"
    )
    calls = [t for t in build_transcript([model, ran]) if t.kind == "call"]
    assert [(t.call_id, t.arguments, t.result) for t in calls] == [("c1", {"city": "Paris"}, "sunny")]
    assert (
        len([t for t in build_transcript([model, other]) if t.kind == "call"]) == 2
    )  # another value: not it


def test_an_mlflow_tool_keeps_the_name_it_was_traced_under_and_reads_a_langchain_result() -> None:
    message = {"content": '{"temp_c": 21}', "type": "tool", "tool_call_id": "c1", "status": "success"}
    s = normalize_span(span("get_weather", {"mlflow.spanType": '"TOOL"', "mlflow.spanFunctionName": '"_weather"',
                                            "mlflow.spanInputs": '{"city": "Paris"}',
                                            "mlflow.spanOutputs": json.dumps(message)}))  # fmt: skip
    assert s.tool is not None and (s.tool.name, s.tool.call_id, s.tool.result) == (
        "get_weather",
        "c1",
        {"temp_c": 21},
    )


def test_mlflow_reads_openai_s_and_langchain_s_message_format_only() -> None:
    """Another provider's messages (`mlflow.message.format: anthropic`) are not read as OpenAI's: a run of
    them is `content_not_captured` with MLflow's hint (export GenAI), never scored on what was misread."""
    request = {"messages": [{"role": "user", "content": [{"type": "text", "text": "Paris?"}]}]}
    attrs = {"mlflow.spanType": '"CHAT_MODEL"', "mlflow.spanInputs": json.dumps(request)}
    anthropic = normalize_span(
        span("Messages", {**attrs, "mlflow.message.format": '"anthropic"'}, scope="mlflow.tracing.provider")
    )
    assert anthropic.kind == "llm" and anthropic.input_messages == ()
    hint = content_capture_hint([anthropic])
    assert hint is not None and "MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true" in hint
    chain = normalize_span(span("ChatOpenAI", {**attrs, "mlflow.message.format": '"langchain"'}))
    assert [m.text for m in chain.input_messages] == ["Paris?"]


def test_json_mode_replies_shaped_like_records_are_still_text_and_a_generation_s_messages_are_found() -> None:
    for reply in (
        '{"message": "Booked."}',
        '{"type": "booking", "id": "B1"}',
        '{"content": "Sunny", "temp_c": 21}',
    ):
        s = observation("generation", input=[{"role": "user", "content": "As JSON"}], output=reply)
        assert [m.text for m in s.output_messages] == [reply]
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    for given in (
        {"args": [messages, "gpt-4o"], "kwargs": {}},
        {"args": [messages], "kwargs": {"model": "gpt-4o"}},
    ):
        s = observation("generation", input=given, output="Sunny.")
        assert [m.text for m in s.input_messages] == ["Weather in Paris?"]


def test_a_conversation_id_a_redaction_replaced_is_no_id() -> None:
    """The Collector's redaction processor writes `****` in place of a value it masks, Logfire `[Scrubbed due
    to 'session']`: taken as the conversation id, either would make all traffic one conversation."""
    for mask in ("****", "[Scrubbed due to 'session']", "[REDACTED]", " <redacted> "):
        s = normalize_span(span("chat", {"gen_ai.operation.name": "chat", "session.id": mask}))
        assert s.conversation_id is None, mask
    kept = normalize_span(span("chat", {"gen_ai.operation.name": "chat", "session.id": "**7-a**"}))
    assert kept.conversation_id == "**7-a**"
