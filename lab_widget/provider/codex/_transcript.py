"""Codex CLI's rollout files mapped to the universal schema, incrementally.

Grammar pinned to Codex 0.171.0 (see ``_compat.py``) and read back to 0.80.0; fixtures
recorded from each version by ``scripts/record_codex_fixtures.py`` live in
``tests/fixtures/codex/`` (the pin) and ``tests/fixtures/codex/v<version>/``.

A rollout line is ``{"timestamp", "ordinal"?, "type", "payload"}``. Conversation content
is in ``response_item`` lines (the model's input/output items); lifecycle is in
``event_msg`` lines (``task_started``, ``task_complete``, ``turn_aborted``,
``token_count``). Codex also writes events that repeat the items (``item_completed``,
``user_message``, ``agent_message``, ``agent_reasoning``): they are skipped, but for the
one fact only an ``item_completed`` holds: that an MCP call failed.

A sub-agent is a thread of its own with its own rollout; its messages join the same flat
list, each with ``parent_tool_id`` set to the ``spawn_agent`` call that started it, and its
tokens count in the session's totals (``scope="subagent"``).

The reader owns what it has read (``_threads.RolloutState``: the threads, the messages,
the session's facts) and maps the response items through the functions of
``_response_items.py``; here are the reading of every thread's rollout, the session's facts
and the events (turns, token counts, compaction).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...schema import Message, ModelUsage, SessionSummary, State
from .. import ReadResult, TranscriptReader, TranscriptRef
from ..kit import CorruptLine, JsonlTail, Line, collector_paused
from ..kit import iso_time as _timestamp
from . import _compat
from ._items import (
    Counts,
    counts,
)
from ._limits import quota_error, rate_limits
from ._response_items import mcp_call_completed, response_item, tool_image
from ._rollouts import resolve_pending
from ._threads import RolloutState, Thread

__all__ = ["CodexTranscriptReader"]


class CodexTranscriptReader(TranscriptReader):
    """Maps one Codex rollout, and the rollouts of the sub-agents it starts, into messages.

    State: ``working`` from ``task_started`` until ``task_complete`` or ``turn_aborted``
    (in the main thread or any sub-agent); a rollout that marks no turns (older versions)
    is idle once a model response that answered without calling a tool has its token
    count.

    ``clear_echo`` starts the epoch with the ``/new`` that opened it: Codex records the
    command nowhere, so the reader synthesises its echo.
    """

    def __init__(self, ref: TranscriptRef, clear_echo: str | None = None) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._main_rewound = False
        self._reset()

    def _reset(self, tail: JsonlTail | None = None) -> None:
        """Forget everything read; keep ``tail`` (the main rollout's, already rewound)."""
        path = tail.path if tail is not None else resolve_pending(self.ref.path)
        if tail is None and path is not None:
            tail = JsonlTail(path)
        self._state = RolloutState(
            main=Thread(path=path, tail=tail), facts={"transcript_id": self.ref.transcript_id}
        )
        if self._clear_echo:
            self._state.add(
                self._state.main,
                kind="text",
                role="user",
                text=self._clear_echo,
                command=self._clear_echo,
            )

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._state.messages)

    @property
    def state(self) -> State:
        threads = [self._state.main, *self._state.children.values()]
        return "working" if any(t.state == "working" for t in threads) else "idle"

    @property
    def summary(self) -> SessionSummary:
        return SessionSummary(
            **self._state.facts,
            usage=self._state.usage,
            models=list(self._state.models.values()),
            turn_durations_ms=list(self._state.turn_durations),
            rate_limits=list(self._state.limits.values()),
            turn_facts=self._state.turns.facts(),
        )

    @property
    def path(self) -> Path | None:
        """The rollout read, once it exists (a new thread has none before its first message)."""
        return self._state.main.path

    def read(self) -> ReadResult:
        reset = False
        if not self._pump():
            # A sub-agent's rollout was rewritten: its messages sit among the parent's, so
            # everything is read again (rare: Codex rewrites a rollout only to rotate it).
            self._reset()
            self._pump()
            reset = True
        reset = reset or self._main_rewound
        changed = (
            self.messages
            if reset
            else [self._state.messages[s] for s in sorted(self._state.changed)]
        )
        self._state.changed = {}
        return ReadResult(changed=changed, reset=reset)

    # -- reading -----------------------------------------------------------------------

    def _pump(self) -> bool:
        """Read what every thread's rollout gained; ``False`` when one was rewritten."""
        self._main_rewound = False
        main = self._state.main
        if main.tail is None:
            main.path = resolve_pending(self.ref.path)
            if main.path is None:
                return True
            main.tail = JsonlTail(main.path)
        items = main.tail.read_iter()
        if main.tail.rewound:
            # Rewritten or replaced: the tail reads it from the start, the state starts over.
            self._reset(main.tail)
            main = self._state.main
            self._main_rewound = True
        self._lines(main, items)
        # Sub-agents found while reading are read in the same call (the list grows).
        index = 0
        while index < len(self._state.children):
            child = list(self._state.children.values())[index]
            index += 1
            if child.tail is None:
                self._state.locate(child)
                if child.tail is None:
                    continue
            items = child.tail.read_iter()
            if child.tail.rewound:
                return False
            self._lines(child, items)
        return True

    def _lines(self, thread: Thread, items: Any) -> None:
        with collector_paused():
            for item in items:
                if isinstance(item, CorruptLine):
                    self._state.lifecycle(
                        thread,
                        f"Skipped unreadable transcript line {item.number}: {item.error}",
                        "warning",
                        None,
                    )
                elif isinstance(item.value, dict):
                    self._line(thread, item)

    # -- mapping -----------------------------------------------------------------------

    def _line(self, thread: Thread, item: Line) -> None:
        line: dict[str, Any] = item.value
        kind = line.get("type")
        payload = line.get("payload")
        if not isinstance(payload, dict):
            return
        after_output, thread.last_output = thread.last_output, None
        if (
            kind == "response_item"
            and after_output is not None
            and tool_image(self._state, payload, after_output)
        ):
            thread.last_output = after_output
            return
        if kind == "session_meta":
            if thread is self._state.main:
                self._session_meta(payload, line)
        elif kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str):
                thread.model = model
                if thread is self._state.main:
                    self._state.facts.setdefault("model_requested", model)
            if thread is self._state.main:
                self._turn_context(payload)
        elif kind == "response_item":
            response_item(self._state, thread, payload, line)
        elif kind == "event_msg":
            self._event(thread, payload, line)
        elif kind == "compacted":
            self._compacted(thread, payload, line)
        stamp = _timestamp(line.get("timestamp"))
        if stamp is not None and thread is self._state.main:
            self._state.facts["updated_at"] = stamp

    def _session_meta(self, payload: dict[str, Any], line: dict[str, Any]) -> None:
        self._state.facts["cwd"] = payload.get("cwd")
        self._state.facts["cli_version"] = payload.get("cli_version")
        started = _timestamp(payload.get("timestamp")) or _timestamp(line.get("timestamp"))
        self._state.facts["started_at"] = started
        git = payload.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str):
            self._state.facts["branch"] = git["branch"]

    def _event(self, thread: Thread, payload: dict[str, Any], line: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "task_started":
            thread.task_events = thread.turn_open = True
            if thread is self._state.main:
                self._state.turns.end()  # turn_context may come before the turn's prompt
        elif kind == "task_complete":
            thread.task_events, thread.turn_open = True, False
            duration = payload.get("duration_ms")
            if (
                thread is self._state.main
                and isinstance(duration, int)
                and not isinstance(duration, bool)
            ):
                self._state.turn_durations.append(duration)
                self._state.turns.note(
                    duration_ms=duration, ended_at=_timestamp(line.get("timestamp"))
                )
                self._state.turns.end()
            error = payload.get("error")
            if isinstance(error, dict):
                # A turn the API refused ends with its error and no answer: say why.
                message = error.get("message")
                self._state.lifecycle(thread, str(message or "The turn failed"), "error", line)
                limit = quota_error(error, _timestamp(line.get("timestamp")))
                if limit is not None:
                    self._state.limits[limit.key] = limit
            self._turn_ended(thread, line)
        elif kind == "turn_aborted":
            thread.turn_open = False
            thread.structural = "idle"
            self._state.close_running(thread, "aborted")
            self._state.lifecycle(thread, "Interrupted", "info", line)
            self._turn_ended(thread, line)
        elif kind == "token_count":
            self._token_count(thread, payload)
            for limit in rate_limits(payload.get("rate_limits"), _timestamp(line.get("timestamp"))):
                self._state.limits[limit.key] = limit  # every thread reports the same account's
        elif kind == "context_compacted":
            if thread.last_compaction != len(self._state.messages) - 1:
                self._compaction(thread, line, thread.summary or "")
        elif kind == "error":
            self._state.lifecycle(thread, str(payload.get("message") or "Error"), "error", line)
        elif kind == "item_completed":
            item = payload.get("item")
            if isinstance(item, dict) and item.get("type") == _compat.MCP_CALL_ITEM:
                mcp_call_completed(self._state, thread, item)

    def _turn_context(self, payload: dict[str, Any]) -> None:
        mode = payload.get("collaboration_mode")
        settings = mode.get("settings") if isinstance(mode, dict) else None
        effort = payload.get("effort")
        if not isinstance(effort, str) and isinstance(settings, dict):
            effort = settings.get("reasoning_effort")
        tier = payload.get("service_tier")
        model = payload.get("model")
        self._state.turns.note(
            model_requested=model if isinstance(model, str) and model else None,
            reasoning_effort=effort if isinstance(effort, str) and effort else None,
            service_tier=tier if isinstance(tier, str) and tier else None,
        )

    def _turn_ended(self, thread: Thread, line: dict[str, Any]) -> None:
        # A sub-agent whose rollout is still missing when its parent's turn is over costs
        # only its own messages: say so once, under the call that started it.
        for agent_id in thread.children:
            child = self._state.children[agent_id]
            if child.tail is None:
                self._state.locate(child)
            if child.tail is None and not child.missing_reported:
                child.missing_reported = True
                who = f"{child.nickname} ({agent_id})" if child.nickname else agent_id
                self._state.lifecycle(
                    child,
                    f"The sub-agent {who} left no transcript to read; its messages are missing.",
                    "warning",
                    line,
                )
        thread.children = []

    def _compacted(self, thread: Thread, payload: dict[str, Any], line: dict[str, Any]) -> None:
        text = payload.get("message")
        text = text if isinstance(text, str) else ""
        last = self._state.messages[-1] if self._state.messages else None
        if (
            thread.summary is None
            and last is not None
            and last.kind == "text"
            and last.role == "assistant"
            and not last.thinking
            and last.parent_tool_id == thread.parent_tool_id
            and last.text.strip()
            and text.rstrip().endswith(last.text.strip())
        ):
            # An unflagged summary (0.150.1): the answer just read was the compaction's.
            compaction = Message(
                seq=last.seq,
                kind="lifecycle",
                role="system",
                text="Conversation compacted",
                level="info",
                detail=last.text,
                timestamp=_timestamp(line.get("timestamp")),
                parent_tool_id=thread.parent_tool_id,
            )
            self._state.replace(compaction)
            thread.last_compaction = last.seq
            return
        self._compaction(thread, line, thread.summary or text)

    def _compaction(self, thread: Thread, line: dict[str, Any], detail: str) -> None:
        thread.summary = None
        message = self._state.lifecycle(
            thread, "Conversation compacted", "info", line, detail=detail
        )
        thread.last_compaction = message.seq

    def _token_count(self, thread: Thread, payload: dict[str, Any]) -> None:
        """Count one model response, once.

        Codex repeats a ``token_count`` (at a turn's start, around a compaction) with the
        same totals: only a ``total_token_usage`` that moved is a new response. Its
        figures are the response's ``last_token_usage`` (the totals' difference where a
        version leaves that out).
        """
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total, last = counts(info.get("total_token_usage")), counts(info.get("last_token_usage"))
        response: Counts | None
        if total is not None:
            before, thread.previous_total = thread.previous_total, total
            if before is not None and total == before:
                return
            if before is None or not total.advanced_from(before):
                response = last or total  # the first count, or totals that started over
            else:
                response = last or total.minus(before)
        else:
            response = last
        if response is None or response.empty:
            return
        usage = response.usage()
        self._state.usage = self._state.usage + usage
        model = thread.model or "unknown"
        key = (model, thread.scope)
        known = self._state.models.get(key) or ModelUsage(model=model, scope=thread.scope)
        self._state.models[key] = known.model_copy(
            update={"usage": known.usage + usage, "requests": known.requests + 1}
        )
        # The usage belongs to the response just recorded: on its first message.
        messages = [self._state.messages[seq] for seq in thread.response]
        if messages:
            self._state.replace(messages[0].model_copy(update={"usage": usage}))
        if any(m.kind == "text" and not m.thinking for m in messages) and not any(
            m.kind == "tool" for m in messages
        ):
            # A finished response that answered and called nothing ends the turn: what a
            # rollout that marks no turns has instead of task_complete. Counted at the
            # response's end, never at its text, so a pause before a call is not an end.
            thread.structural = "idle"
        thread.response = []
        if thread is self._state.main:
            if last is not None:
                self._state.facts["context_tokens"] = last.input
            if thread.model is not None:
                self._state.facts["model"] = thread.model
