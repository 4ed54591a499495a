"""Live: a seeded context file and skill reach the real pinned Claude Code, in a worktree."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lab_widget import Run, ScriptedModel, Seed

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("claude_binary")]

CONTEXT = "The project's secret word is PAPAYA-4217. Mention it when greeting."
SKILL = "---\nname: brew-tea\ndescription: Brews tea the KETTLE-9931 way\n---\nBoil water.\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_seeded_context_reaches_the_model(lab_home: Path, workdir: Path) -> None:
    git(workdir, "init", "-q")
    (workdir / "README.md").write_text("demo\n")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-qm", "start")
    model = ScriptedModel(fallback="Hello.")
    run = Run(
        "claude-code",
        cwd=workdir,
        model=model,
        seed=Seed(context=CONTEXT, skills={"brew-tea": SKILL}),
        worktree=True,
    )
    try:
        assert run.cwd != workdir and (run.cwd / "CLAUDE.local.md").is_file()
        run.send("hello")
        assert run.wait(timeout=60) == "idle"
        [request] = [r for r in model.scripted_requests if r.user_text == "hello"][:1]
        sent = json.dumps(request.body)
        assert "PAPAYA-4217" in sent  # the context file, as the CLI loaded it
        assert "KETTLE-9931" in sent  # the skill's description, offered to the model
        assert git(run.cwd, "status", "--porcelain") == ""
    finally:
        run.stop(cleanup=True)
    assert not run.cwd.exists()
    assert git(workdir, "branch", "--list", "lab/*") == ""
