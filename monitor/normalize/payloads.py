"""Framework payloads inside convention attributes, unwrapped. Pure.

Instrumentations often write a framework's own object where the convention expects a tool's
arguments or result. Seen in bytes the real libraries exported (tests/fixtures/travel/):

- arguments: OpenLLMetry's LangChain callback payload `{"input_str", "tags", "metadata", "inputs": {…},
  "kwargs": {…, "tool_call_id"}}`; LlamaIndex `{"kwargs": {…}}`; smolagents `{"args": [],
  "sanitize_inputs_outputs": true, "kwargs": {…}}`; a one-parameter LangChain tool's plain text
  (`Paris`), bound to the parameter the tool declares (`bind_text`).
- results: a serialized LangChain `ToolMessage` (`{"type": "tool", "data": {"content", "tool_call_id",
  "status"}}`, its flat `model_dump()` as Langfuse's LangChain handler writes it, or OpenLLMetry's
  `{"output": {"lc": 1, "id": [..., "ToolMessage"], "kwargs": {…}}}`); a LlamaIndex `ToolOutput`
  (`{"blocks": [{"text"}], "tool_name", "raw_output", "is_error"}`).

Each unwrapper also returns the tool-call id it found inside, so a tool span links to the model's
call and one call is never counted twice. Shapes are matched exactly (key sets, value types), so a
tool whose own parameters happen to be named `kwargs` or `inputs` is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from monitor.model import AgentSpan
from monitor.normalize.common import loads, result_value
from monitor.normalize.common import python_literal as literal

_SMOLAGENTS_INPUT = {"args", "kwargs", "sanitize_inputs_outputs"}


@dataclass(frozen=True)
class Unwrapped:
    value: Any
    call_id: str | None = None
    error: str | None = None


def unwrap_arguments(value: Any) -> Unwrapped:
    """A tool's arguments out of the framework payload that carries them."""
    value = loads(value)
    if not isinstance(value, dict):
        return Unwrapped(value)
    kwargs = value.get("kwargs")
    if "input_str" in value and ("inputs" in value or "kwargs" in value):  # OpenLLMetry on LangChain
        call_id = _str(kwargs.get("tool_call_id")) if isinstance(kwargs, dict) else None
        inputs = value.get("inputs")
        if isinstance(inputs, dict) and inputs:
            return Unwrapped(inputs, call_id)
        return Unwrapped(python_literal(value["input_str"]), call_id)
    if set(value) == {"kwargs"} and isinstance(kwargs, dict):  # LlamaIndex FunctionTool
        return Unwrapped(kwargs)
    if set(value) == _SMOLAGENTS_INPUT and isinstance(kwargs, dict) and isinstance(value["args"], list):
        return Unwrapped(positional(value["args"], kwargs))
    return Unwrapped(value)


def called_with(value: Any) -> Any:
    """A decorated function's call as tracers record it (`{"args": [...], "kwargs": {...}}`: traceloop-sdk,
    Langfuse's `@observe`) as one arguments object (`positional`); anything else as it is — LangChain's
    arguments of a tool whose parameters are named `args` or `kwargs` (`{"args": "ls -l"}`) too."""
    if not isinstance(value, dict) or not value or not set(value) <= {"args", "kwargs"}:
        return value
    args, kwargs = value.get("args", []), value.get("kwargs", {})
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        return value
    return positional(args, kwargs)


