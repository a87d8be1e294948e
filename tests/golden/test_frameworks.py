"""Real spans (and log records) exported by the frameworks people use, replayed through `agent-monitor
replay` against the travel gold reference: what a user sees in the reports.

The bytes are in tests/fixtures/travel/<framework>/, recorded once by record/record_travel.py with the
real libraries (versions in tests/fixtures/README.md); this test never imports a framework. The travel
scenario: weather → get_weather, flights → search_flights, booking → book_flight, thanks. The `wrong`
run passes destination LHR for JFK, and books the flight that search returned.

Attribution, as the data flow says: the search call is the one root cause; its reply names the wrong
flight, and the booking call passes the flight id the wrong search returned, so both — and the
booking's reply — are cascades (`prior_action_failed`) rooted at the search turn. The weather turns
and the thanks turn pass.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from monitor.cli import main
from monitor.compare.ladder import Ladder
from monitor.decode.otlp import decode_logs_request, decode_request
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from monitor.runtime.conversation import score_conversation

ROOT = Path(__file__).resolve().parents[2]
TRAVEL = ROOT / "tests" / "fixtures" / "travel"
GOLD = TRAVEL / "gold"
#: framework folder -> (the adapter that reads it, the conversation id is the one the recording named)
FRAMEWORKS = {
    "langgraph-openinference": ("openinference", True),
    "langgraph-openllmetry": ("traceloop", True),
    # LangGraph with a memory window (`trim_messages` in a `pre_model_hook`): each model call is shown only the
    # last 5 messages, the graph's state keeps them all
    "langgraph-window": ("openinference", True),
    "llamaindex": ("openinference", True),
    # with OpenInference's OpenAI SDK instrumentor too: each call's `ChatCompletion` span in the same trace,
    # beside LlamaIndex's (a stream: after it), not inside it
    "llamaindex-openai": ("openinference", True),
    "smolagents": ("openinference", True),
    "openai-v2": ("genai", True),
    "pydantic-ai": ("genai", False),  # its own gen_ai.conversation.id, a UUID
    "semantic-kernel": ("genai", False),  # no thread id: grouped by gen_ai.agent.id (CONFIG below)
    "crewai": ("openinference", True),  # CrewAI's instrumentor alone: the reply is the AGENT span's
    "adk": ("genai", True),  # OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY
    "adk-legacy": ("genai", True),  # ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1: gcp.vertex.agent.* attributes
    "agno": ("openinference", True),  # Agno's session_id, on its AGENT span only
    "maf": ("genai", True),  # Microsoft Agent Framework; conversation_id run option, on invoke_agent only
    "langchain-v1-openinference": ("openinference", True),  # create_agent, thread_id
    "langchain-v1-openllmetry": ("traceloop", True),
    # the same agent with OpenInference's OpenAI instrumentor too (Phoenix's `auto_instrument`): every model call
    # also recorded whole in an unnamed trace of its own, which joins the named conversation as its twin
    "langchain-v1-openinference-twins": ("openinference", True),
    # `ModelRetryMiddleware` on a client that does not retry: each call after a tool result fails once (HTTP
    # 500, an LLM span with an error and no answer) and is made again, the same history in the same trace
    "langchain-v1-retry": ("openinference", True),
    "haystack": ("haystack", True),  # Haystack's own tracer; session.id on the app's span around a run
    "haystack-pipeline": ("haystack", True),  # no Agent: a Pipeline tool loop; session.id as in `haystack`
    "haystack-openinference": ("openinference", True),  # no tool spans: the calls are the model's
    "vercel-6": ("vercel", True),  # experimental_telemetry.metadata.sessionId
    "vercel-7": ("genai", True),  # @ai-sdk/otel; runtimeContext sessionId, on invoke_agent and step only
    "dspy": ("openinference", True),  # ReAct; tool spans `<tool>.__call__`, `finish` is control flow
    "anthropic-native": ("genai", True),  # the SDK's own tracing, content mode; its tool runner, threads
    # an app's tool loop; the SDK's own metadata-only spans of the same calls come too
    "anthropic-openinference": ("genai+openinference", True),
    "anthropic-openllmetry": ("genai+traceloop", True),  # session.id on the app's span around each turn
    "langfuse": ("langfuse", True),  # the Langfuse SDK's own spans; propagate_attributes(session_id=…)
    "langfuse-langchain": ("langfuse", True),  # Langfuse's LangChain handler; metadata langfuse_session_id
    "openlit": ("genai", True),  # OpenLIT on an app's tool loop; session.id on the app's span per turn
    "mlflow": ("mlflow", True),  # MLflow Tracing's OTLP export; session.id set on each turn's span
    "mlflow-genai": ("genai", True),  # the same, MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true
    "logfire": ("genai", True),  # Logfire's OpenAI instrumentation; gen_ai.conversation.id on a span per turn
    # LiteLLM's callback on an app's tool loop, session.id on a span per turn: it writes each call onto that
    # span (the turn's last call stays), or a span per call under it (USE_OTEL_LITELLM_REQUEST_SPAN=true)
    "litellm": ("litellm", True),
    "litellm-request-span": ("litellm", True),
    "litellm-semconv": ("litellm", True),  # the same, with the latest-experimental GenAI conventions
    # the app's loop on `litellm.responses` (OpenAI's Responses API): the calls are each answer's; the history
    # LiteLLM records keeps no `function_call_output` (an empty user message in its place): no results
    "litellm-responses": ("litellm", True),
    # OpenInference's LiteLLM instrumentor (using_session): its tool messages carry no call id
    "litellm-openinference": ("openinference", True),
    "litellm-phoenix": ("openinference", True),  # LiteLLM's own Phoenix callback; session.id per turn
    # the Google Gen AI SDK's chat (automatic function calling) with the OTel contrib instrumentation: content on
    # the spans (latest-experimental, SPAN_ONLY) or as log records (EVENT_ONLY); session.id on a span per turn
    "google-genai": ("genai", True),
    "google-genai-events": ("genai", True),
}
#: OpenInference's Haystack instrumentation writes tool results only inside Python reprs of Haystack
#: objects (and the later histories' tool messages carry only their role), and LiteLLM's Responses API
#: spans none at all: the calls come from the model's messages, without their results
NO_RESULTS = {"haystack-openinference", "litellm-responses"}
#: what a Semantic Kernel user configures: its four traces per conversation share only the agent's id
CONFIG = {"semantic-kernel": "normalize:\n  conversation_attribute: gen_ai.agent.id\n"}


def replay(
    tmp_path: Path, *paths: Path, config: str | None = None, gold: bool = True
) -> list[dict[str, Any]]:
    tmp_path = Path(tempfile.mkdtemp(dir=tmp_path))  # one replay, one file (the JSONL sink appends)
    out = tmp_path / "reports.jsonl"
    extra = ["--gold", str(GOLD)] if gold else []
    if config is not None:
        (tmp_path / "monitor.yaml").write_text(config)
        extra += ["--config", str(tmp_path / "monitor.yaml")]
    assert main(["replay", *map(str, paths), "--out", str(out), *extra]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def run_files(framework: str, run: str) -> list[Path]:
    return sorted((TRAVEL / framework).glob(f"{run}.*"))


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_correct_run_is_one_conversation_and_passes(tmp_path: Path, framework: str) -> None:
    [report] = replay(tmp_path, *run_files(framework, "correct"), config=CONFIG.get(framework))
    adapter, named = FRAMEWORKS[framework]
    assert report["conversation_id"] == f"{framework}-correct" or not named
    assert report["adapter"] == adapter and report["agent"] is not None
    turns = report["observed_turns"]
    assert [t["role"] for t in turns] == ["User", "Tool", "Agent"] * 3 + ["User", "Agent"]
    calls = [t["predicted"] for t in turns if t["role"] == "Tool"]
    assert {c["tool_id"] for c in calls} == (
        {"Travel"} if framework == "semantic-kernel" else {c["action"] for c in calls}
    )
    assert [(c["action"], c["args"]) for c in calls] == [
        ("get_weather", {"city": "Paris"}),
        ("search_flights", {"origin": "CDG", "destination": "JFK", "date": "2026-12-15"}),
        ("book_flight", {"flight_id": "AF022", "passenger_name": "Jane Doe"}),
    ]
    if framework not in NO_RESULTS:
        assert calls[1]["result"]["flights"][0]["flight_id"] == "AF022"
        assert calls[2]["result"] == {"booking_id": "BK-AF022", "flight_id": "AF022", "status": "confirmed"}
    assert turns[-1]["predicted"]["response"] == "You're welcome, have a great trip!"
    assert report["tool_calls"] == 3 and report["tool_errors"] == 0
    assert (report["scored"], report["test_pass"], report["success_rate"]) == (True, True, 1.0)


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_wrong_destination_is_the_root_and_the_booking_its_cascade(tmp_path: Path, framework: str) -> None:
    [report] = replay(tmp_path, *run_files(framework, "wrong"), config=CONFIG.get(framework))
    assert report["conversation_id"] == f"{framework}-wrong" or not FRAMEWORKS[framework][1]
    assert report["tool_calls"] == 3
    by_no = {t["turn_no"]: t for t in report["turns"]}
    search = report["first_failure_turn"]
    assert by_no[search]["predicted"]["action"] == "search_flights"
    assert by_no[search]["failure_reason"] == "inconsistent_parameter_values"
    assert by_no[search]["fields"] == ["destination"]
    assert (report["root_cause"], report["root_cause_count"]) == ("inconsistent_parameter_values", 1)
    failed = [t for t in report["turns"] if not t["success"]]
    cascades = [t for t in failed if t["failure_reason"] == "prior_action_failed"]
    assert {t["root_turn"] for t in cascades} == {search} and len(cascades) == 3
    booking = next(t for t in cascades if (t["predicted"] or {}).get("action") == "book_flight")
    assert booking["predicted"]["args"]["flight_id"] == "AF1680"  # what the wrong search returned
    passed = [t for t in report["turns"] if t["success"] and t["role"] != "User"]
    assert len(passed) == 3  # weather call, weather reply, thanks reply


@pytest.mark.parametrize(
    ("framework", "setting"),
    [
        ("openai-v2-default", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"),
        ("adk-default", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"),
        ("haystack-default", "HAYSTACK_CONTENT_TRACING_ENABLED=true"),
        ("maf-default", "enable_sensitive_data=True"),
        ("vercel-6-no-content", "recordInputs and recordOutputs"),
        ("anthropic-native-default", "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content"),
    ],
)
def test_content_not_captured_is_reported_unscored_with_the_setting(
    tmp_path: Path, framework: str, setting: str
) -> None:
    """Default modes: the spans (or log records) name the tools, but carry no arguments or messages."""
    reports = replay(tmp_path, TRAVEL / framework)
    assert sorted(r["conversation_id"] for r in reports) == [f"{framework}-correct", f"{framework}-wrong"]
    for report in reports:
        assert (report["scored"], report["unscored_reason"]) == (False, "content_not_captured")
        assert setting in report["capture_hint"]
        assert "test_pass" not in report and "root_cause" not in report
        assert [t["predicted"]["tool_id"] for t in report["observed_turns"]] == [
            "get_weather",
            "search_flights",
            "book_flight",
        ]


def test_openai_v2_spans_without_their_log_records_say_where_the_content_is(tmp_path: Path) -> None:
    """The content is in the log records: the spans alone say only which model was called."""
    spans_only = [p for p in run_files("openai-v2", "correct") if not p.name.endswith(".logs.pb")]
    [report] = replay(tmp_path, *spans_only)
    assert (report["scored"], report["unscored_reason"]) == (False, "content_not_captured")
    assert "/v1/logs" in report["capture_hint"]


def test_a_setup_trace_is_not_a_conversation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenLLMetry exports LangGraph's `create_agent` as a one-span trace of its own."""
    reports = replay(tmp_path, *run_files("langgraph-openllmetry", "correct"))
    assert [r["conversation_id"] for r in reports] == ["langgraph-openllmetry-correct"]
    assert "1 conversation report (1 scored" in capsys.readouterr().err


