"""Claude Code's transcript: where it lives and how its entries map to the universal schema.

Grammar pinned to Claude Code 2.1.332 (see ``_compat.py``); fixtures recorded from that
version by ``scripts/record_fixtures.py`` live in ``tests/fixtures/claude-code/``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from ...schema import Dialog, LifecycleLevel, Message, SessionSummary, State, ToolCall, Usage
from .._jsonl import CorruptLine, JsonlTail, Line
from .._seam import ReadResult, TranscriptReader, TranscriptRef
from ._dialogs import dialog_for_tool, outcome_for_result

__all__ = ["ClaudeTranscriptReader", "peek_session", "project_dir", "project_slug"]

_SLUG_LIMIT = 200
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_STDOUT = re.compile(r"<local-command-(stdout|stderr)>(.*?)</local-command-\1>", re.S)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_BASH_OUTPUT = re.compile(r"<bash-(stdout|stderr)>(.*?)</bash-\1>", re.S)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_INTERRUPTED = "[Request interrupted by user"
_TOOL_ERROR = re.compile(r"</?tool_use_error>")
# 2.1.332 records a multi-line paste wrapped in a tag pair that repeats the paste id.
_PASTED = re.compile(
    r'(?:\A\n\n)?<pasted_content id="([^"]*)">\n(.*?)\n?</pasted_content id="\1">\n?', re.S
)


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


def _java_hash(text: str) -> int:
    data = text.encode("utf-16-le")
    h = 0
    for i in range(0, len(data), 2):
        h = ((h << 5) - h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def project_slug(cwd: str) -> str:
    """The folder name Claude Code keeps a cwd's transcripts under.

    Examples
    --------
    >>> project_slug("/tmp/my repo.v2")
    '-tmp-my-repo-v2'
    >>> len(project_slug("/x" * 150)) > 200
    True
    """
    slug = re.sub(r"[^a-zA-Z0-9]", "-", cwd)
    if len(slug) <= _SLUG_LIMIT:
        return slug
    return f"{slug[:_SLUG_LIMIT]}-{_base36(abs(_java_hash(cwd)))}"


def project_dir(config_dir: Path, cwd: str) -> Path:
    """``<config dir>/projects/<slug>``."""
    return config_dir / "projects" / project_slug(cwd)


def _timestamp(entry: dict[str, Any]) -> datetime | None:
    raw = entry.get("timestamp")
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "image":
                parts.append("[image]")
    return "\n".join(parts)


def _prompt_text(entry: dict[str, Any]) -> str | None:
    """What the user typed in a ``user`` entry, or ``None`` for echoes and bookkeeping."""
    if entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = _block_text(content).strip()
    if not text or text.startswith(_INTERRUPTED):
        return None
    if _COMMAND_NAME.search(text) or _STDOUT.search(text) or _BASH_INPUT.search(text):
        return None
    if _BASH_OUTPUT.search(text):
        return None
    return unwrap_pastes(text).strip() or None


def peek_session(path: Path, limit: int = 1 << 20) -> tuple[str | None, str | None]:
    """The first prompt and the answering model of a session file, reading at most
    ``limit`` bytes and stopping as soon as both are found.

    Falls back to the requested model when no answer was seen within the limit.
    """
    prompt: str | None = None
    model: str | None = None
    requested: str | None = None
    read = 0
    try:
        with path.open("rb") as handle:
            for raw in handle:
                read += len(raw)
                if read > limit:
                    break
                try:
                    entry = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(entry, dict):
                    continue
                kind = entry.get("type")
                if kind == "user" and prompt is None:
                    prompt = _prompt_text(entry)
                elif kind == "assistant" and model is None:
                    message = entry.get("message")
                    name = message.get("model") if isinstance(message, dict) else None
                    if isinstance(name, str) and name and name != "<synthetic>":
                        model = name
                elif kind == "api-request" and requested is None:
                    params = entry.get("params")
                    name = params.get("model") if isinstance(params, dict) else None
                    requested = name if isinstance(name, str) and name else None
                if prompt is not None and model is not None:
                    break
    except OSError:
        pass
    return prompt, model or requested


class ClaudeTranscriptReader(TranscriptReader):
    """Maps one Claude Code session file into messages, incrementally.

    State: ``working`` from a submitted prompt or a tool result until the turn ends
    (an assistant ``end_turn``, a ``turn_duration`` record, an interrupt, an API error).
    Command echoes never change the state.
    """

    def __init__(self, ref: TranscriptRef) -> None:
        self.ref = ref
        self._tail = JsonlTail(ref.path)
        self._reset()

    def _reset(self) -> None:
        self._messages: list[Message] = []
        self._tool_seq: dict[str, int] = {}
        self._usage_seen: set[str] = set()
        self._state: State = "idle"
        # Plain fields, turned into a SessionSummary only when asked: a model per entry
        # would cost more than the parse itself.
        self._facts: dict[str, Any] = {"transcript_id": self.ref.transcript_id}
        self._turn_durations: list[int] = []
        self._usage_total = Usage()
        self._changed: dict[int, None] = {}
        # Seqs of dialogs still pending, so asking costs nothing however long the chat is.
        self._pending: dict[int, None] = {}

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        return self._state

    @property
    def pending_dialog(self) -> Dialog | None:
        # 2.1.332 writes a dialog's tool_use while its picker is open, so the transcript
        # alone shows a pending dialog (older versions wrote it only after the answer).
        if not self._pending:
            return None
        return self._messages[next(reversed(self._pending))].dialog

    @property
    def summary(self) -> SessionSummary:
        return SessionSummary(
            **self._facts, usage=self._usage_total, turn_durations_ms=list(self._turn_durations)
        )

    def read(self) -> ReadResult:
        items = self._tail.read_iter()
        reset = self._tail.rewound
        if reset:
            self._reset()
        self._changed = {}
        for item in items:
            if isinstance(item, CorruptLine):
                self._lifecycle(
                    f"Skipped unreadable transcript line {item.number}: {item.error}",
                    "warning",
                    None,
                )
            elif isinstance(item.value, dict):
                self._entry(item)
        changed = [self._messages[seq] for seq in sorted(self._changed)]
        return ReadResult(changed=self._messages[:] if reset else changed, reset=reset)

    # -- building messages -------------------------------------------------------------

    def _add(self, **fields: Any) -> Message:
        message = Message(seq=len(self._messages), **fields)
        self._messages.append(message)
        self._changed[message.seq] = None
        self._note_pending(message)
        return message

    def _replace(self, message: Message) -> None:
        self._messages[message.seq] = message
        self._changed[message.seq] = None
        self._note_pending(message)

    def _note_pending(self, message: Message) -> None:
        if message.dialog is not None and message.dialog.status == "pending":
            self._pending[message.seq] = None
        else:
            self._pending.pop(message.seq, None)

    def _lifecycle(self, text: str, level: LifecycleLevel, entry: dict[str, Any] | None) -> None:
        self._add(
            kind="lifecycle",
            role="system",
            text=text,
            level=level,
            native_id=entry.get("uuid") if entry else None,
            timestamp=_timestamp(entry) if entry else None,
        )

    def _entry(self, line: Line) -> None:
        entry: dict[str, Any] = line.value
        kind = entry.get("type")
        if kind in ("user", "assistant", "system"):
            self._note_session(entry)
        if kind == "user":
            self._user(entry)
        elif kind == "assistant":
            self._assistant(entry)
        elif kind == "system":
            self._system(entry)
        elif kind == "cost-state":
            cost = entry.get("totalCostUSD")
            if isinstance(cost, int | float) and not isinstance(cost, bool):
                self._facts["vendor_cost_usd"] = float(cost)
        elif kind == "api-request":
            self._api_request(entry)
        # Every other entry type (mode, attachment, api-request, ...) is bookkeeping.

    def _api_request(self, entry: dict[str, Any]) -> None:
        # The model the CLI asked for; side queries (titles, summaries) may ask another.
        source = entry.get("querySource")
        if isinstance(source, str) and not source.startswith("repl_main_thread"):
            return
        params = entry.get("params")
        model = params.get("model") if isinstance(params, dict) else None
        if isinstance(model, str) and model:
            self._facts["model_requested"] = model

    def _note_session(self, entry: dict[str, Any]) -> None:
        facts = self._facts
        ts = _timestamp(entry)
        if ts is not None:
            facts["updated_at"] = ts
            facts.setdefault("started_at", ts)
        for key, field in (("cwd", "cwd"), ("gitBranch", "branch"), ("version", "cli_version")):
            value = entry.get(key)
            if isinstance(value, str) and value:
                facts[field] = value

    def _command_echo(self, text: str, entry: dict[str, Any]) -> bool:
        """Map ``<command-name>`` and ``<local-command-stdout>`` blocks; True if it was one."""
        name = _COMMAND_NAME.search(text)
        outputs = _STDOUT.findall(text)
        if name is None and not outputs:
            return False
        if name is not None:
            command = name.group(1).strip()
            args_match = _COMMAND_ARGS.search(text)
            args = args_match.group(1).strip() if args_match else ""
            self._add(
                kind="text",
                role="user",
                text=f"{command} {args}".strip(),
                command=command,
                native_id=entry.get("uuid"),
                timestamp=_timestamp(entry),
            )
        for stream, raw in outputs:
            body = _ANSI.sub("", raw).strip()
            if body:
                self._lifecycle(body, "warning" if stream == "stderr" else "info", entry)
        return True

    def _bash_echo(self, text: str, entry: dict[str, Any]) -> bool:
        command = _BASH_INPUT.search(text)
        outputs = _BASH_OUTPUT.findall(text)
        if command is None and not outputs:
            return False
        if command is not None:
            self._add(
                kind="text",
                role="user",
                text=f"! {command.group(1)}",
                command="!",
                native_id=entry.get("uuid"),
                timestamp=_timestamp(entry),
            )
        for stream, raw in outputs:
            body = _ANSI.sub("", raw).strip()
            if body:
                self._lifecycle(body, "warning" if stream == "stderr" else "info", entry)
        return True

    def _user(self, entry: dict[str, Any]) -> None:
        if entry.get("isMeta"):
            return  # caveats and expanded command prompts: not something the user typed
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if entry.get("isCompactSummary"):
            self._lifecycle("Conversation compacted", "info", entry)
            return
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self._tool_result(block, entry)
        text = _block_text(content)
        if not text.strip():
            return
        if self._command_echo(text, entry) or self._bash_echo(text, entry):
            return  # echoes are visible but never drive the state
        if text.startswith(_INTERRUPTED):
            self._lifecycle("Interrupted", "info", entry)
            self._state = "idle"
            return
        self._add(
            kind="text",
            role="user",
            text=unwrap_pastes(text),
            native_id=entry.get("uuid"),
            timestamp=_timestamp(entry),
        )
        self._state = "working"

    def _tool_result(self, block: dict[str, Any], entry: dict[str, Any]) -> None:
        tool_id = block.get("tool_use_id")
        seq = self._tool_seq.get(tool_id) if isinstance(tool_id, str) else None
        output = _TOOL_ERROR.sub("", _block_text(block.get("content")))
        status = "error" if block.get("is_error") else "ok"
        if seq is None:
            # A result whose call we never saw (the call was before a rewrite): keep it.
            self._add(
                kind="tool",
                role="assistant",
                tool=ToolCall(id=str(tool_id), name="?", status=status, output=output),
                native_id=entry.get("uuid"),
                timestamp=_timestamp(entry),
            )
        else:
            old = self._messages[seq]
            assert old.tool is not None
            tool = old.tool.model_copy(update={"status": status, "output": output})
            update: dict[str, Any] = {"tool": tool}
            if old.dialog is not None:
                result = entry.get("toolUseResult")
                state, outcome, answers = outcome_for_result(
                    old.dialog, result, output, status == "error"
                )
                update["dialog"] = old.dialog.model_copy(
                    update={"status": state, "outcome": outcome, "answers": answers}
                )
            self._replace(old.model_copy(update=update))
        self._state = "working"

    def _assistant(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            return
        model = message.get("model") if isinstance(message.get("model"), str) else None
        if entry.get("isApiErrorMessage"):
            self._lifecycle(_block_text(message.get("content")) or "API error", "error", entry)
            self._state = "idle"
            return
        usage = self._usage(message, entry)
        if model and model != "<synthetic>":
            self._facts["model"] = model
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and str(block.get("text", "")).strip():
                self._add(
                    kind="text",
                    role="assistant",
                    text=str(block["text"]),
                    native_id=entry.get("uuid"),
                    timestamp=_timestamp(entry),
                    model=model,
                    usage=usage,
                )
                usage = None  # usage belongs to the API message, shown once
            elif block.get("type") == "tool_use":
                tool_input = block.get("input")
                call = ToolCall(
                    id=str(block.get("id")),
                    name=str(block.get("name")),
                    input=tool_input if isinstance(tool_input, dict) else {},
                )
                dialog = dialog_for_tool(call.name, tool_input, call.id)
                if dialog is not None and dialog.kind == "plan" and not dialog.body:
                    dialog = dialog.model_copy(update={"body": self._plan_text(entry)})
                added = self._add(
                    kind="dialog" if dialog else "tool",
                    dialog=dialog,
                    role="assistant",
                    tool=call,
                    native_id=entry.get("uuid"),
                    timestamp=_timestamp(entry),
                    model=model,
                    usage=usage,
                )
                usage = None
                self._tool_seq[call.id] = added.seq
        stop = message.get("stop_reason")
        self._state = "idle" if stop in ("end_turn", "stop_sequence", "max_tokens") else "working"

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

    def _usage(self, message: dict[str, Any], entry: dict[str, Any]) -> Usage | None:
        raw = message.get("usage")
        if not isinstance(raw, dict):
            return None
        # One API message is written as one entry per content block, each repeating the
        # usage: count it once per message id.
        key = str(message.get("id") or entry.get("requestId") or entry.get("uuid"))
        if key in self._usage_seen:
            return None
        self._usage_seen.add(key)

        def count(name: str) -> int:
            value = raw.get(name)
            return value if isinstance(value, int) else 0

        usage = Usage(
            input_tokens=count("input_tokens"),
            output_tokens=count("output_tokens"),
            cache_read_tokens=count("cache_read_input_tokens"),
            cache_write_tokens=count("cache_creation_input_tokens"),
        )
        self._usage_total = self._usage_total + usage
        if not entry.get("isSidechain"):
            self._facts["context_tokens"] = (
                usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
            )
        return usage

    def _system(self, entry: dict[str, Any]) -> None:
        subtype = entry.get("subtype")
        content = entry.get("content")
        if subtype == "local_command" and isinstance(content, str):
            self._command_echo(content, entry)
        elif subtype == "turn_duration":
            self._state = "idle"
            duration = entry.get("durationMs")
            if isinstance(duration, int | float) and not isinstance(duration, bool):
                self._turn_durations.append(int(duration))
        elif subtype == "compact_boundary":
            self._lifecycle("Conversation compacted", "info", entry)
        elif subtype == "api_error" or entry.get("level") == "error":
            self._lifecycle(str(content or "API error"), "error", entry)
