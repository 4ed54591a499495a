"""Runs elsewhere: what the worker's pipe costs, side by side with a run in this process.

Three ways to the same agent in one run: in process (``Run``), through a worker on this
machine (``LocalHost``: the protocol without a network), and over real SSH to a second local
user (the tests' sshd, ``tests/support/sshd.py``; needs root). Two figures each:

- append -> messages: a line appended to the fake agent's transcript (on the host) until the
  kernel's run lists it (the tailer, the worker's event, the pipe, the mirror);
- send -> idle: ``run.send`` to ``run.wait`` returning on the pinned Claude Code against the
  scripted model (which stays in this kernel: over a worker its requests cross the pipe).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from _support import Row, ms

from lab_widget import Host, Run, ScriptedModel
from lab_widget._chat._session import ChatEvent
from lab_widget._run._launch import runner as _runner
from tests.support import sshd
from tests.support.remote import close_connections, local_host


def _append_probe(run: Run, path: Path, probes: int) -> list[float]:
    latencies: list[float] = []
    for i in range(probes):
        text = f"probe-{i}"
        seen = threading.Event()
        stamp = [0.0]

        def listener(
            event: ChatEvent,
            text: str = text,
            seen: threading.Event = seen,
            stamp: list[float] = stamp,
        ) -> None:
            if not seen.is_set() and any(m.text == text for m in event.changed):
                stamp[0] = time.perf_counter()
                seen.set()

        unsubscribe = run.subscribe(listener)
        started = time.perf_counter()
        with path.open("a") as f:
            f.write(json.dumps({"type": "assistant", "text": text}) + "\n")
        seen.wait(10)
        latencies.append(stamp[0] - started if seen.is_set() else 10.0)
        unsubscribe()
        time.sleep(0.05)
    return latencies


def _send_to_idle(run: Run, sends: int) -> list[float]:
    run.send("warm up")
    run.wait(timeout=60)
    out: list[float] = []
    for i in range(sends):
        started = time.perf_counter()
        run.send(f"message {i}")
        run.wait(timeout=60)
        out.append(time.perf_counter() - started)
    return out


@contextmanager
def _second_host() -> Iterator[tuple[Host, Callable[[str], Path]] | str]:
    try:
        server = sshd.start(Path(tempfile.mkdtemp(prefix="lab-widget-bench-sshd-")))
    except sshd.SetupError as exc:
        yield str(exc)
        return
    try:
        yield server.host(), server.folder_of_user
    finally:
        close_connections()
        server.stop()


def remote(probes: int, sends: int) -> list[Row]:
    lab_home = Path(tempfile.mkdtemp(prefix="lab-widget-bench-"))
    os.environ["LAB_WIDGET_HOME"] = str(lab_home)
    rows: list[Row] = []
    work = Path(tempfile.mkdtemp(prefix="bench-work-"))
    with _second_host() as second:
        places: list[tuple[str, Host | None, Path]] = [
            ("in process", None, work),
            ("local worker", local_host(lab_home), work),
        ]
        if isinstance(second, str):
            rows.append(("remote over SSH", f"not measured: {second}"))
        else:
            ssh_host, folder_of_user = second
            places.append(("SSH, second user", ssh_host, folder_of_user("bench")))
        try:
            for label, host, cwd in places:
                run = Run("fake", cwd=cwd, host=host)
                try:
                    run.wait_for(lambda r: r.state == "idle" and r.transcript_id is not None, 30)
                    run.send("start")
                    run.wait(timeout=30)
                    path = run.transcript_path
                    assert path is not None
                    rows.append(
                        (
                            f"append -> run.messages, fake agent, {label}",
                            ms(_append_probe(run, path, probes)),
                        )
                    )
                finally:
                    run.stop()
            for label, host, cwd in places:
                model = ScriptedModel(fallback="ok", burst=True)
                run = Run("claude-code", cwd=cwd, model=model, host=host)
                try:
                    rows.append(
                        (f"send -> idle, Claude Code, {label}", ms(_send_to_idle(run, sends)))
                    )
                finally:
                    run.stop()
                    model.stop()
        finally:
            close_connections()
            _runner().kill_server()
    return rows
