"""How each record of a Gemini CLI session shows in the chat: a prompt, the model's thoughts,
text and calls (a call that waited on a confirmation as its dialog), a note, a compression,
and the sub-agents a call ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...schema import LifecycleLevel, Message
from . import _compat
from ._dialogs import approval_dialog, confirmation_id
from ._log import COMPACTED, NOTE, SessionLog
from ._records import (
    attachments,
    record_usage,
    texts,
    thinking,
    timestamp,
    tool_message,
    user_text,
)
from ._signals import confirmations

__all__ = ["record_messages"]

_LEVELS: dict[str, LifecycleLevel] = {"info": "info", "warning": "warning", "error": "error"}


def confirmation(
    call: dict[str, Any],
    since: str,
    session: str,
    turn_signals: Callable[[], list[dict[str, Any]]] | None,
) -> dict[str, Any] | None:
    """The spooled confirmation a call waited on, if it waited on one: tied to it by what
    both name (the command, the file, the MCP tool, the fetch prompt), spooled between the
    turn's prompt (``since``) and the call's end.
    """
    name = str(call.get("name") or "")
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    assert isinstance(args, dict)

    def matches(details: dict[str, Any]) -> bool:
        kind = details.get("type")
        if name == _compat.SHELL_TOOL:
            return kind == _compat.SHELL_CONFIRM and details.get("command") == args.get("command")
        if name in _compat.EDIT_TOOLS:
            return kind == _compat.EDIT_CONFIRM and details.get("filePath") == args.get("file_path")
        if kind == _compat.MCP_CONFIRM:
            server, tool = details.get("serverName"), details.get("toolName")
            return name in (f"{_compat.MCP_PREFIX}{server}_{tool}", tool)
        if kind == _compat.INFO_CONFIRM:
            return details.get("prompt") == args.get("prompt")
        return False

    if turn_signals is None:
        return None
    ended = str(call.get("timestamp") or "9999")
    found = [
        r
        for r in confirmations(turn_signals(), session)
        if matches(r["details"]) and since <= str(r.get("timestamp") or "") <= ended
    ]
    return found[-1] if found else None


def record_messages(
    record: dict[str, Any],
    position: int,
    log: SessionLog,
    turn_signals: Callable[[], list[dict[str, Any]]] | None,
) -> list[Message]:
    """The messages the record at ``position`` of ``log`` shows, the messages of the
    sub-agents its calls ran after them (each linked in ``log``).
    """
    kind = record.get("type")
    stamp = timestamp(record.get("timestamp"))
    native = str(record.get("id"))

    def said(**fields: Any) -> Message:
        return Message(seq=0, native_id=native, timestamp=stamp, **fields)

    if kind == "user":
        text = user_text(record)
        if not text:
            return []  # context, or the tool results sent back to the model
        content = attachments(record.get("content"))
        return [said(kind="text", role="user", text=text, attachments=content)]
    if kind == NOTE:
        text = str(record.get("content"))
        return [Message(seq=0, kind="lifecycle", role="system", level="warning", text=text)]
    if kind == COMPACTED:
        return [
            Message(
                seq=0,
                kind="lifecycle",
                role="system",
                level="info",
                text="Conversation compacted",
                detail=str(record.get("content") or ""),
                timestamp=stamp,
            )
        ]
    if kind in _LEVELS:
        text = texts(record.get("content")) or str(record.get("content") or "")
        if not text:
            return []
        return [said(kind="lifecycle", role="system", level=_LEVELS[str(kind)], text=text)]
    if kind != "gemini":
        return []
    since = log.prompt_time(record)
    model = record.get("model") if isinstance(record.get("model"), str) else None
    out: list[Message] = []
    for thought in thinking(record):
        out.append(
            said(
                kind="text",
                role="assistant",
                text=thought,
                thinking=True,
                redacted=not thought,
                model=model,
            )
        )
    text = texts(record.get("content"))
    if text:
        out.append(said(kind="text", role="assistant", text=text, model=model))
    calls = record.get("toolCalls")
    agents: list[Message] = []
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            out.append(tool_message(call, native, stamp, model))
            agent_id = call.get("agentId")
            if isinstance(agent_id, str) and agent_id and not log.subagent:
                log.linked[agent_id] = position
                agents += log.agents.nested(agent_id, str(call.get("id") or ""))
            confirm = confirmation(call, since, log.session, turn_signals)
            tool = out[-1].tool
            if confirm is not None and tool is not None and tool.status != "running":
                rejected = tool.status == "error" and "(rejected)" in (tool.output or "")
                dialog = approval_dialog(confirm["details"], confirmation_id(confirm))
                dialog = dialog.model_copy(
                    update={
                        "status": "rejected" if rejected else "answered",
                        "outcome": "rejected" if rejected else "approved",
                    }
                )
                # The call goes by the confirmation's id too: a declined confirmation
                # fires no hook, so the chat learns from this call that it was answered.
                tool = tool.model_copy(update={"id": dialog.tool_id})
                out[-1] = out[-1].model_copy(
                    update={"kind": "dialog", "dialog": dialog, "tool": tool}
                )
    usage = record_usage(record.get("tokens"))
    if usage is not None and out:
        # On the response's first message, so summing messages counts it once.
        out[0] = out[0].model_copy(update={"usage": usage})
    return out + agents
