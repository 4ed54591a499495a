"""History and session summaries over a folder of many sessions, for each of the four agents,
against ccusage reading the same files: listing (``history``), the usage-only summaries
(``SessionList.summaries``: every session's ``SessionInfo.summary``, read together), and the
full read for comparison; ccusage's ``<agent> session --json --offline`` report, process
start to exit, beside, as a ratio (> 1: ours is faster).

Each history is built from that agent's recorded sessions, repeated with fresh ids up to the
size asked for, laid out where the agent keeps them (Claude Code's projects folder, Codex's
``sessions/YYYY/MM/DD``, Gemini CLI's project ``chats/``, OpenCode's SQLite store with its
``event``, ``message`` and ``part`` tables, as the pinned 1.18.33 keeps them).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from _support import ROOT, Row, fixture_entries, fresh

from lab_widget import history
from lab_widget.provider.claude_code._files import project_slug
from tests.support.oracle import ccusage

__all__ = ["summaries"]

FIXTURES = ROOT / "tests" / "fixtures"


@dataclass(frozen=True)
class Home:
    """A built history: the home ccusage reads, the folder the sessions ran in, what our side's
    environment needs to find them, and how much was written."""

    home: Path
    work: Path
    env: dict[str, str]
    written: int


def _claude_session(path: Path, megabytes: float) -> int:
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


def _claude(base: Path, sessions: int, megabytes: float) -> Home:
    work = base / "work"
    project = base / ".claude" / "projects" / project_slug(str(work.resolve()))
    project.mkdir(parents=True)
    written = sum(
        _claude_session(project / f"session-{i:04d}.jsonl", megabytes / sessions)
        for i in range(sessions)
    )
    return Home(base, work, {"CLAUDE_CONFIG_DIR": str(base / ".claude")}, written)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _codex_round(
    body: list[dict[str, Any]], final: dict[str, int], round_: int
) -> Iterator[dict[str, Any]]:
    """One repeat of a rollout's body, later by ``round_`` ten minutes: its running token
    totals moved on by the rounds before (Codex's totals only grow within a session), its
    times moved on (ccusage counts a repeated event once)."""
    for line in body:
        out = line
        stamp = line.get("timestamp")
        if isinstance(stamp, str) and round_:
            moved_at = datetime.fromisoformat(stamp) + timedelta(minutes=10 * round_)
            millis = f"{moved_at.microsecond // 1000:03d}"
            out = {**out, "timestamp": f"{moved_at:%Y-%m-%dT%H:%M:%S}.{millis}Z"}
        payload = line.get("payload")
        info = payload.get("info") if isinstance(payload, dict) else None
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if isinstance(total, dict) and round_:
            moved = {k: v + round_ * final.get(k, 0) for k, v in total.items()}
            out = {**out, "payload": {**payload, "info": {**info, "total_token_usage": moved}}}
        yield out


def _codex(base: Path, sessions: int, megabytes: float) -> Home:
    work = base / "work"
    lines = _jsonl(FIXTURES / "codex" / "tools.jsonl")
    meta, body = lines[0], lines[1:]
    totals = [
        line["payload"]["info"]["total_token_usage"]
        for line in body
        if line.get("type") == "event_msg"
        and line["payload"].get("type") == "token_count"
        and isinstance(line["payload"].get("info"), dict)
    ]
    final = totals[-1]
    day = base / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    target = int(megabytes * 1024 * 1024 / sessions)
    written = 0
    for i in range(sessions):
        thread = str(uuid.UUID(int=i + 1))
        head = {**meta, "payload": {**meta["payload"], "id": thread, "cwd": str(work.resolve())}}
        path = day / f"rollout-2026-12-01T10-{i // 60:02d}-{i % 60:02d}-{thread}.jsonl"
        size = 0
        with path.open("w") as f:
            f.write(json.dumps(head, separators=(",", ":")) + "\n")
            round_ = 0
            while size < target:
                for line in _codex_round(body, final, round_):
                    text = json.dumps(line, separators=(",", ":")) + "\n"
                    f.write(text)
                    size += len(text)
                round_ += 1
        written += size
    return Home(base, work, {"CODEX_HOME": str(base / ".codex")}, written)


def _gemini(base: Path, sessions: int, megabytes: float) -> Home:
    work = base / "work"
    lines = _jsonl(FIXTURES / "gemini" / "tools.jsonl")
    header, body = lines[0], lines[1:]
    # A whole-list rewrite ($set.messages) seeds a session at its start; repeats append.
    rewrites = [x for x in body if isinstance(x.get("$set"), dict) and "messages" in x["$set"]]
    body = [x for x in body if x not in rewrites]
    digest = hashlib.sha256(str(work.resolve()).encode()).hexdigest()
    chats = base / ".gemini" / "tmp" / digest / "chats"
    chats.mkdir(parents=True)
    target = int(megabytes * 1024 * 1024 / sessions)
    written = 0
    for i in range(sessions):
        session = str(uuid.UUID(int=i + 1))
        path = chats / f"session-2026-12-01T10-{i // 60:02d}-{session[-8:]}.jsonl"
        size = 0
        with path.open("w") as f:
            # Compact, as the CLI writes its lines (``JSON.stringify``).
            for line in [{**header, "sessionId": session}, *rewrites[:1]]:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
            round_ = 0
            while size < target:
                for line in body:
                    out = {**line, "id": f"{line['id']}-{round_}"} if "id" in line else line
                    text = json.dumps(out, separators=(",", ":")) + "\n"
                    f.write(text)
                    size += len(text)
                round_ += 1
        written += size
    return Home(base, work, {"GEMINI_CLI_HOME": str(base)}, written)


_OPENCODE_ID = re.compile(r"\b(ses|msg|prt|evt)_([A-Za-z0-9]{20,})")


def _renamer(session_id: str, stamp: str) -> Callable[[re.Match[str]], str]:
    """Fresh ids for one repeat that still sort in creation order (the store's ids do)."""

    def rename(match: re.Match[str]) -> str:
        kind, rest = match.group(1), match.group(2)
        return session_id if kind == "ses" else f"{kind}_{stamp}{rest}"

    return rename


def _opencode(base: Path, sessions: int, megabytes: float) -> Home:
    work = base / "work"
    version = FIXTURES / "opencode" / "v1.18.33"  # the pinned version's whole store
    rows = _jsonl(version / "tools.store.jsonl")
    per_round = sum(len(json.dumps(r)) for r in rows)
    rounds = max(1, int(megabytes * 1024 * 1024 / sessions / per_round))
    stamps = [
        r["row"][k]
        for r in rows
        if r["table"] in ("message", "part")
        for k in ("time_created", "time_updated")
    ]
    span = max(stamps) - min(stamps) + 1
    db = base / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    written = 0
    with sqlite3.connect(db) as conn:
        conn.executescript((version / "schema.sql").read_text())
        for i in range(sessions):
            session_id = f"ses_{i:04d}{'x' * 22}"
            for round_ in range(rounds):
                rename = _renamer(session_id, f"{i:04d}{round_:04d}")
                for raw in rows:
                    text = _OPENCODE_ID.sub(rename, json.dumps(raw))
                    row = json.loads(text)
                    table, values = row["table"], row["row"]
                    if table == "session":
                        if round_:
                            continue
                        values["directory"] = str(work.resolve())
                        values["time_created"] += i
                    if table == "event":
                        values["seq"] += round_ * len(rows)
                    if table in ("message", "part"):
                        # Each repeat later than the one before, as a session's turns are.
                        values["time_created"] += round_ * span
                        values["time_updated"] += round_ * span
                    written += len(text)
                    marks = ", ".join("?" * len(values))
                    columns = ", ".join(f"`{c}`" for c in values)
                    conn.execute(
                        f"INSERT INTO `{table}` ({columns}) VALUES ({marks})", list(values.values())
                    )
    conn.close()
    env = {"XDG_DATA_HOME": str(base / ".local" / "share")}
    return Home(base, work, env, written)


BUILDERS: dict[str, Callable[[Path, int, float], Home]] = {
    "claude-code": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "opencode": _opencode,
}


def _timed(repeats: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in (*values, "OPENCODE_DB")}
    os.environ.pop("OPENCODE_DB", None)
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _rows(provider: str, built: Home, sessions: int, repeats: int) -> list[Row]:
    built.work.mkdir(exist_ok=True)
    with _environment(built.env):
        listed = _timed(repeats, lambda: history(built.work, provider=provider))
        infos = history(built.work, provider=provider)
        assert len(infos) == sessions, (provider, len(infos))
        full = _timed(1, lambda: [i.open() for i in infos])
        found = infos.summaries()
        assert found == [i.summary() for i in infos], provider  # together as one by one
        ours = sum((s.usage for s in found[1:]), found[0].usage)
    report = ccusage(provider, built.home)
    # Ours and ccusage's in turns, so a change of the machine's load falls on both alike.
    fast_runs: list[float] = []
    their_runs: list[float] = []
    fast_cpu: list[float] = []
    their_cpu: list[float] = []
    loads: list[float] = []
    for _ in range(repeats):
        with _environment(built.env):
            started = time.process_time()
            fast_runs.append(_timed(1, infos.summaries))
            fast_cpu.append(time.process_time() - started)
        started = _children_cpu()
        their_runs.append(_timed(1, lambda: ccusage(provider, built.home)))
        their_cpu.append(_children_cpu() - started)
        loads.append(os.getloadavg()[0])
    fast, theirs = statistics.median(fast_runs), statistics.median(their_runs)
    cpu, their_cpu_median = statistics.median(fast_cpu), statistics.median(their_cpu)
    agree = ours == report.usage
    size = f"{sessions} sessions, {built.written / 1e6:.0f} MB"
    return [
        (f"{provider}: history listing ({size})", f"{listed * 1000:.0f} ms"),
        (f"{provider}: session summaries, usage-only", f"{fast:.3f} s"),
        (f"{provider}: session summaries, full read", f"{full:.2f} s"),
        (f"{provider}: ccusage session --json --offline", f"{theirs:.3f} s"),
        (
            f"{provider}: summaries vs ccusage (same files, in turns; > 1 = faster)",
            f"{theirs / fast:.2f}x (median of {repeats}; per turn "
            + ", ".join(f"{t / f:.2f}x" for f, t in zip(fast_runs, their_runs, strict=True))
            + f"; load {min(loads):.2f}-{max(loads):.2f}; tokens "
            f"{'agree' if agree else 'DIFFER'}: {ours.total} vs {report.usage.total}; "
            f"full read {theirs / full:.2f}x)",
        ),
        (
            f"{provider}: CPU time, summaries vs ccusage (its process and threads)",
            f"{cpu * 1000:.0f} ms vs {their_cpu_median * 1000:.0f} ms: "
            f"{their_cpu_median / cpu:.2f}x (medians of {repeats})",
        ),
    ]


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (user and system), threads included."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def summaries(
    sessions: int, megabytes: float, repeats: int, providers: list[str] | None = None
) -> list[Row]:
    """The rows of every agent's history (``megabytes`` per agent, in ``sessions`` sessions)."""
    out: list[Row] = [("load average before (1/5/15 min)", _load())]
    for provider in providers or list(BUILDERS):
        base = Path(tempfile.mkdtemp(prefix=f"bench-history-{provider}-"))
        (base / "work").mkdir()
        built = BUILDERS[provider](base, sessions, megabytes)
        out += _rows(provider, built, sessions, repeats)
    out.append(("load average after (1/5/15 min)", _load()))
    return out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
