"""Unit: OpenCode's stored sessions mapped to the universal schema, read from real stores laid
out with each version's own DDL: the pinned 1.18.33's event log, and older versions' stores
(``tests/fixtures/opencode/v*/``: event logs, ``message`` / ``part`` rows, JSON files)."""

from __future__ import annotations

import contextlib
import heapq
import http.server
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import history
from lab_widget._widgets._view import _dump
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, TranscriptRef, get_provider
from lab_widget.provider.opencode import _compat
from lab_widget.provider.opencode._server import STATE_FILE
from lab_widget.provider.opencode._signals import OpenCodeSignals
from lab_widget.provider.opencode._transcript import OpenCodeTranscriptReader
from lab_widget.schema import Message, Usage
from tests.support.kits import require_kit
from tests.support.opencode_recordings import (
    FOLDERS,
    OPENCODE,
    RECORDED,
    STORE,
    Recorded,
    fixture,
    read,
    recordings,
    version_of,
)
from tests.support.paths import FIXTURES


@pytest.fixture(params=RECORDED, ids=repr)
def recorded(request: pytest.FixtureRequest) -> Recorded:
    """Each recorded version in turn (one test body, every version)."""
    return request.param  # type: ignore[no-any-return]


# The family's recordings: these tests also read those of OpenCode's fork Kilo Code, whose
# sessions the same reader maps (its own differences: tests/unit/providers/kilo).
FAMILY = [*RECORDED, *recordings(FIXTURES / "kilo")]
family = pytest.mark.parametrize("recorded", FAMILY, indirect=True, ids=repr)


def needs(recorded: Recorded, scenario: str) -> None:
    """Every version records the common scenarios: a missing one is a failed recording."""
    assert recorded.has(scenario), f"{recorded} has no {scenario} recording"


def texts(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages if m.kind == "text"]


def test_every_version_was_recorded_from_itself() -> None:
    assert version_of(OPENCODE) == _compat.VERSION
    assert [p.name for p in FOLDERS] == [f"v{r.version}" for r in RECORDED[1:]]
    for item in RECORDED[1:]:
        lines = (item.folder / "hello.store.jsonl").read_text().splitlines()
        records = [json.loads(x) for x in lines]
        stored = {
            r["row"]["version"] if "row" in r else json.loads(r["text"]).get("version")
            for r in records
            if r.get("table") == "session" or str(r.get("file", "")).startswith("session/")
        }
        assert stored - {None} == {item.version}, item


@family
def test_hello(recorded: Recorded, tmp_path: Path) -> None:
    needs(recorded, "hello")
    reader = recorded.read("hello", tmp_path)
    assert texts(reader.messages) == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert reader.state == "idle"
    last = reader.messages[-1]
    assert last.usage is not None and last.usage.output_tokens > 0
    assert last.model == "default"
    summary = reader.summary
    assert summary.cli_version == recorded.version
    assert summary.cwd == "/fixture/work"
    assert summary.usage.output_tokens > 0 and len(summary.turn_durations_ms) == 1
    assert summary.started_at is not None


@family
def test_tool_calls_ok_and_failing(recorded: Recorded, tmp_path: Path) -> None:
    needs(recorded, "tools")
    reader = recorded.read("tools", tmp_path)
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [t.name for t in tools] == ["bash", "bash"]
    assert tools[0].status == "ok" and "tool-output-42" in (tools[0].output or "")
    assert tools[0].input["command"] == "echo tool-output-42"
    # Read as a shell call, as every agent's is.
    assert tools[0].shell == "echo tool-output-42"
    assert all(t.shell for t in tools)
    # A failing command (1.15.13: its bash tool refused the call without a description).
    assert tools[1].status == "error"
    assert texts(reader.messages)[-1] == ("assistant", "That command failed.")
    assert reader.state == "idle"
    assert [m.text for m in reader.messages if m.role == "user"] == [
        "please use a tool",
        "now a failing tool",
    ]


@family
def test_interrupt_is_a_lifecycle_note_and_idle(recorded: Recorded, tmp_path: Path) -> None:
    needs(recorded, "interrupt")
    reader = recorded.read("interrupt", tmp_path)
    notes = [m.text for m in reader.messages if m.kind == "lifecycle"]
    assert notes == ["Interrupted"]
    assert reader.state == "idle"
    assert not any(m.text == "late answer" for m in reader.messages)


@family
def test_rejected_permission_ends_the_turn(recorded: Recorded, tmp_path: Path) -> None:
    needs(recorded, "reject")
    reader = recorded.read("reject", tmp_path)
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert len(tools) == 1 and tools[0].status == "error"
    assert (tools[0].output or "").endswith("(rejected)")
    assert reader.state == "idle"


@family
def test_approved_permission_runs_the_call(recorded: Recorded, tmp_path: Path) -> None:
    needs(recorded, "approve")
    reader = recorded.read("approve", tmp_path)
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [(t.name, t.status) for t in tools] == [("bash", "ok")]
    assert texts(reader.messages)[-1] == ("assistant", "Tool said 42.")
    assert reader.state == "idle"


