"""Assemble stage, part 0: which earlier history a span's model call continues. Pure.

Most frameworks resend the whole conversation with every model call, and many start a new trace per
user turn. With no conversation id on the spans, a trace that continues a conversation still shows
it: its model call's history, up to its newest user message, is exactly what an earlier trace's model
call had seen and answered. `history_keys` gives two digests per span that carries messages:
- `continues`: the history before its newest user message (None when that is empty);
- `state`: everything it saw and answered (input then output).
A span whose `continues` equals an earlier span's `state` continues that span's conversation
(windows.py joins them). System messages are left out (instructions are often rebuilt per call), and
tool-call ids too (some frameworks mint new ones when they resend a history). The digests are stable
across processes (BLAKE2b), so ingest replicas agree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from monitor.model import AgentSpan, Message


def history_keys(span: AgentSpan) -> tuple[bytes | None, bytes | None]:
    """(continues, state) of a span's messages; (None, None) for a span without any."""
    seen = [m for m in span.input_messages if m.role != "system"]
    answered = [m for m in span.output_messages if m.role != "system"]
    if not seen and not answered:
        return None, None
    last_user = max((i for i, m in enumerate(seen) if m.role == "user"), default=0)
    continues = _digest(seen[:last_user]) if last_user > 0 else None
    return continues, _digest(seen + answered)


def begins_conversation(spans: Sequence[AgentSpan]) -> bool:
    """Traces joined by their history (so the framework resends it) and one model call that was sent
    the conversation from its first user message: nothing of it came before these spans."""
    if len({s.span.trace_id for s in spans}) < 2:
        return False  # one trace: whether its framework resends history, nothing here shows
    for span in spans:  # a model call (or its log records); an agent span may show only the new message
        seen = [m for m in span.input_messages if m.role != "system"]
        if (
            span.kind != "agent"
            and seen
            and seen[0].role == "user"
            and [m.role for m in seen].count("user") == 1
        ):
            return True
    return False


def _digest(messages: Sequence[Message]) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for m in messages:
        h.update(m.role.encode())
        h.update(b"\x1e")
        h.update((m.text or "").strip().encode("utf-8", "surrogatepass"))
        for call in m.tool_calls:
            h.update(b"\x1f")
            h.update(call.name.encode("utf-8", "surrogatepass"))
        h.update(b"\x1d")
    return h.digest()
