"""Work the transcript does not show yet: a message just sent, a turn just interrupted.

A sent message counts as work from the paste until the transcript records its prompt (or a
new epoch begins), and for :data:`PENDING_GRACE` seconds at most: a command may record
nothing. An interrupt stops a turn the agent may not have recorded either, so until the
transcript moves again its "working" is not trusted, and the prompt the TUI put back in its
box is discarded before the next send.
"""

from __future__ import annotations

import threading
import time

from ..provider import SubmitWatch

__all__ = ["PENDING_GRACE", "WorkMarks", "follow_watch"]

PENDING_GRACE = 15.0
"""Seconds after which a sent message that never showed up stops counting as work."""


class WorkMarks:
    """What a send and an interrupt said about the agent's work, until the transcript says.

    Not locked itself: the chat keeps it under its lock.

    Examples
    --------
    >>> marks = WorkMarks()
    >>> marks.sent()
    >>> marks.send_pending
    True
    >>> marks.read(reset=False, prompted=True, count=3)
    >>> marks.send_pending
    False
    >>> marks.interrupted_at(3)
    >>> marks.interrupted
    True
    >>> marks.read(reset=False, prompted=False, count=4)
    >>> marks.interrupted
    False
    """

    def __init__(self) -> None:
        self._pending_since: float | None = None
        # The message count at an interrupt. An agent interrupted before it answered may
        # record nothing, so "working" is not trusted until the transcript moves.
        self._interrupted_at: int | None = None
        self._first = False

    def first_prompt(self) -> None:
        """The CLI's command line carries a first prompt: work until the CLI confirms it,
        however long its start-up takes (no grace meanwhile).
        """
        self._pending_since = time.monotonic()
        self._first = True

    def first_prompt_done(self, *, confirmed: bool) -> None:
        """The wait for the first prompt ended; from a confirmation on, a send's grace."""
        self._first = False
        if not confirmed:
            self._pending_since = None
        elif self._pending_since is not None:
            self._pending_since = time.monotonic()

    def sent(self) -> None:
        """A message was (or is being) sent, counting as work."""
        self._pending_since = time.monotonic()

    def dropped(self) -> None:
        """The send failed or was interrupted: nothing pending any more."""
        self._pending_since = None

    def interrupted_at(self, count: int) -> None:
        """The turn was interrupted when the transcript held ``count`` messages."""
        self._pending_since = None
        self._interrupted_at = count

    def clear_interrupt(self) -> None:
        """The prompt an interrupt put back in the TUI's box was discarded."""
        self._interrupted_at = None

    def read(self, *, reset: bool, prompted: bool, count: int) -> None:
        """What a read of the transcript showed: a new epoch, a new prompt, its message count."""
        if reset or prompted:
            self._pending_since = None  # the new epoch, or the prompt, is what was sent
        if self._interrupted_at is not None and (reset or count != self._interrupted_at):
            self._interrupted_at = None

    @property
    def interrupted(self) -> bool:
        """Whether an interrupt's turn has left no trace in the transcript yet."""
        return self._interrupted_at is not None

    @property
    def send_pending(self) -> bool:
        """Whether a sent message still counts as work (it expires after the grace)."""
        since = self._pending_since
        if since is not None and not self._first and time.monotonic() - since >= PENDING_GRACE:
            self._pending_since = None  # a command that records nothing: stop waiting
        return self._pending_since is not None


def follow_watch(
    watch: SubmitWatch, timeout: float, confirmed: threading.Event, changed: threading.Condition
) -> None:
    """Wait for ``watch`` in a thread of its own, closing it after; when it confirms, set
    ``confirmed`` and wake whoever waits on ``changed``.
    """

    def follow() -> None:
        try:
            if watch.wait(timeout):
                confirmed.set()
                with changed:
                    changed.notify_all()
        finally:
            watch.close()

    threading.Thread(target=follow, name="lab-widget-first-prompt", daemon=True).start()
