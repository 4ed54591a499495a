"""Record OpenCode fixtures from a real OpenCode against the scripted model.

Usage::

    python scripts/record_opencode_fixtures.py [--version X.Y.Z | --store] [--versions-dir DIR] [scenario ...]

Each scenario runs the real TUI under tmux with an isolated XDG home. Without ``--version``
the pinned OpenCode of the tools folder plays every scenario, and every session the run
made is exported from its SQLite store (``event`` rows of that session, ``seq`` order) as
JSON lines ``{"seq", "id", "type", "data"}`` into ``tests/fixtures/opencode/<scenario>.jsonl``
(``<scenario>_<n>.jsonl`` when ``/new`` made more than one), plus ``manifest.json`` with the
CLI version.

With ``--store`` the pinned version records as older versions do (below) into
``tests/fixtures/opencode/v<version>/``: its ``message`` / ``part`` rows beside its event log.

With ``--version`` that version is installed with npm into
``<versions dir>/opencode-ai@<version>`` (``--versions-dir``, else the cache of
``scripts/cli_versions.py``; never into the repository) and records into
``tests/fixtures/opencode/v<version>/``: ``schema.sql`` (the DDL of every table as that
version created it) and ``<scenario>.store.jsonl``, the stored history whatever its form:
``{"table": "session" | "message" | "part" | "event", "row": {column: value}}`` lines for a
SQLite store, ``{"file": "<path under storage/>", "text": ...}`` lines for the JSON files of
versions before it. Temporary paths become stable placeholders; the rows are otherwise as
stored.

The flags and the layout are the same for a fork of OpenCode, whose recorder calls
:func:`main` with its own :class:`Target` (``scripts/record_kilo_fixtures.py``).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import socket
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import cli_versions  # noqa: E402

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run._launch import runner as _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.scripted import ApiError  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "opencode"
PACKAGE = PINS["opencode"].npm_package


@dataclass(frozen=True)
class Target:
    """The CLI of OpenCode's family a recording runs: its provider id and the folder and
    store it keeps under ``$XDG_DATA_HOME``."""

    provider_id: str
    folder: str
    database: str
    scenarios: Sequence[str] | None = None
    """What the pinned version records (``None``: every scenario)."""

    @property
    def fixtures(self) -> Path:
        return ROOT / "tests" / "fixtures" / self.provider_id


OPENCODE = Target("opencode", "opencode", "opencode.db")

CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"


def _change(work: Path) -> dict[str, str]:
    return {"filePath": str(work / "old.txt"), "oldString": "beta", "newString": "gamma"}


QUESTIONS = {
    "questions": [
        {
            "question": "Which database should we use?",
            "header": "Database",
            "options": [
                {"label": "SQLite", "description": "a file"},
                {"label": "Postgres", "description": "a server"},
            ],
        },
        {
            "question": "Which features?",
            "header": "Features",
            "options": [
                {"label": "Auth", "description": "sign-in"},
                {"label": "Export", "description": "CSV files"},
            ],
            "multiple": True,
        },
    ]
}


TASK = {
    "description": "Count files",
    "prompt": "count the files here",
    "subagent_type": "general",
}
SLOW = "sleep 1; echo a; sleep 1; echo b"
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
"""A 1x1 green PNG."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


PAGE_PORT = _free_port()
"""Where ``webfetch`` serves the page its fetch reads (``tests/support/pages.py``)."""
PAGE_URL = f"http://127.0.0.1:{PAGE_PORT}/page"