@family
def test_new_makes_a_second_session(recorded: Recorded, tmp_path: Path) -> None:
    needs(recorded, "new")
    refs = recorded.lay_out("new", tmp_path / "data")
    assert len(refs) == 2
    firsts = []
    for ref in refs:
        reader = OpenCodeTranscriptReader(ref)
        reader.read()
        firsts.append(texts(reader.messages))
    assert firsts == [
        [("user", "hello"), ("assistant", "Hello from the scripted model.")],
        [("user", "and again"), ("assistant", "Second answer.")],
    ]


@family
def test_read_as_it_grows_equals_one_read(recorded: Recorded, tmp_path: Path) -> None:
    """Reading a store while its records land, in the order they were created, ends with
    the messages one read of the finished store gives, each reported as it changed."""
    needs(recorded, "tools")
    whole = recorded.read("tools", tmp_path / "whole")
    full = recorded.lay_out("tools", tmp_path / "full")[0]
    growing = tmp_path / "growing"
    reported: dict[int, Message] = {}
    if full.path.suffix == ".json":  # legacy files, copied over one at a time
        storage = full.path.parent.parent.parent
        ref = TranscriptRef(full.transcript_id, growing / full.path.relative_to(storage.parent))
        reader = OpenCodeTranscriptReader(ref)
        for path in sorted(storage.rglob("*.json"), key=lambda p: (p.parent.parent.name, p.name)):
            target = growing / path.relative_to(storage.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            reported.update((m.seq, m) for m in reader.read().changed)
    else:
        growing.mkdir()
        source = sqlite3.connect(full.path)
        source.row_factory = sqlite3.Row
        db = sqlite3.connect(growing / "opencode.db")
        for (ddl,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
        ):
            db.execute(ddl)
        db.commit()
        reader = OpenCodeTranscriptReader(
            TranscriptRef(full.transcript_id, growing / "opencode.db")
        )
        rows = []
        names = {r[0] for r in source.execute("SELECT name FROM sqlite_master")}
        for table in ("session", "message", "part", "event"):
            for row in source.execute(f"SELECT * FROM {table}") if table in names else []:
                when = row["seq"] if table == "event" else row["time_created"]
                rows.append((table != "session", when, table, dict(row)))
        # Each row lands as it was created (stamped then), and is touched again when it was
        # last written, as the CLI updates rows in place.
        for _, _, table, row in sorted(rows, key=lambda r: (r[0], r[1])):
            created = dict(row, time_updated=row["time_created"]) if table != "event" else row
            columns = ", ".join(f"`{c}`" for c in created)
            marks = ", ".join("?" * len(created))
            db.execute(
                f"INSERT INTO `{table}` ({columns}) VALUES ({marks})", list(created.values())
            )
            db.commit()
            reported.update((m.seq, m) for m in reader.read().changed)
        touched = [r for r in rows if r[2] in ("message", "part")]
        for _, _, table, row in sorted(touched, key=lambda r: r[3]["time_updated"]):
            db.execute(
                f"UPDATE `{table}` SET time_updated = ? WHERE id = ?",
                (row["time_updated"], row["id"]),
            )
            db.commit()
            reported.update((m.seq, m) for m in reader.read().changed)
        db.close()
        source.close()
    assert reader.messages == whole.messages
    assert [reported[m.seq] for m in whole.messages] == whole.messages
    assert reader.state == whole.state == "idle"


def test_history_lists_and_opens_every_session_of_a_version(
    recorded: Recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs(recorded, "new")
    data = tmp_path / "data"
    recorded.lay_out("new", data)
    work = tmp_path / "work"
    work.mkdir()
    # The recorded folder was /fixture/work: point it at this test's folder.
    _retarget(data, "/fixture/work", str(work.resolve()))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    provider = get_provider("opencode")
    refs = provider.sessions(work)
    assert len(refs) == 2
    assert [provider.preview(r) for r in refs] == [
        ("hello", "default"),
        ("and again", "default"),
    ]
    found = history(work, provider="opencode")
    assert sorted((s.first_prompt, s.model) for s in found) == [
        ("and again", "default"),
        ("hello", "default"),
    ]
    for info in found:
        chat = info.open()
        assert chat.session.transcript_id == info.transcript_id
        # The first thing typed (a session a run started with /new opens with its echo).
        typed = [m for m in chat.messages if m.role == "user" and m.command is None]
        assert typed[0].text == info.first_prompt
        assert chat.session.usage.output_tokens > 0
    # Read together (one pass over the store), as one by one, as the full read counts.
    summaries = found.summaries()
    assert summaries == [info.summary() for info in found]
    assert [s.usage for s in summaries] == [info.open().session.usage for info in found]


def _retarget(data: Path, old: str, new: str) -> None:
    """Rewrite a laid-out store's folder from ``old`` to ``new`` (rows and files alike)."""
    db = data / "opencode" / "opencode.db"
    if db.is_file():
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE session SET directory = ? WHERE directory = ?", (new, old))
        conn.close()
    for path in (data / "opencode" / "storage").rglob("*.json"):
        path.write_text(path.read_text().replace(old, new))


def test_recorded_reasoning_is_thinking_before_the_answer(tmp_path: Path) -> None:
    # The scripted model streams reasoning_content deltas; OpenCode keeps each as a
    # reasoning part, counted in its step's reasoning tokens.
    reader = read(tmp_path, "thinking.jsonl")
    shown = [(m.kind, m.thinking, m.text) for m in reader.messages if m.role == "assistant"]
    assert shown == [
        ("text", True, "I should run a command first."),
        ("tool", False, ""),
        ("text", False, "Let me look."),
        ("text", True, "The command printed thought-42."),
        ("text", False, "It printed thought-42."),
    ]
    assert reader.summary.usage.output_tokens > sum(
        json.loads(json.loads(r)["data"])["part"]["tokens"]["output"]
        for r in fixture("thinking.jsonl").splitlines()
        if b'\\"step-finish\\"' in r
    )  # reasoning tokens count as output
    # Reasoning the model kept hidden reaches OpenCode as nothing it records (no part, no
    # reasoning tokens): there is nothing to show.
    hidden = read(tmp_path / "hidden", "hidden_thinking.jsonl")
    assert [(m.thinking, m.text) for m in hidden.messages if m.role == "assistant"] == [
        (False, "Done.")
    ]


def _with_reasoning(data: bytes) -> bytes:
    """The hello session with reasoning before its answer, built to the shape the pinned
    binary writes (``_compat.HIDDEN_REASONING_KEYS``): readable thinking streamed in two
    updates, then redacted thinking (empty text, ``anthropic.redactedData``)."""
    rows = [json.loads(line) for line in data.splitlines()]
    at = next(
        i for i, r in enumerate(rows) if '"text":"Hello from the scripted model."' in r["data"]
    )
    part = json.loads(rows[at]["data"])["part"]

    def reasoning(
        part_id: str, text: str, metadata: Mapping[str, object], end: bool
    ) -> dict[str, object]:
        body = {
            "id": part_id,
            "sessionID": part["sessionID"],
            "messageID": part["messageID"],
            "type": "reasoning",
            "text": text,
            "metadata": metadata,
            "time": {"start": 1, **({"end": 2} if end else {})},
        }
        data = json.dumps({"sessionID": part["sessionID"], "part": body})
        return {"id": "", "type": "message.part.updated.1", "data": data}

    signed = {"anthropic": {"signature": "c2ln"}}
    added = [
        reasoning("prt_0think", "The user says", signed, False),
        reasoning("prt_0think", "The user says hello. Greet back.", signed, True),
        reasoning("prt_1hidden", "", {"anthropic": {"redactedData": "ZW5j"}}, True),
    ]
    rows[at:at] = added
    for seq, row in enumerate(rows):
        row["seq"], row["id"] = seq, row["id"] or f"evt_think_{seq}"
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def test_reasoning_is_thinking_before_the_answer(tmp_path: Path) -> None:
    data = _with_reasoning(fixture("hello.jsonl"))
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    lines = data.splitlines(keepends=True)
    STORE.write(ref, b"")
    reader = OpenCodeTranscriptReader(ref)
    seen: dict[int, list[str]] = {}
    for line in lines:
        STORE.append(ref, line)
        for message in reader.read().changed:
            seen.setdefault(message.seq, []).append(message.text)
    shown = [
        (m.kind, m.thinking, m.redacted, m.text) for m in reader.messages if m.role == "assistant"
    ]
    assert shown == [
        ("text", True, False, "The user says hello. Greet back."),
        ("text", True, True, ""),
        ("text", False, False, "Hello from the scripted model."),
    ]
    # The streamed thinking grew in place: one message, updated.
    thought = next(m for m in reader.messages if m.thinking and not m.redacted)
    assert list(dict.fromkeys(seen[thought.seq])) == [
        "The user says",
        "The user says hello. Greet back.",
    ]
    # The response's usage goes on its first message: the thinking.
    assert thought.usage is not None and thought.usage.output_tokens > 0
    assert sum(1 for m in reader.messages if m.usage is not None) == 1


def _step_usage(tokens: dict[str, Any]) -> Usage:
    cache = tokens.get("cache") or {}
    return Usage(
        input_tokens=tokens["input"],
        output_tokens=tokens["output"] + tokens["reasoning"],
        reasoning_tokens=tokens["reasoning"],
        cache_read_tokens=cache.get("read", 0),
        cache_write_tokens=cache.get("write", 0),
    )


@pytest.mark.parametrize("scenario", ["hello", "tools"])
def test_usage_counts_each_step_once_as_billed(
    recorded: Recorded, scenario: str, tmp_path: Path
) -> None:
    reader = recorded.read(scenario, tmp_path)
    # Each step's step-finish part, as last written (the event log re-sends parts).
    steps: dict[str, Usage] = {}
    ref = recorded.lay_out(scenario, tmp_path / "again")[0]
    for part in _stored_parts(ref):
        if part.get("type") == "step-finish":
            steps[part["id"]] = _step_usage(part["tokens"])
    expected = sum(steps.values(), Usage())
    summary = reader.summary
    assert steps and summary.usage == expected
    assert [(m.model, m.scope, m.requests, m.usage) for m in summary.models] == [
        ("default", "main", len(steps), expected)
    ]
    assert summary.vendor_cost_usd == 0.0  # what the CLI recorded for a model it cannot price
    assert sum((m.usage for m in reader.messages if m.usage), Usage()) == expected
    for msg_id in {m.native_id for m in reader.messages if m.role == "assistant"}:
        shown = [m for m in reader.messages if m.native_id == msg_id]
        assert shown[0].usage is not None and all(m.usage is None for m in shown[1:])


def _stored_parts(ref: TranscriptRef) -> list[dict[str, Any]]:
    """Every part of a laid-out session as last stored, whatever the store's form."""
    if ref.path.suffix == ".json":
        storage = ref.path.parent.parent.parent
        return [json.loads(p.read_text()) for p in sorted((storage / "part").rglob("*.json"))]
    with sqlite3.connect(ref.path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        rows = conn.execute("SELECT id, data FROM part").fetchall() if "part" in names else []
        events = (
            conn.execute(
                "SELECT data FROM event WHERE type LIKE 'message.part.updated%' ORDER BY seq"
            ).fetchall()
            if "event" in names
            else []
        )
    conn.close()
    found = {r[0]: dict(json.loads(r[1]), id=r[0]) for r in rows}
    for (data,) in events:
        part = json.loads(data)["part"]
        found[part["id"]] = part
    return list(found.values())


def test_a_step_rewritten_counts_once_and_steps_add_up(tmp_path: Path) -> None:
    """A step-finish part re-sent counts once, with its last figures; a message of two
    steps counts both, whatever its own tokens say."""
    rows = [json.loads(line) for line in fixture("hello.jsonl").splitlines()]
    finish = next(
        r for r in rows if '"type":"step-finish"' in r["data"] or '"step-finish"' in r["data"]
    )
    part = json.loads(finish["data"])["part"]
    first = {"input": 100, "output": 10, "reasoning": 5, "cache": {"read": 20, "write": 3}}
    second = {"input": 200, "output": 7, "reasoning": 0, "cache": {"read": 0, "write": 0}}

    def update(body: dict[str, Any]) -> dict[str, object]:
        data = json.dumps({"sessionID": part["sessionID"], "part": body})
        return {"id": "", "type": "message.part.updated.1", "data": data}

    at = rows.index(finish)
    rows[at : at + 1] = [
        update(dict(part, tokens=dict(first, output=1))),  # an early write of the step
        update(dict(part, tokens=first)),
        update(dict(part, id=part["id"] + "b", tokens=second)),
    ]
    for seq, row in enumerate(rows):
        row["seq"], row["id"] = seq, row["id"] or f"evt_steps_{seq}"
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, data)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    summary = reader.summary
    assert summary.usage == _step_usage(first) + _step_usage(second)
    assert summary.models[0].requests == 2
    assert summary.context_tokens == 200  # the latest step's input


def _subagent_store(tmp_path: Path, child: bytes | None = None) -> OpenCodeTranscriptReader:
    """The recorded task session and its child in one store (``child`` replaces the
    child's rows; ``b""`` leaves it out)."""
    db = tmp_path / "opencode.db"
    main = fixture("subagent.jsonl")
    (agent,) = sorted((OPENCODE / "subagent.agents").glob("*.jsonl"))
    ref = STORE.ref(db, main, "t")
    STORE.write(ref, main)
    rows = agent.read_bytes() if child is None else child
    if rows:
        STORE.write(TranscriptRef(agent.stem, db), rows)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    return reader


def test_a_task_subagent_nests_under_its_call(tmp_path: Path) -> None:
    reader = _subagent_store(tmp_path)
    (agent,) = sorted((OPENCODE / "subagent.agents").glob("*.jsonl"))
    (call,) = [m.tool for m in reader.messages if m.tool and m.tool.name == "task"]
    assert call is not None
    assert call.status == "ok" and call.agent_id == agent.stem
    nested = [m for m in reader.messages if m.parent_tool_id == call.id]
    # A text part shows once it has text: the call it streamed before shows first.
    assert [(m.role, m.kind, m.text) for m in nested] == [
        ("user", "text", "count the files here"),
        ("assistant", "tool", ""),
        ("assistant", "text", "Counting."),
        ("assistant", "text", "There are 3 files."),
    ]
    assert texts(reader.messages)[-1] == ("assistant", "It found 3 files.")
    assert reader.state == "idle"
    summary = reader.summary
    assert {(m.scope, m.requests) for m in summary.models} == {("main", 2), ("subagent", 2)}
    assert summary.usage == sum((m.usage for m in summary.models), Usage())
    assert sum((m.usage for m in reader.messages if m.usage), Usage()) == summary.usage


def test_a_subagent_shows_while_it_works(tmp_path: Path) -> None:
    """Event by event, main and child interleaved as written: the child's messages show
    under the task call while it still runs."""
    db = tmp_path / "opencode.db"
    main_rows = fixture("subagent.jsonl").splitlines(keepends=True)
    (agent,) = sorted((OPENCODE / "subagent.agents").glob("*.jsonl"))
    child_rows = agent.read_bytes().splitlines(keepends=True)

    def timed(rows: list[bytes], which: int) -> list[tuple[int, int, bytes]]:
        # Each log in its own order; a row's time is the latest seen so far in its log.
        out, latest = [], 0
        for line in rows:
            data = json.loads(json.loads(line)["data"])
            latest = max(latest, int(data.get("time") or _dict_time(data)))
            out.append((latest, which, line))
        return out

    ref = STORE.ref(db, fixture("subagent.jsonl"), "t")
    STORE.write(ref, b"")
    child = TranscriptRef(agent.stem, db)
    STORE.write(child, b"")
    reader = OpenCodeTranscriptReader(ref)
    merged = list(heapq.merge(timed(main_rows, 0), timed(child_rows, 1), key=lambda r: r[0]))
    seen_running = False
    for _, which, line in merged:
        STORE.append(child if which else ref, line)
        reader.read()
        calls = [m.tool for m in reader.messages if m.tool and m.tool.name == "task"]
        running = bool(calls) and calls[0].status == "running"
        if running and any(m.parent_tool_id == calls[0].id for m in reader.messages):
            seen_running = True
            assert reader.state == "working"
    assert seen_running
    # Live the messages land as they were written; read in one go the sub-agent's follow
    # its call. The same messages either way, each in its own order.
    whole = _subagent_store(tmp_path / "whole").messages

    def strand(messages: list[Message], nested: bool) -> list[Message]:
        return [
            m.model_copy(update={"seq": 0})
            for m in messages
            if (m.parent_tool_id is not None) == nested
        ]

    for nested in (False, True):
        assert strand(reader.messages, nested) == strand(whole, nested)


def _dict_time(data: dict[str, Any]) -> int:
    info = data.get("info") or {}
    times = info.get("time") or {}
    return int(times.get("updated") or times.get("completed") or times.get("created") or 0)


def test_a_missing_or_corrupt_subagent_costs_only_its_own_entries(tmp_path: Path) -> None:
    whole = _subagent_store(tmp_path / "whole")
    main_only = [(m.kind, m.text) for m in whole.messages if m.parent_tool_id is None]
    missing = _subagent_store(tmp_path / "missing", child=b"")
    assert [(m.kind, m.text) for m in missing.messages if m.parent_tool_id is None] == main_only
    (warning,) = [m for m in missing.messages if m.parent_tool_id is not None]
    assert warning.kind == "lifecycle" and warning.level == "warning"
    (agent,) = sorted((OPENCODE / "subagent.agents").glob("*.jsonl"))
    rows = [json.loads(line) for line in agent.read_bytes().splitlines()]
    rows[3]["data"] = "{not json"
    corrupt = _subagent_store(
        tmp_path / "corrupt", child=b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    )
    assert [(m.kind, m.text) for m in corrupt.messages if m.parent_tool_id is None] == main_only
    nested = [m for m in corrupt.messages if m.parent_tool_id is not None]
    assert [m.level for m in nested if m.kind == "lifecycle"] == ["warning"]
    assert "There are 3 files." in [m.text for m in nested]


def test_a_running_command_shows_its_output_so_far(tmp_path: Path) -> None:
    data = fixture("slow_command.jsonl")
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, b"")
    reader = OpenCodeTranscriptReader(ref)
    progress: list[str | None] = []
    for line in data.splitlines(keepends=True):
        STORE.append(ref, line)
        for message in reader.read().changed:
            if message.tool is not None and message.tool.status == "running":
                progress.append(message.tool.progress)
    assert [p for p in dict.fromkeys(progress) if p] == ["a\n", "a\nb\n"]
    (tool,) = [m.tool for m in reader.messages if m.tool]
    assert tool is not None
    assert tool.status == "ok" and tool.output == "a\nb\n"
    assert tool.progress is None  # the output took over


def test_an_image_a_tool_returned_is_an_attachment(tmp_path: Path) -> None:
    reader = read(tmp_path, "image.jsonl")
    (message,) = [m for m in reader.messages if m.tool is not None]
    assert message.tool is not None and message.tool.name == "read"
    assert [(a.media_type, a.size) for a in message.attachments] == [("image/png", 69)]


def test_a_compaction_is_noted_with_its_summary(tmp_path: Path) -> None:
    reader = read(tmp_path, "compact.jsonl")
    shown = [(m.kind, m.text, m.detail) for m in reader.messages]
    assert shown == [
        ("text", "hello", ""),
        ("text", "Hello from the scripted model.", ""),
        # The scripted model answered the summary request with its side-query text.
        ("lifecycle", "Conversation compacted", "Scripted session"),
    ]
    assert reader.state == "idle"
    # The summary's request is billed like any step, and sits on the note.
    note = reader.messages[-1]
    assert note.usage is not None and note.usage.input_tokens > 0
    assert sum((m.usage for m in reader.messages if m.usage), Usage()) == reader.summary.usage
    assert reader.summary.context_tokens == note.usage.input_tokens


def test_question_tool_is_a_dialog_with_the_recorded_answers(tmp_path: Path) -> None:
    reader = read(tmp_path, "question.jsonl")
    dialogs = [m for m in reader.messages if m.dialog is not None]
    assert len(dialogs) == 1 and dialogs[0].kind == "dialog"
    dialog = dialogs[0].dialog
    assert dialog is not None and dialog.kind == "question" and dialog.status == "answered"
    assert [(q.header, q.multi_select) for q in dialog.questions] == [
        ("Database", False),
        ("Features", True),
    ]
    assert dialog.answers is not None
    assert [(a.selected, a.text) for a in dialog.answers] == [
        ([], "DuckDB"),
        (["Auth", "Export"], None),
    ]
    assert dialog.outcome == "Database → DuckDB; Features → Auth, Export"
    assert dialogs[0].tool is not None and dialog.tool_id == dialogs[0].tool.id
    assert reader.pending_dialog is None and reader.state == "idle"


def test_a_waiting_question_is_the_pending_dialog(tmp_path: Path) -> None:
    # Cut the log right after the question's part turns running: the agent waits on it.
    lines = fixture("question.jsonl").decode().splitlines()

    def waits(line: str) -> bool:
        part = json.loads(json.loads(line)["data"]).get("part") or {}
        return part.get("tool") == "question" and part["state"]["status"] == "running"

    upto = next(i for i, line in enumerate(lines) if waits(line))
    data = ("\n".join(lines[: upto + 1]) + "\n").encode()
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, data)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    pending = reader.pending_dialog
    assert pending is not None and pending.status == "pending"
    assert pending.questions[0].text == "Which database should we use?"


