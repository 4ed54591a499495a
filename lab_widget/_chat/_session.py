"""The chat brain of one run: a lock, the incremental reader, epoch follow, derived state.

:class:`ChatSession` is the façade; its parts live beside it: the transcript followed across
clears (``_chat_epochs``), dialogs as the chat shows them (``_chat_dialogs``), the work a
send or an interrupt implies (``_chat_work``), the events and their listeners
(``_chat_events``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

from ..errors import AgentNotReadyError, ReplyDroppedError, RunEndedError, WaitTimeoutError
from ..provider import (
    AgentProvider,
    LiveSignals,
    RunContext,
    StartupBlocker,
    SubmitWatch,
    Terminal,
    TranscriptRef,
)
from ..schema import Dialog, Message, SessionSummary, State
from ._begun import BegunCalls, calls_folder
from ._dialogs import DialogOverlay
from ._epochs import EpochFollow
from ._events import ChatEvent, Epoch, Listener, Listeners, wait_until
from ._pending import WorkMarks, follow_watch
from ._state import StateFacts, derive_state

__all__ = ["ChatEvent", "ChatSession", "Epoch"]

_RESTATE_EVERY = 1.0
"""Seconds between looks at a working run's state for a change no read of the agent told."""

# Seconds after a change at which readiness is looked at again while a start-up screen
# waits: a TUI's ready signal may count only once it has settled (a moment after the event
# that brought it), and no other event may follow when the screen was answered in the TUI.
_READY_RECHECKS = (2.0, 5.0)

_BEGUN_LOOKBACK = 50
"""Messages looked back over for an approval whose call began: it is one of the last."""

_CHORE_EVERY = 0.2
"""Seconds between a main-thread wait's chores (:meth:`ChatSession.serve_between_waits`)."""


