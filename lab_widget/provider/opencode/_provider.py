"""OpenCode behind the seam."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ...schema import (
    AuthDescriptor,
    AuthMethod,
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
)
from . import _compat
from ._dialogs import (
    STATE_FILE,
    OpenCodeSignals,
    answer_question,
    get_json,
    load_json,
    play,
    recipe,
    server_url,
)
from ._store import first_changes, has_events, legacy_sessions, read_events, sessions
from ._transcript import OpenCodeTranscriptReader, apply_events

__all__ = ["OpenCodeProvider", "api_base_url", "data_home", "database"]

_LEGACY_STORAGE_NAME = _compat.LEGACY_STORAGE.rsplit("/", 1)[-1]


def api_base_url(base_url: str) -> str:
    """The URL as the OpenAI-compatible provider's ``baseURL`` takes it: with ``/v1``.

    Examples
    --------
    >>> api_base_url("http://127.0.0.1:8000")
    'http://127.0.0.1:8000/v1'
    >>> api_base_url("https://proxy.example/openai/v1/")
    'https://proxy.example/openai/v1'
    """
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def data_home(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """``$XDG_DATA_HOME`` or ``~/.local/share``."""
    return Path(env.get("XDG_DATA_HOME") or Path(env.get("HOME") or Path.home()) / ".local/share")


def config_home(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME`` or ``~/.config``."""
    return Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")


def database(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """Where OpenCode keeps its store for this environment."""
    override = env.get(_compat.DB_ENV)
    return Path(override) if override else data_home(env) / _compat.DB_FILE


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _isolated_config(base_url: str, model: str, permission: object) -> dict[str, object]:
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            _compat.PROVIDER_ID: {
                "npm": _compat.PROVIDER_NPM,
                "name": "lab_widget endpoint",
                "options": {
                    "baseURL": api_base_url(base_url),
                    "apiKey": "{env:" + _compat.ENV_KEY + "}",
                },
                "models": {model: {"name": model}},
            }
        },
        "model": f"{_compat.PROVIDER_ID}/{model}",
        "autoupdate": False,
        "share": "disabled",
    }
    if permission is not None:
        config["permission"] = permission
    return config


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
            config = _isolated_config(
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
        specs = {c.name: c for c in _compat.BUILTIN_COMMANDS}
        for source, folders in (
            ("user", [config_home() / d for d in _compat.USER_COMMAND_DIRS]),
            ("project", [Path(cwd) / d for d in _compat.COMMAND_DIRS]),
        ):
            for folder in folders:
                for spec in _custom_commands(folder, source):
                    if spec.name not in specs or specs[spec.name].source != "builtin":
                        specs[spec.name] = spec
        return list(specs.values())

    def command_sources(self, cwd: Path) -> list[Path]:
        return [
            *(config_home() / d for d in _compat.USER_COMMAND_DIRS),
            *(Path(cwd) / d for d in _compat.COMMAND_DIRS),
        ]

    def auth(self) -> AuthDescriptor:
        return AuthDescriptor(
            kind="external",
            env_vars=["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
            instructions=(
                "Run `opencode auth login` in a terminal on the agent's machine, pick a "
                "provider and paste its key (OpenCode stores it in its own auth.json), or set "
                "the provider's key variable, or configure a provider in opencode.json."
            ),
            methods=[
                AuthMethod(
                    kind="external",
                    label="Provider key",
                    instructions="`opencode auth login` asks for the provider and its key.",
                ),
            ],
        )

    def auth_status(self) -> AuthStatus:
        auth_file = data_home() / _compat.AUTH_FILE
        stored = load_json(auth_file)
        if stored:
            return AuthStatus(
                logged_in=True,
                method=", ".join(sorted(stored)),
                kind="external",
                source=str(auth_file),
                detail=f"{auth_file.name} holds credentials for {', '.join(sorted(stored))}",
            )
        for name in self.auth().env_vars:
            if os.environ.get(name):
                return AuthStatus(
                    logged_in=True, method=name, kind="external", source="environment"
                )
        config = config_home() / "opencode" / "opencode.json"
        if load_json(config).get("provider"):
            return AuthStatus(
                logged_in=True,
                method="configured provider",
                kind="external",
                source=str(config),
                detail=f"{config.name} configures a provider",
            )
        return AuthStatus(logged_in=False, kind="external", detail="no stored provider key")

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


_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)


def _custom_commands(folder: Path, source: str) -> list[CommandSpec]:
    try:
        files = sorted(folder.rglob("*.md"))
    except OSError:
        return []
    specs = []
    for path in files:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        description = ""
        match = _FRONTMATTER.match(text)
        if match:
            for line in match.group(1).splitlines():
                key, _, value = line.partition(":")
                if key.strip() == "description":
                    description = value.strip().strip("\"'")
        name = "/" + path.relative_to(folder).with_suffix("").as_posix()
        if " " in name:
            continue
        specs.append(
            CommandSpec(
                name=name,
                description=description or f"{source} command",
                arg_hint="$ARGUMENTS" if "$ARGUMENTS" in text else "",
                source="user" if source == "user" else "project",
            )
        )
    return specs
