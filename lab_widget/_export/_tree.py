"""What every export format shares: the conversation as a tree, and its facts in words."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..schema import Attachment, Chat, Dialog, Message, SessionSummary, ToolCall, Usage

__all__ = [
    "MAX_OUTPUT_CHARS",
    "Node",
    "QuestionView",
    "attachment_name",
    "command_line",
    "conversation_heading",
    "cut",
    "dialog_outcome",
    "dialog_questions",
    "dialog_title",
    "message_line",
    "model_rows",
    "money",
    "plain_output",
    "role_label",
    "summary_rows",
    "thinking_hidden",
    "tool_input",
    "tool_status",
    "tool_summary",
    "tool_title",
    "tree",
    "usage_text",
]

MAX_OUTPUT_CHARS = 20_000
"""A tool call's input or output is cut after this many characters (``None``: never)."""

_SHOWN_INPUT = ("command", "file_path", "notebook_path", "pattern", "path", "url", "query")


@dataclass
class Node:
    """A message and the messages of the sub-agent it started, in order."""

    message: Message
    children: list[Node] = field(default_factory=list)


def tree(messages: Sequence[Message]) -> list[Node]:
    """The conversation's top level, each sub-agent's messages under the call that started it.

    A message whose call is not in the conversation stays where it is. A call's result that
    its sub-agent says as a reply of its own is shown there only, as the chat shows it (the
    call keeps no output).

    Examples
    --------
    >>> from lab_widget.schema import Message, ToolCall
    >>> call = ToolCall(id="t", name="Task", status="ok", output="sub")
    >>> ms = [Message(seq=0, kind="tool", role="assistant", tool=call),
    ...       Message(seq=1, kind="text", role="assistant", text="sub", parent_tool_id="t"),
    ...       Message(seq=2, kind="text", role="assistant", text="done")]
    >>> nodes = tree(ms)
    >>> [(n.message.seq, [c.message.seq for c in n.children]) for n in nodes]
    [(0, [1]), (2, [])]
    >>> nodes[0].message.tool.output is None
    True
    """
    calls = {m.tool.id for m in messages if m.tool is not None}
    nodes = {m.seq: Node(m) for m in messages}
    by_call: dict[str, list[Node]] = {}
    top: list[Node] = []
    for m in messages:
        parent = m.parent_tool_id
        if parent is not None and parent in calls and not (m.tool and m.tool.id == parent):
            by_call.setdefault(parent, []).append(nodes[m.seq])
        else:
            top.append(nodes[m.seq])
    placed: set[str] = set()
    for m in messages:
        tool_id = m.tool.id if m.tool is not None else None
        if tool_id in by_call and tool_id not in placed:
            placed.add(tool_id)  # a malformed chain must not nest one thread twice
            node = nodes[m.seq]
            node.children = by_call[tool_id]
            if _report_said(node):
                assert node.message.tool is not None
                tool = node.message.tool.model_copy(update={"output": None})
                node.message = node.message.model_copy(update={"tool": tool})
    return top


def _report_said(node: Node) -> bool:
    """Whether the call's result is a reply its sub-agent's thread already shows."""
    tool = node.message.tool
    report = (tool.output or "").strip() if tool is not None else ""
    return bool(report) and any(
        c.message.role == "assistant"
        and c.message.kind == "text"
        and c.message.text.strip() == report
        for c in node.children
    )


def role_label(message: Message) -> str:
    """``User``, ``Assistant`` or ``System``; a sub-agent's own messages say so."""
    label = {"user": "User", "assistant": "Assistant", "system": "System"}[message.role]
    return f"Sub-agent ({label.lower()})" if message.parent_tool_id else label


SHELL_TITLE = "Shell"
"""What a shell call is called, whatever the agent named its tool (as the chat says)."""


def tool_title(tool: ToolCall) -> str:
    """One name for every agent's shell tool, the agent's own for any other."""
    return SHELL_TITLE if tool.shell else tool.name


