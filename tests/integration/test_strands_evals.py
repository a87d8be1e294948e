"""AEM inside a real strands-agents-evals Experiment, next to one of the SDK's own evaluators."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

strands_evals = pytest.importorskip(
    "strands_evals", reason="the strands extra is not installed: pip install -e '.[strands]'"
)

from strands_evals import Case, Experiment, StrandsEvalsTelemetry  # noqa: E402
from strands_evals.evaluators import Contains  # noqa: E402

from examples.strands_evals_example import make_task  # noqa: E402
from monitor.integrations.strands_evals import AEMCorrectnessEvaluator  # noqa: E402
from tests.fixtures.record import stub_model  # noqa: E402

pytestmark = pytest.mark.strands
ROOT = Path(__file__).resolve().parents[2]
GOLD = json.loads((ROOT / "monitor" / "data" / "demo" / "gold" / "sales-report-eu.json").read_text())


@pytest.fixture(scope="module")
def run_experiment() -> Any:
    server, url = stub_model.start()
    task = make_task(url, StrandsEvalsTelemetry().setup_in_memory_exporter())

    def run(cases: list[Case]) -> Any:
        experiment = Experiment(
            cases=cases, evaluators=[AEMCorrectnessEvaluator(), Contains("chart is ready")]
        )
        return experiment.run_evaluations(task)

    yield run
    server.shutdown()


def case(name: str, model: str, gold: Any = GOLD["turns"]) -> Case:
    return Case(name=name, input=["Create a sales report for me.", "EU please."], expected_trajectory=gold,
                metadata={"model": model})  # fmt: skip


def results(report: Any, evaluator: str) -> dict[str, Any]:
    """Case name -> EvaluationOutput of one evaluator, from the SDK's EvaluationReport."""
    return {
        row["name"]: outs[0]
        for row, outs in zip(report.cases, report.detailed_results, strict=True)
        if row["evaluator"] == evaluator
    }


def test_correct_case_passes_and_wrong_metric_is_attributed(run_experiment: Any) -> None:
    report = run_experiment([case("correct", "stub-correct"), case("wrong-metric", "stub-wrong-metric")])
    aem = results(report, "correctness")
    ok, bad = aem["correct"], aem["wrong-metric"]
    assert ok.test_pass and ok.score == 1.0 and ok.label == "correctness"
    assert not bad.test_pass and bad.score == 0.25
    full = bad.metadata["aem_report"]
    assert full["root_cause"] == "inconsistent_parameter_values" and full["first_failure_turn"] == 4
    assert full["cascading_count"] == 2
    assert "turn 4: root cause inconsistent_parameter_values (truthfulness; metric)" in bad.reason
    assert "turn 5: cascade from turn 4" in bad.reason and "turn 6: cascade from turn 4" in bad.reason
    # the SDK's own outcome check passes both: the wrong-metric reply still says the chart is ready
    contains = results(report, "Contains")
    assert contains["correct"].test_pass and contains["wrong-metric"].test_pass


def test_case_without_expected_data_is_a_clear_failure_not_a_crash(run_experiment: Any) -> None:
    report = run_experiment([case("no-gold", "stub-correct", gold=None)])
    result = results(report, "correctness")["no-gold"]
    assert not result.test_pass and "no expected_trajectory" in result.reason


def test_predicted_turns_work_as_the_trajectory_too() -> None:
    """Without spans, predicted turns in the golden format are scored the same way."""
    from strands_evals.types import EvaluationData

    predicted = [
        {"turn_no": t["turn_no"], "turn": t["turn"], "predict_turn": t["gold_turn"]} for t in GOLD["turns"]
    ]
    predicted[3]["predict_turn"] = {
        **predicted[3]["predict_turn"],
        "args": {"metric": "profit", "region": "EU"},
    }
    data = EvaluationData(
        name="turns", input="-", expected_trajectory=GOLD["turns"], actual_trajectory=predicted
    )
    [out] = AEMCorrectnessEvaluator().evaluate(data)
    assert not out.test_pass and out.metadata["aem_report"]["first_failure_turn"] == 4


def test_a_trajectory_cannot_carry_the_monitor_s_unrecorded_mark() -> None:
    """`unrecorded` marks live replies no span recorded; handed in as a predicted turn it would become an empty
    message and no reply at all. Refused with the golden format's message, the case named."""
    from strands_evals.types import EvaluationData

    predicted = [{"turn_no": 1, "turn": "Agent", "predict_turn": {"response": "", "unrecorded": "made up"}}]
    data = EvaluationData(
        name="marked", input="-", expected_trajectory=GOLD["turns"], actual_trajectory=predicted
    )
    [out] = AEMCorrectnessEvaluator().evaluate(data)
    assert not out.test_pass and "cannot evaluate 'marked'" in out.reason and "unrecorded" in out.reason
