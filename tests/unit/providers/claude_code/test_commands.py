"""Unit: Claude Code's slash-command catalog (pinned builtins, custom commands, skills)
and the per-run cache that re-scans only when a command file changes."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lab_widget._chat._commands import CommandCatalog, CommandFileWarning, source_signature
from lab_widget.provider import get_provider, walk_files
from lab_widget.provider.claude_code import _commands, _compat
from lab_widget.provider.claude_code._commands import catalog, command_sources
from lab_widget.provider.claude_code._frontmatter import FrontmatterError, parse_frontmatter
from lab_widget.schema import CommandSpec
from tests.support.fake_provider import FakeProvider

BUILTIN_NAMES = [c.name for c in _commands.BUILTIN_COMMANDS]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty HOME; the user's real commands never leak into a test."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return folder


@pytest.fixture
def repo(tmp_path: Path, home: Path) -> Path:
    """A git repository's root (the walk up for project folders stops here)."""
    folder = tmp_path / "repo"
    (folder / ".git").mkdir(parents=True)
    return folder


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def command(description: str = "", hint: str = "", body: str = "Do it.", **more: str) -> str:
    keys = {"description": description, "argument-hint": hint, **more}
    front = "".join(f"{key}: {value}\n" for key, value in keys.items() if value)
    return f"---\n{front}---\n{body}\n" if front else f"{body}\n"


def custom(commands: list[CommandSpec]) -> dict[str, CommandSpec]:
    return {c.name: c for c in commands if c.source != "builtin"}


def quiet_catalog(cwd: Path) -> list[CommandSpec]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning here is a test failure
        return catalog(cwd)


# -- the pinned builtin table ------------------------------------------------------------


def test_builtin_table_is_complete_and_well_formed() -> None:
    assert len(BUILTIN_NAMES) == len(set(BUILTIN_NAMES)) == 80
    assert all(name.startswith("/") and " " not in name for name in BUILTIN_NAMES)
    assert all(c.source == "builtin" and c.description for c in _commands.BUILTIN_COMMANDS)
    assert [c.name for c in _commands.BUILTIN_COMMANDS if c.role == "clear"] == ["/clear"]


def test_curated_out_commands_are_pinned_builtins_with_a_reason() -> None:
    assert set(_commands.CURATED_OUT) <= set(BUILTIN_NAMES)
    assert all(reason and "\n" not in reason for reason in _commands.CURATED_OUT.values())
    for spec in _commands.BUILTIN_COMMANDS:
        assert spec.chat_safe is (spec.name not in _commands.CURATED_OUT), spec.name


@pytest.mark.parametrize("name", ["/clear", "/compact", "/context", "/recap", "/init"])
def test_commands_that_print_or_prompt_stay_chat_safe(name: str) -> None:
    assert name not in _commands.CURATED_OUT


@pytest.mark.parametrize("name", ["/model", "/resume", "/config", "/usage", "/exit", "/memory"])
def test_commands_that_open_a_picker_or_leave_are_curated_out(name: str) -> None:
    assert name in _commands.CURATED_OUT


def test_headless_bookkeeping_is_consistent() -> None:
    assert set(BUILTIN_NAMES) >= _commands.INTERACTIVE_ONLY
    assert not set(BUILTIN_NAMES) & _commands.HEADLESS_HIDDEN


def test_an_empty_project_offers_the_builtins_in_table_order(repo: Path) -> None:
    assert quiet_catalog(repo) == list(_commands.BUILTIN_COMMANDS)


def test_provider_delegates_to_the_catalog(repo: Path) -> None:
    write(repo / ".claude/commands/greet.md", command("Greet someone", "<name>"))
    provider = get_provider("claude-code")
    assert provider.commands(repo) == quiet_catalog(repo)
    assert repo / ".claude" / "commands" in provider.command_sources(repo)


# -- project commands ---------------------------------------------------------------------


def test_project_command_with_frontmatter(repo: Path) -> None:
    body = "Say hello to $ARGUMENTS in one short sentence."
    write(repo / ".claude/commands/greet.md", command("Greet someone", "<name>", body))
    greet = custom(quiet_catalog(repo))["/greet"]
    assert greet == CommandSpec(
        name="/greet", description="Greet someone", arg_hint="<name>", source="project"
    )
    assert greet.chat_safe and greet.role is None


