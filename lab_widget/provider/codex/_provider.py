"""Codex CLI behind the seam: its TUI driven by the records in ``_compat.py``."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ...compat import PINS
from ...errors import KernelToolsError
from ...schema import ProviderCapabilities
from .. import ProviderMeta, SpawnPlan, StartupBlocker, TranscriptRef, kit
from . import _auth, _commands, _compat
from ._config import (
    RUN_STATE,
    isolated_config,
    toml_string,
    tool_server_overrides,
    user_codex_home,
    user_config,
)
from ._questions import play, recipe
from ._rollouts import (
    folder_sessions,
    newest_rollout,
    peek_rollout,
    pending_rollout,
    thread_markers,
)
from ._signals import CodexSignals
from ._transcript import CodexTranscriptReader
from ._usage_scan import usage_summary

if TYPE_CHECKING:
    from ...schema import AuthDescriptor, AuthStatus, Dialog, DialogAnswer, SessionSummary
    from .. import RunContext, SpawnRequest, SubmitWatch, Terminal, TranscriptReader

__all__ = ["CodexProvider"]

_SIGNALS = CodexSignals()


def _hook_overrides(spool: Path) -> list[str]:
    command = toml_string(kit.hook_command(spool))
    args: list[str] = []
    for event in _compat.HOOKS.events:
        args += ["-c", f'hooks.{event}=[{{hooks=[{{type="command",command={command}}}]}}]']
    return args


class CodexProvider(kit.TuiProvider):
    """Codex CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(id="codex", display_name="Codex", binary="codex", clear_command="/new")
    live_signals = _SIGNALS
    couplings = _compat
    commands_from = _commands
    # --model, or the isolated config's model for an endpoint run.
    declared = ProviderCapabilities(
        dialog_kinds=list(_compat.DIALOG_KINDS), model_selection=True, tool_servers=True
    )

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        policy = request.options.get("approval_policy")
        if request.tool_servers and policy in _compat.UNASKING_POLICIES:
            # The servers' asking tools would never be asked: code in the user's kernel.
            raise KernelToolsError(
                f"approval_policy={policy!r} lets {self.meta.display_name} run tools without "
                "asking; the kernel's tools need every call approved. Use another policy."
            )
        spool = _SIGNALS.spool(ctx)
        spool.mkdir(parents=True, exist_ok=True)
        env: dict[str, str] = {}
        secret: set[str] = set()
        model = request.model
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            codex_home = home / ".codex"
            codex_home.mkdir(parents=True, exist_ok=True)
            (codex_home / "config.toml").write_text(
                isolated_config(ctx.cwd, request.endpoint.base_url, model or _compat.ENDPOINT_MODEL)
            )
            env.update(
                HOME=str(home),
                CODEX_HOME=str(codex_home),
                **{_compat.ENV_KEY: request.endpoint.api_key},
            )
            secret.add(_compat.ENV_KEY)
            model = None  # written into the isolated config
        else:
            codex_home = user_codex_home()
        RUN_STATE.note_spawn(
            ctx,
            isolated=request.endpoint is not None,
            codex_home=str(codex_home),
            asking_tools=_compat.MCP_TOOLS.asking(request.tool_servers),
        )
        # The native binary itself, not its Node launcher (see NATIVE_BINARY).
        binary = _compat.NATIVE_BINARY.resolve(request.binary)
        if binary is not None:
            env.update(_compat.NATIVE_BINARY.spawn_env(request.binary))
        argv = [str(binary or request.binary), _compat.HOOK_TRUST_FLAG, *_hook_overrides(spool)]
        argv += tool_server_overrides(request.tool_servers)
        if model:
            argv += ["--model", model]
        for option, flag in (("approval_policy", "--ask-for-approval"), ("sandbox", "--sandbox")):
            value = request.options.get(option)
            if isinstance(value, str):
                argv += [flag, value]
        return SpawnPlan(
            argv=argv,
            env=env,
            cwd=ctx.cwd,
            secret_env=frozenset(secret),
            answer_colours=_compat.COLOUR_QUERY.waits > 0,
        )

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        if request.endpoint is not None:
            return None  # the isolated config trusts the folder and needs no login
        codex_home = user_codex_home()
        config = user_config(codex_home)
        name = self.meta.display_name
        logged_in = (
            (codex_home / _compat.AUTH_FILE).is_file()
            or any(os.environ.get(v) for v in self.auth().env_vars)
            or config.get("cli_auth_credentials_store") not in (None, "file")
            # A custom model provider brings its own key; no OpenAI sign-in is asked.
            or config.get("model_provider") not in (None, "openai")
        )
        if not logged_in:
            return StartupBlocker(
                reason=f"{name} is not signed in and asks you to sign in first. Sign in in "
                "the terminal (attach command) or with `codex login`, then start the run again.",
                accept_hint="Open the terminal",
                acceptable=False,
            )
        projects = config.get("projects")
        projects = projects if isinstance(projects, dict) else {}
        folder = request.context.cwd.resolve()
        trusted = any(
            isinstance(projects.get(str(f)), dict)
            and projects[str(f)].get("trust_level") == "trusted"
            for f in (folder, *folder.parents)
        )
        in_repo = any((f / ".git").exists() for f in (folder, *folder.parents))
        if trusted or not in_repo:
            return None  # 0.171.0 asks about git repositories only
        return StartupBlocker(
            reason=f"{name} asks whether you trust the folder {folder} before it starts. Review "
            "it, then accept to let the agent read, edit and run files there.",
            accept_hint="Trust and continue",
            steps=("trust",),
        )

    # -- transcript --------------------------------------------------------------------

    def _codex_home(self, context: RunContext) -> Path:
        return RUN_STATE.path_of(context, "codex_home", user_codex_home())

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        threads = self._threads(context)
        if not threads:
            since = RUN_STATE.spawned_at(context)
            found = newest_rollout(self._codex_home(context), context.cwd, since)
            if found is None:
                return current
            threads = [found]
        session_id, path = threads[-1]
        if current is not None and current.transcript_id == session_id:
            return current
        if len(threads) > 1:
            self.opened_by_clear(session_id)
        return TranscriptRef(transcript_id=session_id, path=path, watch=(path.parent,))

    def _threads(self, context: RunContext) -> list[tuple[str, Path]]:
        """List the run's threads, oldest first, each with its rollout path.

        SessionStart hook records name each thread with its rollout once its first message
        is sent. An isolated home holds only this run's thread markers, so there a thread
        ``/new`` opened counts from the moment it exists; its rollout path is then a
        placeholder the reader resolves when the file appears.
        """
        paths = dict(_SIGNALS.session_starts(context))
        order = list(paths)
        if RUN_STATE.isolated(context):
            codex_home = self._codex_home(context)
            markers = thread_markers(codex_home, RUN_STATE.spawned_at(context))
            order = [t for t in order if t not in markers] + markers
            sessions = codex_home / _compat.SESSIONS_DIR
            for thread in order:
                paths.setdefault(thread, pending_rollout(sessions, thread))
        return [(thread, paths[thread]) for thread in order]

    def clear_opens_epoch(self, context: RunContext) -> bool:
        # /new marks its thread at once only in an isolated home (see _threads); on the
        # user's own the new thread shows with its first message.
        return RUN_STATE.isolated(context)

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        echo = self.clear_echo(ref)
        return CodexTranscriptReader(ref, clear_echo=echo)

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return usage_summary(ref.path, ref.transcript_id)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        # The user's own sessions only: isolated runs keep theirs in their runtime home.
        return folder_sessions(user_codex_home(), Path(cwd).expanduser().resolve())

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        if not RUN_STATE.isolated(context):
            return []
        return folder_sessions(self._codex_home(context), context.cwd)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return peek_rollout(ref.path)

    def watch_paths(self, context: RunContext) -> list[Path]:
        codex_home = self._codex_home(context)
        # Today's rollout folders too: a sub-agent's rollout lands in the folder of the day
        # it starts, which after midnight is not its parent's.
        now = time.time()
        days = {time.strftime("%Y/%m/%d", t) for t in (time.localtime(now), time.gmtime(now))}
        sessions = codex_home / _compat.SESSIONS_DIR
        return [
            _SIGNALS.spool(context),
            codex_home / _compat.THREAD_MARKERS,
            *(sessions / day for day in sorted(days)),
        ]

    def is_ready(self, context: RunContext) -> bool:
        # The TUI marks its thread in CODEX_HOME once it is up (a paste sent then lands;
        # the confirmed submit repeats an Enter it took too early). A marker older than the
        # spawn is another session's.
        since = RUN_STATE.spawned_at(context)
        markers = self._codex_home(context) / _compat.THREAD_MARKERS
        try:
            ages = [time.time() - p.stat().st_mtime for p in markers.iterdir()]
            spawned_age = time.time() - since
        except OSError:
            return False
        return any(_compat.READY.settle <= age <= spawned_age + 1.0 for age in ages)

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        return kit.SpoolWatch(_SIGNALS.spool(context), (_compat.PROMPT_SUBMITTED,))

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        super().reply(terminal, text)
        if text.strip() == _compat.CLEAR_COMMAND:
            # In a git repository /new asks where to run; keep the current folder. Outside
            # one the prompt is empty by then and Enter does nothing.
            _compat.NEW_WORKTREE_PICKER.play(terminal)

    # -- auth, capabilities ------------------------------------------------------------

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        if dialog.kind == "question":
            reported = kit.reported_at(_SIGNALS.spool(context), dialog.tool_id)
            play(terminal, recipe(dialog, answer), reported)
            return
        if dialog.tool_name in RUN_STATE.read(context).get("asking_tools", ()):
            # The run's own servers ask in a form of their own, with other keys.
            _compat.MCP_APPROVAL.play(terminal, dialog, answer)
            return
        super().answer(context, terminal, dialog, answer)

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status(lambda: kit.find_binary(PINS[self.meta.id], self.meta.display_name))
