"""Record OpenCode event-log fixtures from the real pinned OpenCode against the scripted model.

Usage: ``python scripts/record_opencode_fixtures.py [scenario ...]``. Each scenario runs
the real TUI under tmux with an isolated XDG home, then exports every session the run made
from its SQLite store (``event`` rows of that session, ``seq`` order) as JSON lines
``{"seq", "id", "type", "data"}`` into ``tests/fixtures/opencode/<scenario>.jsonl``
(``<scenario>_<n>.jsonl`` when ``/new`` made more than one), plus ``manifest.json`` with
the CLI version. Temporary paths become stable placeholders; the rows are otherwise as
stored.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run import _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "opencode"
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


def script(work: Path) -> ScriptedModel:
    tool = ToolUse("Bash", {"command": "echo tool-output-42", "description": "echo"})
    return ScriptedModel(
        rules=[
            Rule("use a tool", [Reply("Let me check.", tools=[tool]), Reply("Tool said 42.")]),
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


SCENARIOS: dict[str, tuple[Callable[[Run], None], dict[str, object]]] = {
    "hello": (hello, {}),
    "tools": (tools, {}),
    "interrupt": (interrupt, {}),
    "approve": (approve, {"permission": {"bash": "ask"}}),
    "reject": (reject, {"permission": {"bash": "ask"}}),
    "new": (new, {}),
    "question": (question, {}),
    "edit": (edit, {"permission": {"edit": "ask"}}),
}


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
        sessions = []
        for session_id in ids:
            rows = conn.execute(
                "SELECT seq, id, type, data FROM event WHERE aggregate_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
            lines = []
            for seq, event_id, kind, raw in rows:
                text = str(raw).replace(str(work), CWD_PLACEHOLDER)
                text = text.replace(str(work).lstrip("/"), CWD_PLACEHOLDER.lstrip("/"))
                text = text.replace(str(home), HOME_PLACEHOLDER)
                row = {"seq": seq, "id": event_id, "type": kind, "data": text}
                lines.append(json.dumps(row, ensure_ascii=False))
            sessions.append(lines)
        return sessions
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


def record(name: str) -> list[Path]:
    play, options = SCENARIOS[name]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work = base / "work"
        work.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        run = Run("opencode", cwd=work, model=script(work), name=name, **options)
        try:
            play(run)
        finally:
            run.stop()
            _runner().kill_server()
        home = base / "lab" / "runs" / name / "home"
        db = home / ".local/share/opencode/opencode.db"
        sessions = export(db, work, home)
        (OUT / "schema.sql").write_text(export_schema(db))
    written = []
    for index, lines in enumerate(sessions):
        path = OUT / (f"{name}_{index}.jsonl" if len(sessions) > 1 else f"{name}.jsonl")
        path.write_text("\n".join(lines) + "\n")
        written.append(path)
    return written


def main(names: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or list(SCENARIOS):
        for path in record(name):
            print(f"wrote {path.relative_to(ROOT)}")
    manifest = {"cli": "opencode", "version": PINS["opencode"].version}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