def test_an_approved_edit_is_its_tool_call(tmp_path: Path) -> None:
    # The permission request itself lives only on the server; the store keeps the call.
    reader = read(tmp_path, "edit.jsonl")
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [(t.name, t.status) for t in tools] == [("edit", "ok")]
    assert tools[0].input["filePath"] == "/fixture/work/old.txt"
    assert texts(reader.messages)[-1] == ("assistant", "Edited.")
    assert reader.state == "idle"


def test_state_is_working_mid_turn(tmp_path: Path) -> None:
    # Every prefix that has the user's message but not the turn's end reads as working.
    data = fixture("tools.jsonl")
    lines = data.splitlines(keepends=True)
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    reader = OpenCodeTranscriptReader(ref)
    STORE.write(ref, b"")
    states = []
    for line in lines:
        STORE.append(ref, line)
        reader.read()
        states.append(reader.state)
    first_user = next(i for i, line in enumerate(lines) if b'\\"role\\":\\"user\\"' in line)
    assert all(s == "idle" for s in states[:first_user])
    assert states[-1] == "idle"
    assert states.count("working") > len(lines) // 2


def test_a_finished_step_ends_the_turn_even_unmarked(tmp_path: Path) -> None:
    """A message whose completion was never written (the CLI stopped first) is finished by
    its structure: a step that ended with an answer, not with tool calls."""

    def without_completion(name: str) -> bytes:
        rows = [json.loads(line) for line in fixture(name).splitlines()]
        kept = [r for r in rows if '"completed"' not in r["data"] or '"role":"user"' in r["data"]]
        for seq, row in enumerate(kept):
            row["seq"] = seq
        return b"".join(json.dumps(r).encode() + b"\n" for r in kept)

    for name, expected in (("hello.jsonl", "idle"), ("tools.jsonl", "idle")):
        data = without_completion(name)
        ref = STORE.ref(tmp_path / f"{name}.db", data, "t")
        STORE.write(ref, data)
        reader = OpenCodeTranscriptReader(ref)
        reader.read()
        assert reader.state == expected, name
    # Cut right after a step that called tools: the turn goes on.
    rows = fixture("tools.jsonl").splitlines(keepends=True)
    upto = next(i for i, r in enumerate(rows) if b'\\"reason\\":\\"tool-calls\\"' in r)
    data = b"".join(rows[: upto + 1])
    ref = STORE.ref(tmp_path / "cut.db", data, "t")
    STORE.write(ref, data)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    assert reader.state == "working"


