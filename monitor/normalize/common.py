"""Helpers shared by the convention adapters. Pure.

JSON-in-attribute decoding, the GenAI `{role, parts}` message form, the Strands content-block form,
and the identity of a span (conversation, reference, agent, release, end marker), which every
convention carries the same way apart from where it nests them.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from monitor.compare.facts import canonical_json, parse_json
from monitor.compare.redaction import masked
from monitor.config import NormalizeConfig
from monitor.model import AgentSpan, Message, Span, ToolCallRef, ToolInvocation

ROLES = {"system", "user", "assistant", "tool"}
_ROLE_ALIASES = {
    "human": "user",
    "ai": "assistant",
    "model": "assistant",
    "function": "tool",
    "developer": "system",
}


def loads(value: Any) -> Any:
    """A JSON string attribute decoded, anything else as is (structured attributes stay structured)."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return parse_json(value)
        except ValueError:
            return value
    return value


def json_arguments(value: Any) -> tuple[Any, str | None]:
    """Tool arguments as an object, or the raw value and why it could not be read."""
    if value is None or isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return {}, None
        try:
            parsed = parse_json(text)
        except json.JSONDecodeError as exc:
            return value, f"arguments are not valid JSON ({exc.msg} at column {exc.colno})"
        except ValueError as exc:  # JSON, but past what can be read: a 5,000-digit number, a deep nesting
            return value, f"arguments could not be read as JSON ({exc})"
        if isinstance(parsed, dict):
            return parsed, None
        return parsed, "arguments are JSON but not an object"
    return value, "arguments are not an object"


LITERAL_MAX_CHARS = 100_000  # literal_eval is linear but recursive, and memory-hungry: longer texts stay text


def python_literal(text: str) -> Any:
    """A Python literal (some instrumentations write `str(obj)` where JSON belongs: a tool's output, a
    model's message, LangChain's `input_str`), as JSON data; None when the text is not one, is longer
    than `LITERAL_MAX_CHARS`, or holds what JSON cannot (bytes, sets, Ellipsis, complex numbers)."""
    if len(text) > LITERAL_MAX_CHARS:
        return None
    try:
        found = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return found if _json_data(found) else None


def _json_data(value: Any, depth: int = 0) -> bool:
    """Only what JSON can hold (dicts with text keys, lists, text, numbers, booleans, null)."""
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if depth > 50:
        return False
    if isinstance(value, list | tuple):
        return all(_json_data(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_data(v, depth + 1) for k, v in value.items())
    return False


def result_value(value: Any) -> Any:
    """A tool result: JSON decoded; text blocks unwrapped — Strands/Bedrock's `[{"text": "..."}]`, Anthropic's
    and MCP's `[{"type": "text", "text": "..."}]`; a JSON string literal of a JSON document (the Vercel AI SDK
    records a tool's returned string as JSON) read as that document."""
    if isinstance(value, str) and value[:2] in ('"{', '"['):
        try:
            inner = parse_json(value)
        except ValueError:
            inner = None
        value = inner if isinstance(inner, str) else value
    value = loads(value)
    if isinstance(value, str) and value[:2] in ("{'", "[{", "[]", "{}", "['"):
        literal = python_literal(value)
        value = value if literal is None else literal
    if isinstance(value, list) and value and all(_text_block(b) for b in value):
        texts = [b.get("json", b.get("text")) for b in value]
        value = texts[0] if len(texts) == 1 else texts
        return loads(value)
    return value


def function_result(value: Any) -> Any:
    """A tool's return value as Gemini's function responses carry it: the Google Gen AI SDK and ADK wrap it as
    `{"result": value}` (a JSON text read as its document)."""
    if isinstance(value, dict) and set(value) == {"result"}:
        return result_value(value["result"])
    return value


#: what a content block of a tool result may hold beside its text (Anthropic's prompt-cache marker, MCP's
#: annotations and meta as its SDK dumps them)
_BLOCK_KEYS = {"text", "json", "type", "cache_control", "citations", "annotations", "meta", "_meta"}


def _text_block(block: Any) -> bool:
    """`{"text": …}`, `{"json": …}`, or a typed one of them (`{"type": "text", "text": …}`)."""
    return (
        isinstance(block, dict)
        and ("text" in block or "json" in block)
        and set(block) <= _BLOCK_KEYS
        and block.get("type", "text") in ("text", "json")
    )


def role_of(raw: Any) -> str | None:
    role = str(raw or "").lower()
    role = _ROLE_ALIASES.get(role, role)
    return role if role in ROLES else None


def genai_messages(value: Any, default_role: str | None = None) -> list[Message]:
    """OTel GenAI messages: `[{role, parts: [{type: text|tool_call|tool_call_response, ...}]}]`.

    Frameworks resend the whole history on every model call, so each message item comes back once per
    later call: an item already read (recognised by its serialized bytes) gives the same messages
    again without being read a second time."""
    value = loads(value)
    return read_items(
        [value] if isinstance(value, dict) else value,
        _ITEMS,
        partial(_genai_item, default_role=default_role),
        default_role,
    )


def read_items(
    items: Any, memo: MessageMemo, read: Callable[[dict[str, Any]], Sequence[Message]], tag: str | None = None
) -> list[Message]:
    """The messages of a list of message objects (dicts; anything else is skipped), each distinct object
    read once: every model call resends the history. `memo` is the reader's own table, `tag` whatever
    else the reading depends on (a default role)."""
    out: list[Message] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):  # the canonical spelling keeps NaN, Infinity and null apart
            out += memo.get((tag, canonical_json(item)), partial(read, item))
    return out


