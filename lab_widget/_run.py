"""``Run``: one agent CLI in its own tmux session, read through into the universal schema."""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from ._answering import mismatch, play_answer, resolution
from ._answers import UserAnswer
from ._chat import ChatEvent, ChatSession, Epoch
from ._commands import CommandCatalog
from ._context import expand
from ._export import export
from ._frames import By, to_dataframe
from ._home import RunRecord
from ._launch import accept_startup, launch, new_run_id
from ._launch import runner as _runner
from ._live import announce, find, live_records, register
from ._pricing import enrich_summary
from ._remote._transports import Host
from ._runner import TmuxTerminal
from ._sandbox import Sandbox
from ._seed import Seed, Workspace
from ._tailer import Tailer
from ._transcripts import read_chat
from ._turns import derive_turns
from ._widgets import RunList, RunView, offer_login
from .errors import (
    AnswerMismatchWarning,
    AuthRequiredError,
    LabWidgetError,
    RunNotFoundError,
    WaitTimeoutError,
)
from .provider import (
    AgentProvider,
    Endpoint,
    RunContext,
    StartupBlocker,
    TranscriptRef,
    default_provider,
    get_provider,
    require_login,
)
from .schema import (
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
from .scripted import ScriptedModel

__all__ = ["Run", "get_run", "runs"]

_FIRST_PROMPT_TIMEOUT = 60.0
"""Seconds a CLI has, from its spawn, to confirm the first prompt its command line carried
(its start-up included, as ``send``'s default wait for the TUI)."""


class Run:
    """A live agent: its real TUI under tmux, its transcript read into Python objects.

    Parameters
    ----------
    provider
        A provider id (``"claude-code"``); ``None`` takes the default provider.
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
        folder on the host; a scripted model stays in this kernel and is reached through
        the connection; an ``endpoint`` must be reachable from the host.
    prompt
        A first message, sent as the run starts: on the CLI's own command line where it
        takes one (as ``claude "..."`` does), so it costs no wait for the TUI; else typed
        once the TUI is ready (a slash command, a very long prompt). ``Run(...)`` returns
        once the agent has taken it, as :meth:`send` does; with a start-up screen to
        accept first, :meth:`accept` sends it.
    **options
        Provider options (e.g. ``permission_mode="plan"`` for Claude Code).
    """

    _remote: ClassVar[type[Run] | None] = None
    """The class of runs on other hosts (``lab_widget._remote``) once it is imported."""

    def __init_subclass__(cls, remote: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if remote:
            Run._remote = cls

    def __new__(cls, *args: Any, host: str | Host | None = None, **kwargs: Any) -> Run:
        if host is not None and cls is Run:
            # The same call, the same surface: a run on another host is a Run too.
            return object.__new__(cls._remote_class())
        return object.__new__(cls)

    @classmethod
    def _remote_class(cls) -> type[Run]:
        if Run._remote is None:
            raise LabWidgetError("runs on other hosts need lab_widget imported whole")
        return Run._remote

    @classmethod
    def _runs_on(cls, host: str | Host) -> list[Run]:
        """The live runs on ``host`` (implemented by the remote class)."""
        return cls._remote_class()._runs_on(host)

    def __init__(
        self,
        provider: str | None = None,
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
        **options: Any,
    ) -> None:
        provider_id = provider or default_provider()
        self._provider: AgentProvider = get_provider(provider_id)
        folder = Path(cwd).expanduser().resolve()
        if not folder.is_dir():
            raise LabWidgetError(f"cwd {folder} is not a folder")
        self.scripted_model: ScriptedModel | None = None
        model_name: str | None = None
        if isinstance(model, ScriptedModel):
            self.scripted_model = model.start()
            endpoint = Endpoint(base_url=model.base_url, api_key=model.api_key)
        elif isinstance(model, str):
            model_name = model
        run_id = new_run_id(provider_id, name)
        if endpoint is None:
            # The user's own credentials: refuse before spawning rather than strand a TUI
            # on its login screen; in a notebook the login card shows above the error.
            try:
                require_login(self._provider.auth_flow(), self._provider.meta.display_name)
            except AuthRequiredError:
                offer_login(provider_id)
                raise
        started = launch(
            self._provider,
            provider_id,
            run_id,
            folder,
            endpoint=endpoint,
            model=model_name,
            seed=seed,
            worktree=worktree,
            options=options,
            sandbox=Sandbox.of(sandbox),
            prompt=prompt,
        )
        self._setup(started.context, started.terminal, started.blocker, started.record)
        self._spawned_at = time.monotonic()
        self._first_prompt: str | None = None
        if started.first_prompt is not None:
            self._chat.confirm_first_prompt(started.first_watch, _FIRST_PROMPT_TIMEOUT)
        elif prompt is not None and started.blocker is not None:
            self._first_prompt = prompt  # sent once the start-up screen is accepted
        elif prompt is not None:
            self.send(prompt)

    @classmethod
    def _adopt(cls, record: RunRecord, terminal: TmuxTerminal) -> Run:
        run = cls.__new__(cls)
        run._provider = get_provider(record.provider)
        run.scripted_model = None
        context = RunContext(run_id=record.run_id, cwd=record.cwd, runtime_dir=record.runtime_dir)
        run._setup(context, terminal, None, record)
        run._spawned_at = 0.0
        run._first_prompt = None
        return run

    def _setup(
        self,
        context: RunContext,
        terminal: TmuxTerminal,
        blocker: StartupBlocker | None,
        record: RunRecord,
    ) -> None:
        self._context = context
        self._commands = CommandCatalog(self._provider, context.cwd)
        self._view: RunView | None = None
        self._view_lock = threading.Lock()
        self._terminal = terminal
        self._record = record
        self._workspace = Workspace.from_record(
            record.workspace or {"cwd": str(context.cwd)}, self._provider.seed_meta()
        )
        self._chat = ChatSession(self._provider, context, terminal, blocker)
        self._tailer = Tailer(self._chat.watch_paths, self._chat.refresh).start()
        self._chat.refresh()
        terminal.on_exit(self._on_exit)
        register(self)
        announce(self, True)

    def _on_exit(self) -> None:
        self._chat.refresh()  # read what the agent wrote last
        self._chat.mark_ended(self._terminal.exit_screen)
        self._tailer.stop(timeout=0)
        announce(self, False)

    # -- what the run shows ------------------------------------------------------------

    @property
    def lock(self) -> threading.RLock:
        """The lock the run's reading happens under; its events are delivered holding it."""
        return self._chat.lock

    @property
    def id(self) -> str:
        """The run's id (also its tmux session name)."""
        return self._context.run_id

    @property
    def provider(self) -> AgentProvider:
        """The provider behind this run (its ``meta`` names it)."""
        return self._provider

    @property
    def cwd(self) -> Path:
        """The folder the agent works in."""
        return self._context.cwd

    @property
    def state(self) -> State:
        """``idle | working | needs_input | question | ended``."""
        return self._chat.state

    @property
    def messages(self) -> list[Message]:
        """The current conversation (the current epoch), oldest first."""
        return self._chat.messages

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
        summary = self._chat.summary
        requested = self._record.model
        if summary.model_requested is None and requested is not None:
            summary = summary.model_copy(update={"model_requested": requested})
        return enrich_summary(summary)

    @property
    def usage(self) -> Usage:
        """Token totals of the current epoch (``run.session.usage``)."""
        return self.session.usage

    @property
    def turns(self) -> list[Turn]:
        """The current conversation's turns, one per user prompt: requested and answering
        model, times, tokens by kind, estimated and vendor cost, tools and errors.
        """
        with self._chat.lock:
            messages, state = self._chat.messages, self._chat.state
        return derive_turns(messages, self.session, state)

    def to_dataframe(self, by: By = "message") -> Any:
        """The current conversation as a pandas DataFrame: one row per message (``by=
        "message"``), per turn (``"turn"``) or per rate limit (``"rate_limit"``).

        See :func:`lab_widget.to_dataframe`; needs ``pip install 'lab_widget[pandas]'``.
        """
        return to_dataframe(self.chat() if by != "message" else self.messages, by=by)

    @property
    def transcript_id(self) -> str | None:
        """The id of the current epoch; it changes when the conversation is cleared."""
        return self._chat.transcript_id

    @property
    def transcript_path(self) -> Path | None:
        """The agent's own transcript file for the current epoch."""
        ref = self._provider.locate_transcript(self._context, None)
        return ref.path if ref else None

    @property
    def attach_command(self) -> str:
        """A copyable command that opens the agent's real TUI in a terminal."""
        return self._terminal.attach_command

    @property
    def needs_input_reason(self) -> str | None:
        """Why the run is ``needs_input``, when it is."""
        return self._chat.needs_input_reason

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended; empty otherwise."""
        return self._chat.state_reason

    @property
    def display_name(self) -> str:
        """The provider's display name."""
        return self._provider.meta.display_name

    @property
    def clear_command(self) -> str:
        """The provider's command that starts a new conversation."""
        return self._provider.meta.clear_command

    @property
    def pane(self) -> TmuxTerminal:
        """The agent's tmux session: what the chat view's terminal pane shows.

        A view of the TUI, never read for state or content.
        """
        return self._terminal

    @property
    def view(self) -> RunView:
        """The run's chat widget (one per run; every display shows it)."""
        with self._view_lock:
            if self._view is None:
                self._view = RunView(self)
            return self._view

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.view._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        # No ids, paths or addresses: notebooks compare text output across runs.
        return f"Run({self.display_name})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

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
            text = expand(text, context)
        self._chat.wait_ready(ready_timeout)
        is_command = text.lstrip().startswith("/")
        self._chat.send(text, counts_as_work=not is_command)

    def wait(self, timeout: float | None = 120.0) -> State:
        """Block until the agent is no longer ``working``; return the state.

        Raises :class:`~lab_widget.errors.WaitTimeoutError` when ``timeout`` passes first.
        """
        return self._chat.wait(timeout)

    def wait_for(self, predicate: Callable[[Run], bool], timeout: float = 60.0) -> bool:
        """Block until ``predicate(run)`` holds; False if ``timeout`` passes first."""
        return self._chat.wait_for(lambda: predicate(self), timeout)

    @property
    def commands(self) -> list[CommandSpec]:
        """The slash commands this run offers (re-scanned when a command file changes)."""
        return self._commands.get()

    def history(self) -> list[Chat]:
        """The conversations this run had before each clear, oldest first."""
        return [read_chat(self._provider, ref) for ref in self.past_epochs]

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        """The transcripts of the conversations before each clear, oldest first."""
        with self._chat.lock:
            return list(self._chat.past_epochs)

    @property
    def past_conversations(self) -> list[Epoch]:
        """The conversations before each clear as this run read them, oldest first (what the
        chat shows collapsed above the current one); :meth:`history` reads them again.
        """
        return self._chat.past

    def export(
        self,
        path: str | os.PathLike[str],
        *,
        title: str | None = None,
        format: str | None = None,
    ) -> Path:
        """Write this run's conversations, the earlier ones first, to ``path``.

        ``.ipynb`` gives a notebook of Markdown and code cells (an answer's Python blocks are
        code cells), ``.md`` one Markdown document, ``.html`` a self-contained, sanitised page
        with no script and its images inline; ``format="ipynb" | "markdown" | "html"``
        overrides the suffix. Prompts, answers, tool calls with their input and results,
        dialogs with their answers, the reasoning (collapsed), sub-agents' work nested under
        the call that started each, and the tokens and estimated cost of each conversation
        are all in it. Returns the path written.
        """
        name = title or f"{self.display_name} run {self.id}"
        return export([*self.history(), self.chat()], path, title=name, format=format)

    @property
    def pending_dialog(self) -> Dialog | None:
        """The dialog the agent waits on (state ``question``), if any."""
        return self._chat.pending_dialog

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
        dialog, intended = play_answer(self._chat, self._terminal, answers, self.attach_command)
        ended: list[Dialog] = []

        def resolved(run: Run) -> bool:
            ended[:] = [d for d in [resolution(run.messages, dialog.tool_id)] if d is not None]
            return bool(ended)

        if not self.wait_for(resolved, timeout):
            raise WaitTimeoutError(timeout, "question")
        final = ended[0]
        warning = mismatch(final, intended)
        if warning is not None:
            self._chat.note_mismatch(final.tool_id or "", warning)
            warnings.warn(warning, AnswerMismatchWarning, stacklevel=2)
        if feedback and final.status == "rejected":
            self.send(feedback)
        return final

    def answer_dialog(self, answer: DialogAnswer) -> None:
        """Answer with a complete :class:`DialogAnswer` (the widget's form uses this)."""
        self.answer(answer)

    def clear(self) -> None:
        """Start a new conversation with the provider's own clear command."""
        self.send(self._provider.meta.clear_command)

    def interrupt(self) -> None:
        """Stop the current turn (the agent keeps running)."""
        self._chat.interrupt()

    def accept(self, timeout: float = 30.0) -> None:
        """Accept what the agent asks before it starts (e.g. trusting the folder)."""
        accept_startup(self._chat, self._terminal, self._spawned_at, timeout, self.attach_command)
        first, self._first_prompt = self._first_prompt, None
        if first is not None:
            self.send(first)

    def stop(self, cleanup: bool = False, *, discard: bool = False) -> None:
        """End the agent and its tmux session. The transcript stays on disk.

        With ``cleanup=True`` the run's workspace is undone as well (see
        :meth:`Workspace.cleanup`): its worktree is removed, but only when it has no
        uncommitted change or ``discard=True`` (else :class:`~lab_widget.errors.WorkspaceError`
        after the agent has stopped); its branch is deleted only when it has no commits of
        its own (a kept branch is named in a warning); without a worktree, seeded files
        are deleted unless they were edited.
        """
        self._chat.stopped = True
        self._terminal.kill()
        self._chat.wait_for(lambda: self._chat.ended, 5.0)
        self._chat.mark_ended()
        self._tailer.stop()
        announce(self, False)
        if cleanup:
            for note in self._workspace.cleanup(discard=discard):
                warnings.warn(note, UserWarning, stacklevel=2)

    @property
    def workspace(self) -> Workspace:
        """The run's folder as git sees it: start commit, worktree, branch, seeded files."""
        return self._workspace

    def diff(self) -> str:
        """The workspace's changes since the run started, as a unified diff.

        Untracked files count; excluded (seeded) files do not. Lines matching the
        provider's attribution patterns are scrubbed from added lines.
        """
        return self._workspace.diff()

    def commit(self, message: str) -> str:
        """Commit every change in the workspace; the message is scrubbed of attribution
        lines first. Returns the commit id.
        """
        return self._workspace.commit(message)

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every change; returns an unsubscribe function."""
        return self._chat.subscribe(listener)

    def chat(self) -> Chat:
        """A snapshot: messages, state, session summary and turns."""
        with self._chat.lock:
            messages, state = self._chat.messages, self._chat.state
            session = self.session
        return Chat(
            messages=messages,
            state=state,
            session=session,
            turns=derive_turns(messages, session, state),
        )

    def screen(self) -> str:
        """The TUI's visible screen as text, for diagnostics."""
        return self._terminal.capture()


def runs(host: str | Host | None = None) -> RunList[Run]:
    """Every live run, re-adopting runs started by an earlier kernel (same lab home).

    A re-adopted run reads its history back from the agent's transcript. The list displays
    in a notebook as a live dashboard (state, activity, tokens, cost; open or stop a run).
    With ``host`` (see :class:`Run`), the live runs on that host, re-adopted by its worker.
    """
    if host is not None:
        return RunList(Run._runs_on(host))
    found: list[Run] = []
    for record, terminal in live_records(_runner()):
        existing = find(record.run_id)
        found.append(existing if isinstance(existing, Run) else Run._adopt(record, terminal))
    return RunList(found)


def get_run(run_id: str, host: str | Host | None = None) -> Run:
    """The live run with this id (on ``host``, when given)."""
    for run in runs(host):
        if run.id == run_id:
            return run
    raise RunNotFoundError(f"no live run {run_id!r}")
