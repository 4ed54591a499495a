"""Unit: a listing's ``modified`` and ``size`` of each OpenCode session are the session's own
(its rows in the store all sessions share), on every recorded version, and order history."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from lab_widget import history
from lab_widget.provider import SessionStat, TranscriptRef, get_provider
from lab_widget.provider.opencode import _compat
from lab_widget.provider.opencode._stats import session_stats
from tests.support.opencode_recordings import OPENCODE, RECORDED, Recorded

SCENARIOS = [
    (recorded, path.name.removesuffix(".store.jsonl"))
    for recorded in RECORDED
    if not recorded.pinned
    for path in sorted(recorded.folder.glob("*.store.jsonl"))
]


def _expected(recorded: Recorded, scenario: str, ref: TranscriptRef) -> SessionStat:
    """The session's stat computed from the recorded rows themselves."""
    if ref.path.suffix == ".json":  # one file per session: the file's own
        stat = ref.path.stat()
        return SessionStat(stat.st_mtime, stat.st_size)
    lines = [
        json.loads(x)
        for x in (recorded.folder / f"{scenario}.store.jsonl").read_text().splitlines()
        if x
    ]
    mine = [
        line["row"]
        for line in lines
        if (line["table"] == "session" and line["row"]["id"] == ref.transcript_id)
        or (line["table"] in ("message", "part") and line["row"]["session_id"] == ref.transcript_id)
    ]
    newest = max(int(row["time_updated"]) for row in mine)
    size = sum(len(str(row["data"]).encode()) for row in mine if "data" in row)
    return SessionStat(newest / 1000, size)


@pytest.mark.parametrize(
    ("recorded", "scenario"), SCENARIOS, ids=[f"{r.version}-{s}" for r, s in SCENARIOS]
)
def test_each_session_has_its_own_stat(recorded: Recorded, scenario: str, tmp_path: Path) -> None:
    refs = recorded.lay_out(scenario, tmp_path / "data")
    stats = get_provider("opencode").session_stats(refs)
    assert stats == [_expected(recorded, scenario, ref) for ref in refs]
    assert all(s is not None and s.size_bytes > 0 for s in stats)
    if refs[0].path.suffix != ".json":
        # The store's file holds more than any one session's rows.
        assert all(s is not None and s.size_bytes < refs[0].path.stat().st_size for s in stats)


@pytest.mark.parametrize("per_query", [500, 1])
def test_a_store_of_event_logs_only_sizes_each_session_by_its_events(
    per_query: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_compat, "COUNTED_IDS_PER_QUERY", per_query)
    pinned = next(r for r in RECORDED if r.pinned)
    refs = pinned.lay_out("hello", tmp_path / "a") + pinned.lay_out("tools", tmp_path / "a")
    stats = session_stats(refs)
    for ref, stat in zip(refs, stats, strict=True):
        data = (OPENCODE / f"{'hello' if ref is refs[0] else 'tools'}.jsonl").read_text()
        events = sum(len(json.loads(x)["data"].encode()) for x in data.splitlines() if x)
        assert stat is not None and stat.size_bytes == events
    with sqlite3.connect(refs[0].path) as conn:
        updated = dict(conn.execute("SELECT id, time_updated FROM session"))
    conn.close()
    assert [s.modified if s else None for s in stats] == [
        updated[r.transcript_id] / 1000 for r in refs
    ]


def test_a_session_gone_since_the_listing_is_left_out(tmp_path: Path) -> None:
    pinned = next(r for r in RECORDED if r.pinned)
    [ref] = pinned.lay_out("hello", tmp_path / "a")
    gone = TranscriptRef("ses_gone", ref.path, ref.watch)
    assert session_stats([gone, ref])[0] is None
    assert session_stats([TranscriptRef("x", tmp_path / "none.db")]) == [None]


def test_history_orders_the_sessions_of_one_store_by_their_own_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = next(r for r in RECORDED if r.version == "1.18.33" and not r.pinned)
    data = tmp_path / "data"
    refs = recorded.lay_out("new", data)  # a /new: two sessions in one store
    assert len(refs) == 2
    work = tmp_path / "work"
    work.mkdir()
    db = refs[0].path
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE session SET directory = ?", (str(work.resolve()),))
        # The older session changed last: it is listed first.
        older = refs[0].transcript_id
        conn.execute(
            "UPDATE message SET time_updated = 4102444800000 WHERE session_id = ?", (older,)
        )
    conn.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    listed = history(work, provider="opencode")
    assert [i.transcript_id for i in listed] == [older, refs[1].transcript_id]
    assert listed[0].modified.year == 2100
    assert len({i.size_bytes for i in listed}) == 2
    assert all(i.size_bytes < db.stat().st_size for i in listed)


def test_the_default_stat_is_the_transcript_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("{}\n")
    stat = path.stat()
    provider = get_provider("claude-code")
    refs = [TranscriptRef("t", path), TranscriptRef("u", tmp_path / "gone.jsonl")]
    assert provider.session_stats(refs) == [SessionStat(stat.st_mtime, stat.st_size), None]


def test_a_store_too_busy_to_read_gives_its_files_stat(tmp_path: Path) -> None:
    recorded = next(r for r in RECORDED if r.version == "1.18.33" and not r.pinned)
    refs = recorded.lay_out("new", tmp_path / "data")
    db = refs[0].path
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # a writer holding the store past the busy timeout
        stat = db.stat()
        assert session_stats(refs) == [SessionStat(stat.st_mtime, stat.st_size)] * len(refs)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert all(s is not None and s.size_bytes < db.stat().st_size for s in session_stats(refs))
