"""Facts after a long run of digits, dots or dotted letters: what a model's repetition loop or a data blob
puts before an ordinary sentence. The fact reader reads a number from where its run starts (a pattern
tried at every character of a run costs the square of its length: `python -m bench.hostile`); these
check that the sentence after such a run is read as it is read alone."""

from __future__ import annotations

import pytest

from monitor.compare.facts import extract_facts

RUNS = {
    "digits": "9" * 5000,
    "list numbers": "1." * 3000,
    "comma digits": "1," * 3000,
    "slashes": "1/" * 3000,
    "dotted letters": "a." * 3000,
    "digit groups": "number " + "1234 " * 1000,
    "yuan": "一2元" * 2000,
}
SENTENCES = [
    "The plan is $65/mo after the trial.",
    "It costs $10 a day, billed twice a week.",
    "Write to bob.smith@example.com about booking ABC123.",
    "套餐99元一个月，送8个G流量。",
    "一共128元5角。",
]


@pytest.mark.parametrize("run", list(RUNS), ids=list(RUNS))
@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_sentence_after_a_long_run_is_read_as_alone(run: str, sentence: str) -> None:
    alone = extract_facts(sentence).facts
    after = extract_facts(f"{RUNS[run]} \n{sentence}").facts
    assert alone, sentence
    assert set(alone) <= set(after)
