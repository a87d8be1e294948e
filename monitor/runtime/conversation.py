"""Score one closed live conversation: spans → turns → (aligned to gold) → report. Pure apart from the
injected ladder's scorers.

In: the conversation's normalized spans, the gold dialogs by reference id, the version and why the
window closed. Out: a `ConversationReport` — the dialog report's fields (when a gold reference was
found) plus `conversation_id`, `agent`, `release`, `reference_id`, `adapter`, `version`, `scored`. A
conversation with no reference is still reported (`scored: false`): its turns, chains, latency and
tool errors. `replay`, `run` and the Kafka consumer all call this, so they give the same verdicts.

`report_closed` wraps it for the pipeline and the scoring workers: the report as written, whether it
was scored, how long it took, and — never an exception — why a fault left it unscored (`Outcome`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from monitor.assemble.history import begins_conversation, history_keys
from monitor.assemble.transcript import build_transcript
from monitor.assemble.turns import to_dialog_turns
from monitor.assemble.windows import OpenConversation
from monitor.compare.ladder import Ladder
from monitor.config import AlignmentConfig, CompositionConfig, ScoringConfig
from monitor.model import ActionContent, AgentSpan, Dialog, DialogReport, DialogTurn
from monitor.normalize.capture import content_capture_hint, conversation_id_hint
from monitor.normalize.payloads import bind_declared
from monitor.reference.policy import Policy, select_policy
from monitor.score.align import align_to_gold
from monitor.score.dialog import score_dialog
from monitor.score.grounding import ConversationEvidence
from monitor.score.policy import ProcessMetrics, check_policy


class ObservedTurnReport(BaseModel):
    model_config = ConfigDict(frozen=True)
    turn_no: int
    role: str
    type: str
    predicted: dict[str, Any]
    depends_on: tuple[int, ...] = ()
    latency_ms: float | None = None
    error: str | None = None
    trace_id: str | None = Field(default=None, description="the trace of the span this turn was read from")
    span_id: str | None = Field(
        default=None, description="that span: a tool call's tool span, or the LLM span of a message"
    )


class ConversationReport(BaseModel):
    model_config = ConfigDict(frozen=True)
    conversation_id: str
    agent: str | None
    release: str | None
    reference_id: str | None
    adapter: str = Field(description="the convention adapter(s) that read this conversation's spans")
    version: int = Field(description="1 for the first report; +1 for each re-report after late spans")
    scored: bool
    unscored_reason: str | None = None
    capture_hint: str | None = Field(
        default=None, description="with content_not_captured: the setting that turns content capture on"
    )
    conversation_hint: str | None = Field(
        default=None,
        description="no span names the conversation: how it was grouped (its trace, or traces joined by "
        "their resent history) and the setting that gives it an id",
    )
    unscored_detail: str | None = Field(
        default=None,
        description="with no_agent_activity_recognized: the adapters that read the spans and the "
        "attribute prefixes they carry",
    )
    closed_by: str
    merged_into: str | None = Field(
        default=None,
        description="with closed_by `merged`: this id was reported alone (a trace whose resent history had "
        "not come), then joined the conversation named here; this version holds no spans and supersedes "
        "the id's earlier reports",
    )
    replaces: int | None = Field(
        default=None,
        description="this version replaces every version of the id up to this one, though they hold more "
        "spans: spans left the conversation after it was reported (a turn of twins moved to its own "
        "conversation, docs/streaming.md)",
    )
    spans: int
    spans_dropped: int = 0
    started_ns: int
    ended_ns: int
    duration_ms: float
    tool_calls: int
    tool_errors: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    read_only_extra_calls: int = Field(
        default=0, description="calls of read-only tools no gold turn asks for"
    )
    allowed_extra_calls: int = Field(
        default=0, description="calls of allowed extra tools no gold turn asks for"
    )
    trace_id: str | None = Field(default=None, description="the trace of the conversation's root span")
    span_id: str | None = Field(
        default=None, description="the conversation's root span: its earliest span without a parent"
    )
    observed_turns: tuple[ObservedTurnReport, ...]
    dialog: DialogReport | None = None
    references: tuple[str, ...] = Field(
        default=(), description="what the turns were scored against: gold, policy:<agent>"
    )
    process: ProcessMetrics | None = Field(
        default=None, description="the practice post's process metrics (policy only)"
    )

    def to_json(self) -> dict[str, Any]:
        """The report as written to JSONL: the dialog report's fields at the top level."""
        own = self.model_dump(mode="json", exclude={"dialog", "observed_turns"})
        head = {
            k: own.pop(k)
            for k in ("conversation_id", "agent", "release", "reference_id", "adapter", "version", "scored")
        }
        dialog = self.dialog.model_dump(mode="json") if self.dialog is not None else {}
        dialog.pop("dialog_id", None)
        turns = dialog.pop("turns", None)
        data = {**head, "dialog_id": self.conversation_id, **dialog, **own}
        data["observed_turns"] = [t.model_dump(mode="json") for t in self.observed_turns]
        if turns is not None:
            data["turns"] = turns
        return data


