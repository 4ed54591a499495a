"""Claude Code's transcript: how its entries map to the universal schema.

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
    LifecycleLevel,
    Message,
    SessionSummary,
    State,
    ToolCall,
    Usage,
)
from .._jsonl import CorruptLine, JsonlTail, Line
from .._models import ModelWatch
from .._numbers import exact
from .._seam import ReadResult, TranscriptReader, TranscriptRef
from .._turn_facts import TurnFactsLog
from .._usage import UsageLedger
from . import _compat
from ._dialogs import dialog_for_tool, outcome_for_result
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
    unused_line,
    unwrap_pastes,
)
from ._files import peek_session, project_dir, project_slug
from ._subagents import Subagents

__all__ = ["ClaudeTranscriptReader", "peek_session", "project_dir", "project_slug"]

_FINAL_STOPS = frozenset({"end_turn", "stop_sequence", "max_tokens", "refusal"})
_COMPACTED = "Conversation compacted"
_PROGRESS_LIMIT = 4000
"""Characters of a running command's output kept as its progress (the latest ones)."""


class ClaudeTranscriptReader(TranscriptReader):
    """Maps one Claude Code session file, and its sub-agents' files, into messages.

    State: ``working`` from a submitted prompt or a tool result until the turn ends (a
    final stop reason, a ``turn_duration`` record, an interrupt, an API error), and while a
    sub-agent it launched in the background has not reported back. Command echoes never
    change the state.

    Sub-agents' messages follow in the same list, each with the id of the call that started
    it as ``parent_tool_id``; their usage counts in the session with scope ``subagent``.
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

    # -- building messages -------------------------------------------------------------

    def add_message(self, **fields: Any) -> Message:
        """Append a message (the next seq) and report it as changed."""
        message = Message(seq=len(self._messages), **fields)
        self._messages.append(message)
        self._changed[message.seq] = None
        self._note_pending(message)
        return message

    def replace_message(self, message: Message) -> None:
        """Put an updated copy of a message in place (same seq) and report it."""
        self._messages[message.seq] = message
        self._changed[message.seq] = None
        self._note_pending(message)

    def append_message(self, message: Message, parent_tool_id: str) -> Message:
        """Append a sub-agent's message, nested under the call ``parent_tool_id``."""
        copy = message.model_copy(
            update={"seq": len(self._messages), "parent_tool_id": parent_tool_id}
        )
        self._messages.append(copy)
        self._changed[copy.seq] = None
        self._note_pending(copy)
        if copy.tool is not None:
            self._tool_seq.setdefault(copy.tool.id, copy.seq)
            if copy.tool.name in _compat.SUBAGENT_TOOLS and copy.tool.agent_id is None:
                self._agent_calls[copy.tool.id] = str(copy.tool.input.get("prompt") or "")
        return copy

    @property
    def ledger(self) -> UsageLedger:
        """The usage of the session and its sub-agents."""
        return self._ledger

    def link_agent(self, tool_id: str, agent_id: str) -> None:
        """Note on the call ``tool_id`` that it runs the sub-agent ``agent_id``."""
        self._agent_calls.pop(tool_id, None)
        old = self.tool_message(tool_id)
        if old is not None and old.tool is not None and old.tool.agent_id != agent_id:
            tool = old.tool.model_copy(update={"agent_id": agent_id})
            self.replace_message(old.model_copy(update={"tool": tool}))

    def unlinked_agent_calls(self, linked: set[str]) -> dict[str, str]:
        """Running sub-agent calls not linked to a sub-agent yet: tool id -> prompt."""
        return {t: p for t, p in self._agent_calls.items() if t not in linked}

    @property
    def watch(self) -> tuple[Path, ...]:
        """Folders whose changes this reader reads (its sub-agents' folder)."""
        return (self._subagents.watch,) if self._subagents is not None else ()

    def tool_message(self, tool_id: str) -> Message | None:
        """The message of the tool call ``tool_id``, if this reader has it."""
        seq = self._tool_seq.get(tool_id)
        return self._messages[seq] if seq is not None else None

    def _note_pending(self, message: Message) -> None:
        if message.dialog is not None and message.dialog.status == "pending":
            self._pending[message.seq] = None
        else:
            self._pending.pop(message.seq, None)

    def _lifecycle(
        self, text: str, level: LifecycleLevel, entry: dict[str, Any] | None, detail: str = ""
    ) -> Message:
        return self.add_message(
            kind="lifecycle",
            role="system",
            text=text,
            level=level,
            detail=detail,
            native_id=entry.get("uuid") if entry else None,
            timestamp=timestamp(entry) if entry else None,
        )

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

    def _note_turn(self, **facts: Any) -> None:
        # Facts of the turn under way (the latest prompt's), main thread only.
        if self._scope == "main":
            self._turns.note(**facts)

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

    def _echo(self, text: str, entry: dict[str, Any]) -> bool:
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
            echo = {
                "kind": "text",
                "role": "user",
                "text": shown,
                "command": line,
                "native_id": entry.get("uuid"),
                "timestamp": timestamp(entry),
            }
            before = self._before_prompt
            typed = self._messages[before[0]] if before is not None else None
            if before is not None and typed is not None and typed.text == shown:
                # Older versions first write the command as typed, as if it were a prompt:
                # the echo takes its place, and the command started no turn.
                self.replace_message(typed.model_copy(update=echo))
                self._state, self._open_response = before[1], before[2]
                self._before_prompt = None
                self._turns.drop(typed.seq)  # a command, not a turn
            else:
                self.add_message(**echo)
        for stream, raw in outputs:
            body = ANSI.sub("", raw).strip()
            if body:
                self._lifecycle(body, "warning" if stream == "stderr" else "info", entry)
        return True

    def _user(self, entry: dict[str, Any]) -> None:
        origin = entry.get("origin")
        if isinstance(origin, dict) and origin.get("kind") == "peer" and origin.get("handback"):
            self._report(origin)
            return
        if entry.get("isMeta"):
            return  # caveats, reminders, expanded command prompts: not what the user typed
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if entry.get("isCompactSummary"):
            self._compacted(entry, summary=block_text(content))
            return
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self._tool_result(block, entry)
        text = block_text(content)
        images = [] if _has_tool_results(content) else attachments(content)
        if not text.strip() and not images:
            return
        notice = task_notification(entry, text)
        if notice is not None:
            self._task_done(notice, entry)
            return
        if is_reminder(text) or self._echo(text, entry):
            return  # echoes are visible but never drive the state
        if text.startswith(INTERRUPTED):
            self._lifecycle("Interrupted", "info", entry)
            self._state = "idle"
            return
        prompt = self.add_message(
            kind="text",
            role="user",
            text=unwrap_pastes(text),
            attachments=images,
            native_id=entry.get("uuid"),
            timestamp=timestamp(entry),
        )
        self._before_prompt = (prompt.seq, self._state, self._open_response)
        prompt_id = entry.get("promptId")
        self._turns.end()  # a turn that recorded no end (interrupted) is over too
        self._turns.start(prompt.seq)
        self._note_turn(prompt_id=prompt_id if isinstance(prompt_id, str) else None)
        self._state = "working"
        self._seen_turn = True
        self._open_response = True

    def _tool_result(self, block: dict[str, Any], entry: dict[str, Any]) -> None:
        tool_id = block.get("tool_use_id")
        seq = self._tool_seq.get(tool_id) if isinstance(tool_id, str) else None
        content = block.get("content")
        output = TOOL_ERROR.sub("", block_text(content))
        status = "error" if block.get("is_error") else "ok"
        images = attachments(content)
        result = entry.get("toolUseResult")
        agent = result.get("agentId") if isinstance(result, dict) else None
        launched = isinstance(result, dict) and result.get("status") == "async_launched"
        if isinstance(agent, str) and isinstance(tool_id, str):
            self.agent_links[agent] = tool_id
        self._state = "working"
        self._open_response = True
        if seq is None:
            # A result whose call we never saw (the call was before a rewrite): keep it.
            self.add_message(
                kind="tool",
                role="assistant",
                tool=ToolCall(id=str(tool_id), name="?", status=status, output=output),
                attachments=images,
                native_id=entry.get("uuid"),
                timestamp=timestamp(entry),
            )
            return
        old = self._messages[seq]
        assert old.tool is not None
        tool_update: dict[str, Any] = {"progress": None}
        if isinstance(agent, str):
            tool_update["agent_id"] = agent
        if launched:
            # The sub-agent runs in the background; its report arrives as a notification.
            self._background[str(tool_id)] = None
        else:
            tool_update.update(status=status, output=output)
        update: dict[str, Any] = {"tool": old.tool.model_copy(update=tool_update)}
        if images:
            update["attachments"] = [*old.attachments, *images]
        if old.dialog is not None:
            state, outcome, answers = outcome_for_result(
                old.dialog, result, output, status == "error"
            )
            update["dialog"] = old.dialog.model_copy(
                update={"status": state, "outcome": outcome, "answers": answers}
            )
        self.replace_message(old.model_copy(update=update))

    def _report(self, origin: dict[str, Any]) -> None:
        # A background sub-agent's final report, delivered to the main thread as a message
        # from a peer: it is the call's output (the task notification that follows only says
        # it was delivered).
        agent, report = origin.get("from"), origin.get("handbackReportText")
        tool_id = self.agent_links.get(agent) if isinstance(agent, str) else None
        old = self.tool_message(tool_id) if tool_id else None
        if old is None or old.tool is None or not isinstance(report, str):
            return
        tool = old.tool.model_copy(update={"output": report})
        self.replace_message(old.model_copy(update={"tool": tool}))

    def _task_done(self, notice: TaskNotification, entry: dict[str, Any]) -> None:
        # Whether the main agent answers the notification shows in what follows (a model
        # request, then a response): the notification itself starts no turn.
        tool_id = notice.tool_use_id
        level: LifecycleLevel = "info" if notice.status == "completed" else "warning"
        old = self.tool_message(tool_id) if tool_id is not None else None
        report = old.tool.output if old is not None and old.tool is not None else None
        self._lifecycle(notice.summary, level, entry, detail=report or notice.result)
        if tool_id is None:
            return
        self._background.pop(tool_id, None)
        if old is not None and old.tool is not None:
            status = "ok" if notice.status == "completed" else "error"
            output = report or notice.result or notice.summary
            tool = old.tool.model_copy(update={"status": status, "output": output})
            self.replace_message(old.model_copy(update={"tool": tool}))

    def _assistant(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            return
        model = message.get("model") if isinstance(message.get("model"), str) else None
        if entry.get("isApiErrorMessage"):
            self._lifecycle(block_text(message.get("content")) or "API error", "error", entry)
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

        usage = Usage(
            input_tokens=count("input_tokens"),
            output_tokens=count("output_tokens"),
            cache_read_tokens=count("cache_read_input_tokens"),
            cache_write_tokens=count("cache_creation_input_tokens"),
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

    def _compacted(self, entry: dict[str, Any], summary: str = "", note: str = "") -> None:
        if self._compaction is not None and summary:
            # The summary follows its boundary: it belongs to that message.
            old = self._messages[self._compaction]
            self.replace_message(old.model_copy(update={"detail": summary.strip()}))
            self._compaction = None
            return
        message = self._lifecycle(_COMPACTED + note, "info", entry, detail=summary.strip())
        self._compaction = None if summary else message.seq

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


def _child_reader(ref: TranscriptRef, ledger: UsageLedger) -> ClaudeTranscriptReader:
    return ClaudeTranscriptReader(ref, scope="subagent", ledger=ledger)


def _has_tool_results(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )
