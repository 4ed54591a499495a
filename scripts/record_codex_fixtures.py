"""Record Codex rollout fixtures from the real pinned Codex CLI against the scripted model.

Usage: ``python scripts/record_codex_fixtures.py [scenario ...]``. Writes
``tests/fixtures/codex/<scenario>.jsonl`` (and ``manifest.json`` with the CLI version).
Temporary paths become stable placeholders; the long instruction texts Codex repeats in
every rollout (base instructions, skills and permission notes) are shortened.
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

OUT = ROOT / "tests" / "fixtures" / "codex"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
LIMIT = 300


def script(outside: Path) -> ScriptedModel:
    escalate = ToolUse(
        "exec_command",
        {
            "cmd": f"touch {outside}",
            "sandbox_permissions": "require_escalated",
            "justification": "Create a file outside the workspace?",
        },
    )
    return ScriptedModel(
        rules=[
            Rule(
                "use a tool",
                [
                    Reply(
                        "Let me check.",
                        tools=[ToolUse("Bash", {"command": "echo tool-output-42"})],
                        reasoning="The user wants a tool call.",
                    ),
                    Reply("The tool said tool-output-42."),
                ],
            ),
            Rule(
                "failing tool",
                [
                    Reply(tools=[ToolUse("Bash", {"command": "cat missing-file.txt"})]),
                    Reply("That command failed."),
                ],
            ),
            Rule("escalate", [Reply(tools=[escalate]), Reply("Escalated command finished.")]),
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


def _sanitise(path: Path, work: Path, home: Path, outside: Path) -> list[str]:
    lines = []
    for raw in path.read_text().splitlines():
        text = raw.replace(str(outside.parent), "/fixture/outside")
        text = text.replace(str(work), CWD_PLACEHOLDER).replace(str(home), HOME_PLACEHOLDER)
        line = json.loads(text)
        payload = line.get("payload", {})
        # Keep conversation and lifecycle whole; shorten bulky context snapshots.
        if line.get("type") in ("session_meta", "turn_context", "world_state") or (
            payload.get("type") == "message" and payload.get("role") == "developer"
        ):
            line = _shorten(line)
        lines.append(json.dumps(line, ensure_ascii=False))
    return lines


def _record(name: str, play: Callable[[Run, Path], None]) -> list[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work, outside = base / "work", base / "outside" / "file.txt"
        work.mkdir()
        outside.parent.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        run = Run("codex", cwd=work, model=script(outside), name=name)
        try:
            play(run, outside)
            paths = [*(_epoch_paths(run)), run.transcript_path]
        finally:
            run.stop()
            _runner().kill_server()
        home = base / "lab" / "runs" / name / "home"
        written = []
        spool = base / "lab" / "runs" / name / "signals"
        records = [
            json.loads(
                f.read_text()
                .replace(str(outside.parent), "/fixture/outside")
                .replace(str(work), CWD_PLACEHOLDER)
                .replace(str(home), HOME_PLACEHOLDER)
            )
            for f in sorted(spool.glob("*.json"))
        ]
        target = OUT / f"{name}.hooks.jsonl"
        target.write_text("".join(json.dumps(r) + "\n" for r in records))
        written.append(target)
        for index, path in enumerate(p for p in paths if p is not None):
            suffix = f"_{index}" if len(paths) > 1 else ""
            target = OUT / f"{name}{suffix}.jsonl"
            target.write_text("\n".join(_sanitise(path, work, home, outside)) + "\n")
            written.append(target)
        return written


def _epoch_paths(run: Run) -> list[Path]:
    return [ref.path for ref in run._chat.past_epochs]


def hello(run: Run, outside: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)


def tools(run: Run, outside: Path) -> None:
    run.send("please use a tool")
    run.wait(timeout=60)
    run.send("now a failing tool")
    run.wait(timeout=60)


def approve(run: Run, outside: Path) -> None:
    run.send("please escalate")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=60)
    run.answer("approve")
    run.wait(timeout=60)


def reject(run: Run, outside: Path) -> None:
    run.send("please escalate")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=60)
    run.answer("reject")
    run.wait(timeout=60)


def interrupt(run: Run, outside: Path) -> None:
    run.send("be slow")
    run.wait_for(lambda r: any(m.role == "user" for m in r.messages), timeout=30)
    time.sleep(1.0)  # the request is at the scripted model, which holds it
    run.interrupt()
    run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), timeout=30)


def new(run: Run, outside: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)
    first = run.transcript_id
    run.clear()
    run.send("and again")
    run.wait_for(lambda r: r.transcript_id != first and r.state == "idle", timeout=60)
    run.wait(timeout=60)


SCENARIOS: dict[str, Callable[[Run, Path], None]] = {
    "hello": hello,
    "tools": tools,
    "approve": approve,
    "reject": reject,
    "interrupt": interrupt,
    "new": new,
}


def main(names: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names or list(SCENARIOS):
        for path in _record(name, SCENARIOS[name]):
            print(f"wrote {path.relative_to(ROOT)}")
    manifest = {"provider": "codex", "version": PINS["codex"].version}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
