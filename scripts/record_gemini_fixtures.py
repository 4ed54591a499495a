"""Record Gemini CLI session fixtures from the real pinned Gemini CLI against the scripted model.

Usage: ``python scripts/record_gemini_fixtures.py [scenario ...]``. Writes
``tests/fixtures/gemini/<scenario>.jsonl`` (one file per session: ``<scenario>_<n>.jsonl``
when the scenario opens several), the run's hook records as ``<scenario>.hooks.jsonl``, and
``manifest.json`` with the CLI version. Temporary paths become stable placeholders; the
session context Gemini CLI writes first is shortened.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run import _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.provider import provider_ids, register  # noqa: E402
from lab_widget.provider.gemini import GeminiProvider  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "gemini"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
LIMIT = 300


def script(work: Path) -> ScriptedModel:
    write = ToolUse("write_file", {"file_path": str(work / "new.txt"), "content": "hello\n"})
    swap = {"old_string": "beta", "new_string": "gamma", "instruction": "swap the word"}
    replace = ToolUse("replace", {"file_path": str(work / "old.txt"), **swap})
    return ScriptedModel(
        rules=[
            Rule("write a file", [Reply("Writing.", tools=[write]), Reply("Written.")]),
            Rule("edit the file", [Reply("Editing.", tools=[replace]), Reply("Edited.")]),
            Rule(
                "use a tool",
                [
                    Reply(
                        "Let me check.",
                        tools=[ToolUse("Bash", {"command": "echo tool-output-42"})],
                    ),
                    Reply("The tool said tool-output-42."),
                ],
            ),
            Rule(
                "failing tool",
                [
                    Reply(tools=[ToolUse("Bash", {"command": "ls missing-file.txt"})]),
                    Reply("That command failed."),
                ],
            ),
            Rule(
                "make a file",
                [
                    Reply("Creating it.", tools=[ToolUse("Bash", {"command": "touch made.txt"})]),
                    Reply("The file is there."),
                ],
            ),
            Rule("slow", Reply("late answer", delay=30)),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _shorten(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= LIMIT else value[:LIMIT] + "…"
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _placeholders(text: str, work: Path, home: Path) -> str:
    return text.replace(str(work), CWD_PLACEHOLDER).replace(str(home), HOME_PLACEHOLDER)


def _sanitise(path: Path, work: Path, home: Path) -> list[str]:
    lines = []
    for raw in path.read_text().splitlines():
        line = json.loads(_placeholders(raw, work, home))
        if "$set" in line and "messages" in line["$set"]:
            line = _shorten(line)  # the session context is long and says nothing here
        lines.append(json.dumps(line, ensure_ascii=False))
    return lines


def _record(name: str, play: Callable[[Run], None]) -> list[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work = base / "work"
        work.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        run = Run("gemini", cwd=work, model=script(work), name=name)
        try:
            play(run)
            paths = [*(ref.path for ref in run._chat.past_epochs), run.transcript_path]
        finally:
            run.stop()
            _runner().kill_server()
        home = base / "lab" / "runs" / name / "home"
        written = []
        spool = base / "lab" / "runs" / name / "signals"
        records = [
            json.loads(_placeholders(f.read_text(), work, home))
            for f in sorted(spool.glob("*.json"))
        ]
        target = OUT / f"{name}.hooks.jsonl"
        target.write_text("".join(json.dumps(r) + "\n" for r in records))
        written.append(target)
        found = [p for p in paths if p is not None]
        for index, path in enumerate(found):
            suffix = f"_{index}" if len(found) > 1 else ""
            target = OUT / f"{name}{suffix}.jsonl"
            target.write_text("\n".join(_sanitise(path, work, home)) + "\n")
            written.append(target)
        return written


def hello(run: Run) -> None:
    run.send("hello")
    run.wait(timeout=90)


def tools(run: Run) -> None:
    run.send("please use a tool")
    run.wait(timeout=90)
    run.send("now a failing tool")
    run.wait(timeout=90)


def approve(run: Run) -> None:
    run.send("please make a file")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=90)
    run.answer("approve")
    run.wait(timeout=90)


def reject(run: Run) -> None:
    run.send("please make a file")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=90)
    run.answer("reject")
    run.wait(timeout=90)


def edit_approve(run: Run) -> None:
    (run.cwd / "old.txt").write_text("alpha\nbeta\n")
    run.send("please edit the file")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=90)
    run.answer("approve")
    run.wait(timeout=90)


def edit_reject(run: Run) -> None:
    run.send("please write a file")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=90)
    run.answer("reject")
    run.wait(timeout=90)


def interrupt(run: Run) -> None:
    run.send("be slow")
    run.wait_for(lambda r: any(m.role == "user" for m in r.messages), timeout=60)
    time.sleep(1.0)  # the request is at the scripted model, which holds it
    run.interrupt()
    run.wait_for(lambda r: any(m.kind == "lifecycle" for m in r.messages), timeout=60)
    run.wait(timeout=60)


def clear(run: Run) -> None:
    run.send("hello")
    run.wait(timeout=90)
    first = run.transcript_id
    run.clear()
    run.send("and again")
    run.wait_for(lambda r: r.transcript_id != first and r.state == "idle", timeout=90)
    run.wait(timeout=90)


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "hello": hello,
    "tools": tools,
    "approve": approve,
    "reject": reject,
    "edit_approve": edit_approve,
    "edit_reject": edit_reject,
    "interrupt": interrupt,
    "clear": clear,
}


def main(names: list[str]) -> None:
    if "gemini" not in provider_ids():
        register("gemini", GeminiProvider)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or list(SCENARIOS):
        for path in _record(name, SCENARIOS[name]):
            print(f"wrote {path.relative_to(ROOT)}")
    manifest = {"provider": "gemini", "version": PINS["gemini"].version}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
