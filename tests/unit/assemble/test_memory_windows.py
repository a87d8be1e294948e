"""Histories a memory window cut (an agent that sends its model only the last few messages, as LangChain's
`trim_messages` or a session limit do) in conversations whose user and agent repeat the same words: every
message once, in order. The rule: monitor/assemble/transcript.py `_occurrences`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from monitor.assemble.transcript import build_transcript
from monitor.model import AgentSpan
from monitor.normalize import normalize_span
from tests.unit.spans import span

#: a conversation whose user says `ok` twice and whose agent answers `Done.` three times
SAID = [
    ("user", "hi"), ("assistant", "Done."),
    ("user", "ok"), ("assistant", "Done."),
    ("user", "ok"), ("assistant", "Done."),
    ("user", "thanks"), ("assistant", "Bye."),
]  # fmt: skip


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _model_call(
    history: list[tuple[str, str]], answer: str, start_s: float, end_s: float, trace: str = "t1"
) -> AgentSpan:
    attrs = {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.conversation.id": "c1",
        "gen_ai.input.messages": json.dumps([_text(role, text) for role, text in history]),
        "gen_ai.output.messages": json.dumps([_text("assistant", answer)]),
    }  # fmt: skip
    return normalize_span(span("chat gpt-4o", attrs, start_s=start_s, end_s=end_s, trace=trace))


def _calls(window: int, twins: bool = False) -> list[AgentSpan]:
    """One model call per user message, each a trace of its own (a request), sent the last `window` messages;
    `twins`: each call also recorded by a second span inside the first (an SDK's span and its HTTP
    client's, say)."""
    spans = []
    for turn, i in enumerate(range(0, len(SAID), 2)):
        history, answer = SAID[: i + 1][-window:], SAID[i + 1][1]
        start = 10.0 * (turn + 1)
        spans.append(_model_call(history, answer, start, start + 2, trace=f"t{turn}"))
        if twins:
            spans.append(_model_call(history, answer, start + 0.5, start + 1.5, trace=f"t{turn}"))
    return spans


def _said(spans: list[AgentSpan]) -> list[tuple[str, str | None]]:
    return [(t.kind, t.text) for t in build_transcript(spans)]


EXPECTED = [("user" if role == "user" else "reply", text) for role, text in SAID]


@pytest.mark.parametrize("window", [1, 2, 3, 4, 5, 100])
def test_a_history_cut_by_a_memory_window_loses_no_repeated_message_and_keeps_the_order(window: int) -> None:
    """Before: with a window of 2 the second `ok` and the third `Done.` were taken for the first ones (counted
    from the window's start) and lost; with 3 the first `ok` was put before the first `Done.`. With a window of
    the new message alone (an agent with no memory) 3 of the 8 messages were lost: each answer was counted
    from its one-message history, so every `Done.` after the first was taken for the first, and the second
    `ok`, sent alone as the first had been, for the first."""
    assert _said(_calls(window)) == EXPECTED


@pytest.mark.parametrize("window", [1, 2, 3, 100])
def test_two_spans_of_one_windowed_call_are_one_call(window: int) -> None:
    """The second span of a call starts before the first one ends: the first one's answer is not yet
    something said before it, so the same answer is the same message, not a fourth `Done.`."""
    assert _said(_calls(window, twins=True)) == EXPECTED


def test_a_guardrail_call_shown_the_new_message_alone_adds_no_message() -> None:
    """A guardrail model call sent only the user's new message (`ok`, said before) ahead of the agent's own
    windowed call: the agent's call places it, and a guardrail's history that matches no end of what was
    seen is read as before."""
    attrs = {
        "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "c1",
        "gen_ai.input.messages": json.dumps([_text("user", "ok")]),
    }  # fmt: skip
    guard = normalize_span(span("chat guard", attrs, start_s=29.0, end_s=29.5))
    assert _said([*_calls(2), guard]) == EXPECTED


def test_the_same_spans_in_any_order_give_the_same_turns() -> None:
    spans = _calls(2, twins=True)
    assert _said(list(reversed(spans))) == _said(spans) == EXPECTED


def _call(
    history: Sequence[dict[str, Any] | tuple[str, str]],
    start_s: float,
    answer: str | None = None,
    name: str = "chat",
) -> AgentSpan:
    """A model call of 2 s; `answer` None: an instrumentation that records inputs only."""
    attrs = {
        "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "c1",
        "gen_ai.input.messages": json.dumps([m if isinstance(m, dict) else _text(*m) for m in history]),
    }  # fmt: skip
    if answer is not None:
        attrs["gen_ai.output.messages"] = json.dumps([_text("assistant", answer)])
    return normalize_span(span(name, attrs, start_s=start_s, end_s=start_s + 2))


def test_a_window_of_tool_messages_alone_is_followed_by_a_new_answer() -> None:
    """A window of 2 that holds only a tool call and its result: the answer after it is the agent's second
    `Done.`, not its first again (it was lost)."""
    asked = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {}}],
    }
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "R"}]}
    spans = [
        _call([("user", "hi")], 10, "Done."),
        _call([("assistant", "Done."), ("user", "yes")], 20),  # asks for the lookup (inputs only here)
        _call([asked, result], 30, "Done."),
    ]
    assert [t for t in _said(spans) if t[0] != "call"] == [
        ("user", "hi"), ("reply", "Done."), ("user", "yes"), ("reply", "Done."),
    ]  # fmt: skip


