"""Record Gemini CLI session fixtures from a real Gemini CLI against the scripted model.

Usage::

    python scripts/record_gemini_fixtures.py [--version X.Y.Z] [--versions-dir DIR] [scenario ...]

Without ``--version`` the pinned Gemini CLI of the tools folder plays every scenario and the
fixtures go to ``tests/fixtures/gemini/``. With ``--version`` that version is installed with
npm into ``<versions dir>/@google+gemini-cli@<version>`` (``--versions-dir``, else the cache of
``scripts/cli_versions.py``; never into the repository)
and records into ``tests/fixtures/gemini/v<version>/``: the scenarios that version can play
(``VERSION_SCENARIOS``) and a ``manifest.json`` of its own.

Each scenario writes ``<scenario>.jsonl`` (``.json`` for versions that keep a session as one
JSON document), ``<scenario>_<n>.*`` when it opens several sessions, sub-agent session files
as ``<scenario>.agents/<session id>.jsonl``, and the run's hook records as
``<scenario>.hooks.jsonl`` (versions with hooks). Temporary paths become stable
placeholders; the session context Gemini CLI writes first is shortened.

Older versions need other settings to run offline under the scripted model; those live in
``VERSION_KNOBS`` below (recording aids, not couplings of the product).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import cli_versions  # noqa: E402

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run._launch import runner as _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.provider import RunContext, register  # noqa: E402
from lab_widget.provider.gemini import GeminiProvider  # noqa: E402
from lab_widget.provider.gemini import _compat as gemini_compat  # noqa: E402
from tests.support.local import local_parts  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "gemini"
PACKAGE = PINS["gemini"].npm_package
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
LIMIT = 300


@dataclass(frozen=True)
class Knobs:
    """What an older version needs to run offline, and what it can play."""

    settings: dict[str, Any] = field(default_factory=dict)
    """Merged into the isolated ``settings.json``."""
    unhooked_ready: float | None = None
    """Versions whose SessionStart hook never fires (and whose session file appears only
    with the first message): seconds after the spawn until the prompt takes input."""
    options: dict[str, Any] = field(default_factory=dict)
    """Run options (``approval_mode``)."""


VERSION_KNOBS: dict[str, Knobs] = {
    # 0.20.2 names its switches differently: without disableAutoUpdate it ran
    # `npm install -g @google/gemini-cli@latest` at start-up. Its hooks are off unless
    # tools.enableHooks is set, and then fire BeforeAgent but neither SessionStart nor
    # AfterAgent (a turn would never end): it records without hooks, from its file alone.
    # Without hooks no confirmation reaches the chat, and this version asks for some
    # read-only commands too (`echo`): it runs in yolo mode.
    "0.20.2": Knobs(
        settings={"general": {"disableAutoUpdate": True, "disableUpdateNag": True}},
        unhooked_ready=15.0,
        options={"approval_mode": "yolo"},
    ),
    "0.38.2": Knobs(),
}

HOOKED_SCENARIOS = ("approve", "reject")
"""Scenarios that need the Notification hook of a permission prompt."""


def script(work: Path) -> ScriptedModel:
    write = ToolUse("write_file", {"file_path": str(work / "new.txt"), "content": "hello\n"})
    swap = {"old_string": "beta", "new_string": "gamma", "instruction": "swap the word"}
    replace = ToolUse("replace", {"file_path": str(work / "old.txt"), **swap})
    return ScriptedModel(
        rules=[
            Rule("write a file", [Reply("Writing.", tools=[write]), Reply("Written.")]),
            Rule(
                "look it up",
                [
                    Reply("Looking.", tools=[ToolUse("mcp_labtools_lookup", {"query": "widget"})]),
                    Reply("Looked."),
                ],
            ),
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
            Rule(
                "think first",
                [
                    Reply(
                        "Let me look.",
                        tools=[ToolUse("Bash", {"command": "echo thought-42"})],
                        thinking="**Planning the check** I should run a command first.",
                    ),
                    Reply(
                        "It printed thought-42.",
                        thinking="**Reading the output** The command printed thought-42.",
                    ),
                ],
            ),
            Rule(
                "slow command",
                [
                    Reply(tools=[ToolUse("Bash", {"command": "sleep 1; echo a; sleep 1; echo b"})]),
                    Reply("Both lines printed."),
                ],
            ),
            Rule(
                "count the files",
                [
                    Reply("Counting.", tools=[ToolUse("Bash", {"command": "ls"})]),
                    # The generalist ends by handing in its result, an object.
                    Reply(tools=[ToolUse("complete_task", {"result": {"response": "3 files."}})]),
                ],
            ),
            Rule(
                "delegate",
                [
                    Reply(
                        "Asking a sub-agent.",
                        tools=[
                            ToolUse(
                                "invoke_agent",
                                {"agent_name": "generalist", "prompt": "count the files here"},
                            )
                        ],
                    ),
                    Reply("The sub-agent found 3 files."),
                ],
            ),
            Rule(
                "look at the picture",
                [
                    Reply(tools=[ToolUse("read_file", {"file_path": str(work / "pic.png")})]),
                    Reply("A green pixel."),
                ],
            ),
            Rule(
                "keep it hidden", Reply("Done.", thinking="A secret plan.", thinking_redacted=True)
            ),
            Rule("describe", Reply("A green pixel, pasted.")),
            Rule("slow", Reply("late answer", delay=30)),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
"""A 1x1 green PNG."""


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


def _sanitise(path: Path, work: Path, home: Path) -> str:
    text = _placeholders(path.read_text(), work, home)
    if path.suffix == ".json":
        # One JSON document, rewritten whole on every change: kept as the CLI writes it.
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    lines = []
    for raw in text.splitlines():
        line = json.loads(raw)
        if "$set" in line and "messages" in line["$set"]:
            line = _shorten(line)  # the session context is long and says nothing here
        lines.append(json.dumps(line, ensure_ascii=False))
    return "\n".join(lines) + "\n"


class RecordingProvider(GeminiProvider):
    """The product's provider, plus a start-up wait for versions without a SessionStart."""

    ready_after: float | None = None

    def is_ready(self, context: RunContext) -> bool:
        if super().is_ready(context):
            return True
        if self.ready_after is None:
            return False
        state = json.loads((context.runtime_dir / "gemini.json").read_text())
        return time.time() - float(state["spawned_at"]) >= self.ready_after