def test_semantic_kernel_without_a_conversation_attribute_is_joined_by_its_history(tmp_path: Path) -> None:
    """Semantic Kernel exports one trace per get_response and no thread id; each model call resends the
    thread, so the four traces join into one conversation without the setting of CONFIG, and the report
    says how it was grouped."""
    [report] = replay(tmp_path, *run_files("semantic-kernel", "correct"))
    assert report["conversation_id"].startswith("trace:") and report["test_pass"] is True
    assert "4 traces joined by the history each resends" in report["conversation_hint"]


#: setups whose spans carry no conversation id at all (the framework's default, or none reaches them)
NO_ID = {
    "maf-noid": "conversation_id",
    "vercel-7-noid": "runtimeContext",
    "haystack-noid": "session.id",
    "openai-agents-genai": "Runner.run",  # RunConfig(group_id) was set: it reaches no span
    "openai-agents-genai-noid": "Runner.run",
    "langfuse-noid": "propagate_attributes",
    "mlflow-noid": "set_attribute('session.id'",  # update_current_trace(session_id=…) reaches no exported span
    # LangChain v1 with no checkpointer (the app resends the conversation) and both OpenInference instrumentors:
    # each model call also a trace of its own, which joins the turn's conversation as its second recording
    "langchain-v1-openinference-twins-noid": "using_session",
}


