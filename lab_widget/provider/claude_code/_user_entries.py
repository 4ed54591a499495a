"""The user side of a Claude Code transcript: prompts, command and shell echoes, tool
results (a dialog's outcome among them), interrupts, and the notes a background sub-agent
sends back (its report, its task notification).
"""

from __future__ import annotations

from typing import Any

from ...schema import LifecycleLevel, ToolCall
from ._dialogs import outcome_for_result
from ._entries import (
    ANSI,
    BASH_INPUT,
    BASH_OUTPUT,
    COMMAND_ARGS,
    COMMAND_NAME,
    INTERRUPTED,
    STDOUT,
    TOOL_ERROR,
    TaskNotification,
    attachments,
    block_text,
    is_reminder,
    task_notification,
    timestamp,
    unwrap_pastes,
)
from ._session import SessionState

__all__ = ["echo", "user_entry"]


def echo(session: SessionState, text: str, entry: dict[str, Any]) -> bool:
    """Map command and ``!`` shell echoes; True if ``text`` was one."""
    name = COMMAND_NAME.search(text)
    bash = BASH_INPUT.search(text)
    outputs = STDOUT.findall(text) + BASH_OUTPUT.findall(text)
    if name is None and bash is None and not outputs:
        return False
    if name is not None:
        command = name.group(1).strip()
        args_match = COMMAND_ARGS.search(text)
        args = args_match.group(1).strip() if args_match else ""
        line, shown = command, f"{command} {args}".strip()
    elif bash is not None:
        line, shown = "!", f"! {bash.group(1)}"
    if name is not None or bash is not None:
        fields = {
            "kind": "text",
            "role": "user",
            "text": shown,
            "command": line,
            "native_id": entry.get("uuid"),
            "timestamp": timestamp(entry),
        }
        before = session.before_prompt
        typed = session.messages[before[0]] if before is not None else None
        if before is not None and typed is not None and typed.text == shown:
            # Older versions first write the command as typed, as if it were a prompt:
            # the echo takes its place, and the command started no turn.
            session.replace_message(typed.model_copy(update=fields))
            session.state, session.open_response = before[1], before[2]
            session.before_prompt = None
            session.turns.drop(typed.seq)  # a command, not a turn
        else:
            session.add_message(**fields)
    for stream, raw in outputs:
        body = ANSI.sub("", raw).strip()
        if body:
            session.lifecycle(body, "warning" if stream == "stderr" else "info", entry)
    return True


def user_entry(session: SessionState, entry: dict[str, Any]) -> None:
    """Map a ``user`` entry: what the user typed, and what comes back to the model."""
    origin = entry.get("origin")
    if isinstance(origin, dict) and origin.get("kind") == "peer" and origin.get("handback"):
        _report(session, origin)
        return
    if entry.get("isMeta"):
        return  # caveats, reminders, expanded command prompts: not what the user typed
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if entry.get("isCompactSummary"):
        session.compacted(entry, summary=block_text(content))
        return
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                _tool_result(session, block, entry)
    text = block_text(content)
    images = [] if _has_tool_results(content) else attachments(content)
    if not text.strip() and not images:
        return
    notice = task_notification(entry, text)
    if notice is not None:
        _task_done(session, notice, entry)
        return
    if is_reminder(text) or echo(session, text, entry):
        return  # echoes are visible but never drive the state
    if text.startswith(INTERRUPTED):
        session.lifecycle("Interrupted", "info", entry)
        session.state = "idle"
        return
    prompt = session.add_message(
        kind="text",
        role="user",
        text=unwrap_pastes(text),
        attachments=images,
        native_id=entry.get("uuid"),
        timestamp=timestamp(entry),
    )
    session.before_prompt = (prompt.seq, session.state, session.open_response)
    prompt_id = entry.get("promptId")
    session.turns.end()  # a turn that recorded no end (interrupted) is over too
    session.turns.start(prompt.seq)
    session.note_turn(prompt_id=prompt_id if isinstance(prompt_id, str) else None)
    session.state = "working"
    session.seen_turn = True
    session.open_response = True


