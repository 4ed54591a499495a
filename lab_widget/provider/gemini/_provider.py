"""Gemini CLI behind the seam: its TUI driven by the records in ``_compat.py``."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ...schema import ProviderCapabilities
from .. import ProviderMeta, SpawnPlan, StartupBlocker, kit
from . import _auth, _commands, _compat
from ._config import secure, trusted, user_dir
from ._files import chats_dir, epoch, legacy_chats_dir, peek_session, session_ref, sessions_since
from ._files import sessions as session_files
from ._signals import GeminiSignals, hook_settings
from ._transcript import GeminiTranscriptReader
from ._usage_scan import usage_summary

if TYPE_CHECKING:
    from ...schema import AuthDescriptor, AuthStatus, SessionSummary
    from .. import RunContext, SpawnRequest, SubmitWatch, Terminal, TranscriptReader, TranscriptRef

__all__ = ["GeminiProvider"]

_STATE = kit.RunFile("gemini.json")
"""What the spawn decided: the run's global dir, when, and whether it is isolated."""
_SIGNALS = GeminiSignals()
_SYSTEM_SETTINGS = "system-settings.json"
_SYSTEM_SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"


class GeminiProvider(kit.TuiProvider):
    """Gemini CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="gemini", display_name="Gemini CLI", binary="gemini", clear_command="/clear"
    )
    live_signals = _SIGNALS
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(dialog_kinds=list(_compat.DIALOG_KINDS), model_selection=True)

    def __init__(self) -> None:
        super().__init__()
        # Each located epoch's hook spool: its turn hooks tell the reader's state.
        self._spools: dict[str, Path] = {}
        # The latest run's spool and context, for checking that a reply landed.
        self._spool: Path | None = None
        self._context: RunContext | None = None

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        spool = _SIGNALS.spool(ctx)
        spool.mkdir(parents=True, exist_ok=True)
        self._spool, self._context = spool, ctx
        env: dict[str, str] = dict(_compat.SPAWN_ENV)
        secret: set[str] = set()
        unset: set[str] = set(_compat.HEADLESS_ENV)
        hooks = {_compat.HOOK_SETTINGS_KEY: hook_settings(spool)}
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            global_dir = home / _compat.GLOBAL_DIR
            global_dir.mkdir(parents=True, exist_ok=True)
            extra = request.options.get("settings")
            extra = extra if isinstance(extra, dict) else {}
            (global_dir / "settings.json").write_text(
                json.dumps({**_compat.SETTINGS, **extra, **hooks}, indent=2)
            )
            (global_dir / "trustedFolders.json").write_text(
                json.dumps({str(ctx.cwd): "TRUST_FOLDER"})
            )
            env.update(
                HOME=str(home),
                **{
                    _compat.ENV_KEY: request.endpoint.api_key,
                    _compat.ENV_BASE_URL: request.endpoint.base_url.rstrip("/"),
                },
            )
            secret.add(_compat.ENV_KEY)
            unset.update(_compat.USER_ENV)
            unset.add(_SYSTEM_SETTINGS_ENV)
        else:
            global_dir = user_dir()
            # The user's own settings stay untouched: the run's hooks come in as system
            # settings, merged over the user's. Gemini CLI skips a system settings file in a
            # folder others may write to; then the run goes without hooks.
            system = ctx.runtime_dir / _SYSTEM_SETTINGS
            if secure(system.parent):
                current = os.environ.get(_SYSTEM_SETTINGS_ENV) or _compat.SYSTEM_SETTINGS
                merged = {**kit.load_json(Path(current)), **hooks}
                system.write_text(json.dumps(merged, indent=2))
                env[_SYSTEM_SETTINGS_ENV] = str(system)
        _STATE.write(
            ctx,
            {
                "global_dir": str(global_dir),
                "spawned_at": time.time(),
                "isolated": request.endpoint is not None,
            },
        )
        argv = [str(request.binary)]
        if request.model:
            argv += ["--model", request.model]
        mode = request.options.get("approval_mode")
        if isinstance(mode, str):
            argv += ["--approval-mode", mode]
        return SpawnPlan(
            argv=argv,
            env=env,
            cwd=ctx.cwd,
            secret_env=frozenset(secret),
            unset_env=frozenset(unset),
        )

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        if request.endpoint is not None:
            return None  # the isolated settings pick the key and trust the folder
        status = self.auth_status()
        name = self.meta.display_name
        if not status.logged_in:
            return StartupBlocker(
                reason=f"{name} is not signed in and asks how to sign in first. Sign in in "
                "the terminal (attach command) or set GEMINI_API_KEY, then start the run again.",
                accept_hint="Open the terminal",
                acceptable=False,
            )
        if not trusted(request.context.cwd):
            return StartupBlocker(
                reason=f"{name} asks whether you trust the folder {request.context.cwd} before "
                "it starts. Answer it in the terminal (attach command).",
                accept_hint="Open the terminal",
                acceptable=False,
            )
        return None

    # -- transcript --------------------------------------------------------------------

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        starts = _SIGNALS.session_starts(context) or self._scan(context)
        if not starts:
            return current
        session_id, path = starts[-1]
        # Read lazily: the session file may be found before its SessionStart record.
        self._spools[session_id] = _SIGNALS.spool(context)
        if current is not None and current.transcript_id == session_id:
            return current
        if len(starts) > 1:
            self.opened_by_clear(session_id)
        return session_ref(session_id, path)

    def _hooked(self, context: RunContext) -> bool:
        """Whether the run's hooks fire (a SessionStart record was spooled)."""
        return bool(_SIGNALS.session_starts(context))

    def _scan(self, context: RunContext) -> list[tuple[str, Path]]:
        """The run's sessions without hook records: the folder's session files started
        since the spawn, oldest first.
        """
        state = _STATE.read(context)
        since = float(state.get("spawned_at") or 0.0) - 1.0
        return sessions_since(Path(str(state.get("global_dir") or user_dir())), context.cwd, since)

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        echo = self.clear_echo(ref)
        spool = self._spools.get(ref.transcript_id)
        turns = (lambda: kit.spool_records(spool)) if spool is not None else None
        return GeminiTranscriptReader(ref, clear_echo=echo, turn_signals=turns)

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return usage_summary(ref)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        return session_files(user_dir(), cwd)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        state = _STATE.read(context)
        if not state.get("isolated"):
            return []
        return session_files(Path(str(state["global_dir"])), context.cwd)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_session(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        paths = [_SIGNALS.spool(context)]
        if not self._hooked(context):
            # Without hooks a new session shows only as a new file in the session store.
            # Gemini CLI registers the folder in projects.json first, then writes there.
            state = _STATE.read(context)
            global_dir = Path(str(state.get("global_dir") or user_dir()))
            chats = chats_dir(global_dir, context.cwd)
            paths.append(chats if chats is not None else global_dir)
            paths.append(legacy_chats_dir(global_dir, context.cwd))
        return paths

    def is_ready(self, context: RunContext) -> bool:
        # The SessionStart hook runs while the TUI starts: a paste sent then lands, and the
        # confirmed submit repeats an Enter taken too early. Without hooks the session
        # file (written at start-up) tells, a while later.
        since = float(_STATE.read(context).get("spawned_at") or 0.0)
        for record in _SIGNALS.records(context):
            if record.get("hook_event_name") == "SessionStart":
                stamp = epoch(record.get("timestamp"))
                if stamp is not None and stamp >= since - 1.0:
                    return time.time() - stamp >= _compat.READY.settle
        scanned = self._scan(context)
        if not scanned:
            return False
        try:
            age = time.time() - scanned[0][1].stat().st_mtime
        except OSError:
            return False
        return age >= _compat.READY_WITHOUT_HOOKS.settle

    # -- input -------------------------------------------------------------------------

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        if not self._hooked(context):
            return None  # the paced reply checks the session file instead
        return kit.SpoolWatch(_SIGNALS.spool(context), (_compat.PROMPT_SUBMITTED,))

    def initial_prompt_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        # Before the spawn no SessionStart says the hooks fire: watch anyway (where they do
        # not, the session file's first user message confirms the prompt).
        return kit.SpoolWatch(_SIGNALS.spool(context), (_compat.PROMPT_SUBMITTED,))

    def reply(self, terminal: Terminal, text: str) -> None:
        spool, context = self._spool, self._context
        hooked = spool is not None and context is not None and self._hooked(context)
        paste = self.couplings.PASTE
        wait = paste.retry_after or 0.0
        if text.strip() in _compat.CLEAR_COMMANDS:
            # The next prompt must not reach the TUI before the new session is up.
            if spool is not None and hooked:
                with kit.SpoolWatch(spool, ("SessionStart",)) as opened:
                    paste.submit(terminal, text)
                    opened.wait(wait)
            else:
                paste.submit(terminal, text)
            # It then empties its prompt box, and nothing says when (see CLEAR_SETTLE).
            time.sleep(_compat.CLEAR_SETTLE.settle)
            return
        if text.lstrip().startswith("/"):
            paste.submit(terminal, text)
            return
        # An Enter that arrives while the TUI still starts up is lost (the text stays in the
        # prompt): a prompt that started no turn (no BeforeAgent hook; without hooks, nothing
        # written to the session file) gets one more Enter. An empty prompt ignores it.
        if spool is not None and hooked:
            with kit.SpoolWatch(spool, (_compat.PROMPT_SUBMITTED,)) as started_turn:
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
        found = _SIGNALS.session_starts(context) or self._scan(context)
        try:
            return found[-1][1].stat().st_size if found else -1
        except OSError:
            return -1

    # -- auth, capabilities ------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def health_note(self) -> str:
        return _compat.PERSONAL_ACCOUNTS_NOTE

    def auth_status(self) -> AuthStatus:
        return _auth.status()


def _wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()
