"""τ-bench airline tasks as golden dialogs, written a second time from the documentation alone:

    .venv/bin/python -m bench.taubench_gold_alt --out gold.jsonl [--user-turns]

One dialog per task of `airline_tasks_test.json`, `dialog_id` `tau-airline-{task_id}` (the id a
conversation names in `aem.reference_id`, docs/streaming.md "Reference"). Nothing here was taken from
`bench/taubench.py`; each choice below cites the documentation sentence it rests on.

- Tool names. A τ-bench tool is one plain name, so `tool_id` = `action` = the name: "Tool names split
  into `tool_id`/`action` at `normalize.tool_action_separator` …; a plain name is both"
  (streaming.md, From spans to conversations).
- Writes in any order. Every write of a task (all calls but lookups and the hand-off) is a `Tool` turn,
  and when a task has two or more they share the tag `OrderInvariant_writes`: "`OrderInvariant_<group>`:
  turns valid in any order within the group" (scoring.md, turn fields) and "An `OrderInvariant_` group is
  paired by best assignment (Hungarian) inside the alignment, so two calls made in the other order pass"
  (streaming.md, Matching rule 2). The writes are written one after the other, after the lookups, so the
  group is one contiguous block (the docs do not say how a group split by other turns is aligned).
- Lookups are optional. The read-only tools are listed in `metadata.read_only_tools` ("tools whose calls
  may appear without a gold counterpart (lookups)"), and the lookups the benchmark lists are kept as
  `optional: true` turns, before the writes ("a gold turn the agent may skip — absence is no failure";
  "An `optional` gold turn of a read-only tool is matched only by a call that passes; a lookup with other
  arguments is just another free lookup"). This is the documentation's own example (`get_order`).
  Identical repeated lookups are written once.
- Hand-off allowed. `transfer_to_human_agents` and `think` are `metadata.allowed_extra_tools` ("for calls
  with no effect worth grading (`transfer_to_human_agents`, `think`)"). Where the benchmark lists a
  transfer it is an `optional` turn too (the reward ignores it), and its free-text `summary` is
  `"ignore"` for every call of the tool (`metadata.compare`: "neither its presence nor its value counts").
- Identifiers and codes exact. Those of `reservation_id`, `user_id`, `payment_id`, `origin`, `destination`,
  `cabin`, `flight_type` and `insurance` that a task's write tools take are compared `"exact"` ("equal as
  JSON, no normalisation") through `metadata.compare` ("`compare` for every call of a tool"): the benchmark grades
  the database these calls write, where a look-alike id is another record and `economy` is not
  `basic_economy`. Nested lists (flights, passengers, payment methods) and amounts keep the default
  ("absent: the whole ladder"). No `tool_schemas`: the task file carries no tool definitions.
- Facts to state. Each string of `outputs` is its own `Agent` turn `{"response": fact}`, written bare as
  the benchmark checks it: "A gold reply that is a bare fact ("4", "23553") passes when the reply states
  it", and "Replies are not aligned by position" (Matching rule 3), so they close the dialog. One turn per
  fact, since a task's facts may be said in different replies.
- No action required. A task whose `actions` hold no write is a dialog with no write turn: "any other
  call is `unexpected_action`" (Matching rule 4) makes every write fail while lookups and the hand-off stay
  free. A task whose `actions` are empty gets one `User` turn (the instruction) and nothing after it:
  "A gold user turn followed by no Agent/Tool turn means "answer without calling" (ask, refuse)". It has
  it with or without `--user-turns`, since the docs give no other way to say so and a dialog needs at
  least one turn (found by validation: `field 'turns': a dialog needs at least one turn`).
- `--user-turns`. The instruction, pasted as is, is one `User` turn first (`{"response": …}`, as in the
  documentation's example). One turn, not one per sentence: gold user turns split the dialog into
  exchanges and "each gold exchange is aligned only within its live exchange", while extra live user
  turns "join the exchange before it"; so the whole task stays one exchange, as "A gold without user
  turns is one exchange" is without the flag. Measured: word overlap can pair the pasted instruction with
  a later live user message than the first, and calls before that message then fail (`unexpected_action`)
  although the docs do not say so; one of gpt-4o's 84 passing runs (task 46, trial 2) fails this way.
- No `predict_turn`, `result` or `depends_on`: this is a reference for live traffic; the benchmark gives
  no results to write, and dependencies are "added to the inferred ones".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

TASKS = Path(__file__).resolve().parents[2] / "shared" / "data" / "tau-bench" / "airline_tasks_test.json"
READ_ONLY = [
    "get_user_details",
    "get_reservation_details",
    "search_direct_flight",
    "search_onestop_flight",
    "list_all_airports",
    "calculate",
]
ALLOWED_EXTRA = ["transfer_to_human_agents", "think"]
WRITES = [
    "book_reservation",
    "cancel_reservation",
    "update_reservation_flights",
    "update_reservation_baggages",
    "update_reservation_passengers",
    "send_certificate",
]
EXACT = [
    "reservation_id",
    "user_id",
    "payment_id",
    "origin",
    "destination",
    "cabin",
    "flight_type",
    "insurance",
]

Turn = dict[str, Any]


def call(name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"tool_id": name, "action": name, "args": kwargs}


def dialog(task_id: int, task: dict[str, Any], user_turns: bool) -> dict[str, Any]:
    actions: list[dict[str, Any]] = task["actions"]
    free: list[dict[str, Any]] = []
    for a in actions:
        if a["name"] not in WRITES and a not in free:
            free.append(a)
    writes = [a for a in actions if a["name"] in WRITES]
    turns: list[Turn] = []
    if user_turns or not actions:
        turns.append({"turn": "User", "gold_turn": {"response": task["instruction"]}})
    turns += [{"turn": "Tool", "optional": True, "gold_turn": call(a["name"], a["kwargs"])} for a in free]
    tags = ["OrderInvariant_writes"] if len(writes) > 1 else []
    turns += [
        {"turn": "Tool", "gold_turn": call(a["name"], a["kwargs"])} | ({"tags": tags} if tags else {})
        for a in writes
    ]
    turns += [{"turn": "Agent", "gold_turn": {"response": fact}} for fact in task.get("outputs", [])]
    compare: dict[str, dict[str, str]] = {"transfer_to_human_agents": {"summary": "ignore"}}
    for a in writes:
        compare.setdefault(a["name"], {}).update(
            dict.fromkeys((k for k in a["kwargs"] if k in EXACT), "exact")
        )
    return {
        "dialog_id": f"tau-airline-{task_id}",
        "metadata": {
            "source": f"tau-bench airline tasks_test.py, task {task_id}",
            "read_only_tools": READ_ONLY,
            "allowed_extra_tools": ALLOWED_EXTRA,
            "compare": compare,
        },
        "turns": [{"turn_no": n, **t} for n, t in enumerate(turns, 1)],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", required=True, type=Path, help="JSONL file, one golden dialog per line")
    parser.add_argument("--user-turns", action="store_true", help="start each dialog with the instruction")
    parser.add_argument("--tasks", type=Path, default=TASKS)
    args = parser.parse_args(argv)
    tasks: list[dict[str, Any]] = json.loads(args.tasks.read_text(encoding="utf-8"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for task_id, task in enumerate(tasks):
            f.write(json.dumps(dialog(task_id, task, args.user_turns), ensure_ascii=False) + "\n")
    print(f"wrote {len(tasks)} dialogs to {args.out}")


if __name__ == "__main__":
    main()
