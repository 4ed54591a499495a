"""``Run``: one agent CLI in its own tmux session, read through into the universal schema."""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from ._answering import await_recorded, play_answer
from ._answers import UserAnswer
from ._chat import ChatEvent
from ._context import expand
from ._frames import By, to_dataframe
from ._held_prompt import HeldPrompt
from ._launch import accept_startup, launch, new_run_id
from ._live import announce, register
from ._pricing import enrich_summary
from ._remote._transports import Host
from ._run_parts import RunParts
from ._sandbox import Sandbox
from ._schema_session import Exportable
from ._seed import Seed
from ._turns import derive_turns
from ._widgets import RunView, offer_login
from .errors import AnswerMismatchWarning, AuthRequiredError, InvalidCwdError, RemoteError
from .provider import (
    AgentProvider,
    Endpoint,
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

__all__ = ["Run"]

_FIRST_PROMPT_TIMEOUT = 60.0
"""Seconds a CLI has, from its spawn, to confirm the first prompt its command line carried
(its start-up included, as ``send``'s default wait for the TUI)."""


class Run(RunParts, Exportable):
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
            raise RemoteError("runs on other hosts need lab_widget imported whole")
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
            raise InvalidCwdError(f"cwd {folder} is not a folder")
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
        self._held_prompt = None
        if started.first_prompt is not None:
            self._chat.confirm_first_prompt(started.first_watch, _FIRST_PROMPT_TIMEOUT)
        elif prompt is not None and started.blocker is not None:
            # Sent once the start-up screen is accepted, here or in the terminal view.
            self._held_prompt = HeldPrompt(self._chat, prompt, self.send)
        elif prompt is not None:
            self.send(prompt)

    def _announce(self, live: bool) -> None:
        # Here, not in RunParts: the registry and the dashboards know a whole run.
        if live:
            register(self)
        announce(self, live)

    # -- what the run shows ------------------------------------------------------------

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
    def needs_input_reason(self) -> str | None:
        """Why the run is ``needs_input``, when it is."""
        return self._chat.needs_input_reason

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended; empty otherwise."""
        return self._chat.state_reason

    @property
    def view(self) -> RunView:
        """The run's chat widget (one per run; every display shows it)."""
        with self._view_lock:
            if self._view is None:
                self._view = RunView(self)
            return self._view

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.view._repr_mimebundle_(**kwargs)

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

    def _exported(self) -> tuple[list[Chat], str | None]:
        return [*self.history(), self.chat()], f"{self.display_name} run {self.id}"

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
        final, warning = await_recorded(self._chat, dialog, intended, timeout)
        if warning is not None:
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
        if self._held_prompt is not None:
            self._held_prompt.release(_FIRST_PROMPT_TIMEOUT)

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
