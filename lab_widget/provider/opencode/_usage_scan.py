"""An OpenCode session's tokens without its messages: the usage-only fast path for history
and session summaries over many sessions.

What counts is what the reader counts: each assistant message's ``step-finish`` parts (each
once, as last written), else the message's own ``tokens``, per model and scope, and the
child sessions a ``task`` call runs, from whichever source the version keeps (the event
log, the ``message`` / ``part`` rows, legacy JSON files). The reader's own bookkeeping of
infos and parts does the counting here too; what is skipped is every part that can change
no count (text, reasoning, files: the bulk of a session), unparsed where a byte test
tells, and every message the reader would build from the rest.
"""

from __future__ import annotations

from typing import Any

from ...schema import SessionSummary
from .. import TranscriptRef
from . import _compat
from ._parts import step_usage, tool_call
from ._store import EventRow
from ._transcript import OpenCodeTranscriptReader

__all__ = ["usage_summary"]

_STEP = '"step-finish"'
_TOOL = '"tool"'
"""A part that can change a count names its type so (the CLI writes compact JSON), and a
task call's part is a ``tool`` part: any other part is left unparsed."""


class _CountsOnly(OpenCodeTranscriptReader):
    """The reader's usage bookkeeping, with no message built and no sub-agent mirrored."""

    def _part(self, part: dict[str, Any]) -> None:
        kind = part.get("type")
        if kind == "step-finish":
            msg_id = str(part.get("messageID") or "")
            if self._roles.get(msg_id) != "assistant":
                return  # the reader counts a step only once its message is known
            usage = step_usage(part.get("tokens"))
            if usage is not None:
                self._steps.setdefault(msg_id, {})[str(part["id"])] = usage
                self._count_usage(msg_id)
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

    def apply(self, rows: list[EventRow]) -> None:
        kept = [
            row
            for row in rows
            if not row.type.startswith(_compat.PART_UPDATED)
            or _STEP in row.data
            or _TOOL in row.data
        ]
        super().apply(kept)
        if rows:
            self._last = (rows[-1].seq, rows[-1].id)  # where the next read goes on from


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The usage of the session ``ref`` and its sub-agents', as the reader totals it."""
    reader = _CountsOnly(ref)
    reader.read()
    return reader.summary  # the session's facts come with it at no cost
