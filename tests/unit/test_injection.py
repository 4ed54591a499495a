"""Hostile prompts: each arrives as exactly one user message, its printable characters and
line breaks byte-exact, triggering nothing else (no interrupt, no key, no second submit).

Run against the fake agent under real tmux; ``tests/live/claude_code/test_injection.py`` plays
the same corpus to the real pinned Claude Code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget import Run
from tests.support.hostile import CORPUS, printable
from tests.support.local import local_parts


@pytest.mark.parametrize("name", list(CORPUS))
def test_fake_agent_gets_each_prompt_once_and_exact(
    lab_home: Path, workdir: Path, name: str
) -> None:
    run = Run("fake", cwd=workdir)
    try:
        local_parts(run).chat.wait_ready(10)
        run.send(CORPUS[name])
        assert run.wait(timeout=20) == "idle"
        assert run.wait_for(lambda r: len(r.messages) >= 2, 5)
        kinds = [(m.kind, m.role) for m in run.messages]
        assert kinds == [("text", "user"), ("text", "assistant")], run.messages
        assert run.messages[0].text == printable(CORPUS[name])
        run.send("next")  # the agent still takes input normally afterwards
        assert run.wait_for(lambda r: r.messages[-1].text == "echo: next", 10)
    finally:
        run.stop()
