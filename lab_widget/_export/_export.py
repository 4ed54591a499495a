r"""Conversations exported as a record to keep beside a notebook: ``.ipynb``, Markdown, HTML.

Everything a transcript holds goes in: prompts, answers (their Python code blocks as code cells
of a notebook), tool calls with their input and result, dialogs with their answers, the model's
reasoning (collapsed), sub-agents' work nested under the call that started them, images, and
the tokens and estimated cost of each conversation.

What the agent wrote is data, never markup: its raw HTML is escaped and its images become
links (an image loads the moment it is shown, and a remote one can carry data out in its URL);
the images a transcript carries go inline. The HTML export is one self-contained page that
runs no script (``_export_html.py``).

Examples
--------
>>> from lab_widget.schema import Chat, Message, SessionSummary
>>> chat = Chat(messages=[Message(seq=0, kind="text", role="user", text="hi <b>")],
...             state="idle", session=SessionSummary())
>>> print(markdown([chat], title="Demo").split("\n---\n")[-1].strip())
**User**
<BLANKLINE>
hi &lt;b>
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ExportFormatError
from ..schema import Attachment, Chat, Dialog, Message, ToolCall
from ._html import html_document
from ._tree import (
    MAX_OUTPUT_CHARS,
    Node,
    attachment_name,
    command_line,
    conversation_heading,
    cut,
    dialog_outcome,
    dialog_questions,
    dialog_title,
    model_rows,
    plain_output,
    role_label,
    summary_rows,
    thinking_hidden,
    tool_input,
    tool_status,
    tool_summary,
    tool_title,
    tree,
)

__all__ = [
    "FORMATS",
    "MAX_OUTPUT_CHARS",
    "ExportFormat",
    "export",
    "markdown",
    "notebook",
]

ExportFormat = Literal["ipynb", "markdown", "html"]

FORMATS: dict[str, ExportFormat] = {
    ".ipynb": "ipynb",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
}
"""File suffixes and the format each one is written in."""

_VERSION = "0.1.0"  # lab_widget's, without importing the package that imports this module
_PYTHON = frozenset({"python", "py", "python3", "ipython", "ipython3"})


# -- Markdown (a Markdown file, and the cells of a notebook) --------------------------------

_CODE = re.compile(r"(`{3,}|~{3,})[^\n]*\n.*?(?:\n\1[ \t]*(?=\n|\Z)|\Z)|`+[^`\n]*`+", re.DOTALL)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?[^)\n]*\)")


def neutral(text: str) -> str:
    """Agent-written Markdown that stays Markdown but no longer carries HTML or images.

    Examples
    --------
    >>> neutral("a <img src=x onerror=y> `<kept>` ![pic](https://x.org/p.png)")
    'a &lt;img src=x onerror=y> `<kept>` [image: pic](https://x.org/p.png)'
    """
    out, at = [], 0
    for code in _CODE.finditer(text):
        out.append(_neutral_prose(text[at : code.start()]))
        out.append(code.group(0))
        at = code.end()
    out.append(_neutral_prose(text[at:]))
    return "".join(out)


def _neutral_prose(text: str) -> str:
    def image(match: re.Match[str]) -> str:
        label = match.group(1) or "image"
        href = match.group(2)
        return f"[image: {label}]({href})" if re.match(r"https?:", href) else f"[image: {label}]"

    # Raw HTML shows as written, the way the chat shows it; "$" is not maths there either.
    return _IMAGE.sub(image, text.replace("<", "&lt;").replace("$", "\\$"))


def fence(text: str, lang: str = "") -> str:
    """``text`` in a fenced block whose fence no line of it can close."""
    runs = [len(r) for r in re.findall(r"`{3,}", text)]
    ticks = "`" * max(3, *(n + 1 for n in runs)) if runs else "```"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def details(summary: str, body: str) -> str:
    """A collapsed section (JupyterLab and most Markdown viewers render ``<details>``)."""
    return f"<details><summary>{_html(summary)}</summary>\n\n{body}\n\n</details>"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape(text: str) -> str:
    """Text as Markdown shows it literally: no markup, and no ``$`` read as maths (notebooks
    render ``$...$`` with MathJax).
    """
    return _html(text).replace("$", "\\$")


def _quote(text: str, depth: int) -> str:
    if depth == 0:
        return text
    prefix = "> " * depth
    return "\n".join((prefix + line).rstrip() for line in text.split("\n"))


@dataclass
class Cell:
    """One cell of the exported notebook (a Markdown file joins them)."""

    kind: Literal["markdown", "code"]
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)
    attachments: dict[str, Attachment] = field(default_factory=dict)


_PY_BLOCK = re.compile(r"^(`{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)\n\1[ \t]*$", re.DOTALL | re.MULTILINE)


def split_code(text: str) -> list[tuple[Literal["markdown", "code"], str]]:
    r"""An answer's Markdown, its Python code blocks apart (each becomes a code cell).

    Examples
    --------
    >>> split_code("Run this:\n```python\nprint(1)\n```\nDone.")
    [('markdown', 'Run this:'), ('code', 'print(1)'), ('markdown', 'Done.')]
    """
    parts: list[tuple[Literal["markdown", "code"], str]] = []
    at = 0
    for block in _PY_BLOCK.finditer(text):
        if block.group(2).lower() not in _PYTHON:
            continue
        before = text[at : block.start()].strip()
        if before:
            parts.append(("markdown", before))
        parts.append(("code", block.group(3)))
        at = block.end()
    rest = text[at:].strip()
    if rest or not parts:
        parts.append(("markdown", rest))
    return parts


def _message_meta(message: Message, conversation: int) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "conversation": conversation,
        "seq": message.seq,
        "kind": message.kind,
        "role": message.role,
    }
    for key in ("native_id", "model", "parent_tool_id", "command", "level"):
        value = getattr(message, key)
        if value is not None:
            meta[key] = value
    if message.timestamp is not None:
        meta["timestamp"] = message.timestamp.isoformat()
    if message.usage is not None:
        meta["usage"] = message.usage.model_dump()
    if message.tool is not None:
        meta["tool"] = {"id": message.tool.id, "name": message.tool.name}
        meta["tool"]["status"] = message.tool.status
    if message.thinking:
        meta["thinking"] = True
    return {"lab_widget": meta}


def _label(message: Message) -> str:
    parts = [f"**{role_label(message)}**"]
    if message.model and message.role == "assistant":
        parts.append(message.model)
    return " · ".join(parts)


def _tool_markdown(tool: ToolCall, limit: int | None) -> str:
    summary = tool_summary(tool)
    head = f"**Tool** `{tool_title(tool)}` · {tool_status(tool)}"
    if summary:
        head += f" · {_escape(summary)}"
    if tool.shell:
        head += f" · `{tool.name}`"
    pieces = [head]
    if tool.shell and summary != f"$ {tool.shell}":  # the summary holds only a short one
        pieces.append(details("Command", fence(cut(tool.shell, limit), "sh")))
    given = tool_input(tool) if not tool.shell or len(tool.input) > 1 else ""
    if given:
        pieces.append(details("Input", fence(cut(given, limit), "json")))
    if tool.output is not None:
        output = plain_output(tool.output)
        label = "Error" if tool.status == "error" else "Output"
        pieces.append(details(label, fence(cut(output, limit), "text") if output else "(empty)"))
    elif tool.progress:
        pieces.append(details("Output so far", fence(cut(plain_output(tool.progress), limit))))
    if tool.agent_id:
        pieces.append(f"Runs the sub-agent `{tool.agent_id}`; its messages follow.")
    return "\n\n".join(pieces)


def _dialog_markdown(dialog: Dialog) -> str:
    pieces = [f"**{dialog_title(dialog)}**"]
    if dialog.body.strip():
        label = "The plan" if dialog.kind == "plan" else "Details"
        pieces.append(details(label, neutral(dialog.body)))
    for q in dialog_questions(dialog):
        lines = [
            f"- **{_escape(q.header)}** {_escape(q.text)}" if q.header else f"- {_escape(q.text)}"
        ]
        for label, description, chosen in q.options:
            said = f" — {_escape(description)}" if description else ""
            lines.append(f"  - {'☑' if chosen else '☐'} {_escape(label)}{said}")
        if q.typed:
            lines.append(f"  - typed: {_escape(q.typed)}")
        pieces.append("\n".join(lines))
    pieces.append(f"*{_escape(dialog_outcome(dialog))}*")
    return "\n\n".join(pieces)


def _images(message: Message) -> tuple[str, dict[str, Attachment]]:
    named: dict[str, Attachment] = {}
    lines = []
    for i, a in enumerate(message.attachments):
        name = attachment_name(message, i, a)
        if a.data:
            named[name] = a
            lines.append(f"![{_escape(a.name or name)}](attachment:{name})")
        else:
            lines.append(f"*{_escape(a.name or name)}: {_escape(a.omitted or 'not kept')}*")
    return "\n\n".join(lines), named


def message_cells(message: Message, conversation: int, depth: int, limit: int | None) -> list[Cell]:
    """The cells one message becomes (a Python block of an answer is a code cell of its own)."""
    meta = _message_meta(message, conversation)
    images, attachments = _images(message)
    body: str
    if message.thinking:
        body = (
            "*Thinking (hidden by the agent)*"
            if thinking_hidden(message)
            else details("Thinking", neutral(message.text))
        )
    elif message.kind == "dialog" and message.dialog is not None:
        body = _dialog_markdown(message.dialog)
        if message.tool is not None:
            body += "\n\n" + _tool_markdown(message.tool, limit)
    elif message.kind == "tool" and message.tool is not None:
        body = _tool_markdown(message.tool, limit)
    elif message.kind == "lifecycle":
        body = f"*{_escape(message.text)}*"
        if message.detail.strip():
            body += "\n\n" + details("Details", neutral(message.detail))
    elif message.command:
        body = f"{_label(message)} ran `{command_line(message)}`"
    elif message.role == "assistant" and depth == 0:
        cells = []
        for i, (kind, source) in enumerate(split_code(message.text)):
            if kind == "code":
                cells.append(Cell("code", source, meta))
            else:
                head = f"{_label(message)}\n\n" if i == 0 else ""
                cells.append(Cell("markdown", f"{head}{neutral(source)}".rstrip(), meta))
        if images:
            cells.append(Cell("markdown", images, meta, attachments))
        return cells
    else:
        body = f"{_label(message)}\n\n{neutral(message.text)}".rstrip()
    if images:
        body += "\n\n" + images
    return [Cell("markdown", _quote(body, depth), meta, attachments)]


def _walk(nodes: Sequence[Node], depth: int = 0) -> Iterator[tuple[Message, int]]:
    for node in nodes:
        yield node.message, depth
        yield from _walk(node.children, depth + 1)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(_escape(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join(
        [row(header), "| " + " | ".join("---" for _ in header) + " |", *map(row, rows)]
    )


def _summary_markdown(chat: Chat) -> str:
    text = "\n".join(f"- **{label}**: {_escape(value)}" for label, value in summary_rows(chat))
    models = model_rows(chat)
    if models:
        header = ("Model", "Requests", "Tokens in", "Tokens out", "Estimated cost")
        text += "\n\n" + _table(header, models)
    return text


def cells(chats: Sequence[Chat], title: str, limit: int | None = MAX_OUTPUT_CHARS) -> list[Cell]:
    """Every conversation as cells: a summary, then each message in order."""
    out = [Cell("markdown", f"# {_escape(title)}\n\nExported by lab_widget {_VERSION}.")]
    for index, chat in enumerate(chats):
        heading = conversation_heading(index, len(chats))
        summary = _summary_markdown(chat)
        out.append(Cell("markdown", f"## {heading}\n\n{summary}" if heading else summary))
        for message, depth in _walk(tree(chat.messages)):
            out.extend(message_cells(message, index, depth, limit))
    return out


def markdown(
    chats: Sequence[Chat], title: str = "Agent conversation", limit: int | None = MAX_OUTPUT_CHARS
) -> str:
    """The conversations as one Markdown document; images inline as data URLs."""
    pieces = []
    for cell in cells(chats, title, limit):
        source = cell.source
        for name, a in cell.attachments.items():
            source = source.replace(
                f"(attachment:{name})", f"(data:{a.media_type};base64,{a.data})"
            )
        pieces.append(fence(source, "python") if cell.kind == "code" else source)
    return "\n\n---\n\n".join(pieces) + "\n"


def notebook(
    chats: Sequence[Chat], title: str = "Agent conversation", limit: int | None = MAX_OUTPUT_CHARS
) -> dict[str, Any]:
    """The conversations as an nbformat 4.5 notebook (a JSON-ready dict)."""
    cell_list = []
    for i, cell in enumerate(cells(chats, title, limit)):
        entry: dict[str, Any] = {
            "cell_type": cell.kind,
            "id": f"lw-{i:05d}",
            "metadata": cell.metadata,
            "source": cell.source,
        }
        if cell.kind == "code":
            entry["execution_count"] = None
            entry["outputs"] = []
        elif cell.attachments:
            entry["attachments"] = {
                name: {a.media_type: a.data} for name, a in cell.attachments.items()
            }
        cell_list.append(entry)
    return {
        "cells": cell_list,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "lab_widget": {
                "title": title,
                "transcripts": [c.session.transcript_id for c in chats],
                "exported_by": f"lab_widget {_VERSION}",
            },
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


# -- the entry point --------------------------------------------------------------------


def format_of(path: Path, format: str | None = None) -> ExportFormat:
    """The format to write ``path`` in: ``format`` if given, else by the file's suffix."""
    if format is not None:
        if format not in ("ipynb", "markdown", "html"):
            raise ExportFormatError(
                f"unknown export format {format!r}; use 'ipynb', 'markdown' or 'html'"
            )
        return format  # type: ignore[return-value]
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        known = ", ".join(FORMATS)
        raise ExportFormatError(
            f"cannot tell the export format of {path.name!r}: name the file with one of "
            f"{known}, or pass format='ipynb', 'markdown' or 'html'"
        )
    return found


def export(
    chats: Sequence[Chat],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    format: str | None = None,
    max_output_chars: int | None = MAX_OUTPUT_CHARS,
) -> Path:
    """Write ``chats`` (one conversation, or several in order) to ``path``; returns the path.

    The format follows the suffix (``.ipynb``, ``.md``, ``.html``) unless ``format`` names it.
    """
    target = Path(path).expanduser()
    kind = format_of(target, format)
    name = title or "Agent conversation"
    if kind == "ipynb":
        text = json.dumps(notebook(chats, name, max_output_chars), indent=1, ensure_ascii=False)
    elif kind == "markdown":
        text = markdown(chats, name, max_output_chars)
    else:
        text = html_document(chats, name, max_output_chars)
    target.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")
    return target
