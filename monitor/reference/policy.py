"""Reference policies: what correct tool use looks like for an agent, declared once. I/O at the edge
(`load_policies` reads the file); the models and `select_policy` are pure.

A policy file (YAML or JSON) holds `policies:`, a list of policies, each for one `agent` (or `default`):
tool JSON Schemas (or `schemas_from_spans: true` to take them from the spans' tool definitions),
allowed / required / read-only tools, task types (a user-message pattern that requires tools),
ordering constraints, order-invariant groups, state-consistency fields, conditional requirements on
tool results, duplicate-call limits and the expected behaviour after a tool error.

Conditions are CEL expressions (Common Expression Language, via cel-python): no code execution, no
side effects. To keep evaluation cost bounded, the loader rejects comprehension macros (`map`,
`filter`, `all`, `exists`, `exists_one`; found on the parse tree, so comments cannot hide them),
expressions over 500 characters or 200 parse nodes, and variables other than `result` and `args`;
scoring refuses to evaluate a condition whose cost (parse nodes x JSON values in the call's result
and arguments) is over `MAX_CONDITION_COST`, and the conversation is reported unscored with why.
Every error names the file, line and key, all at once.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from monitor.config import check_regex
from monitor.errors import ConfigError

_POLICY = ConfigDict(frozen=True, extra="forbid")
MAX_EXPRESSION_CHARS = 500
MAX_EXPRESSION_NODES = 200
_MACROS = frozenset({"map", "filter", "all", "exists", "exists_one"})
#: evaluation budget: parse nodes x JSON values in the call's result and arguments (see score/policy)
MAX_CONDITION_COST = 2_000_000
_VARIABLES = {"result", "args"}


class ToolPolicy(BaseModel):
    model_config = _POLICY
    schema_: dict[str, Any] | None = Field(
        default=None, alias="schema", description="JSON Schema of the arguments"
    )
    read_only: bool = False
    max_identical_calls: int | None = Field(default=None, ge=1)

    @field_validator("schema_")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            try:
                Draft202012Validator.check_schema(value)
            except SchemaError as exc:
                raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        return value


class TaskType(BaseModel):
    model_config = _POLICY
    name: str
    when_user_says: str = Field(description="regular expression matched against user messages")
    required_tools: list[str]

    @field_validator("when_user_says")
    @classmethod
    def _regex(cls, value: str) -> str:
        return check_regex(value)


class Ordering(BaseModel):
    model_config = _POLICY
    before: str
    after: str


class Condition(BaseModel):
    model_config = _POLICY
    name: str
    when_tool: str
    if_: str = Field(alias="if", description="CEL over `result` (and `args`) of the `when_tool` call")
    then_tool: str
    with_args: dict[str, Any] = Field(
        default_factory=dict, description="argument values the required call must have"
    )

    @field_validator("if_")
    @classmethod
    def _bounded(cls, value: str) -> str:
        check_expression(value)
        return value


class Grounding(BaseModel):
    """Truthfulness without gold: values and replies checked against the conversation's evidence
    (`compare/evidence`). On unless a policy turns it off."""

    model_config = _POLICY
    arguments: bool = Field(
        default=True, description="an identifying or typed argument value must be grounded"
    )
    replies: bool = Field(default=True, description="a reply's facts and done-claims must be supported")
    exempt: list[str] = Field(
        default_factory=list,
        description="`tool.argument` paths never checked; `*` matches any part (`*.note`, `book.*`)",
    )


class Policy(BaseModel):
    model_config = _POLICY
    agent: str = Field(description="agent name this policy applies to, or 'default'")
    tools: dict[str, ToolPolicy] = Field(default_factory=dict)
    schemas_from_spans: bool = False
    allowed_tools: list[str] | None = Field(
        default=None, description="None: the tools listed under `tools`, or any"
    )
    required_tools: list[str] = Field(default_factory=list)
    task_types: list[TaskType] = Field(default_factory=list)
    ordering: list[Ordering] = Field(default_factory=list)
    order_invariant_groups: list[list[str]] = Field(default_factory=list)
    state_fields: list[str] = Field(default_factory=list)
    conditions: list[Condition] = Field(default_factory=list)
    max_identical_calls: int | None = Field(
        default=None, ge=1, description="identical tool+arguments calls allowed"
    )
    after_tool_error: Literal["retry", "ask_user", "stop", "any"] = "any"
    grounding: Grounding = Field(default_factory=Grounding)

    @model_validator(mode="after")
    def _known_tools(self) -> Policy:
        known = set(self.tools) | set(self.allowed_tools or [])
        if not known:
            return self
        named = [*self.required_tools, *(o.before for o in self.ordering), *(o.after for o in self.ordering)]
        named += [c.when_tool for c in self.conditions] + [c.then_tool for c in self.conditions]
        named += [t for task in self.task_types for t in task.required_tools]
        unknown = sorted(set(named) - known)
        if unknown and self.allowed_tools is not None:
            raise ValueError(f"tools {unknown} are named in rules but not allowed by allowed_tools")
        return self

    def allowed(self, tool: str) -> bool:
        if self.allowed_tools is not None:
            return tool in self.allowed_tools
        return not self.tools or tool in self.tools


class PolicyFile(BaseModel):
    model_config = _POLICY
    policies: list[Policy]

    @model_validator(mode="after")
    def _unique_agents(self) -> PolicyFile:
        agents = [p.agent for p in self.policies]
        dupes = sorted({a for a in agents if agents.count(a) > 1})
        if dupes:
            raise ValueError(f"more than one policy for agent(s) {dupes}")
        return self


#: The policy every conversation gets when no policy of the user's applies (zero configuration): the
#: tool schemas the spans declare, grounding of values and replies, any reasonable recovery after a tool
#: error, and no more than two identical calls. `references` names it `policy:builtin`.
BUILTIN = Policy(agent="builtin", schemas_from_spans=True, max_identical_calls=2, after_tool_error="any")


def select_policy(policies: dict[str, Policy], agent: str | None, builtin: bool = False) -> Policy | None:
    """The agent's own policy, else the `default` one, else (when `builtin`) the built-in one, else none."""
    return policies.get(agent or "") or policies.get("default") or (BUILTIN if builtin else None)


