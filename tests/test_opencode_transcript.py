"""Unit: OpenCode's event log (fixtures recorded from 1.18.33) mapped to the universal schema,
read from a real SQLite store laid out with the CLI's own DDL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from lab_widget.provider import Endpoint, RunContext, SpawnRequest, get_provider
from lab_widget.provider.opencode import _compat
from lab_widget.provider.opencode._transcript import OpenCodeTranscriptReader
from lab_widget.schema import Message

from .conformance.kits import OpenCodeStore
from .conftest import FIXTURES

STORE = OpenCodeStore()


def fixture(name: str) -> bytes:
    return (FIXTURES / "opencode" / name).read_bytes()


def read(tmp_path: Path, name: str) -> OpenCodeTranscriptReader:
    data = fixture(name)
    ref = STORE.ref(tmp_path / "opencode.db", data, "t")
    STORE.write(ref, data)
    reader = OpenCodeTranscriptReader(ref)
    reader.read()
    return reader


def texts(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages if m.kind == "text"]


def test_hello(tmp_path: Path) -> None:
    reader = read(tmp_path, "hello.jsonl")
    assert texts(reader.messages) == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert reader.state == "idle"
    last = reader.messages[-1]
    assert last.usage is not None and last.usage.output_tokens > 0
    assert last.model == "default"
    summary = reader.summary
    assert summary.cli_version == _compat.VERSION
    assert summary.cwd == "/fixture/work"
    assert summary.usage.output_tokens > 0 and len(summary.turn_durations_ms) == 1


def test_tool_calls_ok_and_failing(tmp_path: Path) -> None:
    reader = read(tmp_path, "tools.jsonl")
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [t.name for t in tools] == ["bash", "bash"]
    assert tools[0].status == "ok" and "tool-output-42" in (tools[0].output or "")
    assert tools[0].input == {"command": "echo tool-output-42"}
    assert tools[1].status == "error"  # cat of a missing file exits non-zero
    assert texts(reader.messages)[-1] == ("assistant", "That command failed.")
    assert reader.state == "idle"


def test_interrupt_is_a_lifecycle_note_and_idle(tmp_path: Path) -> None:
    reader = read(tmp_path, "interrupt.jsonl")
    notes = [m.text for m in reader.messages if m.kind == "lifecycle"]
    assert notes == ["Interrupted"]
    assert reader.state == "idle"
    assert not any(m.text == "late answer" for m in reader.messages)


def test_rejected_permission_ends_the_turn(tmp_path: Path) -> None:
    reader = read(tmp_path, "reject.jsonl")
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert len(tools) == 1 and tools[0].status == "error"
    assert (tools[0].output or "").endswith("(rejected)")
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
