"""Unit: answer validation and the pinned keystroke recipes (no tmux)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import FreeText, read_transcript
from lab_widget._chat._allow import RUN_APPROVE, RunAllowance
from lab_widget._chat._answers import normalise_answer
from lab_widget._reading._frames import to_dataframe
from lab_widget.errors import InvalidAnswerError
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, ToolServer
from lab_widget.provider.claude_code import ClaudeCodeProvider
from lab_widget.provider.claude_code._dialogs import (
    approval_for_tool,
    dialog_for_tool,
    outcome_for_result,
    recipe,
)
from lab_widget.schema import Answer, Dialog, DialogAnswer, Option, Question
from tests.support.questions import DATABASE as DB
from tests.support.questions import FEATURES as FEAT


def ask(*questions: dict[str, object]) -> Dialog:
    dialog = dialog_for_tool("AskUserQuestion", {"questions": list(questions)}, "toolu_1")
    assert dialog is not None
    return dialog


def keys(dialog: Dialog, answer: object) -> list[str]:
    return [s.key or f"text:{s.text}" for s in recipe(dialog, normalise_answer(dialog, answer))]  # type: ignore[arg-type]


def test_ask_user_question_maps_to_a_question_dialog() -> None:
    dialog = ask(DB, FEAT)
    assert dialog.kind == "question" and dialog.tool_id == "toolu_1" and dialog.answerable
    assert [q.header for q in dialog.questions] == ["Database", "Features"]
    assert dialog.questions[1].multi_select and dialog.questions[0].free_text
    assert dialog_for_tool("Bash", {"command": "ls"}, "t") is None


def test_recipes() -> None:
    assert keys(ask(DB), {"Database": "Postgres"}) == ["2"]
    assert keys(ask(DB), {"Database": FreeText("DuckDB")}) == ["3", "text:DuckDB", "Enter"]
    assert keys(ask(FEAT), {"Features": ["Auth", "Search"]}) == [
        "Space",
        "Down",
        "Down",
        "Space",
        "Down",
        "Down",
        "Enter",
        "Enter",
    ]
    assert keys(ask(DB, FEAT), {"Database": "SQLite", "Features": ["Export"]}) == [
        "1",
        "Down",
        "Space",
        "Down",
        "Down",
        "Down",
        "Enter",
        "Enter",
    ]
    plan = dialog_for_tool("ExitPlanMode", {}, "p")
    assert plan is not None
    assert keys(plan, "approve") == ["1", "Enter"] and keys(plan, "reject") == ["2", "Enter"]
    approval = approval_for_tool("Bash", {"command": "rm x"}, "b")
    assert keys(approval, "approve") == ["1"]
    assert keys(approval, "approve_always") == ["2"]
    assert keys(approval, "reject") == ["Escape"]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"Database": "Oracle"}, "not an option"),
        ({"Database": ["SQLite", "Postgres"]}, "one answer"),
        ({"Database": ["SQLite", FreeText("x")]}, "one answer"),
        ({}, "no answer"),
        ({"Nope": "SQLite"}, "no question"),
        ({"Database": FreeText("   ")}, "no answer"),
    ],
)
def test_invalid_answers_are_typed_errors(answer: object, message: str) -> None:
    with pytest.raises(InvalidAnswerError, match=message):
        normalise_answer(ask(DB), answer)  # type: ignore[arg-type]


def test_plan_takes_no_free_text() -> None:
    plan = dialog_for_tool("ExitPlanMode", {"plan": "# P"}, "p")
    assert plan is not None and plan.body == "# P"
    with pytest.raises(InvalidAnswerError, match="takes no typed answer"):
        normalise_answer(plan, {"Plan": FreeText("no")})


def test_recorded_answers_from_the_result() -> None:
    dialog = ask(DB, FEAT)
    result = {
        "answers": {
            "Which database should we use?": "Postgres",
            "Which features do you want?": "Auth, Sync",
        }
    }
    status, outcome, answers = outcome_for_result(dialog, result, "", False)
    assert status == "answered"
    assert outcome == "Database → Postgres; Features → Auth, Sync"
    assert answers is not None
    assert [(a.selected, a.text) for a in answers] == [(["Postgres"], None), (["Auth"], "Sync")]
    assert outcome_for_result(dialog, "User rejected tool use", "rejected", True)[0] == "rejected"


def test_run_settings_keep_questions_open_and_spool_the_signals(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    request = SpawnRequest(
        context=context, binary=Path("claude"), endpoint=Endpoint("http://x", "k")
    )
    plan = ClaudeCodeProvider().plan_spawn(request)
    settings = json.loads(Path(plan.argv[plan.argv.index("--settings") + 1]).read_text())
    assert settings["askUserQuestionTimeout"] == "never"
    assert {"SessionStart", "PreToolUse", "PostToolUse", "PermissionRequest"} <= set(
        settings["hooks"]
    )


def _spool(runtime: Path, *records: dict[str, object]) -> None:
    spool = runtime / "signals"
    spool.mkdir(parents=True)
    for i, record in enumerate(records):
        (spool / f"{1000 + i}-1.json").write_text(json.dumps(record))


def test_a_permission_request_for_a_question_tool_is_still_the_question(tmp_path: Path) -> None:
    # 2.1.332 may raise PermissionRequest for AskUserQuestion while its picker is open
    # (seen in the dialogs notebook under load); the form must stay the question's.
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    call = {"tool_name": "AskUserQuestion", "tool_input": {"questions": [DB]}}
    _spool(
        context.runtime_dir,
        {"hook_event_name": "PreToolUse", "tool_use_id": "toolu_1", **call},
        {"hook_event_name": "PermissionRequest", **call},
    )
    signals = ClaudeCodeProvider().live_signals
    assert signals is not None
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.kind == "question" and dialog.tool_id == "toolu_1"
    assert [q.header for q in dialog.questions] == ["Database"]


def test_a_permission_request_for_a_command_is_an_approval(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    call = {"tool_name": "Bash", "tool_input": {"command": "touch x"}}
    _spool(
        context.runtime_dir,
        {"hook_event_name": "PreToolUse", "tool_use_id": "toolu_2", **call},
        {"hook_event_name": "PermissionRequest", **call},
    )
    signals = ClaudeCodeProvider().live_signals
    assert signals is not None
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.kind == "approval" and dialog.tool_id == "toolu_2"


def _spool_story(steps: list[tuple[str, int, str]]) -> list[dict[str, object]]:
    """Hook records as Claude Code writes them: each call has its own id, and its
    PostToolUse (if any) comes after its PreToolUse."""
    records: list[dict[str, object]] = []
    calls: list[dict[str, object]] = []
    for kind, pick, tool in steps:
        if kind == "Notification":
            records.append({"hook_event_name": kind, "notification_type": tool, "message": "w"})
        elif kind == "SessionStart":
            records.append({"hook_event_name": kind, "transcript_path": f"/t/{pick}.jsonl"})
        elif kind == "PreToolUse" or not calls:
            tool_input: dict[str, object] = (
                {"questions": [DB]} if tool == "AskUserQuestion" else {"command": "ls"}
            )
            call: dict[str, object] = {
                "tool_name": tool,
                "tool_use_id": f"toolu_{len(calls)}",
                "tool_input": tool_input,
            }
            calls.append(call)
            records.append({"hook_event_name": "PreToolUse", **call})
        else:
            call = calls[pick % len(calls)]
            if kind == "PermissionRequest":
                records.append(
                    {
                        "hook_event_name": kind,
                        "tool_name": call["tool_name"],
                        "tool_input": call["tool_input"],
                    }
                )
            else:
                records.append({"hook_event_name": kind, **call})
    return records


EVENTS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "PermissionRequest",
                "Notification",
                "SessionStart",
            ]
        ),
        st.integers(0, 8),
        st.sampled_from(["Bash", "AskUserQuestion", "ExitPlanMode", "permission_prompt"]),
    ),
    max_size=24,
).map(_spool_story)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=EVENTS, sweeps=st.sets(st.integers(0, 24)))
def test_sweeping_the_spool_never_changes_an_answer(
    tmp_path: Path, events: list[dict[str, object]], sweeps: set[int]
) -> None:
    # Two spools get the same records; one is swept at arbitrary points. Every answer the
    # channel gives, after every record, is the same for both.
    root = tmp_path / uuid.uuid4().hex
    plain = RunContext(run_id="p", cwd=root, runtime_dir=root / "plain")
    swept = RunContext(run_id="s", cwd=root, runtime_dir=root / "swept")
    provider = ClaudeCodeProvider()
    signals = provider.live_signals
    assert signals is not None
    for context in (plain, swept):
        (context.runtime_dir / "signals").mkdir(parents=True)
    for i, record in enumerate(events):
        for context in (plain, swept):
            (context.runtime_dir / "signals" / f"{1000 + i}-1.json").write_text(json.dumps(record))
        if i in sweeps:
            signals.sweep(swept)
        assert signals.pending_dialog(swept) == signals.pending_dialog(plain)
        assert signals.blocked(swept) == signals.blocked(plain)
        assert provider.locate_transcript(swept, None) == provider.locate_transcript(plain, None)
    signals.sweep(swept)
    kinds = [r["hook_event_name"] for r in events]
    left = len(list((swept.runtime_dir / "signals").iterdir()))
    # What stays: session records, open calls and the newest of each kind looked back for.
    assert left <= kinds.count("SessionStart") + kinds.count("PreToolUse") + 3


REJECTION = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). To tell you how to "
    "proceed, the user said:\n"
)
"""The pinned Claude Code's rejection text, as its binary writes it before the user's words
(``${rejection}${feedback}``, 2.1.332)."""


def rejected_plan_session(tmp_path: Path, feedback: str) -> Path:
    """A plan-mode session whose plan the user rejects, saying why: the transcript entries
    of the pinned Claude Code's grammar (an ``ExitPlanMode`` call; an error result)."""
    session = str(uuid.uuid4())
    base = {"sessionId": session, "cwd": "/w", "version": "2.1.332", "isSidechain": False}
    entries = [
        {**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "plan it"}},
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "requestId": "req_1",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-opus-5-5",
                "stop_reason": "tool_use",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_plan",
                        "name": "ExitPlanMode",
                        "input": {"plan": "# Plan\n1. Drop the table."},
                    }
                ],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_plan",
                        "is_error": True,
                        "content": REJECTION + feedback
                        if feedback
                        else REJECTION.split(" To", maxsplit=1)[0],
                    }
                ],
            },
            "toolUseResult": "Error: " + (REJECTION + feedback if feedback else "rejected"),
        },
    ]
    path = tmp_path / f"{session}.jsonl"
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
    return path