@pytest.mark.parametrize("framework", sorted(NO_ID))
def test_traces_without_a_conversation_id_join_by_their_history_and_say_how_to_set_one(
    tmp_path: Path, framework: str
) -> None:
    """One trace per user turn and no id: each turn's model calls resend the conversation so far, which
    joins the four traces into one conversation, whole, once; the verdicts are those of the named runs. (A
    second instrumentation's recordings of each model call, traces of their own, join it too and are said
    apart in the hint.)"""
    [correct] = replay(tmp_path, *run_files(framework, "correct"))
    assert correct["test_pass"] is True and correct["tool_calls"] == 3
    assert len({t["trace_id"] for t in correct["observed_turns"]}) == 4
    assert (
        "4 traces joined" in correct["conversation_hint"] and NO_ID[framework] in correct["conversation_hint"]
    )
    [wrong] = replay(tmp_path, *run_files(framework, "wrong"))
    assert (wrong["root_cause"], wrong["root_cause_count"], wrong["cascading_count"]) == (
        "inconsistent_parameter_values", 1, 3,
    )  # fmt: skip
    search = {t["turn_no"]: t for t in wrong["turns"]}[wrong["first_failure_turn"]]
    assert search["predicted"]["args"]["destination"] == "LHR"


def test_a_tool_loop_whose_every_model_call_is_a_trace_joins_into_one_conversation(tmp_path: Path) -> None:
    """The Anthropic SDK on an app's tool loop with OpenLLMetry and no conversation id: each of the seven
    model calls is a trace of its own, and one made after tool results continues the call that asked for
    them, so the seven join into one conversation, whole, with the verdicts of the named run. The SDK's
    own metadata-only spans of the same calls (each a trace of its own, recorded before the call's
    instrumented span) join it by the response id both carry: one report, nothing else reported."""
    [correct] = replay(tmp_path, *run_files("anthropic-openllmetry-noid", "correct"))
    assert correct["test_pass"] is True and correct["tool_calls"] == 3
    assert [t["role"] for t in correct["observed_turns"]] == ["User", "Tool", "Agent"] * 3 + ["User", "Agent"]
    assert correct["spans"] == 14
    assert "7 traces joined" in correct["conversation_hint"]
    assert "and 7 of its model calls' copies by their response ids" in correct["conversation_hint"]
    [wrong] = replay(tmp_path, *run_files("anthropic-openllmetry-noid", "wrong"))
    assert (wrong["root_cause"], wrong["root_cause_count"], wrong["cascading_count"]) == (
        "inconsistent_parameter_values", 1, 3,
    )  # fmt: skip


#: an app's tool loop with no conversation id, each model call a trace of its own: the hint names the setup
PER_CALL_TRACES = {"openlit-noid": "OpenLIT", "logfire-noid": "Logfire", "litellm-noid": "LiteLLM"}


@pytest.mark.parametrize("framework", sorted(PER_CALL_TRACES))
def test_model_calls_each_a_trace_join_into_one_conversation_and_say_how_to_name_it(
    tmp_path: Path, framework: str
) -> None:
    """An instrumentation on an app's own tool loop with no conversation id: each of the seven model calls is
    a trace of its own (with the HTTP client's span under it, for OpenLIT). OpenLIT's histories keep the
    tool results but not the assistant messages that asked for them; the results' call ids still tie each
    call to the one that asked. LiteLLM records a model's answer without its calls' ids, which the next
    call's history shows with them. The seven join into one conversation with the verdicts of the named run,
    and the hint names what to set for that instrumentation (not for the HTTP client's)."""
    [correct] = replay(tmp_path, *run_files(framework, "correct"))
    assert correct["test_pass"] is True and correct["tool_calls"] == 3
    assert [t["role"] for t in correct["observed_turns"]] == ["User", "Tool", "Agent"] * 3 + ["User", "Agent"]
    assert "7 traces joined" in correct["conversation_hint"]
    assert PER_CALL_TRACES[framework] in correct["conversation_hint"]
    [wrong] = replay(tmp_path, *run_files(framework, "wrong"))
    assert (wrong["root_cause"], wrong["root_cause_count"], wrong["cascading_count"]) == (
        "inconsistent_parameter_values", 1, 3,
    )  # fmt: skip


def test_openlit_s_histories_of_two_calls_in_a_turn_and_words_beside_a_call_still_join(
    tmp_path: Path,
) -> None:
    """OpenLIT with no conversation id, the model saying a few words beside each call and searching again
    before it books: OpenLIT's histories keep those words and drop the calls, and show the recheck's and
    the booking's results one after the other as if one request had asked for both. The eight model calls
    (each a trace) still join into one conversation, whole, each call with its result; without gold, the
    wrong destination is the root cause and what builds on it its cascades."""
    [correct] = replay(tmp_path, *run_files("openlit-stepwise-noid", "correct"), gold=False)
    assert "8 traces joined" in correct["conversation_hint"] and correct["test_pass"] is True
    calls = [t["predicted"] for t in correct["observed_turns"] if t["role"] == "Tool"]
    assert [(c["action"], c["args"].get("destination")) for c in calls] == [
        ("get_weather", None), ("search_flights", "JFK"), ("search_flights", "JFK"), ("book_flight", None),
    ]  # fmt: skip
    assert all(c["result"] for c in calls) and calls[3]["result"]["booking_id"] == "BK-AF022"
    [wrong] = replay(tmp_path, *run_files("openlit-stepwise-noid", "wrong"), gold=False)
    assert "8 traces joined" in wrong["conversation_hint"]
    assert (wrong["root_cause"], wrong["root_cause_count"]) == ("ungrounded_parameter_value", 1)
    root = {t["turn_no"]: t for t in wrong["turns"]}[wrong["first_failure_turn"]]
    assert (root["predicted"]["action"], root["fields"]) == ("search_flights", ["destination"])
    assert wrong["cascading_count"] >= 3


