"""Unit: history's previews of OpenCode sessions (first prompt, model) are what the reader
shows of the same first rows, on every recorded version and on rows built for the edges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.provider.opencode._preview import PREVIEW_MESSAGES, _from_rows
from lab_widget.provider.opencode._store import RowChange, first_changes
from lab_widget.provider.opencode._transcript import OpenCodeTranscriptReader
from tests.support.opencode_recordings import RECORDED, Recorded

SCENARIOS = [
    (recorded, path.name.removesuffix(".store.jsonl"))
    for recorded in RECORDED
    if not recorded.pinned
    for path in sorted(recorded.folder.glob("*.store.jsonl"))
]
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg=="


def _mapped(ref: TranscriptRef, changes: list[RowChange]) -> tuple[str | None, str | None]:
    reader = OpenCodeTranscriptReader(ref)
    reader.apply_changes(changes)
    prompt = next((m.text for m in reader.messages if m.role == "user" and m.kind == "text"), None)
    return prompt, reader.summary.model


@pytest.mark.parametrize(
    ("recorded", "scenario"), SCENARIOS, ids=[f"{r.version}-{s}" for r, s in SCENARIOS]
)
def test_a_preview_is_what_the_reader_shows_of_the_first_rows(
    recorded: Recorded, scenario: str, tmp_path: Path
) -> None:
    refs = recorded.lay_out(scenario, tmp_path / "data")
    shown = get_provider("opencode").previews(refs)
    assert shown == [get_provider("opencode").preview(r) for r in refs]
    for ref, (prompt, model) in zip(refs, shown, strict=True):
        assert (prompt, model) == _mapped(
            ref, first_changes(ref.path, ref.transcript_id, PREVIEW_MESSAGES)
        )
        assert prompt and model


def _message(msg_id: str, **info: Any) -> RowChange:
    return RowChange("message", msg_id, msg_id, json.dumps(info))


def _part(part_id: str, msg_id: str, **part: Any) -> RowChange:
    return RowChange("part", part_id, msg_id, json.dumps(part))


EDGES = {
    "synthetic first": [
        _message("msg_1", role="user"),
        _message("msg_2", role="assistant", modelID="m-1"),
        _part("prt_1", "msg_1", type="text", text="context", synthetic=True),
        _part("prt_2", "msg_1", type="text", text="the ask"),
    ],
    "image first": [
        _message("msg_1", role="user"),
        _part("prt_1", "msg_1", type="file", mime="image/png", url=PNG),
        _part("prt_2", "msg_1", type="text", text="what is this"),
    ],
    "unreadable message": [
        RowChange("message", "msg_1", "msg_1", "{not json"),
        _message("msg_2", role="user"),
        _part("prt_1", "msg_1", type="text", text="lost"),
        _part("prt_2", "msg_2", type="text", text="kept"),
    ],
    "newest model": [
        _message("msg_1", role="user"),
        _message("msg_2", role="assistant", modelID="m-1"),
        _message("msg_3", role="assistant", modelID="m-2"),
        _message("msg_4", role="assistant", modelID=""),
        _part("prt_1", "msg_1", type="text", text=""),
        _part("prt_2", "msg_1", type="compaction"),
    ],
    "no user text": [
        _message("msg_1", role="user"),
        _part("prt_1", "msg_1", type="file", mime="text/plain", url="file:///x.txt"),
        _part("prt_2", "msg_1", type="text", text="   "),
        RowChange("part", "prt_3", "msg_1", "[1]"),
    ],
}


@pytest.mark.parametrize("name", list(EDGES))
def test_a_preview_of_built_rows_is_what_the_reader_shows(name: str, tmp_path: Path) -> None:
    changes = EDGES[name]
    assert _from_rows(changes) == _mapped(TranscriptRef("ses_1", tmp_path / "db"), changes)
