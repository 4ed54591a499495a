"""Warm start: ``Run(prompt=...)`` plus its first reply when a spare (``prestart``) is ready,
beside ``claude -p`` and each CLI's own headless mode, on the same scripted model (burst).

The spare is started and ready before the clock starts: what a notebook gets when it calls
``prestart`` in an earlier cell. Medians, and each as a ratio of ``claude -p``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _support import Row
from startup import HEADLESS, PROVIDERS, _answered, _headless, _median

from lab_widget import Run, ScriptedModel, prestart, spares
from lab_widget._run._launch import runner as _runner
from lab_widget._run._spares import pool

__all__ = ["warm_starts"]


def _warm(provider_id: str, model: ScriptedModel, rounds: int) -> list[float]:
    """Seconds from ``Run(prompt=...)`` over a ready spare to the reply in ``run.messages``."""
    times = []
    for i in range(rounds):
        work = Path(tempfile.mkdtemp(prefix=f"bench-{provider_id}-warm-"))
        prestart(provider_id, cwd=work, model=model)
        deadline = time.monotonic() + 120
        while not spares() or not spares()[0].backend.chat.ready:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{provider_id}: the spare was not ready in 120 s")
            time.sleep(0.05)
        prompt = f"hello {i}"
        started = time.perf_counter()
        run = Run(provider_id, cwd=work, model=model, prompt=prompt)
        try:
            if not run.wait_for(_answered(prompt), 120):
                raise RuntimeError(f"{provider_id}: no answer to {prompt!r}")
            times.append(time.perf_counter() - started)
        finally:
            run.stop()
    return times


def warm_starts(rounds: int, providers: Sequence[str] = PROVIDERS) -> list[Row]:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    model = ScriptedModel(fallback="ok", burst=True)
    rows: list[Row] = []
    try:
        model.start()
        claude = _median(_headless("claude-code", model, rounds))
        rows.append(("claude -p (prompt to printed answer)", f"{claude * 1000:.0f} ms"))
        for provider_id in providers:
            try:
                own = _median(_headless(provider_id, model, rounds))
                warm = _median(_warm(provider_id, model, rounds))
            except Exception as exc:  # one CLI's failure must not lose the others' figures
                rows.append((f"{provider_id}: FAILED", str(exc)))
                continue
            name = HEADLESS[provider_id][0]
            done = [
                (
                    f"{provider_id}: Run(prompt=...) + first reply, spare ready",
                    f"{warm * 1000:.0f} ms ({warm / claude:.2f}x claude -p)",
                ),
                (f"{provider_id}: {name}", f"{own * 1000:.0f} ms ({own / claude:.2f}x claude -p)"),
            ]
            rows += done
            for row in done:
                print(" | ".join(row), file=sys.stderr, flush=True)
    finally:
        pool.stop_all()
        _runner().kill_server()
        model.stop()
    return rows
