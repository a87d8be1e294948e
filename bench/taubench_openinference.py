"""Render τ-bench airline runs as OpenInference OTLP traces, and a labelled mutation set.

Writes, per run of τ-bench's 200 real gpt-4o airline runs, one protobuf ExportTraceServiceRequest
(``{i:04d}-tau-{task_id}-{trial}.pb``) as an agent instrumented with OpenInference (Arize Phoenix style)
would send it, made with the OpenTelemetry SDK (TracerProvider, in-memory exporter, OTLP encoder).
Resource ``service.name=airline-agent``; every span has ``session.id=tau-{task_id}-{trial}``.
- One trace per user message: an AGENT root (``input.value`` = the user message, ``output.value`` = the
  exchange's last assistant text, if any), with children in time order:
- an LLM span per assistant message: ``llm.input_messages`` = the whole history before it, system prompt
  first; ``llm.output_messages.0`` = the answer; ``llm.tools`` = all tool definitions;
- a TOOL span per tool result, started after the LLM span that asked for it; a result is paired with the
  latest preceding call with its id. A result starting with ``Error`` gets status ERROR, an
  ``exception`` event and ``output.value = {"error": text}``.
Choices: τ-bench ships no tool schemas, so each is inferred from the arguments of all calls in all runs
(JSON types, nested objects/arrays merged, ``required`` = keys in every call or item; descriptions are
mine): the 13 called tools plus ``list_all_airports`` (a τ-bench airline tool without arguments, never
called here). The SDK attribute limit is raised to 4096 (128 would drop the start of long histories).
Run i starts 2024-05-15T15:00:00Z + i h, each message a seeded-random few seconds after the previous
(user 6-20 s, assistant 2-7 s, tool 0.3-1.5 s); ids are seeded by session id: output is reproducible.

``--mutate`` writes, from the reward-1.0 runs only, unmutated copies, mutated copies (session
``tau-{task_id}-{trial}-m{k}-{kind}``, k numbering a run's mutations) and ``labels.jsonl``: at most 2
per run per kind, each alone on a fresh copy; ``turn_hint`` indexes the source run's traj. A look-alike
changes one character (ids: two if one never works) for another of its class (ids prefer digits, amounts
keep the leading digit, dates change the day's last digit) and occurs nowhere in the run (ids:
case-insensitively; amounts: as any digit run; dates: as ISO or "Month D").
- ``id``: a ``*_id`` / ``flight_number`` argument that appeared earlier in a user message or tool
  result, changed in the call (so in every later history); its result is left as it was.
- ``reply_number``: a ``$`` amount (>= 2 integer digits), ISO or "Month D" date in an assistant text,
  stated earlier by the user or a tool, and once only in that text.
- ``done_claim``: a successful write call without text whose next assistant text (only tool calls in
  between) claims it done (``successfully``, ``has been <verb>ed``, ``I've issued``...) with a verb of
  that write and, if it names reservations, names this call's. The call and its result are removed, the
  reply kept (``turn_hint`` = the reply).
"""

from __future__ import annotations

import argparse
import calendar
import itertools
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Status, StatusCode, Tracer, set_span_in_context

Msg = dict[str, Any]
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/tau-bench/gpt-4o-airline.json"
BASE_NS = int(datetime(2024, 5, 15, 15, tzinfo=UTC).timestamp()) * 10**9
SEC = 10**9
DIGITS, LETTERS = "0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DESCRIPTIONS = {
    "book_reservation": "Book a new reservation for a user.",
    "calculate": "Evaluate an arithmetic expression and return the result.",
    "cancel_reservation": "Cancel a whole reservation.",
    "get_reservation_details": "Get the details of a reservation.",
    "get_user_details": "Get the details of a user, including their reservations.",
    "list_all_airports": "List all airports and their cities.",
    "search_direct_flight": "Search direct flights between two cities on a date.",
    "search_onestop_flight": "Search one-stop flights between two cities on a date.",
    "send_certificate": "Send a certificate of a given amount to a user.",
    "think": "Think about something; changes nothing and returns nothing.",
    "transfer_to_human_agents": "Transfer the user to a human agent with a summary.",
    "update_reservation_baggages": "Update the baggage information of a reservation.",
    "update_reservation_flights": "Update the flights (and cabin) of a reservation.",
    "update_reservation_passengers": "Update the passenger information of a reservation.",
}
WRITE_VERBS = {  # write tool -> words a reply uses to say it was done
    "book_reservation": "book",
    "cancel_reservation": "cancel",
    "send_certificate": "certificate",
    "update_reservation_baggages": "bag",
    "update_reservation_flights": "updat|chang|upgrad|downgrad|modif|switch",
    "update_reservation_passengers": "passenger|name|updat",
}
CLAIM = re.compile(
    r"successfully|\b(?:has|have) been \w+ed\b|\bI(?:'ve| have) (?:issued|booked|cancell?ed|updated"
    r"|sent|changed|modified|added|upgraded|downgraded)\b|\bis now (?:confirmed|booked|cancell?ed)\b",
    re.I,
)
AMOUNT = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?")
ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
MONTHDAY = re.compile(rf"\b({'|'.join(calendar.month_name[1:])}) (\d{{1,2}})(st|nd|rd|th)?\b")
STRICT_NUM = re.compile(r"(?<![\w.:\-])\d[\d,]*(?:\.\d+)?(?![\w:\-]|\.\d)")  # not inside ids/dates
ANY_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


