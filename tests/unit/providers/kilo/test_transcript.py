"""Unit: what Kilo records its own way (``tests/fixtures/kilo/``, the pinned 7.7.7 and the
older 7.7.2). OpenCode's reader tests read these recordings too (their ``family`` mark in
``tests/unit/providers/opencode/test_transcript.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab_widget.provider import get_provider
from lab_widget.provider.kilo import _compat
from lab_widget.provider.kilo._usage_scan import usage_summary
from tests.support.opencode_recordings import Recorded, recordings, version_of
from tests.support.paths import FIXTURES

KILO = FIXTURES / "kilo"
RECORDED = recordings(KILO)
SCENARIOS = ("hello", "tools", "interrupt", "approve", "reject", "new")


@pytest.fixture(params=RECORDED, ids=repr)
def recorded(request: pytest.FixtureRequest) -> Recorded:
    """Each recorded version of Kilo in turn."""
    return request.param  # type: ignore[no-any-return]


def test_the_pinned_and_an_older_version_were_recorded_from_themselves() -> None:
    assert version_of(KILO) == _compat.VERSION
    assert [r.version for r in RECORDED[1:]] == ["7.7.2"]
    for item in RECORDED[1:]:
        lines = (item.folder / "hello.store.jsonl").read_text().splitlines()
        sessions = [json.loads(x)["row"] for x in lines if json.loads(x)["table"] == "session"]
        assert {s["version"] for s in sessions} == {item.version}


def test_transient_status_parts_are_recorded_and_never_shown(
    recorded: Recorded, tmp_path: Path
) -> None:
    # Kilo writes "⠋ Initializing snapshot…" parts while a turn starts, then removes them.
    text = recorded.folder / ("hello.jsonl" if recorded.pinned else "hello.store.jsonl")
    assert "kilocode.lifecycle" in text.read_text() or not recorded.pinned
    reader = recorded.read("hello", tmp_path)
    assert not any("Initializing" in (m.text or "") for m in reader.messages)


def test_the_user_s_words_are_stored_alone(recorded: Recorded, tmp_path: Path) -> None:
    # Kilo sends <environment_details> after the prompt; its store keeps the words only.
    for scenario in SCENARIOS:
        reader = recorded.read(scenario, tmp_path / scenario)
        users = [m.text or "" for m in reader.messages if m.role == "user"]
        assert users and not any("environment_details" in u for u in users), scenario


def test_usage_scan_equals_the_reader_s_summary(recorded: Recorded, tmp_path: Path) -> None:
    for scenario in SCENARIOS:
        refs = recorded.lay_out(scenario, tmp_path / scenario)
        for ref in refs:
            reader = get_provider("kilo").open_reader(ref)
            reader.read()
            scanned = usage_summary(ref)
            assert scanned.usage == reader.summary.usage, (scenario, ref)
            assert scanned.models == reader.summary.models, (scenario, ref)