def test_unreadable_event_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    data = fixture("hello.jsonl")
    row = json.loads(data.splitlines()[-1])
    bad = json.dumps(dict(row, seq=row["seq"] + 1, id="evt_bad", data="{not json")).encode()
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, data + bad + b"\n")
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    assert reader.messages[-1].level == "warning"


def test_reader_never_writes_or_creates_the_store(tmp_path: Path) -> None:
    db = tmp_path / "missing" / "opencode.db"
    reader = OpenCodeTranscriptReader(STORE.ref(db, fixture("hello.jsonl"), "t"))
    assert reader.read().changed == []
    assert not db.parent.exists()
    ref = STORE.ref(tmp_path / "opencode.db", fixture("hello.jsonl"), "t")
    STORE.write(ref, fixture("hello.jsonl"))
    with sqlite3.connect(ref.path) as conn:  # the CLI holds a write transaction meanwhile
        conn.execute("BEGIN IMMEDIATE")
        reader = OpenCodeTranscriptReader(ref)
        assert texts(reader.read().changed)[0] == ("user", "hello")


def test_isolated_spawn(tmp_path: Path) -> None:
    provider = get_provider("opencode")
    context = RunContext("r", tmp_path / "work", tmp_path / "runtime")
    context.cwd.mkdir()
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=Path("/bin/opencode"),
            endpoint=Endpoint("http://127.0.0.1:9", "sk-secret"),
            options={"permission": {"bash": "ask"}},
        )
    )
    assert plan.argv[:3] == ["/bin/opencode", "--hostname", "127.0.0.1"]
    assert plan.env[_compat.ENV_KEY] == "sk-secret" and _compat.ENV_KEY in plan.secret_env
    assert plan.env["OPENCODE_DISABLE_MODELS_FETCH"] == "1"
    assert "OPENCODE_CONFIG" in plan.unset_env and "XDG_DATA_HOME" not in plan.unset_env
    config_path = Path(plan.env["XDG_CONFIG_HOME"]) / "opencode" / "opencode.json"
    config = json.loads(config_path.read_text())
    assert "sk-secret" not in config_path.read_text()
    options = config["provider"][_compat.PROVIDER_ID]["options"]
    assert options["baseURL"] == "http://127.0.0.1:9/v1"
    assert config["permission"] == {"bash": "ask"}
    assert provider.watch_paths(context)[0] == Path(plan.env["XDG_DATA_HOME"]) / "opencode"


