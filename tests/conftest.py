"""Shared fixtures: the real shipped ONNX model, loaded once per test session."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from monitor.compare.embedder import OnnxEmbedder, load_embedder
from monitor.compare.ladder import Ladder, build_ladder
from monitor.config import ScoringConfig
from monitor.model import Dialog
from monitor.reference.golden import parse_dialog

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


_GC_THRESHOLDS = gc.get_threshold()


#: the modules that start Kafka brokers and replicas: under `pytest -n 2` one worker runs them one after the other
KAFKA_MODULES = frozenset({"tests/integration/test_kafka.py", "tests/integration/test_collector_kafka.py"})


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's, called only under `-n`
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `pytest -n 2` (.ci/test) the suite runs on two workers a module at a time, so that a module's own
    fixtures (a Prometheus, a loadgen run) start once, and the Kafka modules as one unit: one broker and its
    replicas at a time. They wait on the broker and on windows closing far more than they compute, so the other
    worker's modules, which compute, run beside them."""
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class ByModule(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "kafka" if module in KAFKA_MODULES else module

    return ByModule(config, log)


@pytest.fixture(autouse=True)
def _collector_as_python_sets_it() -> Iterator[None]:
    """`replay`/`run` called in-process settle the heap for a long run (runtime/heap.py: gc.freeze,
    higher thresholds); each test starts from Python's own collector settings again."""
    yield
    gc.unfreeze()
    gc.set_threshold(*_GC_THRESHOLDS)


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    return load_embedder(ScoringConfig().embedder)


@pytest.fixture(scope="session")
def ladder(embedder: OnnxEmbedder) -> Ladder:
    return Ladder(ScoringConfig(), embedder)


@pytest.fixture(scope="session")
def multilingual_ladder() -> Ladder:
    """The default ladder with the multilingual extra (CI installs it; elsewhere the test is skipped)."""
    built = build_ladder(ScoringConfig())
    if built.multilingual is None:
        if os.environ.get("CI"):
            pytest.fail("the multilingual extra is not installed in CI (.ci/setup installs it)")
        pytest.skip("pip install 'agent-monitor[multilingual]' to run")
    return built


def dialog(turns: list[dict[str, Any]], **extra: Any) -> Dialog:
    return parse_dialog({"dialog_id": extra.pop("dialog_id", "t"), "turns": turns, **extra}, "test", "t")


def action(tool: str, act: str, args: dict[str, Any], result: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"tool_id": tool, "action": act, "args": args}
    if result is not None:
        out["result"] = result
    return out


def article_dialog() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "article_sales_report.json").read_text())
    return data


def tool_turn(
    no: int, gold: dict[str, Any], predicted: Any, role: str = "Tool", **extra: Any
) -> dict[str, Any]:
    return {"turn_no": no, "turn": role, "gold_turn": gold, "predict_turn": predicted, **extra}


#: A CRM lookup that finds the wrong account: the usual first failure of the attribution tests.
WRONG_LOOKUP = tool_turn(
    1,
    action("crm", "Find", {"name": "Acme"}, {"id": "ACC-1001"}),
    action("crm", "Find", {"name": "Apex"}, {"id": "ACC-2002"}),
)
