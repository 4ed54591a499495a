"""The usage-only fast path counts every recorded OpenCode session exactly as the full
reader does: the same totals, per model and scope, sub-agents included, from each version's
own store (the pinned event log, older versions' ``message`` / ``part`` rows and JSON
files)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.provider.opencode import _compat
from lab_widget.provider.opencode._usage_scan import _CountsOnly, usage_summaries
from tests.support.kits import OpenCodeStore
from tests.support.opencode_recordings import RECORDED, Recorded
from tests.support.paths import FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read

OPENCODE = FIXTURES / "opencode"
STORE = OpenCodeStore()
EVENT_LOGS = sorted(OPENCODE.glob("*.jsonl"))
OLDER = [
    (recorded, path.name.removesuffix(".store.jsonl"))
    for recorded in RECORDED
    if not recorded.pinned
    for path in sorted(recorded.folder.glob("*.store.jsonl"))
]


def _same(ref: TranscriptRef) -> None:
    assert_scan_counts_as_read("opencode", ref)


def _scan_source(ref: TranscriptRef) -> str | None:
    scan = _CountsOnly(ref)
    scan.read()
    return scan._source


_ROW_TABLES = re.compile(
    r"CREATE TABLE `(?:message|part)` \(.*?\n\s*\);|CREATE INDEX `(?:message|part)_\w+` ON [^;]*;",
    re.S,
)


def _add_rows(db: Path, session_id: str, events: bytes) -> None:
    """The ``message`` / ``part`` rows a store that keeps both (1.17.19 and later, whose
    DDL ``v1.17.19/schema.sql`` has them) holds beside an event log: each message's and
    part's last state, its ids in columns."""
    infos: dict[str, dict[str, Any]] = {}
    parts: dict[str, dict[str, Any]] = {}
    for line in events.splitlines():
        row = json.loads(line)
        data = json.loads(row["data"])
        if row["type"].startswith("message.updated."):
            infos[data["info"]["id"]] = {**data["info"], "_seq": row["seq"]}
        elif row["type"].startswith("message.part.updated."):
            parts[data["part"]["id"]] = {**data["part"], "_seq": row["seq"]}
    with sqlite3.connect(db) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'message'").fetchone():
            ddl = (OPENCODE / "v1.17.19" / "schema.sql").read_text()
            conn.executescript("\n".join(_ROW_TABLES.findall(ddl)))
        for msg_id, info in infos.items():
            seq = info.pop("_seq")
            data = {k: v for k, v in info.items() if k not in ("id", "sessionID")}
            created = info.get("time", {}).get("created", seq)
            conn.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (msg_id, session_id, created, seq, json.dumps(data, separators=(",", ":"))),
            )
        for part_id, part in parts.items():
            seq = part.pop("_seq")
            data = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
            conn.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    part_id,
                    part["messageID"],
                    session_id,
                    seq,
                    seq,
                    json.dumps(data, separators=(",", ":")),
                ),
            )
    conn.close()


def _write_pinned(db: Path, path: Path, *, rows: bool) -> TranscriptRef:
    """A pinned event log (and its sub-agents') in ``db``, with the rows beside it."""
    data = path.read_bytes()
    ref = STORE.ref(db, data, path.stem)
    STORE.write(ref, data)
    if rows:
        _add_rows(db, ref.transcript_id, data)
    for child in sorted(path.with_name(f"{path.stem}.agents").glob("*.jsonl")):
        STORE.write(TranscriptRef(child.stem, db), child.read_bytes())
        if rows:
            _add_rows(db, child.stem, child.read_bytes())
    return ref


