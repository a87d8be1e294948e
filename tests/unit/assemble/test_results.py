"""Which call a tool result answers, as instrumentations write them (with the call's id, without one, or with
an id the instrumentation made up), and where messages no answer recorded go. The whole recorded runs are in
tests/golden/test_frameworks.py."""

from __future__ import annotations

import json
from typing import Any

from monitor.assemble.transcript import build_transcript
from monitor.assemble.turns import to_dialog_turns
from monitor.assemble.windows import WindowStore
from monitor.config import WindowConfig
from monitor.model import AgentSpan
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


S = 1_000_000_000


def _msg(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _call(trace: str, history: list[tuple[str, str]], reply: str | None, start_s: float,
          child: bool = False, status: str = "UNSET") -> AgentSpan:  # fmt: skip
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat",
                             "gen_ai.input.messages": json.dumps([_msg(r, t) for r, t in history])}  # fmt: skip
    if reply is not None:
        attrs["gen_ai.output.messages"] = json.dumps([_msg("assistant", reply)])
    s = span("chat", attrs, trace=trace, start_s=start_s, status=status)
    if child:
        s = s.model_copy(update={"parent_span_id": "ff" * 8})
    return normalize_span(s)


HI = ("user", "Weather in Paris?")


def test_a_failed_call_in_another_conversation_does_not_take_a_turn_whose_history_comes_late() -> None:
    """Conversation X's first call failed (no output). Conversation B's second turn arrives before its first
    (another exporter, a slower collector): it waits for the history it continues and joins B's first turn
    when it comes ("in any order"), never X's failed call, which saw the same opening and answered nothing."""
    failed = _call("x1", [HI], None, 0, status="ERROR")
    b1 = _call("b1", [HI], "Sunny.", 1)
    b2 = _call("b2", [HI, ("assistant", "Sunny."), ("user", "And Rome?")], "Rain.", 5)
    store = WindowStore(WindowConfig())
    for n, s in enumerate((failed, b2, b1)):  # each its own request, as `serve` settles after each
        store.add(s, n * S)
        store.close_marked()
    closed = store.flush()
    groups = sorted(sorted({s.span.trace_id.rstrip("0") for s in c.conversation.spans}) for c in closed)
    assert groups == [["b1", "b2"], ["x1"]]


def test_a_reply_first_shown_by_the_next_turn_comes_before_it_when_a_guardrail_call_showed_the_turn_first() -> (
    None
):
    """No answer recorded (OpenLLMetry's OpenAI Agents instrumentation). Turn 2's trace has a call sent only
    the new message (a guardrail / title call, the pattern opening_key names) starting just before the
    main call, which resends the history: turn 1's reply "Sunny.", first shown by the main call, still comes
    before "And Rome?", which the guardrail call showed first."""
    turn_1 = _call("a1", [HI], None, 0, child=True)
    guardrail = _call("a2", [("user", "And Rome?")], None, 5.0, child=True)
    main = _call("a2", [HI, ("assistant", "Sunny."), ("user", "And Rome?")], None, 5.001, child=True)
    turns = build_transcript([turn_1, guardrail, main])
    order = [t.text for t in turns if t.kind in ("user", "reply")]
    assert order == ["Weather in Paris?", "Sunny.", "And Rome?", None]  # the last answer: not recorded
    assert turns[-1].unrecorded is not None and turns[-1].span_id == main.span.span_id


def _tool(trace: str, name: str, args: dict[str, Any], result: Any, start_s: float) -> AgentSpan:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
             "gen_ai.tool.call.arguments": json.dumps(args), "gen_ai.tool.call.result": json.dumps(result)}  # fmt: skip
    return normalize_span(span(f"execute_tool {name}", attrs, trace=trace, start_s=start_s))


def _replies(spans: list[AgentSpan]) -> list[tuple[str | None, bool]]:
    return [(t.text, t.unrecorded is not None) for t in build_transcript(spans) if t.kind == "reply"]


