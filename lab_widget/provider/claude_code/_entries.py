"""The grammar of Claude Code's transcript entries: the tags, wrappers and blocks inside them.

Pinned to Claude Code 2.1.332 (see ``_compat.py``) and read leniently for older versions:
fixtures of each recorded version live in ``tests/fixtures/claude-code/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...schema import Attachment
from ..kit import iso_time

__all__ = [
    "ANSI",
    "BASH_INPUT",
    "BASH_OUTPUT",
    "COMMAND_ARGS",
    "COMMAND_NAME",
    "INTERRUPTED",
    "STDOUT",
    "TOOL_ERROR",
    "TaskNotification",
    "attachments",
    "block_text",
    "is_reminder",
    "prompt_text",
    "task_notification",
    "timestamp",
    "unused_line",
    "unwrap_pastes",
]

COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
STDOUT = re.compile(r"<local-command-(stdout|stderr)>(.*?)</local-command-\1>", re.S)
BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
BASH_OUTPUT = re.compile(r"<bash-(stdout|stderr)>(.*?)</bash-\1>", re.S)
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
INTERRUPTED = "[Request interrupted by user"
TOOL_ERROR = re.compile(r"</?tool_use_error>")
# 2.1.332 records a multi-line paste wrapped in a tag pair that repeats the paste id.
_PASTED = re.compile(
    r'(?:\A\n\n)?<pasted_content id="([^"]*)">\n(.*?)\n?</pasted_content id="\1">\n?', re.S
)
_REMINDER = re.compile(r"\A\s*(?:<system-reminder>.*?</system-reminder>\s*)+\Z", re.S)
_NOTIFICATION = "<task-notification>"


def unwrap_pastes(text: str) -> str:
    r"""The prompt as the user wrote it, without the TUI's paste wrappers.

    Examples
    --------
    >>> unwrap_pastes('\n\n<pasted_content id="a1">\nx\ny\n</pasted_content id="a1">\n')
    'x\ny'
    >>> unwrap_pastes("plain")
    'plain'
    """
    return _PASTED.sub(lambda m: m.group(2), text)


def is_reminder(text: str) -> bool:
    r"""Whether a user text is only the CLI's own ``<system-reminder>`` blocks.

    Examples
    --------
    >>> is_reminder("<system-reminder>\nUse SubagentHandback.\n</system-reminder>")
    True
    >>> is_reminder("count the files")
    False
    """
    return _REMINDER.match(text) is not None


def timestamp(entry: dict[str, Any]) -> datetime | None:
    """The entry's ISO timestamp, if it has a readable one."""
    return iso_time(entry.get("timestamp"))


def block_text(content: Any) -> str:
    """The text of a message's content: a string, or its ``text`` blocks joined."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
    return "\n".join(parts)


def attachments(content: Any) -> list[Attachment]:
    """The images among a message's (or a tool result's) content blocks.

    Examples
    --------
    >>> blocks = [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
    ...            "data": "iVBORw0KGgo="}}, {"type": "text", "text": "see"}]
    >>> [a.media_type for a in attachments(blocks)]
    ['image/png']
    """
    found: list[Attachment] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            found += attachments(block.get("content"))
            continue
        source = block.get("source")
        if block.get("type") != "image" or not isinstance(source, dict):
            continue
        if source.get("type") == "base64":
            image = Attachment.from_base64(source.get("media_type"), source.get("data"))
            if image is not None:
                found.append(image)
    return found


def prompt_text(entry: dict[str, Any]) -> str | None:
    """What the user typed in a ``user`` entry, or ``None`` for echoes and bookkeeping."""
    if entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = block_text(content).strip()
    if not text or text.startswith((INTERRUPTED, _NOTIFICATION)) or is_reminder(text):
        return None
    if COMMAND_NAME.search(text) or STDOUT.search(text) or BASH_INPUT.search(text):
        return None
    if BASH_OUTPUT.search(text):
        return None
    return unwrap_pastes(text).strip() or None


@dataclass(frozen=True)
class TaskNotification:
    """A background task (a sub-agent) telling the main thread it stopped."""

    tool_use_id: str | None
    status: str
    summary: str
    result: str


def _tag(name: str, text: str) -> str:
    match = re.search(rf"<{name}>(.*?)</{name}>", text, re.S)
    return match.group(1).strip() if match else ""


def task_notification(entry: dict[str, Any], text: str) -> TaskNotification | None:
    r"""The notification a ``user`` entry carries, if it is one.

    2.1.332 marks it ``origin.kind: "task-notification"``; the text is tagged either way.

    Examples
    --------
    >>> text = ("<task-notification>\n<tool-use-id>t1</tool-use-id>\n<status>completed"
    ...         "</status>\n<summary>Agent finished</summary>\n<result>3 files</result>")
    >>> n = task_notification({}, text)
    >>> n.tool_use_id, n.status, n.summary, n.result
    ('t1', 'completed', 'Agent finished', '3 files')
    """
    origin = entry.get("origin")
    marked = isinstance(origin, dict) and origin.get("kind") == "task-notification"
    if not marked and not text.lstrip().startswith(_NOTIFICATION):
        return None
    return TaskNotification(
        tool_use_id=_tag("tool-use-id", text) or None,
        status=_tag("status", text) or "completed",
        summary=_tag("summary", text) or "A background task finished",
        result=_tag("result", text),
    )


_UNUSED_TYPES = (
    b"api-request-shape",
    b"api-request-blob",
    b"file-history-snapshot",
    b"mode",
    b"permission-mode",
    b"atis-latch",
    b"last-prompt",
    b"tools-used",
    b"queue-operation",
)
# An attachment entry (context the CLI adds to a request: environment, skills, prompt
# snapshots; half of a 2.1.332 file's bytes) starts with its chain keys, then its payload.
# One pattern for both shapes: a line is looked at once.
_UNUSED = re.compile(
    rb'\{(?:"type":"(?:' + b"|".join(re.escape(kind) for kind in _UNUSED_TYPES) + rb')"'
    rb'|"parentUuid":(?:null|"[0-9a-f-]*"),"isSidechain":(?:true|false),"attachment":\{)'
)


def unused_line(raw: bytes) -> bool:
    """Whether a transcript line is an entry the reader never uses, told from its first
    bytes without parsing it (2.1.332 writes these types as the line's first key, and
    attachments with their payload as the third).

    Examples
    --------
    >>> unused_line(b'{"type":"api-request-shape","shape":{}}')
    True
    >>> unused_line(b'{"parentUuid":null,"isSidechain":false,"attachment":{"type":"date"}}')
    True
    >>> unused_line(b'{"type":"api-request","params":{}}'), unused_line(b'{"type":"user"}')
    (False, False)
    """
    return _UNUSED.match(raw) is not None
