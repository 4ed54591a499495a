"""Approving the agent's code for the user's kernel, on every agent that takes the kernel's
tools (the real pinned CLIs, scripted model, a real IPython kernel): the time
``run.answer("approve")`` takes to return for code that runs ``CALL_SECONDS``, beside the
time to the call's result, medians of several runs. And the chat header's switch that gives
a running agent the tools (``kernel-switch``): a restart in place beside a stop and a new run.

``run.answer`` returns once the approval reads answered. Several CLIs record an approval
only with the call's result; the run takes the call's beginning, which the kernel server
notes, as the answer instead, so the figure should be far below ``CALL_SECONDS``.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from _support import Row

from lab_widget import Run
from lab_widget.scripted import Reply, Rule, ScriptedModel
from tests.support.kernel_calls import RUN_PYTHON, model_call
from tests.support.kernels import running_kernel

CALL_SECONDS = 8.0

CODE = f"import time\ntime.sleep({CALL_SECONDS})\nslept = True"


def _one(provider: str, connection_file: str) -> tuple[float, float]:
    call = model_call(provider, RUN_PYTHON[provider], {"code": CODE})
    model = ScriptedModel(rules=[Rule("sleep", [Reply(tools=[call]), Reply("Done.")])])
    work = Path(tempfile.mkdtemp(prefix="bench-kernel-"))
    with Run(provider, cwd=work, model=model, kernel=connection_file) as run:
        run.send("please sleep a while", ready_timeout=90)
        if run.wait(timeout=120) != "question":
            raise RuntimeError(f"{provider}: no approval ({run.state})")
        started = time.perf_counter()
        final = run.answer("approve", timeout=CALL_SECONDS * 4)
        answered = time.perf_counter() - started
        if final.status != "answered":
            raise RuntimeError(f"{provider}: the approval ended {final.status}")
        run.wait_for(
            lambda r: any(m.tool and m.tool.status != "running" for m in r.messages),
            CALL_SECONDS * 4,
        )
        result = time.perf_counter() - started
        run.wait(timeout=120)
    return answered, result


def kernel(runs: int, providers: list[str]) -> list[Row]:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    rows: list[Row] = []
    with running_kernel() as manager:
        for provider in providers:
            times = [_one(provider, manager.connection_file) for _ in range(runs)]
            answered = [a for a, _ in times]
            results = [r for _, r in times]
            rows.append(
                (
                    f"{provider}: approve kernel code that runs {CALL_SECONDS:.0f} s "
                    f"(median of {runs})",
                    f"answered in {statistics.median(answered):.2f} s (max "
                    f"{max(answered):.2f}); its result at {statistics.median(results):.2f} s",
                )
            )
    return rows


def _switch_once(provider: str, connection_file: str) -> tuple[float, float]:
    """Seconds from the switch to the answer of the next prompt: a restart in place, and what
    a user would do without it (stop the run, start a new one with the tools)."""
    model = ScriptedModel(fallback="ok")
    work = Path(tempfile.mkdtemp(prefix="bench-switch-"))
    timed: list[float] = []
    for in_place in (True, False):
        run = Run(provider, cwd=work, model=model)
        try:
            run.send("hello", ready_timeout=90)
            run.wait(timeout=120)
            started = time.perf_counter()
            if in_place:
                run.restart(kernel=connection_file)
            else:
                run.stop()
                run = Run(provider, cwd=work, model=model, kernel=connection_file)
            run.send("and now?", ready_timeout=90)
            if run.wait(timeout=120) != "idle":
                raise RuntimeError(f"{provider}: no answer after the switch ({run.state})")
            timed.append(time.perf_counter() - started)
        finally:
            run.stop()
    return timed[0], timed[1]


def switch(runs: int, providers: list[str]) -> list[Row]:
    """The chat header's kernel tools switch (``run.restart(kernel=...)``) beside a stop and
    a new run with the tools, to the answer of the next prompt; medians of ``runs``."""
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    rows: list[Row] = []
    with running_kernel() as manager:
        for provider in providers:
            times = [_switch_once(provider, manager.connection_file) for _ in range(runs)]
            restart = statistics.median(t for t, _ in times)
            anew = statistics.median(n for _, n in times)
            rows.append(
                (
                    f"{provider}: kernel tools switched on, to the next answer (median of {runs})",
                    f"restart {restart:.2f} s, stop and new run {anew:.2f} s "
                    f"({restart / anew:.2f}x)",
                )
            )
    return rows


PROVIDERS = sorted(RUN_PYTHON)