@lru_cache(maxsize=256)
def compiled_condition(expression: str) -> tuple[Any, Any, int]:
    """A condition's CEL parse tree, program and number of parse nodes, compiled once a process: when the
    policy is loaded (`check_expression`), and the same program then serves every conversation scored.
    CEL's parser is built on first use (about 0.2 s, once), so a policy without conditions never pays it.
    Evaluating a program changes nothing in it."""
    import celpy

    env = celpy.Environment()
    tree = env.compile(expression)
    return tree, env.program(tree), sum(1 for _ in tree.iter_subtrees())


def check_expression(expression: str) -> None:
    """Reject what could loop, explode, or read anything but the call's result and arguments."""
    import celpy.celparser

    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree, _, nodes = compiled_condition(expression)
    except celpy.celparser.CELParseError as exc:
        raise ValueError(f"not a valid CEL expression: {str(exc).splitlines()[0]}") from None
    # on the parse tree, not the text: comments and line breaks (`items.//\nmap(…)`) cannot hide a call
    calls = {
        str(tok)
        for sub in tree.iter_subtrees()
        if sub.data in ("member_dot_arg", "ident_arg")
        for tok in sub.children
        if not hasattr(tok, "data")
    }
    if calls & _MACROS:
        raise ValueError(
            "comprehension macros (map, filter, all, exists, exists_one) are not allowed: they make cost unbounded"
        )
    if nodes > MAX_EXPRESSION_NODES:
        raise ValueError(f"expression too large ({nodes} parse nodes, at most {MAX_EXPRESSION_NODES})")
    names = {str(tok) for sub in tree.iter_subtrees() if sub.data == "ident" for tok in sub.children}
    unknown = sorted(n for n in names - _VARIABLES if n not in ("true", "false", "null"))
    if unknown:
        raise ValueError(f"unknown variable(s) {unknown}; conditions may read `result` and `args`")


def load_policies(path: Path) -> dict[str, Policy]:
    """Policies by agent; every problem reported at once with its line and key."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read policy file ({exc.strerror})") from exc
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML/JSON: {exc}") from exc
    try:
        parsed = PolicyFile.model_validate(data)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = [p for p in err["loc"] if p not in ("function-after",)]
            line = _line_of(root, loc)
            where = ".".join(str(p) for p in loc) or "(top level)"
            lines.append(
                f"  {path}:{line}: {where}: {err['msg']}" if line else f"  {path}: {where}: {err['msg']}"
            )
        raise ConfigError(f"{path}: invalid policy file:\n" + "\n".join(lines)) from exc
    return {p.agent: p for p in parsed.policies}


def _line_of(node: Any, loc: list[Any]) -> int | None:
    """The 1-based line of the deepest YAML node along a pydantic error location."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == key), None)
            if match is None:
                key_node = next((k for k, _ in node.value if k.value == key), None)
                return key_node.start_mark.line + 1 if key_node is not None else line
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
        line = node.start_mark.line + 1
    return line