def openai_tool_calls(value: Any) -> list[ToolCallRef]:
    """OpenAI chat `tool_calls` (`[{id, function: {name, arguments}}]`, or the function's fields at the
    top; LangChain's `{name, args, id}` too) as calls; what is not such a list gives none."""
    calls = []
    for call in value if isinstance(value, list) else []:
        fn = call.get("function", call) if isinstance(call, dict) else None
        if isinstance(fn, dict):
            args, _ = json_arguments(fn["arguments"] if "arguments" in fn else fn.get("args"))
            calls.append(ToolCallRef(call_id=call.get("id"), name=str(fn.get("name", "")), arguments=args))
    return calls


def openai_messages(items: Any) -> list[Message]:
    """OpenAI chat messages (`[{role, content, tool_calls, tool_call_id}]`), each distinct one read once."""
    return read_items(items, _OPENAI_ITEMS, openai_message)


def openai_message(item: dict[str, Any]) -> list[Message]:
    """One OpenAI chat message: `role`, `content` (text, or parts of which the `text` ones count; a tool's
    content that is an object stays its JSON), `tool_calls` (`openai_tool_calls`), `tool_call_id`."""
    role = role_of(item.get("role"))
    if role is None:
        return []
    content = item.get("content")
    if isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict)]
        content = "".join(str(p.get("text", "")) for p in parts if p.get("type") in _TEXT_PARTS)
    elif content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False, sort_keys=True)
    calls = openai_tool_calls(item.get("tool_calls"))
    call_id = item.get("tool_call_id") if role == "tool" else None
    return [Message(role=role, text=content or None, tool_calls=tuple(calls), tool_call_id=call_id)]


_TEXT_PARTS = ("text", "input_text", "output_text")  # chat and Responses API text parts


