"""``Run``: one agent CLI in its own tmux session, read through into the universal schema.

``Run`` is a façade over a backend (:mod:`~lab_widget._run._backend`): a
:class:`~lab_widget._run._local.LocalBackend` for an agent on this machine, a
:class:`~lab_widget._remote._backend.RemoteBackend` for one on another host. What a backend
knows (the conversation, the state, acting on the agent) it answers; what follows from that
(usage, turns, a snapshot, DataFrames, the view, export) is written here, once.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from .._chat._answers import UserAnswer
from .._chat._events import Listeners
from .._chat._mentions import expand
from .._chat._session import ChatEvent, Epoch
from .._home import Holder
from .._kernel import (
    kernel_tool_server,
    take_cells,
    this_kernel_connection_file,
    waiting_cell_chore,
)
from .._reading._frames import By, to_dataframe
from .._reading._turns import chat_of
from .._remote._backend import RemoteBackend
from .._remote._forward import KERNEL_PORTS
from .._remote._transports import Host, parse_host
from .._runtime._tmux import TmuxTerminal
from .._widgets import RunView
from .._workspace._git import Workspace
from .._workspace._sandbox import Sandbox
from .._workspace._seed import Seed
from ..errors import (
    KernelToolsError,
    NotRestartableError,
    RemoteKernelToolsError,
    RunStoppedWarning,
)
from ..provider import AgentProvider, Endpoint, ToolServer, TranscriptRef, default_provider
from ..provider import register as register_provider
from ..schema import (
    Chat,
    CommandSpec,
    Dialog,
    DialogAnswer,
    Message,
    SessionSummary,
    State,
    Turn,
    Usage,
    subagent_threads,
)
from ..schema._session import Exportable
from ..scripted import ScriptedModel
from ._backend import Announce, RunBackend, StartedBy
from ._cells import current_cell, earlier_runs, note_run
from ._idle import IdleStop, checked
from ._launch import refuse_tool_servers
from ._local import LocalBackend
from ._registry import announce, register
from ._spares import pool, spare_key

__all__ = ["Run"]


def _nothing() -> None:
    return None


def _kernel_for_host(
    kernel: bool | str | os.PathLike[str], host: str | Host, kernel_host: str | Host | None
) -> dict[str, Any] | None:
    """The connection of the kernel a run on ``host`` gets the tools of (``None``: none).

    Raises :class:`RemoteKernelToolsError` unless ``kernel_host`` names ``host``, and
    :class:`KernelToolsError` for a kernel whose ports cannot be forwarded.
    """
    if kernel is False:
        return None
    where = parse_host(host).name
    allowed = parse_host(kernel_host).name if kernel_host is not None else None
    if allowed != where:
        raise RemoteKernelToolsError(
            f"kernel=True is refused for a run on {where}: the agent there would run code in "
            "this kernel, with this machine's files, variables and keys. Pass "
            f"kernel_host={where!r} (%%agent: --kernel-host) to allow that host, run the agent "
            "here, or give it the data through a prompt (@-mentions) instead."
        )
    path = this_kernel_connection_file() if kernel is True else Path(kernel)
    try:
        connection = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise KernelToolsError(f"cannot read the kernel's connection file {path}: {exc}") from exc
    if not isinstance(connection, dict) or connection.get("transport", "tcp") != "tcp":
        raise KernelToolsError(f"{path} is not a kernel reached over TCP: its ports cannot travel")
    if not all(isinstance(connection.get(name), int) for name in KERNEL_PORTS):
        raise KernelToolsError(f"{path} does not name the kernel's {', '.join(KERNEL_PORTS)}")
    return connection


def _kernel_tools(
    kernel: bool | str | os.PathLike[str],
) -> tuple[tuple[ToolServer, ...], Callable[[], object] | None]:
    """The ``kernel`` server a run is given, and the chore of a cell that waits on it."""
    if kernel is False:
        return (), None
    connection = None if kernel is True else Path(kernel)
    return (kernel_tool_server(connection),), waiting_cell_chore(connection)


Kernel = bool | str | os.PathLike[str]
"""What ``Run(kernel=...)`` takes: ``False``, ``True`` (this kernel), or a connection file."""


@dataclass(frozen=True)
class _Relaunch:
    """What a run on this machine was started with, for :meth:`Run.restart`."""

    provider_id: str
    endpoint: Endpoint | None
    model: str | None
    sandbox: bool | Sandbox
    options: Mapping[str, Any]
    kernel: Kernel


class Run(Exportable):
    """A live agent: its real TUI under tmux, its transcript read into Python objects.

    ``with Run(...) as run:`` stops the agent when the block ends.

    Parameters
    ----------
    provider
        A provider id (``"claude-code"``), or a provider instance such as an
        :class:`~lab_widget.AcpAgent`; ``None`` takes the default provider.
    cwd
        The folder the agent works in.
    model
        A :class:`ScriptedModel` to run offline against, or a model name to request.
    endpoint
        A model server (``Endpoint(base_url=..., api_key=...)``) to use instead of the
        agent's default. With neither a ScriptedModel nor an endpoint, the agent uses the
        user's own environment and credentials.
    name
        A readable run id (default: provider and a short random suffix).
    seed
        A :class:`Seed` (project instructions, skills) written into the run's folder
        before the agent starts, where the provider's CLI reads them; the provider's
        exclude lines keep them out of ``git status``.
    worktree
        Give the run its own ``git worktree`` on the branch ``lab/<run id>`` under the
        lab home, so parallel runs on one repository never collide; ``cwd`` must be in a
        git repository. ``stop(cleanup=True)`` removes it.
    sandbox
        Run the agent under bubblewrap (``True``, or a :class:`Sandbox` that shows it more):
        it sees its working folder, its run folder, the system's folders and its CLI, and
        an empty home (or the run's isolated one), never the user's home and keys. Needs a
        scripted model or an endpoint unless the :class:`Sandbox` names the CLI's config.
    host
        Run the agent on another host: ``"ssh://user@host"``, ``"kubectl://namespace/pod"``,
        ``"podman://container"``, or a :class:`Host` (``SshHost``, ``KubectlHost``,
        ``ContainerHost``, ``LocalHost``). A worker there (``python -m lab_widget worker``)
        runs the agent; this object mirrors it and has the same surface. ``cwd`` is a
        folder on the host (``~`` is the home of the host's user); a scripted model stays
        in this kernel and is reached through the connection; an ``endpoint`` must be
        reachable from the host. Paths (``cwd``, ``transcript_path``, ``past_epochs``) are
        paths on the host, and ``attach_command`` opens the TUI through the same transport.
    prompt
        A first message, sent as the run starts: on the CLI's own command line where it
        takes one (as ``claude "..."`` does), so it costs no wait for the TUI; else typed
        once the TUI is ready (a slash command, a very long prompt). ``Run(...)`` returns
        once the agent has taken it, as :meth:`send` does; with a start-up screen to
        accept first, :meth:`accept` sends it.
    kernel
        Give the agent this notebook's live kernel as tools: an MCP server named ``kernel``
        (``run_python``, ``list_variables``, ``describe``, ``notebook_cells``,
        ``insert_cell``) registered in the run's own configuration. Every ``run_python`` is an
        approval dialog in the chat first; the code runs on the kernel's own thread, in
        order with your cells. ``True`` is the kernel this code runs in; a path names
        another kernel's connection file. With ``host=`` it is refused unless
        ``kernel_host`` names that same host: the agent there would run code in this
        kernel, with this machine's files, variables and keys.
    kernel_host
        The host you allow to run code in this kernel (``kernel=`` with ``host=``): the same
        host as ``host``, spelled out on purpose. The kernel's ports are forwarded through
        the run's pipe to the host's loopback, and its key goes with them, as the scripted
        model's does; the tools' server runs on the host, in the worker's Python (with the
        ``kernel`` extra installed there).
    rerun
        What becomes of the runs an earlier execution of the same notebook cell started
        (re-running a ``run = Run(...)`` cell leaves nothing holding the earlier agent):
        ``"stop"`` (the default) stops them, with a :class:`~lab_widget.RunStoppedWarning`
        naming each; ``"keep"`` leaves them running (``lab_widget.runs()`` lists them).
        Runs one execution creates together are never stopped.
    idle_timeout
        Stop the agent once it has been idle this many seconds on end (a run that works or
        waits on your answer never counts as idle), with a
        :class:`~lab_widget.RunStoppedWarning`; ``None`` (the default) keeps it until
        :meth:`stop`.
    **options
        Provider options (e.g. ``permission_mode="plan"`` for Claude Code).
    """

    _backend: RunBackend
    scripted_model: ScriptedModel | None
    """The scripted model this run was started against, if any. It serves while the run
    lives; the last of its runs to stop frees its port (what it received stays)."""

    _relaunch: _Relaunch | None
    """How to start the agent again (``None``: not known here, see :meth:`restart`)."""
    _unforward: Callable[[], None]
    """Stops telling the run's listeners of its current agent's events."""

    def __init__(
        self,
        provider: str | AgentProvider | None = None,
        cwd: str | os.PathLike[str] = ".",
        *,
        model: ScriptedModel | str | None = None,
        endpoint: Endpoint | None = None,
        name: str | None = None,
        seed: Seed | None = None,
        worktree: bool = False,
        sandbox: bool | Sandbox = False,
        host: str | Host | None = None,
        prompt: str | None = None,
        kernel: Kernel = False,
        kernel_host: str | Host | None = None,
        rerun: Literal["stop", "keep"] = "stop",
        idle_timeout: float | None = None,
        **options: Any,
    ) -> None:
        if rerun not in ("stop", "keep"):
            raise ValueError(f"rerun must be 'stop' or 'keep', not {rerun!r}")
        idle = checked(idle_timeout)
        if isinstance(provider, AgentProvider):
            instance = provider
            register_provider(instance.meta.id, lambda: instance)  # known by its id from now
            provider = instance.meta.id
        provider_id = provider or default_provider()
        # Checked before anything starts: a run that cannot reach its kernel never spawns.
        remote_kernel = None if host is None else _kernel_for_host(kernel, host, kernel_host)
        servers, chore = _kernel_tools(False if host is not None else kernel)
        self._fresh()
        model_name = model if isinstance(model, str) else None
        origin = current_cell()
        if origin is not None and rerun == "stop":
            # Before the new one starts: a named run's name is free again.
            for earlier in earlier_runs(origin):
                earlier.stop()
                warnings.warn(
                    RunStoppedWarning(
                        f"stopped run {earlier.id!r}, which an earlier execution of this cell "
                        "started (pass rerun='keep' to keep such runs)"
                    ),
                    stacklevel=2,
                )
        if isinstance(model, ScriptedModel):
            # Held while the run lives: stop() lets go, and the last run frees the port.
            self.scripted_model = model.acquire()
            self._holds_model = True
        try:
            if host is not None:
                remote = RemoteBackend.start(
                    provider_id,
                    cwd,
                    self._announcer(),
                    host=host,
                    scripted_model=self.scripted_model,
                    endpoint=endpoint,
                    model=model_name,
                    name=name,
                    seed=seed,
                    worktree=worktree,
                    sandbox=sandbox,
                    prompt=prompt,
                    options=options,
                    kernel=remote_kernel,
                )
                self._hold(remote)
                self._announce(True)
            else:
                if self.scripted_model is not None:
                    endpoint = Endpoint(
                        base_url=self.scripted_model.base_url, api_key=self.scripted_model.api_key
                    )
                # A spare started ahead (prestart) with the same key is adopted, never a named run.
                key = spare_key(
                    provider_id,
                    cwd,
                    endpoint=endpoint,
                    model=model_name,
                    seed=seed,
                    worktree=worktree,
                    sandbox=sandbox,
                    options=options,
                )
                # A spare was started without tool servers: a run given some never adopts one.
                spare = pool.take(key) if name is None and not servers else None
                if spare is not None:
                    local = spare.adopted(self._announcer(), prompt)
                else:
                    local = LocalBackend.start(
                        provider_id,
                        cwd,
                        self._announcer(),
                        endpoint=endpoint,
                        model=model_name,
                        name=name,
                        seed=seed,
                        worktree=worktree,
                        sandbox=sandbox,
                        prompt=prompt,
                        options=options,
                        tool_servers=servers,
                    )
                if self.scripted_model is not None:
                    # Its model is served by this process: a kernel that ends leaves it unanswered.
                    local.held_by(Holder.this_process())
                # A cell that waits on this run runs the calls the kernel is too busy for.
                local.chat.serve_between_waits(chore)
                self._hold(local)
                self._relaunch = _Relaunch(
                    provider_id, endpoint, model_name, sandbox, dict(options), kernel
                )
                self._announce(True)
                local.begin()
        except BaseException:
            self._release_model()
            raise
        if origin is not None:
            note_run(origin, self)
        IdleStop.follow(self, idle)

    @classmethod
    def _over(cls, build: Callable[[Callable[[bool], None]], RunBackend]) -> Run:
        """A run over the backend ``build`` makes, given the run's announce."""
        run = cls.__new__(cls)
        run._fresh()
        run._hold(build(run._announcer()))
        run._announce(True)
        return run

    def _fresh(self) -> None:
        """What every run starts with, however it is built; all of it carries over when
        :meth:`restart` puts a new agent under the run.
        """
        self._view: RunView | None = None
        self._view_lock = threading.Lock()
        self.scripted_model = None
        self._holds_model = False
        self._generation = 0
        """Counts the run's agents: a replaced one's late announce is not heard."""
        self._listeners = Listeners()
        """The run's listeners, told of its agent's events, whichever agent it is now."""
        self._unforward = _nothing
        self._retired: list[RunBackend] = []
        """The agents a restart replaced, oldest first: their conversations are earlier ones."""
        self._relaunch = None

    def _hold(self, backend: RunBackend) -> None:
        """Make ``backend`` the run's agent; the run's listeners hear it from now on."""
        self._unforward()
        self._backend = backend
        self._unforward = backend.subscribe(self._listeners.emit)

    def _announcer(self, generation: int | None = None) -> Announce:
        """The announce of the run's agent ``generation`` (default: the current one): heard
        while that agent is the run's.
        """
        generation = self._generation if generation is None else generation

        def announce_while_current(live: bool) -> None:
            if self._generation == generation:
                self._announce(live)

        return announce_while_current

    def _announce(self, live: bool) -> None:
        # The registry and the dashboards know the whole run, not its backend.
        if "_backend" not in vars(self):
            return  # it ended before this object held it: it is announced next, as ended
        if live:
            register(self)
        announce(self, live)

    def __enter__(self) -> Run:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what the run is ---------------------------------------------------------------

    @property
    def id(self) -> str:
        """The run's id (also its tmux session name)."""
        return self._backend.id

    @property
    def provider(self) -> AgentProvider:
        """The provider behind this run (its ``meta`` names it)."""
        return self._backend.provider

    @property
    def display_name(self) -> str:
        """The provider's display name."""
        return self.provider.meta.display_name

    @property
    def clear_command(self) -> str:
        """The provider's command that starts a new conversation."""
        return self.provider.meta.clear_command

    @property
    def cwd(self) -> Path:
        """The folder the agent works in (on the host, for a run elsewhere)."""
        return self._backend.cwd

    @property
    def host(self) -> Host | None:
        """Where the agent runs: ``None`` on this machine, else the :class:`Host`."""
        return self._backend.host

    @property
    def connected(self) -> bool:
        """Whether the pipe to the host's worker is up now (it reconnects by itself);
        always ``True`` on this machine.
        """
        return self._backend.connected

    @property
    def lock(self) -> threading.RLock:
        """The lock the run's reading happens under; its events are delivered holding it."""
        return self._backend.lock

    @property
    def transcript_path(self) -> Path | None:
        """The agent's own transcript file for the current epoch."""
        return self._backend.transcript_path

    @property
    def attach_command(self) -> str:
        """A copyable command that opens the agent's real TUI in a terminal."""
        return self._backend.attach_command

    @property
    def memory(self) -> int | None:
        """Resident bytes of the agent's processes (its TUI and what it started); ``None``
        when it is not running on this machine (ended, or on another host).
        """
        return self._backend.memory

    @property
    def started_by(self) -> StartedBy | None:
        """Who started the run: ``"this process"`` (this kernel or script), ``"another
        process"`` still running, or ``"an ended process"``: a kernel that has ended, so no
        kernel holds the run but those that list it (:func:`lab_widget.runs`). ``None`` when
        unknown (a run on another host, or one started by an older version).
        """
        return self._backend.started_by

    @property
    def started_at(self) -> datetime | None:
        """When the agent started (timezone-aware; for an adopted spare, when the spare
        did); ``None`` when not known (a run on another host not heard from yet).
        """
        return self._backend.started_at

    @property
    def kernel_tools(self) -> bool | None:
        """Whether the agent has a kernel's tools (``Run(kernel=...)``); ``None`` where that
        cannot change: the run cannot be restarted (see :meth:`restart`), or its CLI cannot
        take tool servers.
        """
        relaunch = self._relaunch
        if relaunch is None or not self.provider.capabilities().tool_servers:
            return None
        return relaunch.kernel is not False

    @property
    def pane(self) -> TmuxTerminal:
        """The agent's tmux session: what the chat view's terminal pane shows.

        A view of the TUI, never read for state or content.
        """
        return self._backend.pane

    def __repr__(self) -> str:
        # No ids, paths or addresses: notebooks compare text output across runs.
        return f"Run({self.display_name})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    # -- what the run shows ------------------------------------------------------------

    @property
    def state(self) -> State:
        """``idle | working | needs_input | question | ended``."""
        return self._backend.state

    @property
    def messages(self) -> list[Message]:
        """The current conversation (the current epoch), oldest first."""
        return self._backend.messages

    @property
    def subagents(self) -> dict[str, list[Message]]:
        """Each sub-agent's messages, keyed by the id of the call that started it (the
        call's ``tool.agent_id`` names the sub-agent); ``messages`` holds them too.
        """
        return subagent_threads(self.messages)

    @property
    def session(self) -> SessionSummary:
        """Model, token totals, costs (the estimate and the CLI's own, exact decimals in
        USD), rate limits and quotas, context use, cwd and branch of the current epoch.
        """
        return self._backend.session

    @property
    def usage(self) -> Usage:
        """Token totals of the current epoch (``run.session.usage``)."""
        return self.session.usage

    @property
    def turns(self) -> list[Turn]:
        """The current conversation's turns, one per user prompt: requested and answering
        model, times, tokens by kind, estimated and vendor cost, tools and errors.
        """
        return self.chat().turns

    def chat(self) -> Chat:
        """A snapshot: messages, state, session summary and turns."""
        with self.lock:
            messages, state, session = self.messages, self.state, self.session
        return chat_of(messages, state, session)

    def to_dataframe(self, by: By = "message") -> Any:
        """The current conversation as a pandas DataFrame: one row per message (``by=
        "message"``), per turn (``"turn"``) or per rate limit (``"rate_limit"``).

        See :func:`lab_widget.to_dataframe`; needs ``pip install 'lab_widget[pandas]'``.
        """
        return to_dataframe(self.chat() if by != "message" else self.messages, by=by)

    @property
    def transcript_id(self) -> str | None:
        """The id of the current epoch; it changes when the conversation is cleared."""
        return self._backend.transcript_id

    @property
    def needs_input_reason(self) -> str | None:
        """Why the run is ``needs_input``, when it is."""
        return self._backend.needs_input_reason

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended; empty otherwise."""
        return self._backend.state_reason

    @property
    def pending_dialog(self) -> Dialog | None:
        """The dialog the agent waits on (state ``question``), if any."""
        return self._backend.pending_dialog

    @property
    def commands(self) -> list[CommandSpec]:
        """The slash commands this run offers (re-scanned when a command file changes)."""
        return self._backend.commands

    @property
    def view(self) -> RunView:
        """The run's chat widget (one per run; every display shows it)."""
        with self._view_lock:
            if self._view is None:
                self._view = RunView(self)
                # The cells the agent inserts (the kernel's insert_cell) go below this chat.
                take_cells(self.id, self._view)
            return self._view

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.view._repr_mimebundle_(**kwargs)

    def _ipython_display_(self) -> None:
        self.view._ipython_display_()

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every change (across a :meth:`restart` too); returns an
        unsubscribe function.
        """
        return self._listeners.subscribe(listener)

    def screen(self) -> str:
        """The TUI's visible screen as text, for diagnostics."""
        return self._backend.screen()

    # -- the conversations before this one ----------------------------------------------

    def history(self) -> list[Chat]:
        """The conversations this run had before each clear (and each :meth:`restart`),
        oldest first: read again, but for the last one of an agent a restart replaced,
        which is as that agent read it.
        """
        chats: list[Chat] = []
        for agent in self._retired:
            chats += agent.history()
            if agent.messages:
                chats.append(chat_of(agent.messages, agent.state, agent.session))
        return chats + self._backend.history()

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        """The transcripts of the conversations before each clear (and each
        :meth:`restart`), oldest first.
        """
        refs: list[TranscriptRef] = []
        for agent in self._retired:
            refs += agent.past_epochs
            path = agent.transcript_path
            if agent.messages and agent.transcript_id is not None and path is not None:
                refs.append(TranscriptRef(transcript_id=agent.transcript_id, path=path))
        return refs + self._backend.past_epochs

    @property
    def past_conversations(self) -> list[Epoch]:
        """The conversations before each clear (and each :meth:`restart`) as this run read
        them, oldest first (what the chat shows collapsed above the current one);
        :meth:`history` reads them again.
        """
        epochs: list[Epoch] = []
        for agent in self._retired:
            epochs += agent.past_conversations
            if agent.messages and agent.transcript_id is not None:
                epochs.append(Epoch(agent.transcript_id, agent.messages))
        return epochs + self._backend.past_conversations

    def _exported(self) -> tuple[list[Chat], str | None]:
        return [*self.history(), self.chat()], f"{self.display_name} run {self.id}"

    # -- acting ------------------------------------------------------------------------

    def send(
        self,
        text: str,
        *,
        context: Mapping[str, object] | None = None,
        ready_timeout: float = 60.0,
    ) -> None:
        """Type ``text`` into the agent and submit it (a prompt or a slash command).

        Parameters
        ----------
        text
            The prompt, or a slash command.
        context
            Variables ``@name`` may refer to, e.g. ``globals()`` in a notebook. Each ``@name``
            the mapping holds reaches the agent as ```name``` with a compact description of
            the value below the prompt: a DataFrame's shape, dtypes and first rows, an
            array's shape and dtype, a short repr of anything else, size-capped. Values
            whose names or contents look like secrets are never described; the prompt says
            so instead. Without ``context`` (or for names it does not hold) ``@`` stays as
            typed. The chat's composer does the same with the kernel's variables.
        ready_timeout
            Seconds to wait for the TUI to take input first.
        """
        if context is not None:
            text = expand(text, context)  # described here, from this kernel's variables
        self._backend.send(text, ready_timeout)

    def wait(self, timeout: float | None = 120.0) -> State:
        """Block until the agent is no longer ``working``; return the state.

        Raises :class:`~lab_widget.errors.WaitTimeoutError` when ``timeout`` passes first.
        """
        return self._backend.wait(timeout)

    def wait_for(self, predicate: Callable[[Run], bool], timeout: float = 60.0) -> bool:
        """Block until ``predicate(run)`` holds (re-checked on every change); False if
        ``timeout`` passes first.
        """
        return self._backend.wait_for(lambda: predicate(self), timeout)

    def answer(
        self,
        answers: UserAnswer,
        *,
        feedback: str | None = None,
        timeout: float = 60.0,
    ) -> Dialog:
        """Answer the pending dialog, in the live TUI, and check what the agent recorded.

        Parameters
        ----------
        answers
            For questions: a mapping from each question's header (or text) to an option
            label, a list of labels (multi-select), or :class:`FreeText`. For a plan:
            ``"approve"`` or ``"reject"``. A :class:`~lab_widget.schema.DialogAnswer` is taken
            as is (its ``tool_id`` must match the pending dialog).
        feedback
            With ``"reject"`` on a plan: sent as the next message once the plan is rejected.
        timeout
            Seconds to wait for the agent to record the answer.

        Returns
        -------
        Dialog
            The dialog as resolved, with the recorded answers and outcome.

        Raises
        ------
        NoDialogError, DialogChangedError
            Nothing (or another dialog) is pending: nothing is typed.
        InvalidAnswerError
            The answer does not fit the dialog: nothing is typed.
        """
        return self._backend.answer(answers, feedback, timeout)

    def answer_dialog(self, answer: DialogAnswer) -> None:
        """Answer with a complete :class:`DialogAnswer` (the widget's form uses this)."""
        self.answer(answer)

    def clear(self) -> None:
        """Start a new conversation with the provider's own clear command."""
        self.send(self.clear_command)

    def interrupt(self) -> None:
        """Stop the current turn (the agent keeps running)."""
        self._backend.interrupt()

    def accept(self, timeout: float = 30.0) -> None:
        """Accept what the agent asks before it starts (e.g. trusting the folder)."""
        self._backend.accept(timeout)

    def restart(self, *, kernel: Kernel | None = None) -> None:
        """Start the agent again in place: a new CLI process with the run's settings, with
        (``kernel=True``) or without (``False``) this kernel's tools.

        A CLI reads its tool servers only as it starts, so giving a run the kernel's tools
        (the chat header's *Kernel tools* switch) takes a new agent. The conversation so far
        stays: the chat shows it above the new one, and :attr:`past_conversations` and
        :meth:`history` list it. The workspace, the scripted model, the run's views and its
        listeners carry over; the run's :attr:`id` (its tmux session) is a new one. The new
        agent starts before the old one stops, so one that cannot start leaves the run as it
        was; a turn in progress ends with the old agent.

        Parameters
        ----------
        kernel
            As ``Run(kernel=...)``; ``None`` keeps what the run had.

        Raises
        ------
        NotRestartableError
            The run is on another host, or an earlier kernel started it: its settings are
            not known here. Nothing is stopped.
        KernelToolsError
            The tools cannot be given (no kernel to reach, a CLI that takes none): nothing
            is stopped. So for whatever stops the new agent starting.
        """
        relaunch, earlier = self._relaunch, self._backend
        if relaunch is None or not isinstance(earlier, LocalBackend):
            raise NotRestartableError(
                "only a run this process started on this machine can be restarted; "
                "start a new Run instead"
            )
        kernel = relaunch.kernel if kernel is None else kernel
        # Checked before anything starts: tools the new agent could not have keep the old one.
        servers, chore = _kernel_tools(kernel)
        refuse_tool_servers(earlier.provider, servers)
        following = self._generation + 1
        # Started before the old agent stops: one that cannot start leaves the run as it was.
        agent = LocalBackend.start(
            relaunch.provider_id,
            earlier.cwd,  # its worktree, when it had one: the workspace carries over below
            self._announcer(following),
            endpoint=relaunch.endpoint,
            model=relaunch.model,
            name=None,
            seed=None,
            worktree=False,
            sandbox=relaunch.sandbox,
            prompt=None,
            options=relaunch.options,
            tool_servers=servers,
            lock=earlier.lock,
        )
        try:
            agent.take_workspace(earlier)
            if self.scripted_model is not None:
                agent.held_by(Holder.this_process())
            agent.chat.serve_between_waits(chore)
        except BaseException:
            agent.stop(cleanup=False, discard=False)
            raise
        with agent.lock:  # the run's one lock: no event of either agent slips between
            self._generation = following  # the old agent's end is not the run's
            self._retired.append(earlier)
            self._hold(agent)
            self._relaunch = replace(relaunch, kernel=kernel)
            view = self._view
            if view is not None:
                take_cells(self.id, view)
                view.restarted(agent.pane)
            # A new conversation, as after a clear: the old one is an earlier one now.
            self._listeners.emit(
                ChatEvent(
                    changed=agent.messages,
                    reset=True,
                    state=agent.state,
                    transcript_id=agent.transcript_id,
                )
            )
        self._announce(True)
        earlier.terminal.kill()
        # The rest (its last read, its end) is not waited for: the new agent takes prompts
        # already, and nothing of the run's hears the old one end.
        threading.Thread(
            target=earlier.stop,
            args=(False, False),
            name=f"lab-widget-stop-{earlier.id}",
            daemon=True,
        ).start()

    def stop(self, cleanup: bool = False, *, discard: bool = False) -> None:
        """End the agent and its tmux session. The transcript stays on disk.

        With ``cleanup=True`` the run's workspace is undone as well (see
        :meth:`Workspace.cleanup`): its worktree is removed, but only when it has no
        uncommitted change or ``discard=True`` (else :class:`~lab_widget.errors.WorkspaceError`
        after the agent has stopped); its branch is deleted only when it has no commits of
        its own (a kept branch is named in a warning); without a worktree, seeded files
        are deleted unless they were edited.
        """
        try:
            self._backend.stop(cleanup, discard)
        finally:
            self._release_model()

    def _release_model(self) -> None:
        # Once per run: a second stop() must not let go of another run's hold.
        held, self._holds_model = self._holds_model, False
        if held and self.scripted_model is not None:
            self.scripted_model.release()

    # -- the workspace -----------------------------------------------------------------

    @property
    def workspace(self) -> Workspace:
        """The run's folder as git sees it: start commit, worktree, branch, seeded files."""
        return self._backend.workspace

    def diff(self) -> str:
        """The workspace's changes since the run started, as a unified diff.

        Untracked files count; excluded (seeded) files do not. Lines matching the
        provider's attribution patterns are scrubbed from added lines.
        """
        return self._backend.diff()

    def commit(self, message: str) -> str:
        """Commit every change in the workspace; the message is scrubbed of attribution
        lines first. Returns the commit id.
        """
        return self._backend.commit(message)
