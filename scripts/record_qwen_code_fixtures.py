"""Record Qwen Code session fixtures from a real Qwen Code against the scripted model.

Usage::

    python scripts/record_qwen_code_fixtures.py [--version X.Y.Z] [scenario ...]

Without ``--version`` the pinned Qwen Code of the tools folder plays every scenario into
``tests/fixtures/qwen-code/``; with it, that version (installed by ``scripts/cli_versions.py``
into its cache, never the repository) records into ``tests/fixtures/qwen-code/v<version>/``.

Each scenario writes its session files (``<scenario>.jsonl``, ``<scenario>_<n>.jsonl`` when
it opens several sessions) and the run's hook records (``<scenario>.hooks.jsonl``). The
run's folder and home become the placeholders ``/fixture/work`` and ``/fixture/home``.
"""

from __future__ import annotations

import argparse
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

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse  # noqa: E402
from lab_widget._run._launch import runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from tests.support.local import local_parts  # noqa: E402

PROVIDER = "qwen-code"
FIXTURES = ROOT / "tests" / "fixtures" / PROVIDER
PLACEHOLDERS = {"work": "/fixture/work", "home": "/fixture/home"}


def script() -> ScriptedModel:
    def call(command: str, then: str) -> list[Reply]:
        return [
            Reply("Let me check.", tools=[ToolUse("Bash", {"command": command})]),
            Reply(then),
        ]

    return ScriptedModel(
        rules=[
            Rule("use a tool", call("echo tool-output-42", "The tool said tool-output-42.")),
            Rule("failing tool", call("ls /no/such/folder", "It failed.")),
            Rule("make a file", call("touch made.txt", "The file is there.")),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _turn(run: Run, text: str, last: str) -> None:
    run.send(text)
    run.wait_for(lambda r: bool(r.messages) and r.messages[-1].text == last, timeout=120)
    run.wait(timeout=60)


def hello(run: Run) -> None:
    _turn(run, "hello", "Hello from the scripted model.")


def tools(run: Run) -> None:
    _turn(run, "please use a tool", "The tool said tool-output-42.")
    _turn(run, "now a failing tool", "It failed.")


def _confirmed(run: Run, answer: str, last: str) -> None:
    run.send("please make a file")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=120)
    run.answer(answer)
    run.wait_for(lambda r: bool(r.messages) and r.messages[-1].text == last, timeout=120)
    run.wait(timeout=60)


def approve(run: Run) -> None:
    _confirmed(run, "approve", "The file is there.")


def clear(run: Run) -> None:
    hello(run)
    run.send("/clear")
    _turn(run, "again", "Second answer.")


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "hello": hello,
    "tools": tools,
    "approve": approve,
    "clear": clear,
}


def _localised(text: str, places: dict[str, Path]) -> str:
    for key, path in places.items():
        text = text.replace(str(path), PLACEHOLDERS[key])
    return text


def record(name: str, out: Path) -> list[Path]:
    """Play one scenario in a fresh lab home; the fixture files it wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work = base / "work"
        work.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        run = Run(PROVIDER, cwd=work, model=script(), name=name)
        try:
            SCENARIOS[name](run)
            epochs = [ref.path for ref in local_parts(run).chat.past_epochs]
            files = [p for p in (*epochs, run.transcript_path) if p is not None and p.exists()]
        finally:
            run.stop()
            runner().kill_server()
        folder = base / "lab" / "runs" / name
        places = {"home": folder / "home", "work": work}
        written: list[Path] = []
        hooks = [_localised(f.read_text(), places) for f in sorted(folder.glob("signals/*.json"))]
        if hooks:
            target = out / f"{name}.hooks.jsonl"
            target.write_text("".join(json.dumps(json.loads(h)) + "\n" for h in hooks))
            written.append(target)
        for index, path in enumerate(files):
            target = out / (f"{name}_{index}.jsonl" if len(files) > 1 else f"{name}.jsonl")
            target.write_text(_localised(path.read_text(), places))
            written.append(target)
        return written


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=PINS[PROVIDER].version)
    parser.add_argument("scenarios", nargs="*")
    args = parser.parse_args(argv)
    pinned = args.version == PINS[PROVIDER].version
    out = FIXTURES if pinned else FIXTURES / f"v{args.version}"
    if not pinned:
        os.environ["LAB_WIDGET_TOOLS"] = str(cli_versions.install(PROVIDER, args.version))
    out.mkdir(parents=True, exist_ok=True)
    for name in args.scenarios or list(SCENARIOS):
        for path in record(name, out):
            print(f"wrote {path.relative_to(ROOT)}")
    manifest = {"provider": PROVIDER, "version": args.version}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
