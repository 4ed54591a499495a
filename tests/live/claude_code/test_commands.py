"""Live: the slash-command catalog against the real pinned Claude Code.

The builtin table must match what the installed binary offers (its headless
``slash_commands`` and its TUI's ``/`` menu), custom commands and skills must be named and
described as the CLI names and describes them, and both must run in a live TUI.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lab_widget import Rule, Run, ScriptedModel
from lab_widget._chat._commands import CommandFileWarning
from lab_widget.provider import get_provider
from lab_widget.provider.claude_code import _commands, _compat
from lab_widget.schema import CommandSpec
from tests.support.local import local_parts

PINNED = {c.name for c in _commands.BUILTIN_COMMANDS}
GREET_BODY = "Say hello to $ARGUMENTS in one short sentence."
SHOUT_BODY = "Repeat the words in CAPITALS and nothing else."


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel(fallback="ok") as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated HOME, shared by the CLI and by the catalog under test."""
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return folder


def headless(
    binary: Path, cwd: Path, model: ScriptedModel, *stdin: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    """Events of ``claude -p`` in stream-json mode, fed ``stdin`` messages (else "hi")."""
    argv = [str(binary), "-p", "--output-format", "stream-json", "--verbose"]
    argv += ["--input-format", "stream-json"] if stdin else ["hi"]
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": model.api_key,
        "ANTHROPIC_BASE_URL": model.base_url,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    with subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            for message in stdin:
                proc.stdin.write(json.dumps(message) + "\n")
            if stdin:
                proc.stdin.flush()  # kept open: the CLI answers, then waits for more
            else:
                proc.stdin.close()  # a prompt argument: nothing more comes on stdin
            for line in proc.stdout:
                yield json.loads(line)
        finally:
            proc.kill()


def init_event(binary: Path, cwd: Path, model: ScriptedModel) -> dict[str, Any]:
    """The first ``system``/``init`` event of a headless run in ``cwd``."""
    for event in headless(binary, cwd, model):
        if event.get("type") == "system" and event.get("subtype") == "init":
            return event
    raise AssertionError("claude -p printed no system/init event")


def initialize(binary: Path, cwd: Path, model: ScriptedModel) -> list[dict[str, Any]]:
    """The commands (name, description, argumentHint) of a headless ``initialize`` answer."""
    request = {"type": "control_request", "request_id": "1", "request": {"subtype": "initialize"}}
    for event in headless(binary, cwd, model, request):
        if event.get("type") == "control_response":
            commands: list[dict[str, Any]] = event["response"]["response"]["commands"]
            return commands
    raise AssertionError("no answer to the initialize request")


# -- the builtin table against the binary --------------------------------------------------


def test_pinned_builtins_match_the_headless_slash_commands(
    claude_binary: Path, model: ScriptedModel, home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "empty"
    (work / ".git").mkdir(parents=True)  # no project folder above it counts
    event = init_event(claude_binary, work, model)
    assert event["claude_code_version"] == _compat.VERSION
    listed = {"/" + name for name in event["slash_commands"]}
    expected = (PINNED - _commands.INTERACTIVE_ONLY) | _commands.HEADLESS_HIDDEN
    chat_safe = {c.name for c in _commands.BUILTIN_COMMANDS if c.chat_safe}
    missing_safe = sorted((chat_safe - _commands.INTERACTIVE_ONLY) - listed)
    assert not missing_safe, f"chat-safe builtins the binary no longer has: {missing_safe}"
    missing, new = sorted(expected - listed), sorted(listed - expected)
    assert not missing and not new, (
        f"builtin drift: pinned but not listed {missing}; listed but not pinned {new} "
        "(add new ones to BUILTIN_COMMANDS, curating them if they open a panel)"
    )


def menu_row(screen: str) -> str | None:
    """The highlighted row of the TUI's ``/`` menu, if it is open."""
    for line in screen.replace("\xa0", " ").splitlines():
        if line.startswith("  \u276f /"):  # the highlight mark
            return line[4:].strip()
    return None


def read_menu(run: Run, limit: int = 200) -> list[str]:
    """Every row of the ``/`` menu, walked with Down until it wraps (capture-pane)."""
    terminal = local_parts(run).terminal
    deadline = time.monotonic() + 30
    while (first := menu_row(run.screen())) is None:
        assert time.monotonic() < deadline, run.screen()
        terminal.keys("Escape", "Escape")  # a "/" typed before the prompt took keys
        time.sleep(0.5)
        terminal.paste("/")
        time.sleep(1.0)
    rows = [first]
    while len(rows) < limit:
        terminal.keys("Down")
        row = rows[-1]
        # The highlight moves when the TUI draws again, later on a busy machine: a row that
        # did not move is a failure, never the same row read twice.
        moved_by = time.monotonic() + 15
        while row == rows[-1]:
            assert time.monotonic() < moved_by, f"the highlight stayed on {row}: {run.screen()}"
            time.sleep(0.05)
            row = menu_row(run.screen()) or row
        if row == first:
            return rows
        rows.append(row)
    raise AssertionError(f"the menu did not wrap after {limit} rows")


def test_pinned_builtins_match_the_tui_menu(lab_home: Path, workdir: Path) -> None:
    run = Run("claude-code", cwd=workdir, model=ScriptedModel(fallback="ok"))
    try:
        local_parts(run).chat.wait_ready(60)
        rows = read_menu(run)
    finally:
        run.stop()
    shown = [row.split()[0] for row in rows]
    assert len(shown) == len(set(shown)), shown
    missing, new = sorted(PINNED - set(shown)), sorted(set(shown) - PINNED)
    assert not missing and not new, f"menu drift: pinned not shown {missing}; new {new}"
    assert shown == [c.name for c in _commands.BUILTIN_COMMANDS]


# -- custom commands and skills ------------------------------------------------------------


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def project(workdir: Path, home: Path) -> Path:
    """A repository with project commands and skills, and a user command."""
    (workdir / ".git").mkdir()
    claude = workdir / ".claude"
    greet = f"---\ndescription: Greet someone\nargument-hint: <name>\n---\n{GREET_BODY}\n"
    write(claude / "commands/greet.md", greet)
    write(claude / "commands/tools/lint.md", "# Lint the changed files\nUse ruff.\n")
    write(claude / "commands/a/b/deep.md", "---\ndescription: Deeply nested\n---\nx\n")
    write(claude / "commands/both.md", "---\ndescription: The command\n---\nx\n")
    shout = f"---\nname: shout\ndescription: Shout the words\n---\n{SHOUT_BODY}\n"
    write(claude / "skills/shout/SKILL.md", shout)
    write(claude / "skills/both/SKILL.md", "---\ndescription: The skill\n---\nx\n")
    hidden = "---\ndescription: Not for users\nuser-invocable: false\n---\nx\n"
    write(claude / "skills/model-only/SKILL.md", hidden)
    write(home / ".claude/commands/mine.md", "---\ndescription: A user command\n---\nx\n")
    return workdir


def custom_commands(cwd: Path) -> dict[str, CommandSpec]:
    with pytest.warns(CommandFileWarning, match="/both"):  # the skill wins; the command is dropped
        commands = get_provider("claude-code").commands(cwd)
    return {c.name: c for c in commands if c.source != "builtin"}


def test_custom_names_and_descriptions_match_the_cli(
    claude_binary: Path, model: ScriptedModel, project: Path
) -> None:
    ours = custom_commands(project)
    native = {
        "/" + c["name"]: c
        for c in initialize(claude_binary, project, model)
        if not c.get("builtin")
    }
    assert sorted(ours) == sorted(native)
    assert sorted(ours) == ["/a:b:deep", "/both", "/greet", "/mine", "/shout", "/tools:lint"]
    for name, spec in ours.items():
        # The headless answer tags each description with its source: "... (project)".
        assert native[name]["description"] == f"{spec.description} ({spec.source})", name
        assert native[name]["argumentHint"] == spec.arg_hint, name
    assert ours["/both"].description == "The skill"
    listed = {"/" + n for n in init_event(claude_binary, project, model)["slash_commands"]}
    assert set(ours) <= listed  # skills are in slash_commands too


def test_project_command_and_skill_run_in_the_tui(lab_home: Path, project: Path) -> None:
    model = ScriptedModel(
        rules=[
            Rule("Say hello to world", "Hello, world!"),
            Rule("CAPITALS", "HELLO THERE"),
        ]
    )
    run = Run("claude-code", cwd=project, model=model)
    try:
        with pytest.warns(CommandFileWarning, match="/both"):
            names = {c.name: c for c in run.commands}
        assert names["/greet"].description == "Greet someone"
        assert names["/shout"].description == "Shout the words"
        for typed, command, body, reply in [
            (
                "/greet world",
                "/greet",
                "Say hello to world in one short sentence.",
                "Hello, world!",
            ),
            ("/shout hello there", "/shout", SHOUT_BODY, "HELLO THERE"),
        ]:
            run.send(typed)

            def replied(r: Run, reply: str = reply) -> bool:
                return any(m.text == reply for m in r.messages)

            assert run.wait_for(replied, timeout=60), run.screen()
            assert any(body in r.user_text for r in model.scripted_requests), [
                r.user_text for r in model.scripted_requests
            ]
            echoes = [m for m in run.messages if m.command == command]
            assert echoes and echoes[0].role == "user", [m.model_dump() for m in run.messages]
        assert run.wait(timeout=60) == "idle"
    finally:
        run.stop()


def test_a_chat_safe_report_prints_into_the_transcript(lab_home: Path, workdir: Path) -> None:
    run = Run("claude-code", cwd=workdir, model=ScriptedModel(["Back at the prompt."]))
    try:
        assert "/context" not in _commands.CURATED_OUT
        run.send("/context")
        assert run.wait_for(
            lambda r: any(m.command == "/context" for m in r.messages), timeout=30
        ), run.screen()
        # The report is the command's <local-command-stdout>, shown as a system message.
        assert run.wait_for(
            lambda r: any(
                m.role == "system" and m.text.startswith("Context usage") for m in r.messages
            ),
            timeout=10,
        ), [m.model_dump() for m in run.messages]
        # Nothing is left open in the terminal: the next prompt is taken and answered.
        run.send("hello")
        assert run.wait(timeout=60) == "idle"
        assert run.messages[-1].text == "Back at the prompt."
    finally:
        run.stop()