def test_openllmetry_s_openai_agents_records_no_answers_and_the_next_histories_give_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OpenLLMetry's OpenAI Agents instrumentation on the Chat Completions model records each model call's
    input but not its answer, and `RunConfig(group_id=…)` reaches no span: each turn's trace continues the
    one before though that one's reply shows only in its own history. The four traces join into one
    conversation; the replies come from the next turn's history, in their place, and each call keeps its
    result. The last reply no later call resends is never seen: it is a reply marked `unrecorded`, scored
    `uncertain` — with gold and without — so the correct run passes instead of failing `missing_action` on the
    instrumentation's gap; the wrong run's root cause and cascades are those of every framework."""
    for gold in (True, False):
        [correct] = replay(tmp_path, *run_files("openai-agents-openllmetry", "correct"), gold=gold)
        assert "4 traces joined" in correct["conversation_hint"]
        turns = correct["observed_turns"]
        assert [t["role"] for t in turns] == ["User", "Tool", "Agent"] * 3 + ["User", "Agent"]
        calls = [t["predicted"] for t in turns if t["role"] == "Tool"]
        assert calls[2]["result"] == {"booking_id": "BK-AF022", "flight_id": "AF022", "status": "confirmed"}
        assert (
            turns[-1]["predicted"]["response"] == ""
            and "no span recorded" in turns[-1]["predicted"]["unrecorded"]
        )
        assert (correct["test_pass"], correct["success_rate"], correct["total_failures"]) == (True, 1.0, 0)
        last = correct["turns"][-1]
        assert (last["success"], last["uncertain"], last["predicted"]) == (True, True, turns[-1]["predicted"])
        [compared] = last[
            "comparisons"
        ]  # nothing compared: not `unscorable` (the model could not read a text)
        assert (compared["rung"], compared["equal"], compared["unscorable"]) == ("unrecorded", False, False)
        assert [c["passed"] for c in last["checks"]] == [None] * 3  # no sub-metric counts a pass for it
    shown = tmp_path / "correct.jsonl"
    shown.write_text(json.dumps(correct) + "\n")
    assert main(["show", str(shown)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "(a reply no span recorded)" in line)
    assert row.rstrip().endswith("pass ≈") and "≈ uncertain: " in out  # the legend says what ≈ means
    [wrong] = replay(tmp_path, *run_files("openai-agents-openllmetry", "wrong"))
    assert (wrong["root_cause"], wrong["cascading_count"]) == ("inconsistent_parameter_values", 3)
    search = {t["turn_no"]: t for t in wrong["turns"]}[wrong["first_failure_turn"]]
    assert (search["predicted"]["action"], search["fields"]) == ("search_flights", ["destination"])
    assert wrong["turns"][-1]["uncertain"] and wrong["turns"][-1]["success"]


#: recordings whose model spans carry their answers in attributes, one per convention and framework family
INPUTS_ONLY = sorted(
    {"adk", "agno", "anthropic-native", "anthropic-openinference", "anthropic-openllmetry", "dspy", "google-genai",
     "langchain-v1-openinference", "langchain-v1-openinference-twins", "langchain-v1-openinference-twins-noid",
     "langchain-v1-openllmetry", "langchain-v1-retry",
     "langgraph-openinference", "langgraph-openllmetry",
     "langgraph-window", "litellm", "litellm-openinference", "litellm-phoenix", "litellm-request-span",
     "litellm-semconv", "llamaindex", "llamaindex-openai", "logfire", "maf", "mlflow-genai", "openlit", "pydantic-ai",
     "smolagents", "vercel-7"}
)  # fmt: skip
#: where conventions put a model's answer: GenAI, OpenLLMetry's and LiteLLM's `gen_ai.completion.N.*`, OpenInference
_ANSWER_KEYS = (
    "gen_ai.output.messages",
    "gen_ai.completion",
    "llm.output_messages",
    "output.value",
    "output.mime_type",
)


def inputs_only(paths: list[Path], into: Path) -> list[Path]:
    """The recording as an instrumentation that records each model call's input and never its answer would
    write it (OpenLLMetry's OpenAI Agents instrumentation does): every answer attribute gone from every span
    but the tools', whose results stay, and no log records (Microsoft Agent Framework's hold its events).
    A model span that names the tool it called (`gen_ai.tool.name`, as OpenLIT writes on its chat spans) is
    taken for a tool span and keeps its answer."""
    into.mkdir()
    out = []
    for path in (p for p in paths if not p.name.endswith(".logs.pb")):
        request = ExportTraceServiceRequest.FromString(path.read_bytes())
        for span in (s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans):
            keys = {a.key for a in span.attributes}
            if keys & {"gen_ai.tool.name", "tool.name"} or span.name.startswith("execute_tool"):
                continue
            kept = [a for a in span.attributes if not a.key.startswith(_ANSWER_KEYS)]
            del span.attributes[:]
            span.attributes.extend(kept)
        out.append(into / path.name)
        out[-1].write_bytes(request.SerializeToString())
    return out


def one_span_per_request(paths: list[Path], into: Path, reverse: bool = False) -> list[Path]:
    """The recording's spans each in a request of its own (an exporter sending them one by one), in the order
    recorded or the reverse."""
    into.mkdir()
    requests = []
    for path in paths:
        request = ExportTraceServiceRequest.FromString(path.read_bytes())
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    one = ExportTraceServiceRequest()
                    out_rs = one.resource_spans.add(resource=rs.resource)
                    out_rs.scope_spans.add(scope=ss.scope).spans.append(span)
                    requests.append(one)
    out = []
    for n, one in enumerate(reversed(requests) if reverse else requests):
        out.append(into / f"{n:04d}.pb")
        out[-1].write_bytes(one.SerializeToString())
    return out


@pytest.mark.parametrize("reverse", [False, True])
def test_a_second_instrumentation_s_unnamed_copies_of_each_call_join_the_named_conversation(
    tmp_path: Path, reverse: bool
) -> None:
    """OpenInference's LangChain and OpenAI SDK instrumentors both on (Phoenix's `auto_instrument`): each model
    call is recorded whole twice, the SDK's span in an unnamed trace of its own. Those traces join the named
    conversation (not a second conversation scored beside it), and the report is the one a single
    instrumentation gives: the same turns, each call's tokens counted once, every span of the recording in
    it. The same when each span comes alone, in the reverse order."""
    [plain] = replay(tmp_path, *run_files("langchain-v1-openinference", "correct"))
    for run in ("correct", "wrong"):
        files = run_files("langchain-v1-openinference-twins", run)
        spans = sum(
            len(ss.spans)
            for f in files
            for rs in ExportTraceServiceRequest.FromString(f.read_bytes()).resource_spans
            for ss in rs.scope_spans
        )
        if reverse:
            files = one_span_per_request(files, tmp_path / run, reverse=True)
        [report] = replay(tmp_path, *files)
        assert report["conversation_id"] == f"langchain-v1-openinference-twins-{run}"
        assert report["spans"] == spans and report["conversation_hint"] is None
        assert (
            len({t["trace_id"] for t in report["observed_turns"]}) == 4
        )  # the turns' traces, not the copies'
        if run == "correct":
            assert [t["predicted"] for t in report["observed_turns"]] == [
                t["predicted"] for t in plain["observed_turns"]
            ]
            assert (report["input_tokens"], report["output_tokens"]) == (
                plain["input_tokens"],
                plain["output_tokens"],
            )
            assert (report["test_pass"], report["total_failures"]) == (True, 0)
        else:
            assert (report["root_cause"], report["root_cause_count"], report["cascading_count"]) == (
                "inconsistent_parameter_values", 1, 3,
            )  # fmt: skip


@pytest.mark.parametrize(
    "framework", ["langchain-v1-openinference-twins", "langchain-v1-openinference-twins-noid"]
)
def test_two_users_at_once_each_with_second_recordings_are_two_whole_conversations(
    tmp_path: Path, framework: str
) -> None:
    """The correct and the wrong run replayed together, as two users whose conversations open alike (the same
    first turn, 0.2 s apart) would arrive: each call's second recording joins its own user's conversation
    (the call whose time holds it), never the other's, named or not."""
    reports = replay(tmp_path, *run_files(framework, "correct"), *run_files(framework, "wrong"))
    assert sorted((r["spans"], r["test_pass"], r["total_failures"], r["input_tokens"]) for r in reports) == [
        (31, False, 4, 1120),
        (31, True, 0, 1120),
    ]