def _tool_result(session: SessionState, block: dict[str, Any], entry: dict[str, Any]) -> None:
    tool_id = block.get("tool_use_id")
    if tool_id in session.handbacks:
        return  # the report's delivery receipt: the report itself is the reply
    seq = session.tool_seq.get(tool_id) if isinstance(tool_id, str) else None
    content = block.get("content")
    output = TOOL_ERROR.sub("", block_text(content))
    status = "error" if block.get("is_error") else "ok"
    images = attachments(content)
    result = entry.get("toolUseResult")
    agent = result.get("agentId") if isinstance(result, dict) else None
    launched = isinstance(result, dict) and result.get("status") == "async_launched"
    if isinstance(agent, str) and isinstance(tool_id, str):
        session.agent_links[agent] = tool_id
    session.state = "working"
    session.open_response = True
    if seq is None:
        # A result whose call we never saw (the call was before a rewrite): keep it.
        session.add_message(
            kind="tool",
            role="assistant",
            tool=ToolCall(id=str(tool_id), name="?", status=status, output=output),
            attachments=images,
            native_id=entry.get("uuid"),
            timestamp=timestamp(entry),
        )
        return
    old = session.messages[seq]
    assert old.tool is not None
    tool_update: dict[str, Any] = {"progress": None}
    if isinstance(agent, str):
        tool_update["agent_id"] = agent
    if launched:
        # The sub-agent runs in the background; its report arrives as a notification.
        session.background[str(tool_id)] = None
    else:
        tool_update.update(status=status, output=output)
    update: dict[str, Any] = {"tool": old.tool.model_copy(update=tool_update)}
    if images:
        update["attachments"] = [*old.attachments, *images]
    if old.dialog is not None:
        state, outcome, answers = outcome_for_result(old.dialog, result, output, status == "error")
        update["dialog"] = old.dialog.model_copy(
            update={"status": state, "outcome": outcome, "answers": answers}
        )
    session.replace_message(old.model_copy(update=update))


def _report(session: SessionState, origin: dict[str, Any]) -> None:
    # A background sub-agent's final report, delivered to the main thread as a message
    # from a peer: it is the call's output (the task notification that follows only says
    # it was delivered).
    agent, report = origin.get("from"), origin.get("handbackReportText")
    tool_id = session.agent_links.get(agent) if isinstance(agent, str) else None
    old = session.tool_message(tool_id) if tool_id else None
    if old is None or old.tool is None or not isinstance(report, str):
        return
    tool = old.tool.model_copy(update={"output": report, "status": "ok"})
    session.replace_message(old.model_copy(update={"tool": tool}))
    # The finish is told where the report arrives, before the answer the main agent builds
    # on it; the task notification that follows much later adds nothing.
    description = old.tool.input.get("description")
    name = f'Agent "{description}"' if isinstance(description, str) and description else "Agent"
    session.lifecycle(f"{name} finished", "info", None)
    session.finished.add(old.tool.id)


def _task_done(session: SessionState, notice: TaskNotification, entry: dict[str, Any]) -> None:
    # Whether the main agent answers the notification shows in what follows (a model
    # request, then a response): the notification itself starts no turn.
    tool_id = notice.tool_use_id
    if tool_id in session.finished and notice.status == "completed":
        # Told when the report came back; until this note the run counted it as running.
        session.background.pop(tool_id, None)
        return
    level: LifecycleLevel = "info" if notice.status == "completed" else "warning"
    old = session.tool_message(tool_id) if tool_id is not None else None
    report = old.tool.output if old is not None and old.tool is not None else None
    session.lifecycle(notice.summary, level, entry, detail=report or notice.result)
    if tool_id is None:
        return
    session.background.pop(tool_id, None)
    if old is not None and old.tool is not None:
        status = "ok" if notice.status == "completed" else "error"
        output = report or notice.result or notice.summary
        tool = old.tool.model_copy(update={"status": status, "output": output})
        session.replace_message(old.model_copy(update={"tool": tool}))


def _has_tool_results(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )
