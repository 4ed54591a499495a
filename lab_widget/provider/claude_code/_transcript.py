"""Claude Code's transcript: how its entries map to the universal schema.

The reader owns what it has read (``_session.SessionState``: the messages, the usage ledger,
the turn facts, the sub-agent links) and maps the user and assistant entries through the
functions of ``_user_entries.py`` and ``_assistant_entries.py``; here are the reading, the
session's bookkeeping entries and the sub-agents' files (``_subagents.py``).

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
from .. import ReadResult, TranscriptReader, TranscriptRef
from ..kit import CorruptLine, JsonlTail, Line, UsageLedger, collector_paused, exact
from ._assistant_entries import assistant_entry
from ._entries import ANSI, timestamp, unused_line
from ._files import peek_session, project_dir, project_slug
from ._session import SessionState
from ._subagents import Subagents
from ._user_entries import echo, user_entry

__all__ = ["ClaudeTranscriptReader", "peek_session", "project_dir", "project_slug"]

_PROGRESS_LIMIT = 4000
"""Characters of a running command's output kept as its progress (the latest ones)."""


class ClaudeTranscriptReader(TranscriptReader):
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
        """Forget everything read (a sub-agent's reader keeps the session's ledger)."""
        self._session = SessionState(
            ref=self.ref,
            scope=self._scope,
            ledger=self._shared_ledger if self._shared_ledger is not None else UsageLedger(),
            facts={"transcript_id": self.ref.transcript_id},
        )
        self._subagents = Subagents(self._session, _child_reader) if self._scope == "main" else None

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._session.messages)

    @property
    def state(self) -> State:
        session = self._session
        if session.state == "idle" and session.background:
            return "working"  # the sub-agent's report starts the next turn by itself
        return session.state

    def settled_state(self) -> State:
        state, session = self.state, self._session
        finished = session.seen_turn and not session.open_response
        if state == "working" and finished and not session.background:
            return "idle"  # the last response answered without asking for tools
        return state

    @property
    def pending_dialog(self) -> Dialog | None:
        # 2.1.332 writes a dialog's tool_use while its picker is open, so the transcript
        # alone shows a pending dialog (older versions wrote it only after the answer).
        session = self._session
        if not session.pending:
            return None
        return session.messages[next(reversed(session.pending))].dialog

    @property
    def summary(self) -> SessionSummary:
        session = self._session
        return SessionSummary(
            **session.facts,
            usage=session.ledger.total,
            models=session.ledger.models(),
            turn_durations_ms=list(session.turn_durations),
            turn_facts=session.turns.facts(),
            rate_limits=list(session.limits.values()),
        )

    def read(self) -> ReadResult:
        items = self._tail.read_iter()
        reset = self._tail.rewound
        if reset:
            self._reset()
        session = self._session
        session.changed = {}
        with collector_paused():
            for item in items:
                if isinstance(item, CorruptLine):
                    session.lifecycle(
                        f"Skipped unreadable transcript line {item.number}: {item.error}",
                        "warning",
                        None,
                    )
                elif isinstance(item.value, dict):
                    self._entry(item)
        if self._subagents is not None:
            self._subagents.read()
        changed = [session.messages[seq] for seq in sorted(session.changed)]
        return ReadResult(changed=session.messages[:] if reset else changed, reset=reset)

    @property
    def agent_links(self) -> dict[str, str]:
        """Sub-agent id -> the tool call that started it, as this file tells."""
        return self._session.agent_links

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
            user_entry(self._session, entry)
        elif kind == "assistant":
            self._session.before_prompt = None
            assistant_entry(self._session, entry)
        elif kind == "system":
            self._system(entry)
        elif kind == "progress":
            self._progress(entry)
        elif kind == "cost-state":
            cost = exact(entry.get("totalCostUSD"))
            if cost is not None:
                self._session.facts["vendor_cost_usd"] = cost
        elif kind == "api-request":
            self._api_request(entry)
        # Every other entry type (mode, attachment, file-history-snapshot, ...) is bookkeeping.

    def _api_request(self, entry: dict[str, Any]) -> None:
        # The model the CLI asked for; side queries (titles, summaries) may ask another.
        session = self._session
        source = entry.get("querySource")
        if isinstance(source, str) and not source.startswith("repl_main_thread"):
            return
        if isinstance(source, str):
            # A request of the main thread is a turn under way, whatever started it (a
            # prompt, a tool result, a sub-agent's notification).
            session.state = "working"
            session.open_response = True
        params = entry.get("params")
        model = params.get("model") if isinstance(params, dict) else None
        if isinstance(model, str) and model:
            session.facts["model_requested"] = model
            session.note_turn(model_requested=model)
        config = params.get("output_config") if isinstance(params, dict) else None
        effort = config.get("effort") if isinstance(config, dict) else None
        if isinstance(effort, str) and effort:
            session.note_turn(reasoning_effort=effort)

    def _note_session(self, entry: dict[str, Any]) -> None:
        facts = self._session.facts
        ts = timestamp(entry)
        if ts is not None:
            facts["updated_at"] = ts
            facts.setdefault("started_at", ts)
        for key, field in (("cwd", "cwd"), ("gitBranch", "branch"), ("version", "cli_version")):
            value = entry.get(key)
            if isinstance(value, str) and value:
                facts[field] = value

    def _progress(self, entry: dict[str, Any]) -> None:
        session = self._session
        data = entry.get("data")
        parent = entry.get("parentToolUseID")
        if not isinstance(data, dict) or not isinstance(parent, str):
            return
        if data.get("type") == "agent_progress":
            agent = data.get("agentId")
            if isinstance(agent, str):
                session.agent_links.setdefault(agent, parent)
            return
        if data.get("type") != "bash_progress":
            return
        old = session.tool_message(parent)
        if old is None or old.tool is None or old.tool.status != "running":
            return
        raw = data.get("fullOutput") or data.get("output")
        if not isinstance(raw, str):
            return
        text = ANSI.sub("", raw)[-_PROGRESS_LIMIT:]
        session.replace_message(
            old.model_copy(update={"tool": old.tool.model_copy(update={"progress": text})})
        )

    def _system(self, entry: dict[str, Any]) -> None:
        session = self._session
        subtype = entry.get("subtype")
        content = entry.get("content")
        if subtype == "local_command" and isinstance(content, str):
            echo(session, content, entry)
        elif subtype == "turn_duration":
            session.state = "idle"
            session.open_response = False
            duration = entry.get("durationMs")
            if isinstance(duration, int | float) and not isinstance(duration, bool):
                session.turn_durations.append(int(duration))
                session.note_turn(duration_ms=int(duration), ended_at=timestamp(entry))
                session.turns.end()
        elif subtype == "compact_boundary":
            meta = entry.get("compactMetadata")
            trigger = meta.get("trigger") if isinstance(meta, dict) else None
            session.compacted(entry, note=f" ({trigger})" if isinstance(trigger, str) else "")
            if trigger == "manual" and session.before_prompt is not None:
                # A /compact the user ran (written as typed by older versions) is no turn;
                # an automatic compaction happens inside one, which goes on.
                _, session.state, session.open_response = session.before_prompt
        elif subtype == "api_error" or entry.get("level") == "error":
            session.lifecycle(str(content or "API error"), "error", entry)


def _child_reader(
    ref: TranscriptRef, ledger: UsageLedger, scope: AgentScope
) -> ClaudeTranscriptReader:
    return ClaudeTranscriptReader(ref, scope=scope, ledger=ledger)