class SeededIds(IdGenerator):
    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._rng.getrandbits(128) or 1


class ToolError(Exception):
    """A tool result that starts with 'Error'."""


def infer_schema(values: list[Any]) -> dict[str, Any]:
    """JSON schema of a list of JSON values (objects merged; required = keys in all of them)."""
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    types = sorted({names.get(type(v), "null") for v in values})
    if types == ["integer", "number"]:
        types = ["number"]
    if types == ["object"]:
        keys: list[str] = []
        for v in values:
            keys += [k for k in v if k not in keys]
        props = {k: infer_schema([v[k] for v in values if k in v]) for k in keys}
        return {
            "type": "object",
            "properties": props,
            "required": [k for k in keys if all(k in v for v in values)],
        }
    if types == ["array"]:
        items = [x for v in values for x in v]
        return {"type": "array", "items": infer_schema(items) if items else {}}
    return {"type": types[0] if len(types) == 1 else types}


def tool_schemas(runs: list[dict[str, Any]]) -> list[str]:
    """The τ-bench airline tools (`DESCRIPTIONS`), each with its arguments inferred from the calls of
    `runs`; a call of any other name is not declared (the agent named a tool that does not exist)."""
    seen: dict[str, list[Any]] = {name: [] for name in DESCRIPTIONS}
    for m in (m for run in runs for m in run["traj"]):
        for c in m.get("tool_calls") or []:
            if c["function"]["name"] in seen:
                seen[c["function"]["name"]].append(json.loads(c["function"]["arguments"]))
    out = []
    for name in sorted(seen):
        empty = {"type": "object", "properties": {}, "required": []}
        params = infer_schema(seen[name]) if seen[name] else empty
        fn = {"name": name, "description": DESCRIPTIONS.get(name, name), "parameters": params}
        out.append(json.dumps({"type": "function", "function": fn}))
    return out


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def timeline(traj: list[Msg], i: int) -> list[int]:
    rng = random.Random(f"time-{i}")
    gaps = {"user": (6.0, 20.0), "assistant": (2.0, 7.0), "tool": (0.3, 1.5)}
    t, out = BASE_NS + i * 3600 * SEC, []
    for k, m in enumerate(traj):
        t += int(rng.uniform(*gaps.get(m["role"], (1.0, 2.0))) * SEC) if k else 0
        out.append(t)
    return out


def message_attrs(prefix: str, m: Msg) -> dict[str, str]:
    a = {f"{prefix}.message.role": m["role"]}
    if m.get("content"):
        a[f"{prefix}.message.content"] = m["content"]
    if m["role"] == "tool":
        a[f"{prefix}.message.tool_call_id"] = m["tool_call_id"]
    for j, c in enumerate(m.get("tool_calls") or []):
        p = f"{prefix}.message.tool_calls.{j}.tool_call"
        a[f"{p}.id"] = c["id"]
        a[f"{p}.function.name"] = c["function"]["name"]
        a[f"{p}.function.arguments"] = c["function"]["arguments"]
    return a