def openai_reply(value: Any) -> list[Message]:
    """A model call's answer as instrumentations record it, as text or structured: the assistant message, a
    ChatCompletion (its `choices`' messages), a Responses API response or its output items, a list of any
    of them, or the reply's text — also a text that is JSON but none of those (a JSON-mode reply,
    `{"city": "Paris"}`, is what the model said)."""
    parsed = loads(value)
    if isinstance(parsed, str):
        return [Message(role="assistant", text=parsed)] if parsed else []
    if isinstance(parsed, dict) and isinstance(parsed.get("choices"), list):
        parsed = parsed["choices"]
    elif isinstance(parsed, dict) and isinstance(parsed.get("output"), list):
        parsed = parsed["output"]
    items = parsed if isinstance(parsed, list) else [parsed]
    if isinstance(value, str) and not any(_answer_like(item) for item in items):
        return [Message(role="assistant", text=value)]
    if any(isinstance(i, dict) and i.get("type") in _RESPONSE_ITEMS for i in items):
        return [m.model_copy(update={"role": "assistant"}) for m in response_items(items) if m.role != "tool"]
    out: list[Message] = []
    for item in items:
        message = item.get("message", item) if isinstance(item, dict) else None
        if isinstance(message, dict):
            out += openai_message({**message, "role": "assistant"})
    return out


def _answer_like(item: Any) -> bool:
    """A JSON object that is an answer's record, not an answer's text (`openai_reply`): a message (a role
    among ROLES), a ChatCompletion or a Responses API response, a choice holding a message, or a Responses
    API item. A JSON-mode reply (`{"message": "…"}`, `{"type": "booking", …}`, `{"content": "Sunny",
    "temp_c": 21}`) is none of these."""
    if not isinstance(item, dict):
        return False
    return (
        item.get("role") in ROLES
        or isinstance(item.get("choices"), list)
        or isinstance(item.get("output"), list)
        or isinstance(item.get("message"), dict)
        or item.get("type") in _RESPONSE_ITEMS
    )


#: OpenAI Responses API items that are not `{role, content}` messages
_RESPONSE_ITEMS = frozenset({"function_call", "function_call_output", "message"})


def response_items(items: Any) -> list[Message]:
    """OpenAI Responses API input or output items: `{role, content}` messages (text, or `input_text` /
    `output_text` parts), `{type: message, role, content}`, `{type: function_call, call_id, name,
    arguments}` (the model's call) and `{type: function_call_output, call_id, output}` (its result)."""
    out: list[Message] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "function_call":
            args, _ = json_arguments(item.get("arguments"))
            call = ToolCallRef(
                call_id=item.get("call_id") or item.get("id"), name=str(item.get("name", "")), arguments=args
            )
            out.append(Message(role="assistant", tool_calls=(call,)))
        elif kind == "function_call_output":
            output = item.get("output")
            text = (
                output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, sort_keys=True)
            )
            out.append(Message(role="tool", text=text, tool_call_id=item.get("call_id")))
        elif "role" in item:
            out += openai_message(item)
    return out


@dataclass(frozen=True)
class ModelCall:
    """A model call as an SDK that records the request and the answer whole writes it (`model_call`)."""

    inputs: list[Message]
    outputs: list[Message]
    definitions: dict[str, Any]
    input_tokens: int | None
    output_tokens: int | None


def model_call(request: Any, answer: Any, usage: Any, tools: Any = None) -> ModelCall:
    """The request (OpenAI chat: `{messages, tools}`, or the list of messages), the answer (`openai_reply`)
    and the usage (`input` / `prompt_tokens` / `input_tokens`, and their `output` kin) of one model call,
    as Langfuse and MLflow record them (JSON text or structured). `tools`: definitions recorded apart. A
    `tool` message whose content is a tool's definition (`{type: function, function: {name, parameters}}`:
    Langfuse's LangChain handler lists the model's tools so) is a definition, never a tool result."""
    request = loads(request)
    asked = request if isinstance(request, dict) else {}
    items = asked.get("messages") if asked else request
    if asked and "messages" not in asked and "input" not in asked:  # a decorated function's arguments by
        items = next((v for v in asked.values() if _messages_like(v)), None)  # name or place: the messages
    items = items if isinstance(items, list) else []
    listed = [i for i in items if _definition_message(i)]
    inputs = openai_messages([i for i in items if not _definition_message(i)] if listed else items)
    if "input" in asked and "messages" not in asked:  # the Responses API: `instructions`, `input` items
        given = asked["input"]
        system = (
            [Message(role="system", text=str(asked["instructions"]))] if asked.get("instructions") else []
        )
        inputs = system + (
            [Message(role="user", text=given)] if isinstance(given, str) else response_items(given)
        )
    spent = loads(usage)
    spent = spent if isinstance(spent, dict) else {}
    return ModelCall(
        inputs=inputs,
        outputs=openai_reply(answer),
        definitions=tool_definitions(tools or asked.get("tools"), [i["content"] for i in listed]),
        input_tokens=_with_details(spent, "input", "prompt_tokens", "input_tokens"),
        output_tokens=_with_details(spent, "output", "completion_tokens", "output_tokens"),
    )