def test_a_rejected_plan_keeps_the_users_feedback(tmp_path: Path) -> None:
    words = "Keep the table; add a column instead."
    chat = read_transcript(rejected_plan_session(tmp_path, words), "claude-code")
    dialog = next(m.dialog for m in chat.messages if m.dialog is not None)
    assert dialog.kind == "plan" and dialog.status == "rejected"
    assert dialog.answers is not None
    assert [(a.selected, a.text) for a in dialog.answers] == [(["Reject"], words)]
    assert dialog.outcome == f"rejected: {words}"
    # The export and the frame carry the words too.
    text = chat.export(tmp_path / "chat.md").read_text()
    assert words in text
    frame = to_dataframe(chat)
    answers = frame.loc[frame["dialog_status"] == "rejected", "dialog_answers"].iloc[0]
    assert answers == [{"selected": ["Reject"], "text": words}]


def test_a_plan_rejected_without_words_has_no_feedback(tmp_path: Path) -> None:
    chat = read_transcript(rejected_plan_session(tmp_path, ""), "claude-code")
    dialog = next(m.dialog for m in chat.messages if m.dialog is not None)
    assert dialog.status == "rejected" and dialog.outcome == "rejected"
    assert dialog.answers is not None and dialog.answers[0].text is None


def test_a_declined_tool_keeps_the_users_feedback() -> None:
    bash = ask(DB).model_copy(update={"kind": "approval"})
    status, outcome, answers = outcome_for_result(bash, None, REJECTION + "Use rg.", True)
    assert (status, outcome) == ("rejected", "rejected: Use rg.")
    assert answers is not None and answers[0].text == "Use rg."


