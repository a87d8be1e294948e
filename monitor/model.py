"""Domain types shared by every stage: golden dialogs in, verdicts and reports out.

Pure data, frozen pydantic v2 models. Inputs (`Dialog`, `DialogTurn`, `ActionContent`,
`ResponseContent`) forbid unknown keys so a typo such as `arg` for `args` is an error, not a silently
ignored field. Outputs (`TurnVerdict`, `DialogReport`, `AggregateReport`) are the report contract of
DESIGN.md: fields are only ever added, never renamed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
)


class SubMetric(StrEnum):
    STRUCTURAL = "structural"
    COMPLETENESS = "completeness"
    TRUTHFULNESS = "truthfulness"


class FailureReason(StrEnum):
    """One taxonomy: the article's names first, then the process taxonomy, then alignment."""

    TOOL_MISMATCH = "tool_mismatch"
    ACTION_MISMATCH = "action_mismatch"
    MISSING_PARAMETERS = "missing_parameters"
    EXTRA_PARAMETERS = "extra_parameters"
    INCONSISTENT_PARAMETER_VALUES = "inconsistent_parameter_values"
    INCOMPLETE_RESPONSE = "incomplete_response"
    INCONSISTENT_RESPONSE = "inconsistent_response"
    PRIOR_ACTION_FAILED = "prior_action_failed"
    INVALID_PARAMETER_VALUES = "invalid_parameter_values"
    TOOL_EXECUTION_ERROR = "tool_execution_error"
    STATE_DRIFT = "state_drift"
    PLANNING_ERROR = "planning_error"
    DUPLICATE_CALL = "duplicate_call"
    POLICY_VIOLATION = "policy_violation"
    UNEXPECTED_ACTION = "unexpected_action"
    MISSING_ACTION = "missing_action"
    UNSCORABLE = "unscorable"
    UNGROUNDED_PARAMETER_VALUE = "ungrounded_parameter_value"
    UNSUPPORTED_CLAIM = "unsupported_claim"


#: Each failure reason belongs to exactly one sub-metric. `prior_action_failed` has none of its
#: own: a cascade turn keeps the sub-metric of the failure it observed (`observed_failure_reason`).
SUB_METRIC_OF: dict[FailureReason, SubMetric] = {
    FailureReason.TOOL_MISMATCH: SubMetric.STRUCTURAL,
    FailureReason.ACTION_MISMATCH: SubMetric.STRUCTURAL,
    FailureReason.UNEXPECTED_ACTION: SubMetric.STRUCTURAL,
    FailureReason.PLANNING_ERROR: SubMetric.STRUCTURAL,
    FailureReason.DUPLICATE_CALL: SubMetric.STRUCTURAL,
    FailureReason.TOOL_EXECUTION_ERROR: SubMetric.STRUCTURAL,
    FailureReason.MISSING_PARAMETERS: SubMetric.COMPLETENESS,
    FailureReason.EXTRA_PARAMETERS: SubMetric.COMPLETENESS,
    FailureReason.INCOMPLETE_RESPONSE: SubMetric.COMPLETENESS,
    FailureReason.MISSING_ACTION: SubMetric.COMPLETENESS,
    FailureReason.POLICY_VIOLATION: SubMetric.COMPLETENESS,
    FailureReason.INCONSISTENT_PARAMETER_VALUES: SubMetric.TRUTHFULNESS,
    FailureReason.INCONSISTENT_RESPONSE: SubMetric.TRUTHFULNESS,
    FailureReason.INVALID_PARAMETER_VALUES: SubMetric.TRUTHFULNESS,
    FailureReason.STATE_DRIFT: SubMetric.TRUTHFULNESS,
    FailureReason.UNSCORABLE: SubMetric.TRUTHFULNESS,
    FailureReason.UNGROUNDED_PARAMETER_VALUE: SubMetric.TRUTHFULNESS,
    FailureReason.UNSUPPORTED_CLAIM: SubMetric.TRUTHFULNESS,
}


class Rung(StrEnum):
    """The rung of the comparison ladder that decided a comparison (DESIGN.md, value comparison)."""

    EXACT = "exact"
    NORMALIZED = "normalized"
    TYPED = "typed"
    ALIAS = "alias"
    DIFFERENTIAL = "differential"  # the values differ in a short span, and that span decides
    STRUCTURAL = "structural"
    EMBEDDING = "embedding"
    JUDGE = "judge"
    UNSCORABLE = "unscorable"
    EVIDENCE = "evidence"  # grounding: what the conversation states decided (no gold)
    UNRECORDED = "unrecorded"  # nothing compared: no span recorded the value (a reply's text), `uncertain`


