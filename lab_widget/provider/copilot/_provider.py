"""GitHub Copilot CLI behind the seam: its TUI driven by the records in ``_compat.py``.

A run on a scripted model or an endpoint keeps all of Copilot CLI's state in its own
``COPILOT_HOME`` (``config.json`` trusting the run's folder, ``settings.json`` with the run's
hooks, ``session-state/``) and talks to the endpoint offline, as a BYOK provider (chat
completions). ``HOME`` stays the user's: the CLI unpacks its runtime under ``~/.cache``
once per user. A run without an endpoint uses the user's own ``COPILOT_HOME`` and login,
and no hooks (nothing is written into the user's settings): its submits are paced.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ...errors import KernelToolsError
from ...schema import (
    AuthDescriptor,
    AuthStatus,
    Dialog,
    DialogAnswer,
    ProviderCapabilities,
    SessionSummary,
)
from .. import (
    ProviderMeta,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    SubmitWatch,
    Terminal,
    TranscriptReader,
    TranscriptRef,
    kit,
)
from . import _auth, _commands, _compat
from ._config import isolated_config, tool_server_args, user_dir
from ._files import in_use, peek_session, session_folders, session_ref, sessions
from ._questions import play, recipe
from ._signals import CopilotSignals, hook_settings
from ._transcript import CopilotTranscriptReader
from ._usage_scan import usage_summary

__all__ = ["CopilotProvider"]

_STATE = kit.RunFile("copilot.json")
"""What the spawn decided: the run's ``COPILOT_HOME``, when, and whether it is isolated."""
_SIGNALS = CopilotSignals()


