"""Unit: the chat brain's state rule over every combination of its facts, and how each
provider reads an approval's outcome from the call's result (recorded fixtures)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, get_args

import pytest

from lab_widget import read_transcript
from lab_widget._chat._state import StateFacts, derive_state
from lab_widget.provider import get_provider
from lab_widget.provider._seam import AgentProvider
from lab_widget.provider.opencode._transcript import OpenCodeTranscriptReader
from lab_widget.schema import State, ToolCall
from tests.conformance.kits import OpenCodeStore
from tests.support.fake_provider import FakeProvider
from tests.support.paths import FIXTURES

ANY = object()
READER_STATES = [s for s in get_args(State) if s != "ended"]  # a reader never says ended

# The rule as a table, first match wins; columns: ended, start_blocked, dialog_pending,
# reader_state, live_blocked, interrupted, send_pending.
RULES: list[tuple[tuple[Any, ...], State]] = [
    ((True, ANY, ANY, ANY, ANY, ANY, ANY), "ended"),
    ((False, True, ANY, ANY, ANY, ANY, ANY), "needs_input"),
    ((False, False, True, ANY, ANY, ANY, ANY), "question"),
    ((False, False, False, "working", "blocked", ANY, ANY), "needs_input"),
    ((False, False, False, "working", None, True, ANY), "idle"),
    ((False, False, False, "working", None, False, ANY), "working"),
    ((False, False, False, "idle", ANY, ANY, True), "working"),
    ((False, False, False, "idle", ANY, ANY, False), "idle"),
    ((False, False, False, "needs_input", ANY, ANY, ANY), "needs_input"),
    ((False, False, False, "question", ANY, ANY, ANY), "question"),
]

COMBINATIONS = list(
    itertools.product(
        [False, True],
        [False, True],
        [False, True],
        READER_STATES,
        [None, "blocked"],
        [False, True],
        [False, True],
    )
)


def expected(facts: tuple[Any, ...]) -> tuple[int, State]:
    for index, (pattern, state) in enumerate(RULES):
        if all(p is ANY or p == f for p, f in zip(pattern, facts, strict=True)):
            return index, state
    raise AssertionError(f"no rule covers {facts}")


@pytest.mark.parametrize("facts", COMBINATIONS)
def test_the_state_rule_over_every_combination(facts: tuple[Any, ...]) -> None:
    ended, start_blocked, dialog, reader, blocked, interrupted, pending = facts
    state = derive_state(
        StateFacts(
            ended=ended,
            start_blocked=start_blocked,
            dialog_pending=dialog,
            reader_state=reader,
            live_blocked=blocked,
            interrupted=interrupted,
            send_pending=pending,
        )
    )
    assert state == expected(facts)[1]


def test_every_rule_of_the_table_decides_some_combination() -> None:
    assert {expected(facts)[0] for facts in COMBINATIONS} == set(range(len(RULES)))


def test_an_empty_live_reason_is_not_a_block() -> None:
    assert derive_state(StateFacts(reader_state="working", live_blocked="")) == "working"


# -- approvals: the provider reads the outcome, not the chat brain -------------------------


def test_the_seam_default_reads_a_failed_call_as_rejected() -> None:
    provider: AgentProvider = FakeProvider()
    assert provider.approval_outcome(ToolCall(id="t", name="Bash", status="ok")) == "approved"
    failed = ToolCall(id="t", name="Bash", status="error", output="exit 1")
    assert provider.approval_outcome(failed) == "rejected"


def tool_calls(provider_id: str, name: str, tmp_path: Path) -> list[ToolCall]:
    path = FIXTURES / provider_id / name
    if provider_id == "opencode":
        store = OpenCodeStore()
        data = path.read_bytes()
        ref = store.ref(tmp_path / "opencode.db", data, "t")
        store.write(ref, data)
        reader = OpenCodeTranscriptReader(ref)
        reader.read()
        messages = reader.messages
    else:
        messages = read_transcript(path, provider=provider_id).messages
    return [m.tool for m in messages if m.tool is not None and m.tool.status != "running"]


@pytest.mark.parametrize("provider_id", ["codex", "gemini", "opencode"])
def test_each_provider_tells_a_declined_call_from_an_approved_one(
    provider_id: str, tmp_path: Path
) -> None:
    provider = get_provider(provider_id)
    approved = tool_calls(provider_id, "approve.jsonl", tmp_path)
    rejected = tool_calls(provider_id, "reject.jsonl", tmp_path / "reject")
    assert approved and rejected
    assert [provider.approval_outcome(t) for t in approved] == ["approved"] * len(approved)
    assert provider.approval_outcome(rejected[-1]) == "rejected"


def test_claude_code_reads_its_declined_result() -> None:
    provider = get_provider("claude-code")
    declined = ToolCall(
        id="t",
        name="Bash",
        status="error",
        output="The user doesn't want to proceed with this tool use. The tool use was rejected "
        "(eg. if it was a file edit, the new_string was NOT written to the file).",
    )
    failed = ToolCall(id="t", name="Bash", status="error", output="Exit code 1")
    assert provider.approval_outcome(declined) == "rejected"
    assert provider.approval_outcome(failed) == "approved"
