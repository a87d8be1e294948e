"""AEM inside a Strands Agents Evals experiment: a two-tool agent, two cases, no network.

    .venv/bin/pip install -e '.[strands]'   # once
    .venv/bin/python examples/strands_evals_example.py

The agent talks to a scripted OpenAI-compatible model on 127.0.0.1 (tests/fixtures/record/stub_model.py):
the `correct` case asks for revenue; `wrong-metric` passes profit (the article's turn-2 error).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from strands import Agent, tool
from strands.models.openai import OpenAIModel
from strands_evals import Case, Experiment, StrandsEvalsTelemetry
from strands_evals.evaluators import Contains

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from monitor.integrations.strands_evals import AEMCorrectnessEvaluator  # noqa: E402
from tests.fixtures.record import stub_model  # noqa: E402

GOLD = json.loads((ROOT / "monitor/data/demo/gold/sales-report-eu.json").read_text())["turns"]


@tool
def filter_data(metric: str, region: str) -> str:
    """Filter the sales data by metric (e.g. revenue) and region."""
    return json.dumps({"dataset_id": f"ds_{region.lower()}_{metric}_2024", "rows": 412})


@tool
def create_chart(dataset_id: str, chart_type: str) -> str:
    """Create a chart from a filtered dataset."""
    metric = dataset_id.split("_")[2]
    return json.dumps({"chart_id": f"ch_{metric[:4]}_{77 if metric == 'revenue' else 91}"})


def make_task(url: str, telemetry: StrandsEvalsTelemetry) -> Any:
    """The experiment's task: run the two-tool agent on a case, return its output and the collected spans."""

    def task(case: Case) -> dict[str, Any]:
        telemetry.in_memory_exporter.clear()
        model = OpenAIModel(client_args={"base_url": url, "api_key": "stub"}, model_id=case.metadata["model"])
        agent = Agent(model=model, tools=[filter_data, create_chart], callback_handler=None, name="reports-agent",
                      trace_attributes={"session.id": case.name})  # fmt: skip
        result = None
        for text in case.input:
            result = agent(text)
        return {"output": str(result), "trajectory": list(telemetry.in_memory_exporter.get_finished_spans())}

    return task


def main() -> None:
    server, url = stub_model.start()
    task = make_task(url, StrandsEvalsTelemetry().setup_in_memory_exporter())
    cases = [
        Case(name=name, input=["Create a sales report for me.", "EU please."], expected_trajectory=GOLD, metadata={"model": model})
        for name, model in (("correct", "stub-correct"), ("wrong-metric", "stub-wrong-metric"))
    ]  # fmt: skip
    report = Experiment(cases=cases, evaluators=[AEMCorrectnessEvaluator(), Contains("chart is ready")]).run_evaluations(task)
    for row, outputs in zip(report.cases, report.detailed_results, strict=True):
        out = outputs[0]
        print(f"{row['name']:<13} {row['evaluator']:<12} score={out.score:.2f} pass={out.test_pass}  {out.reason}")
    server.shutdown()


if __name__ == "__main__":
    main()
