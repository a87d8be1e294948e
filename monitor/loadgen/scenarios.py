"""Load generator, part 1: conversations whose correct verdicts are known by construction. Pure.

A *reference* is one gold conversation of a scenario family (reports, orders and tickets, travel
booking): user turns, tool-call chains of 1–5 calls, replies. Tools are simulated: each result is a
deterministic function of the tool's name and its arguments *after* the tool's own normalisation
(a paraphrased value such as "eu" or "March 14, 2025" gives the same result as "EU" or "2025-03-14";
a wrong value gives another id). A *conversation* replays one reference with at most one injected
fault per exchange, and the truth follows from how the fault flows:

- the faulted turn is a root cause with the fault's reason (`tool_mismatch`, `action_mismatch`,
  `missing_parameters`, `extra_parameters`, `inconsistent_parameter_values`,
  `inconsistent_response`, `incomplete_response`, `tool_execution_error`);
- a result that differs from gold taints every later argument or reply fact copied from it; a turn
  whose only differences from gold are tainted values is `prior_action_failed`, with the root turn
  of the taint (cascades chain to the first cause);
- paraphrased-but-correct values and replies change no result and pass; an extra parameter fails its
  own turn (`extra_parameters`) but changes no result (tools ignore what they do not know), so
  nothing downstream is tainted.

Choices, documented because truth depends on them: a tool error without recovery is generated only
on a chain's last call (the agent reports what worked and apologises for the rest: the reply's
missing part is a cascade of the error); with recovery, the failed attempt is its own turn
(`tool_execution_error`, root) and the retry passes. User turns are context and carry no verdict.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

FAULTS = (
    "wrong_tool",
    "wrong_action",
    "missing_parameter",
    "extra_parameter",
    "near_value",
    "far_value",
    "paraphrased_value",
    "paraphrased_reply",
    "wrong_reply_fact",
    "incomplete_reply",
    "tool_error_recovered",
    "tool_error_unrecovered",
)
#: Faults that change nothing a correct monitor should flag.
HARMLESS = frozenset({"paraphrased_value", "paraphrased_reply"})
REASON_OF_FAULT = {
    "wrong_tool": "tool_mismatch",
    "wrong_action": "action_mismatch",
    "missing_parameter": "missing_parameters",
    "extra_parameter": "extra_parameters",
    "near_value": "inconsistent_parameter_values",
    "far_value": "inconsistent_parameter_values",
    "wrong_reply_fact": "inconsistent_response",
    "incomplete_reply": "incomplete_response",
    "tool_error_recovered": "tool_execution_error",
    "tool_error_unrecovered": "tool_execution_error",
}
CASCADE = "prior_action_failed"

# -- values: kinds, canonical forms, paraphrases, near misses -----------------------------------

Kind = Literal["enum", "code", "date", "quarter", "int", "id", "email", "airport"]


@dataclass(frozen=True)
class Slot:
    name: str
    kind: Kind
    choices: tuple[Any, ...] = ()


def canonical(kind: Kind, value: Any) -> Any:
    """What the simulated tool understands: the same for every paraphrase of a value."""
    if isinstance(value, str):
        text = value.strip()
        if kind == "date":
            for fmt in ("%Y-%m-%d", "%B %d, %Y", "%d %B %Y"):
                try:
                    return datetime.strptime(text, fmt).date().isoformat()
                except ValueError:
                    continue
        return text.lower()
    return value


def paraphrase(kind: Kind, value: Any, rng: random.Random) -> Any | None:
    """An equivalent spelling a model might produce, or None when the kind has none."""
    if kind == "date":
        d = date.fromisoformat(value)
        return rng.choice([f"{d:%B} {d.day}, {d.year}", f"{d.day} {d:%B} {d.year}"])
    if kind in ("enum", "code", "airport") and isinstance(value, str):
        return value.lower() if value != value.lower() else value.upper()
    return None


def near_miss(slot: Slot, value: Any, rng: random.Random) -> Any:
    """A plausible wrong value: a sibling choice, the next day, an adjacent number, swapped digits."""
    if slot.choices:
        return rng.choice([c for c in slot.choices if c != value])
    if slot.kind == "date":
        return (date.fromisoformat(value) + timedelta(days=rng.choice([-1, 1]))).isoformat()
    if slot.kind == "int":
        return int(value) + rng.choice([-1, 1]) if int(value) > 1 else int(value) + 1
    if slot.kind == "id":
        head, digits = value.rsplit("-", 1)
        i = rng.randrange(len(digits) - 1)
        swapped = digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :]
        if swapped == digits:
            swapped = digits[:-1] + str((int(digits[-1]) + 1) % 10)
        return f"{head}-{swapped}"
    if slot.kind == "email":
        user, domain = value.split("@")
        return f"{user}s@{domain}"
    if slot.kind == "code":
        return rng.choice([c for c in ("USD", "EUR", "GBP", "CAD") if c != value])
    raise ValueError(f"no near miss for {slot.kind}")


def far_value(slot: Slot, value: Any, rng: random.Random) -> Any:
    """An unrelated wrong value of the same type."""
    if slot.kind == "date":
        return (date.fromisoformat(value) + timedelta(days=rng.randint(40, 300))).isoformat()
    if slot.kind == "int":
        return int(value) * 10 + 7
    if slot.kind == "id":
        return f"{value.rsplit('-', 1)[0]}-{rng.randint(10000, 99999)}"
    if slot.kind == "email":
        return f"{rng.choice(['ops', 'finance', 'noreply'])}@{rng.choice(['other.org', 'mail.test'])}"
    if slot.choices:
        return rng.choice([c for c in slot.choices if c != value])
    if slot.kind == "code":
        return rng.choice([c for c in ("JPY", "BRL", "INR") if c != value])
    raise ValueError(f"no far value for {slot.kind}")


def _token(*parts: Any, n: int = 6) -> str:
    return hashlib.blake2b(
        json.dumps(parts, sort_keys=True, default=str).encode(), digest_size=8
    ).hexdigest()[:n]


def _number(*parts: Any, lo: int = 10, hi: int = 999) -> int:
    return lo + int(_token(*parts, n=8), 16) % (hi - lo)


# -- families ------------------------------------------------------------------------------------

Ref = tuple[str, Any]  # ("slot", name) | ("result", (call_key, field)) | ("const", value)


@dataclass(frozen=True)
class ToolSpec:
    name: str  # "tool_id.action"
    params: dict[str, Kind]  # gold parameters and their kinds
    run: Callable[[str, dict[str, Any]], dict[str, Any]]  # (tool name as called, canonical args) -> result
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannedCall:
    key: str  # names this call's result for later references: "filter"
    tool: str
    args: dict[str, Ref]


@dataclass(frozen=True)
class Task:
    """One exchange: the user's request, the calls that serve it, the reply built from their results."""

    user: str
    calls: tuple[PlannedCall, ...]
    reply: Callable[[dict[str, Any]], list[str]]  # facts in → reply sentences (every sentence a part)
    clarify: tuple[str, str] | None = None  # (agent question, user answer) before the calls