def tool_summary(tool: ToolCall, limit: int = 160) -> str:
    """The input field that says best what a call does, on one line; a shell call's
    command line after a ``$``.
    """
    if tool.shell:
        line = "$ " + " ".join(tool.shell.split())
        return line if len(line) <= limit else line[: limit - 1] + "…"
    fields = [k for k in _SHOWN_INPUT if isinstance(tool.input.get(k), str) and tool.input[k]]
    fields += [k for k, v in tool.input.items() if isinstance(v, str) and v]
    if not fields:
        return ""
    line = " ".join(str(tool.input[fields[0]]).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


_STATUS = {"running": "running", "ok": "done", "error": "failed"}


def tool_status(tool: ToolCall) -> str:
    """How the call ended, in a word."""
    return _STATUS[tool.status]


def cut(text: str, limit: int | None) -> str:
    """``text``, cut after ``limit`` characters with a note of how much is left out."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit} more characters left out of the export)"


def tool_input(tool: ToolCall) -> str:
    """The call's input as indented JSON ("" when it has none)."""
    return json.dumps(tool.input, indent=2, ensure_ascii=False, default=str) if tool.input else ""


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def plain_output(text: str) -> str:
    """A tool's output without terminal colour codes."""
    return _ANSI.sub("", text).rstrip()


@dataclass(frozen=True)
class QuestionView:
    """One question of a dialog as exported: its options marked by what was chosen."""

    header: str
    text: str
    options: list[tuple[str, str, bool]]
    """(label, description, chosen)."""
    typed: str | None


def dialog_title(dialog: Dialog) -> str:
    """``Question``, ``Plan`` or ``Permission``, with the native tool's name."""
    kind = {"question": "Question", "plan": "Plan", "approval": "Permission"}[dialog.kind]
    return f"{kind} ({dialog.tool_name})" if dialog.tool_name else kind


def dialog_questions(dialog: Dialog) -> list[QuestionView]:
    """The dialog's questions, with the answers the agent recorded."""
    answers = dialog.answers or []
    views = []
    for i, q in enumerate(dialog.questions):
        answer = answers[i] if i < len(answers) else None
        chosen = set(answer.selected) if answer else set()
        views.append(
            QuestionView(
                header=q.header,
                text=q.text,
                options=[(o.label, o.description, o.label in chosen) for o in q.options],
                typed=answer.text if answer else None,
            )
        )
    return views


def dialog_outcome(dialog: Dialog) -> str:
    """How the dialog ended, in words."""
    if dialog.status == "pending":
        return "Not answered when the conversation was exported."
    status = {"answered": "Answered", "rejected": "Rejected", "dismissed": "Dismissed"}
    said = status[dialog.status]
    return f"{said}: {dialog.outcome}" if dialog.outcome else said


def usage_text(usage: Usage) -> str:
    """Token counts in one line.

    Examples
    --------
    >>> usage_text(Usage(input_tokens=1200, cache_write_tokens=30, cache_write_1h_tokens=20))
    '1,200 in · 0 out · 0 cache read · 30 cache write (20 for 1 hour)'
    """
    # One-hour writes cost more than five-minute ones: a reader checking the bill needs both.
    hour = f" ({usage.cache_write_1h_tokens:,} for 1 hour)" if usage.cache_write_1h_tokens else ""
    return (
        f"{usage.input_tokens:,} in · {usage.output_tokens:,} out · "
        f"{usage.cache_read_tokens:,} cache read · {usage.cache_write_tokens:,} cache write{hour}"
    )


def money(value: Decimal | float) -> str:
    """A cost in dollars, with as many digits as a small figure needs (display only: the
    exact decimal stays in the data).

    Examples
    --------
    >>> money(Decimal("0.0123456")), money(Decimal("12.346"))
    ('$0.0123', '$12.35')
    """
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def summary_rows(chat: Chat) -> list[tuple[str, str]]:
    """The facts of one conversation: model, when, size, tokens, cost, where."""
    s: SessionSummary = chat.session
    rows: list[tuple[str, str]] = []
    if s.model:
        rows.append(("Model", s.model))
    if s.model_requested and s.model_requested != s.model:
        rows.append(("Model asked for", s.model_requested))
    if s.started_at:
        rows.append(("Started", s.started_at.strftime("%Y-%m-%d %H:%M:%S %Z").strip()))
    if s.updated_at:
        rows.append(("Last change", s.updated_at.strftime("%Y-%m-%d %H:%M:%S %Z").strip()))
    rows.append(("Messages", str(len(chat.messages))))
    rows.append(("Tokens", usage_text(s.usage)))
    if s.cost_usd_estimate is not None:
        rows.append(("Estimated cost", f"{money(s.cost_usd_estimate)} (pinned prices, not a bill)"))
    if s.vendor_cost_usd is not None:
        rows.append(("Cost the agent recorded", money(s.vendor_cost_usd)))
    if s.cli_version:
        rows.append(("Agent version", s.cli_version))
    if s.cwd:
        rows.append(("Folder", s.cwd))
    if s.branch:
        rows.append(("Branch", s.branch))
    if s.transcript_id:
        rows.append(("Transcript", s.transcript_id))
    return rows


def model_rows(chat: Chat) -> list[tuple[str, str, str, str, str]]:
    """Per model and scope: requests, tokens in, tokens out, estimated cost."""
    return [
        (
            f"{m.model} ({m.scope})",
            str(m.requests),
            f"{m.usage.input_tokens + m.usage.cache_read_tokens + m.usage.cache_write_tokens:,}",
            f"{m.usage.output_tokens:,}",
            money(m.cost_usd_estimate) if m.cost_usd_estimate is not None else "unknown",
        )
        for m in chat.session.models
    ]


def command_line(message: Message) -> str:
    """A slash-command echo as typed ("/model opus")."""
    command, text = message.command or "", " ".join(message.text.split())
    if not command or text.startswith(command):
        return text or command
    return f"{command} {text}" if text else command


def conversation_heading(index: int, count: int) -> str:
    """The heading of one conversation of several ("" when there is only one)."""
    return f"Conversation {index + 1} of {count}" if count > 1 else ""


def attachment_name(message: Message, index: int, attachment: Attachment) -> str:
    """A file name for an image, unique in its message."""
    return f"image-{message.seq}-{index}.{attachment.media_type.split('/')[1]}"


def thinking_hidden(message: Message) -> bool:
    """Whether a reasoning message shows as hidden: the CLI kept it encrypted or redacted, or
    kept no words of it (reasoning is never shown as empty).

    Examples
    --------
    >>> thinking_hidden(Message(seq=0, kind="text", role="assistant", text=" ", thinking=True))
    True
    """
    return message.redacted or not message.text.strip()


def message_line(message: Message, width: int = 100) -> str:
    r"""One line that says what a message is, for a chat shown as text.

    Examples
    --------
    >>> from lab_widget.schema import Message, ToolCall
    >>> message_line(Message(seq=0, kind="text", role="user", text="fit the\nmodel"))
    'user: fit the model'
    >>> tool = ToolCall(id="t", name="Bash", input={"command": "ls"}, status="ok")
    >>> message_line(Message(seq=1, kind="tool", role="assistant", tool=tool))
    'tool Bash (done): ls'
    """
    m = message
    if m.thinking:
        line = "thinking: " + ("(hidden)" if thinking_hidden(m) else m.text)
    elif m.kind == "dialog" and m.dialog is not None:
        d = m.dialog
        asked = "; ".join(q.text for q in d.questions) or d.body or d.tool_name
        line = f"{dialog_title(d).lower()} ({d.status}): {asked}"
    elif m.kind == "tool" and m.tool is not None:
        summary = tool_summary(m.tool)
        line = f"tool {m.tool.name} ({tool_status(m.tool)})" + (f": {summary}" if summary else "")
    elif m.kind == "lifecycle":
        line = f"— {m.text}"
    else:
        line = f"{m.role}: {m.text}"
        if m.attachments:
            line += f" [{len(m.attachments)} image{'s' if len(m.attachments) > 1 else ''}]"
    flat = " ".join(line.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
