"""Claude Code's transcript: how its entries map to the universal schema.

The reader is built from parts: the user side (``_user_entries.py``), the assistant side
(``_assistant_entries.py``), over the state they share (``_reader_state.py``); here are the
reading, the session's bookkeeping entries and the sub-agents' files.

Grammar pinned to Claude Code 2.1.332 (see ``_compat.py``) and read leniently for the older
versions users' histories hold; fixtures recorded from each version by
``scripts/record_fixtures.py`` live in ``tests/fixtures/claude-code/``.

A real model's stream reaches the CLI block by block, and the CLI writes one entry per
finished block: every entry of one API response but the last may carry ``stop_reason: null``
and the partial usage of the stream's start. So usage is the final figures per response id
(:class:`~lab_widget.provider.UsageLedger`), and the end of a turn is read from the records
that end it (a final stop reason, ``turn_duration``), never from a missing stop reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...schema import (
    AgentScope,
    Dialog,
    Message,
    SessionSummary,
    State,
)
from .. import (
    CorruptLine,
    JsonlTail,
    Line,
    ModelWatch,
    ReadResult,
    TranscriptRef,
    TurnFactsLog,
    UsageLedger,
    exact,
)
from ._assistant_entries import AssistantEntries
from ._entries import ANSI, timestamp, unused_line
from ._files import peek_session, project_dir, project_slug
from ._subagents import Subagents
from ._user_entries import UserEntries

__all__ = ["ClaudeTranscriptReader", "peek_session", "project_dir", "project_slug"]

_PROGRESS_LIMIT = 4000
"""Characters of a running command's output kept as its progress (the latest ones)."""