def script(work: Path) -> ScriptedModel:
    tool = ToolUse("Bash", {"command": "echo tool-output-42", "description": "echo"})
    fetch = ToolUse("webfetch", {"url": PAGE_URL, "format": "text"})
    return ScriptedModel(
        rules=[
            Rule("fetch the page", [Reply("Fetching.", tools=[fetch]), Reply("Read.")]),
            Rule("use a tool", [Reply("Let me check.", tools=[tool]), Reply("Tool said 42.")]),
            Rule(
                "over the quota",
                Reply(
                    "Never sent.",
                    error=ApiError("quota", retry_after=1),
                    headers={
                        "x-ratelimit-limit-requests": "500",
                        "x-ratelimit-remaining-requests": "0",
                        "x-ratelimit-reset-requests": "1m30s",
                    },
                ),
            ),
            Rule(
                "failing tool",
                [
                    Reply(tools=[ToolUse("Bash", {"command": "cat missing-file.txt"})]),
                    Reply("That command failed."),
                ],
            ),
            Rule("slow", Reply("late answer", delay=30)),
            Rule(
                "edit the file",
                [Reply("Editing.", tools=[ToolUse("edit", _change(work))]), Reply("Edited.")],
            ),
            Rule(
                "ask me",
                [Reply("Asking.", tools=[ToolUse("question", QUESTIONS)]), Reply("Thanks.")],
            ),
            Rule(
                "count the files",
                [
                    Reply(
                        "Counting.",
                        tools=[ToolUse("Bash", {"command": "ls", "description": "list"})],
                    ),
                    Reply("There are 3 files."),
                ],
            ),
            Rule(
                "delegate",
                [
                    Reply("Asking a sub-agent.", tools=[ToolUse("task", TASK)]),
                    Reply("It found 3 files."),
                ],
            ),
            Rule(
                "timed command",
                [
                    Reply(tools=[ToolUse("Bash", {"command": SLOW, "description": "slow"})]),
                    Reply("Both lines printed."),
                ],
            ),
            Rule(
                "think first",
                [
                    Reply(
                        "Let me look.",
                        tools=[ToolUse("Bash", {"command": "echo thought-42", "description": "t"})],
                        thinking="I should run a command first.",
                    ),
                    Reply("It printed thought-42.", thinking="The command printed thought-42."),
                ],
            ),
            Rule(
                "keep it hidden", Reply("Done.", thinking="A secret plan.", thinking_redacted=True)
            ),
            Rule(
                "look at the picture",
                [
                    Reply(tools=[ToolUse("read", {"filePath": str(work / "pic.png")})]),
                    Reply("A pixel."),
                ],
            ),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _last(run: Run) -> str:
    return run.messages[-1].text if run.messages else ""


def _idle(run: Run) -> None:
    state = run.wait(timeout=120)
    if state != "idle":
        raise RuntimeError(f"expected idle, got {state}:\n{run.screen()}")


def hello(run: Run) -> None:
    run.send("hello", ready_timeout=120)
    _idle(run)


def tools(run: Run) -> None:
    run.send("please use a tool", ready_timeout=120)
    run.wait_for(lambda r: _last(r) == "Tool said 42.", timeout=120)
    _idle(run)
    run.send("now a failing tool")
    run.wait_for(lambda r: _last(r) == "That command failed.", timeout=120)
    _idle(run)


def interrupt(run: Run) -> None:
    run.send("be slow", ready_timeout=120)
    model = run.scripted_model
    assert model is not None
    run.wait_for(lambda r: any(q.user_text == "be slow" for q in model.scripted_requests), 60)
    run.interrupt()
    run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), timeout=60)
    _idle(run)


def approve(run: Run) -> None:
    run.send("please use a tool", ready_timeout=120)
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=120)
    run.answer("approve")
    run.wait_for(lambda r: _last(r) == "Tool said 42.", timeout=120)
    _idle(run)


def reject(run: Run) -> None:
    run.send("please use a tool", ready_timeout=120)
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=120)
    run.answer("reject")
    _idle(run)


def question(run: Run) -> None:
    run.send("please ask me", ready_timeout=120)
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=120)
    run.answer({"Database": FreeText("DuckDB"), "Features": ["Auth", "Export"]})
    run.wait_for(lambda r: _last(r) == "Thanks.", timeout=120)
    _idle(run)


def edit(run: Run) -> None:
    (run.cwd / "old.txt").write_text("alpha\nbeta\n")
    run.send("please edit the file", ready_timeout=120)
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=120)
    run.answer("approve")
    run.wait_for(lambda r: _last(r) == "Edited.", timeout=120)
    _idle(run)


def new(run: Run) -> None:
    run.send("hello", ready_timeout=120)
    _idle(run)
    first = run.transcript_id
    run.clear()
    run.send("and again")
    run.wait_for(lambda r: r.transcript_id != first and _last(r) == "Second answer.", 120)
    _idle(run)


def thinking(run: Run) -> None:
    run.send("think first, then answer", ready_timeout=120)
    run.wait_for(lambda r: _last(r) == "It printed thought-42.", timeout=120)
    _idle(run)


def hidden_thinking(run: Run) -> None:
    run.send("keep it hidden, then answer", ready_timeout=120)
    run.wait_for(lambda r: _last(r) == "Done.", timeout=120)
    _idle(run)