def _generic_result(prefix: str, *fields: str) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    def run(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields:
            out[f] = f"{prefix}_{_token(tool, args, f)}"
        return out

    return run


REGIONS = ("EU", "US", "APAC", "LATAM")
METRICS = ("revenue", "profit", "units_sold", "churn")
CHARTS = ("bar", "line", "pie")
QUARTERS = ("Q1", "Q2", "Q3", "Q4")
CABINS = ("economy", "premium_economy", "business")
PRIORITIES = ("low", "normal", "high")
AIRPORTS = ("JFK", "LHR", "CDG", "FRA", "SFO", "NRT", "SIN", "MAD")
CARRIERS = ("UPS", "DHL", "FedEx")


def _filter(tool: str, a: dict[str, Any]) -> dict[str, Any]:
    region = a.get("region", "all")
    return {
        "dataset_id": f"ds_{region}_{a.get('metric', 'all')}_{a.get('quarter', 'all')}_{_token(tool, a, n=4)}",
        "rows": _number(tool, a, lo=40, hi=900),
    }


def _search(tool: str, a: dict[str, Any]) -> dict[str, Any]:
    return {
        "offer_id": f"OF-{_token(tool, a).upper()}",
        "price": _number(tool, a, lo=120, hi=2400),
        "currency": "EUR",
    }


def _lookup(tool: str, a: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": "delayed",
        "carrier": CARRIERS[_number(tool, a, lo=0, hi=3)],
        "tracking_no": f"1Z{_token(tool, a, n=10).upper()}",
    }


def _track(tool: str, a: dict[str, Any]) -> dict[str, Any]:
    return {
        "eta": (date(2026, 12, 1) + timedelta(days=_number(tool, a, lo=1, hi=20))).isoformat(),
        "location": ("Leipzig", "Memphis", "Louisville", "Cologne")[_number(tool, a, lo=0, hi=4)],
    }


TOOLS: dict[str, ToolSpec] = {
    t.name: t
    for t in (
        ToolSpec("reports.filter_data", {"metric": "enum", "region": "code", "quarter": "enum"}, _filter,
                 {"metric": METRICS, "region": REGIONS, "quarter": QUARTERS}),
        ToolSpec("reports.aggregate", {"dataset_id": "id", "group_by": "enum"}, _generic_result("tb", "table_id"),
                 {"group_by": ("month", "week", "country")}),
        ToolSpec("reports.create_chart", {"table_id": "id", "chart_type": "enum"},
                 _generic_result("ch", "chart_id"), {"chart_type": CHARTS}),
        ToolSpec("reports.share", {"chart_id": "id", "recipient": "email"}, _generic_result("sh", "share_id")),
        ToolSpec("reports.schedule", {"chart_id": "id", "frequency": "enum"}, _generic_result("sc", "schedule_id"),
                 {"frequency": ("daily", "weekly", "monthly")}),
        ToolSpec("orders.lookup_order", {"order_id": "id"}, _lookup),
        ToolSpec("shipping.track", {"tracking_no": "id", "carrier": "enum"}, _track, {"carrier": CARRIERS}),
        ToolSpec("tickets.create_ticket", {"order_id": "id", "priority": "enum", "reason": "enum"},
                 _generic_result("T", "ticket_id"), {"priority": PRIORITIES, "reason": ("delayed", "damaged", "lost")}),
        ToolSpec("notify.send_email", {"to": "email", "ticket_id": "id"}, _generic_result("msg", "message_id")),
        ToolSpec("orders.apply_credit", {"order_id": "id", "amount": "int", "currency": "code"},
                 _generic_result("cr", "credit_id")),
        ToolSpec("flights.search", {"origin": "airport", "destination": "airport", "date": "date",
                                    "passengers": "int", "cabin": "enum"}, _search,
                 {"origin": AIRPORTS, "destination": AIRPORTS, "cabin": CABINS}),
        ToolSpec("flights.hold", {"offer_id": "id", "passengers": "int"}, _generic_result("HD", "hold_id")),
        ToolSpec("payments.charge", {"hold_id": "id", "amount": "int", "currency": "code"},
                 _generic_result("rc", "receipt_id")),
        ToolSpec("flights.book", {"hold_id": "id", "receipt_id": "id"}, _generic_result("BK", "booking_ref")),
        ToolSpec("calendar.add_event", {"booking_ref": "id", "date": "date"}, _generic_result("ev", "event_id")),
    )
}  # fmt: skip
#: Another tool of another service with the same action (wrong tool), another action of the same service.
WRONG_TOOL = {name: f"legacy_{name}" for name in TOOLS}
WRONG_ACTION = {
    "reports.filter_data": "reports.export_data", "reports.aggregate": "reports.pivot",
    "reports.create_chart": "reports.create_table", "reports.share": "reports.publish",
    "reports.schedule": "reports.subscribe", "orders.lookup_order": "orders.list_orders",
    "shipping.track": "shipping.quote", "tickets.create_ticket": "tickets.update_ticket",
    "notify.send_email": "notify.send_sms", "orders.apply_credit": "orders.refund",
    "flights.search": "flights.list_routes", "flights.hold": "flights.book_now",
    "payments.charge": "payments.authorize", "flights.book": "flights.hold_seat",
    "calendar.add_event": "calendar.invite",
}  # fmt: skip
EXTRA_PARAMETERS = (("limit", 100), ("include_archived", True), ("dry_run", False), ("locale", "en-US"))


def _reports_task(rng: random.Random, first: bool) -> tuple[Task, dict[str, Any]]:
    slots: dict[str, Any] = {
        "metric": rng.choice(METRICS), "region": rng.choice(REGIONS), "quarter": rng.choice(QUARTERS),
        "chart_type": rng.choice(CHARTS), "recipient": f"{rng.choice(['ana', 'li', 'sam', 'noor'])}@example.com",
        "group_by": rng.choice(("month", "week", "country")), "frequency": rng.choice(("daily", "weekly", "monthly")),
    }  # fmt: skip
    length = rng.randint(1, 5)
    calls = [
        PlannedCall(
            "filter", "reports.filter_data", {k: ("slot", k) for k in ("metric", "region", "quarter")}
        )
    ]
    if length >= 2:
        calls.append(
            PlannedCall(
                "agg",
                "reports.aggregate",
                {"dataset_id": ("result", ("filter", "dataset_id")), "group_by": ("slot", "group_by")},
            )
        )
    if length >= 3:
        calls.append(
            PlannedCall(
                "chart",
                "reports.create_chart",
                {"table_id": ("result", ("agg", "table_id")), "chart_type": ("slot", "chart_type")},
            )
        )
    if length >= 4:
        calls.append(
            PlannedCall(
                "share",
                "reports.share",
                {"chart_id": ("result", ("chart", "chart_id")), "recipient": ("slot", "recipient")},
            )
        )
    if length >= 5:
        calls.append(PlannedCall("sched", "reports.schedule",
                                 {"chart_id": ("result", ("chart", "chart_id")),
                                  "frequency": ("slot", "frequency")}))  # fmt: skip
    asks = [f"a {slots['chart_type']} chart by {slots['group_by']}" if length >= 3 else "",
            f"share it with {slots['recipient']}" if length >= 4 else "",
            f"send it {slots['frequency']}" if length >= 5 else ""]  # fmt: skip
    user = (
        f"Please build the {slots['metric']} report for {slots['region']}, {slots['quarter']} 2025"
        + (f", grouped by {slots['group_by']}" if length >= 2 else "")
        + "".join(f"; {a}" for a in asks if a)
        + "."
    )
    clarify = None
    if first and rng.random() < 0.3:
        clarify = ("Which region should the report cover?", f"{slots['region']} please.")
        user = user.replace(f" for {slots['region']}", "")

    def reply(f: dict[str, Any]) -> list[str]:
        parts = [
            f"The {f['metric']} data for {f['region']} in {f['quarter']} 2025 is dataset {f['filter.dataset_id']}."
        ]
        if "agg.table_id" in f:
            parts.append(f"I grouped it by {f['group_by']} into table {f['agg.table_id']}.")
        if "chart.chart_id" in f:
            parts.append(f"Your {f['chart_type']} chart is {f['chart.chart_id']}.")
        if "share.share_id" in f:
            parts.append(f"I shared it with {f['recipient']} as {f['share.share_id']}.")
        if "sched.schedule_id" in f:
            parts.append(f"It is scheduled {f['frequency']} as {f['sched.schedule_id']}.")
        return parts

    return Task(user, tuple(calls), reply, clarify), slots


def _orders_task(rng: random.Random, first: bool) -> tuple[Task, dict[str, Any]]:
    del first  # orders never start with a clarifying question
    slots: dict[str, Any] = {
        "order_id": f"ORD-{rng.randint(10000, 99999)}", "priority": rng.choice(PRIORITIES), "reason": "delayed",
        "email": f"{rng.choice(['maria', 'kenji', 'olu', 'dave'])}@customer.test", "amount": rng.choice((5, 10, 15, 20)),
        "currency": rng.choice(("USD", "EUR")),
    }  # fmt: skip
    length = rng.randint(1, 5)
    calls = [PlannedCall("order", "orders.lookup_order", {"order_id": ("slot", "order_id")})]
    if length >= 2:
        calls.append(
            PlannedCall(
                "track",
                "shipping.track",
                {
                    "tracking_no": ("result", ("order", "tracking_no")),
                    "carrier": ("result", ("order", "carrier")),
                },
            )
        )
    if length >= 3:
        calls.append(
            PlannedCall(
                "ticket",
                "tickets.create_ticket",
                {
                    "order_id": ("slot", "order_id"),
                    "priority": ("slot", "priority"),
                    "reason": ("slot", "reason"),
                },
            )
        )
    if length >= 4:
        calls.append(
            PlannedCall(
                "mail",
                "notify.send_email",
                {"to": ("slot", "email"), "ticket_id": ("result", ("ticket", "ticket_id"))},
            )
        )
    if length >= 5:
        calls.append(PlannedCall("credit", "orders.apply_credit", {
            "order_id": ("slot", "order_id"), "amount": ("slot", "amount"), "currency": ("slot", "currency")}))  # fmt: skip
    user = f"Where is my order {slots['order_id']}? It should have arrived by now."
    if length >= 3:
        user += f" Please open a {slots['priority']} priority ticket"
        user += f" and email me at {slots['email']}." if length >= 4 else "."
    if length >= 5:
        user += f" I would also like a {slots['amount']} {slots['currency']} credit."

    def reply(f: dict[str, Any]) -> list[str]:
        parts = [
            f"Order {f['order_id']} is {f['order.status']} with {f['order.carrier']}, tracking {f['order.tracking_no']}."
        ]
        if "track.eta" in f:
            parts.append(f"It is in {f['track.location']} and should arrive on {f['track.eta']}.")
        if "ticket.ticket_id" in f:
            parts.append(f"I opened {f['priority']} priority ticket {f['ticket.ticket_id']}.")
        if "mail.message_id" in f:
            parts.append(f"A confirmation went to {f['email']} as {f['mail.message_id']}.")
        if "credit.credit_id" in f:
            parts.append(f"A {f['amount']} {f['currency']} credit was applied as {f['credit.credit_id']}.")
        return parts

    return Task(user, tuple(calls), reply), slots


def _travel_task(rng: random.Random, first: bool) -> tuple[Task, dict[str, Any]]:
    origin, destination = rng.sample(AIRPORTS, 2)
    day = date(2026, 12, 1) + timedelta(days=rng.randint(5, 120))
    slots: dict[str, Any] = {"origin": origin, "destination": destination, "date": day.isoformat(),
             "passengers": rng.randint(1, 4), "cabin": rng.choice(CABINS)}  # fmt: skip
    length = rng.randint(1, 5)
    calls = [PlannedCall("search", "flights.search", {k: ("slot", k) for k in slots})]
    if length >= 2:
        calls.append(
            PlannedCall(
                "hold",
                "flights.hold",
                {"offer_id": ("result", ("search", "offer_id")), "passengers": ("slot", "passengers")},
            )
        )
    if length >= 3:
        calls.append(
            PlannedCall(
                "pay",
                "payments.charge",
                {
                    "hold_id": ("result", ("hold", "hold_id")),
                    "amount": ("result", ("search", "price")),
                    "currency": ("result", ("search", "currency")),
                },
            )
        )
    if length >= 4:
        calls.append(
            PlannedCall(
                "book",
                "flights.book",
                {"hold_id": ("result", ("hold", "hold_id")), "receipt_id": ("result", ("pay", "receipt_id"))},
            )
        )
    if length >= 5:
        calls.append(PlannedCall("cal", "calendar.add_event", {"booking_ref": ("result", ("book", "booking_ref")),
                                                               "date": ("slot", "date")}))  # fmt: skip
    user = (
        f"Find a {slots['cabin'].replace('_', ' ')} flight from {origin} to {destination} on {slots['date']} "
        f"for {slots['passengers']} passenger{'s' if slots['passengers'] > 1 else ''}"
        + (" and hold it" if length == 2 else " and book it" if length >= 3 else "")
        + (", then add it to my calendar." if length >= 5 else ".")
    )
    clarify = None
    if first and rng.random() < 0.3:
        clarify = ("How many passengers are travelling?", f"{slots['passengers']}.")

    def reply(f: dict[str, Any]) -> list[str]:
        parts = [f"The best {f['cabin']} offer from {f['origin']} to {f['destination']} on {f['date']} is "
                 f"{f['search.offer_id']} at {f['search.price']} {f['search.currency']}."]  # fmt: skip
        if "hold.hold_id" in f:
            parts.append(f"I am holding it for {f['passengers']} as {f['hold.hold_id']}.")
        if "pay.receipt_id" in f:
            parts.append(f"The payment receipt is {f['pay.receipt_id']}.")
        if "book.booking_ref" in f:
            parts.append(f"Your booking reference is {f['book.booking_ref']}.")
        if "cal.event_id" in f:
            parts.append(f"It is in your calendar as {f['cal.event_id']}.")
        return parts

    return Task(user, tuple(calls), reply, clarify), slots


@dataclass(frozen=True)
class Family:
    name: str
    agent: str
    make_task: Callable[[random.Random, bool], tuple[Task, dict[str, Any]]]  # (rng, first exchange?)


FAMILIES = (
    Family("reports", "reports-agent", _reports_task),
    Family("orders", "support-agent", _orders_task),
    Family("travel", "travel-agent", _travel_task),
)
REPLY_PREFIXES = ("", "Done. ", "All set. ", "Here you go. ")
REPLY_PARAPHRASES = (("is dataset", "is in dataset"), ("Your ", "The "), ("I opened", "I have opened"),
                     ("should arrive on", "is expected on"), ("I am holding it", "It is on hold"))  # fmt: skip
APOLOGY = "Sorry, {tool} failed with {error}, so I could not finish. Please try again later."


# -- one reference: the gold conversation --------------------------------------------------------


@dataclass
class Reference:
    reference_id: str
    family: Family
    tasks: list[tuple[Task, dict[str, Any]]]


def make_reference(family: Family, number: int, seed: int) -> Reference:
    rng = random.Random(f"{seed}:{family.name}:{number}")
    exchanges = rng.choices((1, 2, 3), weights=(5, 3, 2))[0]
    tasks = [family.make_task(rng, i == 0) for i in range(exchanges)]
    return Reference(f"{family.name}-{number:04d}", family, tasks)


# -- one conversation: the reference replayed with faults; live turns and truth ------------------


@dataclass
class LiveTurn:
    """One turn as the agent produced it; what the span renderer needs."""

    kind: Literal["user", "reply", "call"]
    text: str | None = None
    tool: str | None = None
    args: dict[str, Any] | None = None
    result: Any = None
    error: str | None = None
    call_id: str | None = None


@dataclass(frozen=True)
class TruthTurn:
    turn_no: int
    role: Literal["User", "Agent", "Tool"]
    success: bool | None  # None: no verdict (a user turn; a failed attempt its retry recovered)
    failure_reason: str | None = None
    root_turn: int | None = None
    fault: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None or k == "success"}