class ClaudeTranscriptReader(UserEntries, AssistantEntries):
    """Maps one Claude Code session file, and its sub-agents' files, into messages.

    State: ``working`` from a submitted prompt or a tool result until the turn ends (a
    final stop reason, a ``turn_duration`` record, an interrupt, an API error), and while a
    sub-agent it launched in the background has not reported back. Command echoes never
    change the state.

    Sub-agents' messages follow in the same list, each with the id of the call that started
    it as ``parent_tool_id``; their usage counts in the session with scope ``subagent``, and
    compactions' with scope ``compaction``.
    """

    def __init__(
        self,
        ref: TranscriptRef,
        *,
        scope: AgentScope = "main",
        ledger: UsageLedger | None = None,
    ) -> None:
        self.ref = ref
        self._scope: AgentScope = scope
        self._shared_ledger = ledger
        self._tail = JsonlTail(ref.path, skip=unused_line)
        self._reset()

    def _reset(self) -> None:
        self._messages: list[Message] = []
        self._tool_seq: dict[str, int] = {}
        self._ledger = self._shared_ledger if self._shared_ledger is not None else UsageLedger()
        # Response id -> seq of the message that shows its usage.
        self._carrier: dict[str, int] = {}
        self._state: State = "idle"
        # Whether the last response seen asked for tools (its turn goes on), for the state of
        # a transcript nobody writes any more.
        self._open_response = False
        self._seen_turn = False
        # Plain fields, turned into a SessionSummary only when asked: a model per entry
        # would cost more than the parse itself.
        self._facts: dict[str, Any] = {"transcript_id": self.ref.transcript_id}
        self._turn_durations: list[int] = []
        self._limits = {}
        # Per turn (keyed by its prompt's seq): what the transcript records beside messages.
        self._turns = TurnFactsLog()
        self._models = ModelWatch()
        self._changed: dict[int, None] = {}
        # Seqs of dialogs still pending, so asking costs nothing however long the chat is.
        self._pending: dict[int, None] = {}
        self._compaction: int | None = None
        # The state before the latest prompt, while it may still turn out to be a command.
        self._before_prompt: tuple[int, State, bool] | None = None
        # Calls whose sub-agent runs in the background and has not reported back.
        self._background: dict[str, None] = {}
        self.agent_links: dict[str, str] = {}
        """Sub-agent id -> the tool call that started it, as this file tells."""
        self._agent_calls: dict[str, str] = {}
        """Sub-agent calls (tool id -> prompt) whose sub-agent is not known yet."""
        self._subagents = Subagents(self, _child_reader) if self._scope == "main" else None

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        if self._state == "idle" and self._background:
            return "working"  # the sub-agent's report starts the next turn by itself
        return self._state

    def settled_state(self) -> State:
        state = self.state
        finished = self._seen_turn and not self._open_response
        if state == "working" and finished and not self._background:
            return "idle"  # the last response answered without asking for tools
        return state

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
            **self._facts,
            usage=self._ledger.total,
            models=self._ledger.models(),
            turn_durations_ms=list(self._turn_durations),
            turn_facts=self._turns.facts(),
            rate_limits=list(self._limits.values()),
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
        if self._subagents is not None:
            self._subagents.read()
        changed = [self._messages[seq] for seq in sorted(self._changed)]
        return ReadResult(changed=self._messages[:] if reset else changed, reset=reset)

    # -- mapping ---------------------------------------------------------------------

    @property
    def watch(self) -> tuple[Path, ...]:
        """Folders whose changes this reader reads (its sub-agents' folder)."""
        return (self._subagents.watch,) if self._subagents is not None else ()

    def _entry(self, line: Line) -> None:
        entry: dict[str, Any] = line.value
        kind = entry.get("type")
        if kind in ("user", "assistant", "system"):
            self._note_session(entry)
        if kind == "user":
            self._user(entry)
        elif kind == "assistant":
            self._before_prompt = None
            self._assistant(entry)
        elif kind == "system":
            self._system(entry)
        elif kind == "progress":
            self._progress(entry)
        elif kind == "cost-state":
            cost = exact(entry.get("totalCostUSD"))
            if cost is not None:
                self._facts["vendor_cost_usd"] = cost
        elif kind == "api-request":
            self._api_request(entry)
        # Every other entry type (mode, attachment, file-history-snapshot, ...) is bookkeeping.

    def _api_request(self, entry: dict[str, Any]) -> None:
        # The model the CLI asked for; side queries (titles, summaries) may ask another.
        source = entry.get("querySource")
        if isinstance(source, str) and not source.startswith("repl_main_thread"):
            return
        if isinstance(source, str):
            # A request of the main thread is a turn under way, whatever started it (a
            # prompt, a tool result, a sub-agent's notification).
            self._state = "working"
            self._open_response = True
        params = entry.get("params")
        model = params.get("model") if isinstance(params, dict) else None
        if isinstance(model, str) and model:
            self._facts["model_requested"] = model
            self._note_turn(model_requested=model)
        config = params.get("output_config") if isinstance(params, dict) else None
        effort = config.get("effort") if isinstance(config, dict) else None
        if isinstance(effort, str) and effort:
            self._note_turn(reasoning_effort=effort)

    def _note_session(self, entry: dict[str, Any]) -> None:
        facts = self._facts
        ts = timestamp(entry)
        if ts is not None:
            facts["updated_at"] = ts
            facts.setdefault("started_at", ts)
        for key, field in (("cwd", "cwd"), ("gitBranch", "branch"), ("version", "cli_version")):
            value = entry.get(key)
            if isinstance(value, str) and value:
                facts[field] = value

    def _progress(self, entry: dict[str, Any]) -> None:
        data = entry.get("data")
        parent = entry.get("parentToolUseID")
        if not isinstance(data, dict) or not isinstance(parent, str):
            return
        if data.get("type") == "agent_progress":
            agent = data.get("agentId")
            if isinstance(agent, str):
                self.agent_links.setdefault(agent, parent)
            return
        if data.get("type") != "bash_progress":
            return
        old = self.tool_message(parent)
        if old is None or old.tool is None or old.tool.status != "running":
            return
        raw = data.get("fullOutput") or data.get("output")
        if not isinstance(raw, str):
            return
        text = ANSI.sub("", raw)[-_PROGRESS_LIMIT:]
        self.replace_message(
            old.model_copy(update={"tool": old.tool.model_copy(update={"progress": text})})
        )

    def _system(self, entry: dict[str, Any]) -> None:
        subtype = entry.get("subtype")
        content = entry.get("content")
        if subtype == "local_command" and isinstance(content, str):
            self._echo(content, entry)
        elif subtype == "turn_duration":
            self._state = "idle"
            self._open_response = False
            duration = entry.get("durationMs")
            if isinstance(duration, int | float) and not isinstance(duration, bool):
                self._turn_durations.append(int(duration))
                self._note_turn(duration_ms=int(duration), ended_at=timestamp(entry))
                self._turns.end()
        elif subtype == "compact_boundary":
            meta = entry.get("compactMetadata")
            trigger = meta.get("trigger") if isinstance(meta, dict) else None
            self._compacted(entry, note=f" ({trigger})" if isinstance(trigger, str) else "")
            if trigger == "manual" and self._before_prompt is not None:
                # A /compact the user ran (written as typed by older versions) is no turn;
                # an automatic compaction happens inside one, which goes on.
                _, self._state, self._open_response = self._before_prompt
        elif subtype == "api_error" or entry.get("level") == "error":
            self._lifecycle(str(content or "API error"), "error", entry)


def _child_reader(
    ref: TranscriptRef, ledger: UsageLedger, scope: AgentScope
) -> ClaudeTranscriptReader:
    return ClaudeTranscriptReader(ref, scope=scope, ledger=ledger)
