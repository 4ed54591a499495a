"""The state rule of the chat brain: a run's conversational state from a handful of facts.

:class:`~lab_widget._chat._session.ChatSession` gathers the facts (the agent's process, start-up
screen and readiness, the pending dialog, the reader's state, the live channel's blocked
reason, an interrupt, a prompt just sent) and this rule alone turns them into a state, so
the rule is tested as a table, apart from any reading.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schema import State

__all__ = ["StateFacts", "derive_state"]


@dataclass(frozen=True)
class StateFacts:
    """What the chat brain knows about a run at one moment."""

    ended: bool = False
    """The agent's process is gone."""
    start_blocked: bool = False
    """A start-up screen (folder trust) was predicted and the TUI has not reported ready."""
    dialog_pending: bool = False
    """A dialog waits for an answer (from the live channel or the transcript)."""
    run_answers: bool = False
    """The pending dialog is one the run answers itself (a tool approved for the run)."""
    reader_state: State = "idle"
    """What the transcript alone says (``idle`` before any transcript exists)."""
    live_blocked: str | None = None
    """Why the live channel says the agent is blocked without a dialog, if it does."""
    interrupted: bool = False
    """An interrupt was sent and the transcript has not moved since."""
    send_pending: bool = False
    """A prompt was sent within the grace period and has not shown up as a user message."""


def derive_state(facts: StateFacts) -> State:
    """The run's state; the first rule that matches wins.

    1. ``ended`` when the process is gone;
    2. ``needs_input`` while a predicted start-up screen waits;
    3. ``question`` while a dialog waits on the user; ``working`` while it waits on the run
       itself (a tool approved for the run: no one else is to answer it);
    4. a transcript that says ``working``: ``needs_input`` when the live channel reports
       the agent blocked, ``idle`` after an interrupt the transcript has not recorded
       (an agent stopped before it answered may write nothing), else ``working``;
    5. a transcript that says ``idle`` while a prompt just sent has not shown up yet:
       ``working``;
    6. else the transcript's state.

    Examples
    --------
    >>> derive_state(StateFacts(reader_state="working", interrupted=True))
    'idle'
    >>> derive_state(StateFacts(reader_state="idle", send_pending=True))
    'working'
    >>> derive_state(StateFacts(ended=True, dialog_pending=True))
    'ended'
    >>> derive_state(StateFacts(dialog_pending=True, run_answers=True))
    'working'
    """
    if facts.ended:
        return "ended"
    if facts.start_blocked:
        return "needs_input"
    if facts.dialog_pending:
        return "working" if facts.run_answers else "question"
    if facts.reader_state == "working":
        if facts.live_blocked:
            return "needs_input"
        return "idle" if facts.interrupted else "working"
    if facts.reader_state == "idle" and facts.send_pending:
        return "working"
    return facts.reader_state