class ChatSession:
    """Owns the reader of a run and derives its state; safe to call from any thread."""

    def __init__(
        self,
        provider: AgentProvider,
        context: RunContext,
        terminal: Terminal,
        blocker: StartupBlocker | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        self.provider = provider
        self.context = context
        self.terminal = terminal
        self.blocker = blocker
        # Given: the lock of the run this chat continues (a restart), which its views hold.
        self._lock = lock if lock is not None else threading.RLock()
        # One send at a time: a submit is confirmed outside the run's lock.
        self._send_lock = threading.Lock()
        self.lock = self._lock
        """The run's lock: reading, listener calls and dialog answers happen under it."""
        self._changed = threading.Condition(self._lock)
        self._follow = EpochFollow(provider, context)
        self._dialogs = DialogOverlay(provider)
        self._calls = BegunCalls(calls_folder(context.runtime_dir))
        self._work = WorkMarks()
        self._listeners = Listeners(self._lock)
        self._ended = False
        self._last_screen = ""
        self._ready = False
        self._signature: object = None
        self.stopped = False
        """Set when the run was stopped from Python (so its end is not the agent's doing)."""
        self.run_answers: Callable[[Dialog], bool] | None = None
        """Whether a pending dialog is one the run answers itself (a tool approved for the
        run): the state stays ``working`` meanwhile, since no one else is to answer it."""
        self._ready_timer: threading.Timer | None = None
        self._state_timer: threading.Timer | None = None
        self._emitted: State | None = None
        self._chore: Callable[[], object] | None = None

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
        live = self.provider.live_signals
        with self._lock, live.snapshot(self.context) if live else nullcontext():
            before = self._state_locked()
            if not self._ready and self.provider.is_ready(self.context):
                self._ready = True
                self.blocker = None
            reading = self._follow.read(self._shown)
            reset = reading.reset
            begun = self._note_begun_locked()
            self._work.read(reset=reset, prompted=reading.prompted, count=self._follow.count)
            if self._work.clear_pending:
                echoed = any(self._is_clear(m) for m in reading.changed)
                self._work.clear_read(self.transcript_id, echoed=echoed)
            signature = live.signature(self.context) if live else None
            signals_moved = signature != self._signature
            self._signature = signature
            state = self._state_locked()
            if reading.changed or reset or state != before or signals_moved or begun is not None:
                changed = (
                    self.messages_locked()
                    if reset
                    else [self._dialogs.overlay(m) for m in reading.changed]
                )
                if begun is not None and not reset:
                    seen = {m.seq for m in changed}
                    changed += [
                        m
                        for m in self.messages_locked()
                        if m.dialog is not None and m.dialog.tool_id == begun and m.seq not in seen
                    ]
                    changed.sort(key=lambda m: m.seq)
                if signals_moved and not reset and self._dialogs.approvals:
                    # A permission prompt turns an existing tool message into a dialog.
                    seen = {m.seq for m in changed}
                    changed += [
                        m
                        for m in self.messages_locked()
                        if self._dialogs.prompted(m) and m.seq not in seen
                    ]
                    changed.sort(key=lambda m: m.seq)
                self._emit(ChatEvent(changed, reset, state, self.transcript_id))
                self._changed.notify_all()
            if live is not None and signals_moved:
                self._sweep(live)

    def _note_begun_locked(self) -> str | None:
        """An approval still waiting whose call the run's own tool server began (so the
        user approved it), now noted as answered; ``None`` when there is none.
        """
        if self._ended or not self._calls.folder.is_dir():
            return None
        calls = self._calls.read()
        if not calls:
            return None
        # The one the agent waits on, and those still shown waiting: a CLI that stops
        # asking once answered may still record the call as waiting for its approval, or
        # as a plain running call a permission prompt made a dialog.
        running: dict[str, dict[str, object]] = {}
        waiting: list[Dialog] = []
        for message in self._follow.messages[-_BEGUN_LOOKBACK:]:
            if message.tool is not None and message.tool.status == "running":
                running[message.tool.id] = message.tool.input
                prompted = self._dialogs.prompted_approval(message.tool.id)
                if prompted is not None:
                    waiting.append(prompted)
            if message.dialog is not None and message.dialog.status == "pending":
                waiting.append(message.dialog)
        pending = self._pending_locked()
        for dialog in [*([pending] if pending is not None else []), *reversed(waiting)]:
            tool_id = dialog.tool_id
            if dialog.kind != "approval" or not tool_id or self._dialogs.begun(tool_id):
                continue
            if any(call.answers(dialog, running.get(tool_id)) for call in calls):
                self._dialogs.note_begun(tool_id)
                return tool_id
        return None

    def _is_clear(self, message: Message) -> bool:
        command = self.provider.meta.clear_command
        return bool(command) and message.role == "user" and message.command == command

    @property
    def past(self) -> list[Epoch]:
        """The conversations a clear ended, oldest first, with their messages as last read."""
        with self._lock:
            return list(self._follow.past)

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        """Earlier conversations of this run (before each clear), oldest first."""
        return self._follow.past_refs

    def watch_paths(self) -> list[Path]:
        """The folders whose changes may mean something new to read (the tailer's watch)."""
        paths = self.provider.watch_paths(self.context)
        if self._calls.folder.is_dir():
            paths.append(self._calls.folder)
        if self.transcript_id is not None:
            ref = self.provider.locate_transcript(self.context, None)
            if ref is not None:
                paths += list(ref.watch)
        return paths

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
            if self._state_timer is not None:
                self._state_timer.cancel()
                self._state_timer = None
            self._emit(ChatEvent([], False, "ended", self.transcript_id))
            self._changed.notify_all()

    # -- derived views -----------------------------------------------------------------

    def messages_locked(self) -> list[Message]:
        return self._shown(self._follow.messages)

    def _shown(self, messages: list[Message]) -> list[Message]:
        if self._dialogs.active:
            return [self._dialogs.overlay(m) for m in messages]
        return messages

    def _pending_locked(self) -> Dialog | None:
        live = self.provider.live_signals
        signalled = live.pending_dialog(self.context) if live else None
        reader = self._follow.reader
        from_transcript = reader.pending_dialog if reader else None
        return self._dialogs.pending(signalled, from_transcript, self._follow.messages)

    @property
    def pending_dialog(self) -> Dialog | None:
        """The dialog the agent waits on now, if any."""
        with self._lock:
            if self._ended:
                return None
            return self._pending_locked()

    def restate(self) -> None:
        """Tell listeners and waiters the state again: a fact outside the reading changed
        (a dialog the run was to answer itself goes back to the user).
        """
        with self._lock:
            self._emit(ChatEvent([], False, self._state_locked(), self.transcript_id))
            self._changed.notify_all()

    def note_chosen(self, tool_id: str | None, label: str) -> None:
        """Remember the option a permission prompt was answered with (shown once it ends)."""
        if tool_id:
            with self._lock:
                self._dialogs.note_chosen(tool_id, label)

    def begun(self, tool_id: str | None) -> bool:
        """Whether the approval ``tool_id`` reads answered because its call began."""
        with self._lock:
            return self._dialogs.begun(tool_id)

    def note_mismatch(self, tool_id: str, warning: str) -> None:
        """Show on a dialog's message that the agent recorded other answers than intended."""
        with self._lock:
            self._dialogs.note_mismatch(tool_id, warning)
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
            reader = self._follow.reader
            if reader is None:
                return SessionSummary(cwd=str(self.context.cwd))
            return self.provider.live_session(self.context, reader.summary)

    @property
    def transcript_id(self) -> str | None:
        """The current epoch's id."""
        return self._follow.transcript_id

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
        pending = self._pending_locked()
        if pending is not None:
            answers = self.run_answers
            return StateFacts(dialog_pending=True, run_answers=bool(answers and answers(pending)))
        reader = self._follow.reader
        reader_state: State = reader.state if reader else "idle"
        if reader is not None and reader_state == "question":
            asked = reader.pending_dialog
            if asked is not None and self._dialogs.begun(asked.tool_id):
                # Its call began, so it was approved; the CLI's files may keep the prompt
                # open a while longer.
                reader_state = "working"
        live = self.provider.live_signals
        working = reader_state == "working"
        blocked = live.blocked(self.context) if live is not None and working else None
        return StateFacts(
            reader_state=reader_state,
            live_blocked=blocked,
            interrupted=self._work.interrupted,
            send_pending=self._work.send_pending or self._work.clear_pending,
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
        with self._send_lock:
            with self._lock:
                self._work.first_prompt()
                self._emit(ChatEvent([], False, self._state_locked(), self.transcript_id))
            if watch is not None:
                follow_watch(watch, timeout, confirmed, self._changed)
            done = False
            try:
                done = self.wait_for(
                    lambda: confirmed.is_set() or self._follow.prompted_ever or self._ended,
                    timeout,
                )
            finally:
                with self._lock:
                    self._work.first_prompt_done(confirmed=done and not self._ended)
            with self._lock:
                if self._ended:
                    said = f"; its last screen:\n{self._last_screen}" if self._last_screen else ""
                    raise RunEndedError(f"the agent ended before it took the first prompt{said}")
                if not done:
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
                if self._work.interrupted:
                    # Interrupted before any answer: the TUI put that prompt back in its box.
                    self.provider.discard_restored_input(self.terminal)
                    self._work.clear_interrupt()
                # Only an idle prompt box gets the confirmed submit: its repeated Enter
                # must never reach a picker (a dialog) or a turn's queue.
                idle = self._state_locked() == "idle"
                if counts_as_work:
                    # Set before the paste: a fast answer may be read while the submit is
                    # still being confirmed, and must end the pending send.
                    self._work.sent()
                clearing = text.split()[:1] == [self.provider.meta.clear_command]
                if clearing:
                    # Work until the new epoch and the command's echo are read, marked
                    # before the paste for the same reason.
                    self._work.clearing(self.transcript_id, self.provider.clear_grace)
                if not idle:
                    self.provider.reply(self.terminal, text)
                    confirmed: bool | None = None
            if idle:
                # Outside the lock: the tailer keeps reading while the CLI confirms.
                try:
                    confirmed = self.provider.submit(self.context, self.terminal, text)
                except BaseException:
                    self._work.dropped()
                    raise
            with self._lock:
                if clearing and not self.provider.clear_opens_epoch(self.context):
                    self._work.clear_submitted()
                state = self._state_locked()
                self._emit(ChatEvent([], False, state, self.transcript_id))
                self._changed.notify_all()
            if confirmed is False:
                with self._lock:
                    self._work.dropped()
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
            self._work.interrupted_at(self._follow.count)
            self._emit(ChatEvent([], False, self._state_locked(), self.transcript_id))
            self._changed.notify_all()

    def wait(self, timeout: float | None) -> State:
        """Block until the state is no longer ``working``; return it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        chore = self._chore_here()
        # Bounded waits so a pending send past its grace period is re-evaluated.
        step = 1.0 if chore is None else _CHORE_EVERY
        while True:
            with self._lock:
                state = self._state_locked()
                if state != "working":
                    return state
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise WaitTimeoutError(timeout or 0.0, state)
                self._changed.wait(step if left is None else min(left, step))
            if chore is not None:
                chore()

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds (re-checked on every change) or time runs out."""
        chore = self._chore_here()
        if chore is None:
            with self._lock:
                return wait_until(self._changed, predicate, timeout)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            with self._lock:
                if wait_until(self._changed, predicate, max(0.0, min(left, _CHORE_EVERY))):
                    return True
            if left <= 0:
                return False
            chore()

    def serve_between_waits(self, chore: Callable[[], object] | None) -> None:
        """Have a wait on the main thread call ``chore`` between its looks (``None``: stop).

        A cell that waits on the run holds its kernel's main thread, the one thread the
        agent's approved kernel calls may run on: the chore runs those the run left for it.
        """
        self._chore = chore

    def _chore_here(self) -> Callable[[], object] | None:
        if threading.current_thread() is not threading.main_thread():
            return None
        return self._chore

    # -- listeners ---------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every change; returns an unsubscribe function."""
        return self._listeners.subscribe(listener)

    def _emit(self, event: ChatEvent) -> None:
        self._listeners.emit(event)
        self._emitted = event.state
        if event.state == "working" and self._state_timer is None and not self._ended:
            self._watch_state()

    def _watch_state(self) -> None:
        # While working, a state may change with no read of the agent behind it (a sent
        # message's grace runs out, a live signal read on demand shows a prompt): look
        # again each second, and tell the listeners (the chat view) when it did.
        timer = threading.Timer(_RESTATE_EVERY, self._restate_if_changed)
        timer.daemon = True
        timer.name = "lab-widget-restate"
        self._state_timer = timer
        timer.start()

    def _restate_if_changed(self) -> None:
        with self._lock:
            self._state_timer = None
            if self._ended:
                return
            state = self._state_locked()
            if state != self._emitted:
                self._emit(ChatEvent([], False, state, self.transcript_id))
                self._changed.notify_all()
            elif state == "working":
                self._watch_state()
