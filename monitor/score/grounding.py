"""Grounding: truthfulness without gold. Pure.

In: a conversation's turns in order (predicted side: user messages, calls with results and errors,
replies), the tool error of each call, its system prompt and extra evidence, the declared tool schemas,
the policy's `grounding` settings, and whether the evidence is complete. Out: for every call the
provenance of each argument leaf, and the problems the policy scorer adds to the turn's truthfulness:

- `ungrounded_parameter_value` on a call: an identifying or typed argument value that nothing said
  before it (`compare/evidence`: user, tool results, system, tool schema, computed). A value that only
  the result of an ungrounded call stated fails too, naming that call: attribution makes it a cascade
  (`prior_action_failed`) of the call that introduced the value;
- `unsupported_claim` on a reply: a typed fact nothing before it states, or a claim that an action is
  done with no successful call of a tool that does it before it.

Some values nothing states are only `uncertain`, never failed (`compare/evidence.only_uncertain`,
`short_code`): a number or a date with no look-alike stated (it may be computed), a time of day, a
two-letter code (the standard code of a name said), a reply's reading that names no identifier (`230x2`).

Incomplete evidence never fails a value: when message content was not captured (no user text at all),
spans were dropped, the conversation was grouped by trace (no conversation id), or an earlier call that
succeeded has no recorded result, an ungrounded value is reported `uncertain` (a comparison on the
`evidence` rung) for a reviewer to find, and taints nothing. A failed call that a later call recovered
(`score/recovery`) had no effect: its ungrounded values are uncertain too.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from monitor.compare.evidence import Evidence, Provenance, only_uncertain, short_code
from monitor.model import (
    ActionContent,
    Comparison,
    DialogTurn,
    FailureReason,
    Mismatch,
    ResponseContent,
    Rung,
)
from monitor.reference.policy import Grounding
from monitor.score.recovery import attempts, call_failed, exchanges, recoveries

Problem = tuple[FailureReason, str, str, Mismatch]
#: A user message that agrees to what the agent just proposed (`yes friday`, `sure, go ahead`, `好的`):
#: the proposal's values become the user's.
AFFIRMATION = re.compile(
    r"(?i)^\W*(?:yes|yeah|yep|yup|sure|ok|okay|correct|confirm(?:ed)?|sounds good|go ahead|please do|do it|"
    r"that'?s right|right|perfect|great|fine|absolutely|对|是的?|好的?|可以|行|没问题|确认|"
    # the same in the other languages the monitor reads days in (`はい、お願いします`, `네`, `oui`, `sí`)
    r"はい|ええ|お願いします|네|예|좋아요|oui|d'accord|sí|claro|vale|sim|ja|jawohl|genau|sì|certo|"
    r"tak|evet|tamam|да|ano|igen|kyllä)\b(?!\s+que\s+no\b)"  # not `si` (`if`), `prima` (`before`), `claro que no`
)


@dataclass(frozen=True)
class ConversationEvidence:
    """What the conversation states beside its turns, and whether all of it was recorded."""

    system: tuple[str, ...] = ()  # system prompts / instructions, and the configured evidence attributes
    today: str | None = (
        None  # the conversation's date (ISO, from its first span): "tomorrow" is relative to it
    )
    why_incomplete: str = ""  # set: not all was recorded (values are uncertain, not failed), and why


@dataclass
class Grounded:
    provenance: dict[int, tuple[Provenance, ...]] = field(default_factory=dict)
    problems: dict[int, list[Problem]] = field(default_factory=dict)  # turn -> truthfulness problems
    uncertain: dict[int, list[Comparison]] = field(default_factory=dict)
    #: turn -> the earlier turns whose results its values came from: data flow, for attribution
    edges: dict[int, set[int]] = field(default_factory=dict)


def ground(
    turns: Sequence[DialogTurn],
    errors: Mapping[int, str | None],
    schemas: Mapping[str, object],
    settings: Grounding,
    context: ConversationEvidence,
    known_tools: Iterable[str] = (),
    read_only: frozenset[str] = frozenset(),
) -> Grounded:
    """Walk the conversation in order, growing its evidence, and ground each call and reply.

    A failed call that was recovered (`score/recovery`) had no effect: its ungrounded values are reported
    `uncertain` (a reviewer sees the invented id), not failed — as gold scoring forgives a recovered attempt.
    """
    evidence = Evidence(system=context.system, schemas=schemas, today=context.today)
    known = set(known_tools)
    tools = known | set(schemas)
    tools |= {t.predict_turn.name for t in turns if isinstance(t.predict_turn, ActionContent)}
    has_user_text = any(
        t.turn == "User" and isinstance(t.predict_turn, ResponseContent) and t.predict_turn.response.strip()
        for t in turns
    )
    why_incomplete = context.why_incomplete
    if not why_incomplete and not has_user_text:
        why_incomplete = "evidence incomplete: no user message was recorded"
    recovered = _recovered(turns, errors, read_only)
    out = Grounded()
    proposal = ""  # the agent's latest reply, which a user's `yes` makes the user's own
    for t in turns:
        content = t.predict_turn
        if t.turn == "User" and isinstance(content, ResponseContent):
            evidence.add_user(t.turn_no, content.response)
            if proposal and AFFIRMATION.match(content.response):
                evidence.add_confirmed(t.turn_no, proposal)
            proposal = ""
        elif isinstance(content, ActionContent):
            failed = call_failed(t, errors)
            provenance = tuple(evidence.provenance(content.name, content.args))
            out.provenance[t.turn_no] = provenance
            sources = {p.turn for p in provenance if p.source == "tool_result" and p.turn is not None}
            sources |= {p.tainted_by for p in provenance if p.tainted_by is not None}
            if sources:
                out.edges[t.turn_no] = sources
            bad = [
                p
                for p in provenance
                if p.checked and not p.grounded and not _exempt(settings, content.name, p)
            ]
            forgiven = (
                f"a failed attempt, recovered at turn {recovered[t.turn_no]}"
                if t.turn_no in recovered
                else ""
            )
            if settings.arguments and bad:
                _report_values(out, t.turn_no, bad, why_incomplete or forgiven, evidence)
            # only a call whose value failed taints its result: an uncertain one does not
            failed_values = [
                r for r in out.problems.get(t.turn_no, ()) if r[0] == FailureReason.UNGROUNDED_PARAMETER_VALUE
            ]
            tainted = settings.arguments and bool(failed_values)
            error = errors.get(t.turn_no) or content.error or ""
            evidence.add_call(
                t.turn_no,
                content.name,
                content.args,
                content.result,
                failed,
                tainted,
                error,
                invented=[r[3].predicted for r in failed_values if r[3].source_turn is None],
                inherited={r[3].source_turn for r in failed_values if r[3].source_turn is not None},
            )
            if not failed and content.result is None and not why_incomplete:
                why_incomplete = f"evidence incomplete: turn {t.turn_no}'s call recorded no result"
        elif t.turn == "Agent" and isinstance(content, ResponseContent):
            proposal = content.response
            if not settings.replies:
                continue
            claims = evidence.unsupported(content.response, tools, tools_declared=bool(schemas or known))
            sources = {c.tainted_by for c in claims if c.tainted_by is not None}
            if sources:
                out.edges[t.turn_no] = sources
            for c in claims:
                field_ = "response.done" if c.what == "done" else "response.fact"
                if why_incomplete or c.unsure:
                    why = why_incomplete or _UNSURE.get(c.kind, _UNSURE_VALUE)
                    out.uncertain.setdefault(t.turn_no, []).append(
                        _uncertain(field_, c.text, f"{c.detail}; {why}")
                    )
                    continue
                mismatch = Mismatch(
                    field_, None, c.text, "value" if c.what == "fact" else "structure", c.tainted_by
                )
                out.problems.setdefault(t.turn_no, []).append(
                    (FailureReason.UNSUPPORTED_CLAIM, field_, c.detail, mismatch)
                )
    return out


#: the kinds of argument value a look-alike is looked for (`only_uncertain`: what it decides)
_WEIGHED = frozenset({"number", "date", "time", "code"})


def _recovered(
    turns: Sequence[DialogTurn], errors: Mapping[int, str | None], read_only: frozenset[str]
) -> dict[int, int]:
    """Failed calls that a later call recovered: turn -> the recovering turn."""
    if not any(call_failed(t, errors) for t in turns):
        return {}  # nothing failed: nothing to recover (most conversations; their calls are not walked)
    calls = attempts(turns, errors, exchanges(turns))
    return {calls[i].turn_no: calls[i + steps].turn_no for i, steps in recoveries(calls, read_only).items()}


#: why an ungrounded value grounding does not fail is only uncertain (`only_uncertain`, `short_code`,
#: `_NO_IDENTIFIER`): a number or a date with no look-alike, and by kind
_UNSURE_VALUE = (
    "nothing similar is stated either: it may be computed in a way grounding does not follow, so it is "
    "for review, not failed"
)
_UNSURE = {
    "time": "a time of day may be computed (an end from a start and a length, another zone) in a way "
    "grounding does not follow, so it is for review, not failed",
    "code": "a two-letter code is most often the standard code of a name said (a state, a country), which "
    "grounding does not look up, so it is for review, not failed",
    "reading": "a size, a multiplier or a number joined to a word, not an identifier: for review, not failed",
    "passed_over": "the sentence has no word that says it was done either, so it is for review, not failed",
    "written_day": "the lengths of time a day may be counted by (`72 horas antes`, `14 dni przed`) are read in "
    "English only, so a day written in another language is for review, not failed",
}


def _report_values(
    out: Grounded, turn: int, bad: Sequence[Provenance], why_incomplete: str, evidence: Evidence
) -> None:
    for p in bad:
        if p.tainted_by is not None:
            detail = (
                f"{p.path}: {p.value!r} comes only from turn {p.tainted_by}'s result, "
                "and that call used an ungrounded value"
            )
        else:
            detail = f"{p.path}: {p.value!r} ({p.kind}) is stated by no user message, tool result, system prompt or tool schema"
        similar = None
        if p.tainted_by is None and p.kind in _WEIGHED:
            similar = evidence.lookalike_of(p.value, p.kind)
            detail += f" (the conversation states {similar})" if similar else ""
        unsure = p.tainted_by is None and (only_uncertain(p.kind, similar) or short_code(p.kind, p.value))
        if (why_incomplete or unsure) and p.tainted_by is None:
            why = why_incomplete or _UNSURE.get(p.kind, _UNSURE_VALUE)
            out.uncertain.setdefault(turn, []).append(_uncertain(p.path, p.value, f"{detail}; {why}"))
            continue
        out.problems.setdefault(turn, []).append(
            (
                FailureReason.UNGROUNDED_PARAMETER_VALUE,
                p.path,
                detail,
                Mismatch(p.path, None, p.value, "value", p.tainted_by),
            )
        )


def _uncertain(field_: str, value: object, note: str) -> Comparison:
    return Comparison(
        field=field_,
        gold=None,
        predicted=value,
        equal=True,
        score=None,
        rung=Rung.EVIDENCE,
        uncertain=True,
        note=note,
    )


def _exempt(settings: Grounding, tool: str, p: Provenance) -> bool:
    name = f"{tool}.{p.path}"
    bare = f"{tool}.{_without_indices(p.path)}"
    return any(fnmatch.fnmatchcase(name, e) or fnmatch.fnmatchcase(bare, e) for e in settings.exempt)


def _without_indices(path: str) -> str:
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)
