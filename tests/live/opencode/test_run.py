"""Live: the real pinned OpenCode binary under real tmux, against the scripted model."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse, history
from lab_widget.provider.opencode import _commands
from tests.support.local import local_parts
from tests.support.processes import run_processes
from tests.support.waiting import retry_until

ASK = {"bash": "ask"}
"""Run option ``permission``: OpenCode asks before every shell command (its default runs them)."""


def tool_turn(path: Path) -> list[Reply]:
    command = f"echo tool-output-42 && touch {path}"
    return [
        Reply("Let me check.", tools=[ToolUse("Bash", {"command": command, "description": "x"})]),
        Reply("The tool said tool-output-42."),
    ]


def script(workdir: Path) -> ScriptedModel:
    return ScriptedModel(
        rules=[
            Rule("use a tool", tool_turn(workdir / "made.txt")),
            Rule("slow", Reply("late answer", delay=30)),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def test_approval_approve_then_reject(lab_home: Path, workdir: Path) -> None:
    run = Run("opencode", cwd=workdir, model=script(workdir), permission=ASK)
    try:
        run.send("please use a tool", ready_timeout=90)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert "tool-output-42" in dialog.body
        assert run.state == "question"
        resolved = run.answer("approve")
        assert resolved.status == "answered", resolved
        assert run.wait_for(
            lambda r: r.messages[-1].text == "The tool said tool-output-42.", timeout=60
        ), run.screen()
        assert (workdir / "made.txt").exists()
        (workdir / "made.txt").unlink()
        assert run.wait(timeout=30) == "idle"
        run.send("use a tool again")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=60), run.screen()
        resolved = run.answer("reject")
        assert resolved.status == "rejected", resolved
        assert run.wait(timeout=60) == "idle", run.screen()
        assert not (workdir / "made.txt").exists()
        assert run.pending_dialog is None
        # Answered approvals show as dialogs that keep their tool call.
        calls = [m.tool for m in run.messages if m.tool is not None]
        assert [c.status for c in calls] == ["ok", "error"], run.messages
        assert "rejected" in (calls[-1].output or "")
    finally:
        run.stop()


_MENU_ROW = re.compile(r"┃ (/\S+)\s{2,}(.+?)\s*┃")


def test_pinned_builtins_match_the_tui_menu(lab_home: Path, workdir: Path) -> None:
    run = Run("opencode", cwd=workdir, model=script(workdir))
    try:
        # Session commands (/fork, /undo, ...) are listed once a session exists.
        run.send("hello", ready_timeout=90)
        assert run.wait(timeout=90) == "idle", run.screen()
        terminal = local_parts(run).terminal
        terminal.type_text("/")
        assert retry_until(lambda: bool(_MENU_ROW.findall(run.screen())), timeout=10), run.screen()
        # The menu shows a window of rows; walking down past the end shows them all.
        rows: set[tuple[str, str]] = set()
        for _ in range(len(_commands.BUILTIN_COMMANDS) + 5):
            rows |= set(_MENU_ROW.findall(run.screen()))
            terminal.keys("Down")
            time.sleep(0.1)
        rows |= set(_MENU_ROW.findall(run.screen()))
    finally:
        run.stop()
    pinned = {(c.name, c.description) for c in _commands.BUILTIN_COMMANDS}
    assert rows == pinned, (
        f"menu drift: missing {sorted(pinned - rows)}, new {sorted(rows - pinned)}"
    )


def test_users_own_config_and_store(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = script(workdir).start()
    user = tmp_path / "user"
    config = user / ".config" / "opencode"
    config.mkdir(parents=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "options": {"baseURL": f"{model.base_url}/v1", "apiKey": "{env:MY_TEST_KEY}"},
        "models": {"mine": {"name": "mine"}},
    }
    (config / "opencode.json").write_text(
        json.dumps({"provider": {"mine": provider}, "model": "mine/mine", "autoupdate": False})
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(user / ".local" / "share"))
    monkeypatch.setenv("XDG_STATE_HOME", str(user / ".local" / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(user / ".cache"))
    monkeypatch.setenv("OPENCODE_DISABLE_AUTOUPDATE", "1")
    # With this machine's real HOME (other CLIs' config in it) the TUI outlived the tmux
    # session's SIGHUP, spinning; with a HOME of its own it exits (docs/compat/opencode.md).
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("MY_TEST_KEY", model.api_key)
    # The user's own setting; without it start-up waits on the model catalog offline.
    monkeypatch.setenv("OPENCODE_DISABLE_MODELS_FETCH", "1")
    run = Run("opencode", cwd=workdir)  # no endpoint: the user's own config and store
    try:
        run.send("hello", ready_timeout=90)
        assert run.wait(timeout=90) == "idle", run.screen()
        assert run.messages[-1].text == "Hello from the scripted model."
        assert run.transcript_path == user / ".local" / "share" / "opencode" / "opencode.db"
        assert run.provider.auth_status().logged_in  # a configured provider counts
    finally:
        run.stop()
        model.stop()
    gone = retry_until(lambda: not run_processes(str(workdir)), timeout=15)
    assert gone, run_processes(str(workdir))


QUESTIONS = {
    "questions": [
        {
            "question": "Which database should we use?",
            "header": "Database",
            "options": [
                {"label": "SQLite", "description": "a file"},
                {"label": "Postgres", "description": "a server"},
            ],
        },
        {
            "question": "Which features?",
            "header": "Features",
            "options": [
                {"label": "Auth", "description": "sign-in"},
                {"label": "Export", "description": "CSV files"},
            ],
            "multiple": True,
        },
    ]
}


def question_script() -> ScriptedModel:
    ask = [Reply("Asking.", tools=[ToolUse("question", QUESTIONS)]), Reply("Thanks for answering.")]
    return ScriptedModel(rules=[Rule("ask me", ask)])


def test_question_tool_answered_from_the_chat(lab_home: Path, workdir: Path) -> None:
    run = Run("opencode", cwd=workdir, model=question_script())
    try:
        run.send("please ask me", ready_timeout=90)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "question" and dialog.tool_name == "question"
        assert [q.header for q in dialog.questions] == ["Database", "Features"]
        assert [q.multi_select for q in dialog.questions] == [False, True]
        assert run.state == "question"
        resolved = run.answer({"Database": "Postgres", "Features": ["Auth", "Export"]})
        assert resolved.status == "answered"
        assert resolved.outcome == "Database → Postgres; Features → Auth, Export"
        assert run.wait(timeout=60) == "idle", run.screen()
        assert run.messages[-1].text == "Thanks for answering."
        assert run.pending_dialog is None
        # The model got the answers as the tool's result.
        last = run.scripted_model.scripted_requests[-1] if run.scripted_model else None
        assert last is not None
        results = [str(m.get("content")) for m in last.body["messages"] if m.get("role") == "tool"]
        assert any('"Which features?"="Auth, Export"' in r for r in results), results
    finally:
        run.stop()


def test_question_tool_takes_a_typed_answer(lab_home: Path, workdir: Path) -> None:
    run = Run("opencode", cwd=workdir, model=question_script())
    try:
        run.send("please ask me", ready_timeout=90)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        resolved = run.answer({"Database": FreeText("DuckDB"), "Features": ["Export"]})
        assert resolved.answers is not None
        assert [(a.selected, a.text) for a in resolved.answers] == [
            ([], "DuckDB"),
            (["Export"], None),
        ]
        assert run.wait(timeout=60) == "idle", run.screen()
    finally:
        run.stop()


EDIT_ASK = {"edit": "ask"}
"""Run option: OpenCode asks before every file edit (its default makes them)."""


def edit_script(workdir: Path) -> ScriptedModel:
    change = {"filePath": str(workdir / "old.txt"), "oldString": "beta", "newString": "gamma"}
    write = {"filePath": str(workdir / "new.txt"), "content": "hello\n"}
    return ScriptedModel(
        rules=[
            Rule(
                "edit the file",
                [Reply("Editing.", tools=[ToolUse("edit", change)]), Reply("Edited.")],
            ),
            Rule(
                "write a file",
                [Reply("Writing.", tools=[ToolUse("write", write)]), Reply("Written.")],
            ),
        ]
    )


def test_edit_permission_approved_from_the_chat(lab_home: Path, workdir: Path) -> None:
    (workdir / "old.txt").write_text("alpha\nbeta\n")
    run = Run("opencode", cwd=workdir, model=edit_script(workdir), permission=EDIT_ASK)
    try:
        run.send("please edit the file", ready_timeout=90)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval" and dialog.tool_name == "edit"
        assert dialog.questions[0].text == "Permission required: apply this edit to old.txt?"
        assert "-beta" in dialog.body and "+gamma" in dialog.body
        assert run.answer("approve").status == "answered"
        assert run.wait(timeout=60) == "idle", run.screen()
        assert (workdir / "old.txt").read_text() == "alpha\ngamma\n"
        assert run.messages[-1].text == "Edited."
    finally:
        run.stop()


def test_write_permission_rejected_leaves_no_file(lab_home: Path, workdir: Path) -> None:
    run = Run("opencode", cwd=workdir, model=edit_script(workdir), permission=EDIT_ASK)
    try:
        run.send("please write a file", ready_timeout=90)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and "+hello" in dialog.body
        assert run.answer("reject").status == "rejected"
        assert run.wait(timeout=60) == "idle", run.screen()
        assert not (workdir / "new.txt").exists()
        assert run.pending_dialog is None
    finally:
        run.stop()


def test_a_task_subagent_shows_under_its_call_while_it_works(lab_home: Path, workdir: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (workdir / name).write_text(name)
    task = {
        "description": "Count files",
        "prompt": "count the files here",
        "subagent_type": "general",
    }
    model = ScriptedModel(
        rules=[
            Rule(
                "count the files here",
                [
                    Reply(
                        "Counting.",
                        tools=[ToolUse("Bash", {"command": "ls", "description": "list"})],
                    ),
                    # A pause in the sub-agent's turn: the chat shows it at work meanwhile.
                    Reply("There are 3 files.", delay=4),
                ],
            ),
            Rule(
                "delegate",
                [Reply("Asking.", tools=[ToolUse("task", task)]), Reply("It found 3 files.")],
            ),
        ]
    )
    run = Run("opencode", cwd=workdir, model=model)
    try:
        run.send("please delegate the count", ready_timeout=90)

        def at_work(r: Run) -> bool:
            return any(m.parent_tool_id and m.tool and m.tool.status == "ok" for m in r.messages)

        assert run.wait_for(at_work, timeout=90), run.screen()
        (call,) = [m.tool for m in run.messages if m.tool and m.tool.name == "task"]
        assert call is not None
        assert call.status == "running" and call.agent_id
        assert run.state == "working"
        assert run.wait_for(
            lambda r: bool(r.messages) and r.messages[-1].text == "It found 3 files.", 90
        ), run.screen()
        assert run.wait(timeout=60) == "idle"
        (call,) = [m.tool for m in run.messages if m.tool and m.tool.name == "task"]
        assert call is not None
        assert call.status == "ok"
        nested = [m for m in run.messages if m.parent_tool_id == call.id]
        assert "There are 3 files." in [m.text for m in nested]
        assert {m.scope for m in run.session.models} == {"main", "subagent"}
        sub = [r for r in model.scripted_requests if r.user_text == "count the files here"]
        assert sum(m.requests for m in run.session.models if m.scope == "subagent") == len(sub)
        # The listing and its summaries read the store's rows, the sub-agent's too, and
        # count what the reader counted from the event log.
        listed = history(workdir, provider="opencode")
        assert [(i.first_prompt, i.model) for i in listed] == [
            ("please delegate the count", run.session.model)
        ]
        (summary,) = listed.summaries()
        assert (summary.usage, summary.models) == (run.session.usage, run.session.models)
    finally:
        run.stop()


def test_a_running_command_shows_its_output_so_far(lab_home: Path, workdir: Path) -> None:
    # Two seconds after the first line: time for a loaded machine to read it while it runs.
    command = "sleep 1; echo a; sleep 2; echo b"
    model = ScriptedModel(
        rules=[
            Rule(
                "timed",
                [
                    Reply(tools=[ToolUse("Bash", {"command": command, "description": "t"})]),
                    Reply("Done."),
                ],
            )
        ]
    )
    run = Run("opencode", cwd=workdir, model=model)
    progress: list[str] = []

    def listen(event: object) -> None:
        for m in getattr(event, "changed", []):
            if m.tool is not None and m.tool.status == "running" and m.tool.progress:
                progress.append(m.tool.progress)

    try:
        run.subscribe(listen)
        run.send("run the timed command", ready_timeout=90)
        assert run.wait_for(lambda r: [m.text for m in r.messages[-1:]] == ["Done."], 90), (
            run.screen()
        )
        assert any(p.startswith("a\n") for p in progress), progress  # while it still ran
        (tool,) = [m.tool for m in run.messages if m.tool]
        assert tool is not None
        assert tool.output == "a\nb\n" and tool.progress is None
    finally:
        run.stop()


def test_a_pause_between_steps_never_ends_the_wait_early(lab_home: Path, workdir: Path) -> None:
    # 1.5 s after the text block before the call, and 4 s before the next step: the
    # transcript holds the text without its call, then the call's result without an answer.
    model = ScriptedModel(
        rules=[
            Rule(
                "pause",
                [
                    Reply(
                        "Checking.",
                        tools=[ToolUse("Bash", {"command": "echo a", "description": "a"})],
                        block_delay=1.5,
                    ),
                    Reply("Done after the pause.", delay=4),
                ],
            )
        ]
    )
    run = Run("opencode", cwd=workdir, model=model)
    try:
        run.send("pause between the steps", ready_timeout=90)
        assert run.wait(timeout=90) == "idle", run.screen()
        assert run.messages[-1].text == "Done after the pause."
    finally:
        run.stop()