def test_an_inputs_only_guardrail_shown_the_last_two_messages_changes_nothing() -> None:
    """Inputs only: the guardrail shows the agent's reply `Sure.` before any history did, and the user says
    `hi` again. The next full history holds every message seen: counted from its start (a review found the
    first version of the rule counting its messages again)."""
    hi, sure = ("user", "hi"), ("assistant", "Sure.")
    spans = [_call([hi], 10), _call([sure, hi], 20, name="chat guard"), _call([hi, sure, hi], 21)]
    assert _said(spans) == [("user", "hi"), ("reply", "Sure."), ("user", "hi"), ("reply", None)]


@pytest.mark.parametrize(
    ("name", "answer", "start_s"), [("chat judge", None, 23), ("chat http", "Done.", 22.5)]
)
def test_a_window_sent_again_after_its_call_by_another_kind_of_call_is_the_same_messages(
    name: str, answer: str | None, start_s: float
) -> None:
    """A judge sent the call's window after the call ended, or a twin span of the call whose clock is late:
    the same messages, no second `yes` (and no second `Done.`)."""
    said = [("user", "hi"), ("assistant", "Done."), ("user", "yes")]
    spans = [
        _call(said[:1], 10, "Done."),
        _call(said[-2:], 20, "Done."),
        _call(said[-2:], start_s, answer, name),
    ]
    assert _said(spans) == [("user", "hi"), ("reply", "Done."), ("user", "yes"), ("reply", "Done.")]


def test_a_summary_at_a_windows_head_adds_no_message() -> None:
    """Semantic Kernel's summarising reducer puts the summary it got back at the head of the next history:
    the messages after it were seen (before the summary), so they are not new (a second review found them
    counted twice). The summary itself reads as a reply, as it did."""
    q0, a0, q1, a1, q2 = (
        ("user", "q0"),
        ("assistant", "a0"),
        ("user", "q1"),
        ("assistant", "a1"),
        ("user", "q2"),
    )
    summary = "Summary: the user asked q0."
    spans = [
        _call([q0], 10, "a0"),
        _call([q0, a0, q1], 20, "a1"),
        _call([q0, a0, ("system", "Summarize the chat")], 26, summary),
        _call([("assistant", summary), q1, a1, q2], 30, "a2"),
    ]
    assert _said(spans) == [
        ("user", "q0"), ("reply", "a0"), ("reply", summary), ("user", "q1"), ("reply", "a1"), ("user", "q2"),
        ("reply", "a2"),
    ]  # fmt: skip


