"""A TUI whose hooks name its sessions and bracket its turns: the base a CLI family shares.

Gemini CLI and the CLIs forked from it spool a ``SessionStart`` hook record naming each new
session's file (at start-up and after the clear command), a hook record when a submitted
prompt starts its turn, and write each session to a file of its own. What one member calls
these events, which settle times it needs and where its session files are is a
:class:`SessionHooks` record and a few methods of its subclass; locating the session,
readiness, the confirmed submit and the clear's wait are played here once for all of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from ._couplings import ReadySignal
from ._hook_signals import HookSignals, spool_records
from ._lenient import iso_time
from ._spawn import RunFile
from ._submit import SpoolWatch
from ._tui import TuiProvider

if TYPE_CHECKING:
    from ..schema import SessionSummary
    from ._seam import Terminal, TranscriptReader
    from ._seam_records import RunContext, SpawnPlan, TranscriptRef
    from ._submit import SubmitWatch

__all__ = ["HookSessionProvider", "SessionFiles", "SessionHooks"]


class SessionFiles(Protocol):
    """Where a family member keeps a folder's sessions under its global dir (a module of
    functions satisfies it).
    """

    def sessions(self, global_dir: Path, cwd: Path) -> list[TranscriptRef]:
        """``cwd``'s sessions, oldest first."""
        ...

    def sessions_since(self, global_dir: Path, cwd: Path, since: float) -> list[tuple[str, Path]]:
        """``cwd``'s sessions written since ``since``, ``(session id, file)``, oldest first."""
        ...

    def session_ref(self, session_id: str, path: Path) -> TranscriptRef:
        """The ref of the session a ``SessionStart`` record named."""
        ...


@dataclass(frozen=True)
class SessionHooks:
    """What a hook-driven TUI's hooks and session files say, and the pauses they leave."""

    prompt_submitted: str
    """The hook event a submitted prompt fires once its turn starts."""
    clear_commands: tuple[str, ...]
    """The builtins that start a new session (the first is the one lab_widget sends)."""
    ready: ReadySignal
    """The settle after the run's ``SessionStart`` record."""
    ready_without_hooks: ReadySignal
    """The settle after the run's first session file, when no hook fires."""
    clear_settle: ReadySignal
    """The pause after a clear's new session before the next prompt."""
    session_start: str = "SessionStart"
    """The hook event that names a new session and its file."""
    file_at_start: bool = True
    """Whether the CLI writes a session's file as the session starts; when it waits for the
    first prompt, a run without hooks is ready ``ready_without_hooks`` after the spawn."""