def score_conversation(
    conversation_id: str,
    spans: Sequence[AgentSpan],
    references: Mapping[str, Dialog],
    ladder: Ladder,
    *,
    version: int = 1,
    closed_by: str = "end_of_input",
    spans_dropped: int = 0,
    separator: str = ".",
    composition: CompositionConfig | None = None,
    policies: Mapping[str, Policy] | None = None,
    alignment_config: AlignmentConfig | None = None,
    builtin_policy: bool = False,
) -> ConversationReport:
    spans = bind_declared(spans)
    digests = _CallDigests()  # each model call's, hashed once for both uses below
    again = _recorded_again(spans, digests)  # read from the recording they repeat
    observed = build_transcript([s for s in spans if s.span.span_id not in again] if again else spans)
    live = to_dialog_turns(observed, separator)
    errors_by_no = {i: t.error or t.arguments_error for i, t in enumerate(observed, start=1)}
    tool_errors = {i: t.error for i, t in enumerate(observed, start=1)}
    reference_id = _most_common(s.reference_id for s in spans)
    agent = _most_common(s.agent for s in spans)
    gold = references.get(reference_id) if reference_id else None
    # the built-in policy scores only what an adapter understood: spans it could not read are no failures
    policy = select_policy(
        dict(policies or {}), agent, builtin=builtin_policy and gold is None and bool(live)
    )
    capture_hint = content_capture_hint(spans)
    # spans no adapter understood are never failures: no turn read at all, or gold asks for calls while
    # the only calls in sight are spans no adapter could read
    unread = None if capture_hint is not None else _not_understood(spans, live, gold)
    if capture_hint is not None or unread is not None:  # nothing to score: not the agent's fault
        gold, policy = None, None
    span_schemas = {name: schema for s in spans for name, schema in s.tool_definitions.items()}
    dialog_report = None
    process = None
    reason = None
    unscored_detail = None
    references_used = []
    origins = None
    known = None
    if gold is not None:
        gold = _with_span_schemas(gold, span_schemas)
        alignment = align_to_gold(conversation_id, live, gold, ladder)
        origins, known = alignment.origins, alignment.scores
        dialog = alignment.dialog
        errors = {alignment.turn_map[n]: e for n, e in tool_errors.items() if n in alignment.turn_map}
        references_used.append("gold")
    else:
        dialog = Dialog(dialog_id=conversation_id, turns=tuple(live))
        errors = tool_errors
    policy_scores = None
    provenance = None
    if policy is not None:
        context = _evidence_context(spans, spans_dropped)
        outcome = check_policy(dialog.turns, errors, policy, span_schemas, context)
        provenance = outcome.grounded.provenance
        turns = _with_edges(dialog.turns, outcome.grounded.edges)
        dialog = dialog.model_copy(update={"turns": turns + tuple(outcome.extra_rows)})
        policy_scores, process = outcome.scores, outcome.metrics
        references_used.append(f"policy:{policy.agent}")
    if gold is not None or policy is not None:
        dialog_report = score_dialog(
            dialog,
            ladder,
            composition,
            policy_scores,
            alignment=alignment_config,
            origins=origins,
            known=known,
        )
        if provenance:
            dialog_report = _with_provenance(dialog_report, provenance)
    elif capture_hint is not None:
        reason = "content_not_captured"
    elif unread is not None or (not live and builtin_policy):
        reason = "no_agent_activity_recognized"
        unscored_detail = unread or _unrecognized(spans)
    elif reference_id:
        reason = f"reference {reference_id!r} not found among the loaded gold dialogs, and no policy applies"
    else:
        reason = "no reference id on the conversation's spans, and no policy applies to its agent"
    starts = [s.span.start_ns for s in spans]
    ends = [s.span.end_ns for s in spans]
    root = root_span(spans)
    calls = [t for t in observed if t.kind == "call"]
    model_calls = _model_calls(_counted(spans, again, digests))
    return ConversationReport(
        conversation_id=conversation_id,
        agent=agent,
        release=_most_common(s.release for s in spans),
        reference_id=reference_id,
        adapter="+".join(
            sorted({s.convention for s in spans if s.kind != "other"} or {s.convention for s in spans})
        ),
        version=version,
        scored=dialog_report is not None,
        unscored_reason=reason,
        unscored_detail=unscored_detail,
        capture_hint=capture_hint,
        conversation_hint=None if _named(spans) else conversation_id_hint(spans, _traces_of(spans, again)),
        closed_by=closed_by,
        spans=len(spans),
        spans_dropped=spans_dropped,
        started_ns=min(starts, default=0),
        ended_ns=max(ends, default=0),
        duration_ms=round((max(ends, default=0) - min(starts, default=0)) / 1e6, 3),
        tool_calls=len(calls),
        tool_errors=sum(1 for t in calls if t.error),
        input_tokens=_sum(s.input_tokens for s in model_calls),
        output_tokens=_sum(s.output_tokens for s in model_calls),
        read_only_extra_calls=_free_calls(dialog_report, "read_only"),
        allowed_extra_calls=_free_calls(dialog_report, "allowed_extra"),
        observed_turns=tuple(
            ObservedTurnReport(
                turn_no=t.turn_no,
                role=t.turn,
                type="action" if isinstance(t.predict_turn, ActionContent) else "response",
                predicted=t.predict_turn.model_dump() if t.predict_turn else {},
                depends_on=t.depends_on,
                latency_ms=t.latency_ms,
                error=errors_by_no.get(t.turn_no),
                trace_id=o.trace_id,
                span_id=o.span_id,
            )
            for t, o in zip(live, observed, strict=True)
        ),
        trace_id=root.span.trace_id if root else None,
        span_id=root.span.span_id if root else None,
        dialog=dialog_report,
        references=tuple(references_used),
        process=process,
    )


