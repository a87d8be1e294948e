"""Strands Agents Evals integration: AEM as a custom evaluator (`pip install 'agent-monitor[strands]'`).

    from monitor.integrations.strands_evals import AEMCorrectnessEvaluator
    Experiment(cases=cases, evaluators=[AEMCorrectnessEvaluator(), ToolCalled("filter_data")])

Each case's `expected_trajectory` is the gold reference: a golden dialog in this project's format (a
list of turns, or `{"dialog_id", "turns", "metadata"}`; `predict_turn` absent). The actual side is
the case's `actual_trajectory`: either the spans the SDK collected for the run (StrandsEvalsTelemetry's
in-memory exporter), which go through the same decode → normalize → assemble → align path as live
traffic, so the SDK and production monitoring give the same verdicts; or predicted turns in the
golden format. The output: `score` = AEM success rate, `test_pass`, a `reason` naming failing turns,
sub-metrics and root causes, `label` = `correctness`, and the full dialog report in `metadata`.
A case that cannot be evaluated (no expected data, unreadable trajectory) gets `test_pass: false`
with the reason, never an exception that stops the experiment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from strands_evals.evaluators import Evaluator
from strands_evals.types import EvaluationData, EvaluationOutput

from monitor.config import load_config
from monitor.errors import MonitorError
from monitor.model import ActionContent, AgentSpan, Dialog, DialogTurn, ResponseContent
from monitor.reference.golden import DialogError, parse_dialog, unrecorded_marks
from monitor.reference.policy import Policy, load_policies

LABEL = "correctness"


class AEMCorrectnessEvaluator(Evaluator):  # type: ignore[misc]
    """Decomposed, per-turn AEM correctness with root-cause attribution, inside a Strands Evals run."""

    def __init__(
        self,
        config: Path | None = None,
        composition: str | None = None,
        policy: Path | None = None,
        name: str = LABEL,
    ) -> None:
        super().__init__(name=name)
        cfg = load_config(config)
        if composition is not None:
            cfg = cfg.model_copy(
                update={"composition": cfg.composition.model_copy(update={"rule": composition})}
            )
        self.config = cfg
        self.policies: dict[str, Policy] = load_policies(policy) if policy else {}
        self._ladder: Any = None

    def evaluate(self, evaluation_case: EvaluationData) -> list[EvaluationOutput]:
        name = evaluation_case.name or "case"
        try:
            report = self.report(evaluation_case)
        except (MonitorError, DialogError, ValueError) as exc:
            return [
                EvaluationOutput(
                    score=0.0, test_pass=False, reason=f"cannot evaluate {name!r}: {exc}", label=LABEL
                )
            ]
        return [
            EvaluationOutput(
                score=report["success_rate"],
                test_pass=report["test_pass"],
                reason=reason(report),
                label=LABEL,
                metadata={"aem_report": report},
            )
        ]

    async def evaluate_async(self, evaluation_case: EvaluationData) -> list[EvaluationOutput]:
        return self.evaluate(evaluation_case)

    def report(self, case: EvaluationData) -> dict[str, Any]:
        """The full conversation report (the same JSON as `replay` writes) for one case."""
        from monitor.compare.ladder import build_ladder
        from monitor.runtime.conversation import score_conversation

        name = case.name or "case"
        if not case.expected_trajectory:
            raise ValueError(
                "no expected_trajectory: give the gold reference as a golden dialog (list of turns)"
            )
        expected = case.expected_trajectory
        gold = parse_dialog(
            expected if isinstance(expected, dict) else list(expected), f"case {name!r}", name
        )
        if self._ladder is None:
            self._ladder = build_ladder(self.config)
        spans = self._spans(case, gold.dialog_id)
        result = score_conversation(
            name,
            spans,
            {gold.dialog_id: gold},
            self._ladder,
            composition=self.config.composition,
            alignment_config=self.config.alignment,
            policies=self.policies,
            separator=self.config.normalize.tool_action_separator,
        )
        return result.to_json()

    def _spans(self, case: EvaluationData, reference_id: str) -> list[AgentSpan]:
        trajectory = case.actual_trajectory
        if not trajectory:
            raise ValueError(
                "no actual_trajectory: return {'output': …, 'trajectory': <spans>} from the task"
            )
        if all(isinstance(t, dict) for t in trajectory):
            return _turn_spans(list(trajectory), reference_id)
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        from monitor.decode.otlp import decode_request
        from monitor.normalize import normalize_span

        payload = encode_spans(list(trajectory)).SerializeToString()
        decoded = decode_request(payload, "application/x-protobuf", f"case {case.name!r}")
        return [
            normalize_span(s, self.config.normalize).model_copy(
                update={"reference_id": reference_id, "conversation_id": case.name}
            )
            for s in decoded.spans
        ]


def _turn_spans(turns: list[dict[str, Any]], reference_id: str) -> list[AgentSpan]:
    """Predicted turns in the golden format, as synthetic spans the assembler reads like live ones."""
    from monitor.model import Message, Span, ToolInvocation

    out: list[AgentSpan] = []
    for i, raw in enumerate(turns, start=1):
        turn = DialogTurn.model_validate({"turn_no": raw.get("turn_no", i), **raw})
        if marks := unrecorded_marks(turn):
            raise ValueError(marks[0])
        content = turn.predict_turn or turn.gold_turn
        span = Span(
            trace_id="0" * 32,
            span_id=f"{i:016x}",
            parent_span_id=None,
            name=turn.turn,
            kind=1,
            start_ns=i * 1000,
            end_ns=i * 1000 + 1,
            status="OK",
        )
        if isinstance(content, ActionContent):
            tool = ToolInvocation(
                name=content.name,
                call_id=f"call-{i}",
                arguments=content.args,
                result=content.result,
            )
            out.append(
                AgentSpan(span=span, convention="unknown", kind="tool", tool=tool, reference_id=reference_id)
            )
        elif isinstance(content, ResponseContent):
            role = "user" if turn.turn == "User" else "assistant"
            message = Message(role=role, text=content.response)
            out.append(
                AgentSpan(
                    span=span,
                    convention="unknown",
                    kind="llm",
                    output_messages=(message,),
                    reference_id=reference_id,
                )
            )
    return out


def reason(report: dict[str, Any]) -> str:
    """One readable line: which turns failed, on which sub-metric, and which are root causes."""
    failed = [t for t in report.get("turns", []) if not t["success"]]
    if not failed:
        return f"all {len(report.get('turns', []))} turns pass (AEM success rate 1.0)"
    parts = []
    for t in failed:
        if t["failure_reason"] == "prior_action_failed":
            parts.append(
                f"turn {t['turn_no']}: cascade from turn {t['root_turn']} ({t['observed_failure_reason']})"
            )
        else:
            parts.append(
                f"turn {t['turn_no']}: root cause {t['failure_reason']} ({t['sub_metric']}; {', '.join(t['fields'])})"
            )
    head = (
        f"AEM success rate {report['success_rate']:.2f}; "
        f"{report['root_cause_count']} root cause(s), {report['cascading_count']} cascade(s)"
    )
    return head + ": " + "; ".join(parts)


__all__ = ["AEMCorrectnessEvaluator", "Dialog", "reason"]