def test_nested_folders_give_namespaced_names(repo: Path) -> None:
    folder = repo / ".claude/commands"
    write(folder / "tools/lint.md", command("Lint"))
    write(folder / "a/b/deep.md", command("Deep"))
    write(folder / ".hidden/h.md", command("Hidden folder"))
    write(folder / "notes.txt", "not a command")
    write(folder / "UPPER.MD", command("The CLI matches .md in lower case only"))
    assert sorted(custom(quiet_catalog(repo))) == ["/.hidden:h", "/a:b:deep", "/tools:lint"]


@pytest.mark.parametrize(
    ("body", "description"),
    [
        ("\n\n# Review the diff\nThen more.", "Review the diff"),
        ("First line.\nSecond line.", "First line."),
        ("x" * 150, "x" * 97 + "..."),
        ("", ""),
    ],
)
def test_without_a_description_the_first_body_line_stands_in(
    repo: Path, body: str, description: str
) -> None:
    write(repo / ".claude/commands/c.md", command(body=body))
    assert custom(quiet_catalog(repo))["/c"].description == description


@pytest.mark.parametrize(
    ("front", "description", "hint"),
    [
        ('description: "quoted: colon"\nargument-hint: [a] [b]', "quoted: colon", "[a] [b]"),
        ("description: 'it''s'", "it's", ""),
        ("description: >\n  folded\n  text", "folded text", ""),
        ("description: |\n  kept\n  lines", "kept lines", ""),
        ("description: plain # a comment", "plain", ""),
        ("# a comment line\ndescription: x\n\nargument-hint: <y>", "x", "<y>"),
        ("description:\nargument-hint: <y>", "Body.", "<y>"),
    ],
)
def test_frontmatter_values(repo: Path, front: str, description: str, hint: str) -> None:
    write(repo / ".claude/commands/c.md", f"---\n{front}\n---\nBody.\n")
    spec = custom(quiet_catalog(repo))["/c"]
    assert (spec.description, spec.arg_hint) == (description, hint)


def test_crlf_and_byte_order_mark_are_read(repo: Path) -> None:
    write(repo / ".claude/commands/c.md", b"\xef\xbb\xbf---\r\ndescription: crlf\r\n---\r\nx\r\n")
    assert custom(quiet_catalog(repo))["/c"].description == "crlf"


def test_user_invocable_false_hides_a_command(repo: Path) -> None:
    write(repo / ".claude/commands/hidden.md", command("x", **{"user-invocable": "false"}))
    write(repo / ".claude/commands/shown.md", command("y", **{"user-invocable": "true"}))
    assert sorted(custom(quiet_catalog(repo))) == ["/shown"]


# -- skills -------------------------------------------------------------------------------


def test_skills_are_named_by_their_folder(repo: Path) -> None:
    skills = repo / ".claude/skills"
    write(skills / "shout/SKILL.md", command("Shout words", "<words>", name="shout"))
    write(skills / "folder-name/SKILL.md", command("Display alias", name="other-name"))
    write(skills / "nodesc/SKILL.md", "First body line of the skill.\n")
    write(skills / "hidden/SKILL.md", command("x", **{"user-invocable": "false"}))
    write(skills / "group/inner/SKILL.md", command("Nested skills are not found"))
    write(skills / "no-skill-file/README.md", "not a skill")
    write(skills / "flat.md", command("A file directly in skills/ is not a skill"))
    found = custom(quiet_catalog(repo))
    assert sorted(found) == ["/folder-name", "/nodesc", "/shout"]
    assert found["/shout"] == CommandSpec(
        name="/shout", description="Shout words", arg_hint="<words>", source="project"
    )
    assert found["/nodesc"].description == "First body line of the skill."


# -- user level ---------------------------------------------------------------------------