def test_a_turn_whose_last_model_call_recorded_no_output_ends_in_a_reply_nobody_recorded() -> None:
    """Inputs only (OpenLLMetry's OpenAI Agents instrumentation): turn 1's reply shows in turn 2's history;
    turn 2's is never resent. It is a reply of unknown text after turn 2's tool call, from the call that
    answered, so that gold scoring does not fail a correct run on the instrumentation's gap."""
    rome = ("user", "And Rome?")
    spans = [
        _call("a1", [HI], None, 0),
        _call("a2", [HI, ("assistant", "Sunny."), rome], None, 5),
        _tool("a2", "get_weather", {"city": "Rome"}, {"temp_c": 12}, 5.2),
        _call("a2", [HI, ("assistant", "Sunny."), rome], None, 5.4),  # its request: the tool's result follows
    ]
    turns = build_transcript(spans)
    assert [(t.kind, t.text) for t in turns] == [
        ("user", "Weather in Paris?"), ("reply", "Sunny."), ("user", "And Rome?"), ("call", None), ("reply", None),
    ]  # fmt: skip
    assert turns[-1].unrecorded is not None and turns[-1].span_id == spans[-1].span.span_id


def test_no_reply_is_made_up_where_the_answer_is_seen_or_no_model_call_answered() -> None:
    """A turn with a recorded reply; a last model call that failed; one whose only output was a tool call (the
    tool ran after it): none of them ends in an unrecorded reply. A copy of the last call that recorded neither
    input nor answer (a provider SDK's metadata-only span beside the instrumentation's, as the Anthropic SDK
    writes it) says nothing about the answer: the call before it still answered unrecorded."""
    assert _replies([_call("a1", [HI], "Sunny.", 0)]) == [("Sunny.", False)]
    assert _replies([_call("a1", [HI], None, 0, status="ERROR")]) == []
    assert (
        _replies([_call("a1", [HI], None, 0), _tool("a1", "get_weather", {"city": "Paris"}, {}, 0.2)]) == []
    )
    main = _call("a1", [HI], None, 0)
    copy = normalize_span(span("chat", {"gen_ai.operation.name": "chat"}, trace="a1", start_s=0.05))
    [reply] = [t for t in build_transcript([main, copy]) if t.kind == "reply"]
    assert reply.unrecorded is not None and reply.span_id == main.span.span_id  # the call that saw the turn
    asked = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_weather",
                                             "arguments": {"city": "Paris"}}]}  # fmt: skip
    cut = _call("a1", [HI], None, 0).model_copy(update={"output_messages": normalize_span(span(
        "chat", {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps([asked])})).output_messages})  # fmt: skip
    assert (
        cut.output_messages[0].tool_calls and _replies([cut]) == []
    )  # asked for a tool that never ran: cut short


def test_no_reply_is_made_up_where_the_run_failed_after_its_last_model_call() -> None:
    """The agent's span failed after the call (a parse error, a crash), or the agent's own call failed after a
    guardrail call that succeeded (a 429): the run did not end in an answer, whatever was recorded."""
    crashed = normalize_span(  # the agent's span encloses its call, and failed after it
        span("invoke_agent", {"gen_ai.operation.name": "invoke_agent"}, trace="a1", start_s=-0.5, end_s=1,
             status="ERROR")
    )  # fmt: skip
    assert _replies([_call("a1", [HI], None, 0), crashed]) == []
    guardrail = _call("a1", [HI], None, 0)
    assert _replies([guardrail, _call("a1", [HI], None, 0.1, status="ERROR")]) == []


def test_no_reply_is_made_up_where_the_instrumentation_records_replies() -> None:
    """Turn 1's reply was recorded as the call's output: this instrumentation records answers, so turn 2's
    missing one is a run cut short, not an instrumentation's gap (it fails `missing_action` as before)."""
    spans = [
        _call("a1", [HI], "Sunny.", 0),
        _call("a2", [HI, ("assistant", "Sunny."), ("user", "And Rome?")], None, 5),
    ]
    assert _replies(spans) == [("Sunny.", False)]


def test_a_handoff_seen_only_in_the_last_call_s_input_does_not_hide_the_unrecorded_reply() -> None:
    """An agent hands off (`transfer_to_weather_agent`, no tool span): the call and its result show first in the
    next agent's model call's input, which is timed at that call's end. It came before that call; the call's
    answer, not recorded, is the turn's reply."""
    handoff = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "transfer_to_weather_agent",
                                               "arguments": {}}]}  # fmt: skip
    done = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "{}"}]}
    history = json.dumps([_msg(*HI), handoff, done])
    second = normalize_span(span("chat", {"gen_ai.operation.name": "chat", "gen_ai.input.messages": history},
                                 trace="a1", start_s=1))  # fmt: skip
    turns = build_transcript([_call("a1", [HI], None, 0), second])
    assert [(t.kind, t.unrecorded is not None) for t in turns] == [
        ("user", False),
        ("call", False),
        ("reply", True),
    ]


