"""Answering a two-question dialog on the real pinned CLIs (scripted model): the time from
``run.answer`` to the agent having recorded the answers, median of several runs.

Two figures per agent: answered after a 2 s read (a person reads the form first; the
picker's settle counts from when its hook reported it, so it is spent by then), and
answered the instant the dialog is reported (the whole settle is waited).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import Any

from _support import Row

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

READ_SECONDS = 2.0

_CLAUDE_QUESTIONS = [
    {
        "question": "Which database should we use?",
        "header": "Database",
        "multiSelect": False,
        "options": [
            {"label": "SQLite", "description": "a file"},
            {"label": "Postgres", "description": "a server"},
        ],
    },
    {
        "question": "Which interface?",
        "header": "Interface",
        "multiSelect": False,
        "options": [
            {"label": "CLI", "description": "terminal"},
            {"label": "Web", "description": "browser"},
        ],
    },
]
_CODEX_QUESTIONS = [
    {"id": "db", **{k: v for k, v in _CLAUDE_QUESTIONS[0].items() if k != "multiSelect"}},
    {"id": "ui", **{k: v for k, v in _CLAUDE_QUESTIONS[1].items() if k != "multiSelect"}},
]

_CASES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "claude-code": ("AskUserQuestion", {"questions": _CLAUDE_QUESTIONS}, []),
    "codex": ("request_user_input", {"questions": _CODEX_QUESTIONS}, ["/plan"]),
}


def _one(provider: str, read: float) -> float:
    tool, tool_input, before = _CASES[provider]
    turn = [Reply(tools=[ToolUse(tool, tool_input)]), Reply("Thanks, noted.")]
    model = ScriptedModel(rules=[Rule("ask me", turn)], fallback="ok")
    run = Run(provider, cwd=tempfile.mkdtemp(prefix="bench-dialog-"), model=model)
    try:
        for command in before:
            run.send(command, ready_timeout=90)
        run.send("ask me", ready_timeout=90)
        if run.wait(timeout=90) != "question":
            raise RuntimeError(f"{provider}: no dialog ({run.state})")
        time.sleep(read)
        started = time.perf_counter()
        final = run.answer({"Database": "Postgres", "Interface": "Web"})
        took = time.perf_counter() - started
        if final.outcome != "Database → Postgres; Interface → Web":
            raise RuntimeError(f"{provider}: recorded {final.outcome!r}")
        return took
    finally:
        run.stop()


def dialogs(runs: int) -> list[Row]:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    rows: list[Row] = []
    for provider in _CASES:
        for read, label in ((READ_SECONDS, f"after a {READ_SECONDS:.0f} s read"), (0.0, "at once")):
            times = [_one(provider, read) for _ in range(runs)]
            rows.append(
                (
                    f"{provider}: answer a two-question dialog, {label} (median of {runs})",
                    f"{statistics.median(times):.2f} s (min {min(times):.2f}, "
                    f"max {max(times):.2f})",
                )
            )
    return rows
