"""Grounding on real runs: what the monitor catches with no gold, and what it flags on good runs.

    .venv/bin/python -m bench.grounding                 # both renderings, built-in policy and the team's
    .venv/bin/python -m bench.grounding --runs 40       # a quick look: the first 40 runs
    .venv/bin/python -m bench.grounding --blind         # the blind set of other domains (below)

τ-bench airline (`../shared/data/tau-bench`, MIT): 200 real gpt-4o runs with the benchmark's grade. The
mutation set is `bench/taubench_openinference.py`'s, written by a helper who had read none of the
monitor's rules: in a run the benchmark passed, one grounded id in one call replaced by a look-alike that
appears nowhere (`id`), one amount or date in one reply replaced so (`reply_number`), or the write call a
reply claims done removed (`done_claim`). Each set is rendered two independent ways — OpenInference (the
helper's: system prompt and tool definitions on every model span, tool errors as status and as
`{"error": …}`) and OTel GenAI (`bench/taubench.py`'s: `gen_ai.system_instructions`,
`gen_ai.tool.definitions`, errors as span status) — and replayed with the real CLI, with no gold:

- with no policy file (the built-in policy): a mutation is caught when the mutated turn fails as a root
  cause with `ungrounded_parameter_value` / `unsupported_claim`; good runs with any grounding failure are
  listed with why;
- with the team's policy (`policy-airline.yaml`): good runs flagged, and failing runs caught, by reason.

`--blind`: `bench/data/grounding_blind/conversations.jsonl`, 80 conversations of ten other domains (shop,
banking, hotel, helpdesk, pharmacy, telecom, restaurant, car rental, insurance, HR; 10 in Chinese),
written by a helper session that had read none of the rules: 40 good ones made hard on purpose (values
said in other forms, computed, relative dates, system-prompt facts, enum choices) and 40 with one
invented value, unsupported fact or false done-claim each, labelled. Rendered both ways, replayed with no
gold: good ones with a grounding failure, and bad ones whose labelled value is a root cause.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench import taubench
from bench import taubench_openinference as oi

GROUNDING = ("ungrounded_parameter_value", "unsupported_claim")
POLICY = taubench.DATA / "policy-airline.yaml"


def mutations(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The helper's mutations of every reward-1 run, as runs of their own (with their label)."""
    out = []
    for i, run in enumerate(runs):
        if run["reward"] != 1.0:
            continue
        times = oi.timeline(run["traj"], i)
        k = 0
        for kind, mutate in oi.MUTATORS.items():
            for mu in mutate(run["traj"], times, random.Random(f"{kind}-{i}")):
                k += 1
                cid = f"tau-{run['task_id']}-{run['trial']}-m{k}-{kind}"
                label = {"kind": kind, "turn_hint": mu.turn_hint, "original": mu.original}
                label |= {"replacement": mu.replacement, "where": mu.where}
                out.append({"id": cid, "index": i, "traj": mu.traj, "times": mu.times, "label": label})
    return out


def write(convs: Sequence[Mapping[str, Any]], rendering: str, out: Path, tools: list[str]) -> Path:
    """Each conversation as one OTLP request file, in the chosen rendering."""
    folder = out / rendering
    folder.mkdir(parents=True, exist_ok=True)
    start = 1_715_000_000 * 10**9
    for n, c in enumerate(convs):
        path = folder / f"{n:04d}.pb"
        if rendering == "openinference":
            path.write_bytes(oi.render(c["id"], c["traj"], c["times"], tools))
        else:
            run = {"task_id": 0, "trial": 0, "traj": c["traj"]}
            conv = taubench.live_conversation(run)
            conv.conversation_id = c["id"]
            system = taubench.system_prompt(run)
            definitions = [json.loads(t) for t in tools]
            body = taubench.export_request(conv, start + n * 3600 * 10**9, n, system, definitions)
            path.write_bytes(body.SerializeToString())
    return folder


#: the bench's replay config: reports unredacted, so a labelled email or card number a root cause names is
#: found (`blind_report`); what is judged does not depend on redaction, only what a report shows of it
CONFIG = "redaction:\n  enabled: false\n"


def replay(traffic: Path, out: Path, policy: Path | None) -> dict[str, dict[str, Any]]:
    reports = out / f"{traffic.name}-{'policy' if policy else 'builtin'}.jsonl"
    config = out / "bench-config.yaml"
    config.write_text(CONFIG)
    options = ["--config", str(config)] + (["--policy", str(policy)] if policy is not None else [])
    return {
        r["conversation_id"]: r
        for r in taubench.run_replay(traffic, reports, *options)
        if r.get("version", 1) >= 1
    }


