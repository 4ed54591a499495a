"""Live: what every pinned provider does the same way, each against its real CLI under tmux.

Parametrised over the pins (``lab_widget.compat.PINS``): a new provider gets these checks
as soon as it is pinned and registered. What only one CLI does is in its own live file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget import Reply, Run, ScriptedModel
from lab_widget.compat import PINS
from tests.support.binaries import pinned_binary

PROVIDERS = sorted(PINS)


def script() -> ScriptedModel:
    return ScriptedModel(sequence=[Reply("Hello from the scripted model."), "Second answer."])


def answers(run: Run) -> list[str]:
    return [
        m.text
        for m in run.messages
        if m.kind == "text" and m.role == "assistant" and not m.thinking
    ]


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_a_reply_is_answered_and_the_run_goes_idle(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    pinned_binary(provider_id)
    run = Run(provider_id, cwd=workdir, model=script())
    try:
        run.send("hello", ready_timeout=120)
        assert run.wait_for(
            lambda r: "Hello from the scripted model." in answers(r), timeout=120
        ), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        prompts = [m.text for m in run.messages if m.kind == "text" and m.role == "user"]
        assert prompts == ["hello"]
        assert run.session.usage.output_tokens > 0
    finally:
        run.stop()
    assert run.state == "ended"


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_the_clear_command_opens_a_new_epoch_with_its_echo(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    pinned_binary(provider_id)
    run = Run(provider_id, cwd=workdir, model=script())
    try:
        run.send("hello", ready_timeout=120)
        assert run.wait_for(
            lambda r: "Hello from the scripted model." in answers(r), timeout=120
        ), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        first = run.transcript_id
        assert {c.name: c for c in run.commands}[run.clear_command].role == "clear"
        run.clear()
        run.send("and again")
        assert run.wait_for(
            lambda r: r.transcript_id != first and "Second answer." in answers(r), timeout=120
        ), run.screen()
        echo = run.messages[0]
        assert (echo.role, echo.command) == ("user", run.clear_command)
        assert not any(m.text == "hello" for m in run.messages)
    finally:
        run.stop()
