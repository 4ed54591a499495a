"""Unit: the generic seeder, worktree runs and attribution scrubbing, on real git repos."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget import (
    InvalidSeedError,
    Run,
    ScrubPatternError,
    Seed,
    SeedConflictError,
    SeedMetaError,
    WorkspaceError,
)
from lab_widget._workspace._scrub import scrub_diff, scrub_text
from lab_widget._workspace._seed import prepare_workspace
from lab_widget.provider import _registry, get_provider, register
from lab_widget.schema import ScrubPattern, SeedMeta
from tests.support.fake_provider import FakeProvider
from tests.support.local import local_parts

CLAUDE_COMMIT = (
    "Add the parser\n\nIt reads JSONL.\n\n"
    "\U0001f916 Generated with [Claude Code](https://claude.com/claude-code)\n\n"
    "Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>\n"
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real git repository with one commit and a git identity."""
    for key, value in {
        "GIT_AUTHOR_NAME": "Tester",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "Tester",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
    }.items():
        monkeypatch.setenv(key, value)
    folder = tmp_path / "repo"
    (folder / "src").mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "README.md").write_text("line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n")
    (folder / "src" / "app.py").write_text("print('hi')\n")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "start")
    return folder


def fake_meta() -> SeedMeta:
    return FakeProvider().seed_meta()


SEED = Seed(context="Always answer in French.", skills={"lint": "---\nname: lint\n---\nRun it."})


# -- seeding --------------------------------------------------------------------------------


def test_seeding_writes_where_the_provider_says_and_git_stays_clean(
    repo: Path, tmp_path: Path
) -> None:
    space = prepare_workspace(repo, "r1", fake_meta(), SEED, worktrees_home=tmp_path / "wt")
    assert (repo / "FAKE.md").read_text() == "Always answer in French."
    assert (repo / ".fake/skills/lint/SKILL.md").read_text().endswith("Run it.")
    assert git(repo, "status", "--porcelain") == ""
    assert space.start_commit == git(repo, "rev-parse", "HEAD").strip()
    exclude = (repo / ".git/info/exclude").read_text()
    assert "/FAKE.md" in exclude and "/.fake/" in exclude
    # Seeding the same again is harmless and adds no duplicate lines.
    prepare_workspace(repo, "r2", fake_meta(), SEED, worktrees_home=tmp_path / "wt")
    assert (repo / ".git/info/exclude").read_text() == exclude


def test_a_seed_in_a_sub_folder_is_excluded_at_its_own_path(repo: Path, tmp_path: Path) -> None:
    prepare_workspace(repo / "src", "r1", fake_meta(), SEED, worktrees_home=tmp_path / "wt")
    assert (repo / "src/FAKE.md").exists()
    assert "/src/FAKE.md" in (repo / ".git/info/exclude").read_text()
    assert git(repo, "status", "--porcelain") == ""


def test_claude_code_seed_keeps_git_status_empty(repo: Path, tmp_path: Path) -> None:
    meta = get_provider("claude-code").seed_meta()
    prepare_workspace(repo, "r1", meta, SEED, worktrees_home=tmp_path / "wt")
    assert (repo / "CLAUDE.local.md").read_text() == "Always answer in French."
    assert (repo / ".claude/skills/lint/SKILL.md").exists()
    (repo / ".claude/settings.local.json").write_text("{}")  # the CLI writes this one
    assert git(repo, "status", "--porcelain") == ""


def test_a_conflicting_file_is_never_overwritten(repo: Path, tmp_path: Path) -> None:
    (repo / "FAKE.md").write_text("the user's own notes")
    with pytest.raises(SeedConflictError, match="other content"):
        prepare_workspace(repo, "r1", fake_meta(), SEED, worktrees_home=tmp_path / "wt")
    assert (repo / "FAKE.md").read_text() == "the user's own notes"
    assert not (repo / ".fake").exists()  # checked before anything was written


def test_bad_seeds_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidSeedError, match="plain folder name"):
        Seed(skills={"../escape": "x"})
    no_skills = SeedMeta(context_file="X.md")
    with pytest.raises(InvalidSeedError, match="no skills folder"):
        prepare_workspace(tmp_path, "r", no_skills, SEED, worktrees_home=tmp_path / "wt")