@dataclass
class Conversation:
    conversation_id: str
    reference: Reference
    exchanges: list[list[LiveTurn]]  # one list per exchange (one trace each)
    truth: list[TruthTurn]
    faults: list[str]

    @property
    def first_failure_turn(self) -> int | None:
        return next((t.turn_no for t in self.truth if t.success is False), None)


@dataclass
class _Value:
    value: Any
    root: int | None = None  # the root turn whose wrong result this value was copied from


def gold_turns(ref: Reference) -> list[dict[str, Any]]:
    """The reference as golden-dialog turns (DESIGN.md format, `predict_turn` absent)."""
    conv = play(ref, [None] * len(ref.tasks), "gold", random.Random(0))
    turns = []
    for n, t in enumerate((t for ex in conv.exchanges for t in ex), start=1):
        if t.kind == "user":
            turns.append({"turn_no": n, "turn": "User", "gold_turn": {"response": t.text}})
        elif t.kind == "reply":
            turns.append({"turn_no": n, "turn": "Agent", "gold_turn": {"response": t.text}})
        else:
            assert t.tool is not None
            tool_id, action = t.tool.split(".", 1)
            turns.append({"turn_no": n, "turn": "Tool", "gold_turn": {
                "tool_id": tool_id, "action": action, "args": t.args, "result": t.result}})  # fmt: skip
    return turns