# ---------------------------------------------------------------------------------------------
# Inputs: the golden dialog format
# ---------------------------------------------------------------------------------------------

_INPUT = ConfigDict(frozen=True, extra="forbid")


def _without_none(data: dict[str, Any], key: str) -> dict[str, Any]:
    """A serialized model without `key` when it is None: an added field that old reports never had."""
    if data.get(key) is None:
        data.pop(key, None)
    return data


class ActionContent(BaseModel):
    """An action turn: a tool call with its arguments and, optionally, what the tool returned."""

    model_config = _INPUT
    tool_id: str
    action: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = Field(
        default=None,
        description="the call failed with this error (live traffic); on a gold turn, the failure is expected",
    )

    @property
    def name(self) -> str:
        """The call's tool name: `reports.FilterData`, or the plain name when tool and action are one."""
        return self.tool_id if self.tool_id == self.action else f"{self.tool_id}.{self.action}"

    @model_serializer(mode="wrap")
    def _omit_no_error(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`error` appears only when there was one, so reports of calls that worked are unchanged."""
        return _without_none(handler(self), "error")


class ResponseContent(BaseModel):
    """A response turn: what the agent (or, for `User` turns, the user) said."""

    model_config = _INPUT
    response: str
    unrecorded: str | None = Field(
        default=None,
        description="live traffic only: a model call ran here and no span recorded what it returned (why); "
        "its text is not compared: `uncertain`, never failed for what nobody saw",
    )

    @model_serializer(mode="wrap")
    def _omit_recorded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`unrecorded` appears only on a reply nobody recorded, so every other report is unchanged."""
        return _without_none(handler(self), "unrecorded")


def _content_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "response" if "response" in value else "action"
    return "response" if isinstance(value, ResponseContent) else "action"


TurnContent = ActionContent | ResponseContent
_TaggedContent = Annotated[
    Annotated[ActionContent, Tag("action")] | Annotated[ResponseContent, Tag("response")],
    Discriminator(_content_kind),
]
Role = Literal["Agent", "Tool", "User"]
#: How one argument is compared: `ignore` (neither its presence nor its value counts), `exact` (equal as
#: JSON, no normalisation), `semantic` (by meaning: the free-text thresholds). Absent: the whole ladder.
CompareMode = Literal["ignore", "exact", "semantic"]


class DialogTurn(BaseModel):
    model_config = _INPUT
    turn_no: int
    turn: Role
    gold_turn: _TaggedContent | None = None
    predict_turn: _TaggedContent | None = None
    tags: tuple[str, ...] = ()
    depends_on: tuple[int, ...] = ()
    weight: float = Field(default=1.0, ge=0.0, description="cost weight for the `weighted` composition")
    critical: bool = Field(default=False, description="a failure caps the score under `gating`")
    latency_ms: float | None = Field(default=None, ge=0.0)
    optional: bool = Field(
        default=False, description="gold turn the agent may skip: absence is no failure, presence is scored"
    )
    compare: dict[str, CompareMode] = Field(
        default_factory=dict, description="per-argument comparison: ignore | exact | semantic"
    )


class Dialog(BaseModel):
    model_config = _INPUT
    dialog_id: str
    turns: tuple[DialogTurn, ...]
    metadata: dict[str, Any] = Field(default_factory=dict)
    source: str = Field(default="", description="file and line or index the dialog was read from")


# ---------------------------------------------------------------------------------------------
# Outputs: verdicts and reports
# ---------------------------------------------------------------------------------------------

_OUTPUT = ConfigDict(frozen=True)


class Comparison(BaseModel):
    """One value comparison through the ladder, kept in the report so a reviewer sees the evidence."""

    model_config = _OUTPUT
    field: str
    gold: Any
    predicted: Any
    equal: bool
    score: float | None = Field(description="similarity in [0, 1]; None when the model cannot read it")
    rung: Rung
    kind: Literal["short", "text", "structured"] = "short"
    uncertain: bool = False
    unscorable: bool = False
    truncated: bool = False
    invalid: bool = Field(default=False, description="the predicted value is outside the tool schema's enum")
    note: str = ""


class Check(BaseModel):
    """The outcome of one sub-metric on one turn. `passed is None` means it was not evaluated."""

    model_config = _OUTPUT
    sub_metric: SubMetric
    passed: bool | None
    score: float | None = None
    failure_reason: FailureReason | None = None
    fields: tuple[str, ...] = ()
    detail: str = ""


class TurnVerdict(BaseModel):
    model_config = _OUTPUT
    turn_no: int
    gold_turn_no: int | None
    live_turn_no: int | None = Field(
        default=None,
        description="the observed turn this row judges (`observed_turns[].turn_no`; None: a gold turn no "
        "live turn made): alignment with gold renumbers rows",
    )
    role: Role
    type: Literal["response", "action"]
    predicted: dict[str, Any] | None
    success: bool
    failure_reason: FailureReason | None = None
    observed_failure_reason: FailureReason | None = Field(
        default=None, description="for a cascade, the failure this turn showed before attribution"
    )
    sub_metric: SubMetric | None = None
    fields: tuple[str, ...] = ()
    detail: str = ""
    checks: tuple[Check, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    scores: dict[str, float | None] = Field(default_factory=dict)
    depends_on: tuple[int, ...] = ()
    root_turn: int | None = Field(default=None, description="for prior_action_failed, the root-cause turn")
    chain_no: int | None = None
    chain_length: int | None = None
    latency_ms: float | None = None
    weight: float = 1.0
    critical: bool = False
    uncertain: bool = False
    unscorable: bool = False
    reference: str | None = Field(
        default=None, description="which reference decided the verdict: gold or policy"
    )
    provenance: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="action turns: each argument leaf's source (user, tool_result, system, "
        "tool_definition, computed, agent, redacted), the turn that states it, and its kind",
    )

    @model_serializer(mode="wrap")
    def _omit_no_provenance(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`provenance` appears only where grounding ran, so gold-only reports are unchanged."""
        return _without_none(handler(self), "provenance")


class SubMetricStats(BaseModel):
    model_config = _OUTPUT
    passed: int = 0
    failed: int = 0
    rate: float | None = None


class ChainStats(BaseModel):
    model_config = _OUTPUT
    chains: int = 0
    chains_passed: int = 0
    turns: int = 0
    turns_passed: int = 0
    chain_success_rate: float | None = None
    turn_success_rate: float | None = None


class Chain(BaseModel):
    model_config = _OUTPUT
    chain_no: int
    turns: tuple[int, ...]
    length: int = Field(description="number of action turns in the chain")
    success: bool


#: How a gold turn met a live turn (`GoldMatch.how`).
MatchHow = Literal[
    "aligned", "order_invariant", "fact_in_reply", "missing", "optional_not_made", "no_call_expected"
]
#: Why a live turn no gold turn asks for is left unscored (`UnmatchedTurn.why`).
FreeWhy = Literal["reply_without_gold", "read_only", "allowed_extra", "recovered_attempt"]


class GoldMatch(BaseModel):
    """How one gold turn was matched: which live turn (or none) and why."""

    model_config = _OUTPUT
    gold_turn_no: int | None = Field(description="the turn's number in the gold dialog")
    turn_no: int | None = Field(description="the verdict row it was scored in (None: not scored)")
    live_turn_no: int | None = Field(default=None, description="the observed turn it was paired with")
    how: MatchHow


class UnmatchedTurn(BaseModel):
    """A live turn that no gold turn asks for and that is not failed: why it is free."""

    model_config = _OUTPUT
    live_turn_no: int | None
    type: Literal["response", "action"]
    tool: str | None = None
    why: FreeWhy


class RecoveryStats(BaseModel):
    """Recovery after tool failures (the practice post): failed attempts and how many the agent recovered
    from by a later successful call of the same tool."""

    model_config = _OUTPUT
    failed_attempts: int = 0
    recovered: int = 0
    recovery_rate: float | None = None
    mean_steps_to_recover: float | None = Field(
        default=None, description="calls from a failed attempt to its successful retry, on average"
    )


class DialogReport(BaseModel):
    model_config = _OUTPUT
    dialog_id: str
    success_rate: float
    test_pass: bool
    first_failure_turn: int | None
    root_cause: FailureReason | None
    root_cause_count: int
    cascading_count: int
    total_failures: int
    aem_score: float = Field(description="the composed score; equals success_rate under `mean`")
    composition: str = "mean"
    sub_metrics: dict[str, SubMetricStats]
    failure_reasons: dict[str, int]
    root_causes: tuple[int, ...] = Field(default=(), description="turn numbers of root-cause failures")
    chains: tuple[Chain, ...] = ()
    chain_lengths: dict[str, ChainStats] = Field(default_factory=dict)
    turns: tuple[TurnVerdict, ...]
    uncertain_comparisons: int = 0
    unscorable_comparisons: int = 0
    latency_ms: float | None = None
    source: str = ""
    strict_test_pass: bool | None = Field(
        default=None, description="test_pass, and no failed attempt forgiven on recovery"
    )
    recovery: RecoveryStats = Field(default_factory=RecoveryStats)
    matching: tuple[GoldMatch, ...] = Field(default=(), description="how each gold turn was matched")
    unmatched: tuple[UnmatchedTurn, ...] = Field(
        default=(), description="live turns no gold turn asks for, left unscored, and why"
    )


class AggregateReport(BaseModel):
    model_config = _OUTPUT
    dialogs: int
    dialogs_passed: int
    strict_success_rate: float | None = Field(description="share of dialogs whose every turn passed")
    turns: int
    turns_passed: int
    success_rate: float | None = Field(description="share of turns that passed, over all dialogs")
    mean_dialog_success_rate: float | None
    sub_metrics: dict[str, SubMetricStats]
    failure_reasons: dict[str, int]
    root_cause_reasons: dict[str, int]
    root_cause_count: int
    cascading_count: int
    chain_lengths: dict[str, ChainStats]
    uncertain_comparisons: int
    unscorable_comparisons: int
    mean_turn_latency_ms: float | None = None
    rejected: tuple[str, ...] = Field(default=(), description="inputs that could not be read, with why")


# ---------------------------------------------------------------------------------------------
# Spans: what the decode stage produces from OTLP (convention keys are interpreted in normalize/)
# ---------------------------------------------------------------------------------------------


class SpanEvent(BaseModel):
    model_config = _OUTPUT
    name: str
    time_ns: int
    attributes: dict[str, Any] = Field(default_factory=dict)


class SpanLink(BaseModel):
    model_config = _OUTPUT
    trace_id: str
    span_id: str
    attributes: dict[str, Any] = Field(default_factory=dict)


class Span(BaseModel):
    """One OTLP span, ids as lowercase hex, attribute values as plain JSON values."""

    model_config = _OUTPUT
    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: int
    start_ns: int
    end_ns: int
    status: Literal["UNSET", "OK", "ERROR"]
    status_message: str = ""
    attributes: dict[str, Any] = Field(default_factory=dict)
    resource: dict[str, Any] = Field(default_factory=dict)
    scope: str = ""
    events: tuple[SpanEvent, ...] = ()
    links: tuple[SpanLink, ...] = ()
    origin: str = Field(
        default="", description="where the payload came from: file, endpoint, topic/partition/offset"
    )


# ---------------------------------------------------------------------------------------------
# Normalized spans: what the convention adapters (normalize/) produce for assemble/
# ---------------------------------------------------------------------------------------------


def _lenient_id(value: Any) -> str | None:
    """An id as instrumentations write it: text, or a number written as text; anything else is no id
    (a malformed span must not make its conversation unreadable)."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


LenientId = Annotated[str | None, BeforeValidator(_lenient_id)]


class ToolCallRef(BaseModel):
    """A tool call as a model requested it (inside a message)."""

    model_config = _OUTPUT
    call_id: LenientId
    name: str
    arguments: Any = None


class Message(BaseModel):
    model_config = _OUTPUT
    role: Literal["system", "user", "assistant", "tool"]
    text: str | None = None
    tool_calls: tuple[ToolCallRef, ...] = ()
    tool_call_id: LenientId = Field(default=None, description="for role tool: the call this answers")

    @field_validator("text")
    @classmethod
    def _shared(cls, text: str | None) -> str | None:
        """Frameworks resend the whole history on every model call: one copy of each text per process."""
        return sys.intern(text) if text is not None else None


class ToolInvocation(BaseModel):
    """A tool execution span: what was called, with what, what came back."""

    model_config = _OUTPUT
    name: str
    call_id: LenientId = None
    arguments: Any = None
    arguments_error: str | None = Field(
        default=None, description="why the arguments could not be read as JSON"
    )
    result: Any = None
    error: str | None = Field(
        default=None, description="error.type / span status message when the tool failed"
    )
    schema_: dict[str, Any] | None = Field(
        default=None, alias="schema", description="the tool's JSON Schema if the span carries it"
    )


#: how far apart in time two spans of one model call may be (`AgentSpan.same_call`)
_SAME_CALL_SLACK_NS = 1_000_000_000


def within(inner: tuple[str, int, int], outer: tuple[str, int, int]) -> bool:
    """Whether the span `inner` (a span's `when`: trace id, start, end), in another trace than `outer`, lies
    within `outer`'s time, to the nanosecond: an instrumentation of a client records its call inside the
    framework's span of that call, on the same clock. (Two users' alike calls a moment apart overlap; they
    rarely nest.)"""
    return inner[0] != outer[0] and outer[1] <= inner[1] and inner[2] <= outer[2]


#: the span conventions an adapter reads (normalize/), and `unknown` for a span none understood
Convention = Literal[
    "genai",
    "strands",
    "openinference",
    "traceloop",
    "haystack",
    "vercel",
    "langfuse",
    "mlflow",
    "litellm",
    "unknown",
]
CONVENTIONS: tuple[str, ...] = get_args(Convention)


class AgentSpan(BaseModel):
    """One span in the internal model: convention keys are gone, meaning is explicit."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)
    span: Span
    convention: Convention
    kind: Literal["agent", "llm", "tool", "other"]
    conversation_id: str | None = None
    reference_id: str | None = None
    agent: str | None = None
    release: str | None = None
    tool: ToolInvocation | None = None
    input_messages: tuple[Message, ...] = ()
    output_messages: tuple[Message, ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    response_id: str | None = Field(
        default=None,
        description="a model call's response id as the provider gave it: every span of that one call carries it",
    )
    end_marker: bool = False
    tool_definitions: dict[str, Any] = Field(
        default_factory=dict,
        description="tool name -> JSON Schema of its arguments, as the span declares them",
    )
    setup: bool = Field(
        default=False,
        description="an agent being set up (e.g. create_agent), not a turn: a trace of only these is no conversation",
    )
    unreadable: str | None = Field(
        default=None,
        description="why normalization failed on this span: its conversation is reported unscored",
    )
    evidence: tuple[str, ...] = Field(
        default=(), description="values of the configured evidence attributes (grounding's extra evidence)"
    )
    attribute_prefixes: tuple[str, ...] = Field(
        default=(), description="a span no adapter understood: its attribute prefixes, for the report"
    )
    unread_tool: str | None = Field(
        default=None,
        description="a span no adapter understood whose name or attribute keys speak of a tool: what did",
    )
    second_recording: bool = Field(
        default=False,
        description="a lone model call (`lone_call`) the Kafka path sent to the conversation of the call it "
        "records again: named there, it is still that call's second recording",
    )

    @property
    def when(self) -> tuple[str, int, int]:
        """Its trace id, start and end: what `same_call` compares (kept where the span itself is not)."""
        return self.span.trace_id, self.span.start_ns, self.span.end_ns

    def same_call(self, other: tuple[str, int, int]) -> bool:
        """Whether this span and `other` (a span's `when`) may record one model call: another
        trace whose time overlaps this span's, give or take a second. A response id says which call; the
        time guards against ids a stub or a proxy repeats across calls."""
        trace_id, start_ns, end_ns = other
        return (
            trace_id != self.span.trace_id
            and start_ns - _SAME_CALL_SLACK_NS <= self.span.end_ns
            and self.span.start_ns <= end_ns + _SAME_CALL_SLACK_NS
        )

    def within(self, other: tuple[str, int, int]) -> bool:
        """Whether this span lies within `other`'s time (a span's `when`), in another trace (`within`)."""
        return within(self.when, other)

    @property
    def lone_call(self) -> bool:
        """A model call with no conversation id that is its trace's root: a client's instrumentation whose
        spans do not nest under the framework's makes each call a trace of its own. (One the Kafka path named
        for its call's conversation, `second_recording`, is one still.)"""
        return (
            self.kind == "llm"
            and (self.conversation_id is None or self.second_recording)
            and not self.span.parent_span_id
        )

    @property
    def call_copy(self) -> bool:
        """A model call's span that holds its response id and nothing of its content: a provider SDK that
        traces every call itself (metadata only) beside an instrumentation recording the same call whole."""
        return (
            self.kind == "llm"
            and self.response_id is not None
            and not self.input_messages
            and not self.output_messages
            and self.tool is None
        )


@dataclass(frozen=True)
class Mismatch:
    """One wrong or missing item of a turn, for attribution: what gold wanted, what was produced."""

    field: str
    gold: object
    predicted: object
    kind: str  # "value" | "key" | "structure"
    source_turn: int | None = None  # grounding: the earlier turn whose result gave this value
