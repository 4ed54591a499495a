"""The usage-only fast path counts every recorded Gemini CLI session exactly as the full
reader does: the same totals, per model and scope, sub-agents and older versions' one-JSON
documents included."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.provider.gemini._files import read_header
from tests.support.paths import FIXTURES as ALL_FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read

FIXTURES = ALL_FIXTURES / "gemini"
SESSIONS = sorted(
    p
    for p in [*FIXTURES.rglob("*.jsonl"), *FIXTURES.rglob("*.json")]
    if not p.name.endswith(".hooks.jsonl")
    and p.name != "manifest.json"
    and not p.parent.name.endswith(".agents")
)


def _lay_out(path: Path, tmp_path: Path) -> Path:
    """The session as Gemini CLI keeps it: its file in ``chats/``, its sub-agents' files in
    ``chats/<session id>/``."""
    chats = tmp_path / "chats"
    chats.mkdir()
    target = chats / f"session-2026-12-01T15-00-{path.stem}{path.suffix}"
    shutil.copy(path, target)
    agents = path.with_name(f"{path.stem}.agents")
    if agents.is_dir():
        header = read_header(path)
        assert header is not None and isinstance(header.get("sessionId"), str)
        shutil.copytree(agents, chats / header["sessionId"])
    return target


def test_every_version_and_the_subagents_are_covered() -> None:
    assert {p.parent.name for p in SESSIONS} == {"gemini", "v0.20.2", "v0.38.2"}
    assert any(p.with_name(f"{p.stem}.agents").is_dir() for p in SESSIONS)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_usage_scan_totals_as_the_reader_does(path: Path, tmp_path: Path) -> None:
    ref = TranscriptRef(transcript_id=path.stem, path=_lay_out(path, tmp_path))
    fast = assert_scan_counts_as_read("gemini", ref)
    if path.stem == "subagent":
        assert {m.scope for m in fast.models} == {"main", "subagent"}


def _edited(name: str, tmp_path: Path, edit: Callable[[list[str]], list[str]]) -> TranscriptRef:
    """The recorded session ``name``, its lines edited, laid out as Gemini CLI keeps it."""
    lines = (FIXTURES / name).read_text().splitlines()
    target = tmp_path / "chats" / f"session-2026-12-01T15-00-{name}"
    target.parent.mkdir()
    target.write_text("".join(line + "\n" for line in edit(lines)))
    return TranscriptRef(transcript_id=target.stem, path=target)


def _compact(lines: list[str]) -> list[str]:
    return [json.dumps(json.loads(line), separators=(",", ":")) for line in lines]


def _records(lines: list[str], kind: str) -> list[tuple[int, dict[str, Any]]]:
    values = [(i, json.loads(x)) for i, x in enumerate(lines)]
    return [(i, v) for i, v in values if v.get("type") == kind and isinstance(v.get("id"), str)]


def _rewind_last_prompt(lines: list[str]) -> list[str]:
    _, prompt = _records(lines, "user")[-1]
    return [*lines, json.dumps({"$rewindTo": prompt["id"]})]


def _corrupt_reply(lines: list[str]) -> list[str]:
    torn, _ = _records(lines, "gemini")[1]
    return [x[: len(x) // 2] if i == torn else x for i, x in enumerate(lines)]


def _named_not_a_reply(lines: list[str]) -> list[str]:
    _, first = _records(lines, "gemini")[0]
    return [*lines, json.dumps({**first, "id": "i1", "type": "info", "content": "gemini"})]


def _dollars(lines: list[str]) -> list[str]:
    _, first = _records(lines, "gemini")[0]
    text = 'echo $HOME {"$set": {"messages": []}}'
    return [*lines, json.dumps({**first, "content": text}), json.dumps({"$set": {"x": "$"}})]


EDITS: dict[str, Callable[[list[str]], list[str]]] = {
    "as recorded": lambda lines: lines,
    "compact, as the CLI writes": _compact,
    "a cut after the replies": _rewind_last_prompt,
    "a torn reply line": _corrupt_reply,
    "a record naming gemini that is no reply": _named_not_a_reply,
    "dollars in a reply and a metadata update": _dollars,
    "a partial last line": lambda lines: [*lines, lines[-2][:40]],
    "no seeding rewrite": lambda lines: [lines[0], *lines[2:]],
}


def _last_rewrite(lines: list[str]) -> int:
    return max(i for i, x in enumerate(lines) if '"$set"' in x and '"messages"' in x)


def _torn_before_the_roll_back(lines: list[str]) -> list[str]:
    # The reader notes the torn line as a record of its own: the roll-back keeps the note.
    torn = _last_rewrite(lines) - 2
    return [x[:30] if i == torn else x for i, x in enumerate(lines)]


def _null_before_the_roll_back(lines: list[str]) -> list[str]:
    at = _last_rewrite(lines)
    return [*lines[:at], "null", "   ", *lines[at:]]


def _replies_after_the_roll_back(lines: list[str]) -> list[str]:
    more = [json.loads(x) for x in (FIXTURES / "tools.jsonl").read_text().splitlines()[2:]]
    return [*lines, *(json.dumps({**x, "id": f"{x['id']}-2"} if "id" in x else x) for x in more)]


ROLLED_BACK: dict[str, Callable[[list[str]], list[str]]] = {
    "rolled back, as recorded": lambda lines: lines,
    "a torn line before the roll-back": _torn_before_the_roll_back,
    "a null line before the roll-back": _null_before_the_roll_back,
    "replies after the roll-back": _replies_after_the_roll_back,
    "a cut after the roll-back": _rewind_last_prompt,
}
SHAPES = [("tools.jsonl", e) for e in EDITS] + [("reject.jsonl", e) for e in ROLLED_BACK]


@pytest.mark.parametrize(("name", "edit"), SHAPES, ids=[e for _, e in SHAPES])
def test_every_shape_of_log_counts_and_dates_as_the_reader_does(
    name: str, edit: str, tmp_path: Path
) -> None:
    ref = _edited(name, tmp_path, {**EDITS, **ROLLED_BACK}[edit])
    if edit == "a partial last line":
        ref.path.write_bytes(ref.path.read_bytes().rstrip(b"\n"))
    fast = assert_scan_counts_as_read("gemini", ref)
    reader = get_provider("gemini").open_reader(ref)
    reader.read()
    full = reader.summary
    assert (fast.started_at, fast.updated_at) == (full.started_at, full.updated_at)
    assert fast.usage.total > 0