def gold_dialog(ref: Reference) -> dict[str, Any]:
    used = sorted({c.tool for task, _ in ref.tasks for c in task.calls})
    schemas = {}
    for name in used:
        spec = TOOLS[name]
        props: dict[str, Any] = {
            p: {"type": "integer" if k == "int" else "string"} for p, k in spec.params.items()
        }
        for p, values in spec.enums.items():
            props[p]["enum"] = list(values)
        schemas[name] = {"type": "object", "properties": props, "required": list(spec.params)}
    return {
        "dialog_id": ref.reference_id,
        "metadata": {"family": ref.family.name, "agent": ref.family.agent, "tool_schemas": schemas},
        "turns": gold_turns(ref),
    }


def choose_faults(ref: Reference, rng: random.Random, fault_rate: float) -> list[str | None]:
    """At most one fault per exchange; `fault_rate` is the chance that an exchange has one."""
    return [rng.choice(FAULTS) if rng.random() < fault_rate else None for _ in ref.tasks]


def _call_id(conversation_id: str, call_no: int) -> str:
    """A call id as a model provider mints one: random-looking and unique (`call_` and 24 characters),
    so two conversations that say the same thing still differ in their calls' ids, as in real traffic.
    Derived from the conversation and the call's number: the same seed gives the same traffic."""
    digest = hashlib.blake2b(f"{conversation_id}/{call_no}".encode(), digest_size=12).hexdigest()
    return f"call_{digest}"


