"""``AcpAgent``: any agent that speaks the Agent Client Protocol, as a provider.

The agent runs under a host process (:mod:`lab_widget._acp._host`) in the run's tmux
session, like every run: the chat brain, the tailer, the record and the re-adoption are the
ones every provider uses. The host's event log is the run's transcript; prompts, answers and
cancels go to it as commands through its inbox, never as keystrokes to the agent.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from ..errors import InvalidAnswerError, ReplyDroppedError
from ..provider import (
    AgentProvider,
    ProviderMeta,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    Terminal,
    ToolServer,
    TranscriptReader,
    TranscriptRef,
    get_provider,
    provider_ids,
    register,
)
from ..schema import (
    AuthDescriptor,
    AuthStatus,
    CommandSpec,
    Dialog,
    DialogAnswer,
    ProviderCapabilities,
    SeedMeta,
)
from ._log import LOG, SERVERS, SPEC, post
from ._probe import Probe, probe
from ._reader import AcpTranscriptReader

__all__ = ["AcpAgent", "restore"]

SUBMIT_TIMEOUT = 30.0
"""Seconds the host has to log a prompt it was sent."""


class AcpAgent(AgentProvider):
    """An agent CLI driven over the Agent Client Protocol, usable wherever a provider id is.

    ``Run(AcpAgent("opencode-acp", ["opencode", "acp"]), cwd=...)`` starts it; once built, it
    is known by ``name`` (``providers()`` lists it, ``Run(name, ...)`` finds it).

    Parameters
    ----------
    name
        The provider id the agent is known by; a built-in provider's id is refused.
    command
        The agent's command line (the executable first).
    env
        Variables the agent gets on top of the run's environment.
    display_name
        How the chat names the agent (default: ``name``).
    config_from
        A built-in provider whose isolated setup (config home, endpoint settings) the agent
        shares when a run has a scripted model or an endpoint: the same CLI in ACP mode
        reads the same configuration.
    """

    startup_settle = 0.0

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        display_name: str | None = None,
        *,
        config_from: str | None = None,
    ) -> None:
        if not command:
            raise ValueError("an ACP agent needs a command")
        if name in _builtin_ids():
            raise ValueError(f"{name!r} is a built-in provider's id; name the ACP agent otherwise")
        self.command = [str(c) for c in command]
        self.env = dict(env or {})
        self.config_from = config_from
        self.meta = ProviderMeta(
            id=name, display_name=display_name or name, binary=self.command[0], clear_command=""
        )
        register(name, lambda: self)

    def __repr__(self) -> str:
        return f"AcpAgent({self.meta.id!r}, {self.command!r})"

    # -- starting ----------------------------------------------------------------------

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        context = request.context
        base: dict[str, str] = {}
        unset: frozenset[str] = frozenset()
        if self.config_from is not None and request.endpoint is not None:
            # The same CLI reads the same isolated config in ACP mode: its plan's environment.
            tui = get_provider(self.config_from)
            # Without the run's servers: they go in session/new, behind the gate; the TUI's
            # plan would also write them into the config, where the agent reaches them ungated.
            plan = tui.plan_spawn(replace(request, tool_servers=()))
            base, unset = dict(plan.env), plan.unset_env
        root = str(Path(__file__).resolve().parents[2])  # the host imports this lab_widget
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
        spec = {
            "name": self.meta.id,
            "command": self.command,
            "display_name": self.meta.display_name,
            "config_from": self.config_from,
        }
        (context.runtime_dir / SPEC).write_text(json.dumps(spec))
        argv = [
            sys.executable,
            "-m",
            "lab_widget._acp._host",
            "--folder",
            str(context.runtime_dir),
            "--cwd",
            str(context.cwd),
        ]
        if request.tool_servers:
            # Given in session/new, for this session alone: no config of the agent's changes.
            gated = [_gated(s, context.runtime_dir / LOG, path) for s in request.tool_servers]
            servers = context.runtime_dir / SERVERS
            servers.write_text(json.dumps(gated))
            argv += ["--mcp-servers", str(servers)]
        argv += ["--", *self.command]
        env = {**base, **self.env, "PYTHONPATH": path}
        return SpawnPlan(
            argv=argv, env=env, cwd=context.cwd, secret_env=frozenset(self.env), unset_env=unset
        )

    def is_ready(self, context: RunContext) -> bool:
        return _reader_of(context).ready

    # -- reading -----------------------------------------------------------------------

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        path = context.runtime_dir / LOG
        return TranscriptRef(f"acp-{context.run_id}", path) if path.exists() else None

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return AcpTranscriptReader(ref)

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        ref = self.locate_transcript(context, None)
        return [ref] if ref is not None else []

    # -- acting ------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        raise ReplyDroppedError(
            f"{self.meta.display_name} takes one prompt at a time over ACP; wait until the "
            "turn ends (run.wait()) or interrupt it, then send"
        )

    def submit(self, context: RunContext, terminal: Terminal, text: str) -> bool | None:
        ident = post(context.runtime_dir, {"op": "prompt", "text": text})
        deadline = time.monotonic() + SUBMIT_TIMEOUT
        while time.monotonic() < deadline:
            if f'"id": "{ident}"' in _log_text(context):
                return True
            time.sleep(0.05)
        return False

    def interrupt(self, terminal: Terminal) -> None:
        terminal.keys("C-c")  # the host's pane: it turns the interrupt into session/cancel

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        reader = _reader_of(context)
        request_id = reader.request_of(dialog.tool_id)
        if request_id is not None and request_id in reader.forms:
            fields = reader.forms[request_id]
            try:
                values = {f.key: f.value(a) for f, a in zip(fields, answer.answers, strict=True)}
            except (ValueError, KeyError) as exc:
                raise InvalidAnswerError(f"the answer does not fit the form: {exc}") from exc
            content = {key: value for key, value in values.items() if value is not None}
            post(
                context.runtime_dir, {"op": "answer", "request_id": request_id, "content": content}
            )
            return
        label = answer.answers[0].selected[0] if answer.answers[0].selected else ""
        option = reader.option_of(request_id, label) if request_id else None
        if request_id is None or option is None:
            raise InvalidAnswerError(f"{label!r} is not an option of the pending permission")
        post(context.runtime_dir, {"op": "answer", "request_id": request_id, "option_id": option})

    # -- what it offers ----------------------------------------------------------------

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return []  # an ACP agent announces its commands per session (run_commands)

    def run_commands(self, context: RunContext) -> list[CommandSpec]:
        return [
            CommandSpec(
                name=f"/{c.get('name', '')}",
                description=str(c.get("description") or ""),
                arg_hint=str((c.get("input") or {}).get("hint") or ""),
            )
            for c in _reader_of(context).available_commands
            if c.get("name")
        ]

    def auth(self) -> AuthDescriptor:
        return AuthDescriptor(
            kind="external",
            instructions=f"{self.meta.display_name} logs in on its own; see its documentation.",
        )

    def auth_status(self) -> AuthStatus:
        return AuthStatus(logged_in=True, detail="not checked over ACP")

    def capabilities(self) -> ProviderCapabilities:
        return ProviderCapabilities(dialog_kinds=["approval", "question"], tool_servers=True)

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(context_file="AGENTS.md", exclude=["/AGENTS.md"])

    def probe(self) -> Probe:
        """Shake hands with the agent once (``initialize``), timed; what ``providers()``
        shows as its health.
        """
        return probe(self.command, self.env)


def _gated(server: ToolServer, log: Path, path: str) -> dict[str, object]:
    """``server`` as the agent is given it: behind the gate (:mod:`lab_widget._acp._gate`)
    when it has tools that ask, since the agent's own rules decide whether it asks.

    Examples
    --------
    >>> spec = _gated(ToolServer("k", ["srv"], asking=("run",)), Path("/r/acp.jsonl"), "/lw")
    >>> spec["command"][-6:], spec["env"]
    (['--server', 'k', '--asking', 'run', '--', 'srv'], {'PYTHONPATH': '/lw'})
    """
    spec = asdict(server)
    if server.asking:
        gate = [sys.executable, "-m", "lab_widget._acp._gate", "--log", str(log)]
        gate += ["--server", server.name, "--asking", ",".join(server.asking), "--"]
        spec["command"] = [*gate, *server.command]
        # The gate imports this lab_widget; the server keeps what it was given.
        env = dict(server.env)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (path, env.get("PYTHONPATH")) if p)
        spec["env"] = env
    else:
        spec["command"] = list(server.command)
    return spec


def _builtin_ids() -> set[str]:
    return {p for p in provider_ids() if not isinstance(get_provider(p), AcpAgent)}


def _log_text(context: RunContext) -> str:
    try:
        return (context.runtime_dir / LOG).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


_readers: dict[Path, AcpTranscriptReader] = {}
_readers_lock = threading.Lock()


def _reader_of(context: RunContext) -> AcpTranscriptReader:
    """The provider's own reader of a run's log (readiness, the catalog, the pending
    request's ids), brought up to date: incremental, so asking often costs what was appended.
    """
    path = context.runtime_dir / LOG
    with _readers_lock:
        reader = _readers.get(path)
        if reader is None:
            reader = _readers[path] = AcpTranscriptReader(TranscriptRef("", path))
        reader.read()
        return reader


def restore(runtime_dir: Path) -> AcpAgent | None:
    """The ACP agent a run in ``runtime_dir`` was started with (``None``: not an ACP run),
    known again by its name (a kernel that re-adopts the run never built it).
    """
    try:
        spec = json.loads((runtime_dir / SPEC).read_text())
    except (FileNotFoundError, ValueError):
        return None
    if spec.get("name") in provider_ids():
        known = get_provider(spec["name"])
        if isinstance(known, AcpAgent):
            return known
    return AcpAgent(
        spec["name"],
        spec["command"],
        display_name=spec.get("display_name"),
        config_from=spec.get("config_from"),
    )
