"""Record transcript fixtures from the real pinned agent CLIs against the scripted model.

Usage: ``python scripts/record_fixtures.py [scenario ...]``. Writes
``tests/fixtures/<provider>/<scenario>.jsonl`` (and ``manifest.json`` with the CLI version).
Temporary paths are replaced by stable placeholders so fixtures are reproducible; bulky
bookkeeping strings (system prompt snapshots) are shortened — chain entries are kept whole.
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

OUT = ROOT / "tests" / "fixtures" / "claude-code"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
CHAIN = {"user", "assistant", "system"}
LIMIT = 400

SCRIPT = ScriptedModel(
    rules=[
        Rule(
            "use a tool",
            [
                Reply(
                    "Let me check.",
                    tools=[
                        ToolUse("Bash", {"command": "echo tool-output-42", "description": "Echo"})
                    ],
                ),
                Reply("The tool said tool-output-42."),
            ],
        ),
        Rule(
            "failing tool",
            [
                Reply(
                    tools=[
                        ToolUse(
                            "Bash",
                            {"command": "cat missing-file.txt", "description": "Read a file"},
                        )
                    ]
                ),
                Reply("That command failed."),
            ],
        ),
        Rule("slow", Reply("This takes a while. " * 40, chunk_delay=0.3)),
        Rule("hello", "Hello from the scripted model."),
    ],
    fallback="Noted.",
)


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > LIMIT:
        return value[:LIMIT] + "…[shortened by record_fixtures]"
    if isinstance(value, list):
        return [_shorten(v) for v in value[:3]]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _normalise(path: Path, run: Run, home: Path) -> str:
    text = path.read_text()
    slug_cwd = "".join(c if c.isalnum() else "-" for c in str(run.cwd))
    replacements = {
        str(home): HOME_PLACEHOLDER,
        str(run.cwd): CWD_PLACEHOLDER,
        slug_cwd: "".join(c if c.isalnum() else "-" for c in CWD_PLACEHOLDER),
    }
    out = []
    for raw in text.splitlines():
        line = raw
        for old, new in replacements.items():
            line = line.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
        entry = json.loads(line)
        if entry.get("type") not in CHAIN:
            entry = _shorten(entry)
        out.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def _save(name: str, run: Run, path: Path | None) -> None:
    assert path is not None and path.exists(), f"{name}: no transcript"
    home = run._context.runtime_dir / "home"
    (OUT / f"{name}.jsonl").write_text(_normalise(path, run, home))
    print(f"recorded {name}: {path.stat().st_size} bytes")


def hello(run: Run) -> None:
    run.send("hello")
    run.wait(timeout=120)
    _save("hello", run, run.transcript_path)


def tool(run: Run) -> None:
    run.send("please use a tool")
    run.wait(timeout=120)
    run.send("now a failing tool")
    run.wait(timeout=120)
    _save("tools", run, run.transcript_path)


def clear(run: Run) -> None:
    run.send("hello")
    run.wait(timeout=120)
    before, first = run.transcript_path, run.transcript_id
    run.clear()
    assert run.wait_for(
        lambda r: r.transcript_id != first and any(m.command for m in r.messages), 60
    )
    run.send("after clear")
    run.wait(timeout=120)
    _save("clear_before", run, before)
    _save("clear_after", run, run.transcript_path)


def paste(run: Run) -> None:
    run.send("first line $HOME `id`\n\tsecond line C-c Enter\nthird ünïcødé ✓")
    run.wait(timeout=120)
    _save("paste", run, run.transcript_path)


def interrupt(run: Run) -> None:
    run.send("slow")
    assert run.wait_for(lambda r: any(m.text == "slow" for m in r.messages), 60)
    time.sleep(2)  # the answer is streaming; Claude Code writes it when it ends
    run.interrupt()
    assert run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), 60)
    run.wait(timeout=60)
    _save("interrupt", run, run.transcript_path)


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "hello": hello,
    "tools": tool,
    "clear": clear,
    "paste": paste,
    "interrupt": interrupt,
}


def main(names: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-record-")
    try:
        for name in names or list(SCENARIOS):
            work = Path(tempfile.mkdtemp(prefix="record-work-"))
            run = Run("claude-code", cwd=work, model=SCRIPT, name=f"record-{name}")
            try:
                SCENARIOS[name](run)
            finally:
                run.stop()
    finally:
        _runner().kill_server()
        SCRIPT.stop()
    manifest = {"provider": "claude-code", "version": PINS["claude-code"].version}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
