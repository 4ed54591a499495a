"""Live: the real pinned Claude Code under real tmux, against the scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab_widget import AgentNotReadyError, Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget._chat._session import ChatEvent
from tests.support.waiting import retry_until

TOOL_TURN = [
    Reply(
        "Let me check.",
        tools=[ToolUse("Bash", {"command": "echo tool-output-42", "description": "echo"})],
    ),
    Reply("The tool said tool-output-42."),
]


def script() -> ScriptedModel:
    return ScriptedModel(
        rules=[Rule("use a tool", TOOL_TURN)],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def test_a_failed_call_is_closed_and_swept_from_the_hook_spool(
    lab_home: Path, workdir: Path
) -> None:
    failing = [Reply(tools=[ToolUse("Bash", {"command": "ls missing-file.txt"})]), Reply("No.")]
    ok = [Reply(tools=[ToolUse("Bash", {"command": "echo fine"})]), Reply("Fine.")]
    model = ScriptedModel(rules=[Rule("fail", failing), Rule("succeed", ok)])
    with Run("claude-code", cwd=workdir, model=model) as run:
        for prompt in ("please fail", "now succeed"):
            run.send(prompt)
            assert run.wait(timeout=60) == "idle", run.screen()
        statuses = [m.tool.status for m in run.messages if m.tool is not None]
        assert statuses == ["error", "ok"]
        spool = lab_home / "runs" / run.id / "signals"

        def events() -> list[str]:
            return [json.loads(p.read_text())["hook_event_name"] for p in sorted(spool.iterdir())]

        # The failure closed its call (no PostToolUse comes for a non-zero exit), and the
        # sweep left only the session record, the newest prompt and the newest tool record.
        assert retry_until(lambda: len(events()) == 3, 5), events()
        assert events()[:2] == ["SessionStart", "UserPromptSubmit"]
        assert "PreToolUse" not in events()


HOSTILE = (
    "line one; echo $HOME && rm -rf / `id` $(whoami) | cat > /dev/null\n"
    "C-c Enter Escape  'quotes' \"double\" \\backslash\n"
    "ctrl:\x03\x04\x1a esc:\x1b[31mred\x1b[0m paste-end:\x1b[201~ bell:\x07\n"
    "\ttabbed line with unicode: ünïcødé ✓ 日本\n"
    "last line"
)


def expected_text(text: str) -> str:
    return "".join(ch for ch in text if ch in "\n\t" or (ord(ch) >= 0x20 and ord(ch) != 0x7F))


def test_hostile_prompt_arrives_as_one_exact_message(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(fallback="Got it.")
    with Run("claude-code", cwd=workdir, model=model) as run:
        run.send(HOSTILE)
        assert run.wait(timeout=60) == "idle"
        users = [m for m in run.messages if m.role == "user"]
        assert len(users) == 1, [m.text for m in users]
        got = users[0].text
        want = expected_text(HOSTILE)
        # Control characters may be dropped, never acted on; every printable character and
        # line break arrives byte-exact. The TUI keeps a tab, or (when it collapses a large
        # paste) expands it to four spaces: both were seen on 2.1.332.
        assert got in (want, want.replace("\t", "    ")), (got, want)
        assert [m.text for m in run.messages if m.role == "assistant"] == ["Got it."]
        assert len(model.scripted_requests) == 1


ADOPT = """
import json, os, sys
import lab_widget
runs = lab_widget.runs()
rows = [{"id": r.id, "state": r.state, "texts": [m.text for m in r.messages]} for r in runs]
print(json.dumps(rows))
"""


def test_readopted_by_a_fresh_process_shows_same_history(lab_home: Path, workdir: Path) -> None:
    with Run("claude-code", cwd=workdir, model=script()) as run:
        run.send("hello")
        assert run.wait(timeout=60) == "idle"
        mine = [m.text for m in run.messages]
        out = subprocess.run(
            [sys.executable, "-c", ADOPT],
            env={**os.environ, "LAB_WIDGET_HOME": str(lab_home)},
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        adopted = json.loads(out)
        assert adopted == [{"id": run.id, "state": "idle", "texts": mine}]


def test_untrusted_folder_needs_input_until_accepted(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's own environment (no model, no endpoint): a home that finished onboarding
    # but never trusted this folder nor approved this API key.
    model = ScriptedModel(["Trusted and answering."]).start()
    home = tmp_path / "user-home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", model.api_key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    run = Run("claude-code", cwd=workdir)
    try:
        assert run.state == "needs_input"
        assert run.needs_input_reason and str(workdir) in run.needs_input_reason
        with pytest.raises(AgentNotReadyError):
            run.send("hello", ready_timeout=1)
        run.accept()
        run.send("hello")
        assert run.wait(timeout=60) == "idle"
        assert run.messages[-1].text == "Trusted and answering."
        state = json.loads((home / ".claude.json").read_text())
        assert state["projects"][str(workdir)]["hasTrustDialogAccepted"] is True
    finally:
        run.stop()
        model.stop()


def test_interrupt_mid_answer_returns_to_idle(lab_home: Path, workdir: Path) -> None:
    slow = Reply("Thinking out loud. " * 60, chunk_delay=0.25)
    model = ScriptedModel([slow, "Back again."])
    with Run("claude-code", cwd=workdir, model=model) as run:
        run.send("take your time")
        assert run.wait_for(lambda r: bool(model.scripted_requests), 60)
        time.sleep(2)  # let the answer stream for a while: Claude writes it only when it ends
        assert run.state == "working"
        run.interrupt()
        assert run.wait(timeout=30) == "idle"
        assert run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), 10)
        run.send("continue")
        assert run.wait(timeout=60) == "idle"
        assert run.messages[-1].text == "Back again."


def test_a_sub_agent_is_nested_live_and_its_tokens_roll_up(lab_home: Path, workdir: Path) -> None:
    # 2.1.332 runs sub-agents in the background: the call returns at once, the sub-agent's
    # own requests come in beside the main thread's, its report arrives as a message.
    sub_turn = [
        Reply("Counting.", tools=[ToolUse("Bash", {"command": "sleep 2; ls | wc -l"})]),
        Reply(tools=[ToolUse("SubagentHandback", {"message": "There are no files."})]),
    ]
    main_turn = [
        Reply(
            "I will ask a sub-agent.",
            tools=[
                ToolUse(
                    "Agent",
                    {
                        "description": "Count files",
                        "prompt": "count the files",
                        "subagent_type": "general-purpose",
                    },
                )
            ],
        ),
        Reply("Waiting for the sub-agent."),
        # Its report comes back to the main thread as the turn's next step.
        Reply("The sub-agent found no files."),
    ]
    model = ScriptedModel(
        rules=[
            Rule("count the files", sub_turn),
            Rule("please delegate", main_turn),
        ]
    )
    run = Run("claude-code", cwd=workdir, model=model)
    nested_while_running: list[str] = []

    def watch(_event: object) -> None:
        calls = [m for m in run.messages if m.tool is not None and m.tool.name == "Agent"]
        if calls and calls[0].tool is not None and calls[0].tool.status == "running":
            nested_while_running.extend(m.text for m in run.subagents.get(calls[0].tool.id, []))

    unsubscribe = run.subscribe(watch)
    try:
        run.send("please delegate")
        # The main turn ends while its sub-agent works: the run stays working until the
        # sub-agent has reported and the main agent has answered.
        assert run.wait(timeout=120) == "idle", run.screen()
        assert run.messages[-1].text != "Waiting for the sub-agent."
        assert any(m.text == "The sub-agent found no files." for m in run.messages)
        call = next(m for m in run.messages if m.tool is not None and m.tool.name == "Agent")
        assert call.tool is not None and call.tool.agent_id and call.tool.status == "ok"
        assert call.tool.output == "There are no files."
        nested = run.subagents[call.tool.id]
        assert nested[0].text == "count the files"
        assert any(m.tool is not None and m.tool.name == "Bash" for m in nested)
        # Its report is its reply, shown once: no card for the hand-back call.
        assert nested[-1].text == "There are no files." and nested[-1].tool is None
        assert not any(m.tool is not None and m.tool.name == "SubagentHandback" for m in nested)
        texts = [m.text for m in run.messages if m.parent_tool_id is None]
        finished = next(i for i, t in enumerate(texts) if t == 'Agent "Count files" finished')
        assert finished < texts.index("The sub-agent found no files.")
        assert "count the files" in nested_while_running  # tailed while it worked
        scopes = {m.scope: m.usage for m in run.session.models}
        assert scopes["subagent"].output_tokens > 0
        assert scopes["main"] + scopes["subagent"] == run.session.usage
    finally:
        unsubscribe()
        run.stop()


def test_a_model_that_pauses_between_blocks_never_ends_the_wait_early(
    lab_home: Path, workdir: Path
) -> None:
    # A real model thinks, pauses, streams a block, pauses, calls a tool...: at no point
    # between its first token and its final answer may the run look idle.
    turn = [
        Reply(
            thinking="First I look at the folder. " * 4,
            blocks=["Let me look.", ToolUse("Bash", {"command": "ls", "description": "List"})],
            block_delay=1.0,
        ),
        Reply(
            thinking="Then I check one more thing.",
            blocks=["One more check.", ToolUse("Bash", {"command": "pwd", "description": "Where"})],
            block_delay=1.0,
        ),
        Reply("All done.", thinking="That is all.", block_delay=1.0),
    ]
    run = Run("claude-code", cwd=workdir, model=ScriptedModel(rules=[Rule("look", turn)]))
    early: list[list[str]] = []
    sent: list[bool] = []

    def watch(event: ChatEvent) -> None:
        texts = [m.text for m in run.messages if m.role == "assistant" and not m.thinking]
        if sent and event.state == "idle" and "All done." not in texts:
            early.append(texts)

    unsubscribe = run.subscribe(watch)
    try:
        run.send("look around")
        sent.append(True)
        assert run.wait(timeout=120) == "idle", run.screen()
        assert early == []
        assert run.messages[-1].text == "All done."
        assert [m.text for m in run.messages if m.thinking] == [
            "First I look at the folder. " * 4,
            "Then I check one more thing.",
            "That is all.",
        ]
    finally:
        unsubscribe()
        run.stop()
