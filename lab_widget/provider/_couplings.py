"""Typed records of a provider's couplings to its CLI's TUI: keys, pacing, readiness, hooks.

A provider's ``_compat.py`` pins each coupling as one of these records, with the evidence it
was verified by: the CLI version it held for and how that was checked (a live test, a
recorded fixture, an extraction command). The TUI base (:class:`~._tui.TuiProvider`) plays
them; ``tests/unit/test_couplings.py`` checks that every record names its provider's pinned
version and is listed on the provider's compatibility page.

Examples
--------
>>> seen = Evidence(version="1.2.3", how="live: test_interrupt")
>>> KeyRecipe(keys=("Escape", "Escape"), key_delay=0.4, evidence=seen).keys
('Escape', 'Escape')
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..compat import PINS
from ..errors import DialogNotAnswerableError
from ..schema import Dialog, DialogAnswer, ScrubPattern, SeedMeta
from ._dialogs import APPROVE, APPROVE_ALWAYS, REJECT
from ._seam import Terminal
from ._seam_records import ToolServer
from ._submit import SubmitWatch

__all__ = [
    "ApprovalKeys",
    "ColourQuery",
    "Coupling",
    "Evidence",
    "HookEvents",
    "InitialPrompt",
    "KeyRecipe",
    "PasteTiming",
    "PickerPacing",
    "QuietStart",
    "ReadySignal",
    "SeedLayout",
    "StartupScreens",
    "ToolServerNames",
    "pinned",
]


def pinned(provider_id: str, version: str) -> str:
    """``version``, the CLI version a provider's couplings were verified against, once it is
    that provider's pin: a new pin fails the import until the couplings are re-verified.

    Examples
    --------
    >>> pinned("codex", PINS["codex"].version) == PINS["codex"].version
    True
    """
    pin = PINS[provider_id].version
    if pin != version:
        raise AssertionError(
            f"{provider_id} is pinned to {pin} but its couplings were verified against "
            f"{version}: re-verify them for the new pin"
        )
    return version


@dataclass(frozen=True)
class Evidence:
    """What shows a coupling holds: the CLI version it was verified against, and how."""

    version: str
    """The exact CLI version the check ran against (the provider's pin)."""
    how: str
    """The check: ``live: <test>``, ``fixture: <file>: <test>``, ``extraction: <command>``
    or ``measured: <what>`` (several joined with ``;``)."""


@dataclass(frozen=True, kw_only=True)
class Coupling:
    """A coupling to a CLI's private behaviour, with its :class:`Evidence`."""

    evidence: Evidence


def _sleep(seconds: float) -> None:
    if seconds > 0:
        time.sleep(seconds)


@dataclass(frozen=True, kw_only=True)
class KeyRecipe(Coupling):
    """Named keys pressed in order, paced: an interrupt, a picker's answer, a box emptied."""

    keys: tuple[str, ...]
    settle: float = 0.0
    """Seconds before the first key (the screen that takes them needs a moment)."""
    key_delay: float = 0.0
    """Seconds between keys."""
    after: float = 0.0
    """Seconds after the last key, before anything else is sent."""

    def play(self, terminal: Terminal) -> None:
        """Press the keys into ``terminal``, paced."""
        _sleep(self.settle)
        for index, key in enumerate(self.keys):
            if index:
                _sleep(self.key_delay)
            terminal.keys(key)
        _sleep(self.after)


def ctrl_c_empties_the_box(evidence: Evidence) -> KeyRecipe:
    """One Ctrl-C, a second either side: what empties a prompt box an interrupt left text
    in, for a TUI where one press clears a non-empty box and a second within its hint
    would quit.

    Examples
    --------
    >>> ctrl_c_empties_the_box(Evidence("1.0.0", "live: test_interrupt")).keys
    ('C-c',)
    """
    return KeyRecipe(keys=("C-c",), settle=1.0, after=1.0, evidence=evidence)


@dataclass(frozen=True, kw_only=True)
class PasteTiming(Coupling):
    """How a message reaches the prompt box and is submitted.

    The text is pasted (a bracketed paste where the TUI asked for one), and ``submit_key``
    follows once the TUI has taken the paste. A TUI whose command autocomplete reads only
    typed keys gets one-line slash commands typed instead (``typed_command_delay`` set).
    """

    submit_delay: float
    """Seconds between the paste and the key that submits it (pastes apply asynchronously)."""
    typed_command_delay: float | None = None
    """When set, a one-line ``/command`` is typed key by key and submitted this many seconds
    later (its autocomplete row must be selected first)."""
    submit_key: str = "Enter"
    retry_after: float | None = None
    """Seconds a submitted prompt has to start its turn before the submit key is pressed
    once more, for a TUI that drops a submit it got too early (the provider checks)."""

    confirm_waits: tuple[float, ...] = ()
    """Seconds to wait for the CLI's confirmation that the prompt was submitted after each
    press of ``submit_key``, in order (the key is pressed again after each wait but the
    last); empty: the CLI has no such confirmation and ``submit_delay`` paces the key."""

    def is_typed(self, text: str) -> bool:
        """Whether ``text`` is a one-line command this TUI gets typed, not pasted."""
        stripped = text.strip()
        return (
            self.typed_command_delay is not None
            and stripped.startswith("/")
            and "\n" not in stripped
        )

    def submit_confirmed(self, terminal: Terminal, text: str, watch: SubmitWatch) -> bool:
        """Paste ``text`` and press the submit key until ``watch`` confirms the submit.

        The paste goes once: only the key is repeated, which an empty prompt box ignores
        (the CLI submitted the text, or never took the key). False when no confirmation
        came within :attr:`confirm_waits`.
        """
        for index, wait in enumerate(self.confirm_waits):
            if index:
                terminal.keys(self.submit_key)
            else:
                # The paste and its first key in one delivery: a send's cost is mostly
                # the processes that deliver it.
                terminal.paste_keys(text, self.submit_key)
            if watch.wait(wait):
                return True
        return False

    def submit(self, terminal: Terminal, text: str) -> None:
        """Put ``text`` into the prompt box and submit it."""
        if self.is_typed(text):
            terminal.type_text(text.strip())
            _sleep(self.typed_command_delay or 0.0)
        else:
            terminal.paste(text)
            _sleep(self.submit_delay)
        terminal.keys(self.submit_key)


def hook_confirmed_paste(
    evidence: Evidence, *, submit_delay: float, retry_after: float | None = None
) -> PasteTiming:
    """The paste of a CLI whose hook confirms a prompt as its turn starts, a few hundred
    ms after the submit: Enter is pressed again after 0.1 s (an Enter taken as a newline
    just after the paste), then after waits that double up to 4 s. ``submit_delay`` and
    ``retry_after`` pace the key for a run whose hooks do not fire.

    Examples
    --------
    >>> paste = hook_confirmed_paste(Evidence("1.0.0", "live: test_send"), submit_delay=0.4)
    >>> paste.confirm_waits
    (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
    """
    return PasteTiming(
        submit_delay=submit_delay,
        retry_after=retry_after,
        confirm_waits=(0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
        evidence=evidence,
    )


@dataclass(frozen=True, kw_only=True)
class InitialPrompt(Coupling):
    """How the CLI takes a first prompt on its command line, submitting it once it is up.

    ``flag`` ``None``: a positional argument, after ``--`` so a prompt starting with ``-``
    is never read as an option; else ``<flag>=<prompt>``, one word for the same reason.

    Examples
    --------
    >>> seen = Evidence(version="1", how="live: t")
    >>> InitialPrompt(flag=None, max_bytes=8, evidence=seen).args("-hi")
    ['--', '-hi']
    >>> InitialPrompt(flag="--prompt", max_bytes=8, evidence=seen).args("-hi")
    ['--prompt=-hi']
    >>> InitialPrompt(flag=None, max_bytes=8, evidence=seen).carries("/help")
    False
    >>> InitialPrompt(flag=None, max_bytes=8, evidence=seen).carries("é" * 5)
    False
    """

    flag: str | None
    max_bytes: int
    """The longest prompt (UTF-8 bytes) given this way; a longer one is pasted once the
    TUI is ready."""

    def carries(self, text: str) -> bool:
        """Whether ``text`` goes on the command line: a prompt (a slash command would be
        recorded as no prompt) that is not empty and fits :attr:`max_bytes`.
        """
        stripped = text.strip()
        return (
            bool(stripped) and not stripped.startswith("/") and len(text.encode()) <= self.max_bytes
        )

    def args(self, text: str) -> list[str]:
        """The command-line words that carry ``text``."""
        return ["--", text] if self.flag is None else [f"{self.flag}={text}"]


@dataclass(frozen=True, kw_only=True)
class ApprovalKeys(Coupling):
    """The one key that answers a permission prompt, for each answer the chat offers.

    Examples
    --------
    >>> from lab_widget.schema import Answer, Question
    >>> keys = ApprovalKeys(approve="y", reject="Escape", evidence=Evidence("1", "live: t"))
    >>> d = Dialog(kind="approval", questions=[Question(header="P", text="Run it?")])
    >>> keys.key_for(d, DialogAnswer(answers=[Answer(selected=["Approve"])]))
    'y'
    >>> keys.key_for(d, DialogAnswer(answers=[]))
    'Escape'
    """

    approve: str
    reject: str
    approve_always: str | None = None
    settle: float = 0.0
    """Seconds from the live signal until the prompt takes keys."""

    kinds: tuple[str, ...] = ("approval",)
    """The dialog kinds these keys answer (a plan's Approve / Reject menu: ``("plan",)``)."""

    def key_for(self, dialog: Dialog, answer: DialogAnswer) -> str:
        """The key for ``answer``; anything but an offered approval rejects."""
        if dialog.kind not in self.kinds:
            raise DialogNotAnswerableError(f"no recipe for {dialog.kind} dialogs")
        choice = (
            answer.answers[0].selected[0] if answer.answers and answer.answers[0].selected else ""
        )
        keys = {APPROVE: self.approve, REJECT: self.reject}
        if self.approve_always is not None:
            keys[APPROVE_ALWAYS] = self.approve_always
        return keys.get(choice, self.reject)

    def play(self, terminal: Terminal, dialog: Dialog, answer: DialogAnswer) -> None:
        """Answer the open prompt of ``dialog`` (nothing is pressed for a dialog it does not
        answer).
        """
        key = self.key_for(dialog, answer)
        _sleep(self.settle)
        terminal.keys(key)


PickerStep = tuple[str | None, str | None, bool]
"""One step of a picker recipe: text to type or a key to send, and whether it moves to
another tab (or question)."""


@dataclass(frozen=True, kw_only=True)
class PickerPacing(Coupling):
    """How fast a TUI's picker takes keys: it redraws after each one."""

    settle: float
    """Seconds from the live signal until the picker takes keys."""
    key_delay: float
    """Seconds between keys."""
    tab_settle: float
    """Seconds after a key that moves to another tab, before the next key."""

    def wait_open(self, reported: float | None) -> None:
        """Wait until the picker has been open ``settle`` seconds: counted from when its
        signal reported it (``reported``, seconds since the epoch), so a user who answers
        after reading the question waits for nothing; the whole settle when unknown.
        """
        since = time.time() - reported if reported is not None else 0.0
        _sleep(self.settle - max(0.0, since))

    def play(
        self, terminal: Terminal, steps: Sequence[PickerStep], reported: float | None = None
    ) -> None:
        """Type a recipe at this pace, once the picker has been open long enough: text is
        typed, keys sent, and a step that moves to another tab waits ``tab_settle``.
        """
        self.wait_open(reported)
        for text, key, moves_on in steps:
            if text is not None:
                terminal.type_text(text)
            elif key is not None:
                terminal.keys(key)
            _sleep(self.tab_settle if moves_on else self.key_delay)


@dataclass(frozen=True, kw_only=True)
class StartupScreens(Coupling):
    """The screens a TUI may show before it takes input, and the keys that accept each."""

    settle: float
    """Seconds from spawn until the first screen takes keys (keys sent earlier are lost)."""
    screens: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Keys that accept each screen, by the step name a start-up blocker lists."""
    key_delay: float = 0.0
    """Seconds after each key."""
    screen_delay: float = 0.0
    """Seconds for one screen to give way to the next."""

    def accept(self, terminal: Terminal, steps: Sequence[str]) -> None:
        """Accept the screens ``steps`` names, in order."""
        for index, step in enumerate(steps):
            if index:
                _sleep(self.screen_delay)
            for key in self.screens[step]:
                terminal.keys(key)
                _sleep(self.key_delay)


@dataclass(frozen=True, kw_only=True)
class ReadySignal(Coupling):
    """What says the TUI takes input, and how long after it a message is sent."""

    signal: str
    """The structured signal, in words (a hook record, a marker file, a log line)."""
    settle: float
    """Seconds from the signal until the prompt box takes a message."""


@dataclass(frozen=True, kw_only=True)
class ColourQuery(Coupling):
    """The TUI asks its terminal's default colours (OSC 10/11) at start-up and waits for the
    answers. tmux 3.3a answers only for a pane with colours of its own, so the spawn gives
    the pane the terminal view's colours (``SpawnPlan.answer_colours``) and the answer comes
    at once.
    """

    waits: float
    """Seconds the TUI waits for an answer that never comes (measured)."""


@dataclass(frozen=True, kw_only=True)
class QuietStart(Coupling):
    """Start-up work the CLI does for a home it has not seen before, which an isolated run
    (a fresh home each time) would repeat for nothing, and the knobs that turn it off.

    Examples
    --------
    >>> seen = Evidence(version="1", how="measured: strace")
    >>> QuietStart(env={"NO_FETCH": "1"}, evidence=seen).settings
    {}
    """

    env: Mapping[str, str] = field(default_factory=dict)
    """Environment variables set for an isolated run."""
    settings: Mapping[str, object] = field(default_factory=dict)
    """Settings layered into an isolated run's settings."""


@dataclass(frozen=True, kw_only=True)
class HookEvents(Coupling):
    """The hook events a run's settings spool, one record file per event."""

    events: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class SeedLayout(Coupling):
    """Where the CLI reads a seeded workspace's instructions and skills, and the attribution
    it writes into commits (scrubbed from a run's diff).
    """

    context_file: str
    skills_dir: str
    exclude: tuple[str, ...]
    scrub_patterns: tuple[ScrubPattern, ...] = ()

    def meta(self) -> SeedMeta:
        """The seeder's view of this layout (a fresh object each time)."""
        return SeedMeta(
            context_file=self.context_file,
            skills_dir=self.skills_dir,
            exclude=list(self.exclude),
            scrub_patterns=list(self.scrub_patterns),
        )


_SCRIPT_FLAGS = frozenset({"-c", "-lc", "-ic"})


def command_line(value: object) -> str | None:
    """A shell call's command line from its input's value: a string, or an argv list (one
    that hands a script to a shell shows the script); None for anything else or nothing.

    Examples
    --------
    >>> command_line(" ls -l "), command_line(["bash", "-lc", "ls -l"])
    ('ls -l', 'ls -l')
    >>> command_line(["git", "log", "-n 2"]), command_line(""), command_line({"a": 1})
    ("git log '-n 2'", None, None)
    """
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        script = len(value) == 3 and value[1] in _SCRIPT_FLAGS
        value = value[2] if script else shlex.join(value)
    return value.strip() or None if isinstance(value, str) else None


@dataclass(frozen=True, kw_only=True)
class ShellTools(Coupling):
    """The agent's tools that run a shell command, each with the input field that holds the
    command line: the chat shows every agent's shell call alike (``ToolCall.shell``).

    Examples
    --------
    >>> shell = ShellTools(fields={"Bash": "command"}, evidence=Evidence("1", "fixture: t"))
    >>> shell.line("Bash", {"command": "ls -l "}), shell.line("Read", {"command": "ls"})
    ('ls -l', None)
    >>> shell.line("Bash", {"command": ["bash", "-lc", "ls"]}), shell.line("Bash", {})
    ('ls', None)
    """

    fields: Mapping[str, str]
    """Tool name -> the input field with its command line (a string, or an argv list)."""

    def line(self, name: str, tool_input: Mapping[str, object]) -> str | None:
        """The command line a call of ``name`` with ``tool_input`` runs; None for any other
        tool, or an input without one.
        """
        key = self.fields.get(name)
        return command_line(tool_input.get(key)) if key is not None else None


@dataclass(frozen=True, kw_only=True)
class ToolServerNames(Coupling):
    """How a CLI names the tools of an MCP server it was given, in its transcript, its
    permission rules and its hooks.

    Examples
    --------
    >>> names = ToolServerNames(pattern="mcp__{server}__{tool}", evidence=Evidence("1", "unit: x"))
    >>> names.tool("kernel", "run_python")
    'mcp__kernel__run_python'
    >>> names.asking([ToolServer("kernel", ["k"], asking=("run", "insert"), reading=("ls",))])
    ['mcp__kernel__run', 'mcp__kernel__insert']
    """

    pattern: str
    """The name, with ``{server}`` and ``{tool}`` to fill in."""

    def tool(self, server: str, tool: str) -> str:
        """The name the CLI gives ``tool`` of ``server``."""
        return self.pattern.format(server=server, tool=tool)

    def asking(self, servers: Sequence[ToolServer]) -> list[str]:
        """The names of the tools of ``servers`` that ask before every call."""
        return [self.tool(server.name, tool) for server in servers for tool in server.asking]