def test_custom_commands_join_the_builtins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    user = tmp_path / "config" / "opencode" / "command"
    user.mkdir(parents=True)
    (user / "hi.md").write_text("---\ndescription: Say hi\n---\nSay hi $ARGUMENTS\n")
    project = tmp_path / "work" / ".opencode" / "commands" / "sub"
    project.mkdir(parents=True)
    (project / "lint.md").write_text("Lint it.\n")
    specs = {c.name: c for c in get_provider("opencode").commands(tmp_path / "work")}
    assert specs["/hi"].source == "user" and specs["/hi"].description == "Say hi"
    assert specs["/hi"].arg_hint == "$ARGUMENTS"
    assert specs["/sub/lint"].source == "project"
    assert specs["/new"].role == "clear" and specs["/new"].chat_safe
    assert not specs["/models"].chat_safe


# -- hostile rows --------------------------------------------------------------------------
# The store commits rows whole, so corruption is a row whose data is garbage, of an unknown
# type, or of a known type with an odd shape (the counterpart of tests/unit/test_fuzz_readers.py).

ODD_DATA = [
    "{not json",
    "null",
    "[]",
    '"a string"',
    '{"part": {"id": "p_s", "messageID": "m_odd", "type": "text", "text": "lone \\ud800"}}',
    '{"info": "not an object"}',
    '{"info": {"id": 5, "role": "user"}}',
    '{"info": {"id": "m_odd", "role": "assistant", "time": "now", "tokens": [1]}}',
    '{"info": {"id": "m_odd2", "role": "assistant", "time": {"created": "x", "completed": "y"},'
    ' "parentID": "m_odd", "error": "boom", "finish": 3}}',
    '{"info": {"id": "s", "directory": 5, "version": [], "time": {"created": 1e300}}}',
    '{"part": {"id": "p_odd", "messageID": "nope", "type": "text", "text": 7}}',
    '{"part": {"id": "p_odd2", "messageID": "m_odd", "type": "tool", "state": "done"}}',
    '{"part": {"id": "p_odd3", "messageID": "m_odd", "type": "tool",'
    ' "state": {"status": "completed", "input": [], "metadata": {"exit": "1"}}}}',
]
KNOWN = ["message.updated.1", "message.part.updated.1", "session.created.1"]

