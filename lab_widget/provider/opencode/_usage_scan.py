"""An OpenCode session's tokens without its messages: the usage-only fast path for history
and session summaries over many sessions.

What counts is what the reader counts: each assistant message's ``step-finish`` parts (each
once, as last written), else the message's own ``tokens``, per model and scope, and the
child sessions a ``task`` call runs, from whichever source the version keeps (the event
log, the ``message`` / ``part`` rows, legacy JSON files). The reader's own bookkeeping of
infos and parts does the counting here too; what is skipped is every part that can change
no count (text, reasoning, files, tool output: the bulk of a session), left in the
store where it keeps an event log (``_compat.COUNTED_EVENTS_QUERY``), and every message
the reader would build from the rest.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema import AgentScope, SessionSummary, Usage
from .. import ReadResult, TranscriptRef, as_dict, exact, loads_or_none
from . import _compat
from ._parts import tool_call
from ._store import connect
from ._transcript import OpenCodeTranscriptReader

__all__ = ["usage_summary"]


_Figures = tuple[int, int, int, int, int]
"""Input, output (reasoning included), reasoning, cache reads, cache writes."""


def _figures(tokens: Any) -> _Figures | None:
    """``step_usage``'s figures as plain ints (a pydantic model per event is most of the
    cost of a scan otherwise).

    Examples
    --------
    >>> _figures({"input": 5, "output": 2, "reasoning": 1, "cache": {"read": 3}})
    (5, 3, 1, 3, 0)
    """
    if not isinstance(tokens, dict):
        return None
    cache = as_dict(tokens.get("cache"))

    def n(value: Any) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    reasoning = n(tokens.get("reasoning"))
    return (
        n(tokens.get("input")),
        n(tokens.get("output")) + reasoning,
        reasoning,
        n(cache.get("read")),
        n(cache.get("write")),
    )


class _CountsOnly(OpenCodeTranscriptReader):
    """The reader's usage rule, with no message built and no sub-agent mirrored."""

    def _reset(self) -> None:
        super()._reset()
        self._raw_tokens: dict[str, Any] = {}
        self._own: dict[str, _Figures] = {}
        """A message's own ``tokens``, the last that held any."""
        self._step_figures: dict[str, dict[str, _Figures]] = {}
        self._counted: dict[str, None] = {}
        """Messages in the order the reader first counts them (its ``_usage``'s order)."""

    def _message(self, info: dict[str, Any]) -> None:
        # The reader's usage rule (``SessionMapping._message``) without the state, times and
        # errors. An info is re-sent on every change of its message; figures that did not
        # change count as they did (their message was counted then, or had none).
        msg_id = str(info["id"])
        role = info.get("role")
        self._roles[msg_id] = str(role)
        self._infos[msg_id] = info
        if role != "assistant":
            return
        model = info.get("modelID")
        if isinstance(model, str) and model:
            self._model = model
        cost = exact(info.get("cost"))
        if cost is not None:
            self._costs[msg_id] = cost
        tokens = info.get("tokens")
        if msg_id in self._raw_tokens and self._raw_tokens[msg_id] == tokens:
            return
        self._raw_tokens[msg_id] = tokens
        figures = _figures(tokens)
        if figures is not None and figures[0] + figures[1] + figures[3] + figures[4]:
            self._own[msg_id] = figures
            self._counted.setdefault(msg_id)

    def _own_models(self, scope: AgentScope) -> dict[tuple[str, AgentScope], tuple[Usage, int]]:
        # The reader's rule over the same counts: a message's steps, each once as last
        # written, else its own tokens.
        sums: dict[tuple[str, AgentScope], list[int]] = {}
        for msg_id in self._counted:
            steps = self._step_figures.get(msg_id)
            figures = list(steps.values()) if steps else [self._own[msg_id]]
            key = (str(self._infos.get(msg_id, {}).get("modelID") or "unknown"), scope)
            row = sums.setdefault(key, [0, 0, 0, 0, 0, 0])
            for each in figures:
                for i, value in enumerate(each):
                    row[i] += value
            row[5] += max(1, len(steps or {}))
        return {key: (_usage(row), row[5]) for key, row in sums.items()}

    def _part(self, part: dict[str, Any]) -> None:
        kind = part.get("type")
        if kind == "step-finish":
            msg_id = str(part.get("messageID") or "")
            if self._roles.get(msg_id) != "assistant":
                return  # the reader counts a step only once its message is known
            figures = _figures(part.get("tokens"))
            if figures is not None:
                self._step_figures.setdefault(msg_id, {})[str(part["id"])] = figures
                self._counted.setdefault(msg_id)
        elif kind == "tool":
            tool = tool_call(part)
            if tool.agent_id is not None:
                self._child(tool.agent_id, tool.id)

    def _child(self, agent_id: str, call_id: str) -> None:
        known = agent_id in self._children
        super()._child(agent_id, call_id)
        if not known and agent_id in self._children:
            ref = self._children[agent_id].ref
            self._children[agent_id] = _CountsOnly(ref, subagent=True)

    def _read_children(self) -> None:
        for child in self._children.values():
            child.read()

    def read(self) -> ReadResult:
        """One read (a summary is taken once): from the event log, only the events that
        can count, selected by the store; older versions' rows and files as the reader
        reads them.
        """
        if self._source is None and self.ref.path.suffix != ".json":
            # A session with an event log is found by the query itself (no probe first).
            rows = _counted_events(self.ref)
            if rows:
                self._source = "events"
                for seq, event_id, kind, raw in rows:
                    self._last = (seq, event_id)
                    data = loads_or_none(raw, replace=True)
                    if isinstance(data, dict):
                        self._event(kind, data)
        if self._source != "events":
            return super().read()
        self._read_children()
        return ReadResult(changed=[])


def _usage(row: list[int]) -> Usage:
    return Usage(
        input_tokens=row[0],
        output_tokens=row[1],
        reasoning_tokens=row[2],
        cache_read_tokens=row[3],
        cache_write_tokens=row[4],
    )


def _counted_events(ref: TranscriptRef) -> list[tuple[int, str, str, bytes]]:
    """``(seq, id, type, data)`` of the events that can count, in order."""
    with connect(ref.path) as conn:
        if conn is None:
            return []
        try:
            rows = conn.execute(_compat.COUNTED_EVENTS_QUERY, (ref.transcript_id,)).fetchall()
        except sqlite3.Error:
            return []  # unreadable now (busy past the timeout, no such table): nothing counted
    return [(int(r[0]), str(r[1]), str(r[2]), bytes(r[3])) for r in rows]


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The usage of the session ``ref`` and its sub-agents', as the reader totals it."""
    reader = _CountsOnly(ref)
    reader.read()
    return reader.summary  # the session's facts come with it at no cost
