"""Live: what every pinned provider does the same way, each against its real CLI under tmux.

One test body per scenario, parametrised over the pins (``lab_widget.compat.PINS``): a reply
answered and the run idle, a tool call paired with its result, the clear command's new epoch,
an interrupt, a stop that leaves no process behind, a killed session ending the run. What
differs per CLI (its tool's name, its interrupt's record, its pace) is a row of ``LIVE``; a
pinned provider without a row fails saying so. What only one CLI does is in
``tests/live/<provider>/``.

The reply and tool checks only read: they share one run per provider (``played``), which
plays both turns once and keeps what each turn left; the killed session is that run's end.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse, history
from lab_widget._run._launch import runner
from lab_widget.compat import PINS
from lab_widget.schema import Message, SessionSummary, State
from lab_widget.scripted import RecordedRequest
from tests.support.binaries import pinned_binary
from tests.support.local import local_parts
from tests.support.processes import run_processes
from tests.support.waiting import retry_until

PROVIDERS = sorted(PINS)


@dataclass
class Played:
    """One run per provider through a greeting and a tool turn, with what each turn left."""

    provider_id: str
    run: Run
    model: ScriptedModel
    workdir: Path
    ready_at_start: bool
    """Whether the provider called itself ready before anything was sent."""
    after_hello: list[Message]
    session_after_hello: SessionSummary
    transcript_after_hello: Path | None
    requests_after_hello: list[RecordedRequest]
    scripted_after_hello: list[RecordedRequest]
    after_tool: list[Message] = field(default_factory=list)


Check = Callable[[Played], None]


@dataclass(frozen=True)
class Live:
    """What one provider does its own way in the shared scenarios."""

    tool_turn: Callable[[Path], list[Reply]]
    """The scripted turn answering "please use a tool" (the folder the run works in)."""
    tool_name: str
    """The CLI's name for the shell tool that turn calls."""
    timeout: float
    """Seconds a turn may take to reach idle."""
    ready_timeout: float | None = None
    """``send``'s wait for the TUI, when its default is too short for this CLI."""
    reply_names_model: bool = True
    """Whether the reply's message names the model it came from."""
    reply_keeps_cwd: bool = True
    """Whether the session summary reports the run's folder."""
    cli_version: bool = False
    """Whether the transcript records the CLI's version (checked against the pin)."""
    transcript_prefix: str | None = None
    """How the CLI names its transcript files, where it keeps one."""
    echo_before_prompt: bool = True
    """Whether the clear command's echo shows before the new epoch's first prompt."""
    echo_alone: bool = False
    """Whether that echo is all the new epoch holds until the next prompt."""
    interrupted: str | None = "Interrupted"
    """The lifecycle message an interrupt leaves (``None``: the CLI records nothing)."""
    interrupt_idle_timeout: float = 30.0
    """Seconds from the interrupt to idle."""
    idle_with_interrupted: bool = False
    """Whether the run is idle as soon as the interrupt's message shows."""
    stop_gone_timeout: float = 10.0
    """Seconds from ``stop`` until none of the run's processes is left."""
    killed_end_timeout: float = 2.0
    """Seconds from its tmux session's kill until the run has ended (the CLI's own exit)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment the shared run starts with (a notebook in a CI job, say)."""
    check_reply: Check | None = None
    """The provider's own checks on the greeting turn."""
    check_tool: Check | None = None
    """The provider's own checks on the tool turn."""
    check_clear: Callable[[Run, Path, str], None] | None = None
    """The provider's own checks on the new epoch (run, folder, first transcript id)."""
    check_interrupt: Callable[[Run], None] | None = None
    """The provider's own checks right after the interrupt reached idle."""


def _shell(command: str, **extra: str) -> Callable[[Path], list[Reply]]:
    def turn(workdir: Path) -> list[Reply]:
        call = ToolUse("Bash", {"command": command.format(workdir=workdir), **extra})
        return [Reply("Let me check.", tools=[call]), Reply("The tool said tool-output-42.")]

    return turn


def _codex_turn(workdir: Path) -> list[Reply]:
    call = ToolUse("Bash", {"command": "echo tool-output-42", "description": "echo"})
    return [
        Reply("Let me check.", tools=[call], reasoning="The user wants a tool call."),
        Reply("The tool said tool-output-42."),
    ]