def _with_details(usage: dict[str, Any], own: str, *others: str) -> int | None:
    """Tokens of one side: Langfuse's own key (`input`) counts what its details (`input_cache_read`,
    `input_audio`, …) do not — its LangChain handler takes them out — so they are added back; the
    providers' keys (`prompt_tokens`, `input_tokens`) count them already."""
    if isinstance(base := usage.get(own), int | float) and not isinstance(base, bool):
        details = (v for k, v in usage.items() if k.startswith(f"{own}_") and isinstance(v, int | float))
        return int(base) + sum(int(v) for v in details if not isinstance(v, bool))
    return tokens(usage, *others)


def _messages_like(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(m, dict) and "role" in m for m in value)


def _definition_message(item: Any) -> bool:
    content = item.get("content") if isinstance(item, dict) and item.get("role") == "tool" else None
    return (
        isinstance(content, dict)
        and content.get("type") == "function"
        and isinstance(content.get("function"), dict)
    )


class MessageMemo:
    """Messages already read, by the raw values they were read from. Every model call resends the
    history, so the same message attributes come back once per later call; a reader that names its
    raw values as a key reads each distinct one once. Only keys of text values (str, bytes or None)
    are kept: 1, 1.0 and True are one dict key. Bounded (cleared when full); plain dict operations keep
    it safe across the receivers' threads."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._table: dict[tuple[str | bytes | None, ...], tuple[Message, ...]] = {}

    def get(self, key: tuple[Any, ...], read: Callable[[], Sequence[Message]]) -> list[Message]:
        if not all(v is None or type(v) in _TEXT_TYPES for v in key):
            return list(read())
        found = self._table.get(key)
        if found is None:
            if len(self._table) >= self.size:
                self._table.clear()
            found = self._table[key] = tuple(shared(m) for m in read())
        return list(found)


_TEXT_TYPES = (str, bytes)
_ITEMS = MessageMemo()  # GenAI message items, by their canonical spelling
_OPENAI_ITEMS = MessageMemo()  # OpenAI chat messages, likewise


def _genai_item(item: dict[str, Any], default_role: str | None) -> list[Message]:
    role = role_of(item.get("role")) or default_role
    if role is None:
        return []
    texts: list[str] = []
    calls: list[ToolCallRef] = []
    responses: list[tuple[str | None, Any]] = []
    for part in item.get("parts", []) or []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        # `content` as the spec writes it; `text` as an OpenAI content part (LiteLLM copies those over: a chat
        # part, or a Responses API item's `input_text` / `output_text`)
        written = part.get("content", part.get("text")) if kind in _TEXT_PARTS else None
        if written is not None:
            content = str(written)
            said = _repr_message(content) if role == "assistant" else None
            if said is None:
                texts.append(content)
            else:  # the model's message object written as its Python repr (openai-agents-v2 0.1)
                texts += [said[0]] if said[0] else []
                calls += said[1]
        elif kind == "tool_call":
            args, _ = json_arguments(part.get("arguments"))
            calls.append(ToolCallRef(call_id=part.get("id"), name=str(part.get("name", "")), arguments=args))
        elif kind == "tool_call_response":
            # the spec says `result`; Strands writes `response`
            responses.append(
                (part.get("id"), function_result(result_value(part.get("result", part.get("response")))))
            )
    if "content" in item and not item.get("parts"):
        texts.append(str(item["content"]))
    if responses:  # and the words said beside them (Anthropic's tool results and text in one user message)
        words = "".join(texts)
        beside = [Message(role=role, text=words)] if words.strip() and role != "tool" else []
        return [
            *(
                Message(role="tool", text=_as_text(result), tool_call_id=call_id)
                for call_id, result in responses
            ),
            *beside,
        ]
    # the OpenAI chat fields beside the parts (LiteLLM writes its messages so): `tool_calls` on the item,
    # and the `tool_call_id` a tool message answers
    calls = calls or openai_tool_calls(item.get("tool_calls"))
    call_id = item.get("tool_call_id") if role == "tool" else None
    return [
        Message(
            role=role,
            text="".join(texts) or None,
            tool_calls=tuple(calls),
            tool_call_id=None if call_id is None else str(call_id),
        )
    ]


def _repr_message(text: str) -> tuple[str | None, list[ToolCallRef]] | None:
    """An OpenAI chat message written as a Python dict repr (`{'content': None, 'role': 'assistant',
    'tool_calls': [{'id', 'function': {'name', 'arguments'}}]}`): its text and calls; None otherwise."""
    found = python_literal(text)
    if not isinstance(found, dict) or found.get("role") != "assistant":
        return None
    calls = [c for c in openai_tool_calls(found.get("tool_calls")) if c.name]
    content = found.get("content")
    return (content if isinstance(content, str) and content else None), calls


def strands_blocks(role: str, content: Any) -> list[Message]:
    """Strands content blocks: `[{"text"}, {"toolUse": {...}}, {"toolResult": {...}}]`."""
    blocks = loads(content)
    if isinstance(blocks, str):
        return [Message(role=role, text=blocks)]
    if isinstance(blocks, dict):  # e.g. an execute_tool request: the arguments object itself
        return [Message(role=role, text=_as_text(blocks))]
    if not isinstance(blocks, list):
        return []
    texts: list[str] = []
    calls: list[ToolCallRef] = []
    out: list[Message] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if "text" in block:
            texts.append(str(block["text"]))
        elif "toolUse" in block and isinstance(block["toolUse"], dict):
            use = block["toolUse"]
            calls.append(
                ToolCallRef(
                    call_id=use.get("toolUseId"), name=str(use.get("name", "")), arguments=use.get("input")
                )
            )
        elif "toolResult" in block and isinstance(block["toolResult"], dict):
            res = block["toolResult"]
            out.append(
                Message(
                    role="tool",
                    text=_as_text(result_value(res.get("content"))),
                    tool_call_id=res.get("toolUseId"),
                )
            )
    if texts or calls:
        out.insert(0, Message(role=role, text="".join(texts) or None, tool_calls=tuple(calls)))
    return out


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Identity:
    conversation_id: str | None
    reference_id: str | None
    agent: str | None
    release: str | None
    end_marker: bool
    evidence: tuple[str, ...] = ()  # values of `normalize.evidence_attributes` (grounding's extra evidence)


def identity(span: Span, config: NormalizeConfig, agent_keys: tuple[str, ...] = ()) -> Identity:
    """Conversation, reference, agent and release of a span, wherever its convention nests them."""
    attrs, res = span.attributes, span.resource
    nested = {
        **_dict(attrs.get("metadata")),
        **_prefixed(attrs, "traceloop.association.properties."),
        # Vercel AI SDK: experimental_telemetry.metadata (6.x), telemetry runtime context (7.x)
        **_prefixed(attrs, "ai.telemetry.metadata."),
        **_prefixed(attrs, "ai.settings.context."),
    }
    conversation = _first(attrs, ("gen_ai.conversation.id", "session.id")) or _first(
        nested,
        # thread_id: LangGraph's checkpointer thread; the camel-case ones: what Vercel AI SDK users pass
        ("session_id", "session.id", "thread_id", "sessionId", "conversationId", "threadId"),
    )
    if conversation is None and config.conversation_attribute:
        conversation = _first(attrs, (config.conversation_attribute,)) or _first(
            res, (config.conversation_attribute,)
        )
    key = config.reference_attribute
    reference = _first(attrs, (key, f"baggage.{key}")) or _first(res, (key,)) or _first(nested, (key,))
    agent = _first(attrs, ("gen_ai.agent.name", *agent_keys)) or _first(res, ("service.name",))
    release_keys = (config.release_attribute,) if config.release_attribute else ()
    release = _first(attrs, (*release_keys, "gen_ai.agent.version")) or _first(
        res, (*release_keys, "service.version")
    )
    marker = config.end_marker_attribute
    end = bool(attrs.get(marker)) or (
        config.end_marker_span_name is not None and span.name == config.end_marker_span_name
    )
    evidence = tuple(
        str(v) for k in config.evidence_attributes for v in (attrs.get(k), res.get(k)) if v not in (None, "")
    )
    return Identity(conversation, reference, agent, release, end, evidence)


def _first(attrs: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of these keys' values that names something: a value a scrubber or a redaction put in its
    place (`masked`) names nothing, and taken as an id it would put every conversation into one."""
    for k in keys:
        v = unquoted(attrs.get(k))
        if v not in (None, "") and not masked(v):
            return str(v)
    return None


