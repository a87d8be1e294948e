"""OpenInference adapter (Arize; e.g. openinference-instrumentation-openai-agents). Pure.

Reads `openinference.span.kind` (AGENT, CHAIN, LLM, TOOL), `tool.name`, `tool.parameters` (schema),
`input.value` / `output.value` (a TOOL span's arguments and result), flattened
`llm.input_messages.N.message.*` and `llm.output_messages.N.message.tool_calls.M.tool_call.*`,
`llm.token_count.*`, `session.id`, `agent.name`, and `metadata` (a JSON object that may carry the
reference id). Framework payloads inside `input.value` / `output.value` (LangChain, LlamaIndex,
smolagents) are unwrapped by payloads.py; smolagents' `final_answer` tool call is the agent's reply;
CrewAI's AGENT span carries the conversation in `input.value.messages` and the reply in `output.value.raw`;
DSPy's model calls carry formatted prompts, its modules' fields the conversation (`_dspy`).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolInvocation
from monitor.normalize.common import (
    MessageMemo,
    build_agent_span,
    identity,
    indexed_message,
    json_arguments,
    loads,
    role_of,
    tokens,
    tool_definitions,
)
from monitor.normalize.payloads import as_json_schema, bind_text, unwrap_arguments, unwrap_result

_KINDS = {"AGENT": "agent", "LLM": "llm", "TOOL": "tool"}
_INDEX = re.compile(r"^(\d+)\.(.*)$")


def is_openinference(span: Span) -> bool:
    return "openinference.span.kind" in span.attributes


def normalize_openinference(span: Span, config: NormalizeConfig) -> AgentSpan:
    attrs = span.attributes
    kind = _KINDS.get(str(attrs.get("openinference.span.kind", "")).upper(), "other")
    tool = _tool(span) if kind == "tool" else None
    inputs = flattened_messages(attrs, "llm.input_messages.")
    outputs = flattened_messages(attrs, "llm.output_messages.")
    if kind == "agent" and "crewai" in span.scope:
        inputs, outputs = inputs + _crewai_input(attrs), outputs + _crewai_reply(attrs)
    if _is_dspy(span):
        kind, tool, inputs, outputs = _dspy(span, kind, tool, inputs, outputs)
    if _is_smolagents(span):
        inputs, outputs = [_smolagents_message(m) for m in inputs], [_smolagents_message(m) for m in outputs]
        if tool is not None and tool.name == FINAL_ANSWER:  # the reply, read from the model's call
            kind, tool = "other", None
    who = identity(span, config, agent_keys=("agent.name",))
    return build_agent_span(
        span, who, "openinference", kind, tool, inputs, outputs,
        tokens(attrs, "llm.token_count.prompt"), tokens(attrs, "llm.token_count.completion"),
        _definitions(attrs, tool),
    )  # fmt: skip


def _tool(span: Span) -> ToolInvocation:
    """A TOOL span. `input.value` / `output.value` may hold a framework's payload (payloads.py); a
    plain-text argument is bound to the tool's one declared parameter when the span declares it."""
    attrs = span.attributes
    given = unwrap_arguments(attrs.get("input.value"))
    args, args_error = json_arguments(given.value)
    schema = as_json_schema(attrs.get("tool.parameters"))
    bound = bind_text(args, schema) if args_error else None
    if bound is not None:
        args, args_error = bound, None
    result = unwrap_result(attrs.get("output.value"))
    error = attrs.get("exception.type") or (
        span.status_message or "error" if span.status == "ERROR" else None
    )
    return ToolInvocation(
        name=str(attrs.get("tool.name") or span.name),
        call_id=attrs.get("tool_call.id") or attrs.get("tool.id") or given.call_id or result.call_id,
        arguments=args,
        arguments_error=args_error,
        result=result.value,
        error=None if error is None and result.error is None else str(error or result.error),
        schema=schema,
    )


def _crewai_input(attrs: dict[str, Any]) -> list[Message]:
    """CrewAI's AGENT span: `input.value` is `{"messages": [{role, content}]}` (Agent.kickoff's)."""
    given = loads(attrs.get("input.value"))
    items = given.get("messages") if isinstance(given, dict) else None
    out = []
    for m in items if isinstance(items, list) else []:
        role = role_of(m.get("role")) if isinstance(m, dict) else None
        if role in ("user", "assistant") and m.get("content"):
            out.append(Message(role=role, text=str(m["content"])))
    return out


def _crewai_reply(attrs: dict[str, Any]) -> list[Message]:
    """CrewAI's AGENT span: `output.value` is its output object, the reply in `raw`."""
    output = loads(attrs.get("output.value"))
    raw = output.get("raw") if isinstance(output, dict) else None
    return [Message(role="assistant", text=str(raw))] if raw else []


#: DSPy ReAct's tool that ends a step loop: control flow, not a call of the agent's tools
DSPY_FINISH = "finish"
#: fields of DSPy modules' inputs and outputs that are their own workings, not what the user said or got
_DSPY_WORKINGS = frozenset(
    {"history", "trajectory", "reasoning", "next_thought", "next_tool_name", "next_tool_args"}
)
#: a DSPy signature's input field that holds what the user said, in order of preference
_DSPY_INPUTS = ("user_message", "question", "message", "query", "input", "request")


def _is_dspy(span: Span) -> bool:
    return "dspy" in span.scope