def caught(report: Mapping[str, Any] | None, label: Mapping[str, Any]) -> bool:
    """The mutated turn fails as a root cause, for a grounding reason."""
    if report is None:
        return False
    for t in report.get("turns", []):
        if t["failure_reason"] not in GROUNDING:
            continue
        text = json.dumps(t.get("predicted") or {}, ensure_ascii=False)
        if label["kind"] == "id" and t["type"] == "action" and label["replacement"] in text:
            return True
        if label["kind"] == "reply_number" and t["type"] == "response" and label["replacement"] in text:
            return True
        if label["kind"] == "done_claim" and t["type"] == "response" and "response.done" in t["fields"]:
            return True
    return False


def grounding_failures(report: Mapping[str, Any]) -> list[str]:
    return [
        f"turn {t['turn_no']} {t['failure_reason']}: {t['detail'][:200]}"
        for t in report.get("turns", [])
        if t["failure_reason"] in GROUNDING
    ]


def failures(report: Mapping[str, Any]) -> list[str]:
    return [
        f"turn {t['turn_no']} {t['failure_reason']}: {t['detail'][:160]}"
        for t in report.get("turns", [])
        if not t["success"]
    ]


BLIND = Path(__file__).with_name("data") / "grounding_blind" / "conversations.jsonl"


def blind_traffic(convs: Sequence[Mapping[str, Any]], rendering: str, out: Path) -> Path:
    """The blind set's conversations as OTLP requests, each at its own `now`."""
    folder = out / f"blind-{rendering}"
    folder.mkdir(parents=True, exist_ok=True)
    for n, c in enumerate(convs):
        start = int(datetime.fromisoformat(c["now"].replace("Z", "+00:00")).timestamp()) * 10**9
        msgs = c["messages"]
        if rendering == "openinference":
            times = [start + k * 5 * 10**9 for k in range(len(msgs))]
            body = oi.render(c["id"], msgs, times, [json.dumps(t) for t in c["tools"]])
        else:
            conv = taubench.live_conversation({"task_id": 0, "trial": 0, "traj": msgs})
            conv.conversation_id = c["id"]
            system = taubench.system_prompt({"traj": msgs})
            body = taubench.export_request(conv, start, n, system, c["tools"]).SerializeToString()
        (folder / f"{n:04d}.pb").write_bytes(body)
    return folder


def blind_report(
    rendering: str, convs: Sequence[Mapping[str, Any]], reports: Mapping[str, Any]
) -> dict[str, Any]:
    """Good conversations with a grounding failure; bad ones whose labelled value a root cause names."""
    false_alarms: dict[str, list[str]] = {}
    caught_by: dict[str, list[str]] = {}
    for c in convs:
        report, label = reports.get(c["id"], {}), c["label"]
        roots = [t for t in report.get("turns", []) if t["failure_reason"] in GROUNDING]
        if label["verdict"] == "good":
            if roots:
                false_alarms[c["id"]] = [
                    f"turn {t['turn_no']} {t['failure_reason']}: {t['detail'][:160]}" for t in roots
                ]
            continue
        wanted = _norm(str(label["value"]))
        named = any(
            wanted[:40] in _norm(json.dumps(t.get("predicted"), ensure_ascii=False) + t["detail"])
            for t in roots
        )
        outcome = "caught" if named else "flagged elsewhere" if roots else "missed"
        caught_by.setdefault(label["kind"], []).append(f"{outcome}: {c['id']} ({label['value']!r})")
    good = sum(1 for c in convs if c["label"]["verdict"] == "good")
    print(f"\n## blind set, {rendering} rendering, no gold")
    print(f"good conversations with a grounding failure: {len(false_alarms)} of {good}")
    for cid, why in false_alarms.items():
        print(f"- {cid}: {'; '.join(why)}")
    print(
        "| bad: kind | caught (root cause names the value) | flagged elsewhere | missed |\n|---|---|---|---|"
    )
    for kind, rows in caught_by.items():
        n = {o: sum(r.startswith(o) for r in rows) for o in ("caught", "flagged elsewhere", "missed")}
        print(f"| {kind} | {n['caught']} of {len(rows)} | {n['flagged elsewhere']} | {n['missed']} |")
    for rows in caught_by.values():
        for r in rows:
            if not r.startswith("caught"):
                print(f"- {r}")
    return {"false_alarms": false_alarms, "bad": caught_by, "good": good}


