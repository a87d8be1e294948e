"""Which partition a trace without a conversation id goes to in Kafka (history.opening_key): every
trace of a conversation to the same one."""

from __future__ import annotations

from monitor.assemble.history import opening_key
from tests.unit.assemble.test_windows import chat

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