def test_user_commands_and_skills(repo: Path, home: Path) -> None:
    write(home / ".claude/commands/mine.md", command("Mine"))
    write(home / ".claude/commands/team/sync.md", command("Sync"))
    write(home / ".claude/skills/tidy/SKILL.md", command("Tidy up"))
    found = custom(quiet_catalog(repo))
    assert sorted(found) == ["/mine", "/team:sync", "/tidy"]
    assert {c.source for c in found.values()} == {"user"}


def test_claude_config_dir_replaces_the_home_config(
    repo: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(home / ".claude/commands/from-home.md", command("Ignored"))
    config = tmp_path / "config"
    write(config / "commands/from-config.md", command("Used"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert sorted(custom(quiet_catalog(repo))) == ["/from-config"]
    assert config / "commands" in command_sources(repo)


# -- which folders count ------------------------------------------------------------------


def test_a_subfolder_sees_the_repository_root_and_nearer_wins(repo: Path) -> None:
    sub = repo / "pkg" / "mod"
    sub.mkdir(parents=True)
    write(repo / ".claude/commands/root.md", command("At the root"))
    write(repo / ".claude/commands/greet.md", command("Root greet"))
    write(sub / ".claude/commands/greet.md", command("Nearer greet"))
    with pytest.warns(CommandFileWarning, match="pkg/mod/.claude/commands/greet.md wins over"):
        found = custom(catalog(sub))
    assert found["/greet"].description == "Nearer greet"
    assert "/root" in found


def test_the_walk_up_stops_at_the_git_root(repo: Path, tmp_path: Path) -> None:
    write(tmp_path / ".claude/commands/above.md", command("Above the repository"))
    assert custom(quiet_catalog(repo)) == {}


def test_outside_a_repository_the_walk_goes_up_but_never_into_home(
    tmp_path: Path, home: Path
) -> None:
    work = home / "projects" / "x"
    work.mkdir(parents=True)
    write(home / "projects/.claude/commands/parent.md", command("From a parent folder"))
    write(home / ".claude/commands/mine.md", command("Home's .claude is the user's"))
    found = custom(quiet_catalog(work))
    assert (found["/parent"].source, found["/mine"].source) == ("project", "user")


# -- clashes ------------------------------------------------------------------------------

DEFINITIONS = {
    "user skill": "home/.claude/skills/dup/SKILL.md",
    "project skill": "repo/.claude/skills/dup/SKILL.md",
    "user command": "home/.claude/commands/dup.md",
    "project command": "repo/.claude/commands/dup.md",
}
ORDER = list(DEFINITIONS)


@pytest.mark.parametrize(
    ("winner", "loser"),
    [(ORDER[i], ORDER[j]) for i in range(len(ORDER)) for j in range(i + 1, len(ORDER))],
)
def test_clashes_resolve_as_the_cli_does(
    tmp_path: Path, repo: Path, winner: str, loser: str
) -> None:
    for label in (winner, loser):
        write(tmp_path / DEFINITIONS[label], command(label))
    with pytest.warns(CommandFileWarning) as caught:
        found = custom(catalog(repo))
    assert found["/dup"].description == winner
    message = str(caught[0].message)
    assert str(tmp_path / DEFINITIONS[winner]) in message
    assert str(tmp_path / DEFINITIONS[loser]) in message


def test_a_file_that_hides_a_builtin_wins_loudly(repo: Path) -> None:
    write(repo / ".claude/commands/clear.md", command("Not the builtin"))
    with pytest.warns(CommandFileWarning, match=r"clear\.md hides the builtin /clear"):
        commands = catalog(repo)
    clear = [c for c in commands if c.name == "/clear"]
    assert [(c.source, c.role) for c in clear] == [("project", None)]
    assert not any(c.role == "clear" for c in commands)


# -- malformed files ----------------------------------------------------------------------

MALFORMED: dict[str, tuple[str | bytes, str]] = {
    "unclosed": ("---\ndescription: never closed\nbody\n", "never closed"),
    "not-a-key": ("---\ndescription: fine\nthis line is no key\n---\nx\n", "not 'key: value'"),
    "open-quote": ('---\ndescription: "no end\n---\nx\n', "quoted value is not closed"),
    "brackets": ("---\ndescription: [unclosed\n---\nx\n", "unbalanced brackets"),
    "indented-first": ("---\n  stray: indent\n---\nx\n", "follows no key"),
    "binary": (b"\x00\x01\x02binary", "binary data"),
    "latin1": (b"caf\xe9 au lait\n", "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_file_is_skipped_with_a_warning(repo: Path, name: str) -> None:
    content, reason = MALFORMED[name]
    write(repo / f".claude/commands/{name}.md", content)
    write(repo / ".claude/commands/good.md", command("Still here"))
    with pytest.warns(CommandFileWarning, match=reason):
        found = custom(catalog(repo))
    assert sorted(found) == ["/good"]


def test_a_malformed_skill_is_skipped_with_a_warning(repo: Path) -> None:
    write(repo / ".claude/skills/bad/SKILL.md", b"\x00")
    with pytest.warns(CommandFileWarning, match="binary"):
        assert custom(catalog(repo)) == {}


def test_files_over_the_cli_size_limit_are_skipped(repo: Path) -> None:
    limit = _compat.MAX_COMMAND_FILE_BYTES
    write(repo / ".claude/commands/fits.md", "Fits.\n" + "x" * (limit - 7) + "\n")
    write(repo / ".claude/commands/huge.md", "Too big.\n" + "x" * limit)
    with pytest.warns(CommandFileWarning, match="huge.md: larger than"):
        found = custom(catalog(repo))
    assert sorted(found) == ["/fits"]


def test_an_unreadable_file_is_skipped(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = write(repo / ".claude/commands/locked.md", command("x"))
    open_ = Path.open

    def refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked:  # chmod cannot lock out root, so refuse the open itself
            raise PermissionError(13, "Permission denied")
        return open_(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.warns(CommandFileWarning, match="locked.md: cannot be read"):
        assert custom(catalog(repo)) == {}


def test_a_skill_file_that_is_a_pipe_is_not_read(repo: Path) -> None:
    skill = repo / ".claude/skills/piped"
    skill.mkdir(parents=True)
    os.mkfifo(skill / "SKILL.md")
    with pytest.warns(CommandFileWarning, match="not a regular file"):
        assert custom(catalog(repo)) == {}


def test_symlinks_loops_and_dangling_links_are_skipped(repo: Path, tmp_path: Path) -> None:
    folder = repo / ".claude/commands"
    target = write(tmp_path / "elsewhere/linked.md", command("Through a link"))
    folder.mkdir(parents=True)
    (folder / "linked.md").symlink_to(target)
    (folder / "dangling.md").symlink_to(tmp_path / "missing.md")
    (folder / "self.md").symlink_to(folder / "self.md")
    (folder / "loop").mkdir()
    (folder / "loop" / "up").symlink_to(folder)
    with pytest.warns(CommandFileWarning) as caught:
        found = custom(catalog(repo))
    assert sorted(found) == ["/linked"]
    reasons = "\n".join(str(w.message) for w in caught)
    assert "dangling.md: a dangling or looping" in reasons
    assert "self.md: a dangling or looping" in reasons
    assert "loop/up: a symbolic link back" in reasons


def test_parse_frontmatter_raises_a_typed_error() -> None:
    with pytest.raises(FrontmatterError):
        parse_frontmatter("---\nkey value\n---\n")
    assert parse_frontmatter("--- not a fence\nx") == ({}, "--- not a fence\nx")


# -- the walk and the signature -----------------------------------------------------------


def test_walk_files_is_bounded_and_reports_what_it_leaves_out(tmp_path: Path) -> None:
    for index in range(5):
        write(tmp_path / f"f{index}.md", "x")
    write(tmp_path / "a/b/c/deep.md", "x")
    skipped: list[tuple[Path, str]] = []

    def note(path: Path, reason: str) -> None:
        skipped.append((path, reason))

    walked = list(walk_files(tmp_path, skipped=note, max_depth=2, max_files=3))
    assert walked == [tmp_path / "f0.md", tmp_path / "f1.md", tmp_path / "f2.md"]
    assert [
        (path.relative_to(tmp_path).as_posix(), reason.split()[0]) for path, reason in skipped
    ] == [
        ("a/b/c", "nested"),
        ("f3.md", "the"),
    ]


def test_walk_files_cuts_folder_loops_without_skipped_callback(tmp_path: Path) -> None:
    write(tmp_path / "a/x.md", "x")
    (tmp_path / "a" / "again").symlink_to(tmp_path)
    assert list(walk_files(tmp_path)) == [tmp_path / "a/x.md"]


def test_signature_changes_with_each_file_change(tmp_path: Path) -> None:
    path = write(tmp_path / "c.md", "one")
    first = source_signature([tmp_path, tmp_path / "missing"])
    assert first == source_signature([tmp_path])
    path.write_text("two!")
    second = source_signature([tmp_path])
    assert second != first
    write(tmp_path / "sub/new.md", "x")
    assert source_signature([tmp_path]) != second


# -- the per-run cache --------------------------------------------------------------------


class CountingProvider(FakeProvider):
    """Serves one command per file in a folder, and counts the scans."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.calls = 0

    def commands(self, cwd: Path) -> list[CommandSpec]:
        self.calls += 1
        names = sorted(p.stem for p in self.folder.glob("*.md"))
        return [CommandSpec(name=f"/{n}", chat_safe=n != "panel") for n in names]

    def command_sources(self, cwd: Path) -> list[Path]:
        return [self.folder]


@pytest.fixture
def counting(tmp_path: Path) -> Iterator[CountingProvider]:
    folder = tmp_path / "commands"
    write(folder / "a.md", "x")
    yield CountingProvider(folder)


def test_catalog_is_cached_until_a_file_changes(counting: CountingProvider) -> None:
    catalog_ = CommandCatalog(counting, counting.folder)
    assert [c.name for c in catalog_.get()] == ["/a"]
    assert [c.name for c in catalog_.get()] == ["/a"]
    assert counting.calls == catalog_.scans == 1
    write(counting.folder / "b.md", "x")
    assert [c.name for c in catalog_.get()] == ["/a", "/b"]
    assert counting.calls == 2
    (counting.folder / "a.md").unlink()
    assert [c.name for c in catalog_.get()] == ["/b"]
    assert catalog_.get() and counting.calls == 3


def test_catalog_notices_an_edit_that_keeps_the_size(counting: CountingProvider) -> None:
    catalog_ = CommandCatalog(counting, counting.folder)
    catalog_.get()
    path = counting.folder / "a.md"
    path.write_text("y")  # same size: the modification time tells
    stamp = path.stat().st_mtime_ns + 1_000_000
    os.utime(path, ns=(stamp, stamp))
    catalog_.get()
    assert counting.calls == 2


def test_chat_safe_and_invalidate(counting: CountingProvider) -> None:
    write(counting.folder / "panel.md", "x")
    catalog_ = CommandCatalog(counting, counting.folder)
    assert [c.name for c in catalog_.chat_safe()] == ["/a"]
    catalog_.invalidate()
    catalog_.get()
    assert counting.calls == 2


def test_a_provider_without_sources_is_scanned_once(tmp_path: Path) -> None:
    provider = FakeProvider()
    assert provider.command_sources(tmp_path) == []
    catalog_ = CommandCatalog(provider, tmp_path)
    assert catalog_.get() == catalog_.get()
    assert catalog_.scans == 1


def test_claude_catalog_rescans_after_a_command_file_edit(repo: Path) -> None:
    path = write(repo / ".claude/commands/greet.md", command("Old words"))
    catalog_ = CommandCatalog(get_provider("claude-code"), repo)
    assert custom(catalog_.get())["/greet"].description == "Old words"
    assert custom(catalog_.get())["/greet"].description == "Old words"
    assert catalog_.scans == 1
    path.write_text(command("New words, longer"))
    assert custom(catalog_.get())["/greet"].description == "New words, longer"
    write(repo / ".claude/skills/shout/SKILL.md", command("Shout"))
    assert "/shout" in custom(catalog_.get())
    assert catalog_.scans == 3
    assert all(c.chat_safe for c in catalog_.chat_safe())
