"""Gemini CLI behind the seam."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ...schema import (
    AuthDescriptor,
    AuthStatus,
    CommandSpec,
    Dialog,
    DialogAnswer,
    ProviderCapabilities,
    SeedMeta,
    ToolCall,
)
from .. import (
    AgentProvider,
    ApprovalOutcome,
    ProviderMeta,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    Terminal,
    TranscriptReader,
    TranscriptRef,
    approval_said_in_result,
    load_json,
)
from . import _auth, _commands, _compat
from ._config import secure, trusted, user_dir
from ._dialogs import play, recipe
from ._files import chats_dir, legacy_chats_dir, peek_session, read_header, session_ref
from ._files import sessions as session_files
from ._signals import SPOOL, GeminiSignals, hook_settings, signals
from ._transcript import GeminiTranscriptReader

__all__ = ["GeminiProvider"]

_STATE_FILE = "gemini.json"
_SYSTEM_SETTINGS = "system-settings.json"
_SYSTEM_SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"


class GeminiProvider(AgentProvider):
    """Gemini CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="gemini", display_name="Gemini CLI", binary="gemini", clear_command="/clear"
    )
    live_signals = GeminiSignals()

    def __init__(self) -> None:
        # Epochs that a /clear opened (not the run's first): their readers start with its echo.
        self._after_clear: set[str] = set()
        # Each located epoch's hook spool: its turn hooks tell the reader's state.
        self._spools: dict[str, Path] = {}
        # The latest run's spool and context, for checking that a reply landed.
        self._spool: Path | None = None
        self._context: RunContext | None = None

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        spool = ctx.runtime_dir / SPOOL
        spool.mkdir(parents=True, exist_ok=True)
        self._spool, self._context = spool, ctx
        env: dict[str, str] = dict(_compat.SPAWN_ENV)
        secret: set[str] = set()
        unset: set[str] = set(_compat.HEADLESS_ENV)
        hooks = {_compat.HOOK_SETTINGS_KEY: hook_settings(spool)}
        if request.endpoint is not None:
            home = ctx.runtime_dir / "home"
            global_dir = home / _compat.GLOBAL_DIR
            global_dir.mkdir(parents=True, exist_ok=True)
            (global_dir / "settings.json").write_text(
                json.dumps({**_compat.SETTINGS, **hooks}, indent=2)
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
                merged = {**load_json(Path(current)), **hooks}
                system.write_text(json.dumps(merged, indent=2))
                env[_SYSTEM_SETTINGS_ENV] = str(system)
        (ctx.runtime_dir / _STATE_FILE).write_text(
            json.dumps(
                {
                    "global_dir": str(global_dir),
                    "spawned_at": time.time(),
                    "isolated": request.endpoint is not None,
                }
            )
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

    def _run_state(self, context: RunContext) -> dict[str, Any]:
        return load_json(context.runtime_dir / _STATE_FILE)

    def _starts(self, context: RunContext) -> list[tuple[str, Path]]:
        """The run's sessions, oldest first, from its SessionStart hook records."""
        found: dict[str, Path] = {}
        for record in signals(context.runtime_dir / SPOOL):
            if record.get("hook_event_name") != "SessionStart":
                continue
            session_id, path = record.get("session_id"), record.get("transcript_path")
            if session_id and path and str(session_id) not in found:
                found[str(session_id)] = Path(str(path))
        return list(found.items())

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        starts = self._starts(context) or self._scan(context)
        if not starts:
            return current
        session_id, path = starts[-1]
        # Read lazily: the session file may be found before its SessionStart record.
        self._spools[session_id] = context.runtime_dir / SPOOL
        if current is not None and current.transcript_id == session_id:
            return current
        if len(starts) > 1:
            self._after_clear.add(session_id)
        return session_ref(session_id, path)

    def _hooked(self, context: RunContext) -> bool:
        """Whether the run's hooks fire (a SessionStart record was spooled)."""
        return bool(self._starts(context))

    def _scan(self, context: RunContext) -> list[tuple[str, Path]]:
        """The run's sessions without hook records: the folder's session files started
        since the spawn, oldest first.
        """
        state = self._run_state(context)
        since = float(state.get("spawned_at") or 0.0) - 1.0
        global_dir = Path(str(state.get("global_dir") or user_dir()))
        found = []
        for ref in session_files(global_dir, context.cwd):
            header = read_header(ref.path) or {}
            started = _epoch(header.get("startTime"))
            if started is not None and started >= since:
                found.append((started, ref.transcript_id, ref.path))
        return [(session_id, path) for _, session_id, path in sorted(found)]

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        echo = _compat.CLEAR_COMMAND if ref.transcript_id in self._after_clear else None
        spool = self._spools.get(ref.transcript_id)
        turns = (lambda: signals(spool)) if spool is not None else None
        return GeminiTranscriptReader(ref, clear_echo=echo, turn_signals=turns)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        return session_files(user_dir(), cwd)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        state = self._run_state(context)
        if not state.get("isolated"):
            return []
        return session_files(Path(str(state["global_dir"])), context.cwd)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_session(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        paths = [context.runtime_dir / SPOOL]
        if not self._hooked(context):
            # Without hooks a new session shows only as a new file in the session store.
            # Gemini CLI registers the folder in projects.json first, then writes there.
            state = self._run_state(context)
            global_dir = Path(str(state.get("global_dir") or user_dir()))
            chats = chats_dir(global_dir, context.cwd)
            paths.append(chats if chats is not None else global_dir)
            paths.append(legacy_chats_dir(global_dir, context.cwd))
        return paths

    def is_ready(self, context: RunContext) -> bool:
        # The SessionStart hook runs while the TUI starts; the prompt takes an Enter a
        # moment after it. Without hooks the session file (written at start-up) tells.
        spool = context.runtime_dir / SPOOL
        since = float(self._run_state(context).get("spawned_at") or 0.0)
        for record in signals(spool):
            if record.get("hook_event_name") == "SessionStart":
                stamp = _epoch(record.get("timestamp"))
                if stamp is not None and stamp >= since - 1.0:
                    return time.time() - stamp >= _compat.READY_SETTLE
        scanned = self._scan(context)
        if not scanned:
            return False
        try:
            age = time.time() - scanned[0][1].stat().st_mtime
        except OSError:
            return False
        return age >= _compat.READY_SETTLE + _compat.UNHOOKED_SETTLE

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        spool, context = self._spool, self._context
        hooked = spool is not None and bool(_count(spool, "SessionStart")[0])
        before = _count(spool, "BeforeAgent", "SessionStart")
        size = self._session_size(context)
        terminal.paste(text)
        time.sleep(_compat.KEY_DELAY)  # let the TUI take the paste before Enter submits it
        terminal.keys("Enter")
        if text.strip() in _compat.CLEAR_COMMANDS:
            # The next reply must not reach the TUI before the new session is up.
            if hooked:
                _wait_for(lambda: _count(spool, "SessionStart")[0] > before[1], _compat.SUBMIT_WAIT)
            time.sleep(_compat.READY_SETTLE)
            return
        if text.lstrip().startswith("/"):
            return
        # An Enter that arrives while the TUI still starts up is lost (the text stays in the
        # prompt): a prompt that started no turn (no BeforeAgent hook; without hooks, nothing
        # written to the session file) gets one more Enter. An empty prompt ignores it.
        if hooked:
            started = _wait_for(
                lambda: _count(spool, "BeforeAgent")[0] > before[0], _compat.SUBMIT_WAIT
            )
        else:
            started = _wait_for(lambda: self._session_size(context) != size, _compat.SUBMIT_WAIT)
        if not started:
            terminal.keys("Enter")

    def _session_size(self, context: RunContext | None) -> int:
        if context is None:
            return -1
        found = self._starts(context) or self._scan(context)
        try:
            return found[-1][1].stat().st_size if found else -1
        except OSError:
            return -1

    def interrupt(self, terminal: Terminal) -> None:
        terminal.keys(*_compat.INTERRUPT_KEYS)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        play(terminal, recipe(dialog, answer))

    # -- catalog, auth, seeding --------------------------------------------------------

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """The reader marks a cancelled (declined) call's output ``(rejected)``."""
        return approval_said_in_result(tool)

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return _commands.catalog(cwd)

    def command_sources(self, cwd: Path) -> list[Path]:
        return _commands.command_sources(cwd)

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def health_note(self) -> str:
        return _compat.PERSONAL_ACCOUNTS_NOTE

    def auth_status(self) -> AuthStatus:
        return _auth.status()

    def capabilities(self) -> ProviderCapabilities:
        return ProviderCapabilities(
            live_signals=True,
            dialog_kinds=list(_compat.DIALOG_KINDS),
            session_resume=False,
            model_selection=True,
        )

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(
            context_file=_compat.CONTEXT_FILE,
            skills_dir=_compat.SKILLS_DIR,
            exclude=list(_compat.WORKSPACE_EXCLUDE),
        )


def _count(spool: Path | None, *events: str) -> tuple[int, ...]:
    records = signals(spool) if spool is not None else []
    return tuple(sum(1 for r in records if r.get("hook_event_name") == e) for e in events)


def _wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _epoch(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
