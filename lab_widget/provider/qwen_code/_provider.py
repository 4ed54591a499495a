"""Qwen Code behind the seam: Gemini CLI's family base (``kit.HookSessionProvider``) with
this fork's records, files, settings and reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...errors import KernelToolsError
from ...schema import ProviderCapabilities
from .. import ProviderMeta, SpawnPlan, StartupBlocker, kit
from . import _auth, _commands, _compat, _files
from ._config import RUN_STATE, isolated_settings, tool_server_settings, user_dir, write_settings
from ._files import chats_dir, first_prompt
from ._signals import QwenCodeSignals, hook_settings
from ._transcript import QwenCodeTranscriptReader
from ._usage_scan import usage_summary

if TYPE_CHECKING:
    from ...schema import AuthDescriptor, AuthStatus
    from .. import RunContext, SpawnRequest, TranscriptRef

__all__ = ["QwenCodeProvider"]


class QwenCodeProvider(kit.HookSessionProvider):
    """Qwen Code, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="qwen-code", display_name="Qwen Code", binary="qwen", clear_command="/clear"
    )
    # The family base's pieces first, then what every TUI provider declares.
    session_hooks = _compat.SESSION_HOOKS
    session_files: ClassVar[kit.SessionFiles] = _files
    reader_type = QwenCodeTranscriptReader
    usage_scan = usage_summary
    run_file = RUN_STATE
    live_signals = QwenCodeSignals()
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(
        model_selection=True, dialog_kinds=list(_compat.DIALOG_KINDS), tool_servers=True
    )

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        servers = request.tool_servers
        if servers and request.endpoint is None:
            # The user's own settings stay untouched, and without the run's hooks no
            # confirmation would reach the chat.
            raise KernelToolsError(
                f"{self.meta.display_name} takes the kernel's tools only in a run with its "
                "own settings (a model endpoint, such as a scripted model): a run with your "
                "own settings gets no tool servers, and its confirmations stay in the terminal."
            )
        spool = self.remember_spawn(ctx)
        env: dict[str, str] = {}
        secret: set[str] = set()
        unset: set[str] = set(_compat.HEADLESS_ENV)
        if request.endpoint is not None:
            global_dir = kit.isolated_home(ctx) / _compat.GLOBAL_DIR
            base_url = kit.api_base_url(request.endpoint.base_url)
            settings = isolated_settings(base_url, request.model, hook_settings(spool))
            if servers:
                settings.update(tool_server_settings(servers))
                env.update(_compat.MCP_BLOCKING_ENV)
            write_settings(global_dir, settings)
            # Made now so that it can be watched from the start (see watch_paths).
            chats_dir(global_dir, ctx.cwd).mkdir(parents=True, exist_ok=True)
            env[_compat.HOME_ENV] = str(global_dir)
            env[_compat.ENV_KEY] = request.endpoint.api_key
            secret.add(_compat.ENV_KEY)
            unset.update(v for v in _compat.USER_ENV if v != _compat.HOME_ENV)
        else:
            # The user's own settings stay untouched: such a run goes without hooks and
            # follows its session file.
            global_dir = user_dir()
        isolated = request.endpoint is not None
        # An isolated run's model is in its settings; the user's own setup takes the flag.
        model = ["--model", request.model] if request.model and not isolated else []
        plan = SpawnPlan(
            [str(request.binary), *model], env, ctx.cwd, frozenset(secret), frozenset(unset)
        )
        asking = [_compat.MCP_TOOLS.tool(s.name, tool) for s in servers for tool in s.asking]
        return self.spawn_plan(
            ctx, global_dir, plan, isolated=isolated, hooked=isolated, asking_tools=asking
        )

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        if request.endpoint is not None or self.auth_status().logged_in:
            return None
        return StartupBlocker(
            reason=f"{self.meta.display_name} has no model provider and asks for one first. "
            "Connect one in the terminal (attach command) or set OPENAI_API_KEY, then start "
            "the run again.",
            accept_hint="Open the terminal",
            acceptable=False,
        )

    def user_dir(self) -> Path:
        return user_dir()

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return first_prompt(ref.path), None

    def watch_paths(self, context: RunContext) -> list[Path]:
        # The Stop hook may come before the response is appended: the session files are
        # watched too, hooks or not (the folder appears with the first prompt).
        global_dir = self.global_dir(context)
        chats = chats_dir(global_dir, context.cwd)
        return [self.live_signals.spool(context), chats if chats.is_dir() else global_dir]

    # -- auth --------------------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status()