class CopilotProvider(kit.TuiProvider):
    """GitHub Copilot CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="copilot",
        display_name="GitHub Copilot CLI",
        binary="copilot",
        clear_command=_compat.CLEAR_COMMAND,
    )
    live_signals = _SIGNALS
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(
        dialog_kinds=["approval", "question", "plan"], model_selection=True, tool_servers=True
    )

    def __init__(self) -> None:
        super().__init__()
        # The latest isolated run's spool, for waiting on a clear, and its context, for
        # waiting on a mode command's record.
        self._spool: Path | None = None
        self._context: RunContext | None = None

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        allow_all = os.environ.get(_compat.ALLOW_ALL_ENV, "").strip().lower()
        if (
            request.tool_servers
            and request.endpoint is None
            and allow_all not in _compat.ALLOW_ALL_OFF
        ):
            # The servers' asking tools would run unapproved: code in the user's kernel.
            raise KernelToolsError(
                f"{_compat.ALLOW_ALL_ENV}={allow_all} lets {self.meta.display_name} run tools "
                "without asking; the kernel's tools need every call approved. Unset it."
            )
        ctx.runtime_dir.mkdir(parents=True, exist_ok=True)
        env: dict[str, str] = {}
        secret: set[str] = set()
        unset: frozenset[str] = frozenset()
        argv = [str(request.binary)]
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            spool = _SIGNALS.spool(ctx)
            spool.mkdir(parents=True, exist_ok=True)
            self._spool = spool
            self._context = ctx
            isolated_config(home, ctx.cwd, hook_settings(spool))
            env.update(_compat.ENV)
            env.update(
                {
                    _compat.ENV_HOME: str(home),
                    _compat.ENV_BASE_URL: kit.api_base_url(request.endpoint.base_url),
                    _compat.ENV_MODEL: request.model or _compat.ENDPOINT_MODEL,
                    _compat.ENV_KEY: request.endpoint.api_key or "none",
                }
            )
            secret.add(_compat.ENV_KEY)
            unset = _compat.UNSET_ENV
        else:
            home = user_dir()
            if request.model:
                argv += ["--model", request.model]
        argv += tool_server_args(request.tool_servers, ctx.runtime_dir)
        _STATE.note_spawn(ctx, isolated=request.endpoint is not None, home=str(home))
        return SpawnPlan(
            argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret), unset_env=unset
        )

    def _home(self, context: RunContext) -> Path:
        return _STATE.path_of(context, "home", user_dir())

    def _hooked(self, context: RunContext) -> bool:
        return _STATE.isolated(context)

    def _folders(self, context: RunContext) -> list[Path]:
        """The run's session folders, oldest first (created since its spawn)."""
        since = _STATE.spawned_at(context) - 1.0
        return session_folders(self._home(context), context.cwd, since)

    # -- transcript --------------------------------------------------------------------

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        folders = self._folders(context)
        if not folders:
            return current
        newest = folders[-1]
        if current is not None and current.transcript_id == newest.name:
            return current
        if len(folders) > 1:
            # /clear opens a new session folder at once and records no command.
            self.opened_by_clear(newest.name)
        return session_ref(newest)

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return CopilotTranscriptReader(ref, clear_echo=self.clear_echo(ref))

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return usage_summary(ref)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        return sessions(user_dir(), cwd)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        if not _STATE.isolated(context):
            return []
        return sessions(self._home(context), context.cwd)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_session(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        paths = [self._home(context) / _compat.SESSIONS_DIR]
        if self._hooked(context):
            paths.append(_SIGNALS.spool(context))
        return paths

    def is_ready(self, context: RunContext) -> bool:
        # The session folder and its lock come before the TUI draws its prompt; the
        # confirmed submit repeats an Enter taken too early.
        folders = self._folders(context)
        if not folders or not in_use(folders[-1]):
            return False
        # A fresh COPILOT_HOME gets its IDE folder as the TUI starts, after the session
        # folder: a paste sent at the session's lock alone was lost under load.
        return not self._hooked(context) or (self._home(context) / _compat.TUI_STARTED).is_dir()

    # -- input -------------------------------------------------------------------------

    def submit(self, context: RunContext, terminal: Terminal, text: str) -> bool | None:
        self._settle_after_abort(context)
        return super().submit(context, terminal, text)

    def _settle_after_abort(self, context: RunContext) -> None:
        """Wait out what is left of the settle when the session's last record is an abort
        (its time is the log's last write).
        """
        folders = self._folders(context)
        log = folders[-1] / _compat.EVENTS_FILE if folders else None
        try:
            if log is None or not _aborted(log):
                return
            age = time.time() - log.stat().st_mtime
        except OSError:
            return
        if age < _compat.ABORT_SETTLE.settle:
            time.sleep(_compat.ABORT_SETTLE.settle - age)

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        if not self._hooked(context):
            return None  # no hooks in the user's own setup: the reply is paced
        return kit.SpoolWatch(_SIGNALS.spool(context), (_compat.PROMPT_SUBMITTED,))

    def reply(self, terminal: Terminal, text: str) -> None:
        paste = self.couplings.PASTE
        spool = self._spool
        if text.strip() in _compat.MODE_COMMANDS and self._context is not None:
            self._mode_command(terminal, text, self._context)
            return
        if text.strip() != _compat.CLEAR_COMMAND or spool is None:
            paste.submit(terminal, text)
            return
        # /clear ends the session at once (its sessionEnd hook) and opens the next; the
        # next prompt must not reach the TUI before it takes input again.
        with kit.SpoolWatch(spool, (_compat.SESSION_ENDED,)) as ended:
            paste.submit(terminal, text)
            ended.wait(_compat.CLEAR_TIMEOUT)
        time.sleep(_compat.CLEAR_SETTLE.settle)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        if dialog.kind in ("question", "plan"):
            self._wait_drawn(context, dialog.tool_id)
        if dialog.kind == "question":
            play(terminal, recipe(dialog, answer))
            return
        if dialog.kind == "plan":
            _compat.PLAN_KEYS.play(terminal, dialog, answer)
            return
        super().answer(context, terminal, dialog, answer)

    def _wait_drawn(self, context: RunContext, call_id: str | None) -> None:
        """Wait until the call's ``preToolUse`` hook has ended: the TUI draws its form or
        menu after it, so the pacing counts from there, not from the call's start.
        """
        folders = self._folders(context)
        if call_id is None or not folders or not self._hooked(context):
            return  # without the run's hooks the log records none: the settle alone paces
        tail = kit.JsonlTail(folders[-1] / _compat.EVENTS_FILE)
        hook: str | None = None
        deadline = time.monotonic() + _compat.DRAWN_TIMEOUT
        while time.monotonic() < deadline:
            for line in tail.read_iter():
                if not isinstance(line, kit.Line):
                    continue
                hook = _hook_of(kit.as_dict(line.value), call_id, hook)
                if hook == "":
                    return
            time.sleep(0.05)

    def _mode_command(self, terminal: Terminal, text: str, context: RunContext) -> None:
        """Submit a mode command and wait for the mode change its session log records."""
        folders = self._folders(context)
        log = folders[-1] / _compat.EVENTS_FILE if folders else None
        if log is None or not log.is_file():
            self.couplings.PASTE.submit(terminal, text)
            return  # no log before the first prompt: nothing to wait for
        tail = kit.JsonlTail(log)
        tail.read_iter()
        self.couplings.PASTE.submit(terminal, text)
        deadline = time.monotonic() + _compat.MODE_TIMEOUT
        while time.monotonic() < deadline:
            lines = tail.read_iter()
            if any(
                kit.as_dict(line.value).get("type") == _compat.MODE_CHANGED
                for line in lines
                if isinstance(line, kit.Line)
            ):
                time.sleep(_compat.MODE_SETTLE.settle)
                return
            time.sleep(0.05)

    # -- auth --------------------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status()


def _hook_of(record: dict[str, Any], call_id: str, hook: str | None) -> str | None:
    """Follow the ``preToolUse`` hook of ``call_id``: its invocation id once its
    ``hook.start`` names the call, ``""`` at its ``hook.end``, else ``hook`` unchanged.
    """
    data = kit.as_dict(record.get("data"))
    if data.get("hookType") != _compat.DRAWN_AFTER:
        return hook
    invocation = str(data.get("hookInvocationId") or "")
    if record.get("type") == "hook.end":
        return "" if hook is not None and invocation == hook else hook
    calls = kit.as_dict(data.get("input")).get("toolCalls")
    named = isinstance(calls, list) and any(
        isinstance(call, dict) and call.get("id") == call_id for call in calls
    )
    return invocation if record.get("type") == "hook.start" and named else hook


def _aborted(log: Path) -> bool:
    """Whether the log ends on an Esc: an abort, or the cancelled approval and turn end
    written just before it, among its last three records (the turn reads as over before the
    abort is written).
    """
    with log.open("rb") as f:
        f.seek(max(0, log.stat().st_size - 8192))
        lines = [line for line in f.read().splitlines() if line.strip()]
    return any(_is_abort(line) for line in lines[-3:])


def _is_abort(line: bytes) -> bool:
    try:
        record = json.loads(line)
    except ValueError:  # a record half-written, or cut by the seek
        return False
    if not isinstance(record, dict):
        return False
    data = record.get("data")
    result = data.get("result") if isinstance(data, dict) else None
    cancelled = isinstance(result, dict) and result.get("kind") == "cancelled"
    return record.get("type") == "abort" or (
        record.get("type") == "permission.completed" and cancelled
    )
