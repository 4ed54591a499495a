"""Codex CLI behind the seam."""

from __future__ import annotations

import json
import os
import shlex
import time
from datetime import datetime
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
    find_binary,
    load_json,
)
from . import _auth, _commands, _compat
from ._config import isolated_config, toml_string, user_codex_home, user_config
from ._dialogs import play, recipe
from ._rollouts import is_subagent, peek_rollout, pending_rollout, read_meta, rollouts
from ._signals import SIGNALS, CodexSignals, signals
from ._transcript import CodexTranscriptReader

__all__ = ["CodexProvider"]

_STATE_FILE = "codex.json"


def _hook_command(spool: Path) -> str:
    # One file per event, written then renamed, so a reader never sees half a record.
    script = 'f="$0/$(date +%s%N)-$$"; cat > "$f.tmp" && mv "$f.tmp" "$f.json"'
    return f"sh -c {shlex.quote(script)} {shlex.quote(str(spool))}"


def _hook_overrides(spool: Path) -> list[str]:
    command = toml_string(_hook_command(spool))
    args: list[str] = []
    for event in _compat.HOOK_EVENTS:
        args += ["-c", f'hooks.{event}=[{{hooks=[{{type="command",command={command}}}]}}]']
    return args


class CodexProvider(AgentProvider):
    """Codex CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(id="codex", display_name="Codex", binary="codex", clear_command="/new")
    live_signals = CodexSignals()
    startup_settle = _compat.STARTUP_SETTLE

    def __init__(self) -> None:
        # Epochs that a /new opened (not the run's first): their readers start with its echo.
        self._after_clear: set[str] = set()

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        spool = ctx.runtime_dir / SIGNALS
        spool.mkdir(parents=True, exist_ok=True)
        env: dict[str, str] = {}
        secret: set[str] = set()
        model = request.model
        if request.endpoint is not None:
            home = ctx.runtime_dir / "home"
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
        (ctx.runtime_dir / _STATE_FILE).write_text(
            json.dumps(
                {
                    "codex_home": str(codex_home),
                    "spawned_at": time.time(),
                    "isolated": request.endpoint is not None,
                }
            )
        )
        argv = [str(request.binary), _compat.HOOK_TRUST_FLAG, *_hook_overrides(spool)]
        if model:
            argv += ["--model", model]
        for option, flag in (("approval_policy", "--ask-for-approval"), ("sandbox", "--sandbox")):
            value = request.options.get(option)
            if isinstance(value, str):
                argv += [flag, value]
        return SpawnPlan(argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret))

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

    def accept_startup(self, terminal: Terminal, blocker: StartupBlocker) -> None:
        terminal.keys(*_compat.TRUST_ACCEPT_KEYS)

    # -- transcript --------------------------------------------------------------------

    def _run_state(self, context: RunContext) -> dict[str, Any]:
        return load_json(context.runtime_dir / _STATE_FILE)

    def _codex_home(self, context: RunContext) -> Path:
        return Path(str(self._run_state(context).get("codex_home") or user_codex_home()))

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        threads = self._threads(context)
        if not threads:
            found = self._scan(context)
            if found is None:
                return current
            threads = [found]
        session_id, path = threads[-1]
        if current is not None and current.transcript_id == session_id:
            return current
        if len(threads) > 1:
            self._after_clear.add(session_id)
        return TranscriptRef(transcript_id=session_id, path=path, watch=(path.parent,))

    def _threads(self, context: RunContext) -> list[tuple[str, Path]]:
        """List the run's threads, oldest first, each with its rollout path.

        SessionStart hook records name each thread with its rollout once its first message
        is sent. An isolated home holds only this run's thread markers, so there a thread
        ``/new`` opened counts from the moment it exists; its rollout path is then a
        placeholder the reader resolves when the file appears.
        """
        paths: dict[str, Path] = {}
        for record in signals(context.runtime_dir / SIGNALS):
            if record.get("hook_event_name") != "SessionStart":
                continue
            session_id, path = record.get("session_id"), record.get("transcript_path")
            if session_id and path and str(session_id) not in paths:
                paths[str(session_id)] = Path(str(path))
        order = list(paths)
        state = self._run_state(context)
        if state.get("isolated"):
            codex_home = self._codex_home(context)
            markers = self._markers(context)
            order = [t for t in order if t not in markers] + markers
            sessions = codex_home / _compat.SESSIONS_DIR
            for thread in order:
                paths.setdefault(thread, pending_rollout(sessions, thread))
        return [(thread, paths[thread]) for thread in order]

    def _markers(self, context: RunContext) -> list[str]:
        since = float(self._run_state(context).get("spawned_at") or 0.0)
        folder = self._codex_home(context) / _compat.THREAD_MARKERS
        try:
            stamped = [(p.stat().st_mtime, p.name) for p in folder.iterdir()]
        except OSError:
            return []
        return [name for mtime, name in sorted(stamped) if mtime >= since - 1.0]

    def _scan(self, context: RunContext) -> tuple[str, Path] | None:
        """Find the rollout without a hook record: the run's folder, started after spawn."""
        state = self._run_state(context)
        since = float(state.get("spawned_at") or 0.0)
        day_dirs = [
            self._codex_home(context) / _compat.SESSIONS_DIR / time.strftime("%Y/%m/%d", t)
            for t in {time.localtime(since), time.localtime(), time.gmtime(since), time.gmtime()}
        ]
        best: tuple[float, str, Path] | None = None
        for folder in day_dirs:
            for path in folder.glob("rollout-*.jsonl") if folder.is_dir() else []:
                meta = read_meta(path)
                if meta is None or meta.get("cwd") != str(context.cwd) or is_subagent(meta):
                    continue  # another folder's, or a sub-agent's (read with its parent)
                started = _epoch_seconds(meta.get("timestamp"))
                if started is None or started < since - 1.0:
                    continue  # another run's (earlier) thread in the same folder
                if best is None or started > best[0]:
                    best = (started, str(meta.get("id")), path)
        return (best[1], best[2]) if best else None

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        echo = _compat.CLEAR_COMMAND if ref.transcript_id in self._after_clear else None
        return CodexTranscriptReader(ref, clear_echo=echo)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        # The user's own sessions only: isolated runs keep theirs in their runtime home.
        return _sessions(user_codex_home(), Path(cwd).expanduser().resolve())

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        state = self._run_state(context)
        if not state.get("isolated"):
            return []
        return _sessions(self._codex_home(context), context.cwd)

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
            context.runtime_dir / SIGNALS,
            codex_home / _compat.THREAD_MARKERS,
            *(sessions / day for day in sorted(days)),
        ]

    def is_ready(self, context: RunContext) -> bool:
        # The TUI marks its thread in CODEX_HOME once it is up; the prompt box takes a
        # paste a moment later. A marker older than the spawn is another session's.
        state = self._run_state(context)
        since = float(state.get("spawned_at") or 0.0)
        markers = self._codex_home(context) / _compat.THREAD_MARKERS
        try:
            ages = [time.time() - p.stat().st_mtime for p in markers.iterdir()]
            spawned_age = time.time() - since
        except OSError:
            return False
        return any(_compat.READY_SETTLE <= age <= spawned_age + 1.0 for age in ages)

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        terminal.paste(text)
        time.sleep(_compat.KEY_DELAY)  # let the TUI take the paste before Enter submits it
        terminal.keys("Enter")
        if text.strip() == _compat.CLEAR_COMMAND:
            # In a git repository /new asks where to run; keep the current folder. Outside
            # one the prompt is empty by then and Enter does nothing.
            time.sleep(_compat.WORKTREE_SETTLE)
            terminal.keys(*_compat.CURRENT_WORKTREE_KEYS)

    def interrupt(self, terminal: Terminal) -> None:
        terminal.keys(*_compat.INTERRUPT_KEYS)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        play(terminal, recipe(dialog, answer))

    # -- catalog, auth, seeding --------------------------------------------------------

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """A declined call's output ends ``(rejected)`` (the reader marks Codex's
        ``aborted by user``) or is Codex's own ``rejected by user``.
        """
        return approval_said_in_result(tool)

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return _commands.catalog(cwd)

    def command_sources(self, cwd: Path) -> list[Path]:
        return _commands.command_sources(cwd)

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status(lambda: find_binary(PINS[self.meta.id], self.meta.display_name))

    def capabilities(self) -> ProviderCapabilities:
        return ProviderCapabilities(
            live_signals=True,
            dialog_kinds=list(_compat.DIALOG_KINDS),
            session_resume=False,
            # --model, or the isolated config's model for an endpoint run.
            model_selection=True,
        )

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(
            context_file=_compat.CONTEXT_FILE,
            skills_dir=_compat.SKILLS_DIR,
            exclude=list(_compat.WORKSPACE_EXCLUDE),
            scrub_patterns=list(_compat.ATTRIBUTION_PATTERNS),
        )


def _sessions(codex_home: Path, folder: Path) -> list[TranscriptRef]:
    """The rollouts under ``codex_home`` of sessions run in ``folder``; a sub-agent's
    rollout is part of its parent's session, not one of its own.
    """
    refs = []
    for path in rollouts(codex_home / _compat.SESSIONS_DIR):
        meta = read_meta(path)
        if (
            meta is not None
            and meta.get("cwd") == str(folder)
            and meta.get("id")
            and not is_subagent(meta)
        ):
            refs.append(
                TranscriptRef(transcript_id=str(meta["id"]), path=path, watch=(path.parent,))
            )
    return refs


def _epoch_seconds(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