def play(
    ref: Reference, faults: Sequence[str | None], conversation_id: str, rng: random.Random
) -> Conversation:
    """Run the reference's tasks with the simulated tools, injecting `faults[i]` into exchange i."""
    exchanges: list[list[LiveTurn]] = []
    truth: list[TruthTurn] = []
    applied: list[str] = []
    results: dict[str, _Value] = {}  # "call_key.field" -> value as the live tool returned it
    n = 0
    call_no = 0

    def add(turn: LiveTurn, verdict: TruthTurn) -> None:
        exchanges[-1].append(turn)
        truth.append(verdict)

    for (task, slots), fault in zip(ref.tasks, faults, strict=True):
        exchanges.append([])
        if task.clarify is not None:
            n += 1
            add(LiveTurn("user", text=task.user), TruthTurn(n, "User", None))
            n += 1
            add(LiveTurn("reply", text=task.clarify[0]), TruthTurn(n, "Agent", True))
            n += 1
            add(LiveTurn("user", text=task.clarify[1]), TruthTurn(n, "User", None))
        else:
            n += 1
            add(LiveTurn("user", text=task.user), TruthTurn(n, "User", None))
        fault = _applicable(fault, task, rng)
        target = None
        if fault == "tool_error_unrecovered":
            target = len(task.calls) - 1
        elif fault in _CALL_FAULTS:
            eligible = [i for i, c in enumerate(task.calls) if _slot_params(c, TOOLS[c.tool], fault)]
            target = rng.choice(eligible if fault in _VALUE_FAULTS else range(len(task.calls)))
        facts: dict[str, _Value] = {k: _Value(v) for k, v in slots.items()}
        failed_unrecovered: tuple[int, str, str] | None = None
        for i, planned in enumerate(task.calls):
            spec = TOOLS[planned.tool]
            gold_args = {p: _gold_arg(ref_, slots, results) for p, ref_ in planned.args.items()}
            args = {p: _live_arg(ref_, slots, results) for p, ref_ in planned.args.items()}
            tool = planned.tool
            own: str | None = fault if i == target else None
            believed: str | None = None
            if own == "wrong_tool":
                tool = WRONG_TOOL[tool]
            elif own == "wrong_action":
                tool = WRONG_ACTION[tool]
            elif own == "missing_parameter":
                args.pop(rng.choice(sorted(args)))
            elif own == "extra_parameter":
                key, value = rng.choice(EXTRA_PARAMETERS)
                args[key] = _Value(value)
            elif own in _VALUE_FAULTS:
                p = rng.choice(_slot_params(planned, spec, own))
                slot = Slot(p, spec.params[p], spec.enums.get(p, ()))
                if own == "paraphrased_value":
                    args[p] = _Value(paraphrase(slot.kind, args[p].value, rng), args[p].root)
                else:
                    make = near_miss if own == "near_value" else far_value
                    args[p] = _Value(make(slot, args[p].value, rng))
                    believed = p
            plain = {k: v.value for k, v in args.items()}
            canon = {k: canonical(spec.params.get(k, "id"), v) for k, v in plain.items() if k in spec.params}
            result = spec.run(tool, canon)
            gold_result = spec.run(
                planned.tool, {k: canonical(spec.params[k], v) for k, v in gold_args.items()}
            )
            results.update({f"gold:{planned.key}.{k}": _Value(v) for k, v in gold_result.items()})
            tainted = [v.root for k, v in args.items() if v.root is not None and v.value != gold_args.get(k)]
            if own == "tool_error_recovered":
                call_no += 1
                n += 1
                # the failed attempt is forgiven once the retry works (alignment.failed_attempts'
                # default, forgive_if_recovered): no verdict of its own, counted in `recovery`
                add(LiveTurn("call", tool=tool, args=plain, error="ServiceUnavailable: 503 from upstream",
                             call_id=_call_id(conversation_id, call_no)),
                    TruthTurn(n, "Tool", None, None, None, own))  # fmt: skip
                applied.append(own)
                own = None
            call_no += 1
            n += 1
            if own == "tool_error_unrecovered":
                error = "TimeoutError: the tool did not answer within 30 s"
                add(
                    LiveTurn(
                        "call", tool=tool, args=plain, error=error, call_id=_call_id(conversation_id, call_no)
                    ),
                    TruthTurn(n, "Tool", False, "tool_execution_error", None, own),
                )
                failed_unrecovered = (n, tool, error.split(":")[0])
                applied.append(own)
                break
            root_of_result: int | None
            if own is not None and own not in HARMLESS:
                verdict = TruthTurn(n, "Tool", False, REASON_OF_FAULT[own], None, own)
                root_of_result = n
            elif tainted:
                root_of_result = min(tainted)
                verdict = TruthTurn(n, "Tool", False, CASCADE, root_of_result)
            else:
                verdict = TruthTurn(n, "Tool", True, None, None, own)
                root_of_result = None
            if own is not None:
                applied.append(own)
            if believed is not None:  # the agent reports the value it used: a wrong one reaches the reply
                facts[believed] = _Value(args[believed].value, n)
            add(
                LiveTurn(
                    "call", tool=tool, args=plain, result=result, call_id=_call_id(conversation_id, call_no)
                ),
                verdict,
            )
            taint = root_of_result if result != gold_result else None
            for k, v in result.items():
                results[f"{planned.key}.{k}"] = facts[f"{planned.key}.{k}"] = _Value(v, taint)
        n += 1
        gold_facts = dict(slots) | {
            k.removeprefix("gold:"): v.value
            for k, v in results.items()
            if k.startswith("gold:") and _called(k.removeprefix("gold:"), task)
        }
        gold_parts = task.reply(gold_facts)
        if failed_unrecovered is not None:  # what worked, then the failure: its missing part is the cascade
            root, tool, error = failed_unrecovered
            done = gold_parts[: len(task.calls) - 1]
            text = " ".join([*done, APOLOGY.format(tool=tool, error=error)])
            add(LiveTurn("reply", text=text), TruthTurn(n, "Agent", False, CASCADE, root))
            continue
        parts = task.reply({k: v.value for k, v in facts.items()})
        wrong_roots = [
            v.root for k, v in facts.items() if v.root is not None and v.value != gold_facts.get(k)
        ]
        reply_fault = (
            fault if fault in ("paraphrased_reply", "wrong_reply_fact", "incomplete_reply") else None
        )
        if parts != gold_parts:
            assert wrong_roots, "a reply that differs from gold without a fault"
            verdict = TruthTurn(n, "Agent", False, CASCADE, min(wrong_roots))
        elif reply_fault in ("wrong_reply_fact", "incomplete_reply"):
            verdict = TruthTurn(n, "Agent", False, REASON_OF_FAULT[reply_fault], None, reply_fault)
        else:
            verdict = TruthTurn(n, "Agent", True, None, None, reply_fault)
        if reply_fault == "paraphrased_reply":
            parts = _paraphrase_reply(parts, rng)
        elif reply_fault == "wrong_reply_fact":
            parts = _wrong_fact(parts, gold_facts, task, rng)
        elif reply_fault == "incomplete_reply":
            parts = parts[:-1] if len(parts) > 1 else [parts[0].split(" is ")[0] + " is ready."]
        if reply_fault is not None:
            applied.append(reply_fault)
        add(LiveTurn("reply", text=" ".join(parts)), verdict)
    return Conversation(conversation_id, ref, exchanges, truth, applied)