KERNEL = ToolServer("kernel", ("k",), asking=("run_python", "insert_cell"), reading=("describe",))


def _approval(tool_name: str, tool_id: str = "t1") -> Dialog:
    options = [Option(label="Approve"), Option(label="Reject")]
    return Dialog(
        kind="approval",
        tool_name=tool_name,
        tool_id=tool_id,
        questions=[Question(text="Allow?", options=options)],
    )


@pytest.mark.parametrize(
    "name",
    [
        "mcp__kernel__run_python",
        "kernel-run_python",
        "mcp_kernel_run_python",
        "kernel_run_python",
        "mcp_kernel.run_python",
    ],
)
def test_each_clis_name_for_a_servers_tool_is_offered_approval_for_the_run(name: str) -> None:
    allow = RunAllowance([KERNEL])
    labels = [o.label for o in allow.offer(_approval(name)).questions[0].options]
    assert labels == ["Approve", RUN_APPROVE, "Reject"]


@pytest.mark.parametrize(
    "name", ["Bash", "mcp__other__run_python", "kernel_describe", "run_python"]
)
def test_other_tools_are_asked_as_the_cli_asks_them(name: str) -> None:
    allow = RunAllowance([KERNEL])
    dialog = _approval(name)
    assert allow.offer(dialog) == dialog
    assert allow.take(dialog, RUN_APPROVE) == RUN_APPROVE  # refused later, as any unknown label


def test_approved_for_the_run_each_later_call_of_that_tool_is_due_once() -> None:
    allow = RunAllowance([KERNEL])
    first = _approval("mcp__kernel__run_python")
    answer = DialogAnswer(tool_id="t1", answers=[Answer(selected=[RUN_APPROVE])])
    sent = allow.take(first, answer)
    assert isinstance(sent, DialogAnswer) and sent.answers[0].selected == ["Approve"]
    assert not allow.due(first)  # answered by the user
    later = _approval("mcp__kernel__run_python", "t2")
    assert allow.due(later) and not allow.due(later)  # once per call
    # Another tool of the server still asks until approved for the run itself.
    assert not allow.due(_approval("mcp__kernel__insert_cell", "t3"))
    # A plain approval grants nothing.
    plain = RunAllowance([KERNEL])
    assert plain.take(first, "approve") == "approve" and not plain.due(later)
