"""How each record of a Gemini CLI session shows in the chat: a prompt, the model's thoughts,
text and calls (a call that waited on a confirmation as its dialog), a note, a compression,
and the sub-agents a call ran.
"""

from __future__ import annotations

from typing import Any

from ...schema import LifecycleLevel, Message
from .. import TranscriptReader
from . import _compat
from ._dialogs import approval_dialog, confirmation_id
from ._records import (
    attachments,
    is_user_prompt,
    record_usage,
    texts,
    thinking,
    timestamp,
    tool_message,
    user_text,
)
from ._signals import confirmations
from ._subagents import SubAgents

__all__ = ["COMPACTED", "NOTE", "RecordMessages"]

_LEVELS: dict[str, LifecycleLevel] = {"info": "info", "warning": "warning", "error": "error"}
COMPACTED = "\x00compacted"
"""The type of a stand-in record for a compression of the history."""
NOTE = "\x00note"
"""The type of a stand-in record for an unreadable line (no real id or type starts so)."""


class RecordMessages(TranscriptReader):
    """Maps one record at a time into the messages it shows."""

    _records: list[dict[str, Any]]
    _index: dict[str, int]
    """Record id -> its position in ``_records``."""
    _facts: dict[str, Any]
    _turn_signals: Any
    _subagent: bool
    _agents: SubAgents
    _linked: dict[str, int]
    """Agent session id -> position of the record of the call that ran it."""

    def _prompt_time(self, record: dict[str, Any]) -> str:
        """When the user prompt before ``record`` was sent (ISO text, sortable)."""
        position = self._index.get(str(record.get("id")), len(self._records))
        for earlier in reversed(self._records[:position]):
            if is_user_prompt(earlier):
                return str(earlier.get("timestamp") or "")
        return ""

    def _confirmation(self, call: dict[str, Any], since: str) -> dict[str, Any] | None:
        """The spooled confirmation a call waited on, if it waited on one: tied to it by
        what both name (the command, the file, the MCP tool, the fetch prompt).
        """
        name = str(call.get("name") or "")
        args = call.get("args") if isinstance(call.get("args"), dict) else {}
        assert isinstance(args, dict)

        def matches(details: dict[str, Any]) -> bool:
            kind = details.get("type")
            if name == _compat.SHELL_TOOL:
                return kind == _compat.SHELL_CONFIRM and details.get("command") == args.get(
                    "command"
                )
            if name in _compat.EDIT_TOOLS:
                return kind == _compat.EDIT_CONFIRM and details.get("filePath") == args.get(
                    "file_path"
                )
            if kind == _compat.MCP_CONFIRM:
                server, tool = details.get("serverName"), details.get("toolName")
                return name in (f"{_compat.MCP_PREFIX}{server}_{tool}", tool)
            if kind == _compat.INFO_CONFIRM:
                return details.get("prompt") == args.get("prompt")
            return False

        if self._turn_signals is None:
            return None
        ended = str(call.get("timestamp") or "9999")
        session = str(self._facts.get("session_id") or self.ref.transcript_id)
        found = [
            r
            for r in confirmations(self._turn_signals(), session)
            if matches(r["details"]) and since <= str(r.get("timestamp") or "") <= ended
        ]
        return found[-1] if found else None

    def _map(
        self, record: dict[str, Any], position_prompt: str = "", position: int = -1
    ) -> list[Message]:
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
                if isinstance(agent_id, str) and agent_id and not self._subagent:
                    self._linked[agent_id] = position
                    agents += self._agents.nested(agent_id, str(call.get("id") or ""))
                confirm = self._confirmation(call, position_prompt)
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
