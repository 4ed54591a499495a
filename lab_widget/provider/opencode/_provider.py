"""OpenCode behind the seam: its TUI driven by the records in ``_compat.py``.

:class:`OpenCodeProvider` is also the parent of OpenCode's forks: a fork subclasses it with
its own ``meta``, ``couplings`` (its pins), ``commands_from`` and ``family`` (the
:class:`~._family.OpenCodeFamily` naming its folders, files and variables) and inherits the
rest: spawn, store, reader, server and dialogs.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ...schema import ProviderCapabilities
from .. import ProviderMeta, SpawnPlan, kit
from . import _auth, _commands, _compat
from ._config import asking_tools, database, isolated_config, tool_server_config
from ._dialogs import answer_permission, answer_plan, answer_question
from ._events import UserMessageWatch
from ._family import OPENCODE, OpenCodeFamily
from ._permission_feed import feed_for
from ._preview import previews
from ._server import STATE, get_json, logged_after, server_url
from ._signals import OpenCodeSignals, pending_requests
from ._stats import session_stats
from ._store import folder_sessions
from ._transcript import OpenCodeTranscriptReader
from ._usage_scan import usage_summaries, usage_summary

if TYPE_CHECKING:
    from ...schema import AuthDescriptor, AuthStatus, Dialog, DialogAnswer, SessionSummary
    from .. import (
        RunContext,
        SessionStat,
        SpawnRequest,
        SubmitWatch,
        Terminal,
        TranscriptReader,
        TranscriptRef,
    )

__all__ = ["OpenCodeProvider"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _json_or_none(text: str | None) -> object:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


class OpenCodeProvider(kit.TuiProvider):
    """OpenCode, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="opencode", display_name="OpenCode", binary="opencode", clear_command="/new"
    )
    live_signals = OpenCodeSignals(OPENCODE)
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(
        dialog_kinds=list(_compat.DIALOG_KINDS), model_selection=True, tool_servers=True
    )
    family: ClassVar[OpenCodeFamily] = OPENCODE
    """The names this CLI of the family uses (a fork sets its own)."""

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        ctx.runtime_dir.mkdir(parents=True, exist_ok=True)
        env: dict[str, str] = {}
        secret: set[str] = set()
        unset: frozenset[str] = frozenset()
        model = request.model
        family = self.family
        permission = request.options.get("permission")
        servers = request.tool_servers
        if request.endpoint is not None:
            home = kit.isolated_home(ctx)
            xdg = {
                "XDG_CONFIG_HOME": home / ".config",
                "XDG_DATA_HOME": home / ".local/share",
                "XDG_STATE_HOME": home / ".local/state",
                "XDG_CACHE_HOME": home / ".cache",
            }
            for folder in xdg.values():
                folder.mkdir(parents=True, exist_ok=True)
            config_file = xdg["XDG_CONFIG_HOME"] / family.config_file
            config_file.parent.mkdir(parents=True, exist_ok=True)
            config = isolated_config(
                request.endpoint.base_url,
                model or _compat.ENDPOINT_MODEL,
                # With servers, the option's rules go first in the inline config instead
                # (merged over this file's, a word would be replaced, not followed).
                None if servers else permission,
                family,
            )
            config_file.write_text(json.dumps(config, indent=2))
            env.update(HOME=str(home), **{k: str(v) for k, v in xdg.items()})
            env.update(family.isolated_env)
            env[family.api_key_env] = request.endpoint.api_key
            secret.add(family.api_key_env)
            unset = family.unset_env - set(env)
            model = None  # written into the isolated config
            db = database(env, family)
        else:
            db = database(family=family)
        port = _free_port()
        facts: dict[str, object] = {"db": str(db), "port": port}
        if family.server_user and family.server_password_env:
            # The server asks for a password: one of the run's own, that only it knows.
            password = secrets.token_urlsafe(24)
            env[family.server_password_env] = password
            secret.add(family.server_password_env)
            facts["login"] = f"{family.server_user}:{password}"
        if servers:
            facts["asking"] = self._give_servers(request, permission, env)
            # The run's inline config is its own; the user's rules are folded into it.
            unset = (unset | self._folded_env(request)) - {family.config_content_env}
        STATE.note_spawn(ctx, isolated=request.endpoint is not None, **facts)
        argv = [str(request.binary), *_compat.SERVER_FLAGS, str(port)]
        agent = request.options.get("agent")
        if isinstance(agent, str) and agent:
            argv += [_compat.PLAN_AGENT_FLAG, agent]
            if agent == _compat.PLAN_AGENT:
                env.update(family.plan_mode_env)  # else the plan agent has no plan_exit
        if model:
            argv += ["--model", model]
        return SpawnPlan(
            argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret), unset_env=unset
        )

    def _folded_env(self, request: SpawnRequest) -> frozenset[str]:
        """The user's variables :meth:`_give_servers` folds into the run's inline config."""
        return (
            frozenset() if request.endpoint is not None else frozenset({self.family.permission_env})
        )

    def _give_servers(
        self, request: SpawnRequest, permission: object, env: dict[str, str]
    ) -> list[str]:
        """Put the run's own servers, and their rules, in its inline config (its
        environment only; the user's own rules still apply to every other tool); return the
        names of the tools that ask.
        """
        family = self.family
        names = self.couplings.MCP_TOOLS
        inline = None
        if request.endpoint is None:
            inline = os.environ.get(family.config_content_env)
            # Merged after every config, the user's rules from the environment would come
            # after the run's: they go before them in the run's inline config instead.
            permission = _json_or_none(os.environ.get(family.permission_env))
        config = tool_server_config(
            request.tool_servers,
            names,
            inline,
            permission,
            timeout_key=self.couplings.MCP_CALL_TIMEOUT,
        )
        env[family.config_content_env] = json.dumps(config)
        return asking_tools(request.tool_servers, names)

    # -- transcript --------------------------------------------------------------------

    def _db(self, context: RunContext) -> Path:
        return STATE.path_of(context, "db", database(family=self.family))

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        spawned = STATE.spawned_at(context)
        db = self._db(context)
        # A session of this folder created after the spawn is this run's (the first
        # message creates it, also after /new).
        found = folder_sessions(db, str(context.cwd), int((spawned - 1.0) * 1000))
        if not found:
            return current
        newest = found[-1]
        if current is not None and current.transcript_id == newest.transcript_id:
            return newest if newest.watch != current.watch else current
        if len(found) > 1:
            self.opened_by_clear(newest.transcript_id)
        return newest

    def clear_opens_epoch(self, context: RunContext) -> bool:
        # /new records nothing (no session row, no event on the server's stream) until
        # the next message creates its session.
        return False

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        echo = self.clear_echo(ref)
        return OpenCodeTranscriptReader(ref, clear_echo=echo)

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return usage_summary(ref)

    def usage_summaries(self, refs: Sequence[TranscriptRef]) -> list[SessionSummary]:
        return usage_summaries(refs)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        if not STATE.isolated(context):
            return []
        return folder_sessions(self._db(context), str(context.cwd), 0)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        folder = str(Path(cwd).expanduser().resolve())
        return folder_sessions(database(family=self.family), folder, 0)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        return previews([ref])[0]

    def previews(self, refs: Sequence[TranscriptRef]) -> list[tuple[str | None, str | None]]:
        return previews(refs)

    def session_stats(self, refs: Sequence[TranscriptRef]) -> list[SessionStat | None]:
        return session_stats(refs)

    def watch_paths(self, context: RunContext) -> list[Path]:
        db = self._db(context)
        # The store's folder (the db and its WAL change with every event) and the log
        # folder, which changes when a permission request opens.
        return [db.parent, db.parent / "log"]

    def is_ready(self, context: RunContext) -> bool:
        # The embedded server answers seconds before the TUI draws its prompt; the start-up
        # log's last line comes just before it.
        state = STATE.read(context)
        base = server_url(context)
        if base is None:
            return False
        up = state.get("server_up_at")
        if not isinstance(up, float):
            if get_json(base + _compat.PERMISSION_PATH) is None:
                return False
            # Follow its events from now on: a request asked before would not be seen.
            feed_for(base)
            up = state["server_up_at"] = time.time()
            STATE.write(context, state)
        since = float(str(state.get("spawned_at") or 0.0))
        # The CLI's own pins (a fork's ``couplings`` are its own).
        pins = self.couplings
        logged = logged_after(self._db(context).parent / "log", since, pins.READY_LOG_LINE)
        if logged is not None:
            return time.time() - logged >= float(pins.READY.settle)
        return time.time() - up >= float(pins.READY_WITHOUT_LOG.settle)

    # -- input -------------------------------------------------------------------------

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        base = server_url(context)
        if base is None:
            return None
        try:
            return UserMessageWatch(base)
        except (OSError, ValueError):
            return None  # no stream to confirm by: the paced reply

    def initial_prompt_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        return None  # the server is not up before the spawn: its stored message confirms

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        if dialog.kind == "question":
            answer_question(context, dialog, answer)
            return
        if dialog.kind == "approval":
            answer_permission(context, dialog, answer, pending_requests(context))
            return
        if dialog.kind == "plan":
            answer_plan(context, dialog, answer)
            return
        super().answer(context, terminal, dialog, answer)

    # -- auth, capabilities ------------------------------------------------------------

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor(self.family)

    def auth_status(self) -> AuthStatus:
        return _auth.status(self.family)