def _codex_reply(played: Played) -> None:
    # Typed before the thread marker, a reply's Enter is lost: send waits for it first.
    assert not played.ready_at_start


def _codex_tool(played: Played) -> None:
    tool = next(m.tool for m in played.after_tool if m.tool is not None)
    assert tool.input == {"cmd": "echo tool-output-42"}
    thinking = [(m.text, m.redacted) for m in played.after_tool if m.thinking]
    assert thinking == [("The user wants a tool call.", False)]


def _codex_clear(run: Run, workdir: Path, first: str) -> None:
    assert run.transcript_path is not None and run.transcript_path.exists()
    assert [c.session.transcript_id for c in run.history()] == [first]
    assert run.session.cwd == str(workdir)  # the current worktree, not a new one


def _codex_interrupt(run: Run) -> None:
    assert run.screen().count("Ask Codex") == 1  # still running, prompt back


def _claude_clear(run: Run, workdir: Path, first: str) -> None:
    # Both epochs are in the folder's history, though the run kept them in its own home.
    past = history(workdir)
    assert [s.transcript_id for s in past] == [run.transcript_id, first]
    assert past[-1].first_prompt == "hello"
    assert [m.text for m in past[-1].open().messages][:2] == [
        "hello",
        "Hello from the scripted model.",
    ]


def _gemini_reply(played: Played) -> None:
    # The routing classifier's side query did not consume the script.
    assert [r.user_text for r in played.scripted_after_hello] == ["hello"]
    assert any(not r.scripted and ":generateContent" in r.path for r in played.requests_after_hello)


def _gemini_tool(played: Played) -> None:
    tool = next(m.tool for m in played.after_tool if m.tool is not None)
    assert tool.input["command"] == "echo tool-output-42"
    assert played.run.pending_dialog is None  # echo needs no confirmation


def _gemini_interrupt(run: Run) -> None:
    assert [m.text for m in run.messages] == ["be slow", "Request cancelled."]


def _copilot_reply(played: Played) -> None:
    # The model gets the words without the CLI's <current_datetime> context.
    assert [r.user_text for r in played.scripted_after_hello] == ["hello"]


def _echo_ran_unasked(played: Played) -> None:
    tool = next(m.tool for m in played.after_tool if m.tool is not None)
    assert tool.input["command"] == "echo tool-output-42"
    assert played.run.pending_dialog is None  # echo runs unasked


def _qwen_reply(played: Played) -> None:
    # Its context parts (<system-reminder>) are not the user's words, and no background
    # request (suggestions, memory) consumed the script.
    assert [r.user_text for r in played.scripted_after_hello] == ["hello"]
    assert len(played.requests_after_hello) == 1


def _opencode_tool(played: Played) -> None:
    assert (played.workdir / "made.txt").exists()


def _kilo_reply(played: Played) -> None:
    # The model matched the words without Kilo's <environment_details> after them.
    assert [r.user_text for r in played.scripted_after_hello] == ["hello"]


