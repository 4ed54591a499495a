"""Live: every prompt sent arrives exactly once, in the transcript and at the model, with the
machine under load; each pinned CLI's submit is confirmed by its own record, never paced. A
first prompt given at start-up goes on the CLI's command line, intact, once.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from lab_widget import Rule, Run, ScriptedModel
from lab_widget._runtime._tmux import sanitize_input
from lab_widget.compat import PINS
from tests.support.binaries import pinned_binary
from tests.support.cpu_hog import cpu_hog

pytestmark = [pytest.mark.live]

PROVIDERS = sorted(PINS)
PROMPTS = 20


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_twenty_prompts_under_load_arrive_once_each(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    pinned_binary(provider_id)
    model = ScriptedModel(fallback="ok")
    prompts = [f"prompt number {i} of the load test" for i in range(PROMPTS)]
    with cpu_hog():
        run = Run(provider_id, cwd=workdir, model=model)
        try:
            for prompt in prompts:
                # The first goes the moment the run is ready: the riskiest send of all.
                run.send(prompt)
                assert run.wait(timeout=120) == "idle", run.screen()
            sent = [m.text for m in run.messages if m.role == "user" and m.kind == "text"]
            answered = [r.user_text for r in model.scripted_requests if not r.subagent]
        finally:
            run.stop()
            model.stop()
    assert sent == prompts
    counts = Counter(answered)
    assert [counts[p] for p in prompts] == [1] * PROMPTS, answered


FIRST = "first words of the run, given at start-up"
LATER = "a later prompt, sent once the first is answered"
# Quotes, a line break, a tab, command substitution, backquotes, shell operators, a leading
# dash (an option, were it read as one) and control characters (dropped, as a paste's).
HOSTILE = (
    '-n it\'s a "quoted" $(touch pwned) `touch pwned2` ; & | > out\n'
    "second line\twith a tab \x1b[31mred\x03 end"
)


def _cli_argv(run: Run) -> list[str]:
    """The command line of the run's CLI process (the pane's process, after its exec)."""
    pid = run.pane.pid()
    assert pid is not None, run.screen()
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def _users(run: Run) -> list[str]:
    return [m.text for m in run.messages if m.role == "user" and m.kind == "text"]


def _answered(model: ScriptedModel) -> list[str]:
    return [r.user_text for r in model.scripted_requests if not r.subagent]


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_first_prompt_in_the_argument_arrives_once(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    pinned_binary(provider_id)
    model = ScriptedModel(rules=[Rule("first words", "Answered the first words.")], fallback="ok")
    run = Run(provider_id, cwd=workdir, model=model, prompt=FIRST)
    try:
        # On the CLI's own command line, not typed into its TUI.
        assert any(FIRST in word for word in _cli_argv(run)), _cli_argv(run)
        assert run.wait(timeout=180) == "idle", run.screen()
        replies = [m.text for m in run.messages if m.role == "assistant" and m.kind == "text"]
        assert "Answered the first words." in replies, run.messages
        assert _users(run) == [FIRST]
        run.send(LATER)
        assert run.wait(timeout=180) == "idle", run.screen()
        users, answered = _users(run), _answered(model)
    finally:
        run.stop()
        model.stop()
    assert users == [FIRST, LATER]
    assert answered == [FIRST, LATER]


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_first_prompt_with_shell_metacharacters_arrives_intact(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    pinned_binary(provider_id)
    model = ScriptedModel(fallback="ok")
    expected = sanitize_input(HOSTILE)
    run = Run(provider_id, cwd=workdir, model=model, prompt=HOSTILE)
    try:
        assert any(expected in word for word in _cli_argv(run)), _cli_argv(run)
        assert run.wait(timeout=180) == "idle", run.screen()
        users, answered = _users(run), _answered(model)
    finally:
        run.stop()
        model.stop()
    assert users == [expected]
    assert answered == [expected]
    assert sorted(p.name for p in workdir.iterdir() if p.name.startswith(("pwned", "out"))) == []