def positional(args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`(args, kwargs)` as one arguments object: a lone positional argument stays bare (to be bound to the
    tool's one parameter), several become `arg0`, `arg1`, …"""
    if len(args) == 1 and not kwargs:
        return args[0]
    out = dict(kwargs)
    for i, value in enumerate(args):
        out[f"arg{i}"] = value
    return out


def unwrap_result(value: Any) -> Unwrapped:
    """A tool's result out of the framework object that carries it."""
    value = loads(value)
    if not isinstance(value, dict):
        return Unwrapped(result_value(value))
    output = value.get("output")
    message: dict[str, Any] = output if isinstance(output, dict) else value
    if message.get("type") == "tool" and isinstance(message.get("data"), dict):  # ToolMessage.dict()
        data = message["data"]
        return Unwrapped(result_value(data.get("content")), _str(data.get("tool_call_id")), _failed(data))
    if (
        message.get("type") == "tool" and "content" in message and "tool_call_id" in message
    ):  # its model_dump()
        return Unwrapped(result_value(message["content"]), _str(message["tool_call_id"]), _failed(message))
    ids = message.get("id")
    if message.get("lc") == 1 and isinstance(ids, list) and ids[-1:] == ["ToolMessage"]:  # LangChain dumpd
        kw = message["kwargs"] if isinstance(message.get("kwargs"), dict) else {}
        return Unwrapped(result_value(kw.get("content")), _str(kw.get("tool_call_id")), _failed(kw))
    if isinstance(value.get("blocks"), list) and "tool_name" in value:  # LlamaIndex ToolOutput
        error = "error" if value.get("is_error") else None
        if value.get("raw_output") is not None:
            return Unwrapped(result_value(value["raw_output"]), error=error)
        texts = [{"text": b["text"]} for b in value["blocks"] if isinstance(b, dict) and "text" in b]
        return Unwrapped(result_value(texts), error=error)
    return Unwrapped(result_value(value))


def bind_text(arguments: Any, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A single plain value bound to the one parameter the tool declares; None if that is not clear."""
    if arguments is None or isinstance(arguments, dict | list) or not schema:
        return None
    names = parameter_names(schema)
    if len(names) == 1:
        return {names[0]: arguments}
    required = schema.get("required")
    if isinstance(required, list) and len(required) == 1:
        return {str(required[0]): arguments}
    return None


def by_position(arguments: Any) -> bool:
    """Arguments a decorated function was called with by position (`positional`: `arg0`, `arg1`, …, and
    any passed by name)."""
    return isinstance(arguments, dict) and "arg0" in arguments


def bind_positions(arguments: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """`search_flights("CDG", "JFK", date=…)` as `{origin, destination, date}`: each value passed by
    position bound to the parameter the tool declares in that place (a schema made from a function lists its
    parameters in order); None when the declaration does not say (no schema, too few parameters, or a name
    given twice)."""
    names = parameter_names(schema) if schema else []
    count = sum(1 for key in arguments if key.startswith("arg") and key[3:].isdigit())
    named = {k: v for k, v in arguments.items() if not (k.startswith("arg") and k[3:].isdigit())}
    if count > len(names) or not set(names[:count]).isdisjoint(named):
        return None
    return {**{names[i]: arguments[f"arg{i}"] for i in range(count)}, **named}


def parameter_names(schema: dict[str, Any]) -> list[str]:
    properties = schema.get("properties")
    return [str(k) for k in properties] if isinstance(properties, dict) else []


def as_json_schema(value: Any) -> dict[str, Any] | None:
    """A tool's parameters as a JSON Schema; smolagents writes the bare `{name: {type, description}}` map."""
    value = loads(value)
    if not isinstance(value, dict):
        return None
    if "properties" in value or "type" in value or not value:
        return value
    if all(isinstance(v, dict) and "type" in v for v in value.values()):
        required = [k for k, v in value.items() if not v.get("nullable")]
        return {"type": "object", "properties": value, "required": required}
    return value


def python_literal(text: Any) -> Any:
    """LangChain's `input_str` is `str(dict)`: a Python literal, not JSON. Kept as text if it is neither."""
    parsed = loads(text)
    if not isinstance(parsed, str):
        return parsed
    found = literal(parsed)
    return parsed if found is None else found


def _failed(data: dict[str, Any]) -> str | None:
    return "error" if str(data.get("status", "")).lower() == "error" else None


def _str(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def bind_declared(spans: Sequence[AgentSpan]) -> Sequence[AgentSpan]:
    """A conversation's plain-text tool arguments bound to the one parameter their tool declares anywhere
    in it, and arguments passed by position to the parameters declared in those places (`bind_positions`).
    LangChain's TOOL spans carry `Paris` for `get_weather(city)`, while the schema is declared on
    the model call's span (`llm.tools`, `gen_ai.tool.definitions`), so this needs the whole conversation.
    The same spans come back (the same objects) when nothing is bound."""
    pending = [
        s
        for s in spans
        if s.tool is not None and (s.tool.arguments_error is not None or by_position(s.tool.arguments))
    ]
    if not pending:
        return spans
    declared: dict[str, Any] = {}
    for s in spans:
        declared.update(s.tool_definitions)
    out = []
    for s in spans:
        tool = s.tool
        bound = None
        if tool is not None and tool.arguments_error is not None:
            bound = bind_text(tool.arguments, tool.schema_ or declared.get(tool.name))
        elif tool is not None and by_position(tool.arguments):
            bound = bind_positions(tool.arguments, tool.schema_ or declared.get(tool.name))
        if tool is not None and bound is not None:
            s = s.model_copy(
                update={"tool": tool.model_copy(update={"arguments": bound, "arguments_error": None})}
            )
        out.append(s)
    return out