LIVE: dict[str, Live] = {
    "claude-code": Live(
        tool_turn=_shell("echo tool-output-42", description="echo"),
        tool_name="Bash",
        timeout=60,
        # Claude Code records nothing for an answer that never started; the run still knows.
        interrupted=None,
        interrupt_idle_timeout=5,
        check_clear=_claude_clear,
    ),
    "codex": Live(
        tool_turn=_codex_turn,
        tool_name="exec_command",
        timeout=60,
        cli_version=True,
        transcript_prefix="rollout-",
        echo_alone=True,
        idle_with_interrupted=True,
        check_reply=_codex_reply,
        check_tool=_codex_tool,
        check_clear=_codex_clear,
        check_interrupt=_codex_interrupt,
    ),
    "gemini": Live(
        tool_turn=_shell("echo tool-output-42"),
        tool_name="run_shell_command",
        timeout=90,
        reply_keeps_cwd=False,
        transcript_prefix="session-",
        echo_alone=True,
        interrupted="Request cancelled.",
        # A notebook started from a CI job: the CLI would take itself for headless and exit.
        env={"CI": "true", "GITHUB_ACTIONS": "true"},
        check_reply=_gemini_reply,
        check_tool=_gemini_tool,
        check_interrupt=_gemini_interrupt,
    ),
    "copilot": Live(
        tool_turn=_shell("echo tool-output-42"),
        tool_name="bash",
        timeout=90,
        cli_version=True,
        echo_alone=True,
        # A notebook started from a CI job: the run unsets CI and GITHUB_ACTIONS.
        env={"CI": "true", "GITHUB_ACTIONS": "true"},
        check_reply=_copilot_reply,
        check_tool=_echo_ran_unasked,
    ),
    "mistral-vibe": Live(
        tool_turn=_shell("echo tool-output-42"),
        tool_name="file_system.bash",
        timeout=90,
        ready_timeout=180,
        echo_alone=True,
        interrupted=None,
        # Its Rust TUI shuts its app server down on the hang-up before it exits: 3.5 s
        # measured on a loaded machine.
        killed_end_timeout=6.0,
        check_tool=_echo_ran_unasked,
    ),
    "qwen-code": Live(
        tool_turn=_shell("echo tool-output-42"),
        tool_name="run_shell_command",
        timeout=120,
        ready_timeout=120,
        cli_version=True,
        echo_alone=True,
        interrupted=None,
        # A notebook started from a CI job: the CLI would take itself for headless.
        env={"CI": "true", "GITHUB_ACTIONS": "true"},
        check_reply=_qwen_reply,
        check_tool=_gemini_tool,
    ),
    "opencode": Live(
        tool_turn=_shell("echo tool-output-42 && touch {workdir}/made.txt", description="x"),
        tool_name="bash",
        timeout=90,
        ready_timeout=90,
        reply_names_model=False,
        cli_version=True,
        echo_before_prompt=False,
        idle_with_interrupted=True,
        stop_gone_timeout=15,
        check_tool=_opencode_tool,
    ),
    # OpenCode's fork, run by OpenCode's family code: the same row, its start-up slower.
    "kilo": Live(
        tool_turn=_shell("echo tool-output-42 && touch {workdir}/made.txt", description="x"),
        tool_name="bash",
        timeout=120,
        ready_timeout=180,
        reply_names_model=False,
        cli_version=True,
        echo_before_prompt=False,
        idle_with_interrupted=True,
        stop_gone_timeout=15,
        # Its Bun process exits about 2 s after the hang-up: 2.03 s measured beside a second
        # test worker.
        killed_end_timeout=4.0,
        check_reply=_kilo_reply,
        check_tool=_opencode_tool,
    ),
}


def live(provider_id: str) -> Live:
    """The provider's row, its pinned binary checked; a pin without a row fails saying so."""
    pinned_binary(provider_id)
    if provider_id not in LIVE:
        pytest.fail(
            f"{provider_id} is pinned but has no row in LIVE (tests/live/test_providers.py)"
        )
    return LIVE[provider_id]


