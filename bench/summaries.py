"""History and session summaries over a folder of many transcripts, against ccusage reading
the same files: listing (``history``), the usage-only summaries (``SessionInfo.summary``),
and the full read for comparison; ccusage's ``session --json --offline`` report, process
start to exit, beside.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _support import Row, fixture_entries, fresh

from lab_widget import history
from lab_widget.provider.claude_code._files import project_slug
from tests.support.oracle import ccusage

__all__ = ["summaries"]


def _session(path: Path, megabytes: float) -> int:
    """Recorded sessions repeated with fresh ids up to ``megabytes``, written compact as the
    CLI writes them (ccusage's own pre-filter looks for ``"type":"assistant"`` unspaced)."""
    rounds = [fixture_entries(n) for n in ("tools.jsonl", "hello.jsonl", "paste.jsonl")]
    target = int(megabytes * 1024 * 1024)
    written = 0
    with path.open("w") as f:
        round_ = 0
        while written < target:
            for entries in rounds:
                round_ += 1
                for entry in entries:
                    out = fresh(entry, round_)
                    # Each response once, as ccusage keys them (its request id too).
                    if "requestId" in out:
                        out["requestId"] = f"{out['requestId']}-{path.stem}-{round_}"
                    out["sessionId"] = path.stem
                    line = json.dumps(out, separators=(",", ":")) + "\n"
                    f.write(line)
                    written += len(line)
    return written


def _timed(repeats: int, fn: object) -> float:
    assert callable(fn)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def summaries(sessions: int, megabytes: float, repeats: int) -> list[Row]:
    home = Path(tempfile.mkdtemp(prefix="bench-history-"))
    work = home / "work"
    work.mkdir()
    project = home / ".claude" / "projects" / project_slug(str(work.resolve()))
    project.mkdir(parents=True)
    written = 0
    for i in range(sessions):
        written += _session(project / f"session-{i:04d}.jsonl", megabytes / sessions)
    before = os.environ.get("CLAUDE_CONFIG_DIR")
    os.environ["CLAUDE_CONFIG_DIR"] = str(home / ".claude")
    try:
        listed = _timed(repeats, lambda: history(work, provider="claude-code"))
        infos = history(work, provider="claude-code")
        fast = _timed(repeats, lambda: [i.summary() for i in infos])
        full = _timed(1, lambda: [i.open() for i in infos])
        ours = sum((i.summary().usage for i in infos[1:]), infos[0].summary().usage)
    finally:
        if before is None:
            os.environ.pop("CLAUDE_CONFIG_DIR", None)
        else:
            os.environ["CLAUDE_CONFIG_DIR"] = before
    theirs_report = ccusage("claude-code", home)
    theirs = _timed(repeats, lambda: ccusage("claude-code", home))
    agree = ours.total == theirs_report.usage.total
    size = f"{sessions} sessions, {written / 1e6:.0f} MB"
    return [
        (f"history listing ({size})", f"{listed * 1000:.0f} ms"),
        (f"session summaries, usage-only ({size})", f"{fast:.2f} s"),
        (f"session summaries, full read ({size})", f"{full:.2f} s"),
        (f"ccusage claude session --json ({size})", f"{theirs:.2f} s"),
        (
            "summaries vs ccusage (same files; > 1 = faster)",
            f"{theirs / fast:.2f}x (token totals {'agree' if agree else 'DIFFER'}: "
            f"{ours.total} vs {theirs_report.usage.total})",
        ),
    ]
