"""Round trips against each CLI's own headless mode (``claude -p``, ``codex exec``, ``gemini
-p``, ``opencode run``): the same scripted model (burst mode), side by side in one run. The
headless mode is the floor: process start to printed answer, no TUI. Ours is
``Run(..., prompt=...)`` plus the first reply in ``run.messages`` (the prompt on the TUI's own
command line), beside ``Run(...)`` then ``send()``; and a later turn (send to the reply in
``run.messages``), split into lab_widget's share and the CLI's.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _support import Row

from lab_widget import Run, ScriptedModel
from lab_widget._run._launch import runner as _runner
from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, find_binary, get_provider
from tests.support.local import local_parts

__all__ = ["PROVIDERS", "round_trips"]

HEADLESS: dict[str, tuple[str, Sequence[str]]] = {
    "claude-code": ("claude -p", ("-p",)),
    "codex": ("codex exec", ("exec", "--skip-git-repo-check")),
    "gemini": ("gemini -p", ("-p",)),
    "opencode": ("opencode run", ("run",)),
}
"""Each CLI's headless mode: its name and the words before the prompt."""

PROMPT_RECORD = {
    "claude-code": "UserPromptSubmit",
    "codex": "UserPromptSubmit",
    "gemini": "BeforeAgent",
}
"""The hook record each CLI spools when a prompt is submitted (OpenCode has no spool)."""

PROVIDERS = tuple(HEADLESS)
LATER_TURNS = 3


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _ms(values: Sequence[float]) -> str:
    return f"{_median(values) * 1000:.0f} ms"


def _headless(
    provider_id: str, model: ScriptedModel, rounds: int, spawned: bool = False
) -> list[float]:
    """Seconds from the headless CLI starting to its exit with the answer printed: the
    CLI's command (its npm launcher), or with ``spawned`` the executable a run spawns
    (empty when that is the same)."""
    provider = get_provider(provider_id)
    binary = find_binary(PINS[provider_id], provider.meta.display_name)
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{provider_id}-headless-"))
    work = folder / "work"
    work.mkdir()
    context = RunContext(run_id=f"bench-{provider_id}", cwd=work, runtime_dir=folder / "run")
    context.runtime_dir.mkdir()
    # The isolated home a run gets (onboarded, folder trusted, key approved).
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=binary,
            endpoint=Endpoint(base_url=model.base_url, api_key=model.api_key),
        )
    )
    env = {k: v for k, v in os.environ.items() if k not in plan.unset_env}
    env.update(plan.env)
    name, words = HEADLESS[provider_id]
    if spawned:
        if Path(plan.argv[0]) == binary:
            return []
        binary = Path(plan.argv[0])
    times = []
    for i in range(rounds):
        started = time.perf_counter()
        done = subprocess.run(
            [str(binary), *words, f"hello {i}"],
            env=env,
            cwd=work,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        times.append(time.perf_counter() - started)
        if "ok" not in done.stdout:
            raise RuntimeError(f"{name} did not answer: {done.stdout!r} {done.stderr[-400:]!r}")
    return times


def _answered(prompt: str) -> Callable[[Run], bool]:
    """Whether the run shows an assistant text after the user message ``prompt``."""

    def check(run: Run) -> bool:
        asked = None
        for m in local_parts(run).chat.messages_locked():
            if m.role == "user" and m.text == prompt and asked is None:
                asked = m.seq
            elif asked is not None and m.role == "assistant" and m.kind == "text":
                return True
        return False

    return check


@dataclass
class _Tmux:
    """Each tmux process a run's terminal executes, timed (wraps its runner's ``tmux``)."""

    calls: list[tuple[float, float, str]] = field(default_factory=list)
    """(started, ended) wall clock, and "send-keys" for a call that pressed a key, in order."""

    def wrap(self, run: Run) -> None:
        runner = local_parts(run).terminal.runner
        inner = runner.tmux

        def timed(*args: str, data: bytes | None = None) -> str:
            started = time.time()
            try:
                return inner(*args, data=data)
            finally:
                pressed = "send-keys" if "send-keys" in args else ""
                self.calls.append((started, time.time(), pressed))

        runner.tmux = timed  # type: ignore[method-assign]

    def since(self, wall: float) -> list[tuple[float, float, str]]:
        return [c for c in self.calls if c[0] >= wall]


def _hook_after(run: Run, event: str, wall: float) -> float | None:
    """The wall clock of the first ``event`` record spooled after ``wall`` (its name's)."""
    spool = local_parts(run).chat.context.runtime_dir / "signals"
    stamps = [
        int(p.name.split("-")[0]) / 1e9
        for p in spool.glob("*.json")
        if f'"{event}"' in p.read_text(errors="replace")
    ]
    after = [t for t in stamps if t >= wall]
    return min(after) if after else None


def _process_started(run: Run) -> float | None:
    """When the run's pane process started, in ``CLOCK_BOOTTIME`` seconds (from /proc)."""
    pid = local_parts(run).chat.terminal.pid()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[19]) / os.sysconf("SC_CLK_TCK")  # starttime: ticks since boot