def _norm(text: str) -> str:
    return " ".join("".join(ch.lower() if ch.isalnum() else " " for ch in text).split())


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.grounding", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=taubench.DATA)
    ap.add_argument("--runs", type=int, default=0, help="only the first N runs (0: all)")
    ap.add_argument("--renderings", default="openinference,genai")
    ap.add_argument("--out", type=Path, help="keep traffic and reports here (default: a temp dir)")
    ap.add_argument("--json", type=Path, help="write the figures as JSON here")
    ap.add_argument(
        "--blind",
        nargs="?",
        const=BLIND,
        type=Path,
        help="a blind set, its folder or its conversations.jsonl (default: bench/data/grounding_blind; also "
        "grounding_blind_2 … grounding_blind_44) instead of τ-bench",
    )
    args = ap.parse_args(argv)
    if args.blind:
        path = (
            args.blind / BLIND.name if args.blind.is_dir() else args.blind
        )  # a set's folder, as the help names it
        if not path.is_file():
            ap.error(f"--blind: no blind set at {path}")
        convs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        figures: dict[str, Any] = {}
        with tempfile.TemporaryDirectory() as tmp:
            out = args.out or Path(tmp)
            for rendering in args.renderings.split(","):
                traffic = blind_traffic(convs, rendering, out)
                figures[rendering] = blind_report(rendering, convs, replay(traffic, out, None))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n")
        return 0
    runs = json.loads((args.data / "gpt-4o-airline.json").read_text())
    tools = oi.tool_schemas(runs)
    if args.runs:
        runs = runs[: args.runs]
    originals = [
        {"id": taubench.conversation_id(r), "index": i, "traj": r["traj"], "times": oi.timeline(r["traj"], i)}
        for i, r in enumerate(runs)
    ]
    reward = {taubench.conversation_id(r): r["reward"] for r in runs}
    mutated = mutations(runs)
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        for rendering in args.renderings.split(","):
            traffic = write([*originals, *mutated], rendering, out, tools)
            builtin = replay(traffic, out, None)
            team = replay(traffic, out, POLICY)
            figures[rendering] = report(rendering, originals, mutated, reward, builtin, team)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


def report(
    rendering: str,
    originals: Sequence[Mapping[str, Any]],
    mutated: Sequence[Mapping[str, Any]],
    reward: Mapping[str, float],
    builtin: Mapping[str, Mapping[str, Any]],
    team: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    print(f"\n## τ-bench airline, {rendering} rendering, no gold")
    by_kind: dict[str, list[int]] = {}
    missed: list[str] = []
    for m in mutated:
        hit = caught(builtin.get(m["id"]), m["label"])
        by_kind.setdefault(m["label"]["kind"], [0, 0])[0 if hit else 1] += 1  # caught, missed
        if not hit:
            missed.append(f"{m['id']}: {m['label']['original']!r} → {m['label']['replacement']!r}")
    print("| mutation | caught (root cause) | missed |\n|---|---|---|")
    for kind, (yes, no) in by_kind.items():
        print(f"| {kind} | {yes} of {yes + no} ({yes / (yes + no):.0%}) | {no} |")
    good = [o["id"] for o in originals if reward[o["id"]] >= 1.0]
    bad = [o["id"] for o in originals if reward[o["id"]] < 1.0]
    flagged = {cid: why for cid in good if cid in builtin and (why := grounding_failures(builtin[cid]))}
    builtin_fail = [cid for cid in good if cid in builtin and not builtin[cid].get("test_pass")]
    print(
        f"\nbuilt-in policy: reward-1 runs with a grounding failure: {len(flagged)} of {len(good)}; "
        f"failed for any reason: {len(builtin_fail)}"
    )
    for cid in builtin_fail:
        print(f"- {cid}: {'; '.join(failures(builtin[cid])[:2])}")
    caught_bad = sum(1 for cid in bad if cid in builtin and not builtin[cid].get("test_pass"))
    print(f"built-in policy: reward-0 runs failed: {caught_bad} of {len(bad)}")
    team_good = [cid for cid in good if cid in team and not team[cid].get("test_pass")]
    team_bad = [cid for cid in bad if cid in team and not team[cid].get("test_pass")]
    reasons = Counter(
        t["failure_reason"] for cid in team_good for t in team[cid].get("turns", []) if not t["success"]
    )
    print(
        f"\nteam policy (policy-airline.yaml): reward-1 runs flagged {len(team_good)} of {len(good)} "
        f"({dict(reasons)}); reward-0 runs caught {len(team_bad)} of {len(bad)}"
    )
    for cid in team_good:
        print(f"- {cid}: {'; '.join(failures(team[cid])[:2])}")
    if missed:
        print(f"\nmissed mutations ({len(missed)}):")
        for line in missed:
            print(f"- {line}")
    return {
        "mutations": {k: {"caught": h, "total": h + m} for k, (h, m) in by_kind.items()},
        "good_with_grounding_failure": flagged,
        "builtin_good_failed": len(builtin_fail),
        "builtin_bad_caught": caught_bad,
        "team_good_flagged": team_good,
        "team_bad_caught": len(team_bad),
        "good": len(good),
        "bad": len(bad),
    }


if __name__ == "__main__":
    raise SystemExit(main())
