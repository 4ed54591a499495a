"""Mistral Vibe's session store mapped to the universal schema.

Each entry of the store (:mod:`._store`) is one message: a ``message`` entry's text (the
user's prompt, the assistant's answer), an ``effect`` entry of kind ``tool`` a tool call,
its ``state`` giving its status and output, the approval prompt about it its dialog. A
message keeps the ``seq`` its entry was first given, so a replaced entry updates its
message in place. A completion's ``usage`` is on its answer's message (entry
``assistant-<action id>``); the session's totals are its ``session.tokenUsage``, the usage
billed, every completion once (tool-call completions have no text entry of their own).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...schema import Dialog, Message, SessionSummary, State, ToolCall
from .. import ReadResult, TranscriptReader, TranscriptRef
from ..kit import as_dict, load_json
from . import _compat
from ._dialogs import approval_dialog
from ._store import Store, read_store
from ._usage_scan import model_of, summarise, usage_of

__all__ = ["VibeTranscriptReader"]

_TOOL_STATUS = {"running": "running", "completed": "ok", "failed": "error"}
_ANSWERED = frozenset({"approve", "approve_for_session", "approve_permanently"})
_DECIDED = {"execute": "approve", "skip": "deny"}
"""A call's ``state.decision`` after its prompt was answered, as the prompt's answer."""


def _when(entry: dict[str, Any]) -> datetime | None:
    stamp = entry.get("createdAt")
    return datetime.fromtimestamp(stamp / 1000, UTC) if isinstance(stamp, int) else None


def _text(entry: dict[str, Any]) -> str:
    content = entry.get("content")
    parts = content if isinstance(content, list) else []
    texts = [
        str(part.get("text"))
        for part in parts
        if isinstance(part, dict) and part.get("type") == "text" and part.get("text")
    ]
    return "\n\n".join(texts)


def _output(state: dict[str, Any]) -> str | None:
    error = as_dict(state.get("error")).get("message")
    if isinstance(error, str) and error:
        return error
    text = state.get("outputText")
    if isinstance(text, str) and text:
        return text
    structured = as_dict(as_dict(state.get("output")).get("structured_content"))
    out = "".join(str(structured.get(k) or "") for k in ("stdout", "stderr"))
    return out or None


class VibeTranscriptReader(TranscriptReader):
    """Maps one Mistral Vibe session store (``ref.path``: its folder) into messages.

    State from structure: ``question`` while an approval prompt waits for its answer, else
    ``working`` while the session's status is ``running``, else ``idle``. ``clear_echo``
    opens an epoch the clear command started: the store records no command. ``asking``
    names the tools (as the store names them) of the run's own servers that ask before
    every call: their approval offers no "allow for the session".
    """

    def __init__(
        self,
        ref: TranscriptRef,
        clear_echo: str | None = None,
        asking: frozenset[str] = frozenset(),
    ) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._asking = asking
        self._messages: list[Message] = []
        self._seqs: dict[str, int] = {}
        self._store = Store()
        self._model: str | None = None
        self._meta: dict[str, Any] = {}
        self._billed: set[str] = set()

    # -- TranscriptReader ------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        if self._store.open_approvals:
            return "question"
        status = as_dict(as_dict(self._store.envelope.get("session")).get("status"))
        if status.get("type") == "running":
            return "working"
        last = self._messages[-1] if self._messages else None
        if not self._store.envelope and last and last.role == "user" and last.command is None:
            return "working"  # a prompt whose turn has not begun recording
        return "idle"

    @property
    def pending_dialog(self) -> Dialog | None:
        for routing in reversed(self._store.open_approvals.values()):
            seq = self._seqs.get(f"entry:{routing.get('relatedEntryId')}")
            if seq is not None and self._messages[seq].dialog is not None:
                return self._messages[seq].dialog
        return None

    @property
    def summary(self) -> SessionSummary:
        return summarise(self.ref.transcript_id, self._store, self._meta)

    def read(self) -> ReadResult:
        self._store = self._remembered(read_store(self.ref.path))
        self._meta = load_json(self.ref.path / "meta.json")
        self._model = model_of(self._meta) or self._model
        wanted = self._wanted()
        reset = not set(self._seqs) <= {key for key, _ in wanted}
        if reset:
            # Rewritten shorter (nothing the CLI does: a snapshot keeps every entry).
            self._messages, self._seqs = [], {}
        changed: dict[int, None] = {}
        for key, fields in wanted:
            known = self._seqs.get(key)
            if known is None or self._messages[known] != Message(seq=known, **fields):
                changed[self._put(key, **fields)] = None
        return ReadResult(changed=[self._messages[i] for i in sorted(changed)], reset=reset)

    def _remembered(self, store: Store) -> Store:
        """``store`` with what earlier reads saw of the journal: a snapshot keeps the
        entries and the totals, not each completion's usage nor the prompts' records.
        """
        for name in ("usage", "calls", "answered_by", "approvals", "decisions"):
            seen = getattr(self._store, name)
            seen.update(getattr(store, name))
            setattr(store, name, seen)
        return store

    def _wanted(self) -> list[tuple[str, dict[str, Any]]]:
        """Every message the store holds now, by key, in the order it was written."""
        wanted: list[tuple[str, dict[str, Any]]] = []
        if self._clear_echo:
            echo = self._clear_echo
            wanted.append(("echo", {"kind": "text", "role": "user", "text": echo, "command": echo}))
        bad = {f"{b.segment}:{b.line}": b for b in self._store.unreadable}
        entries = {str(e["id"]): e for e in self._store.entries}
        self._billed = set()
        for kind, name in self._store.entry_order:
            if kind == "unreadable":
                line = bad[name]
                text = f"Skipped unreadable transcript line {line.line}: {line.error}"
                fields = {"kind": "lifecycle", "role": "system", "level": "warning", "text": text}
                wanted.append((f"unreadable:{name}", fields))
            elif (mapped := self._fields(entries[name])) is not None:
                wanted.append((f"entry:{name}", mapped))
        return wanted

    # -- entries -------------------------------------------------------------------------

    def _put(self, key: str, **fields: Any) -> int:
        seq = self._seqs.get(key)
        if seq is None:
            seq = self._seqs[key] = len(self._messages)
            self._messages.append(Message(seq=seq, **fields))
        else:
            self._messages[seq] = Message(seq=seq, **fields)
        return seq

    def _fields(self, entry: dict[str, Any]) -> dict[str, Any] | None:
        kind = entry.get("type")
        native = str(entry["id"])
        when = _when(entry)
        if kind == "message" and entry.get("role") in ("user", "assistant"):
            text = _text(entry)
            if not text:
                return None
            fields: dict[str, Any] = {
                "kind": "text",
                "role": entry["role"],
                "text": text,
                "native_id": native,
                "timestamp": when,
            }
            if entry["role"] == "assistant":
                fields["model"] = self._model
                action = native.removeprefix("assistant-")
                if action in self._store.usage:
                    fields["usage"] = usage_of(self._store.usage[action])
            return fields
        detail = as_dict(entry.get("detail"))
        if kind == "effect" and detail.get("kind") == "tool":
            return self._tool(entry, detail, native, when)
        return None

    def _tool(
        self, entry: dict[str, Any], detail: dict[str, Any], native: str, when: datetime | None
    ) -> dict[str, Any]:
        state = as_dict(entry.get("state"))
        status = _TOOL_STATUS.get(str(state.get("status")), "running")
        tool_input = detail.get("input")
        name = str(detail.get("toolName") or entry.get("title") or "tool")
        tool = ToolCall(
            id=native,
            name=name,
            input=tool_input if isinstance(tool_input, dict) else {},
            shell=_compat.SHELL_TOOLS.line(
                name, tool_input if isinstance(tool_input, dict) else {}
            ),
            status=status,
            output=_output(state) if status != "running" else None,
        )
        fields: dict[str, Any] = {
            "kind": "tool",
            "role": "assistant",
            "tool": tool,
            "native_id": native,
            "timestamp": when,
        }
        # A completion that only asked for tools has no text entry: its usage goes on its
        # first call.
        completion = self._store.answered_by.get(self._store.calls.get(native, ""))
        if (
            completion in self._store.usage
            and f"assistant-{completion}" not in self._store.index
            and completion not in self._billed
        ):
            self._billed.add(completion)
            fields["usage"] = usage_of(self._store.usage[completion])
            fields["model"] = self._model
        # The prompt's records are the journal's only (a snapshot drops them), but the
        # call's own state keeps who decided and how: a prompt the user answered.
        asked = native in self._store.approvals or (
            state.get("approvalType") == "ask" and state.get("approvalSource") == "user"
        )
        if asked:
            always = name not in self._asking
            dialog = approval_dialog(as_dict(tool_input), native, name, always=always)
            decision = self._store.decisions.get(native) or _DECIDED.get(str(state.get("decision")))
            if decision is not None:
                approved = decision in _ANSWERED
                dialog = dialog.model_copy(
                    update={
                        "status": "answered" if approved else "rejected",
                        "outcome": "approved" if approved else "rejected",
                    }
                )
            fields.update(kind="dialog", dialog=dialog)
        return fields
