"""Record GitHub Copilot CLI fixtures from the pinned Copilot CLI against the scripted model.

Usage::

    python scripts/record_copilot_fixtures.py [--version X.Y.Z] [scenario ...]

Each scenario runs the real TUI under tmux through ``Run("copilot", model=ScriptedModel(...))``
(an isolated ``COPILOT_HOME``, offline, chat completions) and copies every session log the
run wrote (``session-state/<id>/events.jsonl``, oldest first) into
``tests/fixtures/copilot/<scenario>.jsonl`` (``<scenario>_<n>.jsonl`` when ``/clear`` made
more than one) beside its ``workspace.yaml`` (``<scenario>.workspace.yaml``), with the
run's folder as ``/fixture/work``, its home as ``/fixture/home``
and the system prompt cut short; ``manifest.json`` names the CLI version.

With ``--version`` another version is installed through ``scripts/cli_versions.py`` (its
own cache, never the project's tools folder) and records the scenarios an older version
has (:data:`OLDER`) into ``tests/fixtures/copilot/v<version>/``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import cli_versions  # noqa: E402

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run._launch import runner as _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.provider.copilot import _compat  # noqa: E402
from lab_widget.provider.copilot._files import session_folders  # noqa: E402
from tests.support.kernels import running_kernel  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "copilot"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
SYSTEM_KEPT = 200
"""Characters of the system prompt kept (it is the CLI's own, thousands long)."""


FORM = {
    "message": "A few choices.",
    "requestedSchema": {
        "properties": {
            "db": {"type": "string", "title": "Database", "enum": ["SQLite", "Postgres"]},
            "name": {"type": "string", "title": "Project name"},
            "langs": {
                "type": "array",
                "title": "Languages",
                "items": {"type": "string", "enum": ["Python", "Rust", "Go"]},
            },
        },
        "required": ["db", "name", "langs"],
    },
}
"""An ``ask_user`` form: a choice, a text field and a multi-select."""


def script() -> ScriptedModel:
    def touch(name: str) -> list[Reply]:
        return [Reply("", tools=[ToolUse("Bash", {"command": f"touch {name}"})]), Reply("Made.")]

    def count(name: str) -> list[Reply]:
        code = {"code": f"{name} = len(df)\nprint('rows:', {name})"}
        return [Reply("", tools=[ToolUse("kernel-run_python", code)]), Reply("Counted.")]

    def plans(summary: str) -> list[Reply]:
        plan = ToolUse("exit_plan_mode", {"summary": summary})
        return [Reply("", tools=[plan]), Reply("Planned.")]

    echo = ToolUse("Bash", {"command": "echo tool-output-42"})
    ask = ToolUse("ask_user", FORM)
    return ScriptedModel(
        rules=[
            Rule("ask me", [Reply("", tools=[ask]), Reply("Noted.")]),
            Rule("use a tool", [Reply("Let me check.", tools=[echo]), Reply("The tool said 42.")]),
            Rule("make one", touch("one.txt")),
            Rule("make two", touch("two.txt")),
            Rule("slow", Reply("late answer", delay=30)),
            Rule("count the rows", count("x")),
            Rule(
                "show the missing column",
                [
                    Reply("", tools=[ToolUse("kernel-run_python", {"code": "df['missing']"})]),
                    Reply("That column does not exist."),
                ],
            ),
            Rule("count again", count("y")),
            Rule("plan one", plans("- touch a")),
            Rule("plan two", plans("- touch b")),
            Rule("smaller steps", Reply("Revised.")),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _said(text: str) -> Callable[[Run], bool]:
    """Whether the run's last message is ``text``."""
    return lambda r: bool(r.messages) and r.messages[-1].text == text


def _until(run: Run, check: Callable[[Run], bool]) -> None:
    assert run.wait_for(check, timeout=90), run.screen()


def hello(run: Run, model: ScriptedModel) -> None:
    run.send("hello", ready_timeout=120)
    assert run.wait(timeout=90) == "idle", run.screen()


def tools(run: Run, model: ScriptedModel) -> None:
    run.send("please use a tool", ready_timeout=120)
    _until(run, _said("The tool said 42."))
    run.wait(timeout=30)


def _approving(prompt: str, said: str) -> Callable[[Run, ScriptedModel], None]:
    """A scenario that sends ``prompt``, approves the call it asks for and waits for ``said``."""

    def play(run: Run, model: ScriptedModel) -> None:
        run.send(prompt, ready_timeout=120)
        _until(run, lambda r: r.pending_dialog is not None)
        run.answer("Approve")
        _until(run, _said(said))
        run.wait(timeout=30)

    return play


approve = _approving("please make one", "Made.")


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


def questions(run: Run, model: ScriptedModel) -> None:
    run.send("please ask me", ready_timeout=120)
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer(
        {"Database": "Postgres", "Project name": FreeText("lab widget"), "Languages": ["Go"]}
    )
    _until(run, _said("Noted."))
    run.send("please make one")
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Approve always")
    _until(run, _said("Made."))
    run.send("please make two")
    _until(run, lambda r: _said("Made.")(r) and (r.cwd / "two.txt").exists())
    run.wait(timeout=30)


def kernel(run: Run, model: ScriptedModel) -> None:
    run.send("please count the rows", ready_timeout=120)
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Approve")
    _until(run, _said("Counted."))
    assert run.wait(timeout=30) == "idle", run.screen()
    run.send("please count again")
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Reject")
    assert run.wait(timeout=30) == "idle", run.screen()


kernel_error = _approving("please show the missing column", "That column does not exist.")


def plan(run: Run, model: ScriptedModel) -> None:
    hello(run, model)  # a mode command before any prompt is lost
    run.send("/plan")
    run.send("please plan one")
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("approve")
    _until(run, _said("Planned."))
    assert run.wait(timeout=60) == "idle", run.screen()
    run.send("/plan")
    run.send("please plan two")
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("reject", feedback="smaller steps")
    _until(run, _said("Revised."))
    run.wait(timeout=30)


def clear(run: Run, model: ScriptedModel) -> None:
    hello(run, model)
    first = run.transcript_id
    run.clear()
    _until(run, lambda r: r.transcript_id != first)
    run.send("and again")
    _until(run, _said("Second answer."))
    run.wait(timeout=30)


SCENARIOS: dict[str, Callable[[Run, ScriptedModel], None]] = {
    "hello": hello,
    "tools": tools,
    "approve": approve,
    "reject": reject,
    "interrupt": interrupt,
    "clear": clear,
    "questions": questions,
    "kernel": kernel,
    "kernel_error": kernel_error,
    "plan": plan,
}

WITH_KERNEL = frozenset({"kernel", "kernel_error"})
"""Scenarios whose run is given a real kernel's tools, its ``df`` 7 rows."""

OLDER = ("hello", "tools", "approve")
"""What an older version records (the pinned one records every scenario)."""


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


def _record(name: str, out_dir: Path) -> list[Path]:
    scratch = Path(tempfile.mkdtemp(prefix=f"record-copilot-{name}-"))
    work = scratch / "work"
    work.mkdir()
    os.environ["LAB_WIDGET_HOME"] = str(scratch / "lab-home")
    model = script()
    stack = contextlib.ExitStack()
    connection: str | bool = False
    if name in WITH_KERNEL:
        setup = "import pandas as pd\ndf = pd.DataFrame({'a': range(7)})"
        connection = str(stack.enter_context(running_kernel(setup)).connection_file)
    run = Run("copilot", cwd=work, model=model, kernel=connection)
    try:
        SCENARIOS[name](run, model)
    finally:
        run.stop()
        model.stop()
        stack.close()
        _runner().kill_server()
    home = next((scratch / "lab-home" / "runs").iterdir()) / "home"
    logs = [f / _compat.EVENTS_FILE for f in session_folders(home, work)]
    logs = [log for log in logs if log.is_file()]
    written = []
    for number, log in enumerate(logs):
        out = out_dir / (f"{name}.jsonl" if len(logs) == 1 else f"{name}_{number}.jsonl")
        out.write_bytes(_scrubbed(log.read_bytes(), work, home))
        written.append(out)
        # Beside it the session's workspace.yaml, which history lists sessions by.
        meta = log.parent / _compat.WORKSPACE_FILE
        if meta.is_file():
            text = meta.read_text().replace(str(home), HOME_PLACEHOLDER)
            workspace = out.with_suffix(".workspace.yaml")
            workspace.write_text(text.replace(str(work), CWD_PLACEHOLDER))
            written.append(workspace)
    return written


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=PINS["copilot"].version)
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args(argv)
    pinned = args.version == PINS["copilot"].version
    out_dir = FIXTURES if pinned else FIXTURES / f"v{args.version}"
    names = args.scenarios or list(SCENARIOS if pinned else OLDER)
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = out_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    files = manifest.setdefault("files", {})
    with cli_versions.cli_version("copilot", args.version):
        for name in names:
            for path in _record(name, out_dir):
                files[path.name] = f"recorded by scripts/record_copilot_fixtures.py: {name}"
                print(f"wrote {path.relative_to(ROOT)}")
    manifest.update(cli="copilot", version=args.version)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
