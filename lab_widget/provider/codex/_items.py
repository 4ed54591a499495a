"""The pieces of a rollout line's payload: message content, token counts, tool outputs.

Pure functions over JSON values, shared by the reader and the file helpers; the version
differences they absorb are listed in ``docs/compat/codex.md``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...schema import Attachment, Usage
from . import _compat

__all__ = [
    "Counts",
    "arguments",
    "counts",
    "data_url",
    "message_content",
    "reasoning_text",
    "spawned_agent",
    "tool_output",
]

_EXIT_CODE = re.compile(_compat.EXIT_CODE, re.MULTILINE)
_EXEC_HEADER = re.compile(_compat.EXEC_HEADER)
_IMAGE_WRAPPER = re.compile(_compat.IMAGE_WRAPPER)
_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)(?:;[^,;]*)*;base64,(.*)", re.DOTALL)


def data_url(value: Any) -> Attachment | None:
    """An image attachment from a ``data:`` URL (the only images a rollout carries inline).

    Examples
    --------
    >>> data_url("data:image/png;base64,iVBORw0KGgo=").media_type
    'image/png'
    >>> data_url("https://example.com/a.png") is None
    True
    """
    if isinstance(value, dict):
        value = value.get("url")
    if not isinstance(value, str):
        return None
    match = _DATA_URL.fullmatch(value.strip())
    return Attachment.from_base64(match.group(1), match.group(2)) if match else None


def message_content(content: Any) -> tuple[str, list[Attachment]]:
    """The text of a message's content parts, and the images among them.

    Codex frames an attached image with ``<image name=... path=...>`` / ``</image>`` text
    parts around the ``input_image``: those frames are left out of the text.

    Examples
    --------
    >>> message_content([{"type": "input_text", "text": "hi"}])
    ('hi', [])
    >>> text, images = message_content([
    ...     {"type": "input_text", "text": '<image name=[Image #1] path="/w/a.png">'},
    ...     {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
    ...     {"type": "input_text", "text": "</image>"},
    ...     {"type": "input_text", "text": "what is it?"}])
    >>> text, [a.media_type for a in images]
    ('what is it?', ['image/png'])
    """
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        return "", []
    texts: list[str] = []
    images: list[Attachment] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            text = str(part.get("text", ""))
            if not _IMAGE_WRAPPER.fullmatch(text.strip()):
                texts.append(text)
        elif kind in ("input_image", "image"):
            image = data_url(part.get("image_url"))
            if image is not None:
                images.append(image)
    return "\n".join(texts), images


def reasoning_text(payload: dict[str, Any]) -> str:
    """A ``reasoning`` item's readable text: its summary, else its raw reasoning content.

    Examples
    --------
    >>> reasoning_text({"summary": [{"type": "summary_text", "text": "Plan."}]})
    'Plan.'
    >>> reasoning_text({"summary": [], "encrypted_content": "gAAA"})
    ''
    """
    parts: list[str] = []
    for key in ("summary", "content"):
        value = payload.get(key)
        for part in value if isinstance(value, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
                parts.append(part["text"])
        if parts:
            break
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Counts:
    """Token counts as Codex reports them: ``input`` includes ``cached``."""

    input: int = 0
    cached: int = 0
    output: int = 0
    cache_write: int = 0
    reasoning: int = 0
    """Of ``output``, the reasoning tokens (``reasoning_output_tokens``)."""

    def advanced_from(self, earlier: Counts) -> bool:
        """Whether every count is at least ``earlier``'s and one is larger."""
        pairs = list(zip(self._values(), earlier._values(), strict=True))
        return all(a >= b for a, b in pairs) and any(a > b for a, b in pairs)

    def minus(self, earlier: Counts) -> Counts:
        return Counts(*(a - b for a, b in zip(self._values(), earlier._values(), strict=True)))

    def _values(self) -> tuple[int, int, int, int, int]:
        return (self.input, self.cached, self.output, self.cache_write, self.reasoning)

    @property
    def empty(self) -> bool:
        return not any(self._values())

    def usage(self) -> Usage:
        """The schema's usage: cached tokens apart from (not inside) the input."""
        return Usage(
            input_tokens=max(0, self.input - self.cached),
            output_tokens=self.output,
            cache_read_tokens=self.cached,
            cache_write_tokens=self.cache_write,
            reasoning_tokens=self.reasoning,
        )


def _count(raw: dict[str, Any], *keys: str) -> int:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return max(0, value)
    return 0


def counts(raw: Any) -> Counts | None:
    """A ``token_count`` usage object (``total_token_usage`` / ``last_token_usage``).

    Examples
    --------
    >>> c = counts({"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 3})
    >>> c.usage().input_tokens, c.usage().cache_read_tokens
    (6, 4)
    """
    if not isinstance(raw, dict):
        return None
    return Counts(
        input=_count(raw, "input_tokens"),
        cached=_count(raw, "cached_input_tokens", "cache_read_input_tokens"),
        output=_count(raw, "output_tokens"),
        cache_write=_count(raw, "cache_write_input_tokens", "cache_creation_input_tokens"),
        reasoning=_count(raw, "reasoning_output_tokens"),
    )


def arguments(raw: Any) -> dict[str, object]:
    """A call's arguments: Codex stores them as a JSON string."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": raw}


def tool_output(raw: Any) -> tuple[str, bool, list[Attachment]]:
    r"""A call's output as ``(text, failed, images)``.

    Shapes seen: a string (``exec_command`` ends its header with ``Process exited with
    code N``); a list of content parts (``view_image`` returns an ``input_image``); a JSON
    string ``{"output": ..., "metadata": {"exit_code": N}}`` (older shell tools).

    Examples
    --------
    >>> tool_output("Chunk ID: d4\nWall time: 0.1 seconds\nProcess exited with code 1\n"
    ...             "Original token count: 3\nOutput:\nno such file\n")[:2]
    ('no such file\n', True)
    >>> tool_output('{"output": "hi\\n", "metadata": {"exit_code": 0}}')[:2]
    ('hi\n', False)
    """
    images: list[Attachment] = []
    exit_code: int | None = None
    if isinstance(raw, list):
        text, images = message_content(raw)
    elif isinstance(raw, dict):
        text = str(raw.get("content") or raw.get("output") or json.dumps(raw))
    elif isinstance(raw, str):
        text = raw
        if raw.startswith("{"):
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
            metadata = value.get("metadata") if isinstance(value, dict) else None
            if isinstance(value, dict) and isinstance(value.get("output"), str):
                text = value["output"]
                if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
                    exit_code = metadata["exit_code"]
    else:
        text = "" if raw is None else str(raw)
    if exit_code is None:
        match = _EXIT_CODE.search(text)
        exit_code = int(match.group(1)) if match else None
    if exit_code is not None:
        failed = exit_code != 0
    else:
        failed = text.lstrip().lower().startswith(_compat.FAILED_OUTPUT_PREFIXES)
    return _EXEC_HEADER.sub("", text, count=1), failed, images


def spawned_agent(output: str) -> tuple[str, str | None] | None:
    """``(thread id, nickname)`` from a ``spawn_agent`` call's output, if it started one.

    Examples
    --------
    >>> spawned_agent('{"agent_id":"019a-1","nickname":"Ohm"}')
    ('019a-1', 'Ohm')
    >>> spawned_agent("unsupported call: spawn_agent") is None
    True
    """
    try:
        value = json.loads(output)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("agent_id"), str):
        return None
    nickname = value.get("nickname")
    return value["agent_id"], nickname if isinstance(nickname, str) else None