@dataclass(frozen=True)
class Outcome:
    """A closed conversation's report (as written) and how scoring went: what the pipeline publishes and
    counts, in the receiving process or sent back from a scoring worker (so: plain, picklable data)."""

    data: dict[str, Any]
    scored: bool
    seconds: float  # spent scoring and building the report
    failure: str | None = None  # a fault (not a missing reference) left it unscored: why, for `failures`
    error: str | None = None  # scoring raised this (counted as pipeline_errors:score)
    embedder: dict[str, int] = field(default_factory=dict)  # embedder counters this scoring added (workers)


def report_closed(
    conv: OpenConversation,
    closed_by: str,
    references: Mapping[str, Dialog],
    ladder: Ladder,
    config: ScoringConfig,
    policies: Mapping[str, Policy],
) -> Outcome:
    """The report of one closed conversation. Never raises: a conversation that cannot be scored is still
    reported, unscored, with the reason."""
    started = time.perf_counter()
    unreadable = next((s.unreadable for s in conv.spans if s.unreadable), None)
    error = None
    if unreadable is not None:
        report = unscored_report(conv, closed_by, f"a span could not be read: {unreadable}")
    else:
        try:
            report = score_conversation(
                conv.conversation_id,
                conv.spans,
                references,
                ladder,
                version=conv.version,
                closed_by=closed_by,
                spans_dropped=conv.spans_dropped,
                separator=config.normalize.tool_action_separator,
                policies=policies,
                builtin_policy=config.builtin_policy,
                composition=config.composition,
                alignment_config=config.alignment,
            )
            data = report.to_json()  # writing it out may fail too (a value JSON cannot hold)
        except Exception as exc:  # one conversation's fault must not cost the others theirs
            error = describe(exc)
            report = unscored_report(conv, closed_by, f"scoring failed: {error}")
    failure = report.unscored_reason if unreadable is not None or error is not None else None
    if unreadable is not None or error is not None:
        data = report.to_json()
    if conv.replaces:  # spans left it after it was reported: this version replaces the fuller ones
        data["replaces"] = conv.replaces
    return Outcome(data, report.scored, time.perf_counter() - started, failure, error)