def script(row: Live, workdir: Path) -> ScriptedModel:
    return ScriptedModel(
        rules=[
            Rule("use a tool", row.tool_turn(workdir)),
            Rule("slow", Reply("late answer", delay=30)),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def last_text(run: Run) -> str | None:
    """The newest message's text; ``None`` while the epoch has none."""
    return run.messages[-1].text if run.messages else None


def state(run: Run) -> State:
    """The run's state read afresh (an earlier check narrowed ``run.state`` for the checker)."""
    return run.state


def copies(run: Run) -> list[Message]:
    return [m.model_copy(deep=True) for m in run.messages]


@pytest.fixture(scope="module", params=PROVIDERS)
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Played]:
    """The greeting and the tool turn, played once per provider in a lab home of its own."""
    provider_id: str = request.param
    row = live(provider_id)
    root = tmp_path_factory.mktemp(f"played-{provider_id}")
    workdir = root / "work"
    workdir.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAB_WIDGET_HOME", str(root / "lab-home"))
        for name, value in row.env.items():
            patch.setenv(name, value)
        model = script(row, workdir)
        run = Run(provider_id, cwd=workdir, model=model)
        try:
            ready = run.provider.is_ready(local_parts(run).context)
            run.send("hello", ready_timeout=row.ready_timeout or 120)
            assert run.wait(timeout=row.timeout) == "idle", run.screen()
            shared = Played(
                provider_id=provider_id,
                run=run,
                model=model,
                workdir=workdir,
                ready_at_start=ready,
                after_hello=copies(run),
                session_after_hello=run.session.model_copy(deep=True),
                transcript_after_hello=run.transcript_path,
                requests_after_hello=list(model.requests),
                scripted_after_hello=list(model.scripted_requests),
            )
            run.send("please use a tool")
            assert run.wait_for(
                lambda r: last_text(r) == "The tool said tool-output-42.",
                timeout=row.timeout,
            ), run.screen()
            assert run.wait(timeout=30) == "idle", run.screen()
            shared.after_tool = copies(run)[len(shared.after_hello) :]
            yield shared
        finally:
            run.stop()
            runner().kill_server()
    assert run.state == "ended"


def test_a_reply_is_answered_and_the_run_goes_idle(played: Played) -> None:
    row = LIVE[played.provider_id]
    texts = [(m.role, m.text) for m in played.after_hello if m.kind == "text"]
    assert texts == [("user", "hello"), ("assistant", "Hello from the scripted model.")]
    last = played.after_hello[-1]
    assert last.usage and last.usage.output_tokens > 0
    if row.reply_names_model:
        assert last.model
    session = played.session_after_hello
    assert session.usage.output_tokens > 0
    if row.reply_keeps_cwd:
        assert session.cwd == str(played.workdir)
    if row.cli_version:
        assert session.cli_version == PINS[played.provider_id].version
    if row.transcript_prefix is not None:
        path = played.transcript_after_hello
        assert path is not None and path.name.startswith(row.transcript_prefix)
    if row.check_reply is not None:
        row.check_reply(played)


def test_a_tool_call_is_paired_with_its_result(played: Played) -> None:
    row = LIVE[played.provider_id]
    texts = [m.text for m in played.after_tool if m.kind == "text" and m.role == "user"]
    assert texts == ["please use a tool"]
    tools = [m.tool for m in played.after_tool if m.kind == "tool"]
    assert len(tools) == 1 and tools[0] is not None
    assert tools[0].name == row.tool_name
    # Whatever the agent calls its shell tool, the call reads as one, with its command line.
    assert (tools[0].shell or "").startswith("echo tool-output-42"), tools[0]
    assert tools[0].status == "ok"
    assert "tool-output-42" in (tools[0].output or "")
    assert played.after_tool[-1].text == "The tool said tool-output-42."
    if row.check_tool is not None:
        row.check_tool(played)


CLEAR_CASES = [
    *(pytest.param(p, False, id=p) for p in PROVIDERS),
    # Codex follows the new thread the same way when the folder is a git repository.
    pytest.param("codex", True, id="codex-git-repo"),
]


@pytest.mark.parametrize(("provider_id", "git"), CLEAR_CASES)
def test_the_clear_command_opens_a_new_epoch_with_its_echo(
    provider_id: str, git: bool, lab_home: Path, workdir: Path
) -> None:
    row = live(provider_id)
    if git:
        subprocess.run(["git", "init", "-q", str(workdir)], check=True)
    with Run(provider_id, cwd=workdir, model=script(row, workdir)) as run:
        run.send("hello", ready_timeout=row.ready_timeout or 120)
        assert run.wait(timeout=row.timeout) == "idle", run.screen()
        first = run.transcript_id
        assert first is not None
        assert {c.name: c for c in run.commands}[run.clear_command].role == "clear"
        run.clear()
        if row.echo_before_prompt:
            # The chat follows the new epoch at once, before it has an answer.
            def echoed(r: Run) -> bool:
                commands = [m.command for m in r.messages]
                if row.echo_alone:
                    return r.transcript_id != first and commands == [r.clear_command]
                return r.transcript_id != first and r.clear_command in commands

            assert run.wait_for(echoed, timeout=30), run.screen()
            assert run.state == "idle"
            assert not any(m.text == "hello" for m in run.messages)
        run.send("and again")
        assert run.wait_for(
            lambda r: r.transcript_id != first and last_text(r) == "Second answer.",
            timeout=row.timeout,
        ), run.screen()
        assert run.wait(timeout=row.timeout) == "idle", run.screen()
        echo = run.messages[0]
        assert (echo.role, echo.command) == ("user", run.clear_command)
        assert not any(m.text == "hello" for m in run.messages)
        if row.check_clear is not None:
            row.check_clear(run, workdir, first)


LIVE_CLEARS = int(os.environ.get("LAB_WIDGET_LIVE_CLEARS", "5"))
"""Clears in a row per provider; ``LAB_WIDGET_LIVE_CLEARS=20`` for the long form."""


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_wait_after_each_clear_in_a_row_returns_on_the_new_conversation(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    row = live(provider_id)
    run = Run(provider_id, cwd=workdir, model=script(row, workdir))
    try:
        run.send("hello", ready_timeout=row.ready_timeout or 120)
        assert run.wait(timeout=row.timeout) == "idle", run.screen()
        seen = [run.transcript_id]
        for n in range(1, LIVE_CLEARS + 1):
            run.clear()
            # No wait_for: back from the wait, the clear is settled.
            assert run.wait(timeout=60) == "idle", (n, run.screen())
            if row.echo_before_prompt:
                assert run.transcript_id not in seen, n
                seen.append(run.transcript_id)
                users = [m.command for m in run.messages if m.role == "user"]
                assert users == [run.clear_command], (n, users)
            assert run.state == "idle", n
        run.send("and again")
        assert run.wait(timeout=row.timeout) == "idle", run.screen()
        # The last clear's conversation (or, where a clear records nothing, a new one).
        if row.echo_before_prompt:
            assert run.transcript_id == seen[-1]
        else:
            assert run.transcript_id not in seen
        assert [(m.role, m.command) for m in run.messages][:1] == [("user", run.clear_command)]
        assert last_text(run) == "Second answer."
    finally:
        run.stop()


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    row = live(provider_id)
    model = script(row, workdir)
    with Run(provider_id, cwd=workdir, model=model) as run:
        run.send("be slow", ready_timeout=row.ready_timeout or 120)
        # Working for real: the request is at the model, which holds it for 30 s.
        assert run.wait_for(
            lambda r: any(q.user_text == "be slow" for q in model.scripted_requests),
            timeout=row.timeout,
        ), run.screen()
        assert run.state == "working"
        run.interrupt()
        if row.interrupted is not None:
            text = row.interrupted
            assert run.wait_for(
                lambda r: any(m.kind == "lifecycle" and m.text == text for m in r.messages),
                timeout=30,
            ), run.screen()
            if row.idle_with_interrupted:
                assert state(run) == "idle"
        assert run.wait(timeout=row.interrupt_idle_timeout) == "idle", run.screen()
        assert not any(m.text == "late answer" for m in run.messages)
        if row.check_interrupt is not None:
            row.check_interrupt(run)
        # The TUI may put the prompt back in its box: the next one must not be glued to it.
        run.send("after the stop")
        assert run.wait_for(
            lambda r: last_text(r) == "Hello from the scripted model.",
            timeout=row.timeout,
        ), run.screen()
        assert run.wait(timeout=row.timeout) == "idle", run.screen()
        prompts = [m.text for m in run.messages if m.kind == "text" and m.role == "user"]
        assert prompts == ["be slow", "after the stop"]


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_stop_leaves_no_process_behind(provider_id: str, lab_home: Path, workdir: Path) -> None:
    row = live(provider_id)
    model = script(row, workdir)
    with Run(provider_id, cwd=workdir, model=model) as run:
        run.send("please use a tool", ready_timeout=row.ready_timeout or 120)
        assert run.wait_for(
            lambda r: last_text(r) == "The tool said tool-output-42.", timeout=row.timeout
        ), run.screen()
        assert run.wait(timeout=row.timeout) == "idle", run.screen()
        assert run_processes(str(lab_home)), "the scan must see the live run"
    assert run.state == "ended"
    gone = retry_until(lambda: not run_processes(str(lab_home)), timeout=row.stop_gone_timeout)
    assert gone, run_processes(str(lab_home))
    assert not run_processes(str(workdir))
    # Nor a port: the run's scripted model stopped serving with it.
    assert not model.running


def test_a_killed_session_ends_the_run_within_two_seconds(played: Played) -> None:
    # The shared run's last check (pytest keeps each provider's tests on ``played`` together,
    # in file order): it ends the run, which the checks above read only as their snapshots.
    run = played.run
    assert run.state == "idle"
    socket = str(local_parts(run).terminal.runner.socket_path)
    subprocess.run(["tmux", "-S", socket, "kill-session", "-t", run.id], check=True)
    limit = LIVE[played.provider_id].killed_end_timeout
    started = time.monotonic()
    assert run.wait_for(lambda r: r.state == "ended", timeout=limit)
    assert time.monotonic() - started < limit
