"""A pane spawned to answer colour queries answers them at once, with the terminal view's
colours; without it tmux 3.3a answers none (a CLI that waits for them waits its timeout).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from libtmux.test.retry import retry_until

from lab_widget._run._launch import runner as _runner
from lab_widget._runtime._pane_colours import VIEW_COLOURS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, get_provider
from tests.support.paths import ROOT

PROBE = r"""
import os, select, sys, termios, tty
fd = sys.stdin.fileno()
tty.setraw(fd)
os.write(1, b"\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b[c")
got = b""
while not got.endswith(b"c") and select.select([fd], [], [], 2)[0]:
    got += os.read(fd, 256)
with open(sys.argv[1] + ".tmp", "wb") as f:
    f.write(got)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
"""


def _answers(workdir: Path, name: str, answer_colours: bool) -> bytes:
    out = workdir / f"{name}.bin"
    terminal = _runner().spawn(
        name, [sys.executable, "-c", PROBE, str(out)], {}, workdir, answer_colours=answer_colours
    )
    try:
        retry_until(out.exists, 10)
        return out.read_bytes()
    finally:
        terminal.kill()


def test_a_pane_with_colours_answers_the_colour_queries_at_once(
    lab_home: Path, workdir: Path
) -> None:
    got = _answers(workdir, "colours", answer_colours=True)
    # Answered before the device attributes, so a CLI reading both never waits.
    assert got.endswith(b"\x1b[?1;2c")
    assert b"\x1b]10;rgb:d4d4/d4d4/d4d4\x1b\\" in got
    assert b"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\" in got


def test_a_pane_without_colours_answers_only_the_device_attributes(
    lab_home: Path, workdir: Path
) -> None:
    # What tmux 3.3a does for a pane with default colours: the reason for the option.
    assert _answers(workdir, "plain", answer_colours=False) == b"\x1b[?1;2c"


def test_the_answered_colours_are_the_terminal_views() -> None:
    css = (ROOT / "js" / "src" / "styles" / "terminal.css").read_text()
    fg = re.search(r"--lw-term-fg:\s*(#[0-9a-fA-F]{6})", css)
    bg = re.search(r"--lw-term-bg:\s*(#[0-9a-fA-F]{6})", css)
    assert fg and bg
    assert (fg.group(1).lower(), bg.group(1).lower()) == VIEW_COLOURS


@pytest.mark.parametrize("provider_id", ["claude-code", "codex", "gemini", "opencode"])
def test_only_a_cli_that_waits_for_the_colours_gets_them(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    context = RunContext(run_id="c", cwd=workdir, runtime_dir=lab_home / "runs" / provider_id)
    context.runtime_dir.mkdir(parents=True)
    request = SpawnRequest(
        context=context, binary=Path("cli"), endpoint=Endpoint("http://127.0.0.1:9", "k")
    )
    plan = get_provider(provider_id).plan_spawn(request)
    assert plan.answer_colours is (provider_id == "codex")