def exported_in_batches(
    paths: list[Path], into: Path, seed: int, most: int = 20, shifts: dict[int, int] | None = None
) -> list[Path]:
    """The recordings' spans as one SDK's batch processor exports them: by end time, in requests of 1 to
    `most`; `shifts`: nanoseconds added to the timestamps of the recording at that index of `paths`."""
    into.mkdir()
    spans = []
    for n, path in enumerate(paths):
        for rs in ExportTraceServiceRequest.FromString(path.read_bytes()).resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    span.start_time_unix_nano += (shifts or {}).get(n, 0)
                    span.end_time_unix_nano += (shifts or {}).get(n, 0)
                    spans.append((span.end_time_unix_nano, rs.resource, ss.scope, span))
    spans.sort(key=lambda x: x[0])
    rnd = random.Random(seed)
    out: list[Path] = []
    while spans:
        n = rnd.randint(1, most)
        request = ExportTraceServiceRequest()
        for _, resource, scope, span in spans[:n]:
            request.resource_spans.add(resource=resource).scope_spans.add(scope=scope).spans.append(span)
        del spans[:n]
        out.append(into / f"{len(out):04d}.pb")
        out[-1].write_bytes(request.SerializeToString())
    return out


def _first_call_start(path: Path) -> int:
    return min(
        s.start_time_unix_nano
        for rs in ExportTraceServiceRequest.FromString(path.read_bytes()).resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
        if s.name == "ChatOpenAI"
    )


@pytest.mark.parametrize("ms", [0, 5, 18])
def test_two_users_whose_first_calls_overlap_keep_their_own_second_recordings(
    tmp_path: Path, ms: int
) -> None:
    """The wrong run moved so its first model call starts `ms` after the correct run's, each span sent alone
    by end time: each user's first second recording lies within both users' first calls. Neither user's
    trace may follow the other's recording into the other's conversation: two whole conversations."""
    framework = "langchain-v1-openinference-twins-noid"
    correct, wrong = run_files(framework, "correct")[0], run_files(framework, "wrong")[0]
    shift = _first_call_start(correct) - _first_call_start(wrong) + ms * 1_000_000
    files = exported_in_batches([correct, wrong], tmp_path / "b", 0, most=1, shifts={1: shift})
    reports = replay(tmp_path, *files)
    assert sorted((r["spans"], r["test_pass"], r["input_tokens"]) for r in reports) == [
        (31, False, 1120),
        (31, True, 1120),
    ]


@pytest.mark.parametrize(
    ("framework", "alone"),
    [("langchain-v1-openinference-twins", "langchain-v1-openinference"), ("llamaindex-openai", "llamaindex")],
)
def test_a_second_instrumentation_s_recording_of_each_call_counts_its_tokens_once(
    tmp_path: Path, framework: str, alone: str
) -> None:
    """Phoenix's `auto_instrument` with the OpenAI SDK installed beside the framework: every model call is also
    the SDK's span, in a trace of its own (LangChain) or beside the framework's in its trace (LlamaIndex).
    The usage is the one the framework's instrumentation alone reports."""
    for run in ("correct", "wrong"):
        [twice] = replay(tmp_path, *run_files(framework, run))
        [once] = replay(tmp_path, *run_files(alone, run))
        assert (twice["input_tokens"], twice["output_tokens"]) == (
            once["input_tokens"],
            once["output_tokens"],
        )
        assert twice["input_tokens"] == 1120


def test_a_model_call_span_sent_again_leaves_a_no_id_conversation_whole(tmp_path: Path) -> None:
    """At-least-once delivery: each of LangChain's model-call spans sent twice (one span per request, by end
    time). The copy is a duplicate, not a new call: one conversation of 31 spans, as sent once."""
    framework = "langchain-v1-openinference-twins-noid"
    files = exported_in_batches(run_files(framework, "correct"), tmp_path / "b", 0, most=1)
    again = [f for f in files for _ in range(2 if b"ChatOpenAI" in f.read_bytes() else 1)]
    [report] = replay(tmp_path, *again)
    assert (report["spans"], report["test_pass"], report["input_tokens"]) == (31, True, 1120)


@pytest.mark.parametrize("seed", range(24))  # 13, 18 and 21 swapped users without the wait
def test_second_recordings_exported_in_batches_wait_for_their_call_and_swap_no_users(
    tmp_path: Path, seed: int
) -> None:
    """Two users whose first turns are alike, with no conversation id, each model call recorded again as a trace
    of its own, exported by end time in batches: a lone recording whose call comes in a later batch waits for
    it rather than being joined by the history it resends, which both users' first turns showed (it would
    take the other user's next turn, or leave its own turn's trace alone). Two whole conversations."""
    framework = "langchain-v1-openinference-twins-noid"
    files = exported_in_batches(
        [*run_files(framework, "correct"), *run_files(framework, "wrong")], tmp_path / "b", seed
    )
    reports = replay(tmp_path, *files)
    assert sorted((r["spans"], r["test_pass"], r["total_failures"], r["input_tokens"]) for r in reports) == [
        (31, False, 4, 1120),
        (31, True, 0, 1120),
    ]


@pytest.mark.parametrize("answers", [True, False])
def test_a_memory_window_over_repeated_words_reads_every_turn_once_in_order(
    tmp_path: Path, answers: bool
) -> None:
    """LangGraph with `trim_messages` (the last 5 messages) and a user who says `ok` twice, each answered with
    the words the agent said just before: every model call after the first turn is shown a window that starts
    inside the conversation and repeats words seen before. Each message is read once, in order; with no gold,
    the invented destination is the root, and the reply repeated after `ok`, the booking of the flight the
    invented search found (the user's `ok` chose nothing) and its reply are its cascades. So too as an
    instrumentation that records no answer writes it (`answers` False): the replies come from the windows,
    the last one unrecorded (12 messages were read, the first reply after `ok` and the second `ok` lost)."""
    said = [
        ("User", "What's the weather in Paris today?"), ("Tool", "get_weather"),
        ("Agent", "It is sunny and 21 degrees in Paris today."), ("User", "ok"),
        ("Agent", "It is sunny and 21 degrees in Paris today."),
        ("User", "Find me a flight from Paris CDG to New York JFK on 2026-12-15."), ("Tool", "search_flights"),
        ("Agent", "I found flight {f} from CDG to {d} on 2026-12-15, departing 10:30."), ("User", "ok"),
        ("Agent", "I found flight {f} from CDG to {d} on 2026-12-15, departing 10:30."),
        ("User", "Book it for Jane Doe, please."), ("Tool", "book_flight"),
        ("Agent", "Flight {f} is booked for Jane Doe: booking BK-{f}."), ("User", "Thanks!"),
        ("Agent", "You're welcome, have a great trip!"),
    ]  # fmt: skip
    reports = {}
    for run, flight, destination in (("correct", "AF022", "JFK"), ("wrong", "AF1680", "LHR")):
        files = run_files("langgraph-window-ok", run)
        files = files if answers else inputs_only(files, tmp_path / f"{run}-inputs")
        [report] = replay(tmp_path, *files, gold=False)
        assert report["conversation_id"] == f"langgraph-window-ok-{run}"
        read = [
            (t["role"], t["predicted"].get("action") or t["predicted"]["response"])
            for t in report["observed_turns"]
        ]
        expected = [(role, text.format(f=flight, d=destination)) for role, text in said]
        assert read == (expected if answers else [*expected[:-1], ("Agent", "")])
        reports[run] = report
    assert (reports["correct"]["test_pass"], reports["correct"]["total_failures"]) == (True, 0)
    wrong = reports["wrong"]
    assert (wrong["root_cause"], wrong["root_cause_count"]) == ("ungrounded_parameter_value", 1)
    by_no = {t["turn_no"]: t for t in wrong["turns"]}
    search = by_no[wrong["first_failure_turn"]]
    assert (search["predicted"]["action"], search["fields"]) == ("search_flights", ["destination"])
    cascades = {
        t["turn_no"]
        for t in wrong["turns"]
        if t["failure_reason"] == "prior_action_failed" and t["root_turn"] == search["turn_no"]
    }
    assert cascades == {n for n in by_no if n > search["turn_no"] and n < max(by_no)}  # all but the thanks