def _record(
    name: str, play: Callable[[Run], None], out: Path, options: dict[str, Any]
) -> list[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work = base / "work"
        work.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        run = Run("gemini", cwd=work, model=script(work), name=name, **options)
        try:
            play(run)
            paths = [*(ref.path for ref in local_parts(run).chat.past_epochs), run.transcript_path]
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
        if records:
            target = out / f"{name}.hooks.jsonl"
            target.write_text("".join(json.dumps(r) + "\n" for r in records))
            written.append(target)
        found = [p for p in paths if p is not None]
        for index, path in enumerate(found):
            suffix = f"_{index}" if len(found) > 1 else ""
            target = out / f"{name}{suffix}{path.suffix}"
            target.write_text(_sanitise(path, work, home))
            written.append(target)
            # Sub-agents keep their own files in a folder named after the parent session.
            header = json.loads(path.read_text().splitlines()[0]) if path.suffix == ".jsonl" else {}
            agents = path.parent / str(header.get("sessionId") or "-")
            if agents.is_dir():
                folder = out / f"{name}{suffix}.agents"
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                for agent in sorted(agents.glob("*.jsonl")):
                    (folder / agent.name).write_text(_sanitise(agent, work, home))
                    written.append(folder / agent.name)
        return written


def hello(run: Run) -> None:
    run.send("hello")
    run.wait(timeout=90)


def _answered(run: Run, text: str) -> None:
    # Without hooks a response waiting on its tool calls reads as a finished turn: the
    # reply that ends the turn is waited for by its text.
    run.wait_for(lambda r: any(m.text == text for m in r.messages), timeout=90)
    run.wait(timeout=90)


def tools(run: Run) -> None:
    run.send("please use a tool")
    _answered(run, "The tool said tool-output-42.")
    run.send("now a failing tool")
    _answered(run, "That command failed.")


def thinking(run: Run) -> None:
    run.send("think first, then answer")
    _answered(run, "It printed thought-42.")


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


def hidden_thinking(run: Run) -> None:
    run.send("keep it hidden, then answer")
    _answered(run, "Done.")


def subagent(run: Run) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (run.cwd / name).write_text(name)
    run.send("please delegate the count")
    _answered(run, "The sub-agent found 3 files.")


def image(run: Run) -> None:
    (run.cwd / "pic.png").write_bytes(PIXEL)
    run.send("look at the picture")
    _answered(run, "A green pixel.")


def user_image(run: Run) -> None:
    (run.cwd / "pic.png").write_bytes(PIXEL)
    run.send("describe @pic.png")
    _answered(run, "A green pixel, pasted.")


def compress(run: Run) -> None:
    run.send("hello")
    run.wait(timeout=90)
    size = run.transcript_path.stat().st_size if run.transcript_path else 0
    run.send("/compress")
    # A slash command starts no turn: the rewritten history shows in the file.
    run.wait_for(
        lambda r: r.transcript_path is not None and r.transcript_path.stat().st_size > size,
        timeout=90,
    )
    time.sleep(2.0)
    run.wait(timeout=90)


def mcp_approve(run: Run) -> None:
    run.send("please look it up")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=90)
    run.answer("approve")
    run.wait(timeout=90)


