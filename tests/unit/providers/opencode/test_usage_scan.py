"""The usage-only fast path counts every recorded OpenCode session exactly as the full
reader does: the same totals, per model and scope, sub-agents included, from each version's
own store (the pinned event log, older versions' ``message`` / ``part`` rows and JSON
files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from tests.conformance.kits import OpenCodeStore
from tests.support.paths import FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read
from tests.unit.providers.opencode.test_transcript import RECORDED, Recorded

OPENCODE = FIXTURES / "opencode"
STORE = OpenCodeStore()
EVENT_LOGS = sorted(OPENCODE.glob("*.jsonl"))
OLDER = [
    (recorded, path.name.removesuffix(".store.jsonl"))
    for recorded in RECORDED
    if not recorded.pinned
    for path in sorted(recorded.folder.glob("*.store.jsonl"))
]


def _same(ref: TranscriptRef) -> None:
    assert_scan_counts_as_read("opencode", ref)


@pytest.mark.parametrize("path", EVENT_LOGS, ids=lambda p: p.name)
def test_the_usage_scan_totals_as_the_reader_does(path: Path, tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    data = path.read_bytes()
    ref = STORE.ref(db, data, path.stem)
    STORE.write(ref, data)
    agents = path.with_name(f"{path.stem}.agents")
    for child in sorted(agents.glob("*.jsonl")):
        STORE.write(TranscriptRef(child.stem, db), child.read_bytes())
    _same(ref)
    if agents.is_dir():
        fast = get_provider("opencode").usage_summary(ref)
        assert {m.scope for m in fast.models} == {"main", "subagent"}


@pytest.mark.parametrize(
    ("recorded", "scenario"), OLDER, ids=[f"{r.version}-{s}" for r, s in OLDER]
)
def test_older_versions_stores_total_as_the_reader_does(
    recorded: Recorded, scenario: str, tmp_path: Path
) -> None:
    refs = recorded.lay_out(scenario, tmp_path / "data")
    assert refs
    for ref in refs:
        _same(ref)


def test_every_version_is_covered() -> None:
    assert {r.version for r, _ in OLDER} == {r.version for r in RECORDED if not r.pinned}
    assert len({r.version for r, _ in OLDER}) >= 4
