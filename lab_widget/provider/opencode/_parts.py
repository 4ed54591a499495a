"""OpenCode's stored records one at a time: a part's call, question, images and reasoning,
a step's usage, the wording of a rejection.

Pinned to OpenCode 1.18.33 (``_compat.py``); the same shapes in every recorded version.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...schema import Answer, Attachment, ToolCall, Usage
from .. import APPROVE, REJECT
from ..kit import as_dict, describe_answers
from . import _compat
from ._dialogs import plan_dialog, question_dialog, recorded_answers

__all__ = [
    "COMPACTED",
    "attachments",
    "hidden_reasoning",
    "load_json_file",
    "plan_fields",
    "question_fields",
    "rejected",
    "stamp",
    "step_usage",
    "tool_call",
]


def stamp(ms: Any) -> datetime | None:
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def step_usage(tokens: Any) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    cache = as_dict(tokens.get("cache"))

    def n(value: Any) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return Usage(
        input_tokens=n(tokens.get("input")),
        output_tokens=n(tokens.get("output")) + n(tokens.get("reasoning")),
        reasoning_tokens=n(tokens.get("reasoning")),
        cache_read_tokens=n(cache.get("read")),
        cache_write_tokens=n(cache.get("write")),
    )


def question_fields(state: dict[str, Any], tool: ToolCall) -> dict[str, Any]:
    """A question tool's part as a dialog, once its questions are known."""
    dialog = question_dialog(state.get("input"), tool.id)
    if not dialog.questions:
        return {}
    if tool.status == "ok":
        answers = recorded_answers(dialog, state.get("metadata"))
        outcome = describe_answers(dialog, answers or [])
        dialog = dialog.model_copy(
            update={"status": "answered", "answers": answers, "outcome": outcome}
        )
    elif tool.status == "error":
        dialog = dialog.model_copy(update={"status": "dismissed", "outcome": "dismissed"})
    return {"kind": "dialog", "dialog": dialog}


def plan_fields(tool: ToolCall) -> dict[str, Any]:
    """``plan_exit``'s part as a plan dialog: pending while it asks, then how it ended."""
    dialog = plan_dialog(tool.id)
    if tool.status == "ok":
        dialog = dialog.model_copy(
            update={
                "status": "answered",
                "answers": [Answer(selected=[APPROVE])],
                "outcome": "approved",
            }
        )
    elif tool.status == "error":
        dialog = dialog.model_copy(
            update={
                "status": "rejected",
                "answers": [Answer(selected=[REJECT])],
                "outcome": "rejected",
            }
        )
    return {"kind": "dialog", "dialog": dialog}


def tool_call(part: dict[str, Any]) -> ToolCall:
    state = as_dict(part.get("state"))
    raw_input = state.get("input")
    status = state.get("status")
    output: str | None = None
    result = "running"
    if status == "completed":
        output = str(state.get("output") or "")
        metadata = as_dict(state.get("metadata"))
        code = metadata.get("exit")
        result = "error" if isinstance(code, int) and code != 0 else "ok"
    elif status == "error":
        output = str(state.get("error") or "error")
        result = "error"
        if rejected(output):
            output = f"{output} (rejected)"
    metadata = as_dict(state.get("metadata"))
    agent = metadata.get(_compat.SUBAGENT_KEY)
    running = metadata.get(_compat.PROGRESS_KEY) if status == "running" else None
    return ToolCall(
        id=str(part.get("callID") or part.get("id")),
        name=str(part.get("tool") or "tool"),
        input=raw_input if isinstance(raw_input, dict) else {},
        shell=_compat.SHELL_TOOLS.line(
            str(part.get("tool")), raw_input if isinstance(raw_input, dict) else {}
        ),
        status=result,
        output=output,
        agent_id=agent if isinstance(agent, str) and agent else None,
        progress=running if isinstance(running, str) and running else None,
    )


COMPACTED = "Conversation compacted"


def attachments(files: Any) -> list[Attachment]:
    """The images among file parts (``{type: "file", mime, url: "data:<mime>;base64,..."}``);
    a file the part only names by path or URL is never fetched.

    Examples
    --------
    >>> url = "data:image/png;base64,iVBORw0KGgo="
    >>> [a.media_type for a in attachments([{"mime": "image/png", "url": url}])]
    ['image/png']
    >>> attachments([{"mime": "image/png", "url": "file:///tmp/x.png"}])
    []
    """
    found: list[Attachment] = []
    for item in files if isinstance(files, list) else []:
        url = as_dict(item).get("url")
        if not isinstance(url, str) or not url.startswith("data:"):
            continue
        head, _, data = url[len("data:") :].partition(",")
        media, _, encoding = head.partition(";")
        if encoding != "base64":
            continue
        name = as_dict(item).get("filename")
        made = Attachment.from_base64(
            as_dict(item).get("mime") or media, data, name if isinstance(name, str) else ""
        )
        if made is not None:
            found.append(made)
    return found


def hidden_reasoning(metadata: Any) -> bool:
    """Whether a reasoning part's provider metadata says the reasoning was kept only
    encrypted or redacted (``anthropic.redactedData``, ``openai.reasoningEncryptedContent``).

    Examples
    --------
    >>> hidden_reasoning({"anthropic": {"redactedData": "Zm9v"}})
    True
    >>> hidden_reasoning({"anthropic": {"signature": "c2ln"}})
    False
    """
    for provider in as_dict(metadata).values():
        for key in _compat.HIDDEN_REASONING_KEYS:
            if as_dict(provider).get(key):
                return True
    return False


def rejected(error: str) -> bool:
    return any(marker in error for marker in _compat.REJECTED_ERRORS)


def load_json_file(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
