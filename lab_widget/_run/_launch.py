"""Starting an agent: a run id, its workspace and runtime folder, the provider's spawn plan
played into a tmux session on the lab home's server, and the start-up screen's acceptance.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from .._chat._begun import calls_folder
from .._chat._session import ChatSession
from .._home import Holder, RunRecord, lab_home, runtime_dir, socket_path
from .._install import find_binary
from .._runtime._tmux import TmuxRunner, TmuxTerminal, sanitize_input
from .._workspace._git import Workspace
from .._workspace._sandbox import Sandbox, confine
from .._workspace._seed import Seed, prepare_workspace
from ..compat import PINS
from ..errors import (
    AgentBlockedError,
    AgentNotReadyError,
    KernelToolsError,
    RunNameTakenError,
    SandboxError,
)
from ..provider import (
    AgentProvider,
    Endpoint,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    SubmitWatch,
    Terminal,
    ToolServer,
)

__all__ = ["Launched", "accept_startup", "launch", "new_run_id", "refuse_tool_servers", "runner"]


def runner() -> TmuxRunner:
    """The tmux server of the current lab home (started on first use)."""
    return TmuxRunner(socket_path())


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)[:40]


def new_run_id(provider_id: str, name: str | None) -> str:
    """The id of a new run: ``name`` made safe for tmux, or the provider and a random suffix.

    Raises :class:`~lab_widget.errors.RunNameTakenError` when a live run already has it.
    """
    run_id = _safe_name(name) if name else f"{provider_id}-{uuid.uuid4().hex[:8]}"
    if runtime_dir(run_id).exists() and run_id in runner().sessions():
        raise RunNameTakenError(f"a run named {run_id!r} is already live; pick another name")
    return run_id


@dataclass(frozen=True)
class Launched:
    """An agent just started: where it runs, its terminal and what it will ask first."""

    context: RunContext
    terminal: TmuxTerminal
    blocker: StartupBlocker | None
    record: RunRecord
    workspace: Workspace
    first_prompt: str | None = None
    """The first prompt the CLI's command line carried (cleaned as a paste is), if any."""
    first_watch: SubmitWatch | None = None
    """What confirms that prompt, begun before the spawn (``None``: its transcript)."""


def _binary(provider_id: str, provider: AgentProvider) -> Path:
    if provider_id in PINS:
        return find_binary(PINS[provider_id], provider.meta.display_name)
    return Path(provider.meta.binary)


def _sandboxed(
    provider: AgentProvider, request: SpawnRequest, plan: SpawnPlan, sandbox: Sandbox
) -> SpawnPlan:
    paths = provider.sandbox_paths(request)
    if request.endpoint is None and not (paths.read_write or sandbox.read_write):
        # The user's own setup lives in their home, which the sandbox hides: the CLI would
        # start as if never set up.
        raise SandboxError(
            f"{provider.meta.display_name} keeps your login and settings in your home, which "
            "a sandboxed run cannot see; run it on a scripted model or an endpoint "
            "(model=..., endpoint=...), or name its config in Sandbox(read_write=[...])"
        )
    login_env = [m.env_var for m in provider.auth().all_methods() if m.env_var]
    return confine(
        plan,
        sandbox,
        runtime_dir=request.context.runtime_dir,
        provider_paths=paths,
        login_env=login_env,
    )


def _confined(
    provider: AgentProvider, request: SpawnRequest, plan: SpawnPlan, sandbox: Sandbox | None
) -> SpawnPlan:
    return plan if sandbox is None else _sandboxed(provider, request, plan, sandbox)


def _prompt_words(provider: AgentProvider, prompt: str | None) -> list[str] | None:
    """The words that put ``prompt``, cleaned as a paste is, on the CLI's command line
    (``None``: it is sent once the TUI is ready).
    """
    if prompt is None:
        return None
    clean = sanitize_input(prompt)
    return provider.initial_prompt_args(clean) if clean.strip() else None


def refuse_tool_servers(provider: AgentProvider, tool_servers: tuple[ToolServer, ...]) -> None:
    """Raise :class:`KernelToolsError` when ``provider`` cannot take ``tool_servers``: its
    adapter would start the agent without them, so it is refused rather than pretended.
    """
    if tool_servers and not provider.capabilities().tool_servers:
        raise KernelToolsError(
            f"{provider.meta.display_name} cannot be given the kernel's tools yet; the "
            "providers that can say 'kernel tools: yes' in lab_widget.providers()"
        )


