"""Gemini CLI behind the seam: its TUI driven by the records in ``_compat.py``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...errors import KernelToolsError
from ...schema import ProviderCapabilities
from .. import ProviderMeta, SpawnPlan, StartupBlocker, kit
from . import _auth, _commands, _compat, _files
from ._config import (
    RUN_STATE,
    secure,
    tool_server_hook,
    tool_server_policy,
    tool_server_settings,
    trusted,
    user_dir,
)
from ._files import chats_dir, legacy_chats_dir, peek_session
from ._signals import GeminiSignals, hook_settings
from ._transcript import GeminiTranscriptReader
from ._usage_scan import usage_summary

if TYPE_CHECKING:
    from ...schema import AuthDescriptor, AuthStatus
    from .. import RunContext, SpawnRequest, TranscriptRef

__all__ = ["GeminiProvider"]

_SIGNALS = GeminiSignals()
_SYSTEM_SETTINGS = "system-settings.json"
_SYSTEM_SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"


class GeminiProvider(kit.HookSessionProvider):
    """Gemini CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="gemini", display_name="Gemini CLI", binary="gemini", clear_command="/clear"
    )
    live_signals = _SIGNALS
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(
        dialog_kinds=list(_compat.DIALOG_KINDS), model_selection=True, tool_servers=True
    )
    session_hooks = _compat.SESSION_HOOKS
    run_file = RUN_STATE
    session_files: ClassVar[kit.SessionFiles] = _files
    reader_type = GeminiTranscriptReader
    usage_scan = usage_summary

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        mode = request.options.get("approval_mode")
        servers = request.tool_servers
        if servers and mode in _compat.UNASKING_MODES:
            # The servers' asking tools would run unapproved: code in the user's kernel.
            raise KernelToolsError(
                f"approval_mode={mode!r} lets {self.meta.display_name} run tools without "
                "asking; the kernel's tools need every call approved. Use another mode."
            )
        spool = self.remember_spawn(ctx)
        env: dict[str, str] = dict(_compat.SPAWN_ENV)
        secret: set[str] = set()
        unset: set[str] = set(_compat.HEADLESS_ENV)
        hooks: dict[str, object] = {_compat.HOOK_SETTINGS_KEY: hook_settings(spool)}
        if servers:
            # The run's own servers, and the hook that shows their calls' arguments.
            hook = tool_server_hook(servers, kit.hook_command(spool))
            hooks = {
                _compat.HOOK_SETTINGS_KEY: {**hook_settings(spool), _compat.TOOL_ARGS_HOOK: hook},
                "mcpServers": tool_server_settings(servers),
            }
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            global_dir = home / _compat.GLOBAL_DIR
            global_dir.mkdir(parents=True, exist_ok=True)
            extra = request.options.get("settings")
            extra = extra if isinstance(extra, dict) else {}
            if servers and isinstance(extra.get("mcpServers"), dict):
                hooks["mcpServers"] = {**extra["mcpServers"], **tool_server_settings(servers)}
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
            elif servers:
                raise KernelToolsError(
                    f"{self.meta.display_name} takes the run's own tool servers only from a "
                    f"settings file in a folder no one else may write to, and {system.parent} "
                    "is writable by others; the user's own settings are never changed."
                )
        argv = [str(request.binary)]
        if request.model:
            argv += ["--model", request.model]
        if isinstance(mode, str):
            argv += ["--approval-mode", mode]
        if servers:
            policy = ctx.runtime_dir / "kernel-policy.toml"
            policy.write_text(tool_server_policy(servers))
            argv += [_compat.POLICY_FLAG, str(policy)]
        plan = SpawnPlan(argv, env, ctx.cwd, frozenset(secret), frozenset(unset))
        asking = [_compat.MCP_TOOLS.tool(s.name, tool) for s in servers for tool in s.asking]
        return self.spawn_plan(
            ctx, global_dir, plan, isolated=request.endpoint is not None, asking_tools=asking
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

    def user_dir(self) -> Path:
        return user_dir()

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_session(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        paths = [_SIGNALS.spool(context)]
        if not self.hooked(context):
            # Without hooks a new session shows only as a new file in the session store.
            # Gemini CLI registers the folder in projects.json first, then writes there.
            state = RUN_STATE.read(context)
            global_dir = Path(str(state.get("global_dir") or user_dir()))
            chats = chats_dir(global_dir, context.cwd)
            paths.append(chats if chats is not None else global_dir)
            paths.append(legacy_chats_dir(global_dir, context.cwd))
        return paths

    # -- auth, capabilities ------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def health_note(self) -> str:
        return _compat.PERSONAL_ACCOUNTS_NOTE

    def auth_status(self) -> AuthStatus:
        return _auth.status()