def _exchange(
    tracer: Tracer,
    sid: str,
    msgs: list[Msg],
    times: list[int],
    u: int,
    end: int,
    tools: list[str],
    metadata: dict[str, str] | None = None,
) -> None:
    """The trace of the user message msgs[u] and what followed it up to msgs[end]."""
    texts = [m["content"] for m in msgs[u + 1 : end] if m["role"] == "assistant" and m.get("content")]
    attrs = {"openinference.span.kind": "AGENT", "session.id": sid}
    if metadata:  # OpenInference's `using_metadata(...)`: a JSON object on the span
        attrs["metadata"] = json.dumps(metadata)
    attrs |= {"input.value": msgs[u]["content"], "input.mime_type": "text/plain"}
    if texts:
        attrs |= {"output.value": texts[-1], "output.mime_type": "text/plain"}
    agent = tracer.start_span("AirlineAgent", start_time=times[u], attributes=attrs)
    ctx = set_span_in_context(agent)
    calls: dict[str, tuple[str, str, int]] = {}
    for k in range(u + 1, end):
        m = msgs[k]
        if m["role"] == "assistant":
            la = {"openinference.span.kind": "LLM", "session.id": sid, "llm.model_name": "gpt-4o"}
            la |= {"llm.provider": "openai", "llm.system": "openai"}
            for n, h in enumerate(msgs[:k]):
                la |= message_attrs(f"llm.input_messages.{n}", h)
            la |= message_attrs("llm.output_messages.0", m)
            la |= {f"llm.tools.{n}.tool.json_schema": schema for n, schema in enumerate(tools)}
            llm = tracer.start_span("ChatCompletion", ctx, start_time=times[k - 1] + SEC // 20, attributes=la)
            llm.set_status(Status(StatusCode.OK))
            llm.end(end_time=times[k])
            for c in m.get("tool_calls") or []:
                calls[c["id"]] = (c["function"]["name"], c["function"]["arguments"], times[k])
        elif m["role"] == "tool" and m["tool_call_id"] in calls:
            name, args, asked = calls.pop(m["tool_call_id"])
            text = m["content"]
            error = text.startswith("Error")
            out = json.dumps({"error": text}) if error else text
            ta = {"openinference.span.kind": "TOOL", "session.id": sid, "tool.name": name}
            ta |= {"input.value": args, "input.mime_type": "application/json", "output.value": out}
            ta |= {"output.mime_type": "application/json" if _is_json(out) else "text/plain"}
            tool = tracer.start_span(name, ctx, start_time=asked + SEC // 50, attributes=ta)
            if error:
                tool.record_exception(ToolError(text), timestamp=times[k])
                tool.set_status(Status(StatusCode.ERROR, text))
            else:
                tool.set_status(Status(StatusCode.OK))
            tool.end(end_time=times[k])
    agent.set_status(Status(StatusCode.OK))
    agent.end(end_time=times[end - 1] + SEC // 10)


def render(
    sid: str, msgs: list[Msg], times: list[int], tools: list[str], metadata: dict[str, str] | None = None
) -> bytes:
    """One run as one OTLP request; `metadata` goes on every AGENT span (e.g. `aem.reference_id`)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "airline-agent", "service.instance.id": "airline-agent-0"}),
        id_generator=SeededIds(sid),
        span_limits=SpanLimits(max_span_attributes=4096),
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("openinference.instrumentation.taubench")
    users = [k for k, m in enumerate(msgs) if m["role"] == "user"] + [len(msgs)]
    for u, end in itertools.pairwise(users):
        _exchange(tracer, sid, msgs, times, u, end, tools, metadata)
    provider.shutdown()
    return encode_spans(exporter.get_finished_spans()).SerializeToString()


@dataclass
class Mutation:
    traj: list[Msg]
    times: list[int]
    turn_hint: int
    original: str
    replacement: str
    where: str


def run_text(traj: list[Msg]) -> str:
    parts = [m.get("content") or "" for m in traj]
    return "\n".join(parts + [c["function"]["arguments"] for m in traj for c in m.get("tool_calls") or []])


def earlier_facts(traj: list[Msg], k: int) -> str:
    """What the user and the tools said before traj[k]."""
    return "\n".join(h["content"] for h in traj[:k] if h["role"] in ("user", "tool"))


def _numbers(text: str, pattern: re.Pattern[str]) -> set[float]:
    return {float(t.replace(",", "")) for t in pattern.findall(text)}


def _amount(token: str) -> float:
    return float(token.lstrip("$ ").replace(",", ""))


def _swap(ch: str, rng: random.Random) -> str:
    new = rng.choice([c for c in (DIGITS if ch.isdigit() else LETTERS) if c != ch.upper()])
    return new.lower() if ch.islower() else new


def lookalike_id(value: str, rng: random.Random, forbidden: str) -> str | None:
    alnum = [i for i, ch in enumerate(value) if ch.isalnum()]
    digits = [i for i in alnum if value[i].isdigit()]
    for attempt in range(60):
        n = 1 if attempt < 30 else 2
        pool = digits if len(digits) >= n and attempt % 3 != 2 else alnum
        if len(pool) >= n:
            chars = list(value)
            for p in rng.sample(pool, n):
                chars[p] = _swap(chars[p], rng)
            if "".join(chars).lower() not in forbidden:
                return "".join(chars)
    return None


def _id_leaves(obj: Any, path: str = "") -> Iterator[tuple[str, str]]:
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for key, v in items:
        p = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key
        if isinstance(v, str) and isinstance(key, str) and (key.endswith("_id") or key == "flight_number"):
            yield p, v
        else:
            yield from _id_leaves(v, p)


def mutate_id(traj: list[Msg], times: list[int], rng: random.Random) -> list[Mutation]:
    forbidden, cands = run_text(traj).lower(), []
    for k, m in enumerate(traj):
        for c in m.get("tool_calls") or []:
            args = c["function"]["arguments"]
            for path, value in _id_leaves(json.loads(args)):
                if value and value in earlier_facts(traj, k) and args.count(json.dumps(value)) == 1:
                    cands.append((k, f"call {c['function']['name']}.{path}", value))
    rng.shuffle(cands)
    out: list[Mutation] = []
    for fresh_only in (True, False):  # prefer a second mutation on another tool argument
        for k, where, value in cands:
            if len(out) == 2 or any(mu.where == where and (fresh_only or mu.turn_hint == k) for mu in out):
                continue
            new = lookalike_id(value, rng, forbidden)
            if new is not None:
                new_traj = json.loads(json.dumps(traj))
                fn = new_traj[k]["tool_calls"][0]["function"]
                fn["arguments"] = fn["arguments"].replace(json.dumps(value), json.dumps(new))
                out.append(Mutation(new_traj, times, k, value, new, where))
    return out


def _date_forms(token: str) -> tuple[str, str] | None:
    """(ISO date, 'Month D') of a date token (year 2024 when not given); None if not a valid date."""
    iso, md = ISO.fullmatch(token), MONTHDAY.fullmatch(token)
    if iso:
        y, mo, d = int(iso[1]), int(iso[2]), int(iso[3])
    elif md:
        y, mo, d = 2024, list(calendar.month_name).index(md[1]), int(md[2])
    else:
        return None
    if not (1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1]):
        return None
    return f"{y:04d}-{mo:02d}-{d:02d}", f"{calendar.month_name[mo]} {d}"


def _number_swap(token: str, rng: random.Random, forbid: Callable[[str], bool]) -> str | None:
    """Change one digit of an amount (not the leading one) or the last digit of a date's day."""
    amount, iso, md = AMOUNT.fullmatch(token), ISO.fullmatch(token), MONTHDAY.fullmatch(token)
    if amount:
        positions = [i for i in range(amount.start(1), amount.end(1)) if token[i].isdigit()][1:]
    else:
        positions = [iso.end(3) - 1] if iso else [md.end(2) - 1] if md else []
    opts = [(p, d) for p in positions for d in DIGITS if d != token[p]]
    rng.shuffle(opts)
    for p, d in opts:
        cand = token[:p] + d + token[p + 1 :]
        nmd = MONTHDAY.fullmatch(cand)
        if nmd and nmd[3]:  # keep "17th" -> "19th" grammatical
            day = int(nmd[2])
            cand = cand[: nmd.start(3)] + (
                "th" if day // 10 == 1 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
            )
        if not forbid(cand):
            return cand
    return None


def mutate_reply_number(traj: list[Msg], times: list[int], rng: random.Random) -> list[Mutation]:
    text = run_text(traj)
    all_nums = _numbers(text, ANY_NUM)

    def forbid(cand: str) -> bool:
        forms = _date_forms(cand)
        if forms:
            return cand in text or forms[0] in text or re.search(rf"\b{forms[1]}\b", text) is not None
        return cand in text or not AMOUNT.fullmatch(cand) or _amount(cand) in all_nums

    cands = []
    for k, m in enumerate(traj):
        if m["role"] != "assistant" or not m.get("content"):
            continue
        facts = earlier_facts(traj, k)
        for hit in (h for pat in (AMOUNT, ISO, MONTHDAY) for h in pat.finditer(m["content"])):
            tok, forms = hit.group(0), _date_forms(hit.group(0))
            if m["content"].count(tok) != 1:
                continue
            if forms:
                grounded = forms[0] in facts or re.search(rf"\b{forms[1]}\b", facts) is not None
            else:
                grounded = len(hit[1].replace(",", "")) >= 2 and _amount(tok) in _numbers(facts, STRICT_NUM)
            if grounded:
                cands.append((k, tok))
    rng.shuffle(cands)
    out: list[Mutation] = []
    for k, tok in cands:
        new = None if any(mu.turn_hint == k for mu in out) else _number_swap(tok, rng, forbid)
        if new is not None and len(out) < 2:
            new_traj = json.loads(json.dumps(traj))
            new_traj[k]["content"] = new_traj[k]["content"].replace(tok, new)
            out.append(Mutation(new_traj, times, k, tok, new, "reply"))
    return out


def mutate_done_claim(traj: list[Msg], times: list[int], rng: random.Random) -> list[Mutation]:
    cands, rids = [], set(re.findall(r'"reservation_id": ?"(\w+)"', run_text(traj)))
    for k, m in enumerate(traj[:-2]):
        calls, res = m.get("tool_calls") or [], traj[k + 1]
        if m["role"] != "assistant" or m.get("content") or len(calls) != 1:
            continue
        name, args = calls[0]["function"]["name"], json.loads(calls[0]["function"]["arguments"])
        if name not in WRITE_VERBS or res["role"] != "tool" or res["tool_call_id"] != calls[0]["id"]:
            continue
        j = k + 2
        while j < len(traj) and (traj[j]["role"] == "tool" or not traj[j].get("content")):
            j += 1
        if res["content"].startswith("Error") or j == len(traj) or traj[j]["role"] != "assistant":
            continue
        reply = traj[j]["content"]
        named = {r for r in rids if r in reply}  # the reservations the reply names
        fits = not named or "reservation_id" not in args or args["reservation_id"] in named
        if fits and CLAIM.search(reply) and re.search(WRITE_VERBS[name], reply, re.I):
            cands.append((k, j))
    out = []
    for k, j in sorted(rng.sample(cands, min(2, len(cands)))):
        fn = traj[k]["tool_calls"][0]["function"]
        keep = [n for n in range(len(traj)) if n not in (k, k + 1)]
        new_traj = json.loads(json.dumps([traj[n] for n in keep]))
        call = f"{fn['name']}({fn['arguments']})"
        out.append(Mutation(new_traj, [times[n] for n in keep], j, call, "", "reply"))
    return out


MUTATORS = {"id": mutate_id, "reply_number": mutate_reply_number, "done_claim": mutate_done_claim}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Render τ-bench airline runs as OpenInference OTLP (.pb).")
    ap.add_argument("--out", type=Path, required=True, help="output directory")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="gpt-4o-airline.json")
    ap.add_argument("--mutate", action="store_true", help="write the reward-1 mutation set and labels.jsonl")
    args = ap.parse_args(argv)
    runs: list[dict[str, Any]] = json.loads(args.data.read_text())
    tools = tool_schemas(runs)
    args.out.mkdir(parents=True, exist_ok=True)
    labels: list[dict[str, Any]] = []
    written = 0
    for i, run in enumerate(runs):
        sid, traj, times = f"tau-{run['task_id']}-{run['trial']}", run["traj"], timeline(run["traj"], i)
        if args.mutate and run["reward"] != 1.0:
            continue
        (args.out / f"{i:04d}-{sid}.pb").write_bytes(render(sid, traj, times, tools))
        written += 1
        k = 0
        for kind, mutate in MUTATORS.items() if args.mutate else []:
            for mu in mutate(traj, times, random.Random(f"{kind}-{i}")):
                k += 1
                msid = f"{sid}-m{k}-{kind}"
                (args.out / f"{i:04d}-{msid}.pb").write_bytes(render(msid, mu.traj, mu.times, tools))
                label = {"conversation_id": msid, "source_run": sid, "kind": kind, "turn_hint": mu.turn_hint}
                labels.append(
                    label | {"original": mu.original, "replacement": mu.replacement, "where": mu.where}
                )
    if args.mutate:
        with (args.out / "labels.jsonl").open("w") as f:
            f.writelines(json.dumps(label, ensure_ascii=False) + "\n" for label in labels)
    counts = {kind: sum(label["kind"] == kind for label in labels) for kind in MUTATORS}
    print(f"wrote {written} runs" + (f", mutations {counts}" if args.mutate else "") + f" to {args.out}")


if __name__ == "__main__":
    main()