@dataclass
class _Figures:
    headless: list[float] = field(default_factory=list)
    headless_spawned: list[float] = field(default_factory=list)
    """The headless mode by the executable a run spawns, where that is not the command."""
    with_prompt: list[float] = field(default_factory=list)
    then_send: list[float] = field(default_factory=list)
    later: list[float] = field(default_factory=list)
    execs: list[float] = field(default_factory=list)
    """tmux processes per later send, until the CLI's record (or its request)."""
    presses: list[float] = field(default_factory=list)
    """Deliveries of the submit key among them."""
    to_keys: list[float] = field(default_factory=list)
    """send() -> the last tmux command before the CLI's record returned (keys delivered)."""
    keys_to_request: list[float] = field(default_factory=list)
    to_record: list[float] = field(default_factory=list)
    model_time: list[float] = field(default_factory=list)
    """request at the model -> reply line written (the transcript's mtime then)."""
    line_to_messages: list[float] = field(default_factory=list)
    """reply line written -> in run.messages."""
    returned: list[float] = field(default_factory=list)
    """Run(prompt=...) returned (the CLI confirmed the prompt), from its call."""
    session_start: list[float] = field(default_factory=list)
    """The CLI's SessionStart hook record, from Run(prompt=...)'s call."""
    prompt_record: list[float] = field(default_factory=list)
    """The CLI's prompt record, from Run(prompt=...)'s call."""
    first_request: list[float] = field(default_factory=list)
    """The first prompt's request at the model, from Run(prompt=...)'s call."""
    spawned: list[float] = field(default_factory=list)
    """The CLI's process started (its start time in the kernel), from Run(prompt=...)'s call:
    lab_widget's share of the first turn before the CLI runs at all."""


def _first_reply(run: Run, prompt: str, started: float) -> float:
    if not run.wait_for(_answered(prompt), timeout=180):
        raise RuntimeError(f"no first reply: {run.screen()[-600:]}")
    return time.perf_counter() - started


def _written_at(run: Run) -> float | None:
    """When the CLI last wrote the run's transcript (its file's mtime), if one is found."""
    ref = local_parts(run).chat._follow.ref
    if ref is None:
        return None
    # A SQLite store (OpenCode's) is written to its write-ahead log first.
    candidates = [ref.path, ref.path.with_name(ref.path.name + "-wal")]
    if not ref.path.exists():
        # A file named before the CLI settled its name (Codex's pending rollout).
        candidates = [p for w in ref.watch for p in w.rglob(f"*{ref.transcript_id}*")]
    stamps = [p.stat().st_mtime for p in candidates if p.is_file()]
    return max(stamps) if stamps else None