def test_an_agent_span_that_showed_the_run_ahead_of_its_calls_leaves_whole_histories_as_they_are() -> None:
    """An agent's span (the OpenAI Agents shape) starts before its model calls and records the run's items:
    those messages are seen ahead of the calls, but no call's answer shows a whole history to be behind, so
    it is counted from its start (a second review found a `yes` and an `ok` counted twice)."""
    yes, ok = ("user", "yes"), ("assistant", "ok")
    asks = {
        "role": "assistant",
        "parts": [
            {"type": "text", "content": "ok"},
            {"type": "tool_call", "id": "c1", "name": "book", "arguments": {}},
        ],
    }
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "R"}]}
    run: list[dict[str, Any] | tuple[str, str]] = [yes, ok, yes, asks, result]
    agent = {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a", "gen_ai.conversation.id": "c1",
        "gen_ai.input.messages": json.dumps([m if isinstance(m, dict) else _text(*m) for m in run]),
        "gen_ai.output.messages": json.dumps([_text("assistant", "Sure.")]),
    }  # fmt: skip
    spans = [
        _call([yes], 10, "ok"),
        normalize_span(span("invoke_agent a", agent, start_s=19.5, end_s=29)),
        _call(run[:3], 20, "ok"),
        _call(run, 24, "Sure."),
    ]
    assert [t for t in _said(spans) if t[0] != "call"] == [
        ("user", "yes"), ("reply", "ok"), ("user", "yes"), ("reply", "ok"), ("reply", "Sure."),
    ]  # fmt: skip


def test_a_guardrail_beside_the_call_does_not_hide_the_call_from_a_judge_sent_its_input_later() -> None:
    """An input guardrail runs beside the windowed call (no answer), then a judge is sent the same input: the
    judge's messages are the call's, read as the guardrail read them (a review found a phantom `ok`)."""
    hi, done, ok = ("user", "hi"), ("assistant", "Done."), ("user", "ok")
    spans = [
        _call([hi], 10, "Done."),
        _call([done, ok], 20, "Done."),
        _call([done, ok], 20.1, name="chat guard"),
        _call([done, ok], 27, name="chat judge"),
    ]
    assert _said(spans) == [("user", "hi"), ("reply", "Done."), ("user", "ok"), ("reply", "Done.")]


def test_a_long_session_under_a_window_of_ten_keeps_every_message() -> None:
    """300 turns, each call sent the last 10 messages; the user says `ok` every third turn and the agent
    `Done.` every other one (before: 351 of the 600 messages read)."""
    said: list[tuple[str, str]] = []
    spans = []
    for k in range(300):
        said.append(("user", "ok" if k % 3 == 0 else f"question {k}"))
        answer = "Done." if k % 2 else f"answer {k}"
        spans.append(_call(said[-10:], 10.0 * k + 1, answer))
        said.append(("assistant", answer))
    got = _said(spans)
    assert len(got) == len(said)
    assert got == [("user" if role == "user" else "reply", text) for role, text in said]


def test_a_side_call_sent_the_first_message_leaves_whole_histories_as_they_are() -> None:
    """A chat-title call sent the first message answers words no history holds; a user who says his first
    words again (`hi`) is still one message more, not a window's start (a third review found two phantom
    messages)."""
    hi, hello, bye = ("user", "hi"), ("assistant", "Hello"), ("user", "bye")
    spans = [
        _call([hi], 10, "Hello"),
        _call([("system", "Give this chat a title"), hi], 13, "Greeting", name="chat title"),
        _call([hi, hello, hi], 20, "Hello"),
        _call([hi, hello, hi, hello, bye], 30, "Bye"),
    ]
    assert _said(spans) == [
        ("user", "hi"), ("reply", "Hello"), ("reply", "Greeting"), ("user", "hi"), ("reply", "Hello"),
        ("user", "bye"), ("reply", "Bye"),
    ]  # fmt: skip


def _agent_turns(
    said: Sequence[tuple[str, str]], window: int, agent: str, guard: str, twins: bool = False
) -> list[AgentSpan]:
    """Per user message at 100 s apart: an agent's span (`agent`: shown the new message alone, `new`, or the
    whole run, `full`; its answer the reply) around the agent's model call, sent the last `window` messages;
    a guardrail sent the last two messages inside the call (`guard`: `during`) or the last `window` with
    the reply after it (`after`); `twins`: a twin span of the call (another name) just after it."""
    spans, msgs = [], []
    for k, (user, reply) in enumerate(said):
        at = 100.0 * (k + 1)
        msgs.append(("user", user))
        shown = msgs if agent == "full" else msgs[-1:]
        attrs = {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a", "gen_ai.conversation.id": "c1",
            "gen_ai.input.messages": json.dumps([_text(*m) for m in shown]),
            "gen_ai.output.messages": json.dumps([_text("assistant", reply)]),
        }  # fmt: skip
        spans += [
            normalize_span(span("invoke_agent a", attrs, start_s=at + 0.5, end_s=at + 9)),
            _call(msgs[-window:], at + 1, reply),
        ]
        if guard == "during":
            spans.append(_call(msgs[-2:], at + 1.1, name="chat guard"))
        if twins:
            spans.append(_call(msgs[-window:], at + 3.1, reply, name="chat http"))
        msgs.append(("assistant", reply))
        if guard == "after":
            spans.append(_call(msgs[-window:], at + 8, name="chat guard"))
    return spans