def test_an_attempt_inside_the_model_call_that_failed_and_was_retried_does_not_block_the_reply() -> None:
    """The SDK's HTTP span of a first attempt (a 429) under the model call failed; the call itself succeeded."""
    call = _call("a1", [HI], None, 0)
    attempt = span("POST", {}, trace="a1", start_s=0.01, end_s=0.02, status="ERROR")
    attempt = attempt.model_copy(update={"parent_span_id": call.span.span_id})
    assert _replies([call, normalize_span(attempt)]) == [(None, True)]


def _history_call(history: list[dict[str, Any]], start_s: float) -> AgentSpan:
    """A model call that recorded its input (GenAI messages) and no output."""
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(history)}
    return normalize_span(span("chat", attrs, trace="a1", start_s=start_s))


def _request(call_id: str, name: str, args: dict[str, Any], said: str | None = None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "content": said}] if said else []
    parts.append({"type": "tool_call", "id": call_id, "name": name, "arguments": args})
    return {"role": "assistant", "parts": parts}


def _result(call_id: str, value: Any) -> dict[str, Any]:
    return {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": call_id, "response": json.dumps(value)}],
    }


def test_words_said_beside_calls_do_not_end_the_turn_however_the_history_writes_them() -> None:
    """Inputs only. The model said "One moment, let me check." beside its call, then answered (unrecorded). The
    next call's history writes those words in the message that asked (Chat Completions), in a message of
    their own before one that only asks (the Responses API's items: `message`, then `function_call`), or
    with the request left out, the result right after them (OpenLIT): each time they are words beside a
    call, not the turn's reply, and the answer that followed is a reply nobody recorded."""
    user, moment = _msg(*HI), "One moment, let me check."
    asked = _request("c1", "get_weather", {"city": "Paris"})
    reasoning = {"role": "assistant", "parts": [{"type": "reasoning", "content": "…"}]}  # read as nothing
    for said in (
        [_request("c1", "get_weather", {"city": "Paris"}, said=moment)],
        [_msg("assistant", moment), asked],
        [_msg("assistant", moment), reasoning, asked],
        [_msg("assistant", moment)],
    ):
        spans = [
            _history_call([user], 0),
            _tool("a1", "get_weather", {"city": "Paris"}, {"temp_c": 21}, 0.2),
            _history_call([user, *said, _result("c1", {"temp_c": 21})], 0.4),
        ]
        turns = build_transcript(spans)
        replies = [(t.text, t.beside_calls, t.unrecorded is not None) for t in turns if t.kind == "reply"]
        assert replies == [(moment, True, False), (None, False, True)], said


def test_no_reply_is_made_up_for_a_call_whose_answer_a_later_history_shows() -> None:
    """Inputs only. Turn 1's call answered with words and a request for `book_flight`, which the user did not
    approve (the framework answered it with an error); turn 2's history shows that answer. Turn 1 ends there,
    its call in it, with no reply nobody recorded: its answer is known. Turn 2's own call answered unrecorded.
    An answer the reader cannot read (a refusal part) shows nothing: turn 1 then ends in a reply nobody
    recorded, as when no history shows it."""
    first, again = _msg("user", "Book AF022 for Jane Doe."), _msg("user", "Hello? Did it work?")
    said = _request("c1", "book_flight", {"flight_id": "AF022"}, said="I will book AF022 for Jane Doe now.")
    spans = [
        _history_call([first], 0),
        _history_call([first, said, _result("c1", {"error": "not approved"}), again], 5),
    ]
    turns = build_transcript(spans)
    assert [(t.kind, t.tool or t.text, t.unrecorded is not None) for t in turns] == [
        ("user", "Book AF022 for Jane Doe.", False),
        ("call", "book_flight", False),
        ("reply", "I will book AF022 for Jane Doe now.", False),
        ("user", "Hello? Did it work?", False),
        ("reply", None, True),
    ]
    assert turns[-1].span_id == spans[1].span.span_id
    refusal = {"role": "assistant", "parts": [{"type": "refusal", "content": "I can't help with that."}]}
    spans = [_history_call([first], 0), _history_call([first, refusal, again], 5)]
    made_up = [t.span_id for t in build_transcript(spans) if t.unrecorded is not None]
    assert made_up == [spans[0].span.span_id, spans[1].span.span_id]