def unquoted(value: Any) -> Any:
    """A value written as a JSON string (`"mlflow-1"`, quotes included: MLflow writes every attribute so) as
    that string; anything else as it is (objects and lists stay text for their readers)."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        try:
            text = json.loads(value)
        except ValueError:
            return value
        return text if isinstance(text, str) else value
    return value


def _dict(value: Any) -> dict[str, Any]:
    value = loads(value)
    return value if isinstance(value, dict) else {}


def _prefixed(attrs: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in attrs.items() if k.startswith(prefix)}


def tokens(attrs: dict[str, Any], *keys: str) -> int | None:
    for k in keys:
        v = attrs.get(k)
        if isinstance(v, int | float) and not isinstance(v, bool):
            return int(v)
    return None


def tool_definitions(*values: Any) -> dict[str, Any]:
    """Tool schemas from `[{name, parameters}]`, `[{type: function, function: {name, parameters}}]`
    (OpenAI / GenAI `gen_ai.tool.definitions`, OpenInference `llm.tools.N.tool.json_schema`). The schemas
    are shared between calls (`_definitions_in`): read them, never change them."""
    out: dict[str, Any] = {}
    for value in values:
        out.update(_definitions_in(value) if isinstance(value, str) else _read_definitions(value))
    return out


#: how many tool-definition texts `_definitions_in` keeps read (an agent's tools; a few dozen agents)
DEFINITIONS_KEPT = 64


@lru_cache(maxsize=DEFINITIONS_KEPT)
def _definitions_in(text: str) -> dict[str, Any]:
    """`_read_definitions` of a text, read once: frameworks send an agent's tool definitions, the same text,
    on every model call, and a real agent's run to tens of kilobytes."""
    return _read_definitions(text)


