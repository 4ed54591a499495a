"""OpenCode's message infos mapped onto a session, whichever source they were read from
(the event log, the store's rows, legacy files): the state a message leaves, its usage
(its steps', else its own tokens), cost and end, and how it failed or was stopped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...schema import State, Usage
from ..kit import as_dict, exact
from . import _compat
from ._limits import api_error_limits
from ._parts import stamp, step_usage
from ._session import SessionState

__all__ = ["count_usage", "message_info", "step_state"]


def message_info(session: SessionState, info: dict[str, Any]) -> None:
    """Map a message's info (``info["id"]`` a string), re-sent on every change of it."""
    msg_id = str(info["id"])
    role = info.get("role")
    first = msg_id not in session.roles
    session.roles[msg_id] = str(role)
    session.infos[msg_id] = info
    times = as_dict(info.get("time"))
    updated = stamp(times.get("completed") or times.get("created"))
    if updated is not None:
        session.facts["updated_at"] = updated
    if role == "user":
        if first:
            session.state = "working"
        return
    if role != "assistant":
        return
    if isinstance(info.get("modelID"), str) and info["modelID"]:
        session.model = info["modelID"]
    usage = step_usage(info.get("tokens"))
    if usage is not None and usage.total:
        # Billed even when the message then failed or was stopped.
        session.message_usage[msg_id] = usage
        count_usage(session, msg_id)
    cost = exact(info.get("cost"))
    if cost is not None:
        session.costs[msg_id] = cost
    error = info.get("error")
    if isinstance(error, dict):
        _error(session, msg_id, error, updated)
        return
    completed = times.get("completed")
    if completed is None:
        # Its last step says how it ended, should the message never be marked done.
        session.state = step_state(session, msg_id)
        return
    if info.get("finish") == _compat.TOOL_CALLS_FINISH and msg_id not in session.rejected:
        session.state = "working"
        return
    session.state = "idle"
    parent = session.infos.get(str(info.get("parentID")))
    started = as_dict((parent or {}).get("time")).get("created")
    if isinstance(started, int) and isinstance(completed, int):
        session.durations[str(info.get("parentID"))] = max(0, completed - started)


def step_state(session: SessionState, msg_id: str) -> State:
    """The state an assistant message's steps give: ``working`` until a step finished
    other than by calling tools (then its answer is complete), or after a rejected call.
    """
    reason = session.step_reasons.get(msg_id)
    if reason is None or (reason == _compat.TOOL_CALLS_FINISH and msg_id not in session.rejected):
        return "working"
    return "idle"


def count_usage(session: SessionState, msg_id: str) -> None:
    """The usage of one assistant message: its steps' (``step-finish`` parts, each once,
    as last written), else the message's own ``tokens``.
    """
    steps = session.steps.get(msg_id)
    usage = sum(steps.values(), Usage()) if steps else session.message_usage.get(msg_id)
    if usage is None:
        return
    session.usage[msg_id] = usage
    last = next(reversed(steps.values())) if steps else usage
    session.facts["context_tokens"] = last.input_tokens + last.cache_read_tokens
    # The usage belongs to the response's first message (its parts come later, or were
    # read before the message completed).
    seq = session.first_of.get(msg_id)
    if seq is not None:
        session.replace_message(session.messages[seq].model_copy(update={"usage": usage}))


def _error(
    session: SessionState, msg_id: str, error: dict[str, Any], when: datetime | None
) -> None:
    session.state = "idle"
    if error.get("name") == _compat.ABORTED_ERROR:
        _close_running(session, "aborted")
        if msg_id not in session.aborted:
            session.aborted.add(msg_id)
            session.lifecycle("Interrupted", "info", when)
        return
    if msg_id in session.errors:
        return
    session.errors.add(msg_id)
    data = as_dict(error.get("data"))
    text = str(data.get("message") or error.get("name") or "Error")
    session.lifecycle(text, "error", when)
    for limit in api_error_limits(data, when):
        session.limits[limit.key] = limit


def _close_running(session: SessionState, why: str) -> None:
    for seq in session.parts.values():
        message = session.messages[seq]
        if message.tool is not None and message.tool.status == "running":
            tool = message.tool.model_copy(update={"status": "error", "output": why})
            update: dict[str, Any] = {"tool": tool}
            if message.dialog is not None:
                update["dialog"] = message.dialog.model_copy(
                    update={"status": "dismissed", "outcome": why}
                )
                session.asking.pop(message.seq, None)
            session.replace_message(message.model_copy(update=update))