@pytest.mark.parametrize("framework", INPUTS_ONLY)
def test_a_framework_s_spans_with_no_answer_recorded_still_pass_and_fail_where_they_should(
    tmp_path: Path, framework: str
) -> None:
    """The unrecorded-answer rule on another rendering of every framework's real runs: with no model answer
    recorded, the replies come from the next calls' histories and the last one is a reply nobody recorded —
    uncertain, so the correct run still passes; the wrong run still fails at the wrong destination."""
    [correct] = replay(tmp_path, *inputs_only(run_files(framework, "correct"), tmp_path / "correct"))
    turns = correct["observed_turns"]
    assert [t["role"] for t in turns] == ["User", "Tool", "Agent"] * 3 + ["User", "Agent"]
    assert "unrecorded" in turns[-1]["predicted"] and correct["turns"][-1]["uncertain"]
    assert (correct["test_pass"], correct["total_failures"]) == (True, 0)
    [wrong] = replay(tmp_path, *inputs_only(run_files(framework, "wrong"), tmp_path / "wrong"))
    search = {t["turn_no"]: t for t in wrong["turns"]}[wrong["first_failure_turn"]]
    assert (wrong["root_cause"], search["predicted"]["action"], search["fields"]) == (
        "inconsistent_parameter_values", "search_flights", ["destination"],
    )  # fmt: skip


def test_litellm_s_responses_api_records_no_tool_result_so_without_gold_values_are_uncertain(
    tmp_path: Path,
) -> None:
    """LiteLLM's spans of `litellm.responses` keep each answer's calls but put an empty user message where a
    `function_call_output` was: no result is recorded anywhere. Without gold, a value no user message states
    may have come from a result nobody recorded: uncertain, naming that gap — never an alarm on it."""
    for run in ("correct", "wrong"):
        [report] = replay(tmp_path, *run_files("litellm-responses", run), gold=False)
        assert (report["scored"], report["test_pass"], report["total_failures"]) == (True, True, 0)
        by_action = {(t["predicted"] or {}).get("action"): t for t in report["turns"]}
        doubts = [c for c in by_action["search_flights"]["comparisons"] if c.get("uncertain")]
        if run == "correct":  # JFK: the user's
            assert doubts == []
        else:  # LHR: no user message says it
            [destination] = doubts
            assert destination["field"] == "destination" and destination["predicted"] == "LHR"
            assert "turn 2's call recorded no result" in destination["note"]


#: the model says "One moment, let me check." beside each call, searches again before it books, and the
#: conversation ends with the booking: an instrumentation that records no answer (OpenLLMetry's, on OpenAI
#: Agents) and LiteLLM's GenAI spans with every answer removed
STEPWISE = ("openai-agents-openllmetry-stepwise", "litellm-semconv-stepwise")


@pytest.mark.parametrize("framework", STEPWISE)
def test_words_beside_calls_are_no_last_reply_when_no_answer_is_recorded(
    tmp_path: Path, framework: str
) -> None:
    """With no model answer recorded, the words the model said beside its last calls (read from a later
    history) are not the turn's reply: the answer that followed them, which no later call resends, is a reply
    no span recorded — uncertain, never compared with gold's reply — so the correct run passes against gold
    and without it, and the wrong run still fails at the wrong destination."""
    paths = run_files(framework, "correct")
    if framework.startswith("litellm"):  # LiteLLM records answers: this rendering removes them
        paths = inputs_only(paths, tmp_path / "correct")
    gold = tmp_path / "gold"
    gold.mkdir()
    dialog = json.loads((GOLD / "travel-booking.json").read_text())
    dialog["turns"] = dialog["turns"][:9]  # three user turns: the conversation ends with the booking
    dialog.setdefault("metadata", {})["read_only_tools"] = ["get_weather", "search_flights"]  # the recheck
    (gold / "travel-booking.json").write_text(json.dumps(dialog))
    for gold_dir in (gold, None):
        out = Path(tempfile.mkdtemp(dir=tmp_path)) / "reports.jsonl"
        extra = ["--gold", str(gold_dir)] if gold_dir else []
        assert main(["replay", *map(str, paths), "--out", str(out), *extra]) == 0
        [correct] = [json.loads(line) for line in out.read_text().splitlines()]
        turns = correct["observed_turns"]
        booking = turns[[t["role"] for t in turns].index("User", 5) :]  # the last user turn on
        beside = [t["predicted"].get("response") for t in booking[1:-1] if t["role"] == "Agent"]
        assert beside == ["One moment, let me check."] * 2
        assert [t["role"] for t in booking[1:-1]].count("Tool") == 2
        assert "no span recorded" in booking[-1]["predicted"]["unrecorded"]
        assert (correct["test_pass"], correct["total_failures"]) == (True, 0), (framework, gold_dir)
        assert correct["turns"][-1]["uncertain"] and correct["turns"][-1]["success"]
        if gold_dir:  # gold's last reply is the one nobody recorded, not the words beside the calls
            assert correct["turns"][-1]["comparisons"][0]["rung"] == "unrecorded"
    wrong_paths = run_files(framework, "wrong")
    if framework.startswith("litellm"):
        wrong_paths = inputs_only(wrong_paths, tmp_path / "wrong")
    del dialog["metadata"]["read_only_tools"]  # a wrong search is then no free lookup: paired with gold's
    (gold / "travel-booking.json").write_text(json.dumps(dialog))
    for gold_dir, root in ((gold, "inconsistent_parameter_values"), (None, "ungrounded_parameter_value")):
        out = Path(tempfile.mkdtemp(dir=tmp_path)) / "reports.jsonl"
        extra = ["--gold", str(gold_dir)] if gold_dir else []
        assert main(["replay", *map(str, wrong_paths), "--out", str(out), *extra]) == 0
        [wrong] = [json.loads(line) for line in out.read_text().splitlines()]
        search = {t["turn_no"]: t for t in wrong["turns"]}[wrong["first_failure_turn"]]
        assert (wrong["root_cause"], search["predicted"]["action"], search["fields"]) == (
            root, "search_flights", ["destination"],
        )  # fmt: skip
        assert wrong["turns"][-1]["uncertain"] and wrong["cascading_count"] >= 2


