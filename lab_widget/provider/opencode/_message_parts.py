"""OpenCode's message parts mapped onto a session, whichever source they were read from
(the event log, the store's rows, legacy files): one message per text, reasoning or tool
part, replaced (same seq) as the part grows; a step's usage, questions and plans,
compactions and their summaries, and images.
"""

from __future__ import annotations

from typing import Any

from ...schema import ToolCall
from ..kit import as_dict
from . import _compat
from ._message_infos import count_usage, step_state
from ._parts import (
    COMPACTED,
    attachments,
    hidden_reasoning,
    plan_fields,
    question_fields,
    rejected,
    stamp,
    step_usage,
    tool_call,
)
from ._session import SessionState

__all__ = ["message_part"]


def message_part(session: SessionState, part: dict[str, Any]) -> ToolCall | None:
    """Map a part (``part["id"]`` a string), re-sent on every change of it; the call it
    shows, if it is a tool's (the reader follows the sub-agent a call runs).
    """
    part_id = str(part["id"])
    msg_id = str(part.get("messageID") or "")
    role = session.roles.get(msg_id)
    info = session.infos.get(msg_id, {})
    when = stamp(as_dict(info.get("time")).get("created"))
    fields = _fields(session, part, part_id, msg_id, role, info)
    if fields is None:
        return None
    seq = session.parts.get(part_id)
    if seq is None:
        first = msg_id not in session.first_of
        usage = session.usage.get(msg_id) if first and role == "assistant" else None
        message = session.add_message(native_id=msg_id, timestamp=when, usage=usage, **fields)
        session.parts[part_id] = seq = message.seq
        if first:
            session.first_of[msg_id] = seq
        if part.get("type") == _compat.COMPACTION_PART:
            session.compactions[msg_id] = seq
    else:
        old = session.messages[seq]
        session.replace_message(old.model_copy(update=dict(fields, usage=old.usage)))
    if fields.get("dialog") is not None and fields["dialog"].status == "pending":
        session.asking[seq] = None
    else:
        session.asking.pop(seq, None)
    tool = fields.get("tool")
    return tool if isinstance(tool, ToolCall) else None


def _fields(
    session: SessionState,
    part: dict[str, Any],
    part_id: str,
    msg_id: str,
    role: str | None,
    info: dict[str, Any],
) -> dict[str, Any] | None:
    """What one part shows as (``None``: nothing, or not yet); bookkeeping parts
    (step-finish, a compaction summary's text, a pasted file) update other messages.
    """
    kind = part.get("type")
    text = str(part.get("text") or "")
    metadata = as_dict(part.get("metadata"))
    if any(metadata.get(key) == value for key, value in _compat.TRANSIENT_PART_MARKS):
        return None  # a status line the CLI removes again, never part of the conversation
    if kind == "text" and role == "user":
        if text and not part.get("synthetic"):
            return {"kind": "text", "role": "user", "text": text}
    elif kind == "text" and role == "assistant":
        if info.get("summary") is True:
            _compaction_summary(session, info, text)
            return None
        if text or part_id in session.parts:
            return {"kind": "text", "role": "assistant", "text": text, "model": session.model}
    elif kind == "reasoning" and role == "assistant":
        text = text.strip()
        hidden = not text and hidden_reasoning(part.get("metadata"))
        if text or hidden or part_id in session.parts:
            return {
                "kind": "text",
                "role": "assistant",
                "text": text,
                "thinking": True,
                "redacted": hidden,
                "model": session.model,
            }
    elif kind == "file" and role is not None:
        _file(session, part, part_id, msg_id, role)
    elif kind == _compat.COMPACTION_PART:
        return {"kind": "lifecycle", "role": "system", "level": "info", "text": COMPACTED}
    elif kind == "step-finish" and role == "assistant":
        usage = step_usage(part.get("tokens"))
        if usage is not None:
            session.steps.setdefault(msg_id, {})[part_id] = usage
            count_usage(session, msg_id)
        session.step_reasons[msg_id] = str(part.get("reason") or "")
        if msg_id == max(session.infos, default=None) and not as_dict(info.get("error")):
            session.state = step_state(session, msg_id)
    elif kind == "tool":
        return _tool_fields(session, part, msg_id)
    return None


def _tool_fields(session: SessionState, part: dict[str, Any], msg_id: str) -> dict[str, Any]:
    state = as_dict(part.get("state"))
    if rejected(str(state.get("error") or "")):
        session.rejected.add(msg_id)
    tool = tool_call(part)
    fields: dict[str, Any] = {
        "kind": "tool",
        "role": "assistant",
        "tool": tool,
        "model": session.model,
        "attachments": attachments(state.get(_compat.ATTACHMENTS_KEY)),
    }
    if part.get("tool") == _compat.QUESTION_TOOL:
        fields.update(question_fields(state, tool))
    elif part.get("tool") == _compat.PLAN_EXIT_TOOL:
        fields.update(plan_fields(tool))
    return fields


def _file(
    session: SessionState, part: dict[str, Any], part_id: str, msg_id: str, role: str
) -> None:
    """A file the user attached (or a tool returned) as a part of its own: an image
    goes on the message's first shown part, else on a message of its own.
    """
    found = attachments([part])
    if not found:
        return
    seq = session.first_of.get(msg_id)
    if seq is None:
        chat_role = "user" if role == "user" else "assistant"
        message = session.add_message(
            kind="text", role=chat_role, native_id=msg_id, attachments=found
        )
        session.parts[part_id] = session.first_of[msg_id] = message.seq
        return
    shown = session.messages[seq]
    keep = [a for a in shown.attachments if a not in found]
    session.replace_message(shown.model_copy(update={"attachments": keep + found}))


def _compaction_summary(session: SessionState, info: dict[str, Any], text: str) -> None:
    """A compaction's summary goes under the note its request opened, and so does the
    summary's usage (the response the note stands for).
    """
    seq = session.compactions.get(str(info.get("parentID")))
    if seq is None:
        return
    session.first_of.setdefault(str(info["id"]), seq)
    note = session.messages[seq]
    usage = session.usage.get(str(info["id"]), note.usage)
    session.replace_message(note.model_copy(update={"detail": text.strip(), "usage": usage}))
