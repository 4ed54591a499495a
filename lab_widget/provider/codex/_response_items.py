"""The response items of a Codex rollout: messages (a prompt opens a turn), reasoning, tool
calls and their outputs (images among them), and the sub-agents a ``spawn_agent`` starts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...schema import Dialog, Message, ToolCall
from ..kit import describe_answers
from ..kit import iso_time as _timestamp
from . import _compat
from ._items import arguments, message_content, reasoning_text, spawned_agent, tool_output
from ._questions import question_dialog, recorded_answers
from ._rollouts import is_context
from ._threads import RolloutState, Thread

__all__ = ["response_item", "tool_image"]

_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def response_item(
    state: RolloutState, thread: Thread, payload: dict[str, Any], line: dict[str, Any]
) -> None:
    """Map one ``response_item`` line of ``thread``: one message per item (an output updates
    its call's).
    """
    kind = payload.get("type")
    stamp = _timestamp(line.get("timestamp"))
    if kind == "message":
        _message(state, thread, payload, line, stamp)
    elif kind == "reasoning":
        _reasoning(state, thread, payload, stamp)
    elif kind in _CALLS:
        _call(state, thread, str(kind), payload, stamp)
    elif kind in _OUTPUTS:
        _output(state, thread, payload, stamp)


def _item(
    state: RolloutState,
    thread: Thread,
    payload: dict[str, Any],
    stamp: datetime | None,
    **fields: Any,
) -> Message:
    """A message of the item ``payload``: the model's text by default, under its id."""
    fields = {"kind": "text", "role": "assistant", "model": thread.model, **fields}
    return state.add(thread, native_id=payload.get("id"), timestamp=stamp, **fields)


def _message(
    state: RolloutState,
    thread: Thread,
    payload: dict[str, Any],
    line: dict[str, Any],
    stamp: datetime | None,
) -> None:
    role = payload.get("role")
    text, images = message_content(payload.get("content"))
    metadata = line.get("metadata")
    if isinstance(metadata, dict) and metadata.get(_compat.COMPACTION_OUTPUT):
        thread.summary = text  # shown under the compaction, not as an answer
        return
    prompt = role == "user" and bool(text or images) and not is_context(text)
    if not prompt and not (role == "assistant" and (text or images)):
        return
    if prompt:
        thread.structural = "working"
        thread.response = []
    message = _item(
        state,
        thread,
        payload,
        stamp,
        kind="text",
        role=role,
        text=text,
        attachments=images,
        model=None if prompt else thread.model,
    )
    if prompt and thread is state.main:
        _start_turn(state, message.seq)


def tool_image(state: RolloutState, payload: dict[str, Any], seq: int) -> bool:
    """Attach an image-only user message right after a call's output to that call."""
    if payload.get("type") != "message" or payload.get("role") != "user":
        return False
    text, images = message_content(payload.get("content"))
    if text or not images:
        return False
    message = state.messages[seq]
    state.replace(message.model_copy(update={"attachments": [*message.attachments, *images]}))
    return True


def _reasoning(
    state: RolloutState, thread: Thread, payload: dict[str, Any], stamp: datetime | None
) -> None:
    text = reasoning_text(payload)
    hidden = not text and bool(payload.get("encrypted_content"))
    if not text and not hidden:
        return  # an empty reasoning item carries nothing to show
    _item(state, thread, payload, stamp, text=text, thinking=True, redacted=hidden)


def _call(
    state: RolloutState, thread: Thread, kind: str, payload: dict[str, Any], stamp: datetime | None
) -> None:
    call_id = str(payload.get("call_id") or payload.get("id") or "")
    if kind == "function_call":
        tool_input = arguments(payload.get("arguments"))
    elif kind == "local_shell_call":
        tool_input = arguments(payload.get("action"))
    else:
        tool_input = {"input": payload.get("input")}
    name = str(payload.get("name") or kind)
    namespace = payload.get("namespace")
    if isinstance(namespace, str) and namespace.startswith(_compat.MCP_NAMESPACE_PREFIX):
        # An MCP server's tool, named as its hooks name it (and as the user's rules do).
        server = namespace.removeprefix(_compat.MCP_NAMESPACE_PREFIX)
        name = _compat.MCP_TOOLS.tool(server, name)
    thread.structural = "working"
    # A question call shows as its dialog from the start (the picker is open).
    asks = name == _compat.QUESTION_TOOL
    message = _item(
        state,
        thread,
        payload,
        stamp,
        kind="dialog" if asks else "tool",
        tool=ToolCall(
            id=call_id,
            name=name,
            input=tool_input,
            shell=_compat.SHELL_TOOLS.line(name, tool_input),
        ),
        dialog=question_dialog(tool_input, call_id) if asks else None,
    )
    thread.tools[call_id] = message.seq
    thread.names[call_id] = name


def _output(
    state: RolloutState, thread: Thread, payload: dict[str, Any], stamp: datetime | None
) -> None:
    call_id = str(payload.get("call_id") or "")
    seq = thread.tools.get(call_id)
    if seq is None:
        return  # an output whose call this epoch never saw (a resumed thread)
    thread.structural = "working"  # the model answers the output next
    output, failed, images = tool_output(payload.get("output"))
    status = "error" if failed or call_id in thread.failed else "ok"
    if output.rstrip().endswith((_compat.DECLINED_OUTPUT, _compat.MCP_DECLINED_OUTPUT)):
        status, output = "error", f"{output.rstrip()} (rejected)"
    message = state.messages[seq]
    assert message.tool is not None
    update: dict[str, Any] = {"status": status, "output": output}
    if thread.names.get(call_id) in _compat.SPAWN_TOOLS:
        agent = spawned_agent(output)
        if agent is not None:
            update["agent_id"] = agent[0]
            _spawned(state, thread, call_id, agent, stamp)
    tool = message.tool.model_copy(update=update)
    fields: dict[str, Any] = {"tool": tool}
    if message.dialog is not None:
        fields.update(_answered(message.dialog, message.tool.input, output))
    if images:
        fields["attachments"] = [*message.attachments, *images]
    state.replace(message.model_copy(update=fields))
    thread.last_output = seq


def _answered(dialog: Dialog, tool_input: Any, output: str) -> dict[str, Any]:
    """A question call's message once its output came: the dialog with the recorded
    answers, or a plain failed call when the tool refused (outside Plan mode).
    """
    recorded = recorded_answers(dialog, tool_input, output)
    if recorded is None:
        return {"kind": "tool", "dialog": None}
    done = dialog.model_copy(
        update={
            "status": "answered",
            "answers": recorded,
            "outcome": describe_answers(dialog, recorded),
        }
    )
    return {"dialog": done}


def _spawned(
    state: RolloutState,
    parent: Thread,
    call_id: str,
    agent: tuple[str, str | None],
    stamp: datetime | None,
) -> None:
    agent_id, nickname = agent
    if agent_id in state.children:
        return
    child = Thread(
        path=None,
        scope="subagent",
        parent_tool_id=call_id,
        agent_id=agent_id,
        nickname=nickname,
        spawned_at=stamp,
        beside=parent.path,
    )
    state.children[agent_id] = child
    parent.children.append(agent_id)
    state.locate(child)


def _start_turn(state: RolloutState, seq: int) -> None:
    # The facts gathered since task_started belong to this prompt; a second prompt of
    # one task (none seen so far) starts its own, keeping what was requested.
    state.turns.start(seq, keep=("model_requested", "reasoning_effort", "service_tier"))


def mcp_call_completed(state: RolloutState, thread: Thread, item: dict[str, Any]) -> None:
    """An MCP call's ``item_completed``: a failed one marks its call failed, before or after
    the call's output was read (``_compat.MCP_CALL_ITEM``).
    """
    result = item.get("result")
    failed = item.get("status") == "failed" or (
        isinstance(result, dict) and result.get("isError") is True
    )
    call_id = str(item.get("id") or "")
    if not failed or not call_id:
        return
    thread.failed.add(call_id)
    seq = thread.tools.get(call_id)
    if seq is None:
        return
    message = state.messages[seq]
    if message.tool is not None and message.tool.status == "ok":
        tool = message.tool.model_copy(update={"status": "error"})
        state.replace(message.model_copy(update={"tool": tool}))