_VALUE_FAULTS = frozenset({"near_value", "far_value", "paraphrased_value"})
_CALL_FAULTS = frozenset(FAULTS) - {"paraphrased_reply", "wrong_reply_fact", "incomplete_reply"}


def _applicable(fault: str | None, task: Task, rng: random.Random) -> str | None:
    """The fault if some call of the task can take it, else a harmless paraphrase of the reply."""
    if fault in _VALUE_FAULTS:
        ok = any(_slot_params(c, TOOLS[c.tool], fault) for c in task.calls)
        return fault if ok else "paraphrased_reply"
    return fault


def _slot_params(planned: PlannedCall, spec: ToolSpec, fault: str) -> list[str]:
    out = []
    for p, ref in planned.args.items():
        if ref[0] != "slot":
            continue
        kind = spec.params[p]
        if fault == "paraphrased_value" and kind not in ("date", "enum", "code", "airport"):
            continue
        out.append(p)
    return out


def _gold_arg(ref: Ref, slots: dict[str, Any], results: dict[str, _Value]) -> Any:
    if ref[0] == "slot":
        return slots[ref[1]]
    if ref[0] == "result":
        key, fld = ref[1]
        return results[f"gold:{key}.{fld}"].value
    return ref[1]


def _live_arg(ref: Ref, slots: dict[str, Any], results: dict[str, _Value]) -> _Value:
    if ref[0] == "slot":
        return _Value(slots[ref[1]])
    if ref[0] == "result":
        key, fld = ref[1]
        found = results[f"{key}.{fld}"]
        return _Value(found.value, found.root)
    return _Value(ref[1])


def _called(key: str, task: Task) -> bool:
    if "." not in key:
        return True
    return key.split(".", 1)[0] in {c.key for c in task.calls}


def _paraphrase_reply(parts: list[str], rng: random.Random) -> list[str]:
    out = [rng.choice(REPLY_PREFIXES[1:]) + parts[0], *parts[1:]]
    for old, new in REPLY_PARAPHRASES:
        out = [p.replace(old, new) for p in out]
    return out


def _is_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _wrong_fact(parts: list[str], facts: dict[str, Any], task: Task, rng: random.Random) -> list[str]:
    """Replace one identifier or number the reply reports with another of the same shape."""
    text = " ".join(parts)
    candidates = [
        v
        for k, v in facts.items()
        if "." in k
        and _called(k, task)
        and isinstance(v, str | int)
        and any(c.isdigit() for c in str(v))
        and str(v) in text
    ]
    value = rng.choice(candidates)
    wrong: Any
    if isinstance(value, int):
        wrong = value + rng.choice((-3, 7, 11))
    elif _is_date(value):
        wrong = (date.fromisoformat(value) + timedelta(days=rng.choice((-2, 1, 3)))).isoformat()
    else:
        wrong = value[:-3] + _token(value, "wrong", n=3) if len(value) > 4 else value + "X"
    return [p.replace(str(value), str(wrong)) for p in parts]
