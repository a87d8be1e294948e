"""`bench.ratios`' systems differ in what their cost names and nothing else, or a ratio prices something
else: `replay exact + events` once also scored the built-in policy, and that was read as the events' cost."""

from bench.ratios import COSTS, _policies


def test_the_events_run_scores_what_replay_exact_scores() -> None:
    base, with_events = COSTS["events"][1:]
    assert _policies(with_events) == _policies(base) == {}


def test_grounding_is_the_only_difference_between_its_two_systems() -> None:
    base, with_grounding = COSTS["grounding"][1:]
    off, on = _policies(base)["default"], _policies(with_grounding)["default"]
    assert (off.grounding.arguments, off.grounding.replies) == (False, False)
    assert (on.grounding.arguments, on.grounding.replies) == (True, True)
    assert off.model_copy(update={"grounding": on.grounding}) == on