def test_an_agent_span_shown_the_new_message_alone_does_not_hide_a_later_window_s_place() -> None:
    """The agent's span shows the user's second `thanks` first (it starts before its model call and ends
    after the guardrail that checks the reply): the guardrail's window, which starts before that `thanks`,
    is still read as a window — the model call that showed the `thanks` too had ended — so the first `thanks`
    keeps its place before the first answer to it (it was put after it)."""
    said = [("yes", "yes"), ("u1", "Sure."), ("yes", "Done."), ("thanks", "a3"), ("thanks", "a4")]
    expected = [
        ("user" if i % 2 == 0 else "reply", text) for i, text in enumerate(w for pair in said for w in pair)
    ]
    assert _said(_agent_turns(said, window=3, agent="new", guard="after")) == expected


def test_a_twin_of_a_stateless_agent_s_call_is_not_its_next_turn() -> None:
    """An agent with no memory (each call sent the new message alone) whose user says `ok` twice, a twin span
    of each call just after it, and a guardrail inside it: the twin of the second `ok`'s call is sent what
    the twin of the first one was, but it is a twin of the call just read, not the agent's next turn (a third
    `ok` and a second `yes` were read)."""
    said = [("u0", "Done."), ("ok", "Done."), ("u2", "yes"), ("u3", "a3"), ("ok", "yes"), ("hi", "yes")]
    expected = [
        ("user" if i % 2 == 0 else "reply", text) for i, text in enumerate(w for pair in said for w in pair)
    ]
    assert _said(_agent_turns(said, window=1, agent="full", guard="during", twins=True)) == expected


HI, HELLO, BOOK = ("user", "hi"), ("assistant", "Hello!"), ("user", "Book a table for 2")
RETRIED = [("user", "hi"), ("reply", "Hello!"), ("user", "Book a table for 2"), ("reply", "Booked for 2.")]


@pytest.mark.parametrize("window", [2, 3, 100])
def test_a_call_sent_again_after_it_answered_is_a_retry_not_the_next_turn(window: int) -> None:
    """A chain's `with_retry`, a regenerate or a parse error's second attempt sends the same messages again
    after the first attempt answered: the same messages and the same answer (a review found a retried whole
    history read as the conversation said twice, and a correct run failing)."""
    history = [HI, HELLO, BOOK][-window:]
    spans = [
        _call([HI], 10, "Hello!"),
        _call(history, 20, "Booked for 2."),
        _call(history, 23, "Booked for 2."),
    ]
    assert _said(spans) == RETRIED


@pytest.mark.parametrize("window", [1, 100])
def test_the_first_call_sent_again_after_it_answered_is_a_retry(window: int) -> None:
    """The first call retried: the conversation's first words alone again are a retry, even under a window of
    one message, where an agent with no memory's next turn would look the same (words cannot tell them
    apart; a user who says his first words again to such an agent is read as before)."""
    spans = [
        _call([HI], 10, "Hello!"),
        _call([HI], 13, "Hello!"),
        _call([HI, HELLO, BOOK][-window:], 20, "Booked for 2."),
    ]
    assert _said(spans) == RETRIED


def test_a_one_message_call_sent_again_in_its_trace_is_a_retry() -> None:
    """An agent with no memory whose call is retried (`with_retry`, a `RetryPolicy`, self-consistency's
    samples one after another) in the same run: one turn, not the user saying it again (a review found
    `Book a table for 2` and its answer read two and three times). Its next run is another trace."""
    spans = [_call([HI], 10, "Hello!"), *(_call([BOOK], 20 + 3 * k, "Booked for 2.") for k in range(3))]
    assert _said(spans) == RETRIED
