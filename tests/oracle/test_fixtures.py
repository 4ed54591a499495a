"""Oracle: on every recorded Claude Code session of every version, ccusage's token totals
equal ours — sub-agents, thinking, compaction, one-hour cache writes and old versions' partial
usage included.

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
from lab_widget._reading._pricing import estimate_cost
from lab_widget.schema import Usage
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
    assert without_lifetimes(ours) == report.usage, report.totals
    # Where both price tables know every model of the session, the estimates agree too.
    if session.cost_usd_estimate is not None and report.cost and not report.missing_pricing:
        theirs = Decimal(repr(report.cost))
        assert abs(session.cost_usd_estimate - theirs) <= Decimal("0.02") * theirs, (
            session.cost_usd_estimate,
            theirs,
        )


def without_lifetimes(usage: Usage) -> Usage:
    """``usage`` as ccusage's report has it: cache writes whole, not split by lifetime (it
    prices the two apart, as its cost shows, but reports their sum)."""
    return usage.model_copy(update={"cache_write_1h_tokens": 0})


def test_one_hour_cache_writes_and_a_compaction_are_billed_as_ccusage_bills_them(
    tmp_path: Path,
) -> None:
    # The pinned Claude Code wrote this session against the scripted model, its responses
    # writing mostly to the one-hour cache; its compaction's own file beside it is built
    # from the sub-agent grammar (the pinned version writes none on the scripted model).
    # Answered as a model both price tables know, so the costs compare.
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-fixture-work"
    source = CLAUDE / "cache_hour.jsonl"
    files = [source, *sorted(source.with_suffix("").glob("subagents/*.jsonl"))]
    for file in files:
        target = project / file.relative_to(CLAUDE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.read_text().replace("claude-opus-5-5", "claude-sonnet-4-5"))
    session = read_transcript(project / source.name, "claude-code").session
    report = ccusage("claude-code", home)
    assert not report.missing_pricing and report.cost, report.raw
    assert without_lifetimes(session.usage) == report.usage, report.totals
    assert session.usage.cache_write_1h_tokens == 3300  # 2000 + 700 + the compaction's 600
    scopes = {m.scope: m.requests for m in session.models}
    assert scopes == {"main": 3, "compaction": 1}  # a compaction, not a sub-agent's work
    theirs = Decimal(repr(report.cost))
    assert session.cost_usd_estimate is not None
    assert abs(session.cost_usd_estimate - theirs) <= Decimal("0.02") * theirs
    # Priced at one rate, the one-hour writes alone would put the estimate 20 % short.
    one_rate = estimate_cost("claude-sonnet-4-5", without_lifetimes(session.usage))
    assert one_rate is not None and theirs - one_rate > Decimal("0.15") * theirs


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
