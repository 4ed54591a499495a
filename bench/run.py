"""Benchmarks, run on demand (``make bench``); they print figures and never pass or fail.

Figures are medians over repeated runs: this machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab_widget import Run, ScriptedModel, read_transcript  # noqa: E402
from lab_widget._chat import ChatEvent  # noqa: E402
from lab_widget._run import _runner  # noqa: E402
from lab_widget.provider import TranscriptRef, get_provider  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "claude-code"


def synthetic_transcript(path: Path, megabytes: float) -> int:
    """Repeat the recorded tool conversation (fresh ids each time) up to ``megabytes``."""
    lines = [json.loads(line) for line in (FIXTURES / "tools.jsonl").read_text().splitlines()]
    target = int(megabytes * 1024 * 1024)
    written = 0
    with path.open("w") as f:
        round_ = 0
        while written < target:
            round_ += 1
            for original in lines:
                entry = dict(original, uuid=str(uuid.uuid4()))
                message = entry.get("message")
                if isinstance(message, dict) and "id" in message:
                    entry["message"] = dict(message, id=f"{message['id']}-{round_}")
                line = json.dumps(entry) + "\n"
                f.write(line)
                written += len(line)
    return written


def median_of(runs: int, fn: Callable[[], float]) -> float:
    return statistics.median(fn() for _ in range(runs))


def bench_reader(megabytes: float, repeats: int) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        size = synthetic_transcript(path, megabytes)
        provider = get_provider("claude-code")

        def read_all() -> float:
            started = time.perf_counter()
            reader = provider.open_reader(TranscriptRef("big", path))
            reader.read()
            return time.perf_counter() - started

        def loads_only() -> float:
            started = time.perf_counter()
            with path.open("rb") as f:
                for line in f:
                    json.loads(line)
            return time.perf_counter() - started

        reader_s = median_of(repeats, read_all)
        loads_s = median_of(repeats, loads_only)
        messages = len(read_transcript(path, "claude-code").messages)
    mb = size / 1024 / 1024
    return [
        ("transcript size", f"{mb:.1f} MB, {messages} messages"),
        ("reader throughput (one-shot)", f"{mb / reader_s:.1f} MB/s (median of {repeats})"),
        ("json.loads per line, same file", f"{mb / loads_s:.1f} MB/s"),
        ("reader / json.loads", f"{loads_s / reader_s:.2f}x of the practical limit"),
    ]


def bench_send(sends: int) -> list[tuple[str, str]]:
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-bench-")
    model = ScriptedModel(fallback="ok")
    workdir = tempfile.mkdtemp(prefix="bench-work-")
    started = time.perf_counter()
    run = Run("claude-code", cwd=workdir, model=model)
    run._chat.wait_ready(60)
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

    def ms(values: list[float]) -> str:
        q = statistics.quantiles(values, n=20)
        return f"median {statistics.median(values) * 1000:.0f} ms, p95 {q[-1] * 1000:.0f} ms"

    return [
        ("Run(...) to ready (scripted model)", f"{ready_s:.2f} s"),
        (f"send -> prompt in run.messages (n={sends})", ms(to_user)),
        (f"send -> scripted reply in run.messages (n={sends})", ms(to_reply)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sends", type=int, default=20)
    parser.add_argument("--only", choices=["reader", "send"])
    args = parser.parse_args()
    rows = [
        ("machine", f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}")
    ]
    if args.only in (None, "reader"):
        rows += bench_reader(args.megabytes, args.repeats)
    if args.only in (None, "send"):
        rows += bench_send(args.sends)
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
