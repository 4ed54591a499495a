"""Live: the real pinned Claude Code crashing ends its run at once, with nothing lost."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from lab_widget import Run, RunEndedError, ScriptedModel
from tests.support.local import local_parts


def test_claude_crash_ends_the_run(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(fallback="Still here.")
    run = Run("claude-code", cwd=workdir, model=model)
    try:
        run.send("before the fault")
        assert run.wait(timeout=60) == "idle"
        assert run.wait_for(lambda r: r.messages[-1].text == "Still here.", 10)
        pid = local_parts(run).terminal.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # the pane's process is the CLI (the launcher exec'd it)
        started = time.monotonic()
        assert run.wait_for(lambda r: r.state == "ended", 2.0), run.state
        assert time.monotonic() - started < 2.0
        local_parts(run).tailer._thread.join(2.0)
        assert not local_parts(run).tailer.running
        with pytest.raises(RunEndedError):
            run.send("anyone?")
        assert [m.text for m in run.messages if m.kind == "text"] == [
            "before the fault",
            "Still here.",
        ]
    finally:
        run.stop()
