"""Mistral Vibe behind the seam: its TUI driven by the records in ``_compat.py``.

A run on a scripted model or an endpoint keeps all of Vibe's state in its own
``VIBE_HOME`` (``config.toml`` naming the endpoint as its one provider, the history, the
session store) and starts in a trusted folder (``--trust``: for this start only, nothing
is written into the user's trust list). A run without an endpoint uses the user's own home
and key. The CLI runs from its own environment in the tools folder: the kernel's
``PYTHONPATH`` and ``PYTHONHOME`` are not passed on.
"""

from __future__ import annotations

import time
from pathlib import Path

from ...schema import AuthDescriptor, AuthStatus, ProviderCapabilities, SessionSummary
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
from ._config import isolated_config, tool_server_env, user_dir
from ._files import leases, session_ref, sessions
from ._signals import HistoryWatch, StoreWatch
from ._transcript import VibeTranscriptReader
from ._usage_scan import usage_summary

__all__ = ["VibeProvider"]

_STATE = kit.RunFile("mistral-vibe.json")
"""What the spawn decided: the run's ``VIBE_HOME``, when, and whether it is isolated."""


class VibeProvider(kit.TuiProvider):
    """Mistral Vibe, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="mistral-vibe",
        display_name="Mistral Vibe",
        binary="vibe",
        clear_command=_compat.CLEAR_COMMAND,
    )
    couplings = _compat
    commands_from = _commands
    rejected_marker = "denied"
    declared = ProviderCapabilities(
        dialog_kinds=["approval"], model_selection=True, tool_servers=True
    )

    def __init__(self) -> None:
        super().__init__()
        # The latest run's home, for waiting on a clear's new session.
        self._home: Path | None = None
        # Each home's tools of a run's own servers that ask every call (the store's names).
        self._asking: dict[Path, frozenset[str]] = {}

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        ctx.runtime_dir.mkdir(parents=True, exist_ok=True)
        env: dict[str, str] = dict(_compat.ENV)
        secret: set[str] = set()
        argv = [str(request.binary), "--trust"]
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            isolated_config(home, kit.api_base_url(request.endpoint.base_url), request.model)
            env[_compat.ENV_HOME] = str(home)
            env[_compat.ENV_KEY] = request.endpoint.api_key or "none"
            secret.add(_compat.ENV_KEY)
            unset = _compat.UNSET_ENV
        else:
            home = user_dir()
            unset = frozenset({"PYTHONPATH", "PYTHONHOME"})
            if request.model:
                env["VIBE_ACTIVE_MODEL"] = request.model
        if request.tool_servers:
            # The run's own servers, in its own environment: nothing of the user's changes.
            env.update(tool_server_env(request.tool_servers))
        asking = [
            _compat.MCP_TOOLS.tool(server.name, tool)
            for server in request.tool_servers
            for tool in server.asking
        ]
        self._home = home
        _STATE.note_spawn(
            ctx, isolated=request.endpoint is not None, home=str(home), asking_tools=asking
        )
        return SpawnPlan(
            argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret), unset_env=unset
        )

    def _run_home(self, context: RunContext) -> Path:
        return _STATE.path_of(context, "home", user_dir())

    def _leases(self, context: RunContext) -> list[str]:
        since = _STATE.spawned_at(context) - 1.0
        return leases(self._run_home(context), since)

    # -- transcript --------------------------------------------------------------------

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        asking = frozenset(str(n) for n in _STATE.read(context).get("asking_tools") or ())
        if asking:
            # Kept by home (a session store lives in one), and never narrowed: a run without
            # the servers in the same home must not offer "always" for another's.
            home = self._run_home(context)
            self._asking[home] = self._asking.get(home, frozenset()) | asking
        held = self._leases(context)
        if not held:
            return current
        newest = held[-1]
        if current is not None and current.transcript_id in held:
            return current
        home = self._run_home(context)
        cleared = current is not None and self.clear_echo(current) is not None
        if current is not None and (current.path.is_dir() or cleared):
            # /clear releases the session's lease and leases a new one at once; the new
            # store records no command. (A session left before its first prompt has no
            # store, unless a clear opened it: its successor is no epoch of the chat's.)
            self.opened_by_clear(newest)
        return session_ref(home, newest)

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        # The store is <home>/logs/session/unified/<session id>.
        asking = self._asking.get(ref.path.parents[3], frozenset())
        return VibeTranscriptReader(ref, clear_echo=self.clear_echo(ref), asking=asking)

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return usage_summary(ref)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        return sessions(user_dir(), cwd)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        if not _STATE.isolated(context):
            return []
        return sessions(self._run_home(context), context.cwd)

    def watch_paths(self, context: RunContext) -> list[Path]:
        home = self._run_home(context) / _compat.SESSIONS_DIR
        return [home / _compat.LEASES_DIR, home / _compat.STORE_DIR]

    def is_ready(self, context: RunContext) -> bool:
        return bool(self._leases(context))

    # -- input -------------------------------------------------------------------------

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        return HistoryWatch(self._run_home(context) / _compat.HISTORY_FILE)

    def initial_prompt_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        # A prompt on the command line is not written to the history; its turn creates the
        # session's store.
        stores = self._run_home(context) / _compat.SESSIONS_DIR / _compat.STORE_DIR
        return StoreWatch(stores)

    def reply(self, terminal: Terminal, text: str) -> None:
        paste = self.couplings.PASTE
        home = self._home
        if text.strip() != _compat.CLEAR_COMMAND or home is None:
            paste.submit(terminal, text)
            return
        # /clear leases a new session and releases the old one; the next prompt must
        # reach the new one, which the TUI takes only after both (see CLEAR_SETTLE).
        before = set(leases(home, 0.0))
        paste.submit(terminal, text)
        deadline = time.monotonic() + _compat.CLEAR_TIMEOUT
        while time.monotonic() < deadline:
            now = set(leases(home, 0.0))
            if now - before and not now & before:
                time.sleep(_compat.CLEAR_SETTLE)
                return
            time.sleep(0.05)

    # -- auth --------------------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status()