def test_a_gold_reply_is_paired_with_the_unrecorded_reply_of_its_own_window_only(tmp_path: Path) -> None:
    """Gold written with the words beside the calls as replies of their own: gold's "One moment, let me check."
    is paired with the agent's same words, and gold's booking reply with the reply nobody recorded after the
    booking. Gold with no user turns (one exchange) and a greeting before the first call ("Sure.": no word to
    share with any reply): the greeting is not paired with the conversation's last, unrecorded reply. The
    correct run passes against each."""
    turns = json.loads((GOLD / "travel-booking.json").read_text())["turns"]
    moment = {"turn": "Agent", "gold_turn": {"response": "One moment, let me check."}}
    greeting = {"turn": "Agent", "gold_turn": {"response": "Happy to help with your trip."}}
    sure = {
        "turn": "Agent",
        "gold_turn": {"response": "Sure."},
    }  # no content word: shares none with any reply
    recheck = json.loads(json.dumps(turns[4]))  # gold's search, made again before the booking
    written = {
        "beside": [*turns[:6], turns[6], moment, recheck, turns[7], turns[8]],
        "one exchange": [greeting, turns[1], turns[2], turns[4], turns[5], turns[7], turns[8]],
        "one exchange, sure": [sure, turns[1], turns[2], turns[4], turns[5], turns[7], turns[8]],
    }
    for shape, rows in written.items():
        gold = tmp_path / shape.replace(" ", "-").replace(",", "")
        gold.mkdir()
        rows = [{**json.loads(json.dumps(r)), "turn_no": n} for n, r in enumerate(rows, 1)]
        metadata = {"read_only_tools": ["search_flights"]} if shape.startswith("one exchange") else {}
        dialog = {"dialog_id": "travel-booking", "metadata": metadata, "turns": rows}
        (gold / "travel-booking.json").write_text(json.dumps(dialog))
        out = gold / "reports.jsonl"
        paths = run_files("openai-agents-openllmetry-stepwise", "correct")
        assert main(["replay", *map(str, paths), "--out", str(out), "--gold", str(gold)]) == 0
        [report] = [json.loads(line) for line in out.read_text().splitlines()]
        assert (report["test_pass"], report["total_failures"]) == (True, 0), shape
        replies = {
            t["gold_turn_no"]: t for t in report["turns"] if t["role"] == "Agent" and t["gold_turn_no"]
        }
        last = replies[len(rows)]  # gold's booking reply
        assert last["comparisons"][0]["rung"] == "unrecorded", shape
        if shape == "beside":
            assert replies[8]["predicted"]["response"] == "One moment, let me check."


def test_a_run_stopped_after_the_model_asked_for_a_tool_is_cut_short_not_answered_unrecorded(
    tmp_path: Path,
) -> None:
    """OpenAI Agents with the contrib GenAI instrumentation, rendered inputs-only, stopped right after the model
    asked for `book_flight` (max turns, an approval): no tool span, no model call after it, and the agent's
    span — which started before that model call — records the request as the run's last item. The model's
    answer is known (the request), so no reply is made up: against gold's first three exchanges the run fails
    `missing_action` for the booking reply it never gave, where a made-up reply nobody recorded would pass."""
    paths = inputs_only(run_files("openai-agents-genai", "correct"), tmp_path / "inputs")
    for path in paths:
        request = ExportTraceServiceRequest.FromString(path.read_bytes())
        spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
        booked = min(s.start_time_unix_nano for s in spans if "book_flight" in s.name)
        agents = [s for s in spans if s.name.startswith("invoke_agent")]
        kept = {
            s.span_id
            for s in spans
            if s.start_time_unix_nano < booked and (s not in agents or s.end_time_unix_nano < booked)
        } | {s.span_id for s in agents if s.start_time_unix_nano < booked < s.end_time_unix_nano}
        for running in (s for s in agents if s.start_time_unix_nano < booked < s.end_time_unix_nano):
            for a in running.attributes:  # its input: the run's items up to the request
                if a.key == "gen_ai.input.messages":
                    items = json.loads(a.value.string_value)
                    a.value.string_value = json.dumps(items[:-1] if items[-1]["role"] == "tool" else items)
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                left = [s for s in ss.spans if s.span_id in kept]
                del ss.spans[:]
                ss.spans.extend(left)
        path.write_bytes(request.SerializeToString())
    gold = tmp_path / "gold"
    gold.mkdir()
    dialog = json.loads((GOLD / "travel-booking.json").read_text())
    dialog["turns"] = dialog["turns"][:9]
    (gold / "travel-booking.json").write_text(json.dumps(dialog))
    out = tmp_path / "reports.jsonl"
    assert main(["replay", *map(str, paths), "--out", str(out), "--gold", str(gold)]) == 0
    [report] = [json.loads(line) for line in out.read_text().splitlines()]
    turns = report["observed_turns"]
    assert [t["role"] for t in turns][-2:] == ["User", "Tool"] and turns[-1]["predicted"][
        "action"
    ] == "book_flight"
    assert not any("unrecorded" in (t["predicted"] or {}) for t in turns)
    assert (report["test_pass"], report["root_cause"]) == (False, "missing_action")


def test_a_conversation_id_a_scrubber_replaced_is_no_id(tmp_path: Path) -> None:
    """Logfire's default scrubbing replaces every `session.id` by `[Scrubbed due to 'session']`: taken as the
    conversation id it would make all traffic one conversation. The two runs stay two conversations, each
    joined by its history, and the hint says to use gen_ai.conversation.id."""
    reports = replay(tmp_path, TRAVEL / "logfire-scrubbed")
    assert len(reports) == 2 and all(r["conversation_id"].startswith("trace:") for r in reports)
    assert sorted(r["test_pass"] for r in reports) == [False, True]
    for report in reports:
        assert report["tool_calls"] == 3 and "scrubs" in report["conversation_hint"]
        assert "gen_ai.conversation.id" in report["conversation_hint"]


def test_openlit_without_content_is_unscored_with_openlit_s_setting(tmp_path: Path) -> None:
    """`capture_message_content=False`: OpenLIT's spans name the model calls only; the hint is OpenLIT's,
    though the HTTP client's spans beside them come from an `opentelemetry.instrumentation.` scope."""
    for report in replay(tmp_path, TRAVEL / "openlit-no-content"):
        assert (report["scored"], report["unscored_reason"]) == (False, "content_not_captured")
        assert (
            "capture_message_content=True" in report["capture_hint"]
            and "TRACELOOP" not in report["capture_hint"]
        )


