"""Reading one Claude Code transcript three ways: lab_widget's reader, plain ``json.loads``
per line, and claude-code-log (PyPI), what a user would otherwise reach for.

claude-code-log is never a dependency of lab_widget: it is installed on first use into a
scratch virtual environment outside the repository (``$LAB_WIDGET_BENCH_VENVS``, default
``~/.cache/lab_widget/bench``), pinned, and timed there in a process of its own, on the same
file, inside that process (its start-up is not counted). Its ``load_transcript`` parses and
validates every entry into its models, as lab_widget's reader maps every entry.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _support import Row, synthetic_transcript

from lab_widget.provider import TranscriptRef, get_provider

__all__ = ["CLAUDE_CODE_LOG", "versus"]

CLAUDE_CODE_LOG = "claude-code-log==1.7.0"

_TIMER = """
import json, sys, time
from pathlib import Path
from claude_code_log.converter import load_transcript
path, repeats = Path(sys.argv[1]), int(sys.argv[2])
runs = []
for _ in range(repeats):
    wall, cpu = time.perf_counter(), time.process_time()
    entries = load_transcript(path, silent=True)
    runs.append((time.perf_counter() - wall, time.process_time() - cpu))
print(json.dumps({"runs": runs, "entries": len(entries)}))
"""


def _venv() -> Path:
    """The scratch environment's python, made and filled on first use."""
    home = Path(os.environ.get("LAB_WIDGET_BENCH_VENVS") or Path.home() / ".cache/lab_widget/bench")
    folder = home / CLAUDE_CODE_LOG.replace("==", "-")
    python = folder / "bin" / "python"
    if not python.exists():
        print(f"... installing {CLAUDE_CODE_LOG} into {folder}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", CLAUDE_CODE_LOG], check=True
        )
    return python


def _time(fn: object, repeats: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()  # type: ignore[operator]
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def versus(megabytes: float, repeats: int) -> list[Row]:
    python = _venv()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        mb = synthetic_transcript(path, megabytes) / 1024 / 1024
        provider = get_provider("claude-code")

        def ours() -> None:
            provider.open_reader(TranscriptRef("big", path)).read()

        def loads() -> None:
            with path.open("rb") as f:
                for line in f:
                    json.loads(line)

        ours_wall, ours_cpu = _time(ours, repeats)
        loads_wall, loads_cpu = _time(loads, repeats)
        proc = subprocess.run(
            [str(python), "-c", _TIMER, str(path), str(repeats)],
            capture_output=True,
            text=True,
            check=True,
        )
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    ccl_wall = statistics.median(w for w, _ in found["runs"])
    ccl_cpu = statistics.median(c for _, c in found["runs"])

    def rate(wall: float, cpu: float) -> str:
        return f"{mb / wall:.1f} MB/s wall, {mb / cpu:.1f} MB/s of CPU time"

    def ratio(cpu: float, wall: float) -> str:
        # How many times faster lab_widget's reader is than the other (below 1: slower).
        return f"{cpu / ours_cpu:.2f} x the speed in CPU time ({wall / ours_wall:.2f} x wall)"

    return [
        ("versus: transcript", f"{mb:.1f} MB (Claude Code fixtures repeated), one file"),
        ("versus: lab_widget reader", rate(ours_wall, ours_cpu)),
        ("versus: json.loads per line", rate(loads_wall, loads_cpu)),
        (
            f"versus: {CLAUDE_CODE_LOG} load_transcript",
            f"{rate(ccl_wall, ccl_cpu)} ({found['entries']} entries)",
        ),
        ("versus: lab_widget / json.loads", ratio(loads_cpu, loads_wall)),
        ("versus: lab_widget / claude-code-log", ratio(ccl_cpu, ccl_wall)),
    ]
