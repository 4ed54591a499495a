"""Round trips against ``claude -p``: the same scripted model (burst mode), side by side in
one run. ``claude -p`` is the floor: process start to printed answer, no TUI. Ours is
``Run(...)`` plus the first reply in ``run.messages``, and a later turn (send to the reply
in ``run.messages``), with the pinned TUI's own time to its SessionStart hook beside.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from _support import Row

from lab_widget import Run, ScriptedModel
from lab_widget._chat import ChatEvent
from lab_widget._launch import runner as _runner
from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, find_binary, get_provider

__all__ = ["round_trips"]

PROVIDER = "claude-code"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _claude_p(model: ScriptedModel, rounds: int) -> list[float]:
    """Seconds from ``claude -p`` starting to its exit with the answer printed."""
    provider = get_provider(PROVIDER)
    binary = find_binary(PINS[PROVIDER], provider.meta.display_name)
    folder = Path(tempfile.mkdtemp(prefix="bench-claude-p-"))
    work = folder / "work"
    work.mkdir()
    context = RunContext(run_id="bench-claude-p", cwd=work, runtime_dir=folder / "run")
    context.runtime_dir.mkdir()
    # The isolated home a run gets (onboarded, folder trusted, key approved), no hooks.
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=binary,
            endpoint=Endpoint(base_url=model.base_url, api_key=model.api_key),
        )
    )
    env = {k: v for k, v in os.environ.items() if k not in plan.unset_env}
    env.update(plan.env)
    times = []
    for i in range(rounds):
        started = time.perf_counter()
        done = subprocess.run(
            [str(binary), "-p", f"hello {i}"],
            env=env,
            cwd=work,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        times.append(time.perf_counter() - started)
        if "ok" not in done.stdout:
            raise RuntimeError(f"claude -p did not answer: {done.stdout!r} {done.stderr[-400:]!r}")
    return times


def _session_start_after(run: Run, started_wall: float) -> float | None:
    spool = run._chat.context.runtime_dir / "signals"
    names = sorted(p.name for p in spool.glob("*.json")) if spool.is_dir() else []
    for name in names:
        stamp = int(name.split("-")[0]) / 1e9
        return stamp - started_wall
    return None


def _prompt_hook_after(run: Run, sent_wall: float) -> float | None:
    """Seconds from the send to the CLI's UserPromptSubmit hook (the name's clock)."""
    spool = run._chat.context.runtime_dir / "signals"
    stamps = [
        int(p.name.split("-")[0]) / 1e9
        for p in spool.glob("*.json")
        if '"UserPromptSubmit"' in p.read_text(errors="replace")
    ]
    after = [t - sent_wall for t in stamps if t >= sent_wall]
    return min(after) if after else None


def _turn(run: Run, prompt: str, timeout: float = 60.0) -> threading.Event:
    answered = threading.Event()

    def listener(event: ChatEvent) -> None:
        seen = {m.seq for m in run._chat.messages_locked() if m.role == "user" and m.text == prompt}
        for m in event.changed:
            if m.role == "assistant" and m.kind == "text" and seen and m.seq > min(seen):
                if not answered.is_set():
                    ref = run._chat._follow.ref
                    if ref is not None:
                        # How long after the CLI wrote the line the chat had it.
                        answered.lag = time.time() - ref.path.stat().st_mtime  # type: ignore[attr-defined]
                answered.set()

    unsubscribe = run.subscribe(listener)
    answered.unsubscribe = unsubscribe  # type: ignore[attr-defined]
    return answered


@dataclass
class _Figures:
    first: list[float] = field(default_factory=list)
    hook: list[float] = field(default_factory=list)
    later: list[float] = field(default_factory=list)
    to_model: list[float] = field(default_factory=list)
    to_hook: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)


def _later_turns(run: Run, model: ScriptedModel, round_: int, figures: _Figures) -> None:
    for j in range(3):
        prompt = f"later {round_} {j}"
        answered = _turn(run, prompt)
        asked = len(model.requests)
        sent_at, sent_wall = time.perf_counter(), time.time()
        run.send(prompt)
        if not answered.wait(60):
            raise RuntimeError("no later reply")
        figures.later.append(time.perf_counter() - sent_at)
        lag = getattr(answered, "lag", None)
        if lag is not None:
            figures.lags.append(lag)
        answered.unsubscribe()  # type: ignore[attr-defined]
        arrived = [r.time for r in model.requests[asked:] if r.scripted]
        if arrived:
            figures.to_model.append(arrived[0] - sent_wall)
        submitted = _prompt_hook_after(run, sent_wall)
        if submitted is not None:
            figures.to_hook.append(submitted)
        run.wait(timeout=60)


def _run_round(model: ScriptedModel, round_: int, figures: _Figures) -> None:
    work = tempfile.mkdtemp(prefix="bench-run-")
    started, started_wall = time.perf_counter(), time.time()
    run = Run(PROVIDER, cwd=work, model=model)
    try:
        answered = _turn(run, "first")
        run.send("first")
        if not answered.wait(60):
            raise RuntimeError("no first reply")
        figures.first.append(time.perf_counter() - started)
        answered.unsubscribe()  # type: ignore[attr-defined]
        at = _session_start_after(run, started_wall)
        if at is not None:
            figures.hook.append(at)
        run.wait(timeout=60)
        _later_turns(run, model, round_, figures)
    finally:
        run.stop()


def round_trips(rounds: int) -> list[Row]:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    model = ScriptedModel(fallback="ok", burst=True)
    figures = _Figures()
    try:
        floor = _claude_p(model, rounds)
        for i in range(rounds):
            _run_round(model, i, figures)
    finally:
        _runner().kill_server()
        model.stop()
    first, hook, later = figures.first, figures.hook, figures.later
    to_model, to_hook, lags = figures.to_model, figures.to_hook, figures.lags
    p = _median(floor)
    return [
        ("claude -p round trip (process start to answer, burst model)", f"{p:.2f} s"),
        (
            "Claude Code: Run(...) + first reply in run.messages",
            f"{_median(first):.2f} s = {_median(first) / p:.2f}x claude -p (target <= 1.5x)",
        ),
        ("Claude Code: pinned TUI's own spawn -> SessionStart hook", f"{_median(hook):.2f} s"),
        (
            "Claude Code: later turn, send -> reply in run.messages",
            f"{_median(later) * 1000:.0f} ms (target <= 100 ms + the model's time)",
        ),
        (
            "Claude Code: later turn, send -> UserPromptSubmit hook (paste, Enter, the CLI)",
            f"{_median(to_hook) * 1000:.0f} ms",
        ),
        (
            "Claude Code: later turn, send -> request at the model",
            f"{_median(to_model) * 1000:.0f} ms",
        ),
        (
            "Claude Code: later turn, reply line written -> in run.messages",
            f"{_median(lags) * 1000:.1f} ms",
        ),
    ]