def subagent(run: Run) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (run.cwd / name).write_text(name)
    run.send("please delegate the count", ready_timeout=120)
    run.wait_for(lambda r: _last(r) == "It found 3 files.", timeout=120)
    _idle(run)


def slow_command(run: Run) -> None:
    run.send("run the timed command", ready_timeout=120)
    run.wait_for(lambda r: _last(r) == "Both lines printed.", timeout=120)
    _idle(run)


def image(run: Run) -> None:
    (run.cwd / "pic.png").write_bytes(PIXEL)
    run.send("look at the picture", ready_timeout=120)
    run.wait_for(lambda r: any(m.tool and m.tool.status != "running" for m in r.messages), 120)
    _idle(run)


def compact(run: Run) -> None:
    run.send("hello", ready_timeout=120)
    _idle(run)
    before = len(run.messages)
    run.send("/compact")
    run.wait_for(lambda r: len(r.messages) > before and r.state == "idle", timeout=120)
    _idle(run)


def quota(run: Run) -> None:
    run.send("hello", ready_timeout=120)
    _idle(run)
    run.send("over the quota")
    run.wait_for(lambda r: r.messages[-1].kind == "lifecycle", timeout=120)
    _idle(run)


def webfetch(run: Run) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support.pages import served_page  # noqa: PLC0415

    with served_page(PAGE_PORT):
        run.send("please fetch the page", ready_timeout=120)
        run.wait_for(lambda r: r.pending_dialog is not None, timeout=120)
        run.answer("approve")
        run.wait_for(lambda r: _last(r) == "Read.", timeout=120)
        _idle(run)


SCENARIOS: dict[str, tuple[Callable[[Run], None], dict[str, object]]] = {
    "hello": (hello, {}),
    "tools": (tools, {}),
    "interrupt": (interrupt, {}),
    "approve": (approve, {"permission": {"bash": "ask"}}),
    "reject": (reject, {"permission": {"bash": "ask"}}),
    "new": (new, {}),
    "question": (question, {}),
    "edit": (edit, {"permission": {"edit": "ask"}}),
    "thinking": (thinking, {}),
    "hidden_thinking": (hidden_thinking, {}),
    "subagent": (subagent, {}),
    "slow_command": (slow_command, {}),
    "image": (image, {}),
    "compact": (compact, {}),
    "quota": (quota, {}),
    "webfetch": (webfetch, {"permission": {"webfetch": "ask"}}),
}


def _event_lines(conn: sqlite3.Connection, session_id: str, work: Path, home: Path) -> list[str]:
    rows = conn.execute(
        "SELECT seq, id, type, data FROM event WHERE aggregate_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()
    lines = []
    for seq, event_id, kind, raw in rows:
        text = _placeholders(str(raw), work, home)
        row = {"seq": seq, "id": event_id, "type": kind, "data": text}
        lines.append(json.dumps(row, ensure_ascii=False))
    return lines


def export(db: Path, work: Path, home: Path) -> list[list[str]]:
    """Every top-level session's event rows, oldest session first, as JSON lines."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_created, id"
            )
        ]
        return [_event_lines(conn, session_id, work, home) for session_id in ids]
    finally:
        conn.close()


def export_children(db: Path, work: Path, home: Path) -> dict[str, list[str]]:
    """The sub-agents' (child) sessions' event rows, by session id."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM session WHERE parent_id IS NOT NULL")]
        return {session_id: _event_lines(conn, session_id, work, home) for session_id in ids}
    finally:
        conn.close()


SCHEMA_TABLES = ("session", "event")


