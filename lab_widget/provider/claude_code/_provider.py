"""Claude Code behind the seam: its TUI driven by the records in ``_compat.py``."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...compat import PINS
from ...errors import KernelToolsError
from ...schema import ProviderCapabilities
from .. import ProviderMeta, SpawnPlan, StartupBlocker, TranscriptRef, injected_credentials, kit
from . import _commands, _compat
from ._auth import ClaudeAuthFlow, api_key, descriptor
from ._config import (
    RUN_STATE,
    global_state_file,
    prepare_isolated_home,
    tool_server_config,
    tool_server_permissions,
    user_config_dir,
)
from ._dialogs import play, recipe
from ._files import peek_session, project_dir, session_files, subagent_dir
from ._signals import ClaudeSignals
from ._statusline import StatusSpool, is_gateway_token, status_command, user_status_command
from ._transcript import ClaudeTranscriptReader
from ._usage_scan import usage_summary

if TYPE_CHECKING:
    from ...schema import AuthDescriptor, AuthStatus, Dialog, DialogAnswer, SessionSummary
    from .. import AuthFlow, RunContext, SpawnRequest, SubmitWatch, Terminal, TranscriptReader

__all__ = ["ClaudeCodeProvider"]

_SIGNALS = ClaudeSignals()


class ClaudeCodeProvider(kit.TuiProvider):
    """Claude Code, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="claude-code", display_name="Claude Code", binary="claude", clear_command="/clear"
    )
    live_signals = _SIGNALS
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(
        dialog_kinds=["question", "plan", "approval"],
        model_selection=True,
        models=list(_compat.MODEL_ALIASES),
        tool_servers=True,
    )
    rejected_marker = _compat.REJECTED_RESULT
    _auth_flow: ClaudeAuthFlow | None = None
    _status_lock = threading.Lock()
    _status: dict[Path, StatusSpool] = {}  # noqa: RUF012 (one reader per run folder, shared)

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        mode = request.options.get("permission_mode")
        if request.tool_servers and mode in _compat.UNASKING_MODES:
            # The servers' asking tools would run unapproved: code in the user's kernel.
            raise KernelToolsError(
                f"permission_mode={mode!r} lets {self.meta.display_name} run tools without "
                "asking; the kernel's tools need every call approved. Use another mode."
            )
        spool = _SIGNALS.spool(ctx)
        spool.mkdir(parents=True, exist_ok=True)
        session_id = str(uuid.uuid4())
        hook = [{"matcher": "", "hooks": [{"type": "command", "command": kit.hook_command(spool)}]}]
        settings: dict[str, Any] = {"hooks": {event: hook for event in _compat.HOOKS.events}}
        settings.update(_compat.RUN_SETTINGS)
        if request.endpoint is not None:
            settings.update(_compat.QUIET_START.settings)
        # The status line spools the CLI's own cost and quotas; a user's own status line
        # (their settings, in their own environment) still runs on the same payload.
        own = None if request.endpoint else user_status_command(user_config_dir() / "settings.json")
        settings["statusLine"] = {
            **_compat.STATUS_LINE_SETTINGS,
            "command": status_command(ctx.runtime_dir / _compat.STATUS_SPOOL, own),
        }
        extra: list[str] = []
        if request.tool_servers:
            # The run's own servers, beside the user's (whose own rules still apply).
            settings["permissions"] = tool_server_permissions(request.tool_servers)
            servers_path = ctx.runtime_dir / "claude-mcp.json"
            servers_path.write_text(json.dumps(tool_server_config(request.tool_servers), indent=2))
            extra = [_compat.MCP_CONFIG_FLAG, str(servers_path)]
        settings_path = ctx.runtime_dir / "claude-settings.json"
        settings_path.write_text(json.dumps(settings, indent=2))

        env: dict[str, str] = {}
        secret: set[str] = set()
        unset: frozenset[str] = frozenset()
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            config_dir = home / ".claude"
            config_dir.mkdir(parents=True, exist_ok=True)
            prepare_isolated_home(home, ctx.cwd, request.endpoint.api_key)
            env.update(
                HOME=str(home),
                ANTHROPIC_API_KEY=request.endpoint.api_key,
                ANTHROPIC_BASE_URL=request.endpoint.base_url,
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            )
            env.update(_compat.QUIET_START.env)
            secret.add("ANTHROPIC_API_KEY")
            if is_gateway_token(request.endpoint.api_key):
                # A gateway's token: the CLI then reads the quota headers (see _compat).
                env["ANTHROPIC_AUTH_TOKEN"] = request.endpoint.api_key
                secret.add("ANTHROPIC_AUTH_TOKEN")
            unset = _compat.ISOLATION_UNSET
        else:
            config_dir = user_config_dir()
            # A key saved through the login card, for this kernel's runs only.
            stored = injected_credentials(self.meta.id, self.auth())
            env.update(stored)
            secret.update(stored)
        asking = [
            _compat.MCP_TOOLS.tool(server.name, tool)
            for server in request.tool_servers
            for tool in server.asking
        ]
        RUN_STATE.write(
            ctx,
            {"session_id": session_id, "config_dir": str(config_dir), "asking_tools": asking},
        )
        argv = [str(request.binary), "--session-id", session_id, "--settings", str(settings_path)]
        argv += extra
        if request.model:
            argv += ["--model", request.model]
        if isinstance(mode, str):
            argv += ["--permission-mode", mode]
        return SpawnPlan(
            argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret), unset_env=unset
        )

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        if request.endpoint is not None:
            return None  # isolated homes are prepared: onboarded, key approved, trusted
        state = kit.load_json(global_state_file(user_config_dir()))
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
        key = api_key(self.meta.id)
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

    # -- transcript --------------------------------------------------------------------

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        session_id: str | None = None
        path: Path | None = None
        for record in reversed(_SIGNALS.records(context)):
            if record.get("hook_event_name") == "SessionStart" and record.get("transcript_path"):
                session_id = str(record.get("session_id"))
                path = Path(str(record["transcript_path"]))
                break
        if path is None:
            state = RUN_STATE.read(context)
            if not state.get("session_id"):
                return current
            session_id = str(state["session_id"])
            config_dir = Path(str(state.get("config_dir") or user_config_dir()))
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
        return session_files(project_dir(user_config_dir(), str(Path(cwd).expanduser().resolve())))

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        config = RUN_STATE.read(context).get("config_dir")
        if not config or Path(str(config)) == user_config_dir():
            return []
        return session_files(project_dir(Path(str(config)), str(context.cwd)))

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return usage_summary(ref.path, ref.transcript_id)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_session(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        state = RUN_STATE.read(context)
        config_dir = Path(str(state.get("config_dir") or user_config_dir()))
        return [
            _SIGNALS.spool(context),
            project_dir(config_dir, str(context.cwd)),
            context.runtime_dir,  # the status line's spool
        ]

    def is_ready(self, context: RunContext) -> bool:
        # The first SessionStart hook: the TUI reads its terminal by then (a paste sent
        # sooner still lands; the submit key is pressed until the prompt is confirmed).
        return any(r.get("hook_event_name") == "SessionStart" for r in _SIGNALS.records(context))

    # -- input -------------------------------------------------------------------------

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        return kit.SpoolWatch(_SIGNALS.spool(context), (_compat.PROMPT_SUBMITTED,))

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        spool = _SIGNALS.spool(context)
        # A permission prompt opens with its PermissionRequest (which names no call), any
        # other dialog with its tool's PreToolUse.
        if dialog.kind == "approval":
            reported = kit.reported_at(spool, None, "PermissionRequest")
        else:
            reported = kit.reported_at(spool, dialog.tool_id)
        play(terminal, recipe(dialog, answer), reported)

    # -- auth, capabilities ------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return descriptor()

    def auth_flow(self) -> AuthFlow:
        # One flow per provider instance: a started login must meet its code.
        if self._auth_flow is None:
            self._auth_flow = ClaudeAuthFlow(
                self.meta.id,
                self.auth(),
                lambda: kit.find_binary(PINS[self.meta.id], self.meta.display_name),
            )
        return self._auth_flow

    def auth_status(self) -> AuthStatus:
        return self.auth_flow().status()