def _read_definitions(value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    items = loads(value)
    for item in items if isinstance(items, list) else [items]:
        item = loads(item)
        if not isinstance(item, dict):
            continue
        fn = item.get("function", item)
        if isinstance(fn, dict) and fn.get("name") and isinstance(fn.get("parameters"), dict):
            out[str(fn["name"])] = fn["parameters"]
    return out


_SHARED: dict[tuple[Any, ...], Message] = {}
_SHARED_IDS: dict[int, Message] = {}  # the objects in _SHARED by id: a shared message is known at once
_SHARED_MAX = 20_000


def shared(message: Message) -> Message:
    """One object for equal messages. Frameworks resend the whole history on every model call, so an
    open conversation would otherwise hold each message once per later call. Messages are immutable;
    the table is bounded (cleared when full) and plain dict operations keep it safe across threads."""
    if _SHARED_IDS.get(id(message)) is message:
        return message
    key = (
        message.role,
        message.text,
        message.tool_call_id,
        tuple((c.call_id, c.name, canonical_json(c.arguments)) for c in message.tool_calls),
    )
    found = _SHARED.get(key)
    if found is not None:
        return found
    if len(_SHARED) >= _SHARED_MAX:
        _SHARED.clear()
        _SHARED_IDS.clear()
    _SHARED[key] = message
    _SHARED_IDS[id(message)] = message
    return message


def bare(span: Span) -> Span:
    """The span without what normalization has read out of it (attributes, events, resource): an open
    conversation holds its spans until it is scored, and the raw attributes repeat every message."""
    return span.model_copy(update={"attributes": {}, "events": (), "resource": {}})


_TOOLISH = re.compile(r"tool|function_call|__call__", re.IGNORECASE)


def unread_tool(span: Span) -> str | None:
    """What says that a span no adapter understood may be a tool call: its name or an attribute key that
    speaks of a tool. A conversation whose gold calls are all missing while such spans exist was not
    understood (it is reported unscored, not failed). Spans an adapter read (a LangGraph `tools` node, a
    chain span listing tools) are never suspects: that adapter knows what it read."""
    if _TOOLISH.search(span.name):
        return f"span {span.name!r}"
    key = next((k for k in span.attributes if _TOOLISH.search(k)), None)
    return None if key is None else f"attribute {key!r}"


def build_agent_span(
    span: Span,
    who: Identity,
    convention: str,
    kind: str,
    tool: ToolInvocation | None,
    inputs: Sequence[Message],
    outputs: Sequence[Message],
    input_tokens: int | None,
    output_tokens: int | None,
    definitions: dict[str, Any] | None = None,
    setup: bool = False,
) -> AgentSpan:
    """The one place every adapter's findings become an `AgentSpan`."""
    return AgentSpan(
        span=bare(span),
        convention=convention,
        kind=kind,
        conversation_id=who.conversation_id,
        reference_id=who.reference_id,
        agent=who.agent,
        release=who.release,
        tool=tool,
        input_messages=tuple(shared(m) for m in inputs),
        output_messages=tuple(shared(m) for m in outputs),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        response_id=_response_id(span) if kind == "llm" else None,
        end_marker=who.end_marker,
        evidence=who.evidence,
        tool_definitions=definitions or {},
        setup=setup,
    )


#: where a model call's response id is written (OTel GenAI and OpenLLMetry; the Vercel AI SDK's own)
_RESPONSE_ID_KEYS = ("gen_ai.response.id", "ai.response.id")


def _response_id(span: Span) -> str | None:
    value = next((span.attributes[k] for k in _RESPONSE_ID_KEYS if k in span.attributes), None)
    return value if isinstance(value, str) and value else None


def indexed_message(
    role: str,
    text: Any,
    call_nodes: dict[Any, Any] | None,
    tool_call_id: Any,
    read_call: Callable[[dict[str, Any]], tuple[Any, Any, Any]],
) -> Message:
    """A message rebuilt from flattened, indexed attributes (OpenInference, legacy OpenLLMetry).

    `read_call` takes one tool-call node and returns its (id, name, raw arguments).
    """
    calls = []
    for _, node in sorted((call_nodes or {}).items()):
        call_id, name, raw_args = read_call(node if isinstance(node, dict) else {})
        args, _ = json_arguments(raw_args)
        calls.append(ToolCallRef(call_id=call_id, name=str(name or ""), arguments=args))
    return Message(
        role=role,
        text=None if text is None else str(text),
        tool_calls=tuple(calls),
        tool_call_id=tool_call_id,
    )