def unscored_report(conv: OpenConversation, closed_by: str, reason: str) -> ConversationReport:
    """The report of a conversation that could not be scored: who, when, how many spans, and why."""
    spans = conv.spans
    starts, ends = [s.span.start_ns for s in spans], [s.span.end_ns for s in spans]
    return ConversationReport(
        conversation_id=conv.conversation_id,
        agent=_most_common(s.agent for s in spans),
        release=_most_common(s.release for s in spans),
        reference_id=_most_common(s.reference_id for s in spans),
        adapter="+".join(sorted({s.convention for s in spans})) or "unknown",
        version=conv.version,
        scored=False,
        unscored_reason=reason,
        closed_by=closed_by,
        spans=len(spans),
        spans_dropped=conv.spans_dropped,
        started_ns=min(starts, default=0),
        ended_ns=max(ends, default=0),
        duration_ms=round((max(ends, default=0) - min(starts, default=0)) / 1e6, 3),
        tool_calls=sum(1 for s in spans if s.kind == "tool"),
        tool_errors=sum(1 for s in spans if s.tool is not None and s.tool.error),
        trace_id=root.span.trace_id if (root := root_span(spans)) else None,
        span_id=root.span.span_id if root else None,
        observed_turns=(),
    )


def merged_report(conv: OpenConversation, merged_into: str) -> ConversationReport:
    """The report that ends an id reported alone whose spans joined `merged_into` (windows.py)."""
    why = f"its spans joined {merged_into}, whose report holds them"
    return unscored_report(conv, "merged", why).model_copy(update={"merged_into": merged_into})


def root_span(spans: Sequence[AgentSpan]) -> AgentSpan | None:
    """The conversation's root span: its earliest span without a parent (else its earliest span)."""
    return min(spans, key=lambda s: (s.span.parent_span_id is not None, s.span.start_ns), default=None)


def describe(exc: BaseException, limit: int = 300) -> str:
    """`Type: message` on one line, cut at `limit` characters."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[:limit] + "…"


def _not_understood(
    spans: Sequence[AgentSpan], live: Sequence[DialogTurn], gold: Dialog | None
) -> str | None:
    """Why a conversation with a reference cannot be judged on what was read, or None: no turn was read
    from its spans, or gold asks for tool calls, none was read, and spans no adapter read look like
    tool calls (`AgentSpan.unread_tool`). Without gold, the built-in policy applies only to what was
    read (an agent that called no tool is not suspect)."""
    if gold is None:
        return None
    if not live:
        return _unrecognized(spans)
    read_calls = any(isinstance(t.predict_turn, ActionContent) for t in live)
    gold_calls = any(isinstance(t.gold_turn, ActionContent) for t in gold.turns)
    unread = sorted({s.unread_tool for s in spans if s.unread_tool})
    if read_calls or not gold_calls or not unread:
        return None
    shown = ", ".join(unread[:5]) + (f" … ({len(unread)} in all)" if len(unread) > 5 else "")
    return (
        f"gold asks for tool calls and none was read, while {sum(1 for s in spans if s.unread_tool)} "
        f"spans no adapter could read look like tool calls ({shown}); {_adapters_seen(spans)}"
    )


def _unrecognized(spans: Sequence[AgentSpan]) -> str:
    """Nothing was read: from how many spans, which adapters read them, what attribute prefixes they carry."""
    return f"no tool call or message was read from {len(spans)} spans ({_adapters_seen(spans)})"


def _adapters_seen(spans: Sequence[AgentSpan]) -> str:
    """Which adapters read a conversation's spans, and what attribute prefixes the unread ones carry."""
    adapters: list[str] = sorted({s.convention for s in spans}) or ["none"]
    prefixes = sorted({prefix for s in spans for prefix in s.attribute_prefixes})
    shown = ", ".join(prefixes[:12]) + (f" … ({len(prefixes)} in all)" if len(prefixes) > 12 else "")
    return f"adapters: {', '.join(adapters)}; attribute prefixes seen: {shown or 'none'}"