def launch(
    provider: AgentProvider,
    provider_id: str,
    run_id: str,
    folder: Path,
    *,
    endpoint: Endpoint | None,
    model: str | None,
    seed: Seed | None,
    worktree: bool,
    options: Mapping[str, object],
    sandbox: Sandbox | None = None,
    prompt: str | None = None,
    tool_servers: tuple[ToolServer, ...] = (),
) -> Launched:
    """Prepare the workspace and runtime folder, spawn the provider's plan, write the record.

    With ``sandbox``, the plan runs inside bubblewrap (:mod:`lab_widget._workspace._sandbox`),
    with an environment of its own. A ``prompt`` goes on the CLI's command line where the provider
    can carry it there (:attr:`Launched.first_prompt`; else it is the caller's to send). The
    ``tool_servers`` (MCP) go into the run's own configuration, by the provider. Nothing
    is left behind when the spawn fails: the workspace is undone (nothing ran in it).
    """
    refuse_tool_servers(provider, tool_servers)
    folder_of_run = runtime_dir(run_id)
    folder_of_run.mkdir(parents=True, exist_ok=True)
    workspace = prepare_workspace(
        folder,
        run_id,
        provider.seed_meta(),
        seed,
        worktree=worktree,
        worktrees_home=lab_home() / "worktrees",
    )
    context = RunContext(run_id=run_id, cwd=workspace.cwd, runtime_dir=folder_of_run)
    calls = calls_folder(folder_of_run)
    if tool_servers:
        calls.mkdir(mode=0o700, exist_ok=True)  # there from the start, for the chat's watch
    request = SpawnRequest(
        context=context,
        binary=_binary(provider_id, provider),
        model=model,
        endpoint=endpoint,
        options=options,
        tool_servers=tuple(server.for_run(run_id, calls) for server in tool_servers),
    )
    tmux = runner()
    first: str | None = None
    watch: SubmitWatch | None = None
    try:
        blocker = provider.startup_blocker(request)
        plan = provider.plan_spawn(request)
        words = _prompt_words(provider, prompt) if blocker is None else None
        if words is not None:
            with_words = replace(plan, argv=[*plan.argv, *words])
            carried = _confined(provider, request, with_words, sandbox)
            if tmux.command_fits(run_id, carried.argv, carried.cwd):
                first = sanitize_input(prompt or "")
                plan = carried
        if first is None:
            plan = _confined(provider, request, plan, sandbox)
        else:
            # Begun before the spawn: the CLI may confirm the prompt the moment it is up.
            watch = provider.initial_prompt_watch(context, first)
        terminal = tmux.spawn(
            run_id,
            plan.argv,
            plan.env,
            plan.cwd,
            unset=plan.unset_env,
            inherit_env=sandbox is None,
            answer_colours=plan.answer_colours,
        )
    except BaseException:
        if watch is not None:
            watch.close()
        workspace.cleanup(discard=True)  # nothing ran in it yet
        raise
    record = RunRecord(
        run_id=run_id,
        provider=provider_id,
        cwd=workspace.cwd,
        isolated=endpoint is not None,
        model=model,
        workspace=workspace.to_record(),
        owner=Holder.this_process(),
        folder=folder_of_run,
    )
    record.write()
    return Launched(context, terminal, blocker, record, workspace, first, watch)


def accept_startup(
    chat: ChatSession, terminal: Terminal, spawned_at: float, timeout: float, attach_command: str
) -> None:
    """Accept what the agent asks before it takes input (trusting the folder), then wait up
    to ``timeout`` seconds for it to be ready.

    ``spawned_at`` is the ``time.monotonic()`` of the run's start (``0.0`` for a re-adopted
    run, long past any settle time). Nothing happens when nothing is asked.
    """
    blocker = chat.blocker
    if blocker is None:
        return
    if not blocker.acceptable:
        raise AgentBlockedError(f"{blocker.reason} Attach with: {attach_command}")
    # The screen cannot be seen (never scraped), so give the TUI its pinned start-up time
    # to draw it before keys arrive, then confirm through the ready signal.
    settle = chat.provider.startup_settle - (time.monotonic() - spawned_at)
    if settle > 0:
        time.sleep(settle)
    chat.provider.accept_startup(terminal, blocker)
    chat.blocker = None
    chat.refresh()
    try:
        chat.wait_ready(timeout)
    except AgentNotReadyError as exc:
        raise AgentNotReadyError(f"{exc}; answer it in the terminal: {attach_command}") from exc