def _dspy(
    span: Span, kind: str, tool: ToolInvocation | None, inputs: list[Message], outputs: list[Message]
) -> tuple[str, ToolInvocation | None, list[Message], list[Message]]:
    """DSPy through OpenInference. A tool span is `<tool>.__call__` (no `tool.name`), and ReAct's `finish`
    is control flow; the model's messages are DSPy's formatted prompts (`[[ ## user_message ## ]]` …),
    never the conversation: only their system prompt stays, as evidence. What the user said is a module's
    input field (`user_message`, `question`, …) and the reply its output field (`answer`, …), on the
    module spans (`ReAct.forward`, `ChainOfThought.forward`, `Predict.forward`)."""
    if tool is not None:
        name = tool.name.removesuffix(".__call__")
        if name == DSPY_FINISH:
            return "other", None, [], []
        return kind, tool.model_copy(update={"name": name}), [], []
    if kind == "llm":
        return kind, None, [m for m in inputs if m.role == "system"], []
    if not span.name.endswith(".forward"):  # the adapter's own spans (ChatAdapter.__call__): a prompt
        return kind, None, [], []
    given = loads(span.attributes.get("input.value"))
    given = given.get("input_args", given) if isinstance(given, dict) else None
    answer = loads(span.attributes.get("output.value"))
    said = _dspy_field(given, _DSPY_INPUTS)
    reply = _dspy_field(answer, ("answer", "response", "reply", "output"))
    return (
        kind,
        None,
        [Message(role="user", text=said)] if said else [],
        [Message(role="assistant", text=reply)] if reply else [],
    )


def _dspy_field(fields: Any, preferred: tuple[str, ...]) -> str | None:
    """The text field of a DSPy module's inputs or outputs that the user said or got: a preferred name,
    else the only text field that is not the module's own workings."""
    if not isinstance(fields, dict):
        return None
    for key in preferred:
        if isinstance(fields.get(key), str) and fields[key].strip():
            return str(fields[key])
    texts = [v for k, v in fields.items() if k not in _DSPY_WORKINGS and isinstance(v, str) and v.strip()]
    return texts[0] if len(texts) == 1 else None


#: smolagents' tool-calling agent answers the user by calling this tool
FINAL_ANSWER = "final_answer"
_NEW_TASK = "New task:\n"


def _is_smolagents(span: Span) -> bool:
    return "smolagents" in span.scope


def _smolagents_message(message: Message) -> Message:
    """smolagents: a `final_answer(answer)` call is the agent's reply; a task arrives as `New task:\n…`."""
    if message.role == "user" and (message.text or "").startswith(_NEW_TASK):
        return message.model_copy(update={"text": (message.text or "")[len(_NEW_TASK) :]})
    final = [c for c in message.tool_calls if c.name == FINAL_ANSWER]
    if message.role != "assistant" or not final:
        return message
    answer = final[0].arguments.get("answer") if isinstance(final[0].arguments, dict) else final[0].arguments
    return message.model_copy(
        update={
            "text": None if answer is None else str(answer),
            "tool_calls": tuple(c for c in message.tool_calls if c.name != FINAL_ANSWER),
        }
    )


def _definitions(attrs: dict[str, Any], tool: ToolInvocation | None) -> dict[str, Any]:
    listed = [
        v for k, v in sorted(attrs.items()) if k.startswith("llm.tools.") and k.endswith(".tool.json_schema")
    ]
    found = tool_definitions(*listed)
    if tool is not None and tool.schema_ is not None:
        found[tool.name] = tool.schema_
    return found


def flattened_messages(attrs: dict[str, Any], prefix: str) -> list[Message]:
    """`prefix.N.message.role`, `.content`, `.tool_call_id`, `.tool_calls.M.tool_call.{id,function.name,function.arguments}`.

    Every model call resends the history, so message N of a later call has the same attributes as
    message N of the one before: each distinct group of text values is read once (MessageMemo)."""
    groups: dict[int, list[tuple[str, Any]]] = {}
    cut = len(prefix)
    for key, value in attrs.items():
        if key.startswith(prefix):
            rest = key[cut:]
            head = rest.partition(".")[0]
            if head.isdecimal():
                groups.setdefault(int(head), []).append((rest, value))
    out: list[Message] = []
    for index in sorted(groups):
        items = groups[index]
        out += _MESSAGES.get(tuple(x for item in items for x in item), partial(_flat_message, index, items))
    return out


_MESSAGES = MessageMemo()


def _flat_message(index: int, items: list[tuple[str, Any]]) -> list[Message]:
    """Message `index` from its attributes (their keys less the prefix)."""
    node = unflatten(dict(items), "").get(index)
    msg = node.get("message", {}) if isinstance(node, dict) else {}
    role = role_of(msg.get("role"))
    if role is None:
        return []
    text = msg.get("content")
    if text is None and isinstance(msg.get("contents"), dict):
        text = (
            "".join(
                str(c.get("message_content", {}).get("text", "")) for _, c in sorted(msg["contents"].items())
            )
            or None
        )
    return [indexed_message(role, text, msg.get("tool_calls"), msg.get("tool_call_id"), _openinference_call)]


def _openinference_call(node: dict[str, Any]) -> tuple[Any, Any, Any]:
    call = node.get("tool_call", {})
    fn = call.get("function", {})
    return call.get("id"), fn.get("name"), fn.get("arguments")


def unflatten(attrs: dict[str, Any], prefix: str) -> dict[int, Any]:
    """`{prefix}0.message.role: x` → `{0: {"message": {"role": x}}}` (numeric segments become int keys)."""
    root: dict[Any, Any] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        node = root
        parts = key[len(prefix) :].split(".")
        for i, part in enumerate(parts):
            k: Any = int(part) if part.isdecimal() else part
            if i == len(parts) - 1:
                node[k] = value
            else:
                nxt = node.setdefault(k, {})
                if not isinstance(nxt, dict):
                    break
                node = nxt
    return {k: v for k, v in root.items() if isinstance(k, int)}