def _named(spans: Sequence[AgentSpan]) -> bool:
    """A span names the conversation. The Kafka ingest keys a trace nobody named `trace:<id>` and writes
    that key as its spans' conversation: no name either."""
    return any(s.conversation_id and not s.conversation_id.startswith("trace:") for s in spans)


def _evidence_context(spans: Sequence[AgentSpan], spans_dropped: int) -> ConversationEvidence:
    """What the conversation states beside its turns: its system prompts (every distinct one any model call
    was given), the values of `normalize.evidence_attributes` and its date (UTC, from its first span, so
    that `tomorrow` can be grounded); and whether all of it was recorded: no
    span dropped, and a conversation id on the spans or a model call that shows its beginning (a conversation
    grouped by trace, or joined by history, may otherwise be cut)."""
    system = {
        m.text: None
        for s in spans
        for m in s.input_messages
        if m.role == "system" and m.text and m.text.strip()
    }
    system.update((value, None) for s in spans for value in s.evidence)
    why = ""
    if spans_dropped:
        why = f"evidence incomplete: {spans_dropped} spans were dropped"
    elif not _named(spans) and not begins_conversation(spans):
        # grouped by trace, and no model call shows the conversation's start: earlier traces may hold the rest
        why = "evidence incomplete: no conversation id on the spans, so this trace may be part of a longer conversation"
    starts = [s.span.start_ns for s in spans if s.span.start_ns > 0]
    today = datetime.fromtimestamp(min(starts) / 1e9, UTC).date().isoformat() if starts else None
    return ConversationEvidence(system=tuple(system), today=today, why_incomplete=why)


def _with_edges(turns: Sequence[DialogTurn], edges: Mapping[int, set[int]]) -> tuple[DialogTurn, ...]:
    """Each turn with the turns its values came from (grounding's data flow) among its dependencies."""
    return tuple(
        t.model_copy(update={"depends_on": tuple(sorted(set(t.depends_on) | edges[t.turn_no]))})
        if t.turn_no in edges
        else t
        for t in turns
    )


def _with_provenance(report: DialogReport, provenance: Mapping[int, Sequence[Any]]) -> DialogReport:
    """Each action verdict with the provenance of its argument values (grounding's, by live turn)."""
    turns = tuple(
        v.model_copy(update={"provenance": {p.path: p.as_report() for p in provenance[v.turn_no]}})
        if v.type == "action" and v.turn_no in provenance and v.predicted is not None
        else v
        for v in report.turns
    )
    return report.model_copy(update={"turns": turns})


def _free_calls(report: DialogReport | None, why: str) -> int:
    return sum(1 for u in (report.unmatched if report else ()) if u.why == why)


def _with_span_schemas(gold: Dialog, span_schemas: dict[str, Any]) -> Dialog:
    """The tool schemas the agent's spans declare, under those the gold reference gives (which win)."""
    if not span_schemas:
        return gold
    metadata = dict(gold.metadata)
    declared = metadata.get("tool_schemas")
    metadata["tool_schemas"] = {**span_schemas, **(declared if isinstance(declared, dict) else {})}
    return gold.model_copy(update={"metadata": metadata})


def _most_common(values: Any) -> str | None:
    counts = Counter(v for v in values if v)
    return counts.most_common(1)[0][0] if counts else None


def _model_calls(spans: Sequence[AgentSpan]) -> list[AgentSpan]:
    """The model-call spans, each call once: a provider SDK's copy of a call (`call_copy`) that another span
    records whole — by the response id, or as the model-call span it is a child of — carries the same
    usage, counted there; and a model-call span inside another that counted usage is the same call recorded
    twice (Langfuse's LangChain handler around the `langfuse.openai` client's span, an instrumentation of
    a framework's model around one of its client), counted once, outside. (A call recorded whole again in
    another trace, `_recorded_again`, is left out before.)"""
    calls = [s for s in spans if s.kind == "llm"]
    whole = {s.response_id for s in calls if s.response_id and not s.call_copy}
    parents = {s.span.span_id for s in calls if not s.call_copy}
    counted = {s.span.span_id for s in calls if s.input_tokens is not None or s.output_tokens is not None}
    return [
        s
        for s in calls
        if not (s.call_copy and (s.response_id in whole or s.span.parent_span_id in parents))
        and s.span.parent_span_id not in counted
    ]


