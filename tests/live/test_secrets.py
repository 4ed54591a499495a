"""Live: an API key given to a run shows up nowhere but where the CLI needs it."""

from __future__ import annotations

import json
import logging
import secrets
import subprocess
from pathlib import Path

import pytest

from lab_widget import Run, ScriptedModel
from tests.support.local import local_parts
from tests.support.recording import RecordingComm

pytestmark = [pytest.mark.usefixtures("claude_binary")]


def files_holding(root: Path, needle: bytes) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        try:
            if path.is_file() and needle in path.read_bytes():
                found.append(path)
        except OSError:
            continue
    return found


def test_api_key_never_leaks(
    lab_home: Path, workdir: Path, comms: list[RecordingComm], caplog: pytest.LogCaptureFixture
) -> None:
    key = "sk-ant-test-" + secrets.token_hex(24)
    needle = key.encode()
    caplog.set_level(logging.DEBUG)
    model = ScriptedModel(api_key=key, fallback="Answer without secrets.")
    run = Run("claude-code", cwd=workdir, model=model)
    try:
        view = run.view
        run.send("hello")
        assert run.wait(timeout=60) == "idle"
        assert run.wait_for(lambda r: r.messages[-1].text == "Answer without secrets.", 10)
        view._on_custom(view, {"kind": "sync"}, [])  # a full snapshot goes out too

        # Widget state, everything sent to the browser, reprs, a notebook's output.
        shown = [
            json.dumps(view.get_state(), default=str),
            *[json.dumps(data, default=str) for c in comms for _, data, _ in c.sent],
            repr(run),
            repr(view),
            str(run.session),
            run.chat().model_dump_json(),
            json.dumps(run._repr_mimebundle_(), default=str),
            run.attach_command,
            run.screen(),
        ]
        assert not [s for s in shown if key in s]
        assert key not in caplog.text

        # Command lines: the tmux panes' and every process's on this machine.
        panes = subprocess.run(
            [
                "tmux",
                "-S",
                str(local_parts(run).terminal.runner.socket_path),
                "list-panes",
                "-a",
                "-F",
                "#{pane_start_command}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert run.id in panes or "claude" in panes
        assert key not in panes
        leaking = []
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                if needle in cmdline.read_bytes():
                    leaking.append(cmdline)
            except OSError:
                continue
        assert not leaking

        # Files: nothing beside the socket (the env file is read and deleted at start), and
        # in the run's folder only the CLI's own home may hold it.
        assert not files_holding(local_parts(run).terminal.runner.socket_path.parent, needle)
        runtime = lab_home / "runs" / run.id
        outside_home = [p for p in files_holding(runtime, needle) if "home" not in p.parts]
        assert not outside_home
        assert not files_holding(workdir, needle)
    finally:
        run.stop()