def export_schema(db: Path) -> str:
    """The DDL of the tables a reader queries, as this version creates them."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN (?, ?) "
            "ORDER BY type DESC, name",
            SCHEMA_TABLES,
        ).fetchall()
    finally:
        conn.close()
    return "".join(f"{row[0]};\n" for row in rows)


def _placeholders(text: str, work: Path, home: Path) -> str:
    text = text.replace(str(work), CWD_PLACEHOLDER)
    text = text.replace(str(work).lstrip("/"), CWD_PLACEHOLDER.lstrip("/"))
    return text.replace(str(home), HOME_PLACEHOLDER)


STORE_TABLES = ("session", "message", "part", "event")


def export_store(data_dir: Path, work: Path, home: Path, target: Target = OPENCODE) -> list[str]:
    """The whole stored history of a run, whatever form this version keeps it in."""
    db = data_dir / target.database
    lines: list[str] = []
    if db.is_file():
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            for table in STORE_TABLES:
                if table not in names:
                    continue
                order = "aggregate_id, seq" if table == "event" else "rowid"
                for row in conn.execute(f"SELECT * FROM {table} ORDER BY {order}"):
                    values: dict[str, Any] = {
                        k: _placeholders(v, work, home) if isinstance(v, str) else v
                        for k, v in dict(row).items()
                    }
                    lines.append(json.dumps({"table": table, "row": values}, ensure_ascii=False))
        finally:
            conn.close()
        return lines
    storage = data_dir / "storage"
    for path in sorted(storage.rglob("*.json")):
        relative = path.relative_to(storage).as_posix()
        if relative.split("/", 1)[0] not in ("session", "message", "part"):
            continue
        text = _placeholders(path.read_text(), work, home)
        lines.append(json.dumps({"file": relative, "text": text}, ensure_ascii=False))
    return lines


def export_full_schema(db: Path) -> str:
    """The DDL of every table and index, as this version creates them."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY type DESC, name"
        ).fetchall()
    finally:
        conn.close()
    return "".join(f"{row[0]};\n" for row in rows)


def record(
    name: str, out: Path = FIXTURES, pinned: bool = True, target: Target = OPENCODE
) -> list[Path]:
    play, options = SCENARIOS[name]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work = base / "work"
        work.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        run = Run(target.provider_id, cwd=work, model=script(work), name=name, **options)
        try:
            play(run)
        finally:
            run.stop()
            _runner().kill_server()
        home = base / "lab" / "runs" / name / "home"
        data_dir = home / ".local/share" / target.folder
        db = data_dir / target.database
        if not pinned:
            path = out / f"{name}.store.jsonl"
            path.write_text("\n".join(export_store(data_dir, work, home, target)) + "\n")
            if db.is_file():
                (out / "schema.sql").write_text(export_full_schema(db))
            return [path]
        sessions = export(db, work, home)
        children = export_children(db, work, home)
        (out / "schema.sql").write_text(export_schema(db))
    written = []
    for index, lines in enumerate(sessions):
        path = out / (f"{name}_{index}.jsonl" if len(sessions) > 1 else f"{name}.jsonl")
        path.write_text("\n".join(lines) + "\n")
        written.append(path)
    if children:
        folder = out / f"{name}.agents"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        for session_id, lines in children.items():
            path = folder / f"{session_id}.jsonl"
            path.write_text("\n".join(lines) + "\n")
            written.append(path)
    return written


VERSION_SCENARIOS = ("hello", "tools", "interrupt", "new", "approve", "reject")
"""What an older version records (the pinned one records every scenario)."""


def versions_dir(given: str | None) -> None:
    """Install other versions into ``given`` instead of the shared versions cache."""
    if given:
        os.environ["LAB_WIDGET_CLI_CACHE"] = str(Path(given).expanduser())


def install(version: str, target: Target = OPENCODE) -> Path:
    """A tools folder holding ``version`` (installed with npm when missing)."""
    return cli_versions.install(target.provider_id, version)


def main(argv: list[str], target: Target = OPENCODE, description: str = __doc__ or "") -> None:
    pin = PINS[target.provider_id]
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--version", default=pin.version)
    parser.add_argument("--versions-dir")
    parser.add_argument(
        "--store",
        action="store_true",
        help="record the whole store (rows and event log) into v<version>/, also for the pinned",
    )
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args(argv)
    installed = args.version != pin.version
    pinned = not installed and not args.store
    out = target.fixtures if pinned else target.fixtures / f"v{args.version}"
    every = list(target.scenarios or SCENARIOS)
    names = args.scenarios or (every if pinned else list(VERSION_SCENARIOS))
    if installed:
        versions_dir(args.versions_dir)
        os.environ["LAB_WIDGET_TOOLS"] = str(install(args.version, target))
    # A CLI that updates itself would install globally: keep any such write in a scratch
    # folder of this recording.
    scratch = tempfile.mkdtemp(prefix=f"record-{target.provider_id}-npm-")
    os.environ["NPM_CONFIG_PREFIX"] = scratch
    out.mkdir(parents=True, exist_ok=True)
    try:
        for name in names:
            for path in record(name, out, pinned, target):
                print(f"wrote {path.relative_to(ROOT)}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    key = "cli" if pinned else "provider"
    manifest = {key: target.provider_id, "version": args.version}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
