"""The chat brain of one run: a lock, the incremental reader, epoch follow, derived state."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ._state import StateFacts, derive_state
from .errors import AgentNotReadyError, ReplyDroppedError, RunEndedError, WaitTimeoutError
from .provider import (
    ALWAYS_OUTCOME,
    APPROVE_ALWAYS,
    AgentProvider,
    LiveSignals,
    ReadResult,
    RunContext,
    StartupBlocker,
    SubmitWatch,
    Terminal,
    TranscriptReader,
    TranscriptRef,
)
from .schema import Answer, Dialog, Message, SessionSummary, State

__all__ = ["ChatEvent", "ChatSession", "Epoch"]

log = logging.getLogger(__name__)

# A sent message that never shows up in the transcript (a command that records nothing)
# stops counting as work after this long.
_PENDING_GRACE = 15.0

# Seconds after a change at which readiness is looked at again while a start-up screen
# waits: a TUI's ready signal may count only once it has settled (a moment after the event
# that brought it), and no other event may follow when the screen was answered in the TUI.
_READY_RECHECKS = (2.0, 5.0)


@dataclass(frozen=True)
class ChatEvent:
    """What changed: messages (new or updated), and/or a reset to a new epoch."""

    changed: list[Message]
    reset: bool
    state: State
    transcript_id: str | None


@dataclass(frozen=True)
class Epoch:
    """A conversation of the run that a clear ended, as the run last read it."""

    transcript_id: str
    messages: list[Message]


Listener = Callable[[ChatEvent], None]


class ChatSession:
    """Owns the reader of a run and derives its state; safe to call from any thread."""

    def __init__(
        self,
        provider: AgentProvider,
        context: RunContext,
        terminal: Terminal,
        blocker: StartupBlocker | None = None,
    ) -> None:
        self.provider = provider
        self.context = context
        self.terminal = terminal
        self.blocker = blocker
        self._lock = threading.RLock()
        # One send at a time: a submit is confirmed outside the run's lock.
        self._send_lock = threading.Lock()
        self.lock = self._lock
        """The run's lock: reading, listener calls and dialog answers happen under it."""
        self._changed = threading.Condition(self._lock)
        self._ref: TranscriptRef | None = None
        self._reader: TranscriptReader | None = None
        self._ended = False
        self._last_screen = ""
        self._ready = False
        self._pending_since: float | None = None
        # The first prompt the CLI's command line carries, until the CLI confirms it: the
        # pending send then waits for the CLI's start-up, however long, not the grace.
        self._first_pending = False
        # Set by an interrupt: the message count then. An agent interrupted before it
        # answered may record nothing, so "working" is not trusted until the transcript moves.
        self._interrupted_at: int | None = None
        self._user_count = 0
        self._user_seqs: dict[int, None] = {}
        self._count = 0
        self._listeners: list[Listener] = []
        # Answers played into a dialog, by tool id, and warnings for answers the agent
        # recorded differently: shown on the dialog's message (same seq).
        self._mismatch: dict[str, str] = {}
        self.past_epochs: list[TranscriptRef] = []
        """Earlier conversations of this run (before each clear), oldest first."""
        self._past: list[Epoch] = []
        # Tool calls that stopped at a permission prompt: their messages show as dialogs.
        self._approvals: dict[str, Dialog] = {}
        # The answer chosen for each of them ("Approve always" is not in the transcript).
        self._chosen: dict[str, str] = {}
        self._signature: object = None
        self.stopped = False
        """Set when the run was stopped from Python (so its end is not the agent's doing)."""
        self._ready_timer: threading.Timer | None = None

    # -- reading -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Pick up everything new: readiness, a new epoch, appended transcript lines."""
        self._refresh()
        self._recheck_readiness(0)

    def _recheck_readiness(self, step: int) -> None:
        with self._lock:
            if self._ready_timer is not None:
                self._ready_timer.cancel()
                self._ready_timer = None
            if self._ready or self._ended or self.blocker is None or step >= len(_READY_RECHECKS):
                return
            delay = _READY_RECHECKS[step] - (_READY_RECHECKS[step - 1] if step else 0.0)

            def again() -> None:
                self._refresh()
                self._recheck_readiness(step + 1)

            timer = threading.Timer(delay, again)
            timer.daemon = True
            self._ready_timer = timer
            timer.start()

    def _refresh(self) -> None:
        with self._lock:
            before = self._state_locked()
            if not self._ready and self.provider.is_ready(self.context):
                self._ready = True
                self.blocker = None
            ref = self.provider.locate_transcript(self.context, self._ref)
            reset = False
            if ref is not None and (
                self._ref is None or ref.transcript_id != self._ref.transcript_id
            ):
                reset = self._ref is not None
                if self._ref is not None:
                    self.past_epochs.append(self._ref)
                    self._past.append(self._close_epoch(self._ref))
                self._ref = ref
                self._reader = self.provider.open_reader(ref)
                self._user_count = 0
                self._user_seqs, self._count = {}, 0
            result = self._reader.read() if self._reader else ReadResult(changed=[])
            reset = reset or result.reset
            if reset:
                self._pending_since = None  # the new epoch is what the last command did
            self._count_messages(result.changed, reset)
            if self._interrupted_at is not None and (reset or self._count != self._interrupted_at):
                self._interrupted_at = None
            users = len(self._user_seqs)
            if users > self._user_count:
                self._pending_since = None
            self._user_count = users
            live = self.provider.live_signals
            signature = live.signature(self.context) if live else None
            signals_moved = signature != self._signature
            self._signature = signature
            state = self._state_locked()
            if result.changed or reset or state != before or signals_moved:
                changed = (
                    self.messages_locked() if reset else [self._overlay(m) for m in result.changed]
                )
                if signals_moved and not reset and self._approvals:
                    # A permission prompt turns an existing tool message into a dialog.
                    seen = {m.seq for m in changed}
                    changed += [
                        m
                        for m in self.messages_locked()
                        if m.kind == "dialog"
                        and m.tool is not None
                        and m.tool.id in self._approvals
                        and m.seq not in seen
                    ]
                    changed.sort(key=lambda m: m.seq)
                self._emit(ChatEvent(changed, reset, state, self.transcript_id))
                self._changed.notify_all()
            if live is not None and signals_moved:
                self._sweep(live)

    def _close_epoch(self, ref: TranscriptRef) -> Epoch:
        # What the agent wrote last before the clear may not have been read yet.
        if self._reader is not None:
            self._reader.read()
        return Epoch(ref.transcript_id, self.messages_locked())

    @property
    def past(self) -> list[Epoch]:
        """The conversations a clear ended, oldest first, with their messages as last read."""
        with self._lock:
            return list(self._past)

    def watch_paths(self) -> list[Path]:
        """The folders whose changes may mean something new to read (the tailer's watch)."""
        paths = self.provider.watch_paths(self.context)
        if self.transcript_id is not None:
            ref = self.provider.locate_transcript(self.context, None)
            if ref is not None:
                paths += list(ref.watch)
        return paths

    def _count_messages(self, changed: list[Message], reset: bool) -> None:
        # Counted from what changed, never by walking the whole conversation: the cost of
        # an append must not grow with the length of the chat.
        if reset:
            self._user_seqs = {}
            self._count = 0
            changed = self._reader.messages if self._reader else []
        for m in changed:
            self._count = max(self._count, m.seq + 1)
            if m.role == "user" and m.kind == "text":
                self._user_seqs[m.seq] = None
            else:
                self._user_seqs.pop(m.seq, None)

    def _sweep(self, live: LiveSignals) -> None:
        # Records that can no longer change an answer go, so reading the channel costs the
        # same late in a long run as early.
        live.sweep(self.context)
        self._signature = live.signature(self.context)

    @property
    def last_screen(self) -> str:
        """The agent's last lines when its process ended by itself ("" otherwise)."""
        with self._lock:
            return self._last_screen

    def mark_ended(self, last_screen: str = "") -> None:
        """The agent's process is gone; ``last_screen`` is what it showed last, if known."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
            self._last_screen = last_screen
            if self._ready_timer is not None:
                self._ready_timer.cancel()
                self._ready_timer = None
            self._emit(ChatEvent([], False, "ended", self.transcript_id))
            self._changed.notify_all()

    # -- derived views -----------------------------------------------------------------

    def messages_locked(self) -> list[Message]:
        messages = self._reader.messages if self._reader else []
        if self._mismatch or self._approvals or self._chosen:
            messages = [self._overlay(m) for m in messages]
        return messages

    def _overlay(self, message: Message) -> Message:
        tool = message.tool
        if message.dialog is None and tool is not None and tool.id in self._approvals:
            approval = self._approvals[tool.id]
            if tool.status != "running":
                # How it was answered is the provider's to read from the call's result.
                outcome = self.provider.approval_outcome(tool)
                chosen = self._chosen.get(tool.id)
                always = outcome == "approved" and chosen == APPROVE_ALWAYS
                said = ALWAYS_OUTCOME if always else outcome
                approval = approval.model_copy(
                    update={
                        "status": "rejected" if outcome == "rejected" else "answered",
                        "outcome": said,
                        "answers": [Answer(selected=[chosen])] if chosen else approval.answers,
                    }
                )
            message = message.model_copy(update={"kind": "dialog", "dialog": approval})
        dialog = message.dialog
        if (
            dialog is not None
            and dialog.kind == "approval"
            and dialog.status == "answered"
            and self._chosen.get(dialog.tool_id or "") == APPROVE_ALWAYS
        ):
            # The transcript tells approved from rejected only: the choice is the chat's.
            dialog = dialog.model_copy(
                update={"outcome": ALWAYS_OUTCOME, "answers": [Answer(selected=[APPROVE_ALWAYS])]}
            )
            message = message.model_copy(update={"dialog": dialog})
        if dialog is None or dialog.tool_id not in self._mismatch:
            return message
        warning = self._mismatch[dialog.tool_id or ""]
        return message.model_copy(
            update={"level": "warning", "dialog": dialog.model_copy(update={"outcome": warning})}
        )

    def _pending_locked(self) -> Dialog | None:
        live = self.provider.live_signals
        signalled = live.pending_dialog(self.context) if live else None
        if signalled is not None and self._resolved(signalled.tool_id):
            signalled = None  # the transcript already has its result
        from_transcript = self._reader.pending_dialog if self._reader else None
        if signalled is not None and (
            from_transcript is None or from_transcript.tool_id != signalled.tool_id
        ):
            if signalled.kind == "approval" and signalled.tool_id:
                self._approvals.setdefault(signalled.tool_id, signalled)
            return signalled
        if from_transcript is not None and signalled is not None and not from_transcript.body:
            # The live channel may carry what the transcript leaves out (a plan's text).
            return from_transcript.model_copy(update={"body": signalled.body})
        return from_transcript  # the same dialog, with what only the transcript knows

    def _resolved(self, tool_id: str | None) -> bool:
        if self._reader is None or tool_id is None:
            return False
        for message in reversed(self._reader.messages):
            if message.tool is not None and message.tool.id == tool_id:
                return message.tool.status != "running"
        return False

    @property
    def pending_dialog(self) -> Dialog | None:
        """The dialog the agent waits on now, if any."""
        with self._lock:
            if self._ended:
                return None
            return self._pending_locked()

    def note_chosen(self, tool_id: str | None, label: str) -> None:
        """Remember the option a permission prompt was answered with (shown once it ends)."""
        if tool_id:
            with self._lock:
                self._chosen[tool_id] = label

    def note_mismatch(self, tool_id: str, warning: str) -> None:
        """Show on a dialog's message that the agent recorded other answers than intended."""
        with self._lock:
            self._mismatch[tool_id] = warning
            changed = [
                m for m in self.messages_locked() if m.dialog and m.dialog.tool_id == tool_id
            ]
            self._emit(ChatEvent(changed, False, self._state_locked(), self.transcript_id))
            self._changed.notify_all()

    @property
    def messages(self) -> list[Message]:
        """The current epoch's messages."""
        with self._lock:
            return self.messages_locked()

    @property
    def summary(self) -> SessionSummary:
        """Session-wide facts of the current epoch."""
        with self._lock:
            if self._reader is None:
                return SessionSummary(cwd=str(self.context.cwd))
            return self.provider.live_session(self.context, self._reader.summary)

    @property
    def transcript_id(self) -> str | None:
        """The current epoch's id."""
        return self._ref.transcript_id if self._ref else None

    @property
    def ended(self) -> bool:
        """Whether the agent's process is gone."""
        return self._ended

    @property
    def ready(self) -> bool:
        """Whether the TUI takes input."""
        return self._ready

    def _state_locked(self) -> State:
        return derive_state(self._facts_locked())

    def _facts_locked(self) -> StateFacts:
        # Gathered in the rule's order, and only as far as the rule looks: the dialog lookup
        # reads the live channel (and records approval prompts), which an ended run or one
        # behind its start-up screen must not do.
        ended = self._ended
        start_blocked = self.blocker is not None and not self._ready
        if ended or start_blocked:
            return StateFacts(ended=ended, start_blocked=start_blocked)
        if self._pending_locked() is not None:
            return StateFacts(dialog_pending=True)
        reader_state: State = self._reader.state if self._reader else "idle"
        live = self.provider.live_signals
        working = reader_state == "working"
        blocked = live.blocked(self.context) if live is not None and working else None
        since = self._pending_since
        if (
            since is not None
            and not self._first_pending
            and time.monotonic() - since >= _PENDING_GRACE
        ):
            self._pending_since = None  # a command that records nothing: stop waiting
        return StateFacts(
            reader_state=reader_state,
            live_blocked=blocked,
            interrupted=self._interrupted_at is not None,
            send_pending=self._pending_since is not None,
        )

    @property
    def state(self) -> State:
        """The conversational state."""
        with self._lock:
            return self._state_locked()

    @property
    def needs_input_reason(self) -> str | None:
        """Why the run is ``needs_input`` before it took input, when it is."""
        blocker = self.blocker
        return blocker.reason if blocker is not None and self.state == "needs_input" else None

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended, in words; empty otherwise."""
        state = self.state
        if state == "needs_input":
            return self.needs_input_reason or ""
        if state != "ended":
            return ""
        if self.stopped:
            return "This run was stopped."
        said = self.last_screen.splitlines()[-4:]
        last = ("\n" + "\n".join(said)) if said else ""
        name = self.provider.meta.display_name
        return f"{name} has exited; start a new run to continue.{last}"

    # -- acting ------------------------------------------------------------------------

    def wait_ready(self, timeout: float) -> None:
        """Block until the TUI takes input."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._ready:
                if self._ended:
                    said = f"; its last screen:\n{self._last_screen}" if self._last_screen else ""
                    raise RunEndedError(f"the agent ended before it was ready{said}")
                if self.blocker is not None:
                    raise AgentNotReadyError(self.blocker.reason)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AgentNotReadyError(
                        f"{self.provider.meta.display_name} was not ready for input after "
                        f"{timeout:g} s"
                    )
                self._changed.wait(min(left, 1.0))
                if self.provider.is_ready(self.context):
                    self.refresh()

    def confirm_first_prompt(self, watch: SubmitWatch | None, timeout: float) -> None:
        """Wait until the CLI confirms the first prompt its command line carried: ``watch``
        (begun before the spawn, closed here) or its user message in the transcript.

        The run is ``working`` meanwhile. Raises :class:`~lab_widget.errors.RunEndedError`
        when the agent ends first and :class:`~lab_widget.errors.ReplyDroppedError` when
        nothing confirmed it within ``timeout`` seconds; the prompt is never typed again.
        """
        confirmed = threading.Event()

        def follow(watching: SubmitWatch) -> None:
            try:
                if watching.wait(timeout):
                    confirmed.set()
                    with self._lock:
                        self._changed.notify_all()
            finally:
                watching.close()

        with self._send_lock:
            with self._lock:
                self._pending_since = time.monotonic()
                self._first_pending = True
                self._emit(ChatEvent([], False, self._state_locked(), self.transcript_id))
            if watch is not None:
                threading.Thread(
                    target=follow, args=(watch,), name="lab-widget-first-prompt", daemon=True
                ).start()
            try:
                done = self.wait_for(
                    lambda: confirmed.is_set() or bool(self._user_seqs) or self._ended, timeout
                )
            finally:
                with self._lock:
                    self._first_pending = False
                    if self._pending_since is not None:
                        # From the confirmation on, the grace of any send.
                        self._pending_since = time.monotonic()
            with self._lock:
                if self._ended:
                    said = f"; its last screen:\n{self._last_screen}" if self._last_screen else ""
                    raise RunEndedError(f"the agent ended before it took the first prompt{said}")
                if not done:
                    self._pending_since = None
                    raise ReplyDroppedError(
                        f"{self.provider.meta.display_name} did not confirm the first prompt "
                        f"within {timeout:g} s of its start; look in the run's terminal."
                    )
                self._emit(ChatEvent([], False, self._state_locked(), self.transcript_id))
                self._changed.notify_all()

    def send(self, text: str, *, counts_as_work: bool = True) -> None:
        """Type ``text`` into the agent and submit it.

        Into an idle agent the submit is confirmed by the CLI where it can say so (the
        provider's :meth:`~lab_widget.provider.AgentProvider.submit`); raises
        :class:`~lab_widget.errors.ReplyDroppedError` when it never did. In any other state
        the paced recipe plays once: a reply while the agent works is best effort (the TUI
        may queue it until its turn ends).
        """
        with self._send_lock:
            with self._lock:
                if self._ended:
                    raise RunEndedError("the agent has ended; start a new run")
                if self._interrupted_at is not None:
                    # Interrupted before any answer: the TUI put that prompt back in its box.
                    self.provider.discard_restored_input(self.terminal)
                    self._interrupted_at = None
                # Only an idle prompt box gets the confirmed submit: its repeated Enter
                # must never reach a picker (a dialog) or a turn's queue.
                idle = self._state_locked() == "idle"
                if counts_as_work:
                    # Set before the paste: a fast answer may be read while the submit is
                    # still being confirmed, and must end the pending send.
                    self._pending_since = time.monotonic()
                if not idle:
                    self.provider.reply(self.terminal, text)
                    confirmed: bool | None = None
            if idle:
                # Outside the lock: the tailer keeps reading while the CLI confirms.
                try:
                    confirmed = self.provider.submit(self.context, self.terminal, text)
                except BaseException:
                    self._pending_since = None
                    raise
            with self._lock:
                state = self._state_locked()
                self._emit(ChatEvent([], False, state, self.transcript_id))
                self._changed.notify_all()
            if confirmed is False:
                with self._lock:
                    self._pending_since = None
                raise ReplyDroppedError(
                    f"{self.provider.meta.display_name} did not take the message: it never "
                    "confirmed it was submitted. It may still be in its prompt box; look in "
                    "the run's terminal."
                )

    def interrupt(self) -> None:
        """Stop the current turn."""
        with self._lock:
            if self._ended:
                raise RunEndedError("the agent has ended")
            self.provider.interrupt(self.terminal)
            self._pending_since = None
            self._interrupted_at = self._count
            self._emit(ChatEvent([], False, self._state_locked(), self.transcript_id))
            self._changed.notify_all()

    def wait(self, timeout: float | None) -> State:
        """Block until the state is no longer ``working``; return it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                state = self._state_locked()
                if state != "working":
                    return state
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise WaitTimeoutError(timeout or 0.0, state)
                # Bounded waits so a pending send past its grace period is re-evaluated.
                self._changed.wait(1.0 if left is None else min(left, 1.0))

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds (re-checked on every change) or time runs out."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 1.0))
            return True

    # -- listeners ---------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every change; returns an unsubscribe function."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, event: ChatEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("chat listener failed")