odd_row = st.tuples(
    st.sampled_from(KNOWN) | st.text(min_size=1, max_size=20),
    st.sampled_from(ODD_DATA) | st.text(max_size=60),
)


def _valid(messages: list[Message]) -> list[tuple[object, ...]]:
    return [
        (m.kind, m.role, m.text, m.tool)
        for m in messages
        if m.kind != "lifecycle" or m.level != "warning"
    ]


def _rows_with(data: bytes, inserted: list[tuple[int, tuple[str, str]]]) -> bytes:
    rows = [json.loads(line) for line in data.splitlines()]
    for position, (kind, text) in sorted(inserted, reverse=True):
        rows.insert(min(position, len(rows)), {"id": "", "type": kind, "data": text})
    for seq, row in enumerate(rows):
        row["seq"], row["id"] = seq, row["id"] or f"evt_odd_{seq}"
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


@pytest.mark.parametrize("name", ["hello.jsonl", "tools.jsonl", "interrupt.jsonl", "reject.jsonl"])
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_hostile_rows_never_raise_and_lose_nothing(
    tmp_path: Path, name: str, data: st.DataObject
) -> None:
    clean = fixture(name)
    size = len(clean.splitlines())
    inserted = data.draw(
        st.lists(st.tuples(st.integers(1, size), odd_row), max_size=8), label="inserted"
    )
    mixed = _rows_with(clean, inserted)
    db = tmp_path / f"{data.draw(st.integers(0, 10**9))}.db"
    ref = STORE.ref(db, clean, "t")
    STORE.write(ref, mixed)
    whole = OpenCodeTranscriptReader(ref)
    whole.read()
    clean_ref = STORE.ref(tmp_path / "clean.db", clean, "t")
    STORE.write(clean_ref, clean)
    expected = OpenCodeTranscriptReader(clean_ref)
    expected.read()
    # Odd rows may add messages of their own; every valid row's message is still there.
    it = iter(_valid(whole.messages))
    assert all(any(x == y for y in it) for x in _valid(expected.messages))
    assert [m.seq for m in whole.messages] == list(range(len(whole.messages)))
    assert whole.summary.transcript_id == ref.transcript_id
    json.dumps(_dump(whole.messages), ensure_ascii=False).encode("utf-8")
    # Read row by row, the same messages result and every one is reported.
    split = STORE.ref(tmp_path / f"split-{db.name}", clean, "t")
    STORE.write(split, b"")
    reader = OpenCodeTranscriptReader(split)
    reported: dict[int, Message] = {}
    for line in mixed.splitlines(keepends=True):
        STORE.append(split, line)
        for message in reader.read().changed:
            reported[message.seq] = message
    assert reader.messages == whole.messages
    assert [reported[m.seq] for m in whole.messages] == whole.messages


