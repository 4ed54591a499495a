"""Record Mistral Vibe fixtures from the pinned Vibe (or another version) against the
scripted model.

Usage::

    python scripts/record_mistral_vibe_fixtures.py [--version X.Y.Z] [scenario ...]

Each scenario runs the real TUI under tmux through ``Run("mistral-vibe",
model=ScriptedModel(...))`` (an isolated ``VIBE_HOME``, chat completions). Vibe's session
store keeps a journal only until its next snapshot (an older segment is deleted once a
snapshot holds it), so every journal line is copied as it is written: the whole journal of
each session the run wrote, in sequence order, goes into
``tests/fixtures/mistral-vibe/<scenario>.jsonl`` (``<scenario>_<n>.jsonl`` when ``/clear``
made more than one) with its ``meta.json`` beside it (``<name>.meta.json``). The run's
folder reads ``/fixture/work``, its home ``/fixture/home``; the request payloads no reader
looks at (tool catalogs, system prompt) are cut short. ``manifest.json`` names the version;
another version's go into ``v<version>/``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from cli_versions import cli_version  # noqa: E402

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run._launch import runner as _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.provider.mistral_vibe import _compat  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "mistral-vibe"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
KEPT = 2000
"""Characters of a request payload kept: the CLI's own tool catalog and prompt are long."""
ELIDED = frozenset({"core_input", "action_intent"})


def script() -> ScriptedModel:
    def touch(name: str) -> list[Reply]:
        return [Reply("", tools=[ToolUse("Bash", {"command": f"touch {name}"})]), Reply("Made.")]

    echo = ToolUse("Bash", {"command": "echo tool-output-42"})
    return ScriptedModel(
        rules=[
            Rule("use a tool", [Reply("Let me check.", tools=[echo]), Reply("The tool said 42.")]),
            Rule("make one", touch("one.txt")),
            Rule("make two", touch("two.txt")),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _last(run: Run) -> str:
    return run.messages[-1].text if run.messages else ""


def _until(run: Run, check: Callable[[Run], bool]) -> None:
    assert run.wait_for(check, timeout=120), run.screen()


def hello(run: Run, model: ScriptedModel) -> None:
    run.send("hello", ready_timeout=180)
    _until(run, lambda r: _last(r).startswith("Hello"))
    run.wait(timeout=60)


def tools(run: Run, model: ScriptedModel) -> None:
    run.send("please use a tool", ready_timeout=180)  # echo runs unasked
    _until(run, lambda r: _last(r) == "The tool said 42.")
    run.wait(timeout=60)


def approve_reject(run: Run, model: ScriptedModel) -> None:
    run.send("please make one", ready_timeout=180)
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Approve", timeout=60)
    _until(run, lambda r: _last(r) == "Made.")
    run.wait(timeout=60)
    run.send("please make two")
    _until(run, lambda r: r.pending_dialog is not None)
    run.answer("Reject", timeout=60)
    _until(run, lambda r: _last(r) == "Made." and r.state == "idle")


def clear(run: Run, model: ScriptedModel) -> None:
    hello(run, model)
    first = run.transcript_id
    run.clear()
    _until(run, lambda r: r.transcript_id != first)
    run.send("and again")
    _until(run, lambda r: _last(r) == "Second answer.")
    run.wait(timeout=60)


SCENARIOS: dict[str, Callable[[Run, ScriptedModel], None]] = {
    "hello": hello,
    "tools": tools,
    "approve_reject": approve_reject,
    "clear": clear,
}


class JournalCopier(threading.Thread):
    """Copies every journal line of every session of every run as it is written."""

    def __init__(self, runs: Path) -> None:
        super().__init__(daemon=True)
        self.runs = runs
        self.lines: dict[str, dict[int, bytes]] = {}
        self.stop = threading.Event()

    def sweep(self) -> None:
        pattern = f"*/home/{_compat.SESSIONS_DIR}/{_compat.STORE_DIR}/*/journal/*.jsonl"
        for segment in self.runs.glob(pattern):
            try:
                data = segment.read_bytes()
            except OSError:
                continue
            kept = self.lines.setdefault(segment.parents[1].name, {})
            for raw in data[: data.rfind(b"\n") + 1].splitlines():
                record = json.loads(raw)
                kept.setdefault(int(record["sequence"]), raw)

    def run(self) -> None:
        while not self.stop.wait(0.02):
            self.sweep()


def _scrubbed(raw: bytes, work: Path, home: Path) -> bytes:
    record = json.loads(raw)
    if record.get("type") in ELIDED:
        payload = record.get("payload", {})
        for key, value in list(payload.items()):
            text = json.dumps(value)
            if len(text) > KEPT:
                payload[key] = f"[{len(text)} characters elided]"
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    return text.replace(str(home), HOME_PLACEHOLDER).replace(str(work), CWD_PLACEHOLDER).encode()


def _record(name: str, folder: Path) -> list[Path]:
    scratch = Path(tempfile.mkdtemp(prefix=f"record-vibe-{name}-"))
    work = scratch / "work"
    work.mkdir()
    os.environ["LAB_WIDGET_HOME"] = str(scratch / "lab-home")
    model = script()
    copier = JournalCopier(scratch / "lab-home" / "runs")
    copier.start()
    run = Run("mistral-vibe", cwd=work, model=model)
    try:
        SCENARIOS[name](run, model)
    finally:
        copier.stop.set()
        copier.join()
        copier.sweep()
        run.stop()
        model.stop()
        _runner().kill_server()
    home = next((scratch / "lab-home" / "runs").iterdir()) / "home"
    stores = home / _compat.SESSIONS_DIR / _compat.STORE_DIR
    order = sorted(
        copier.lines, key=lambda s: json.loads((stores / s / "meta.json").read_text())["start_time"]
    )
    written = []
    for number, session in enumerate(order):
        stem = name if len(order) == 1 else f"{name}_{number}"
        lines = [copier.lines[session][k] for k in sorted(copier.lines[session])]
        out = folder / f"{stem}.jsonl"
        out.write_bytes(b"\n".join(_scrubbed(line, work, home) for line in lines) + b"\n")
        meta = (stores / session / "meta.json").read_text()
        meta = meta.replace(str(home), HOME_PLACEHOLDER).replace(str(work), CWD_PLACEHOLDER)
        (folder / f"{stem}.meta.json").write_text(meta)
        written.append(out)
    return written


def main(argv: list[str]) -> None:
    version = None
    if argv[:1] == ["--version"]:
        version, argv = argv[1], argv[2:]
    names = argv or list(SCENARIOS)
    pinned = PINS["mistral-vibe"].version
    folder = FIXTURES if version in (None, pinned) else FIXTURES / f"v{version}"
    folder.mkdir(parents=True, exist_ok=True)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    files = manifest.setdefault("files", {})
    with cli_version("mistral-vibe", version) as used:
        for name in names:
            for path in _record(name, folder):
                files[path.name] = f"recorded by scripts/record_mistral_vibe_fixtures.py: {name}"
                print(f"wrote {path.relative_to(ROOT)}")
    manifest.update(cli="mistral-vibe", version=used)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
