"""The benchmark cases; each returns table rows. Medians over repeated runs throughout."""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from _support import (
    Row,
    exchange_lines,
    file_chat,
    ms,
    percentile,
    synthetic_transcript,
    transcript_with_messages,
    view_of,
)

from lab_widget import Run, ScriptedModel, read_transcript
from lab_widget._chat._session import ChatEvent
from lab_widget._run._launch import runner as _runner
from lab_widget._runtime._tailer import Tailer
from lab_widget.provider import RunContext, TranscriptRef, get_provider
from tests.support.local import local_parts


def _median(repeats: int, fn: Callable[[], float]) -> float:
    return statistics.median(fn() for _ in range(repeats))


def _lab_home() -> None:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")


# -- reader throughput -----------------------------------------------------------------


def reader(megabytes: float, repeats: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        size = synthetic_transcript(path, megabytes)
        provider = get_provider("claude-code")

        def read_all() -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            provider.open_reader(TranscriptRef("big", path)).read()
            return time.perf_counter() - wall, time.process_time() - cpu

        def loads_only() -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            with path.open("rb") as f:
                for line in f:
                    json.loads(line)
            return time.perf_counter() - wall, time.process_time() - cpu

        # Interleaved, so both see the same load on a shared machine.
        pairs = [(read_all(), loads_only()) for _ in range(repeats)]
        reader_runs = [r for r, _ in pairs]
        loads_runs = [loads for _, loads in pairs]
        messages = len(read_transcript(path, "claude-code").messages)
    mb = size / 1024 / 1024
    reader_wall = statistics.median(w for w, _ in reader_runs)
    reader_cpu = statistics.median(c for _, c in reader_runs)
    loads_wall = statistics.median(w for w, _ in loads_runs)
    loads_cpu = statistics.median(c for _, c in loads_runs)
    return [
        (
            "reader: transcript",
            f"{mb:.1f} MB, {messages} messages (the real mix: every recorded session, "
            "tool output and thinking at long sessions' sizes)",
        ),
        (
            "reader: throughput (one-shot read)",
            f"{mb / reader_wall:.1f} MB/s wall, {mb / reader_cpu:.1f} MB/s of CPU time",
        ),
        (
            "reader: json.loads per line, same file",
            f"{mb / loads_wall:.1f} MB/s wall, {mb / loads_cpu:.1f} MB/s of CPU time",
        ),
        (
            "reader: share of the practical limit",
            f"{loads_cpu / reader_cpu:.2f} x json.loads in CPU time "
            f"({loads_wall / reader_wall:.2f} x in wall time)",
        ),
    ]


# -- append -> run.messages ------------------------------------------------------------


def _fake_runs(count: int) -> list[Run]:
    work = Path(tempfile.mkdtemp(prefix="bench-work-"))
    runs = [Run("fake", cwd=work) for _ in range(count)]
    for run in runs:
        local_parts(run).chat.wait_ready(30)
    return runs


def _probe_latencies(runs: list[Run], probes: int, gap: float = 0.05) -> list[list[float]]:
    """Append a line to every run's transcript at once; time until each run lists it."""
    out: list[list[float]] = [[] for _ in runs]
    for i in range(probes):
        text = f"probe-{i}"
        seen = [threading.Event() for _ in runs]
        stamps = [0.0] * len(runs)
        unsubscribes = []
        for k, run in enumerate(runs):

            def listener(
                event: ChatEvent,
                k: int = k,
                text: str = text,
                seen: list[threading.Event] = seen,
                stamps: list[float] = stamps,
            ) -> None:
                if any(m.text == text for m in event.changed) and not seen[k].is_set():
                    stamps[k] = time.perf_counter()
                    seen[k].set()

            unsubscribes.append(run.subscribe(listener))
        started = time.perf_counter()
        for run in runs:
            path = local_parts(run).context.runtime_dir / "transcript.jsonl"
            with path.open("a") as f:
                f.write(json.dumps({"type": "assistant", "text": text}) + "\n")
        for k, event in enumerate(seen):
            event.wait(10)
            out[k].append(stamps[k] - started if event.is_set() else 10.0)
        for unsubscribe in unsubscribes:
            unsubscribe()
        time.sleep(gap)
    return out


def append_latency(probes: int) -> list[Row]:
    _lab_home()
    runs = _fake_runs(1)
    try:
        [fake] = _probe_latencies(runs, probes)
    finally:
        for run in runs:
            run.stop()
        _runner().kill_server()

    # The Claude Code reader behind the same tailer and chat brain, on a file we append to.
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "projects"
        folder.mkdir()
        path = folder / "session.jsonl"
        transcript_with_messages(path, 100)
        chat = file_chat(path, Path(tmp))
        chat.refresh()
        tailer = Tailer(lambda: [folder], chat.refresh).start()
        time.sleep(0.3)  # the watch is armed
        claude: list[float] = []
        try:
            for i in range(probes):
                lines = exchange_lines(10_000 + i)
                seen = threading.Event()
                want = len(chat.messages) + len(lines)
                unsubscribe = chat.subscribe(
                    lambda e, want=want, seen=seen: (
                        seen.set() if len(chat.messages) >= want else None
                    )
                )
                started = time.perf_counter()
                with path.open("a") as f:
                    f.write("".join(lines))
                seen.wait(10)
                claude.append(time.perf_counter() - started)
                unsubscribe()
                time.sleep(0.05)
        finally:
            tailer.stop()
    return [
        ("append -> run.messages, fake agent Run", ms(fake)),
        ("append -> messages, Claude reader + tailer", ms(claude)),
    ]


def concurrent(count: int, probes: int) -> list[Row]:
    _lab_home()
    runs = _fake_runs(count)
    try:
        per_run = _probe_latencies(runs, probes)
    finally:
        for run in runs:
            run.stop()
        _runner().kill_server()
    medians = [statistics.median(v) for v in per_run]
    p95s = [percentile(v, 0.95) for v in per_run]
    every = [x for v in per_run for x in v]
    return [
        (f"{count} concurrent fake runs, all appended at once", ms(every)),
        (
            f"{count} concurrent: worst run's p50 / p95",
            f"{max(medians) * 1000:.1f} ms / {max(p95s) * 1000:.1f} ms",
        ),
    ]


# -- cost of one append at a given conversation length ----------------------------------


def append_cost(sizes: list[int], appends: int) -> list[Row]:
    rows: list[Row] = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.jsonl"
            transcript_with_messages(path, size)
            chat = file_chat(path, Path(tmp))
            chat.refresh()
            view, recorder = view_of(chat)
            costs: list[float] = []
            per_message: list[float] = []
            for i in range(appends):
                lines = exchange_lines(10**6 + i)
                with path.open("a") as f:
                    f.write("".join(lines))
                before, count = len(recorder.sizes), len(chat.messages)
                started = time.perf_counter()
                chat.refresh()
                costs.append(time.perf_counter() - started)
                added = max(1, len(chat.messages) - count)
                per_message.append(sum(recorder.sizes[before:]) / added)
            view.close()
        rows.append(
            (
                f"one append at {size} messages (chat + reader + view delta)",
                f"{statistics.median(costs) * 1e6:.0f} us per prompt+answer "
                f"(p95 {percentile(costs, 0.95) * 1e6:.0f} us)",
            )
        )
        rows.append(
            (
                f"bytes to the browser per appended message at {size}",
                f"{statistics.median(per_message):.0f} B",
            )
        )
    return rows


# -- live channel ------------------------------------------------------------------------


def signals_cost(sizes: list[int], repeats: int) -> list[Row]:
    """One refresh's read of a hook spool (signature, dialog, blocked) as a run's spool
    grows, as the run leaves it (swept) and unswept."""
    provider = get_provider("claude-code")
    live = provider.live_signals
    assert live is not None
    rows: list[Row] = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            context = RunContext(run_id="bench", cwd=Path(tmp), runtime_dir=Path(tmp))
            spool = Path(tmp) / "signals"
            spool.mkdir()
            for i in range(size):
                event = "PreToolUse" if i % 2 == 0 else "PostToolUse"
                record = {
                    "hook_event_name": event,
                    "tool_use_id": f"toolu_{i // 2}",
                    "tool_name": "Bash",
                    "tool_input": {"command": "ls"},
                }
                (spool / f"{10**18 + i}-1.json").write_text(json.dumps(record))
            time.sleep(1.1)  # a quiet spool: nothing written in the last second

            def refresh(context: RunContext = context) -> float:
                started = time.perf_counter()
                live.signature(context)
                live.pending_dialog(context)
                live.blocked(context)
                return time.perf_counter() - started

            refresh()
            unswept = statistics.median(refresh() for _ in range(max(5, repeats)))
            live.sweep(context)
            time.sleep(1.1)
            refresh()
            swept = statistics.median(refresh() for _ in range(max(5, repeats)))
            left = sum(1 for _ in spool.iterdir())
        rows.append(
            (
                f"live-channel read per refresh, {size} hook records",
                f"{unswept * 1e6:.0f} us unswept; {swept * 1e6:.0f} us swept ({left} left)",
            )
        )
    return rows


# -- idle CPU ----------------------------------------------------------------------------


def idle_cpu(count: int, seconds: float) -> list[Row]:
    _lab_home()
    runs = _fake_runs(count)
    try:
        time.sleep(1.0)  # start-up work done
        before = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.perf_counter()
        time.sleep(seconds)
        after = resource.getrusage(resource.RUSAGE_SELF)
        wall = time.perf_counter() - wall
        threads = threading.active_count()
    finally:
        for run in runs:
            run.stop()
        _runner().kill_server()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    switches = (after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw)
    return [
        (
            f"CPU of a process holding {count} idle runs",
            f"{cpu:.2f} s over {wall:.0f} s ({100 * cpu / wall:.2f} % of one core), "
            f"{switches / wall:.0f} context switches/s, {threads} threads",
        )
    ]


# -- memory ------------------------------------------------------------------------------


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def memory(megabytes: float) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        size = synthetic_transcript(path, megabytes)
        gc.collect()
        rss_before = _rss_kb()
        reader = get_provider("claude-code").open_reader(TranscriptRef("big", path))
        reader.read()
        gc.collect()
        rss_after = _rss_kb()
        count = len(reader.messages)
        del reader
        gc.collect()
        tracemalloc.start()
        reader = get_provider("claude-code").open_reader(TranscriptRef("big", path))
        reader.read()
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del reader
    mb = size / 1024 / 1024
    return [
        (
            f"memory: {mb:.0f} MB transcript read ({count} messages)",
            f"RSS +{(rss_after - rss_before) / 1024:.0f} MB; tracemalloc held "
            f"{held / 2**20:.0f} MB, peak {peak / 2**20:.0f} MB",
        )
    ]


# -- the real CLI ----------------------------------------------------------------------


def live(sends: int) -> list[Row]:
    _lab_home()
    model = ScriptedModel(fallback="ok")
    workdir = tempfile.mkdtemp(prefix="bench-work-")
    started = time.perf_counter()
    run = Run("claude-code", cwd=workdir, model=model)
    local_parts(run).chat.wait_ready(60)
    ready_s = time.perf_counter() - started
    to_user: list[float] = []
    to_reply: list[float] = []
    try:
        for i in range(sends):
            prompt = f"message {i}"
            seen_user = threading.Event()
            seen_reply = threading.Event()

            def listener(
                event: ChatEvent,
                prompt: str = prompt,
                seen_user: threading.Event = seen_user,
                seen_reply: threading.Event = seen_reply,
            ) -> None:
                for m in event.changed:
                    if m.role == "user" and m.text == prompt:
                        seen_user.set()
                    if m.role == "assistant" and seen_user.is_set():
                        seen_reply.set()

            unsubscribe = run.subscribe(listener)
            t0 = time.perf_counter()
            run.send(prompt)
            seen_user.wait(30)
            to_user.append(time.perf_counter() - t0)
            seen_reply.wait(30)
            to_reply.append(time.perf_counter() - t0)
            unsubscribe()
            run.wait(timeout=30)
    finally:
        run.stop()
        _runner().kill_server()
        model.stop()
    return [
        ("Claude Code: Run(...) to ready (scripted model)", f"{ready_s:.2f} s"),
        ("Claude Code: send -> prompt in run.messages", ms(to_user)),
        ("Claude Code: send -> first reply in run.messages", ms(to_reply)),
    ]
