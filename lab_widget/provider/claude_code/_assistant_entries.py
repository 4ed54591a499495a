"""The assistant side of a Claude Code transcript: each API response's text, reasoning and
tool calls (a dialog among them), its usage counted once with its final figures, and the
model that answered.
"""

from __future__ import annotations

from typing import Any

from ...schema import Message, RateLimit, ToolCall, Usage
from . import _compat
from ._dialogs import dialog_for_tool
from ._entries import block_text, timestamp
from ._session import SessionState
from ._usage_scan import cache_writes

__all__ = ["assistant_entry"]

_FINAL_STOPS = frozenset({"end_turn", "stop_sequence", "max_tokens", "refusal"})


def assistant_entry(session: SessionState, entry: dict[str, Any]) -> None:
    """Map an ``assistant`` entry, one message per content block."""
    message = entry.get("message")
    if not isinstance(message, dict):
        return
    model = message.get("model") if isinstance(message.get("model"), str) else None
    if entry.get("isApiErrorMessage"):
        _api_error(session, message, entry)
        return
    key = str(message.get("id") or entry.get("requestId") or entry.get("uuid"))
    usage = _usage(session, message, key)
    if model and model != "<synthetic>":
        session.facts["model"] = model
        if session.scope == "main":
            _substitution(session, model, entry)
    raw_usage = message.get("usage")
    tier = raw_usage.get("service_tier") if isinstance(raw_usage, dict) else None
    if isinstance(tier, str) and tier:
        session.note_turn(service_tier=tier)
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    base: dict[str, Any] = {
        "role": "assistant",
        "native_id": entry.get("uuid"),
        "timestamp": timestamp(entry),
        "model": model,
    }
    # The response's first message carries its usage (built with it, not copied after).
    if usage is not None and key not in session.carrier:
        base["usage"] = usage
    asks_tools = False
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        added: Message | None = None
        if kind == "text" and str(block.get("text", "")).strip():
            added = session.add_message(kind="text", text=str(block["text"]), **base)
        elif kind in ("thinking", "redacted_thinking"):
            thought = str(block.get("thinking") or "") if kind == "thinking" else ""
            added = session.add_message(
                kind="text", text=thought, thinking=True, redacted=not thought.strip(), **base
            )
        elif kind == "tool_use":
            added = _tool_use(session, block, entry, base)
            asks_tools = True
        if added is not None and "usage" in base:
            session.carrier[key] = added.seq
            del base["usage"]
    stop = message.get("stop_reason")
    session.seen_turn = True
    # A response that so far only thought has its answer still to come.
    only_thought = bool(blocks) and all(
        isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking") for b in blocks
    )
    session.open_response = asks_tools or stop == "tool_use" or only_thought
    session.state = "idle" if stop in _FINAL_STOPS else "working"


def _api_error(session: SessionState, message: dict[str, Any], entry: dict[str, Any]) -> None:
    session.lifecycle(block_text(message.get("content")) or "API error", "error", entry)
    error = entry.get("error")
    kind = _compat.QUOTA_ERRORS.get(error) if isinstance(error, str) else None
    if kind is not None and isinstance(error, str):
        limit = RateLimit(
            limit_id=error,
            kind=kind,
            status="reached",
            observed_at=timestamp(entry),
            source="error",
        )
        session.limits[limit.key] = limit
    session.state = "idle"
    session.open_response = False


def _substitution(session: SessionState, answered: str, entry: dict[str, Any]) -> None:
    # The main thread's latest request named the model asked for; a response from
    # another model is shown once per change.
    note = session.models.note(session.facts.get("model_requested"), answered)
    if note is not None:
        session.lifecycle(note, "warning", entry)


def _tool_use(
    session: SessionState, block: dict[str, Any], entry: dict[str, Any], base: dict[str, Any]
) -> Message:
    tool_input = block.get("input")
    report = tool_input.get("message") if isinstance(tool_input, dict) else None
    if block.get("name") == _compat.HANDBACK_TOOL and isinstance(report, str):
        session.handbacks.add(str(block.get("id")))
        return session.add_message(kind="text", text=report, **base)
    name = str(block.get("name"))
    given = tool_input if isinstance(tool_input, dict) else {}
    call = ToolCall(
        id=str(block.get("id")),
        name=name,
        input=given,
        shell=_compat.SHELL_TOOLS.line(name, given),
    )
    dialog = dialog_for_tool(call.name, tool_input, call.id)
    if dialog is not None and dialog.kind == "plan" and not dialog.body:
        dialog = dialog.model_copy(update={"body": _plan_text(session, entry)})
    added = session.add_message(
        kind="dialog" if dialog else "tool", dialog=dialog, tool=call, **base
    )
    session.tool_seq[call.id] = added.seq
    if call.name in _compat.SUBAGENT_TOOLS:
        session.agent_calls[call.id] = str(call.input.get("prompt") or "")
    return added


def _plan_text(session: SessionState, entry: dict[str, Any]) -> str:
    # 2.1.332 passes no plan to ExitPlanMode: the plan is the session's plan file,
    # <config dir>/plans/<session slug>.md.
    slug = entry.get("slug")
    if not isinstance(slug, str) or "/" in slug:
        return ""
    config_dir = session.ref.path.parent.parent.parent
    try:
        return (config_dir / "plans" / f"{slug}.md").read_text(errors="replace")[:100_000]
    except OSError:
        return ""


def _usage(session: SessionState, message: dict[str, Any], key: str) -> Usage | None:
    raw = message.get("usage")
    if not isinstance(raw, dict):
        return None

    def count(name: str) -> int:
        value = raw.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    writes, hour = cache_writes(raw)
    usage = Usage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_read_tokens=count("cache_read_input_tokens"),
        cache_write_tokens=writes,
        cache_write_1h_tokens=hour,
    )
    model = message.get("model")
    model = model if isinstance(model, str) and model != "<synthetic>" else None
    ledger = session.ledger
    if not ledger.record(key, usage, model, session.scope):
        return ledger.usage(key)
    final = ledger.usage(key)
    if session.scope == "main" and final is not None:
        session.facts["context_tokens"] = (
            final.input_tokens + final.cache_read_tokens + final.cache_write_tokens
        )
    carrier = session.carrier.get(key)
    if carrier is not None:
        # Later copies of a response bring its final figures: the message shows those.
        session.replace_message(session.messages[carrier].model_copy(update={"usage": final}))
    return final
