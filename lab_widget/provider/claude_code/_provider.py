"""Claude Code behind the seam."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from ...compat import PINS
from ...schema import (
    AuthDescriptor,
    AuthStatus,
    CommandSpec,
    Dialog,
    DialogAnswer,
    ProviderCapabilities,
    SeedMeta,
    SessionSummary,
    ToolCall,
)
from .. import (
    AgentProvider,
    ApprovalOutcome,
    AuthFlow,
    ProviderMeta,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    Terminal,
    TranscriptReader,
    TranscriptRef,
    approval_said_in_result,
    credentials,
    find_binary,
    injected_credentials,
)
from .. import load_json as _load_json
from . import _commands, _compat
from ._auth import ClaudeAuthFlow, descriptor
from ._dialogs import play, recipe
from ._files import peek_session, project_dir, subagent_dir
from ._signals import SIGNALS, ClaudeSignals, hook_command, signals
from ._statusline import StatusSpool, is_gateway_token, status_command, user_status_command
from ._transcript import ClaudeTranscriptReader

__all__ = ["ClaudeCodeProvider"]

_STATE_FILE = "claude-code.json"


def _user_config_dir() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def _global_state_file(config_dir: Path | None) -> Path:
    """``.claude.json``: beside the config dir when it is set, else in HOME."""
    if os.environ.get("CLAUDE_CONFIG_DIR") and config_dir is not None:
        return config_dir / ".claude.json"
    return Path.home() / ".claude.json"


class ClaudeCodeProvider(AgentProvider):
    """Claude Code, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="claude-code", display_name="Claude Code", binary="claude", clear_command="/clear"
    )
    startup_settle = _compat.STARTUP_SETTLE
    live_signals = ClaudeSignals()
    _auth_flow: ClaudeAuthFlow | None = None
    _status_lock = threading.Lock()
    _status: dict[Path, StatusSpool] = {}  # noqa: RUF012 (one reader per run folder, shared)

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        spool = ctx.runtime_dir / SIGNALS
        spool.mkdir(parents=True, exist_ok=True)
        session_id = str(uuid.uuid4())
        hook = [{"matcher": "", "hooks": [{"type": "command", "command": hook_command(spool)}]}]
        settings: dict[str, Any] = {"hooks": {event: hook for event in _compat.SIGNAL_EVENTS}}
        settings.update(_compat.RUN_SETTINGS)
        # The status line spools the CLI's own cost and quotas; a user's own status line
        # (their settings, in their own environment) still runs on the same payload.
        own = (
            None if request.endpoint else user_status_command(_user_config_dir() / "settings.json")
        )
        settings["statusLine"] = {
            **_compat.STATUS_LINE_SETTINGS,
            "command": status_command(ctx.runtime_dir / _compat.STATUS_SPOOL, own),
        }
        settings_path = ctx.runtime_dir / "claude-settings.json"
        settings_path.write_text(json.dumps(settings, indent=2))

        env: dict[str, str] = {}
        secret: set[str] = set()
        unset: frozenset[str] = frozenset()
        if request.endpoint is not None:
            home = ctx.runtime_dir / "home"
            config_dir = home / ".claude"
            config_dir.mkdir(parents=True, exist_ok=True)
            self._prepare_isolated_home(home, ctx.cwd, request.endpoint.api_key)
            env.update(
                HOME=str(home),
                ANTHROPIC_API_KEY=request.endpoint.api_key,
                ANTHROPIC_BASE_URL=request.endpoint.base_url,
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            )
            secret.add("ANTHROPIC_API_KEY")
            if is_gateway_token(request.endpoint.api_key):
                # A gateway's token: the CLI then reads the quota headers (see _compat).
                env["ANTHROPIC_AUTH_TOKEN"] = request.endpoint.api_key
                secret.add("ANTHROPIC_AUTH_TOKEN")
            unset = _compat.ISOLATION_UNSET
        else:
            config_dir = _user_config_dir()
            # A key saved through the login card, for this kernel's runs only.
            stored = injected_credentials(self.meta.id, self.auth())
            env.update(stored)
            secret.update(stored)
        (ctx.runtime_dir / _STATE_FILE).write_text(
            json.dumps({"session_id": session_id, "config_dir": str(config_dir)})
        )
        argv = [str(request.binary), "--session-id", session_id, "--settings", str(settings_path)]
        if request.model:
            argv += ["--model", request.model]
        mode = request.options.get("permission_mode")
        if isinstance(mode, str):
            argv += ["--permission-mode", mode]
        return SpawnPlan(
            argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret), unset_env=unset
        )

    @staticmethod
    def _prepare_isolated_home(home: Path, cwd: Path, api_key: str) -> None:
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [api_key.strip()[-20:]], "rejected": []},
            "projects": {str(cwd): {"hasTrustDialogAccepted": True}},
        }
        (home / ".claude.json").write_text(json.dumps(state, indent=2))

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        if request.endpoint is not None:
            return None  # isolated homes are prepared: onboarded, key approved, trusted
        state = _load_json(_global_state_file(_user_config_dir()))
        folder = request.context.cwd.resolve()
        name = self.meta.display_name
        if not state.get("hasCompletedOnboarding"):
            return StartupBlocker(
                reason=f"{name} runs its first-time setup. Finish it in the terminal "
                "(attach command), then the run continues.",
                accept_hint="Open the terminal",
                acceptable=False,
            )
        reasons: list[str] = []
        steps: list[str] = []
        projects = state.get("projects")
        projects = projects if isinstance(projects, dict) else {}
        trusted = any(
            isinstance(projects.get(str(c)), dict)
            and projects[str(c)].get("hasTrustDialogAccepted")
            for c in (folder, *folder.parents)
        )
        if not trusted:
            steps.append("trust")
            reasons.append(
                f"{name} asks whether you trust the folder {folder} before it starts. Review "
                "it, then accept to let the agent read, edit and run files there."
            )
        key = (credentials.get(self.meta.id) or os.environ.get(_compat.API_KEY_ENV, "")).strip()
        responses = state.get("customApiKeyResponses")
        approved = responses.get("approved", []) if isinstance(responses, dict) else []
        if key and key[-20:] not in approved:
            steps.append("api-key")
            reasons.append(f"{name} asks whether to use the API key in ANTHROPIC_API_KEY.")
        if not steps:
            return None
        return StartupBlocker(
            reason=" ".join(reasons),
            accept_hint="Trust and continue" if "trust" in steps else "Use the API key",
            steps=tuple(steps),
        )

    def accept_startup(self, terminal: Terminal, blocker: StartupBlocker) -> None:
        for index, step in enumerate(blocker.steps):
            if index:
                time.sleep(_compat.SCREEN_DELAY)  # the next screen replaces this one
            for key in _compat.STARTUP_ACCEPT_KEYS[step]:
                terminal.keys(key)
                time.sleep(_compat.KEY_DELAY)

    # -- transcript --------------------------------------------------------------------

    def _run_state(self, context: RunContext) -> dict[str, Any]:
        return _load_json(context.runtime_dir / _STATE_FILE)

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        session_id: str | None = None
        path: Path | None = None
        for record in reversed(signals(context)):
            if record.get("hook_event_name") == "SessionStart" and record.get("transcript_path"):
                session_id = str(record.get("session_id"))
                path = Path(str(record["transcript_path"]))
                break
        if path is None:
            state = self._run_state(context)
            if not state.get("session_id"):
                return current
            session_id = str(state["session_id"])
            config_dir = Path(str(state.get("config_dir") or _user_config_dir()))
            path = project_dir(config_dir, str(context.cwd)) / f"{session_id}.jsonl"
        if current is not None and current.transcript_id == session_id:
            return current
        # The session's folder holds its sub-agents' transcripts, written beside the main one.
        return TranscriptRef(
            transcript_id=str(session_id), path=path, watch=(path.parent, subagent_dir(path))
        )

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return ClaudeTranscriptReader(ref)

    def live_session(self, context: RunContext, summary: SessionSummary) -> SessionSummary:
        """The status line's cost, quotas and context window of the epoch's session."""
        path = context.runtime_dir / _compat.STATUS_SPOOL
        with self._status_lock:
            spool = self._status.get(path)
            if spool is None:
                spool = self._status[path] = StatusSpool(path)
        return spool.merge(summary)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        # The user's own sessions only: isolated runs keep theirs in their runtime home.
        folder = project_dir(_user_config_dir(), str(Path(cwd).expanduser().resolve()))
        try:
            files = sorted(folder.glob("*.jsonl"))
        except OSError:
            return []
        return [
            TranscriptRef(transcript_id=path.stem, path=path, watch=(folder,))
            for path in files
            if path.is_file()
        ]

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        config = self._run_state(context).get("config_dir")
        if not config or Path(str(config)) == _user_config_dir():
            return []
        folder = project_dir(Path(str(config)), str(context.cwd))
        try:
            files = sorted(folder.glob("*.jsonl"))
        except OSError:
            return []
        return [
            TranscriptRef(transcript_id=path.stem, path=path, watch=(folder,))
            for path in files
            if path.is_file()
        ]

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_session(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        state = self._run_state(context)
        config_dir = Path(str(state.get("config_dir") or _user_config_dir()))
        return [
            context.runtime_dir / SIGNALS,
            project_dir(config_dir, str(context.cwd)),
            context.runtime_dir,  # the status line's spool
        ]

    def is_ready(self, context: RunContext) -> bool:
        # SessionStart fires a moment before the prompt box takes input; under load a paste
        # sent at once was lost. Ready once the first SessionStart is READY_SETTLE old.
        spool = context.runtime_dir / SIGNALS
        for path in sorted(spool.glob("*.json")) if spool.is_dir() else []:
            if _load_json(path).get("hook_event_name") == "SessionStart":
                try:
                    age = time.time() - path.stat().st_mtime
                except OSError:
                    return False
                return age >= _compat.READY_SETTLE
        return False

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        terminal.paste(text)
        time.sleep(_compat.KEY_DELAY)  # let the TUI take the paste before Enter submits it
        terminal.keys("Enter")

    def interrupt(self, terminal: Terminal) -> None:
        terminal.keys(*_compat.INTERRUPT_KEYS)

    def discard_restored_input(self, terminal: Terminal) -> None:
        # The TUI needs a moment to abort the request and put the prompt back; a Ctrl-C or
        # a paste sent during that moment was lost.
        time.sleep(_compat.RESTORE_SETTLE)
        terminal.keys(*_compat.DISCARD_INPUT_KEYS)
        time.sleep(_compat.RESTORE_SETTLE)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        play(terminal, recipe(dialog, answer))

    # -- catalog, auth, seeding --------------------------------------------------------

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """A declined call's error result says so (``_compat.REJECTED_RESULT``)."""
        return approval_said_in_result(tool, _compat.REJECTED_RESULT)

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return _commands.catalog(cwd)

    def command_sources(self, cwd: Path) -> list[Path]:
        return _commands.command_sources(cwd)

    def auth(self) -> AuthDescriptor:
        return descriptor()

    def auth_flow(self) -> AuthFlow:
        # One flow per provider instance: a started login must meet its code.
        if self._auth_flow is None:
            self._auth_flow = ClaudeAuthFlow(
                self.meta.id,
                self.auth(),
                lambda: find_binary(PINS[self.meta.id], self.meta.display_name),
            )
        return self._auth_flow

    def auth_status(self) -> AuthStatus:
        return self.auth_flow().status()

    def capabilities(self) -> ProviderCapabilities:
        return ProviderCapabilities(
            live_signals=True,
            dialog_kinds=["question", "plan", "approval"],
            session_resume=False,
            model_selection=True,
            models=list(_compat.MODEL_ALIASES),
        )

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(
            context_file=_compat.CONTEXT_FILE,
            skills_dir=_compat.SKILLS_DIR,
            exclude=list(_compat.WORKSPACE_EXCLUDE),
            scrub_patterns=list(_compat.ATTRIBUTION_PATTERNS),
        )