def _agent(history: list[dict[str, Any]], start_s: float, end_s: float) -> AgentSpan:
    """An agent's span that records the run's items as its input (OpenAI Agents' GenAI agent span), from the
    run's start to its end: it starts before the model calls it wraps."""
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel",
             "gen_ai.input.messages": json.dumps(history)}  # fmt: skip
    return normalize_span(span("invoke_agent", attrs, trace="a1", start_s=start_s, end_s=end_s))


def test_a_call_an_agent_s_span_shows_is_the_last_model_call_s_answer_not_a_reply_nobody_recorded() -> None:
    """Inputs only. The run stopped right after the model asked for `book_flight` (max turns, an approval): no
    tool ran. The span of the agent that made the call, which started before it, shows the request as the
    run's last item: the call's answer is known — a run cut short, with no reply made up. Another agent's
    span sent the same conversation (a handoff that filtered the tools out) shows that agent's answer, not
    the call's: a call made after the handoff still answered unrecorded."""
    user = _msg("user", "Book AF022 for Jane Doe.")
    asked = _request("c1", "book_flight", {"flight_id": "AF022"})
    agent = _agent([user, asked], 0, 2)
    inside = _history_call([user], 0.5)
    inside = inside.model_copy(
        update={"span": inside.span.model_copy(update={"parent_span_id": agent.span.span_id})}
    )
    flat = _history_call([user], 0.5)  # spans exported with no parent ids: the agent's span still covers it
    for spans in ([agent, inside], [agent, flat]):
        turns = build_transcript(spans)
        assert [(t.kind, t.tool or t.text) for t in turns] == [
            ("user", "Book AF022 for Jane Doe."),
            ("call", "book_flight"),
        ]
    triage = _agent([user, _request("h1", "transfer_to_faq_agent", {})], 0, 0.4)
    after_handoff = _history_call([user], 1.1)
    turns = build_transcript([triage, _history_call([user], 0.1), after_handoff])
    assert turns[-1].unrecorded is not None and turns[-1].span_id == after_handoff.span.span_id


def test_a_call_keeps_its_turn_in_a_history_a_memory_window_cut() -> None:
    """Outputs recorded, tool spans present; the app sends the model the last four messages only. Turn 2's
    history, cut to its window, ends in "Done." — the same words as turn 1's reply, which it no longer holds.
    Turn 2's booking stays in turn 2, after the user's message that asked for it."""

    def chat(history: list[dict[str, Any]], answer: dict[str, Any], start_s: float) -> AgentSpan:
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(history[-4:]),
                 "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
        return normalize_span(span("chat", attrs, trace="a1", start_s=start_s))

    u1, u2, u3 = (
        _msg("user", "Book AF022 for Jane."),
        _msg("user", "Now book AF023 for John."),
        _msg("user", "Bye."),
    )
    c1, c2 = (
        _request("c1", "book_flight", {"flight_id": "AF022"}),
        _request("c2", "book_flight", {"flight_id": "AF023"}),
    )
    r1, r2, done = _result("c1", {"ok": True}), _result("c2", {"ok": True}), _msg("assistant", "Done.")
    spans = [
        chat([u1], c1, 0), _tool("a1", "book_flight", {"flight_id": "AF022"}, {"ok": True}, 0.5),
        chat([u1, c1, r1], done, 1),
        chat([u1, c1, r1, done, u2], c2, 2), _tool("a1", "book_flight", {"flight_id": "AF023"}, {"ok": True}, 2.5),
        chat([u1, c1, r1, done, u2, c2, r2], done, 3),
        chat([u1, c1, r1, done, u2, c2, r2, done, u3], _msg("assistant", "Bye!"), 4),
    ]  # fmt: skip
    said = [(t.kind, t.text or (t.arguments or {}).get("flight_id")) for t in build_transcript(spans)]
    assert said[:6] == [
        ("user", "Book AF022 for Jane."), ("call", "AF022"), ("reply", "Done."),
        ("user", "Now book AF023 for John."), ("call", "AF023"), ("reply", "Done."),
    ]  # fmt: skip


