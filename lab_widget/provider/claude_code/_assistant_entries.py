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
from ._reader_state import ReaderState
from ._usage_scan import cache_writes

__all__ = ["AssistantEntries"]

_FINAL_STOPS = frozenset({"end_turn", "stop_sequence", "max_tokens", "refusal"})


class AssistantEntries(ReaderState):
    """Maps ``assistant`` entries, one message per content block."""

    def _assistant(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            return
        model = message.get("model") if isinstance(message.get("model"), str) else None
        if entry.get("isApiErrorMessage"):
            self._lifecycle(block_text(message.get("content")) or "API error", "error", entry)
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
                self._limits[limit.key] = limit
            self._state = "idle"
            self._open_response = False
            return
        key = str(message.get("id") or entry.get("requestId") or entry.get("uuid"))
        usage = self._usage(message, key)
        if model and model != "<synthetic>":
            self._facts["model"] = model
            if self._scope == "main":
                self._substitution(model, entry)
        raw_usage = message.get("usage")
        tier = raw_usage.get("service_tier") if isinstance(raw_usage, dict) else None
        if isinstance(tier, str) and tier:
            self._note_turn(service_tier=tier)
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        base: dict[str, Any] = {
            "role": "assistant",
            "native_id": entry.get("uuid"),
            "timestamp": timestamp(entry),
            "model": model,
        }
        asks_tools = False
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            added: Message | None = None
            if kind == "text" and str(block.get("text", "")).strip():
                added = self.add_message(kind="text", text=str(block["text"]), **base)
            elif kind in ("thinking", "redacted_thinking"):
                thought = str(block.get("thinking") or "") if kind == "thinking" else ""
                added = self.add_message(
                    kind="text", text=thought, thinking=True, redacted=not thought.strip(), **base
                )
            elif kind == "tool_use":
                added = self._tool_use(block, entry, base)
                asks_tools = True
            if added is not None and key not in self._carrier and usage is not None:
                self._carrier[key] = added.seq
                self.replace_message(added.model_copy(update={"usage": usage}))
        stop = message.get("stop_reason")
        self._seen_turn = True
        # A response that so far only thought has its answer still to come.
        only_thought = bool(blocks) and all(
            isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")
            for b in blocks
        )
        self._open_response = asks_tools or stop == "tool_use" or only_thought
        self._state = "idle" if stop in _FINAL_STOPS else "working"

    def _substitution(self, answered: str, entry: dict[str, Any]) -> None:
        # The main thread's latest request named the model asked for; a response from
        # another model is shown once per change.
        note = self._models.note(self._facts.get("model_requested"), answered)
        if note is not None:
            self._lifecycle(note, "warning", entry)

    def _tool_use(
        self, block: dict[str, Any], entry: dict[str, Any], base: dict[str, Any]
    ) -> Message:
        tool_input = block.get("input")
        call = ToolCall(
            id=str(block.get("id")),
            name=str(block.get("name")),
            input=tool_input if isinstance(tool_input, dict) else {},
        )
        dialog = dialog_for_tool(call.name, tool_input, call.id)
        if dialog is not None and dialog.kind == "plan" and not dialog.body:
            dialog = dialog.model_copy(update={"body": self._plan_text(entry)})
        added = self.add_message(
            kind="dialog" if dialog else "tool", dialog=dialog, tool=call, **base
        )
        self._tool_seq[call.id] = added.seq
        if call.name in _compat.SUBAGENT_TOOLS:
            self._agent_calls[call.id] = str(call.input.get("prompt") or "")
        return added

    def _plan_text(self, entry: dict[str, Any]) -> str:
        # 2.1.332 passes no plan to ExitPlanMode: the plan is the session's plan file,
        # <config dir>/plans/<session slug>.md.
        slug = entry.get("slug")
        if not isinstance(slug, str) or "/" in slug:
            return ""
        config_dir = self.ref.path.parent.parent.parent
        try:
            return (config_dir / "plans" / f"{slug}.md").read_text(errors="replace")[:100_000]
        except OSError:
            return ""

    def _usage(self, message: dict[str, Any], key: str) -> Usage | None:
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
        if not self._ledger.record(key, usage, model, self._scope):
            return self._ledger.usage(key)
        final = self._ledger.usage(key)
        if self._scope == "main" and final is not None:
            self._facts["context_tokens"] = (
                final.input_tokens + final.cache_read_tokens + final.cache_write_tokens
            )
        carrier = self._carrier.get(key)
        if carrier is not None:
            # Later copies of a response bring its final figures: the message shows those.
            self.replace_message(self._messages[carrier].model_copy(update={"usage": final}))
        return final