def _later_turn(
    run: Run, model: ScriptedModel, prompt: str, tmux: _Tmux, figures: _Figures, event: str
) -> None:
    seen: dict[str, float] = {}

    def listener(_event: Any) -> None:
        if "messages" not in seen and _answered(prompt)(run):
            seen["messages"] = time.time()
            written = _written_at(run)
            if written is not None:
                seen["line"] = written

    asked = len(model.requests)
    unsubscribe = run.subscribe(listener)
    sent_at, sent_wall = time.perf_counter(), time.time()
    try:
        run.send(prompt)
        if not run.wait_for(lambda r: "messages" in seen, timeout=60):
            raise RuntimeError("no later reply")
    finally:
        unsubscribe()
    figures.later.append(time.perf_counter() - sent_at)
    arrived = [r.time for r in model.requests[asked:] if r.scripted]
    record = _hook_after(run, event, sent_wall) if event else None
    calls = tmux.since(sent_wall)
    until = record or (arrived[0] if arrived else None)
    before = [c for c in calls if until is None or c[0] <= until]
    figures.execs.append(len(before))
    figures.presses.append(len([c for c in before if c[2]]))
    # The first delivery that pressed the submit key (a later press may be what the CLI
    # took: that is then the CLI's time, as an Enter it did not read yet).
    delivered = [c[1] for c in calls if c[2]]
    if record is not None:
        figures.to_record.append(record - sent_wall)
    if delivered and arrived:
        figures.to_keys.append(delivered[0] - sent_wall)
        figures.keys_to_request.append(arrived[0] - delivered[0])
    if arrived and "line" in seen:
        figures.model_time.append(seen["line"] - arrived[0])
        figures.line_to_messages.append(seen["messages"] - seen["line"])
    run.wait(timeout=60)


def _round(provider_id: str, model: ScriptedModel, round_: int, figures: _Figures) -> None:
    started, started_wall = time.perf_counter(), time.time()
    started_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    prompt = f"first {round_}"
    asked = len(model.requests)
    run = Run(provider_id, cwd=tempfile.mkdtemp(prefix="bench-run-"), model=model, prompt=prompt)
    figures.returned.append(time.perf_counter() - started)
    process = _process_started(run)
    if process is not None:
        figures.spawned.append(process - started_boot)
    try:
        figures.with_prompt.append(_first_reply(run, prompt, started))
        run.wait(timeout=60)
        event = PROMPT_RECORD.get(provider_id)
        for into, name in ((figures.session_start, "SessionStart"), (figures.prompt_record, event)):
            at = _hook_after(run, name, started_wall) if name else None
            if at is not None:
                into.append(at - started_wall)
        arrived = [r.time for r in model.requests[asked:] if r.scripted]
        if arrived:
            figures.first_request.append(arrived[0] - started_wall)
    finally:
        run.stop()
    started = time.perf_counter()
    prompt = f"sent {round_}"
    run = Run(provider_id, cwd=tempfile.mkdtemp(prefix="bench-run-"), model=model)
    tmux = _Tmux()
    tmux.wrap(run)
    try:
        run.send(prompt)
        figures.then_send.append(_first_reply(run, prompt, started))
        run.wait(timeout=60)
        for j in range(LATER_TURNS):
            later = f"later {round_} {j}"
            _later_turn(run, model, later, tmux, figures, PROMPT_RECORD.get(provider_id, ""))
    finally:
        run.stop()


