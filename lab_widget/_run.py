"""``Run``: one agent CLI in its own tmux session, read through into the universal schema."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
import time
import uuid
import warnings
import weakref
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._answers import UserAnswer, describe_answers, normalise_answer
from ._auth_card import offer_login
from ._chat import ChatEvent, ChatSession
from ._commands import CommandCatalog
from ._dashboard import RunList
from ._frames import to_dataframe
from ._pricing import enrich_summary
from ._runner import TmuxRunner, TmuxTerminal
from ._seed import Seed, Workspace, prepare_workspace
from ._tailer import Tailer
from ._tools import find_binary
from ._view import RunView
from ._watch import announce
from .compat import PINS
from .errors import (
    AgentNotReadyError,
    AnswerMismatchWarning,
    AuthRequiredError,
    DialogChangedError,
    DialogNotAnswerableError,
    LabWidgetError,
    NoDialogError,
    RunNotFoundError,
    WaitTimeoutError,
)
from .provider import (
    AgentProvider,
    Endpoint,
    RunContext,
    SpawnRequest,
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
    Usage,
)
from .scripted import ScriptedModel

__all__ = ["Run", "lab_home", "read_transcript", "runs"]

_RUN_FILE = "run.json"
_live: weakref.WeakValueDictionary[str, Run] = weakref.WeakValueDictionary()
_live_lock = threading.Lock()


def lab_home() -> Path:
    """Where runs keep their private files: ``$LAB_WIDGET_HOME`` or
    ``~/.local/state/lab_widget``.
    """
    env = os.environ.get("LAB_WIDGET_HOME")
    return Path(env).expanduser() if env else Path.home() / ".local" / "state" / "lab_widget"


def _socket_path(home: Path) -> Path:
    # Unix socket paths are limited to ~108 bytes: keep it short, one server per lab home.
    digest = hashlib.sha1(str(home.resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"lab_widget-{os.getuid()}" / f"{digest}.sock"


def _runner() -> TmuxRunner:
    return TmuxRunner(_socket_path(lab_home()))


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)[:40]


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
    **options
        Provider options (e.g. ``permission_mode="plan"`` for Claude Code).
    """

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
        run_id = _safe_name(name) if name else f"{provider_id}-{uuid.uuid4().hex[:8]}"
        runtime_dir = lab_home() / "runs" / run_id
        if runtime_dir.exists() and run_id in _runner().sessions():
            raise LabWidgetError(f"a run named {run_id!r} is already live; pick another name")
        if endpoint is None:
            # The user's own credentials: refuse before spawning rather than strand a TUI
            # on its login screen; in a notebook the login card shows above the error.
            try:
                require_login(self._provider.auth_flow(), self._provider.meta.display_name)
            except AuthRequiredError:
                offer_login(provider_id)
                raise
        runtime_dir.mkdir(parents=True, exist_ok=True)
        workspace = prepare_workspace(
            folder,
            run_id,
            self._provider.seed_meta(),
            seed,
            worktree=worktree,
            worktrees_home=lab_home() / "worktrees",
        )
        folder = workspace.cwd
        context = RunContext(run_id=run_id, cwd=folder, runtime_dir=runtime_dir)
        binary = (
            find_binary(PINS[provider_id], self._provider.meta.display_name)
            if (provider_id in PINS)
            else Path(self._provider.meta.binary)
        )
        request = SpawnRequest(
            context=context, binary=binary, model=model_name, endpoint=endpoint, options=options
        )
        try:
            blocker = self._provider.startup_blocker(request)
            plan = self._provider.plan_spawn(request)
            terminal = _runner().spawn(run_id, plan.argv, plan.env, plan.cwd, unset=plan.unset_env)
        except BaseException:
            workspace.cleanup(discard=True)  # nothing ran in it yet
            raise
        record = {
            "run_id": run_id,
            "provider": provider_id,
            "cwd": str(folder),
            "created": datetime.now(UTC).isoformat(),
            "isolated": endpoint is not None,
            "model": model_name,
            "workspace": workspace.to_record(),
        }
        (runtime_dir / _RUN_FILE).write_text(json.dumps(record, indent=2))
        self._setup(context, terminal, blocker, record)
        self._spawned_at = time.monotonic()

    @classmethod
    def _adopt(cls, record: dict[str, Any], terminal: TmuxTerminal) -> Run:
        run = cls.__new__(cls)
        run._provider = get_provider(str(record["provider"]))
        run.scripted_model = None
        context = RunContext(
            run_id=str(record["run_id"]),
            cwd=Path(str(record["cwd"])),
            runtime_dir=lab_home() / "runs" / str(record["run_id"]),
        )
        run._setup(context, terminal, None, record)
        run._spawned_at = 0.0
        return run

    def _setup(
        self,
        context: RunContext,
        terminal: TmuxTerminal,
        blocker: StartupBlocker | None,
        record: dict[str, Any],
    ) -> None:
        self._context = context
        self._commands = CommandCatalog(self._provider, context.cwd)
        self._view: RunView | None = None
        self._stopped = False
        self._terminal = terminal
        self._record = record
        self._workspace = Workspace.from_record(
            record.get("workspace") or {"cwd": str(context.cwd)}, self._provider.seed_meta()
        )
        self._chat = ChatSession(self._provider, context, terminal, blocker)
        self._tailer = Tailer(self._watch_paths, self._chat.refresh).start()
        self._chat.refresh()
        terminal.on_exit(self._on_exit)
        with _live_lock:
            _live[context.run_id] = self
        announce(self, True)

    def _watch_paths(self) -> list[Path]:
        paths = self._provider.watch_paths(self._context)
        if self._chat.transcript_id is not None:
            ref = self._provider.locate_transcript(self._context, None)
            if ref is not None:
                paths += list(ref.watch)
        return paths

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
    def session(self) -> SessionSummary:
        """Model, token totals, cost estimate, context use, cwd and branch of the current
        epoch.
        """
        summary = self._chat.summary
        requested = self._record.get("model")
        if summary.model_requested is None and isinstance(requested, str):
            summary = summary.model_copy(update={"model_requested": requested})
        return enrich_summary(summary)

    @property
    def usage(self) -> Usage:
        """Token totals of the current epoch (``run.session.usage``)."""
        return self.session.usage

    def to_dataframe(self) -> Any:
        """The current conversation as a pandas DataFrame, one row per message.

        See :func:`lab_widget.to_dataframe`; needs ``pip install 'lab_widget[pandas]'``.
        """
        return to_dataframe(self.messages)

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
        blocker = self._chat.blocker
        return blocker.reason if blocker is not None and self.state == "needs_input" else None

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended; empty otherwise."""
        state = self.state
        if state == "needs_input":
            return self.needs_input_reason or ""
        if state == "ended":
            if self._stopped:
                return "This run was stopped."
            said = self._chat.last_screen.splitlines()[-4:]
            last = ("\n" + "\n".join(said)) if said else ""
            return f"{self.display_name} has exited; start a new run to continue.{last}"
        return ""

    @property
    def display_name(self) -> str:
        """The provider's display name."""
        return self._provider.meta.display_name

    @property
    def clear_command(self) -> str:
        """The provider's command that starts a new conversation."""
        return self._provider.meta.clear_command

    @property
    def view(self) -> RunView:
        """The run's chat widget (one per run; every display shows it)."""
        with _live_lock:
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

    def send(self, text: str, *, ready_timeout: float = 60.0) -> None:
        """Type ``text`` into the agent and submit it (a prompt or a slash command).

        Waits up to ``ready_timeout`` seconds for the TUI to take input first.
        """
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
        out = []
        for ref in self._chat.past_epochs:
            reader = self._provider.open_reader(ref)
            reader.read()
            out.append(
                Chat(
                    messages=reader.messages,
                    state=reader.state,
                    session=enrich_summary(reader.summary),
                )
            )
        return out

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
        with self._chat.lock:
            dialog = self._chat.pending_dialog
            if dialog is None:
                raise NoDialogError("no dialog is pending (it may have been answered already)")
            if isinstance(answers, DialogAnswer) and answers.tool_id not in (None, dialog.tool_id):
                raise DialogChangedError("the pending dialog is not the one this answer is for")
            if not dialog.answerable:
                raise DialogNotAnswerableError(
                    f"answer this dialog in the terminal: {self.attach_command}"
                )
            intended = normalise_answer(dialog, answers)
            self._provider.answer(self._context, self._terminal, dialog, intended)
        tool_id = dialog.tool_id

        def resolved(run: Run) -> bool:
            dialogs = [m.dialog for m in run.messages if m.dialog is not None]
            return any(d.tool_id == tool_id and d.status != "pending" for d in dialogs)

        if not self.wait_for(resolved, timeout):
            raise WaitTimeoutError(timeout, "question")
        final = next(
            m.dialog for m in reversed(self.messages) if m.dialog and m.dialog.tool_id == tool_id
        )
        self._verify(final, intended)
        if feedback and final.status == "rejected":
            self.send(feedback)
        return final

    def answer_dialog(self, answer: DialogAnswer) -> None:
        """Answer with a complete :class:`DialogAnswer` (the widget's form uses this)."""
        self.answer(answer)

    def _verify(self, dialog: Dialog, intended: DialogAnswer) -> None:
        if dialog.answers is None or dialog.kind != "question":
            return
        recorded = [(sorted(a.selected), (a.text or "").strip()) for a in dialog.answers]
        wanted = [(sorted(a.selected), (a.text or "").strip()) for a in intended.answers]
        if recorded != wanted:
            warning = (
                "The agent recorded other answers than the ones sent: "
                f"recorded {dialog.outcome!r}, sent {describe_answers(dialog, intended.answers)!r}"
            )
            self._chat.note_mismatch(dialog.tool_id or "", warning)
            warnings.warn(warning, AnswerMismatchWarning, stacklevel=3)

    def clear(self) -> None:
        """Start a new conversation with the provider's own clear command."""
        self.send(self._provider.meta.clear_command)

    def interrupt(self) -> None:
        """Stop the current turn (the agent keeps running)."""
        self._chat.interrupt()

    def accept(self, timeout: float = 30.0) -> None:
        """Accept what the agent asks before it starts (e.g. trusting the folder)."""
        blocker = self._chat.blocker
        if blocker is None:
            return
        if not blocker.acceptable:
            raise LabWidgetError(f"{blocker.reason} Attach with: {self.attach_command}")
        # The screen cannot be seen (never scraped), so give the TUI its pinned start-up time
        # to draw it before keys arrive, then confirm through the ready signal.
        settle = self._provider.startup_settle - (time.monotonic() - self._spawned_at)
        if settle > 0:
            time.sleep(settle)
        self._provider.accept_startup(self._terminal, blocker)
        self._chat.blocker = None
        self._chat.refresh()
        try:
            self._chat.wait_ready(timeout)
        except AgentNotReadyError as exc:
            raise AgentNotReadyError(
                f"{exc}; answer it in the terminal: {self.attach_command}"
            ) from exc

    def stop(self, cleanup: bool = False, *, discard: bool = False) -> None:
        """End the agent and its tmux session. The transcript stays on disk.

        With ``cleanup=True`` the run's workspace is undone as well (see
        :meth:`Workspace.cleanup`): its worktree is removed, but only when it has no
        uncommitted change or ``discard=True`` (else :class:`~lab_widget.errors.WorkspaceError`
        after the agent has stopped); its branch is deleted only when it has no commits of
        its own (a kept branch is named in a warning); without a worktree, seeded files
        are deleted unless they were edited.
        """
        self._stopped = True
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
        """A snapshot: messages, state and session summary."""
        return Chat(messages=self.messages, state=self.state, session=self.session)

    def screen(self) -> str:
        """The TUI's visible screen as text, for diagnostics."""
        return self._terminal.capture()


