"""A first prompt given at start-up: on the CLI's command line where the provider's record
says it can go, else typed once the TUI is ready; either way once, cleaned as a paste is."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget import Run
from lab_widget._runtime._tmux import COMMAND_LIMIT, TmuxRunner, sanitize_input
from lab_widget.compat import PINS
from lab_widget.provider import TuiProvider, get_provider
from tests.support.local import local_parts
from tests.support.waiting import retry_until

HOSTILE = '-x it\'s "q" $(touch pwned) `id`\n\x1b[31mline\x03 two\ttab'


@pytest.mark.parametrize("provider_id", sorted(PINS))
def test_a_pinned_cli_takes_a_prompt_as_its_record_says(provider_id: str) -> None:
    provider = get_provider(provider_id)
    assert isinstance(provider, TuiProvider)
    record = provider.couplings.INITIAL_PROMPT
    assert record is not None
    words = provider.initial_prompt_args("hello")
    expected = ["--", "hello"] if record.flag is None else [f"{record.flag}=hello"]
    assert words == expected
    # A prompt starting with a dash is never an option: one word after a flag, or after --.
    assert provider.initial_prompt_args("-v")[-1] in ("-v", f"{record.flag}=-v")  # type: ignore[index]


@pytest.mark.parametrize("provider_id", sorted(PINS))
def test_slash_commands_and_long_prompts_are_left_to_the_paste(provider_id: str) -> None:
    provider = get_provider(provider_id)
    assert isinstance(provider, TuiProvider)
    record = provider.couplings.INITIAL_PROMPT
    assert record is not None
    assert provider.initial_prompt_args("/help") is None
    assert provider.initial_prompt_args("  ") is None
    assert provider.initial_prompt_args("a" * record.max_bytes) is not None
    assert provider.initial_prompt_args("é" * (record.max_bytes // 2 + 1)) is None


def test_a_command_tmux_would_refuse_does_not_fit(tmp_path: Path) -> None:
    runner = TmuxRunner(tmp_path / "tmux.sock")
    assert runner.command_fits("run", ["claude", "--", "hello"], tmp_path)
    assert not runner.command_fits("run", ["claude", "--", "a" * COMMAND_LIMIT], tmp_path)
    # Quoting counts: each single quote grows to five bytes on the shell's command line.
    assert not runner.command_fits("run", ["claude", "--", "'" * (COMMAND_LIMIT // 4)], tmp_path)


def test_a_cli_without_the_argument_gets_the_prompt_typed_once_ready(
    lab_home: Path, workdir: Path
) -> None:
    run = Run("fake", cwd=workdir, prompt=HOSTILE)
    try:
        assert run.wait(timeout=10) == "idle"
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", sanitize_input(HOSTILE)),
            ("assistant", f"echo: {sanitize_input(HOSTILE)}"),
        ]
    finally:
        run.stop()
    assert not (workdir / "pwned").exists()


def test_a_start_up_screen_first_gets_the_prompt_after_it_is_accepted(
    lab_home: Path, workdir: Path
) -> None:
    run = Run("fake", cwd=workdir, ask=True, prompt="after the screen")
    try:
        assert run.state == "needs_input"
        assert run.messages == []
        # Keys the fake agent gets before it reads its terminal raw are flushed.
        assert retry_until(lambda: "Trust this folder?" in run.screen(), 10)
        run.accept(timeout=10)
        assert run.wait(timeout=10) == "idle"
        assert [m.text for m in run.messages if m.role == "user"] == ["after the screen"]
    finally:
        run.stop()


def test_a_start_up_screen_answered_in_the_terminal_gets_the_prompt_once_ready(
    lab_home: Path, workdir: Path
) -> None:
    run = Run("fake", cwd=workdir, ask=True, prompt="after the screen")
    try:
        assert retry_until(lambda: "Trust this folder?" in run.screen(), 10)
        local_parts(run).terminal.keys("y")  # what the terminal view's take-over sends
        assert retry_until(
            lambda: [m.text for m in run.messages if m.role == "user"] == ["after the screen"], 15
        )
        assert run.wait(timeout=10) == "idle"
        run.accept(timeout=10)  # nothing left to accept, nothing sent again
        assert [m.text for m in run.messages if m.role == "user"] == ["after the screen"]
    finally:
        run.stop()