def _recorded_again(spans: Sequence[AgentSpan], digests: _CallDigests) -> dict[str, AgentSpan]:
    """Second recordings of model calls (`WindowStore._second_recordings`), by span id, each with the
    recording the turns are read from: a lone model call (`AgentSpan.lone_call`, in a trace of no other
    agent activity: an HTTP client's span may be under it) within the time of a model call in another
    trace (`AgentSpan.within`), alike in all they saw and answered (history.py's digests)."""
    calls = [s for s in spans if s.kind == "llm"]
    others = {s.span.trace_id for s in spans if s.kind not in ("llm", "other")}  # agent activity beside
    lone = [
        s
        for s in calls
        if s.lone_call and s.span.trace_id not in others and (s.input_messages or s.output_messages)
    ]
    if not lone:
        return {}
    whole = [s for s in calls if not s.lone_call and (s.input_messages or s.output_messages)]
    again: dict[str, AgentSpan] = {}
    for s in lone:
        size = (len(s.input_messages), len(s.output_messages))
        for w in whole:
            if (
                (len(w.input_messages), len(w.output_messages)) == size
                and s.within(w.when)
                and digests(s) == digests(w)
            ):
                again[s.span.span_id] = w
                break
    return again


def _counted(
    spans: Sequence[AgentSpan], again: dict[str, AgentSpan], digests: _CallDigests
) -> list[AgentSpan]:
    """The spans whose usage counts: of a call recorded twice, the recording that carries its usage (the
    one the turns are read from, unless only the second has any); of calls that two instrumentations
    recorded alike in one conversation, one instrumentation's (`_one_instrumentation`)."""
    if again:
        usage = {
            w.span.span_id
            for w in again.values()
            if w.input_tokens is not None or w.output_tokens is not None
        }
        spans = [
            s for s in spans if s.span.span_id not in again or again[s.span.span_id].span.span_id not in usage
        ]
    return _one_instrumentation(spans, digests)


def _one_instrumentation(spans: Sequence[AgentSpan], digests: _CallDigests) -> list[AgentSpan]:
    """The spans less the model calls a second instrumentation recorded (its scope another), alike in all
    they saw and answered (history.py's digests), whether or not under the first's span: OpenInference's
    OpenAI SDK instrumentor beside its LlamaIndex one writes a `ChatCompletion` span in the same trace, beside
    LlamaIndex's and after it (a stream), not inside it. Of each group alike, the spans of the scope that
    recorded it most often count (a call made again by the app is recorded again by each instrumentation),
    the earliest scope on a tie."""
    calls = [s for s in spans if s.kind == "llm" and (s.input_messages or s.output_messages)]
    if len({s.span.scope for s in calls}) < 2:
        return list(spans)
    groups: dict[bytes | None, list[AgentSpan]] = {}
    for s in sorted(calls, key=lambda s: s.span.start_ns):
        groups.setdefault(digests(s), []).append(s)
    dropped: set[str] = set()
    for group in groups.values():
        scopes = Counter(s.span.scope for s in group)
        if len(scopes) > 1:
            kept = max(scopes, key=lambda scope: scopes[scope])  # first counted first: the earliest on a tie
            dropped |= {s.span.span_id for s in group if s.span.scope != kept}
    return [s for s in spans if s.span.span_id not in dropped]


def _traces_of(spans: Sequence[AgentSpan], again: Mapping[str, AgentSpan]) -> frozenset[str]:
    """The traces that hold nothing but second recordings of model calls (`_recorded_again`)."""
    if not again:
        return frozenset()
    other = {s.span.trace_id for s in spans if s.span.span_id not in again}
    return frozenset({s.span.trace_id for s in spans if s.span.span_id in again} - other)


class _CallDigests:
    """Each model call's `HistoryKeys.call` (all it saw and answered), hashed once per report: it hashes
    whole histories, and a report with second recordings or two instrumentations compares them twice."""

    def __init__(self) -> None:
        self._by_span: dict[tuple[str, str], bytes | None] = {}

    def __call__(self, span: AgentSpan) -> bytes | None:
        key = (span.span.trace_id, span.span.span_id)
        if key not in self._by_span:
            self._by_span[key] = history_keys(span).call
        return self._by_span[key]


def _sum(values: Any) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None