def runs() -> RunList:
    """Every live run, re-adopting runs started by an earlier kernel (same lab home).

    A re-adopted run reads its history back from the agent's transcript. The list displays
    in a notebook as a live dashboard (state, activity, tokens, cost; open or stop a run).
    """
    runner = _runner()
    live = set(runner.sessions())
    found: list[Run] = []
    runs_dir = lab_home() / "runs"
    records = sorted(runs_dir.glob(f"*/{_RUN_FILE}")) if runs_dir.is_dir() else []
    for record_path in records:
        try:
            record = json.loads(record_path.read_text())
        except (OSError, ValueError):
            continue
        run_id = str(record.get("run_id"))
        if run_id not in live:
            continue
        with _live_lock:
            existing = _live.get(run_id)
        found.append(existing or Run._adopt(record, runner.terminal(run_id)))
    return RunList(found)


def get_run(run_id: str) -> Run:
    """The live run with this id."""
    for run in runs():
        if run.id == run_id:
            return run
    raise RunNotFoundError(f"no live run {run_id!r}")


def read_transcript(
    path: str | os.PathLike[str], provider: str | None = None, transcript_id: str | None = None
) -> Chat:
    """Read any transcript file of a provider into a :class:`~lab_widget.schema.Chat`.

    No tmux, no agent: for history, analysis and tests. The state is what the transcript
    alone tells (``idle`` or ``working``). ``transcript_id`` names the session in a file
    that holds several (a database); by default it is the file's name without suffix.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise FileNotFoundError(f"no transcript at {file}")
    reader = get_provider(provider or default_provider()).open_reader(
        TranscriptRef(transcript_id=transcript_id or file.stem, path=file)
    )
    reader.read()
    return Chat(
        messages=reader.messages, state=reader.state, session=enrich_summary(reader.summary)
    )
