"""Unit: Qwen Code's reader and usage-only scan over sessions recorded from the pinned and
an older version (``scripts/record_qwen_code_fixtures.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lab_widget.provider import TranscriptRef
from lab_widget.provider.qwen_code._transcript import QwenCodeTranscriptReader
from lab_widget.provider.qwen_code._usage_scan import usage_summary
from tests.support.paths import FIXTURES

ROOT = FIXTURES / "qwen-code"
VERSIONS = sorted([ROOT, *ROOT.glob("v*")])
"""The pinned version's fixtures and each older version's."""


def _read(path: Path, **options: object) -> QwenCodeTranscriptReader:
    ref = TranscriptRef(transcript_id=path.stem, path=path)
    reader = QwenCodeTranscriptReader(ref, **options)  # type: ignore[arg-type]
    reader.read()
    return reader


def _responses(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(raw) for raw in path.read_text().splitlines()]
    return [r for r in lines if r.get("type") == "assistant"]


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda p: p.name)
def test_a_plain_conversation(folder: Path) -> None:
    reader = _read(folder / "hello.jsonl")
    assert [(m.role, m.text) for m in reader.messages] == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert reader.settled_state() == "idle"
    reply = reader.messages[-1]
    assert reply.usage is not None and reply.usage == reader.summary.usage
    manifest = json.loads((folder / "manifest.json").read_text())
    assert reader.summary.cli_version == manifest["version"]


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda p: p.name)
def test_a_shell_call_with_its_result_and_a_failing_one(folder: Path) -> None:
    reader = _read(folder / "tools.jsonl")
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [(t.name, t.input, t.status) for t in tools] == [
        ("run_shell_command", {"command": "echo tool-output-42"}, "ok"),
        ("run_shell_command", {"command": "ls /no/such/folder"}, "error"),
    ]
    assert tools[0].output == "tool-output-42"
    assert "No such file" in (tools[1].output or "") and "Exit Code: 2" in (tools[1].output or "")
    assert reader.messages[-1].text == "It failed."


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", ["hello.jsonl", "tools.jsonl", "clear_0.jsonl", "clear_1.jsonl"])
def test_usage_once_per_response_as_billed_and_the_scan_agrees(folder: Path, name: str) -> None:
    path = folder / name
    if not path.exists():
        pytest.fail(f"{path} was not recorded (scripts/record_qwen_code_fixtures.py)")
    summary = _read(path).summary
    responses = _responses(path)
    assert summary.models[0].requests == len(responses)
    billed = [r["usageMetadata"] for r in responses]
    assert summary.usage.input_tokens == sum(  # cached tokens apart from the prompt's
        int(b["promptTokenCount"]) - int(b.get("cachedContentTokenCount") or 0) for b in billed
    )
    assert summary.usage.output_tokens == sum(
        int(b["candidatesTokenCount"]) + int(b.get("thoughtsTokenCount") or 0) for b in billed
    )
    ref = TranscriptRef(transcript_id=path.stem, path=path)
    assert usage_summary(ref) == summary


def test_the_clear_epoch_opens_with_its_echo() -> None:
    reader = _read(ROOT / "clear_1.jsonl", clear_echo="/clear")
    assert [(m.role, m.text, m.command) for m in reader.messages] == [
        ("user", "/clear", "/clear"),
        ("user", "again", None),
        ("assistant", "Second answer.", None),
    ]


def test_an_approved_call_shows_as_its_answered_confirmation() -> None:
    records = [json.loads(x) for x in (ROOT / "approve.hooks.jsonl").read_text().splitlines()]
    reader = _read(ROOT / "approve.jsonl", turn_signals=lambda: records)
    dialogs = [m for m in reader.messages if m.dialog is not None]
    assert len(dialogs) == 1
    dialog = dialogs[0].dialog
    assert dialog is not None and (dialog.status, dialog.outcome) == ("answered", "approved")
    assert dialogs[0].tool is not None and dialogs[0].tool.id == dialog.tool_id
    assert reader.state == "idle"


def test_an_unreadable_line_costs_one_warning_and_incremental_reads_equal_one(
    tmp_path: Path,
) -> None:
    data = (ROOT / "tools.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    broken = b"".join([*lines[:2], b"{not json\n", *lines[2:]])
    whole = _read(_written(tmp_path / "whole.jsonl", broken))
    warnings = [m for m in whole.messages if m.kind == "lifecycle"]
    assert len(warnings) == 1 and warnings[0].level == "warning"
    path = tmp_path / "grown.jsonl"
    path.write_bytes(b"")
    grown = QwenCodeTranscriptReader(TranscriptRef(transcript_id="g", path=path))
    for cut in range(0, len(broken), 97):
        with path.open("ab") as f:
            f.write(broken[cut : cut + 97])
        grown.read()
    assert grown.messages == whole.messages


def _written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
