"""Live: a seeded context file and skill reach the real pinned Claude Code, in a worktree,
and the attribution lines the CLI asks the model to write are the ones its scrub patterns
remove."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lab_widget import Run, ScriptedModel, Seed
from lab_widget._workspace._scrub import scrub_text

pytestmark = [pytest.mark.usefixtures("claude_binary")]

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


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def attribution_lines(body: dict[str, object]) -> list[str]:
    """The lines the CLI tells the model to end commits and pull requests with."""
    found = []
    for text in strings(body):
        for marker in ("End git commit messages with:\n", "End pull request descriptions with:\n"):
            if marker in text:
                found.append(text.split(marker, 1)[1].split("\n", 1)[0])
    return found


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
        # In a git repository the CLI's prompt dictates its attribution lines; every one of
        # them must be something the provider's patterns scrub.
        lines = attribution_lines(request.body)
        assert len(lines) == 2, lines
        patterns = run.provider.seed_meta().scrub_patterns
        for line in lines:
            assert scrub_text(f"Subject\n\n{line}\n", patterns) == "Subject\n", line
    finally:
        run.stop(cleanup=True)
    assert not run.cwd.exists()
    assert git(workdir, "branch", "--list", "lab/*") == ""
