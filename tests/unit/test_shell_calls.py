"""Unit: every agent's shell call reads with its command line (``ToolCall.shell``), from the
sessions each pinned CLI recorded (and an older Codex's), so the chat and the exports show
them alike; other tools have none."""

from __future__ import annotations

import importlib

import pytest

from lab_widget import read_transcript
from lab_widget._export._export import markdown
from lab_widget._export._html import html_document
from lab_widget.provider import get_provider
from lab_widget.provider.kit import ShellTools
from lab_widget.schema import ToolCall
from tests.support.paths import FIXTURES

RECORDED = [
    ("claude-code", "tools.jsonl", ["echo tool-output-42", "cat missing-file.txt"]),
    ("codex", "tools.jsonl", ["echo tool-output-42", "cat missing-file.txt"]),
    ("codex", "v0.80.0/tools.jsonl", ["echo tool-output-42", "cat missing-file.txt"]),
    ("gemini", "approve.jsonl", ["touch made.txt"]),
    ("qwen-code", "tools.jsonl", ["echo tool-output-42", "ls /no/such/folder"]),
    ("copilot", "tools.jsonl", ["echo tool-output-42"]),
]


def shell_tools(provider_id: str) -> ShellTools:
    package = type(get_provider(provider_id)).__module__.rpartition(".")[0]
    record = importlib.import_module(f"{package}._compat").SHELL_TOOLS
    assert isinstance(record, ShellTools)
    return record


@pytest.mark.parametrize(("provider_id", "name", "commands"), RECORDED)
def test_a_recorded_shell_call_reads_with_its_command_line(
    provider_id: str, name: str, commands: list[str]
) -> None:
    chat = read_transcript(FIXTURES / provider_id / name, provider_id)
    tools = [m.tool for m in chat.messages if m.tool is not None]
    shells = [t for t in tools if t.shell is not None]
    assert [t.shell for t in shells] == commands
    # The agent's own name stays, and it is the one its compat record pins.
    assert all(t.name in shell_tools(provider_id).fields for t in shells)
    assert all(t.name not in shell_tools(provider_id).fields for t in tools if t.shell is None)


def test_exports_show_a_shell_call_by_its_command_and_keep_the_agents_name() -> None:
    chat = read_transcript(FIXTURES / "codex" / "tools.jsonl", "codex")
    text = markdown([chat])
    assert "**Tool** `Shell` · done · \\$ echo tool-output-42 · `exec_command`" in text
    assert "Command" not in text  # a one-line command is whole in the heading
    html = html_document([chat])
    assert "<code>Shell</code>" in html and '<span class="native">exec_command</span>' in html
    assert "$ echo tool-output-42" in html


def test_an_argv_command_shows_the_script_it_hands_a_shell() -> None:
    record = shell_tools("codex")
    assert record.line("shell", {"command": ["bash", "-lc", "ls -la"]}) == "ls -la"
    assert record.line("local_shell_call", {"command": ["git", "status"]}) == "git status"
    assert record.line("apply_patch", {"command": "x"}) is None


def test_a_tool_call_without_a_shell_has_none() -> None:
    assert ToolCall(id="t", name="Read", input={"file_path": "/a"}).shell is None


def test_every_pinned_provider_with_a_shell_tool_declares_it() -> None:
    for provider_id in ("claude-code", "codex", "copilot", "gemini", "qwen-code"):
        assert shell_tools(provider_id).fields, provider_id
    assert shell_tools("opencode").fields == {"bash": "command"}
    assert shell_tools("mistral-vibe").fields == {"file_system.bash": "command"}
