"""Oracle: the usage-only summaries (``SessionInfo.summary``, what history totals with)
equal ccusage's token totals on every recorded Codex, Gemini CLI, OpenCode and Copilot CLI
session that ccusage 20.0.24 reads, each laid out where its CLI keeps it in a home of its own.

Where ccusage reads: Codex's rollouts (``CODEX_HOME/sessions/YYYY/MM/DD``, a sub-agent's
rollout beside its parent's, which ccusage 20.0.24 leaves out of its report: there the main
thread's tokens are compared); Gemini CLI's session files (``<tmp>/<project>/chats/``, event logs
and older one-JSON documents); OpenCode's ``message`` rows and, before the SQLite store, its
``storage/message`` files: every recorded whole store, the pinned 1.18.33's (``v1.18.33/``,
its rows beside its event log) included. The pinned version's event-log fixtures alone are
outside ccusage's reach: they are compared by the unit tests with the full read instead
(``tests/unit/providers/opencode/test_usage_scan.py``). Copilot CLI's sessions
(``COPILOT_HOME/session-state/<id>/events.jsonl``) that ended: ccusage counts only a
session's ``session.shutdown`` totals.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.provider.codex._rollouts import is_subagent, read_meta
from lab_widget.provider.gemini._files import read_header
from lab_widget.schema import Usage
from tests.support.opencode_recordings import RECORDED, Recorded
from tests.support.oracle import ccusage
from tests.support.paths import FIXTURES


def _codex_sessions() -> list[Path]:
    found = []
    for path in sorted((FIXTURES / "codex").rglob("*.jsonl")):
        meta = None if path.name.endswith(".hooks.jsonl") else read_meta(path)
        if meta is not None and not is_subagent(meta):
            found.append(path)
    return found


CODEX = _codex_sessions()
GEMINI = sorted(
    p
    for p in [*(FIXTURES / "gemini").rglob("*.jsonl"), *(FIXTURES / "gemini").rglob("*.json")]
    if not p.name.endswith(".hooks.jsonl")
    and p.name != "manifest.json"
    and not p.parent.name.endswith(".agents")
)
COPILOT = sorted(
    p for p in (FIXTURES / "copilot").rglob("*.jsonl") if b'"session.shutdown"' in p.read_bytes()
)
"""Copilot CLI sessions that ended (``/clear``, exit): ccusage 20.0.24 counts a session's
``session.shutdown`` totals only, so a session still open has nothing to compare."""

OPENCODE = [
    (recorded, path.name.removesuffix(".store.jsonl"))
    for recorded in RECORDED
    if not recorded.pinned
    for path in sorted(recorded.folder.glob("*.store.jsonl"))
]


def _compact(source: Path, target: Path) -> None:
    """A recorded rollout written back as Codex writes its lines: compact JSON (the recorder
    stored them spaced; ccusage 20.0.24 finds a ``token_count`` only unspaced)."""
    lines = [json.loads(x) for x in source.read_text().splitlines() if x.strip()]
    target.write_text(
        "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n" for x in lines)
    )


def _compare(
    provider: str, refs: list[TranscriptRef], home: Path, scopes: tuple[str, ...] = ()
) -> None:
    """Our usage-only totals of ``refs`` (only the ``scopes`` rows, if given) against
    ccusage's over the whole home."""
    fast = get_provider(provider)
    summaries = [fast.usage_summary(ref) for ref in refs]
    assert fast.usage_summaries(refs) == summaries  # a listing's, read together
    if scopes:
        rows = [m.usage for s in summaries for m in s.models if m.scope in scopes]
        ours = sum(rows, Usage())
    else:
        ours = sum((s.usage for s in summaries[1:]), summaries[0].usage)
    report = ccusage(provider, home)
    if ours.total == 0:
        assert not report.sessions, report.raw  # nothing billed: ccusage lists nothing either
        return
    assert report.sessions, f"ccusage found no session in {home}"
    assert ours == report.usage, report.totals


@pytest.mark.parametrize("path", CODEX, ids=lambda p: str(p.relative_to(FIXTURES / "codex")))
def test_codex_usage_only_totals_equal_ccusage(path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    day = home / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    meta = read_meta(path)
    assert meta is not None
    # Named as Codex names a rollout (ccusage reads only ``rollout-*.jsonl``).
    name = path.name if path.name.startswith("rollout-") else f"rollout-{meta['id']}.jsonl"
    main = day / name
    _compact(path, main)
    for other in sorted(path.parent.glob("rollout-*.jsonl")):
        if other != path:  # a sub-agent's rollout beside its parent's (they share a folder)
            _compact(other, day / other.name)
    ref = TranscriptRef(path.stem, main)
    subagents = [m for m in get_provider("codex").usage_summary(ref).models if m.scope != "main"]
    if subagents:
        # ccusage 20.0.24 counts none of a sub-agent's rollout (the recorded sub-agent's
        # 12849 tokens are missing from its report): the main thread's tokens must agree,
        # and the sub-agent's are ours alone, as the vendor bills them.
        assert sum(m.usage.total for m in subagents) > 0
        _compare("codex", [ref], home, scopes=("main",))
        return
    _compare("codex", [ref], home)


@pytest.mark.parametrize("path", GEMINI, ids=lambda p: str(p.relative_to(FIXTURES / "gemini")))
def test_gemini_usage_only_totals_equal_ccusage(path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / hashlib.sha256(b"/fixture/work").hexdigest() / "chats"
    chats.mkdir(parents=True)
    target = chats / f"session-2026-12-01T15-00-{path.stem}{path.suffix}"
    shutil.copy(path, target)
    agents = path.with_name(f"{path.stem}.agents")
    if agents.is_dir():
        header = read_header(path)
        assert header is not None
        shutil.copytree(agents, chats / str(header["sessionId"]))
    _compare("gemini", [TranscriptRef(path.stem, target)], home)


@pytest.mark.parametrize(
    ("recorded", "scenario"), OPENCODE, ids=[f"{r.version}-{s}" for r, s in OPENCODE]
)
def test_opencode_usage_only_totals_equal_ccusage(
    recorded: Recorded, scenario: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    refs = recorded.lay_out(scenario, home / ".local" / "share")
    _compare("opencode", refs, home)


@pytest.mark.parametrize("path", COPILOT, ids=lambda p: str(p.relative_to(FIXTURES / "copilot")))
def test_copilot_usage_only_totals_equal_ccusage(path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / ".copilot" / "session-state" / path.stem
    folder.mkdir(parents=True)
    shutil.copy(path, folder / "events.jsonl")
    _compare("copilot", [TranscriptRef(path.stem, folder / "events.jsonl")], home)


def test_copilot_sessions_that_ended_are_recorded() -> None:
    # The comparison above must never be empty.
    assert len(COPILOT) >= 2, COPILOT