@pytest.mark.parametrize("path", EVENT_LOGS, ids=lambda p: p.name)
def test_the_usage_scan_totals_as_the_reader_does(path: Path, tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    data = path.read_bytes()
    ref = STORE.ref(db, data, path.stem)
    STORE.write(ref, data)
    agents = path.with_name(f"{path.stem}.agents")
    for child in sorted(agents.glob("*.jsonl")):
        STORE.write(TranscriptRef(child.stem, db), child.read_bytes())
    _same(ref)
    if agents.is_dir():
        fast = get_provider("opencode").usage_summary(ref)
        assert {m.scope for m in fast.models} == {"main", "subagent"}


@pytest.mark.parametrize("path", EVENT_LOGS, ids=lambda p: p.name)
def test_the_rows_beside_an_event_log_total_as_the_log_reads(path: Path, tmp_path: Path) -> None:
    # The full reader reads the event log; the scan reads the rows (each record's last
    # state) where the store keeps them, as 1.17.19 and later do.
    ref = _write_pinned(tmp_path / "opencode.db", path, rows=True)
    _same(ref)
    assert _scan_source(ref) == "rows"


@pytest.mark.parametrize("per_query", [500, 2])
def test_a_listing_is_read_together_as_one_by_one(
    per_query: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One store, sessions with rows and sessions with only their event log, sub-agents in
    # both: the summaries read together are those read one by one, in the order asked,
    # however many ids a query binds.
    monkeypatch.setattr(_compat, "COUNTED_IDS_PER_QUERY", per_query)
    db = tmp_path / "opencode.db"
    refs = [_write_pinned(db, p, rows=i % 2 == 0) for i, p in enumerate(EVENT_LOGS)]
    assert {_scan_source(r) for r in refs} == {"rows", "events"}
    together = get_provider("opencode").usage_summaries([*reversed(refs), refs[0]])
    alone = [get_provider("opencode").usage_summary(r) for r in [*reversed(refs), refs[0]]]
    assert together == alone
    for ref in refs:
        _same(ref)


def test_a_store_without_message_rows_reads_its_event_logs(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    refs = [_write_pinned(db, p, rows=False) for p in EVENT_LOGS[:3]]
    assert usage_summaries(refs) == [get_provider("opencode").usage_summary(r) for r in refs]
    assert {_scan_source(r) for r in refs} == {"events"}


@pytest.mark.parametrize(
    ("recorded", "scenario"), OLDER, ids=[f"{r.version}-{s}" for r, s in OLDER]
)
def test_older_versions_stores_total_as_the_reader_does(
    recorded: Recorded, scenario: str, tmp_path: Path
) -> None:
    refs = recorded.lay_out(scenario, tmp_path / "data")
    assert refs
    for ref in refs:
        _same(ref)
    together = usage_summaries(refs)
    assert together == [get_provider("opencode").usage_summary(r) for r in refs]
    if refs[0].path.suffix != ".json":  # the store's rows, also beside its event log
        assert {_scan_source(r) for r in refs} == {"rows"}


def test_every_version_is_covered() -> None:
    assert {r.version for r, _ in OLDER} == {r.version for r in RECORDED if not r.pinned}
    assert len({r.version for r, _ in OLDER}) >= 4


def test_text_that_is_not_utf8_loses_no_count(tmp_path: Path) -> None:
    # A part's data comes as bytes (replaced where parsed); a session row's text that is not
    # UTF-8 fails the listing's query: its sessions are read on their own, as the reader
    # reads them.
    recorded = next(r for r in RECORDED if r.version == "1.18.33" and not r.pinned)
    refs = recorded.lay_out("tools", tmp_path / "data")
    before = usage_summaries(refs)
    with sqlite3.connect(refs[0].path) as conn:
        conn.execute(
            "UPDATE part SET data = CAST(CAST(data AS BLOB) || x'ff' AS TEXT) "
            'WHERE instr(data, \'"type":"text"\') > 0'
        )
        conn.execute("UPDATE session SET version = CAST(x'31ff' AS TEXT)")
        assert conn.total_changes
    conn.close()
    after = usage_summaries(refs)
    assert [(s.usage, s.models, s.model) for s in after] == [
        (s.usage, s.models, s.model) for s in before
    ]
    assert [s.cli_version for s in after] == ["1.18.33"]  # its event log read instead
    for ref in refs:
        _same(ref)
