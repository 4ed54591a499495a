"""OpenCode behind the seam."""

from __future__ import annotations

import json
import re
import socket
import time
from datetime import datetime
from pathlib import Path

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
    Terminal,
    TranscriptReader,
    TranscriptRef,
    approval_said_in_result,
    load_json,
)
from . import _auth, _commands, _compat
from ._config import database, isolated_config
from ._dialogs import answer_question, play, recipe
from ._server import STATE_FILE, get_json, server_url
from ._signals import OpenCodeSignals
from ._store import first_changes, has_events, legacy_sessions, read_events, sessions
from ._transcript import OpenCodeTranscriptReader, apply_events

__all__ = ["OpenCodeProvider"]

_LEGACY_STORAGE_NAME = _compat.LEGACY_STORAGE.rsplit("/", 1)[-1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OpenCodeProvider(AgentProvider):
    """OpenCode, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="opencode", display_name="OpenCode", binary="opencode", clear_command="/new"
    )
    live_signals = OpenCodeSignals()

    def __init__(self) -> None:
        # Sessions that a /new opened (not the run's first): their readers start with its echo.
        self._after_clear: set[str] = set()

    # -- spawn -------------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        ctx = request.context
        ctx.runtime_dir.mkdir(parents=True, exist_ok=True)
        env: dict[str, str] = {}
        secret: set[str] = set()
        unset: frozenset[str] = frozenset()
        model = request.model
        if request.endpoint is not None:
            home = ctx.runtime_dir / "home"
            xdg = {
                "XDG_CONFIG_HOME": home / ".config",
                "XDG_DATA_HOME": home / ".local/share",
                "XDG_STATE_HOME": home / ".local/state",
                "XDG_CACHE_HOME": home / ".cache",
            }
            for folder in xdg.values():
                folder.mkdir(parents=True, exist_ok=True)
            config_dir = xdg["XDG_CONFIG_HOME"] / "opencode"
            config_dir.mkdir(parents=True, exist_ok=True)
            config = isolated_config(
                request.endpoint.base_url,
                model or _compat.ENDPOINT_MODEL,
                request.options.get("permission"),
            )
            (config_dir / "opencode.json").write_text(json.dumps(config, indent=2))
            env.update(HOME=str(home), **{k: str(v) for k, v in xdg.items()})
            env.update(_compat.ISOLATED_ENV)
            env[_compat.ENV_KEY] = request.endpoint.api_key
            secret.add(_compat.ENV_KEY)
            unset = _compat.UNSET_ENV - set(env)
            model = None  # written into the isolated config
            db = database(env)
        else:
            db = database()
        port = _free_port()
        (ctx.runtime_dir / STATE_FILE).write_text(
            json.dumps(
                {
                    "db": str(db),
                    "port": port,
                    "spawned_at": time.time(),
                    "isolated": request.endpoint is not None,
                }
            )
        )
        argv = [str(request.binary), *_compat.SERVER_FLAGS, str(port)]
        if model:
            argv += ["--model", model]
        return SpawnPlan(
            argv=argv, env=env, cwd=ctx.cwd, secret_env=frozenset(secret), unset_env=unset
        )

    # -- transcript --------------------------------------------------------------------

    def _state(self, context: RunContext) -> dict[str, object]:
        return load_json(context.runtime_dir / STATE_FILE)

    def _db(self, context: RunContext) -> Path:
        return Path(str(self._state(context).get("db") or database()))

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        spawned = float(str(self._state(context).get("spawned_at") or 0.0))
        db = self._db(context)
        # A session of this folder created after the spawn is this run's (the first
        # message creates it, also after /new).
        found = _folder_sessions(db, str(context.cwd), int((spawned - 1.0) * 1000))
        if not found:
            return current
        newest = found[-1]
        if current is not None and current.transcript_id == newest.transcript_id:
            return newest if newest.watch != current.watch else current
        if len(found) > 1:
            self._after_clear.add(newest.transcript_id)
        return newest

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        echo = _compat.CLEAR_COMMAND if ref.transcript_id in self._after_clear else None
        return OpenCodeTranscriptReader(ref, clear_echo=echo)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        if not self._state(context).get("isolated"):
            return []
        return _folder_sessions(self._db(context), str(context.cwd), 0)

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        folder = str(Path(cwd).expanduser().resolve())
        return _folder_sessions(database(), folder, 0)

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        if ref.path.suffix == ".json" or not has_events(ref.path, ref.transcript_id):
            reader = OpenCodeTranscriptReader(ref)
            reader.apply_changes(first_changes(ref.path, ref.transcript_id, _PREVIEW_MESSAGES))
        else:
            rows, _ = read_events(ref.path, ref.transcript_id, -1, None, limit=_PREVIEW_ROWS)
            reader = apply_events(ref, rows)
        prompt = next(
            (m.text for m in reader.messages if m.role == "user" and m.kind == "text"), None
        )
        return prompt, reader.summary.model

    def watch_paths(self, context: RunContext) -> list[Path]:
        db = self._db(context)
        # The store's folder (the db and its WAL change with every event) and the log
        # folder, which changes when a permission request opens.
        return [db.parent, db.parent / "log"]

    def is_ready(self, context: RunContext) -> bool:
        # The embedded server answers seconds before the TUI draws its prompt; the start-up
        # log's last line comes just before it.
        state = self._state(context)
        base = server_url(context)
        if base is None:
            return False
        up = state.get("server_up_at")
        if not isinstance(up, float):
            if get_json(base + _compat.PERMISSION_PATH) is None:
                return False
            up = state["server_up_at"] = time.time()
            (context.runtime_dir / STATE_FILE).write_text(json.dumps(state))
        since = float(str(state.get("spawned_at") or 0.0))
        logged = _logged_after(self._db(context).parent / "log", since, _compat.READY_LOG_LINE)
        if logged is not None:
            return time.time() - logged >= _compat.READY_SETTLE
        return time.time() - up >= _compat.READY_FALLBACK

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        stripped = text.strip()
        if stripped.startswith("/") and "\n" not in stripped:
            # Typed, not pasted: the TUI's command autocomplete reads typed keys, and Enter
            # runs the highlighted command.
            terminal.type_text(stripped)
            time.sleep(_compat.COMMAND_SETTLE)
        else:
            terminal.paste(text)
            time.sleep(_compat.KEY_DELAY)  # let the TUI take the paste before Enter submits it
        terminal.keys("Enter")

    def interrupt(self, terminal: Terminal) -> None:
        first, *rest = _compat.INTERRUPT_KEYS
        terminal.keys(first)
        for key in rest:
            time.sleep(_compat.INTERRUPT_GAP)
            terminal.keys(key)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        if dialog.kind == "question":
            answer_question(context, dialog, answer)
            return
        play(terminal, recipe(dialog, answer))

    # -- catalog, auth, seeding --------------------------------------------------------

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """The reader marks a call whose permission was rejected ``(rejected)``."""
        return approval_said_in_result(tool)

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return _commands.catalog(cwd)

    def command_sources(self, cwd: Path) -> list[Path]:
        return _commands.command_sources(cwd)

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status()

    def capabilities(self) -> ProviderCapabilities:
        return ProviderCapabilities(
            live_signals=True,
            dialog_kinds=list(_compat.DIALOG_KINDS),
            model_selection=True,
        )

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(
            context_file=_compat.CONTEXT_FILE,
            skills_dir=_compat.SKILLS_DIR,
            exclude=list(_compat.WORKSPACE_EXCLUDE),
        )


_PREVIEW_ROWS = 64
"""Rows a preview reads: the first prompt and the model come within a turn's first rows."""

_PREVIEW_MESSAGES = 4
"""Messages a preview of a session without an event log reads (with their parts)."""


def _folder_sessions(db: Path, folder: str, since_ms: int) -> list[TranscriptRef]:
    """The top-level sessions of ``folder`` created at or after ``since_ms``, oldest first:
    the SQLite store's, then those of the JSON files older versions kept beside it (a
    session migrated into the store is listed once, from the store).
    """
    found = [(s.time_created, s.id, db) for s in sessions(db, folder, since_ms)]
    known = {session_id for _, session_id, _ in found}
    storage = db.parent / _LEGACY_STORAGE_NAME
    for legacy in legacy_sessions(storage, folder):
        if legacy.id not in known and legacy.time_created >= since_ms and legacy.path:
            found.append((legacy.time_created, legacy.id, legacy.path))
    refs = []
    for _, session_id, path in sorted(found):
        refs.append(TranscriptRef(transcript_id=session_id, path=path, watch=_watch(path)))
    return refs


def _watch(path: Path) -> tuple[Path, ...]:
    if path.suffix != ".json":
        return (path.parent,)  # the store and its WAL
    # A legacy session: its message folder, and the part folders of its newest messages
    # (one folder per message, created as the message starts).
    storage = path.parent.parent.parent
    messages = storage / _compat.LEGACY_MESSAGE_DIR / path.stem
    try:
        newest = sorted(p.stem for p in messages.glob("*.json"))[-2:]
    except OSError:
        newest = []
    parts = storage / _compat.LEGACY_PART_DIR
    return (messages, parts, *(parts / m for m in newest))


_LOG_TAIL = 1 << 16
_LOG_STAMP = re.compile(r"^timestamp=(\S+)")


def _logged_after(folder: Path, since: float, needle: str) -> float | None:
    """When the newest log line holding ``needle`` was written, if after ``since``."""
    try:
        logs = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return None
    for path in reversed(logs[-2:]):
        try:
            with path.open("rb") as f:
                f.seek(max(0, path.stat().st_size - _LOG_TAIL))
                lines = f.read().decode(errors="replace").splitlines()
        except OSError:
            continue
        for line in reversed(lines):
            if needle not in line:
                continue
            match = _LOG_STAMP.match(line)
            if match is None:
                continue
            try:
                stamp = datetime.fromisoformat(match.group(1).replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
            return stamp if stamp >= since - 1.0 else None
    return None