MCP_SERVER = ROOT / "tests" / "support" / "mcp_server.py"
"""The tests' stdio MCP server (one tool, ``lookup``, of server ``labtools``)."""

SCENARIO_OPTIONS: dict[str, dict[str, Any]] = {
    "mcp_approve": {
        "settings": {
            "mcpServers": {"labtools": {"command": sys.executable, "args": [str(MCP_SERVER)]}}
        }
    },
}
"""Run options a scenario needs beside the version's knobs."""


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "hello": hello,
    "tools": tools,
    "thinking": thinking,
    "approve": approve,
    "reject": reject,
    "edit_approve": edit_approve,
    "edit_reject": edit_reject,
    "interrupt": interrupt,
    "clear": clear,
    "hidden_thinking": hidden_thinking,
    "subagent": subagent,
    "image": image,
    "user_image": user_image,
    "compress": compress,
    "mcp_approve": mcp_approve,
}

VERSION_SCENARIOS = ("hello", "tools", "thinking", "interrupt", "clear", *HOOKED_SCENARIOS)
"""What an older version records (the pinned one records every scenario)."""


def versions_dir(given: str | None) -> None:
    """Install other versions into ``given`` instead of the shared versions cache."""
    if given:
        os.environ["LAB_WIDGET_CLI_CACHE"] = str(Path(given).expanduser())


def install(version: str) -> Path:
    """A tools folder holding ``version`` (installed with npm when missing)."""
    return cli_versions.install("gemini", version)


def _deep_merge(target: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = value


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=PINS["gemini"].version)
    parser.add_argument("--versions-dir")
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args(argv)
    pinned = args.version == PINS["gemini"].version
    out = FIXTURES if pinned else FIXTURES / f"v{args.version}"
    knobs = VERSION_KNOBS.get(args.version, Knobs())
    names = args.scenarios or (list(SCENARIOS) if pinned else list(VERSION_SCENARIOS))
    if not pinned:
        versions_dir(args.versions_dir)
        os.environ["LAB_WIDGET_TOOLS"] = str(install(args.version))
        _deep_merge(gemini_compat.SETTINGS, knobs.settings)
        if knobs.unhooked_ready is not None:
            names = [n for n in names if n not in HOOKED_SCENARIOS]
    # A CLI that updates itself would install globally: keep any such write in a scratch
    # folder of this recording.
    scratch = tempfile.mkdtemp(prefix="record-gemini-npm-")
    os.environ["NPM_CONFIG_PREFIX"] = scratch
    RecordingProvider.ready_after = knobs.unhooked_ready
    register("gemini", RecordingProvider)
    out.mkdir(parents=True, exist_ok=True)
    try:
        for name in names:
            options = {**knobs.options, **SCENARIO_OPTIONS.get(name, {})}
            for path in _record(name, SCENARIOS[name], out, options):
                print(f"wrote {path.relative_to(ROOT)}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    manifest = {"provider": "gemini", "version": args.version}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
