"""Truthfulness without gold, on real graded runs (the τ-bench slice of `tests/fixtures/tau-bench/`).

Each run is rendered two independent ways — OTel GenAI (`bench.taubench`, the system prompt as
`gen_ai.system_instructions`, no tool definitions) and OpenInference (`bench.taubench_openinference`,
written by someone who had read none of the monitor's rules: system prompt and tool definitions on every
model span, tool errors as status and as `{"error": …}`) — and replayed with no gold and no policy file,
so the built-in policy scores it. The mutations are that helper's too: a grounded id in one call replaced
by a look-alike that appears nowhere, an amount or a date in one reply replaced so, or the write call a
reply claims done removed. The same verdicts are required from both renderings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bench import grounding, taubench
from bench import taubench_openinference as oi

SLICE = Path(__file__).resolve().parent.parent / "fixtures" / "tau-bench"
RENDERINGS = ("genai", "openinference")
Reports = dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[dict[str, Any]], Reports]]:
    runs = json.loads((SLICE / "gpt-4o-airline.slice.json").read_text())
    tools = oi.tool_schemas(runs)
    originals = [
        {"id": taubench.conversation_id(r), "traj": r["traj"], "times": oi.timeline(r["traj"], i)}
        for i, r in enumerate(runs)
    ]
    mutated = grounding.mutations(runs)
    out = tmp_path_factory.mktemp("grounding")
    result = {}
    for rendering in RENDERINGS:
        traffic = grounding.write([*originals, *mutated], rendering, out, tools)
        result[rendering] = (mutated, grounding.replay(traffic, out, None))
    reward = {taubench.conversation_id(r): r["reward"] for r in runs}
    result["reward"] = ([], {cid: {"reward": r} for cid, r in reward.items()})
    return result


def _good(replayed: Mapping[str, tuple[list[dict[str, Any]], Reports]]) -> list[str]:
    return [cid for cid, r in replayed["reward"][1].items() if r["reward"] >= 1.0]


@pytest.mark.parametrize("rendering", RENDERINGS)
def test_good_runs_have_no_grounding_failure(
    replayed: dict[str, tuple[list[dict[str, Any]], Reports]], rendering: str
) -> None:
    _, reports = replayed[rendering]
    for cid in _good(replayed):
        report = reports[cid]
        assert report["references"] == ["policy:builtin"], cid
        assert grounding.grounding_failures(report) == [], cid


@pytest.mark.parametrize("rendering", RENDERINGS)
@pytest.mark.parametrize("kind", ["id", "reply_number", "done_claim"])
def test_each_mutation_is_caught_as_the_root_cause(
    replayed: dict[str, tuple[list[dict[str, Any]], Reports]], rendering: str, kind: str
) -> None:
    mutated, reports = replayed[rendering]
    cases = [m for m in mutated if m["label"]["kind"] == kind]
    assert cases, f"the slice gives no {kind} mutation"
    missed = [m for m in cases if not grounding.caught(reports.get(m["id"]), m["label"])]
    if kind == "done_claim":  # the one known gap: another write of the same kind before the same reply
        missed = [m for m in missed if not _same_write_before(m)]
    assert [m["id"] for m in missed] == [], f"{rendering}: {kind} mutations not caught"


def _same_write_before(m: Mapping[str, Any]) -> bool:
    """A removed write whose reply still follows a successful call of the same kind (`Your reservation has
    been updated` after `update_reservation_flights` and `update_reservation_passengers`, one removed): the
    claim is supported by the other."""
    verb = m["label"]["original"].split("_", 1)[0]
    reply = next(
        i for i, msg in enumerate(m["traj"]) if msg.get("content") and i >= m["label"]["turn_hint"] - 2
    )
    return any(
        c["function"]["name"].startswith(verb)
        for msg in m["traj"][:reply]
        for c in msg.get("tool_calls") or ()
    )


def test_an_invented_id_is_the_root_and_what_used_its_result_cascades(
    replayed: dict[str, tuple[list[dict[str, Any]], Reports]],
) -> None:
    """The call with the look-alike id is the root cause; a later turn that used a value only that call's
    result gave is `prior_action_failed`, pointing to it — in both renderings alike."""
    verdicts = []
    for rendering in RENDERINGS:
        mutated, reports = replayed[rendering]
        cascades = [
            (m["id"], t["root_turn"], reports[m["id"]]["root_causes"])
            for m in mutated
            if m["label"]["kind"] == "id"
            for t in reports[m["id"]]["turns"]
            if t["failure_reason"] == "prior_action_failed"
        ]
        assert cascades, f"{rendering}: no id mutation with a later consumer"
        assert all(root in roots for _, root, roots in cascades)
        verdicts.append(sorted({cid for cid, _, _ in cascades}))  # turn numbers differ between renderings
    assert verdicts[0] == verdicts[1]


def test_provenance_names_each_values_source_turn(
    replayed: dict[str, tuple[list[dict[str, Any]], Reports]],
) -> None:
    """tau-26-2: the user gives the user id and the reservation id; later calls take flight numbers from a
    lookup's result. Both renderings report the same provenance."""
    seen = []
    for rendering in RENDERINGS:
        _, reports = replayed[rendering]
        calls = [t for t in reports["tau-26-2"]["turns"] if t["type"] == "action"]
        sources = {
            (t["predicted"]["tool_id"], path): (p["source"], p.get("turn"))
            for t in calls
            for path, p in (t.get("provenance") or {}).items()
        }
        assert sources, rendering
        assert {s for s, _ in sources.values()} >= {"user", "tool_result"}
        user_said = [k for k, (s, _) in sources.items() if s == "user"]
        assert any(path.endswith(("reservation_id", "user_id")) for _, path in user_said)
        seen.append(sources)
    assert seen[0] == seen[1]


def test_the_readme_recording_reads_as_one_root_and_its_cascade(tmp_path: Path) -> None:
    """`tests/fixtures/tau-grounding` (README, use 0): the real run passes; with one reservation id
    replaced, turn 4 is the root cause and turn 5, which used a user id only that lookup returned, is its
    cascade."""
    from monitor.cli import main

    out = tmp_path / "g.jsonl"
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "tau-grounding"
    assert main(["replay", str(fixtures), "--out", str(out)]) == 0
    reports = {r["conversation_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert reports["tau-44-0"]["test_pass"] and reports["tau-44-0"]["references"] == ["policy:builtin"]
    bad = reports["tau-44-0-m1-id"]
    failed = {t["turn_no"]: (t["failure_reason"], t["root_turn"]) for t in bad["turns"] if not t["success"]}
    assert failed == {4: ("ungrounded_parameter_value", None), 5: ("prior_action_failed", 4)}
    assert bad["turns"][1]["provenance"]["reservation_id"]["source"] == "agent"
