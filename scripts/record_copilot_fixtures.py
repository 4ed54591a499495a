"""Record GitHub Copilot CLI fixtures from the pinned Copilot CLI against the scripted model.

Usage::

    python scripts/record_copilot_fixtures.py [scenario ...]

Each scenario runs the real TUI under tmux through ``Run("copilot", model=ScriptedModel(...))``
(an isolated ``COPILOT_HOME``, offline, chat completions) and copies every session log the
run wrote (``session-state/<id>/events.jsonl``, oldest first) into
``tests/fixtures/copilot/<scenario>.jsonl`` (``<scenario>_<n>.jsonl`` when ``/clear`` made
more than one), with the run's folder as ``/fixture/work``, its home as ``/fixture/home``
and the system prompt cut short; ``manifest.json`` names the CLI version.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run._launch import runner as _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.provider.copilot import _compat  # noqa: E402
from lab_widget.provider.copilot._files import session_folders  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "copilot"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
SYSTEM_KEPT = 200
"""Characters of the system prompt kept (it is the CLI's own, thousands long)."""


def script() -> ScriptedModel:
    def touch(name: str) -> list[Reply]:
        return [Reply("", tools=[ToolUse("Bash", {"command": f"touch {name}"})]), Reply("Made.")]

    echo = ToolUse("Bash", {"command": "echo tool-output-42"})
    return ScriptedModel(
        rules=[
            Rule("use a tool", [Reply("Let me check.", tools=[echo]), Reply("The tool said 42.")]),
            Rule("make one", touch("one.txt")),
            Rule("make two", touch("two.txt")),
            Rule("slow", Reply("late answer", delay=30)),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _until(run: Run, check: Callable[[Run], bool]) -> None:
    assert run.wait_for(check, timeout=90), run.screen()


def hello(run: Run, model: ScriptedModel) -> None:
    run.send("hello", ready_timeout=120)
    assert run.wait(timeout=90) == "idle", run.screen()


def tools(run: Run, model: ScriptedModel) -> None:
    run.send("please use a tool", ready_timeout=120)
    _until(run, lambda r: r.messages[-1].text == "The tool said 42.")
    run.wait(timeout=30)


def approve(run: Run, model: ScriptedModel) -> None:
    run.send("please make one", ready_timeout=120)
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Approve")
    _until(run, lambda r: r.messages[-1].text == "Made.")
    run.wait(timeout=30)


def reject(run: Run, model: ScriptedModel) -> None:
    run.send("please make two", ready_timeout=120)
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Reject")
    assert run.wait(timeout=30) == "idle", run.screen()


def interrupt(run: Run, model: ScriptedModel) -> None:
    run.send("be slow", ready_timeout=120)
    _until(run, lambda r: any(q.user_text == "be slow" for q in model.scripted_requests))
    run.interrupt()
    assert run.wait(timeout=30) == "idle", run.screen()


def clear(run: Run, model: ScriptedModel) -> None:
    hello(run, model)
    first = run.transcript_id
    run.clear()
    _until(run, lambda r: r.transcript_id != first)
    run.send("and again")
    _until(run, lambda r: r.messages[-1].text == "Second answer.")
    run.wait(timeout=30)


SCENARIOS: dict[str, Callable[[Run, ScriptedModel], None]] = {
    "hello": hello,
    "tools": tools,
    "approve": approve,
    "reject": reject,
    "interrupt": interrupt,
    "clear": clear,
}


def _scrubbed(data: bytes, work: Path, home: Path) -> bytes:
    lines = []
    for line in data.splitlines():
        event = json.loads(line)
        if event.get("type") == "system.message":
            content = str(event["data"].get("content", ""))
            event["data"]["content"] = content[:SYSTEM_KEPT] + " [...]"
        text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        text = text.replace(str(home), HOME_PLACEHOLDER).replace(str(work), CWD_PLACEHOLDER)
        lines.append(text.encode())
    return b"\n".join(lines) + b"\n"


def _record(name: str) -> list[Path]:
    scratch = Path(tempfile.mkdtemp(prefix=f"record-copilot-{name}-"))
    work = scratch / "work"
    work.mkdir()
    os.environ["LAB_WIDGET_HOME"] = str(scratch / "lab-home")
    model = script()
    run = Run("copilot", cwd=work, model=model)
    try:
        SCENARIOS[name](run, model)
    finally:
        run.stop()
        model.stop()
        _runner().kill_server()
    home = next((scratch / "lab-home" / "runs").iterdir()) / "home"
    logs = [f / _compat.EVENTS_FILE for f in session_folders(home, work)]
    logs = [log for log in logs if log.is_file()]
    written = []
    for number, log in enumerate(logs):
        out = FIXTURES / (f"{name}.jsonl" if len(logs) == 1 else f"{name}_{number}.jsonl")
        out.write_bytes(_scrubbed(log.read_bytes(), work, home))
        written.append(out)
    return written


def main(argv: list[str]) -> None:
    names = argv or list(SCENARIOS)
    FIXTURES.mkdir(parents=True, exist_ok=True)
    manifest_path = FIXTURES / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    files = manifest.setdefault("files", {})
    for name in names:
        for path in _record(name):
            files[path.name] = f"recorded by scripts/record_copilot_fixtures.py: {name}"
            print(f"wrote {path.relative_to(ROOT)}")
    manifest.update(cli="copilot", version=PINS["copilot"].version)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