def _rows(provider_id: str, figures: _Figures) -> list[Row]:
    name = get_provider(provider_id).meta.display_name
    headless, floor = HEADLESS[provider_id][0], _median(figures.headless)
    first, sent = _median(figures.with_prompt), _median(figures.then_send)
    lab = [a + b for a, b in zip(figures.to_keys, figures.line_to_messages, strict=False)]
    cli = [a + b for a, b in zip(figures.keys_to_request, figures.model_time, strict=False)]
    over = [t - m for t, m in zip(figures.later, figures.model_time, strict=False)]
    rows: list[Row] = [
        (f"{name}: {headless} round trip (process start to answer)", f"{floor:.2f} s"),
        *(
            [
                (
                    f"{name}: ... {headless} by the binary a run spawns (no npm launcher)",
                    f"{_median(figures.headless_spawned):.2f} s",
                )
            ]
            if figures.headless_spawned
            else []
        ),
        (
            f"{name}: Run(prompt=...) + first reply in run.messages",
            f"{first:.2f} s = {first / floor:.2f}x {headless} (target <= 1.5x)",
        ),
        (
            f"{name}: Run() then send() + first reply in run.messages",
            f"{sent:.2f} s = {sent / floor:.2f}x {headless}",
        ),
        (f"{name}: ... Run(prompt=...) returned (prompt confirmed)", _ms(figures.returned)),
        (
            f"{name}: ... Run(prompt=...) call -> the CLI's process started (lab_widget's share)",
            _ms(figures.spawned),
        ),
        (f"{name}: ... Run(prompt=...) call -> SessionStart record", _ms(figures.session_start)),
        (f"{name}: ... Run(prompt=...) call -> prompt record", _ms(figures.prompt_record)),
        (
            # Before the model answers at all: the TUI's own start-up and its handling of the
            # prompt (lab_widget's part before the spawn is a few ms), beside the whole
            # headless round trip.
            f"{name}: ... Run(prompt=...) call -> request at the model",
            f"{_ms(figures.first_request)} = "
            f"{_median(figures.first_request) / floor:.2f}x {headless}'s whole round trip",
        ),
        (f"{name}: later turn, send -> reply in run.messages", _ms(figures.later)),
        (
            f"{name}: later turn minus the model's time (target <= 100 ms)",
            _ms(over),
        ),
        (
            f"{name}: later turn, lab_widget's share (send -> keys delivered + line -> "
            "run.messages)",
            _ms(lab),
        ),
        (f"{name}: ... send() -> paste and Enter delivered", _ms(figures.to_keys)),
        (f"{name}: ... reply line written -> in run.messages", _ms(figures.line_to_messages)),
        (
            f"{name}: later turn, the CLI's share (keys -> its request + the model's time)",
            _ms(cli),
        ),
        (f"{name}: ... Enter delivered -> request at the model", _ms(figures.keys_to_request)),
        (
            f"{name}: ... the model's time (request -> reply line written)",
            _ms(figures.model_time),
        ),
        (
            f"{name}: tmux processes per later send (submit key presses)",
            f"{_median(figures.execs):.0f} ({_median(figures.presses):.0f})",
        ),
    ]
    if figures.to_record:
        rows.append(
            (
                f"{name}: later turn, send -> {PROMPT_RECORD[provider_id]} record",
                _ms(figures.to_record),
            )
        )
    return rows


def round_trips(rounds: int, providers: Sequence[str] = PROVIDERS) -> list[Row]:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    model = ScriptedModel(fallback="ok", burst=True)
    rows: list[Row] = []
    try:
        model.start()
        for provider_id in providers:
            figures = _Figures()
            try:
                figures.headless = _headless(provider_id, model, rounds)
                figures.headless_spawned = _headless(provider_id, model, rounds, spawned=True)
                for i in range(rounds):
                    _round(provider_id, model, i, figures)
            except Exception as exc:  # one CLI's failure must not lose the others' figures
                failed = f"{provider_id}: FAILED after {len(figures.then_send)} rounds"
                rows.append((failed, str(exc)))
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            done = _rows(provider_id, figures)
            rows += done
            rows.append((f"{provider_id}: load average after (1/5/15 min)", load))
            for row in done:  # as it comes: a long run shows its figures early
                print(" | ".join(row), file=sys.stderr, flush=True)
    finally:
        _runner().kill_server()
        model.stop()
    return rows
