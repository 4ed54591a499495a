"""Oracle: on every recorded Claude Code session of every version, ccusage's token totals
equal ours — sub-agents, thinking, compaction and old versions' partial usage included.

The fixtures were written by the real CLIs (``scripts/record_fixtures.py``); each session is
laid out as in a config folder (``projects/<slug>/<session>.jsonl`` with its
``<session>/subagents/``) and read by the pinned ccusage, which groups a session's
sub-agents with it, as we roll them up.
"""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from lab_widget import read_transcript
from tests.support.oracle import ccusage
from tests.support.paths import FIXTURES

CLAUDE = FIXTURES / "claude-code"
SESSIONS = sorted(
    p for folder in (CLAUDE, *sorted(CLAUDE.glob("v*"))) for p in folder.glob("*.jsonl")
)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(CLAUDE)))
def test_session_totals_equal_ccusage(path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-fixture-work"
    project.mkdir(parents=True)
    shutil.copy(path, project / path.name)
    sub = path.with_suffix("")
    if sub.is_dir():
        shutil.copytree(sub, project / sub.name)
    session = read_transcript(project / path.name, "claude-code").session
    ours = session.usage
    report = ccusage("claude-code", home)
    if ours.total == 0:
        assert not report.sessions  # nothing billed: ccusage lists no session either
        return
    assert len(report.sessions) == 1, report.raw
    assert ours == report.usage, report.totals
    # Where both price tables know every model of the session, the estimates agree too.
    if session.cost_usd_estimate is not None and report.cost and not report.missing_pricing:
        theirs = Decimal(repr(report.cost))
        assert abs(session.cost_usd_estimate - theirs) <= Decimal("0.02") * theirs, (
            session.cost_usd_estimate,
            theirs,
        )


def test_the_cost_comparison_is_not_empty(tmp_path: Path) -> None:
    # At least the older versions' models are priced by both tables: the check above bites.
    path = CLAUDE / "v2.1.39" / "tools.jsonl"
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-fixture-work"
    project.mkdir(parents=True)
    shutil.copy(path, project / path.name)
    report = ccusage("claude-code", home)
    session = read_transcript(project / path.name, "claude-code").session
    assert session.cost_usd_estimate is not None and report.cost
    assert not report.missing_pricing