def test_huge_valid_text_is_kept_whole(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in fixture("hello.jsonl").splitlines()]
    big = "z" * (5 << 20)
    for row in rows:
        inner = json.loads(row["data"])
        part = inner.get("part")
        if isinstance(part, dict) and part.get("text") == "Hello from the scripted model.":
            part["text"] = big
            row["data"] = json.dumps(inner)
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    ref = STORE.ref(tmp_path / "big.db", data, "t")
    STORE.write(ref, data)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    assert any(m.text == big for m in reader.messages)


def test_invalid_utf8_in_a_row_is_replaced_not_fatal(tmp_path: Path) -> None:
    data = fixture("hello.jsonl")
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, data)
    rows = [json.loads(line) for line in data.splitlines()]
    part = next(r for r in rows if '"text":"hello"' in r["data"])
    with sqlite3.connect(ref.path) as conn:  # bytes a writer left that are not UTF-8
        conn.execute(
            "UPDATE event SET data = CAST(? AS TEXT) WHERE id = ?",
            (
                part["data"].replace("hello", "he\udcffllo").encode("utf-8", "surrogateescape"),
                part["id"],
            ),
        )
    conn.close()
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    assert texts(reader.messages)[0] == ("user", "he\ufffdllo")


def test_preview_and_run_sessions(tmp_path: Path) -> None:
    provider = get_provider("opencode")
    context = RunContext("r", tmp_path / "work", tmp_path / "runtime")
    context.cwd.mkdir()
    provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=Path("/bin/opencode"),
            endpoint=Endpoint("http://127.0.0.1:9", "k"),
        )
    )
    kit = require_kit("opencode")
    kit.start_epoch(provider, context, fixture("new_0.jsonl"))
    kit.clear_epoch(provider, context, fixture("new_1.jsonl"))
    refs = provider.run_sessions(context)
    assert len(refs) == 2
    assert [provider.preview(r) for r in refs] == [
        ("hello", "default"),
        ("and again", "default"),
    ]