def test_seeding_outside_git_writes_files_and_touches_no_git(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    space = prepare_workspace(folder, "r", fake_meta(), SEED, worktrees_home=tmp_path / "wt")
    assert (folder / "FAKE.md").exists() and space.repo is None
    with pytest.raises(WorkspaceError, match="not inside a git repository"):
        space.diff()
    with pytest.raises(WorkspaceError, match="needs a git repository"):
        prepare_workspace(folder, "r2", fake_meta(), worktree=True, worktrees_home=tmp_path)


def test_cleanup_without_worktree_removes_only_unedited_seed_files(
    repo: Path, tmp_path: Path
) -> None:
    space = prepare_workspace(repo, "r1", fake_meta(), SEED, worktrees_home=tmp_path / "wt")
    (repo / ".fake/skills/lint/SKILL.md").write_text("edited by the user")
    kept = space.cleanup()
    assert not (repo / "FAKE.md").exists()
    assert (repo / ".fake/skills/lint/SKILL.md").read_text() == "edited by the user"
    assert kept == [".fake/skills/lint/SKILL.md was edited since it was seeded; kept"]


# -- metadata validation --------------------------------------------------------------------


def test_scrub_patterns_are_checked_against_their_samples() -> None:
    with pytest.raises(ScrubPatternError, match="does not compile"):
        ScrubPattern(pattern="(", samples=["x"])
    with pytest.raises(ScrubPatternError, match="does not match its sample"):
        ScrubPattern(pattern="^Co-Authored-By: Bot$", samples=["Co-Authored-By: Bot <b@x>"])
    with pytest.raises(Exception, match="at least 1 item"):
        ScrubPattern(pattern="x", samples=[])


@pytest.mark.parametrize(
    ("field", "value"),
    [("context_file", "/etc/x"), ("context_file", "../x"), ("skills_dir", "a/../../b")],
)
def test_seed_meta_paths_stay_inside_the_workspace(field: str, value: str) -> None:
    fields = {"context_file": "X.md", field: value}
    with pytest.raises(SeedMetaError, match="relative path inside the workspace"):
        SeedMeta(**fields)


def test_a_bad_pattern_fails_when_the_provider_is_looked_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class BadPattern(FakeProvider):
        def seed_meta(self) -> SeedMeta:
            return SeedMeta(
                context_file="X.md",
                scrub_patterns=[ScrubPattern(pattern="^Bot:", samples=["Human: hi"])],
            )

    monkeypatch.setattr(_registry, "_registered", dict(_registry._registered))
    register("bad-pattern", BadPattern)
    with pytest.raises(ScrubPatternError, match="Human: hi"):
        get_provider("bad-pattern")


# -- scrubbing ------------------------------------------------------------------------------


def test_claude_attribution_is_scrubbed_from_a_commit_message() -> None:
    patterns = get_provider("claude-code").seed_meta().scrub_patterns
    assert scrub_text(CLAUDE_COMMIT, patterns) == "Add the parser\n\nIt reads JSONL.\n"
    neutral = "Fix the Claude Code adapter\n\nCo-Authored-By: Ada <ada@example.com>\n"
    assert scrub_text(neutral, patterns) == neutral


def test_scrubbed_diff_still_applies(repo: Path, tmp_path: Path) -> None:
    start = git(repo, "rev-parse", "HEAD").strip()
    readme = repo / "README.md"
    lines = readme.read_text().splitlines()
    edited = [
        lines[0],
        "Co-Authored-By: Fake Agent <fake@x>",
        *lines[1:4],
        "new line",
        "Co-Authored-By: Fake Agent <fake@x>",
        *lines[4:],
        "Co-Authored-By: Fake Agent <fake@x>",
    ]
    readme.write_text("\n".join(edited) + "\n")
    (repo / "NOTES.md").write_text("Co-Authored-By: Fake Agent <fake@x>\n")
    (repo / "new.txt").write_text("kept\nCo-Authored-By: Fake Agent <fake@x>\n")
    raw = git(repo, "diff", "-U1", "--", "README.md")
    assert raw.count("\n@@ ") >= 2  # several hunks, so the recount is exercised
    space = prepare_workspace(repo, "r", fake_meta(), None, worktrees_home=tmp_path / "wt")
    space.start_commit = start
    diff = space.diff()
    assert "Fake Agent" not in diff
    assert "+new line" in diff and "+kept" in diff
    assert "NOTES.md" in diff  # a file of scrubbed lines only is still created
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (clone / "patch.diff").write_text(diff)
    git(clone, "apply", "patch.diff")
    expected = [line for line in edited if "Fake Agent" not in line]
    assert (clone / "README.md").read_text() == "\n".join(expected) + "\n"
    assert (clone / "new.txt").read_text() == "kept\n"
    assert (clone / "NOTES.md").read_text() == ""


def test_scrub_diff_with_few_context_lines(repo: Path) -> None:
    (repo / "README.md").write_text("Co-Authored-By: Fake Agent <fake@x>\n" * 2 + "line 1\n")
    raw = git(repo, "diff", "-U0")
    scrubbed = scrub_diff(raw, fake_meta().scrub_patterns)
    assert "Fake Agent" not in scrubbed
    assert "+line 1" not in scrubbed  # line 1 was there already


# -- runs -----------------------------------------------------------------------------------


@pytest.fixture
def two_runs(lab_home: Path, repo: Path) -> Iterator[tuple[Run, Run]]:
    first = Run("fake", cwd=repo, seed=SEED, worktree=True, name="one")
    second = Run("fake", cwd=repo, seed=SEED, worktree=True, name="two")
    yield first, second
    for run in (first, second):
        if run.state != "ended":
            run.stop()


def test_parallel_worktree_runs_get_their_own_folder_and_branch(
    two_runs: tuple[Run, Run], repo: Path, lab_home: Path
) -> None:
    first, second = two_runs
    assert first.cwd == lab_home / "worktrees" / "one"
    assert second.cwd == lab_home / "worktrees" / "two"
    assert (first.workspace.branch, second.workspace.branch) == ("lab/one", "lab/two")
    for run in two_runs:
        assert (run.cwd / "FAKE.md").read_text() == "Always answer in French."
        assert git(run.cwd, "status", "--porcelain") == ""
        assert git(run.cwd, "branch", "--show-current").strip() == run.workspace.branch
    assert git(repo, "status", "--porcelain") == ""
    assert not (repo / "FAKE.md").exists()
    (first.cwd / "src" / "app.py").write_text("print('one')\n")
    assert (second.cwd / "src" / "app.py").read_text() == "print('hi')\n"
    # The agent sees its worktree as its folder.
    local_parts(first).chat.wait_ready(10)
    diff = first.diff()
    assert diff.count("diff --git") == 1 and "+print('one')" in diff


def test_cleanup_removes_worktrees_and_branches_without_commits(
    two_runs: tuple[Run, Run], repo: Path
) -> None:
    first, second = two_runs
    first.stop(cleanup=True)
    second.stop(cleanup=True)
    assert not first.cwd.exists() and not second.cwd.exists()
    assert git(repo, "branch", "--list", "lab/*") == ""
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_a_branch_with_commits_is_kept_and_the_message_is_scrubbed(
    two_runs: tuple[Run, Run], repo: Path
) -> None:
    first, _ = two_runs
    (first.cwd / "src" / "app.py").write_text("print('one')\n")
    sha = first.commit("Say one\n\nCo-Authored-By: Fake Agent <fake@x>\n")
    assert git(repo, "log", "-1", "--format=%B", sha).strip() == "Say one"
    assert "FAKE.md" not in git(repo, "show", "--name-only", sha)  # seeded files stay out
    with pytest.raises(WorkspaceError, match="nothing to commit"):
        first.commit("again")
    with pytest.warns(UserWarning, match="lab/one has commits of its own"):
        first.stop(cleanup=True)
    assert not first.cwd.exists()
    assert git(repo, "rev-parse", "lab/one").strip() == sha


def test_cleanup_refuses_to_drop_uncommitted_work(two_runs: tuple[Run, Run], repo: Path) -> None:
    first, _ = two_runs
    (first.cwd / "work.txt").write_text("unsaved")
    with pytest.raises(WorkspaceError, match="uncommitted changes"):
        first.stop(cleanup=True)
    assert (first.cwd / "work.txt").read_text() == "unsaved"
    first.stop(cleanup=True, discard=True)
    assert not first.cwd.exists()
    assert git(repo, "branch", "--list", "lab/one") == ""


def test_scrubbed_diff_keeps_crlf_form_feeds_and_odd_bytes(repo: Path, tmp_path: Path) -> None:
    start = git(repo, "rev-parse", "HEAD").strip()
    body = b"a\r\npage\x0cbreak\r\nCo-Authored-By: Fake Agent <fake@x>\r\nlatin-1 \xe9\r\n"
    (repo / "dos.txt").write_bytes(body)
    space = prepare_workspace(repo, "r", fake_meta(), None, worktrees_home=tmp_path / "wt")
    assert space.start_commit == start
    diff = space.diff()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (clone / "patch.diff").write_bytes(diff.encode("utf-8", "surrogateescape"))
    subprocess.run(["git", "apply", "patch.diff"], cwd=clone, capture_output=True, check=True)
    assert (clone / "dos.txt").read_bytes() == b"a\r\npage\x0cbreak\r\nlatin-1 \xe9\r\n"


def test_a_seeded_run_in_place_cleans_up_its_files(lab_home: Path, repo: Path) -> None:
    run = Run("fake", cwd=repo / "src", seed=SEED)
    assert run.cwd == repo / "src" and (repo / "src/FAKE.md").exists()
    assert git(repo, "status", "--porcelain") == ""
    (repo / "src/app.py").write_text("print('x')\nCo-Authored-By: Fake Agent <fake@x>\n")
    assert "Fake Agent" not in run.diff() and "+print('x')" in run.diff()
    run.stop(cleanup=True)
    assert not (repo / "src/FAKE.md").exists() and not (repo / "src/.fake").exists()
    assert (repo / "src/app.py").exists()


def test_a_restarted_run_works_on_in_its_worktree(lab_home: Path, repo: Path) -> None:
    run = Run("fake", cwd=repo, seed=SEED, worktree=True, name="kept")
    try:
        folder, branch = run.cwd, run.workspace.branch
        (folder / "src" / "app.py").write_text("print('kept')\n")
        run.restart()
        # The new agent is in the same worktree, on the same branch, from the same start.
        assert run.cwd == folder and run.workspace.branch == branch
        diff = run.diff()
        assert diff.count("diff --git") == 1 and "+print('kept')" in diff
        run.stop(cleanup=True, discard=True)
        assert not folder.exists()
    finally:
        if run.state != "ended":
            run.stop()