def test_a_call_read_from_a_history_stays_before_the_next_user_message_another_span_showed_first() -> None:
    """The call that was not approved, as above, and turn 2 first shown by a span that starts before the call
    that resends the history: a guardrail call sent only the new message, or Microsoft Agent Framework's
    `invoke_agent`, which records only it. The call stays in turn 1, before turn 2's message."""
    first, again = _msg("user", "Book AF022 for Jane Doe."), _msg("user", "Hello? Did it work?")
    said = _request("c1", "book_flight", {"flight_id": "AF022"}, said="I will book AF022 for Jane Doe now.")
    resent = _history_call([first, said, _result("c1", {"error": "not approved"}), again], 5)
    for shown_first in (_history_call([again], 4.9), _agent([again], 4.8, 6)):
        turns = build_transcript([_history_call([first], 0), shown_first, resent])
        kinds = [(t.kind, t.tool or t.text) for t in turns if t.kind != "reply"]
        assert kinds == [
            ("user", "Book AF022 for Jane Doe."), ("call", "book_flight"), ("user", "Hello? Did it work?"),
        ]  # fmt: skip


def test_a_call_first_read_from_an_agent_s_history_keeps_what_it_was_built_on() -> None:
    """The agent's span records the run's items, the booking request among them, and starts before the model
    call whose answer asked for it: the booking still builds on the search result that call was sent."""
    user = _msg("user", "Book the cheapest flight to JFK.")
    search = _request("c1", "search_flights", {"to": "JFK"})
    found = _result("c1", {"flights": ["AF022"]})
    book = _request("c2", "book_flight", {"flight_id": "AF022"})

    def answered(history: list[dict[str, Any]], answer: dict[str, Any], start_s: float) -> AgentSpan:
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(history),
                 "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
        return normalize_span(span("chat", attrs, trace="a1", start_s=start_s))

    calls = [answered([user], search, 0.1), answered([user, search, found], book, 0.3)]
    for spans in (calls, [_agent([user, search, found, book], 0, 1), *calls]):
        rows = to_dialog_turns(build_transcript(spans), ".")
        deps = {getattr(r.predict_turn, "action", None): r.depends_on for r in rows if r.turn == "Tool"}
        search_no = next(
            r.turn_no for r in rows if getattr(r.predict_turn, "action", None) == "search_flights"
        )
        assert deps["book_flight"] == (search_no,), len(spans)


def test_a_call_an_answer_asked_for_keeps_that_answer_s_turn_in_windowed_histories_of_repeated_words() -> (
    None
):
    """Outputs recorded, tool spans present; the app sends the model its last five messages; the same words come
    back every turn ("Shall I book it?", "yes", "Done."), so the windowed histories name them ambiguously (the
    messages' own order there stays unreliable). Each booking is timed by the answer that asked for it: the
    second is never pulled before the user's message that asked for it, nor before the first."""
    u1, u3 = _msg("user", "Book AF022 for Jane."), _msg("user", "Now AF023 for John.")
    ask, yes, done = _msg("assistant", "Shall I book it?"), _msg("user", "yes"), _msg("assistant", "Done.")
    c1, c2 = (
        _request("c1", "book_flight", {"flight_id": "AF022"}),
        _request("c2", "book_flight", {"flight_id": "AF023"}),
    )
    r1, r2 = _result("c1", {"ok": True}), _result("c2", {"ok": True})
    steps = [
        ([u1], ask, None), ([u1, ask, yes], c1, "AF022"), ([u1, ask, yes, c1, r1], done, None),
        ([u1, ask, yes, c1, r1, done, u3], ask, None), ([u1, ask, yes, c1, r1, done, u3, ask, yes], c2, "AF023"),
        ([u1, ask, yes, c1, r1, done, u3, ask, yes, c2, r2], done, None),
        ([u1, ask, yes, c1, r1, done, u3, ask, yes, c2, r2, done, _msg("user", "Bye.")], _msg("assistant", "Bye!"), None),
    ]  # fmt: skip
    spans: list[AgentSpan] = []
    for n, (history, answer, booked) in enumerate(steps):
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(history[-5:]),
                 "gen_ai.output.messages": json.dumps([answer])}  # fmt: skip
        spans.append(normalize_span(span("chat", attrs, trace="a1", start_s=n)))
        if booked:
            spans.append(_tool("a1", "book_flight", {"flight_id": booked}, {"ok": True}, n + 0.5))
    said = [t.text or (t.arguments or {}).get("flight_id") for t in build_transcript(spans)]
    assert said.index("AF022") < said.index("AF023") and said.index("AF023") > said.index(
        "Now AF023 for John."
    )