@contextlib.contextmanager
def _permission_server(tmp_path: Path, answer: Callable[[], object | None]) -> Iterator[RunContext]:
    """A run whose embedded server lists ``answer()`` as its pending permission requests
    (``None``: it fails, as a busy server does) and has no event stream."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if not self.path.startswith(_compat.PERMISSION_PATH):
                self.send_error(404)  # the event stream: this server has none
                return
            value = answer()
            if value is None:
                self.send_error(503)
                return
            body = json.dumps(value).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
        (tmp_path / STATE_FILE).write_text(json.dumps({"port": server.server_address[1]}))
        yield context
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_that_does_not_answer_leaves_the_open_request_standing(tmp_path: Path) -> None:
    answers: list[object] = [[{"id": "per_1", "permission": "bash", "tool": {"callID": "c1"}}]]
    with _permission_server(tmp_path, lambda: answers.pop(0) if answers else None) as context:
        signals = OpenCodeSignals()
        first = signals.pending_dialog(context)
        assert first is not None and first.tool_id == "c1"
        # A busy server (an error, a timeout): the prompt is still open.
        assert signals.pending_dialog(context) == first
        # The server answers again: what it says now counts.
        answers.append([])
        assert signals.pending_dialog(context) is None


def test_a_snapshot_asks_the_server_once_for_all_its_questions(tmp_path: Path) -> None:
    asked: list[object] = []
    pending = [{"id": "per_1", "permission": "bash", "tool": {"callID": "c1"}}]

    def answer() -> object:
        asked.append(list(pending))
        return pending

    with _permission_server(tmp_path, answer) as context:
        signals = OpenCodeSignals()
        with signals.snapshot(context):
            dialog = signals.pending_dialog(context)
            with signals.snapshot(context):  # a nested one keeps the outer look
                assert signals.signature(context) == ("per_1",)
            assert signals.blocked(context) is None
            assert signals.pending_dialog(context) == dialog
        assert dialog is not None and dialog.tool_id == "c1"
        assert len(asked) == 1
        # Outside a snapshot every question looks again: the answer may have come.
        pending.clear()
        assert signals.pending_dialog(context) is None
        assert signals.signature(context) == ()
        assert len(asked) == 3


def test_an_approved_web_fetch_read_its_page(tmp_path: Path) -> None:
    # The permission request itself is never stored (it lives on the server): the store
    # keeps the call, which ran once approved.
    reader = read(tmp_path, "webfetch.jsonl")
    [tool] = [m.tool for m in reader.messages if m.tool is not None]
    assert (tool.name, tool.status) == ("webfetch", "ok")
    assert tool.input["format"] == "text" and str(tool.input["url"]).endswith("/page")
    assert "fetched-page-marker-77" in (tool.output or "")
    assert texts(reader.messages)[-1] == ("assistant", "Read.")
    assert reader.state == "idle"