class HookSessionProvider(TuiProvider):
    """A TUI driven by its hook spool (:attr:`live_signals`, a :class:`HookSignals`) and its
    session files, as :attr:`session_hooks` describes them.

    A subclass sets :attr:`session_hooks`, :attr:`run_file` (where ``plan_spawn`` notes
    ``spawned_at``, the run's ``global_dir`` and whether it is ``isolated``),
    :attr:`session_files`, :attr:`reader_type` and :attr:`usage_scan`, and gives the user's
    global dir (:meth:`user_dir`).
    """

    session_hooks: ClassVar[SessionHooks]
    run_file: ClassVar[RunFile]
    session_files: ClassVar[SessionFiles]
    reader_type: ClassVar[Callable[..., TranscriptReader]]
    """Called with the ref, ``clear_echo=`` and ``turn_signals=`` (the run's hook records)."""
    usage_scan: ClassVar[Callable[[TranscriptRef], SessionSummary]]
    """A session's usage without its messages."""
    live_signals: HookSignals

    def __init__(self) -> None:
        super().__init__()
        # Each located epoch's hook spool: its turn hooks tell the reader's state.
        self._spools: dict[str, Path] = {}
        # The latest run's spool and context, for checking that a reply landed.
        self._spool: Path | None = None
        self._context: RunContext | None = None

    def remember_spawn(self, context: RunContext) -> Path:
        """The run's hook spool, made; the run is the one :meth:`reply` checks."""
        spool = self.live_signals.spool(context)
        spool.mkdir(parents=True, exist_ok=True)
        self._spool, self._context = spool, context
        return spool

    def spawn_plan(
        self,
        context: RunContext,
        global_dir: Path,
        plan: SpawnPlan,
        *,
        isolated: bool,
        hooked: bool = False,
        **facts: object,
    ) -> SpawnPlan:
        """Note in :attr:`run_file` what the spawn decided (the run's global dir, when,
        whether it is isolated, and whether its hooks surely fire: then only the
        ``SessionStart`` record says it is ready, however slow the start, and any other
        ``facts``), and give back ``plan``, the spawn that plays it.
        """
        self.run_file.note_spawn(
            context, isolated=isolated, global_dir=str(global_dir), hooked=hooked, **facts
        )
        return plan

    def user_dir(self) -> Path:
        """The user's own global dir."""
        raise NotImplementedError(f"{type(self).__name__}.user_dir")

    def global_dir(self, context: RunContext) -> Path:
        """The run's global dir (its isolated one, or the user's)."""
        return self.run_file.path_of(context, "global_dir", self.user_dir())

    def scan_sessions(self, context: RunContext) -> list[tuple[str, Path]]:
        """The run's sessions without hook records: the folder's session files written
        since the spawn, oldest first.
        """
        since = self.run_file.spawned_at(context) - 1.0
        return self.session_files.sessions_since(self.global_dir(context), context.cwd, since)

    # -- transcript --------------------------------------------------------------------

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        starts = self.live_signals.session_starts(context) or self.scan_sessions(context)
        if not starts:
            return current
        session_id, path = starts[-1]
        # Read lazily: the session file may be found before its SessionStart record.
        self._spools[session_id] = self.live_signals.spool(context)
        if current is not None and current.transcript_id == session_id:
            return current
        if len(starts) > 1:
            self.opened_by_clear(session_id)
        return self.session_files.session_ref(session_id, path)

    def hooked(self, context: RunContext) -> bool:
        """Whether the run's hooks fire (a SessionStart record was spooled)."""
        return bool(self.live_signals.session_starts(context))

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        spool = self._spools.get(ref.transcript_id)
        turns = (lambda: spool_records(spool)) if spool is not None else None
        return type(self).reader_type(ref, clear_echo=self.clear_echo(ref), turn_signals=turns)

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return type(self).usage_scan(ref)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        return self.session_files.sessions(self.user_dir(), cwd)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        if not self.run_file.isolated(context):
            return []
        return self.session_files.sessions(self.global_dir(context), context.cwd)

    def is_ready(self, context: RunContext) -> bool:
        # The SessionStart hook runs while the TUI starts: a paste sent then lands, and the
        # confirmed submit repeats an Enter taken too early. Without hooks the session
        # file tells, a while later.
        hooks = self.session_hooks
        facts = self.run_file.read(context)
        since = float(facts.get("spawned_at") or 0.0)
        for record in self.live_signals.records(context):
            if record.get("hook_event_name") == hooks.session_start:
                stamp = iso_time(record.get("timestamp"))
                if stamp is not None and stamp.timestamp() >= since - 1.0:
                    return time.time() - stamp.timestamp() >= hooks.ready.settle
        if facts.get("hooked"):
            return False  # its hooks fire: a slow start is no start without them
        if not hooks.file_at_start:
            return time.time() - since >= hooks.ready_without_hooks.settle
        scanned = self.scan_sessions(context)
        if not scanned:
            return False
        try:
            age = time.time() - scanned[0][1].stat().st_mtime
        except OSError:
            return False
        return age >= hooks.ready_without_hooks.settle

    # -- input -------------------------------------------------------------------------

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        if not self.hooked(context):
            return None  # the paced reply checks the session file instead
        return SpoolWatch(self.live_signals.spool(context), (self.session_hooks.prompt_submitted,))

    def initial_prompt_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        # Before the spawn no SessionStart says the hooks fire: watch anyway (where they do
        # not, the session file's first user message confirms the prompt).
        return SpoolWatch(self.live_signals.spool(context), (self.session_hooks.prompt_submitted,))

    def reply(self, terminal: Terminal, text: str) -> None:
        spool, context, hooks = self._spool, self._context, self.session_hooks
        hooked = spool is not None and context is not None and self.hooked(context)
        paste = self.couplings.PASTE
        wait = paste.retry_after or 0.0
        if text.strip() in hooks.clear_commands:
            # The next prompt must not reach the TUI before the new session is up.
            if spool is not None and hooked:
                with SpoolWatch(spool, (hooks.session_start,)) as opened:
                    paste.submit(terminal, text)
                    opened.wait(wait)
            else:
                paste.submit(terminal, text)
            # It then empties its prompt box, and nothing says when (``clear_settle``).
            time.sleep(hooks.clear_settle.settle)
            return
        if text.lstrip().startswith("/"):
            paste.submit(terminal, text)
            return
        # An Enter that arrives while the TUI still starts up is lost (the text stays in the
        # prompt): a prompt that started no turn (no prompt hook; without hooks, nothing
        # written to the session file) gets one more Enter. An empty prompt ignores it.
        if spool is not None and hooked:
            with SpoolWatch(spool, (hooks.prompt_submitted,)) as started_turn:
                paste.submit(terminal, text)
                started = started_turn.wait(wait)
        else:
            size = self._session_size(context)
            paste.submit(terminal, text)
            started = _wait_for(lambda: self._session_size(context) != size, wait)
        if not started:
            terminal.keys(paste.submit_key)

    def _session_size(self, context: RunContext | None) -> int:
        if context is None:
            return -1
        found = self.live_signals.session_starts(context) or self.scan_sessions(context)
        try:
            return found[-1][1].stat().st_size if found else -1
        except OSError:
            return -1


def _wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()
