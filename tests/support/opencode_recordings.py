"""OpenCode's recorded stores, every version as it keeps them on disk
(``tests/fixtures/opencode/``: the pinned version's event log, older versions' ``v*/`` stores),
laid out for a reader."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lab_widget.provider import TranscriptRef
from lab_widget.provider.opencode._transcript import OpenCodeTranscriptReader

from .kits import OpenCodeStore
from .paths import FIXTURES

STORE = OpenCodeStore()
OPENCODE = FIXTURES / "opencode"
FOLDERS = sorted(p for p in OPENCODE.glob("v*") if p.is_dir())
VERSIONS = [OPENCODE, *(p for p in FOLDERS if (p / "manifest.json").is_file())]


def version_of(folder: Path) -> str:
    """The CLI version a recorded folder was recorded from (its manifest)."""
    return str(json.loads((folder / "manifest.json").read_text())["version"])


class Recorded:
    """One version's recorded scenarios, laid out as that version keeps them on disk
    (``pinned``: the folder of the pinned version's event logs, a fork's own for a CLI of
    OpenCode's family)."""

    def __init__(self, folder: Path, pinned: Path = OPENCODE) -> None:
        self.folder = folder
        self.version = version_of(folder)
        self.pinned = folder == pinned

    def __repr__(self) -> str:
        return self.version

    def has(self, scenario: str) -> bool:
        if self.pinned:
            return any(self.folder.glob(f"{scenario}.jsonl")) or any(
                self.folder.glob(f"{scenario}_0.jsonl")
            )
        return (self.folder / f"{scenario}.store.jsonl").is_file()

    def lay_out(self, scenario: str, data_home: Path) -> list[TranscriptRef]:
        """Write the scenario's store under ``data_home/opencode``; its top-level sessions,
        oldest first."""
        folder = data_home / "opencode"
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / "opencode.db"
        if self.pinned:
            names = sorted(self.folder.glob(f"{scenario}_*.jsonl")) or [
                self.folder / f"{scenario}.jsonl"
            ]
            refs = []
            for index, name in enumerate(names):
                data = name.read_bytes()
                ref = STORE.ref(db, data, name.stem)
                STORE.append(ref, data)
                created = json.loads(json.loads(data.splitlines()[0])["data"])["info"]
                with sqlite3.connect(db) as conn:
                    conn.execute(
                        "INSERT INTO session (id, project_id, slug, directory, title, version, "
                        "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            ref.transcript_id,
                            created["projectID"],
                            created["slug"],
                            created["directory"],
                            created["title"],
                            created["version"],
                            created["time"]["created"] + index,
                            created["time"]["created"] + index,
                        ),
                    )
                conn.close()
                refs.append(TranscriptRef(ref.transcript_id, db))
            return refs
        lines = [
            json.loads(x)
            for x in (self.folder / f"{scenario}.store.jsonl").read_text().splitlines()
            if x
        ]
        schema = self.folder / "schema.sql"
        if not schema.is_file():  # before the SQLite store: one JSON file per record
            for line in lines:
                target = folder / "storage" / line["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(line["text"])
            sessions = [
                (json.loads(p.read_text()), p)
                for p in (folder / "storage" / "session").glob("*/*.json")
            ]
            return [
                TranscriptRef(info["id"], path)
                for info, path in sorted(sessions, key=lambda x: x[0]["time"]["created"])
                if not info.get("parentID")
            ]
        with sqlite3.connect(db) as conn:
            conn.executescript(schema.read_text())
            for line in lines:
                row = line["row"]
                marks = ", ".join("?" * len(row))
                columns = ", ".join(f"`{c}`" for c in row)
                conn.execute(
                    f"INSERT INTO `{line['table']}` ({columns}) VALUES ({marks})",
                    list(row.values()),
                )
        conn.close()
        return [
            TranscriptRef(str(r["row"]["id"]), db)
            for r in sorted(
                (x for x in lines if x["table"] == "session" and not x["row"]["parent_id"]),
                key=lambda x: x["row"]["time_created"],
            )
        ]

    def read(self, scenario: str, tmp_path: Path, index: int = -1) -> OpenCodeTranscriptReader:
        refs = self.lay_out(scenario, tmp_path / f"data-{scenario}")
        reader = OpenCodeTranscriptReader(refs[index])
        reader.read()
        return reader


RECORDED = [Recorded(folder) for folder in VERSIONS]


def recordings(pinned: Path) -> list[Recorded]:
    """Every recorded version of a CLI of OpenCode's family: the pinned version's folder,
    then its ``v*/`` folders."""
    older = sorted(p for p in pinned.glob("v*") if (p / "manifest.json").is_file())
    return [Recorded(folder, pinned) for folder in [pinned, *older]]


def fixture(name: str) -> bytes:
    """A recorded file of the pinned version."""
    return (FIXTURES / "opencode" / name).read_bytes()


def read(tmp_path: Path, name: str) -> OpenCodeTranscriptReader:
    """The pinned version's recorded event log ``name`` in a store, read once."""
    data = fixture(name)
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, data)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    return reader