@pytest.mark.parametrize(
    ("framework", "setting"),
    [
        ("litellm-no-content", "litellm.turn_off_message_logging"),
        ("google-genai-default", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"),
    ],
)
def test_model_calls_without_content_are_unscored_with_the_setting(
    tmp_path: Path, framework: str, setting: str
) -> None:
    """LiteLLM with `turn_off_message_logging`, the Google Gen AI SDK's instrumentation by default: the spans
    say only which model was called and its usage (no tools, no messages): unscored, with that
    instrumentation's setting (not OpenLLMetry's, whose scope prefix the contrib one shares), never a failure
    of every gold call."""
    reports = replay(tmp_path, TRAVEL / framework)
    assert sorted(r["conversation_id"] for r in reports) == [f"{framework}-correct", f"{framework}-wrong"]
    for report in reports:
        assert (report["scored"], report["unscored_reason"]) == (False, "content_not_captured")
        assert setting in report["capture_hint"] and "TRACELOOP" not in report["capture_hint"]
        assert report["input_tokens"] > 0 and "root_cause" not in report


@pytest.mark.parametrize(
    "framework", ["anthropic-openllmetry", "anthropic-openllmetry-noid", "anthropic-openinference"]
)
def test_each_model_call_s_usage_is_counted_once_beside_the_sdk_s_own_copy_of_it(
    tmp_path: Path, framework: str
) -> None:
    """An instrumentation and the Anthropic SDK's own tracing both record each call with its usage (by the
    response id both carry, or the SDK's span a child of the instrumentation's): the report's tokens are
    those of the SDK's spans alone (`anthropic-native`), not twice them."""
    [alone] = replay(tmp_path, *run_files("anthropic-native", "correct"))
    [report] = replay(tmp_path, *run_files(framework, "correct"))
    assert (report["input_tokens"], report["output_tokens"]) == (
        alone["input_tokens"],
        alone["output_tokens"],
    )
    assert alone["input_tokens"] > 0


def test_a_named_conversation_carries_no_conversation_hint(tmp_path: Path) -> None:
    [report] = replay(tmp_path, *run_files("maf", "correct"))
    assert report["conversation_id"] == "maf-correct" and report["conversation_hint"] is None


def test_autogen_alone_is_content_not_captured_and_its_create_agent_no_conversation(tmp_path: Path) -> None:
    """AutoGen's own spans name the agent and its tools, with no arguments, results or messages, one
    trace per run() and no conversation id; grouped by the agent's name (a configurable attribute)."""
    config = "normalize:\n  conversation_attribute: gen_ai.agent.name\n"
    [report] = replay(tmp_path, *run_files("autogen", "correct"), config=config)
    assert (report["conversation_id"], report["scored"]) == ("travel_agent", False)
    assert report["unscored_reason"] == "content_not_captured" and "AutoGen" in report["capture_hint"]
    assert report["tool_calls"] == 3


def test_crewai_with_the_openai_instrumentor_too_passes(tmp_path: Path) -> None:
    """With OpenInference's OpenAI instrumentor as well, the model calls show CrewAI's task prompt
    ("Current Task: …") besides the kickoff's messages, so each user message appears twice among the
    observed turns; user turns are context, never scored, and the verdicts are those of CrewAI alone."""
    [correct] = replay(tmp_path, *run_files("crewai-openai", "correct"))
    assert (correct["conversation_id"], correct["test_pass"], correct["tool_calls"]) == (
        "crewai-openai-correct",
        True,
        3,
    )
    [wrong] = replay(tmp_path, *run_files("crewai-openai", "wrong"))
    assert (wrong["root_cause"], wrong["root_cause_count"], wrong["cascading_count"]) == (
        "inconsistent_parameter_values",
        1,
        3,
    )


@pytest.mark.parametrize(
    "framework", sorted((set(FRAMEWORKS) | set(NO_ID) | set(PER_CALL_TRACES)) - NO_RESULTS)
)
def test_without_gold_the_invented_destination_is_the_root_and_what_used_it_cascades(
    tmp_path: Path, framework: str
) -> None:
    """No gold and no policy: the built-in policy's grounding. The user asked for JFK; LHR appears in no
    user message, tool result or prompt, so the search is the root cause, and the reply naming its
    flight, the booking of that flight and the booking's reply are its cascades (the data flow)."""
    [correct] = replay(tmp_path, *run_files(framework, "correct"), config=CONFIG.get(framework), gold=False)
    assert (correct["references"], correct["test_pass"]) == (["policy:builtin"], True)
    [wrong] = replay(tmp_path, *run_files(framework, "wrong"), config=CONFIG.get(framework), gold=False)
    assert (wrong["root_cause"], wrong["root_cause_count"], wrong["cascading_count"]) == (
        "ungrounded_parameter_value", 1, 3,
    )  # fmt: skip
    search = {t["turn_no"]: t for t in wrong["turns"]}[wrong["first_failure_turn"]]
    assert search["predicted"]["action"] == "search_flights" and search["fields"] == ["destination"]


def test_without_tool_results_an_invented_value_is_uncertain_never_failed(tmp_path: Path) -> None:
    """OpenInference's Haystack spans carry no tool results: what a result might have stated is unknown,
    so the invented destination is uncertain, not failed (and gold still fails it: above)."""
    [wrong] = replay(tmp_path, *run_files("haystack-openinference", "wrong"), gold=False)
    search = next(t for t in wrong["turns"] if (t["predicted"] or {}).get("action") == "search_flights")
    assert search["success"] and search["uncertain"]
    [destination] = [c for c in search["comparisons"] if c["field"] == "destination"]
    assert destination["uncertain"] and "recorded no result" in destination["note"]


def test_a_trace_the_kafka_ingest_keyed_by_its_id_is_still_a_conversation_without_one(ladder: Ladder) -> None:
    """The Kafka ingest writes `trace:<id>` as the conversation of spans no span names (their key). Each
    such trace is scored as `consume` scores it: its report says no id was found and how to set one,
    and with no gold an invented value in it is uncertain (the trace may be part of a longer
    conversation), never failed, as in `run`."""
    spans = []
    for path in run_files("maf-noid", "wrong"):
        decode = decode_logs_request if path.name.endswith(".logs.pb") else decode_request
        spans += [
            normalize_span(s) for s in decode(path.read_bytes(), "application/x-protobuf", str(path)).spans
        ]
    by_trace: dict[str, list[AgentSpan]] = {}
    for s in spans:
        by_trace.setdefault(s.span.trace_id, []).append(
            s.model_copy(update={"conversation_id": f"trace:{s.span.trace_id}"})
        )
    reports = [
        score_conversation(f"trace:{t}", group, {}, ladder, builtin_policy=True).to_json()
        for t, group in by_trace.items()
    ]
    assert len(reports) == 4 and all("grouped by its trace" in r["conversation_hint"] for r in reports)
    assert not any(t["failure_reason"] == "ungrounded_parameter_value" for r in reports for t in r["turns"])
