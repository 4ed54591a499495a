"""Live: the real pinned agent CLIs take what the scripted model streams like a real model.

Reasoning first, several blocks with pauses between them, usage reported late, and
sub-agents whose own requests the script answers, each against the real CLI under tmux.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget.scripted import RecordedRequest

THOUGHT = "The user wants a tool call first; run echo, then report what it printed. "


def assistant_texts(run: Run) -> list[str]:
    return [
        m.text
        for m in run.messages
        if m.kind == "text" and m.role == "assistant" and not m.thinking
    ]


def errors(run: Run) -> list[str]:
    return [m.text for m in run.messages if m.kind == "lifecycle" and m.level == "error"]


def anthropic_blocks(request: RecordedRequest) -> list[dict[str, Any]]:
    """The content blocks of every assistant message the agent sent back."""
    found: list[dict[str, Any]] = []
    for message in request.body.get("messages", []):
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            found += message["content"]
    return found


@pytest.mark.usefixtures("claude_binary")
def test_claude_code_takes_paced_thinking_and_late_usage(lab_home: Path, workdir: Path) -> None:
    turn = [
        Reply(
            thinking=THOUGHT * 3,
            blocks=[
                "Let me check.",
                ToolUse("Bash", {"command": "echo tool-output-42", "description": "echo"}),
            ],
            cache_read_tokens=120,
            cache_write_tokens=30,
        ),
        Reply("The tool said tool-output-42.", thinking="Report the output."),
    ]
    model = ScriptedModel(rules=[Rule("use a tool", turn)], block_delay=0.4)
    with Run("claude-code", cwd=workdir, model=model) as run:
        run.send("please use a tool")
        assert run.wait(timeout=90) == "idle", run.screen()
        assert assistant_texts(run) == ["Let me check.", "The tool said tool-output-42."]
        tools = [m.tool for m in run.messages if m.tool is not None]
        assert [(t.name, t.status) for t in tools] == [("Bash", "ok")]
        assert errors(run) == []
        steps = model.scripted_requests
        assert [(r.user_text, r.step) for r in steps] == [
            ("please use a tool", 0),
            ("please use a tool", 1),
        ]
        # The CLI kept the thinking block, signature and all, and sends it back: it took
        # the stream as a real model's.
        thinking = [b for b in anthropic_blocks(steps[1]) if b.get("type") == "thinking"]
        assert [b["thinking"] for b in thinking] == [THOUGHT * 3]
        assert thinking[0]["signature"]


@pytest.mark.usefixtures("claude_binary")
def test_claude_code_subagent_plays_its_own_rule(lab_home: Path, workdir: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (workdir / name).write_text(name)
    sub = [
        Reply(tools=[ToolUse("Bash", {"command": "ls | wc -l", "description": "count"})]),
        Reply("3 files"),
    ]
    task = ToolUse(
        "Task",
        {
            "description": "Count files",
            "prompt": "count the files",
            "subagent_type": "general-purpose",
        },
    )
    main = [
        Reply(thinking="A sub-agent can count them.", blocks=["Delegating.", task]),
        Reply("The sub-agent is counting."),
        # 2.1.332 runs the sub-agent in the background: its report comes back as one more
        # step of the same turn, after the turn seemed done.
        Reply("It counted 3 files."),
    ]
    model = ScriptedModel(
        rules=[Rule("count the files", sub, subagent=True), Rule("delegate", main)],
        sequence=["The main sequence, untouched."],
    )
    # Auto mode (the default) checks a sub-agent launch with a server-side classifier
    # that a scripted endpoint does not offer; accept-edits mode lets it run.
    with Run("claude-code", cwd=workdir, model=model, permission_mode="acceptEdits") as run:
        run.send("please delegate the count")
        assert run.wait_for(
            lambda r: r.state == "idle" and "It counted 3 files." in assistant_texts(r),
            timeout=120,
        ), run.screen()
        subagent = model.subagent_requests
        assert [(r.user_text, r.step) for r in subagent] == [
            ("count the files", 0),
            ("count the files", 1),
        ]
        mains = [r for r in model.scripted_requests if not r.subagent]
        assert {r.user_text for r in mains} == {"please delegate the count"}
        assert [r.step for r in mains] == [0, 1, 2]
        calls = [b for b in anthropic_blocks(mains[1]) if b.get("type") == "tool_use"]
        assert [c["name"] for c in calls] == ["Agent"]
        assert errors(run) == []
        # The sub-agent's transcript sits beside the main one.
        transcript = run.transcript_path
        assert transcript is not None
        files = sorted((transcript.with_suffix("") / "subagents").glob("agent-*.jsonl"))
        assert len(files) == 1, files
        first = json.loads(files[0].read_text().splitlines()[0])
        assert first["isSidechain"] is True and first["agentId"]
        assert files[0].name == f"agent-{first['agentId']}.jsonl"


def rollouts(run: Run) -> list[dict[str, Any]]:
    """The first entry (``session_meta``) of every rollout file in the run's sessions folder."""
    transcript = run.transcript_path
    assert transcript is not None
    sessions = next(p for p in transcript.parents if p.name == "sessions")
    return [json.loads(f.read_text().splitlines()[0]) for f in sorted(sessions.rglob("*.jsonl"))]


@pytest.mark.usefixtures("codex_binary")
def test_codex_takes_paced_reasoning_and_late_usage(lab_home: Path, workdir: Path) -> None:
    turn = [
        Reply(
            thinking=THOUGHT * 3,
            blocks=["Let me check.", ToolUse("Bash", {"command": "echo tool-output-42"})],
            cache_read_tokens=100,
        ),
        Reply("The tool said tool-output-42.", thinking="Report the output."),
    ]
    model = ScriptedModel(rules=[Rule("use a tool", turn)], block_delay=0.4)
    with Run("codex", cwd=workdir, model=model) as run:
        run.send("please use a tool")
        assert run.wait(timeout=90) == "idle", run.screen()
        assert assistant_texts(run)[-2:] == ["Let me check.", "The tool said tool-output-42."]
        assert errors(run) == []
        steps = model.scripted_requests
        assert [(r.user_text, r.step) for r in steps] == [
            ("please use a tool", 0),
            ("please use a tool", 1),
        ]
        # The CLI kept the reasoning item, encrypted content and all, and sends it back.
        sent = [i for i in steps[1].body["input"] if i.get("type") == "reasoning"]
        assert [i["summary"][0]["text"] for i in sent] == [THOUGHT * 3]
        assert sent[0]["encrypted_content"]


@pytest.mark.usefixtures("codex_binary")
def test_codex_subagent_plays_its_own_rule(lab_home: Path, workdir: Path) -> None:
    sub = [Reply(tools=[ToolUse("Bash", {"command": "ls | wc -l"})]), Reply("3 files")]
    task = ToolUse("Task", {"description": "Count files", "prompt": "count the files"})
    main = [Reply("Delegating.", tools=[task]), Reply("The sub-agent is counting.")]
    model = ScriptedModel(
        rules=[Rule("count the files", sub, subagent=True), Rule("delegate", main)],
        sequence=["The main sequence, untouched."],
    )
    with Run("codex", cwd=workdir, model=model) as run:
        run.send("please delegate the count")
        assert run.wait_for(
            lambda r: r.state == "idle" and len(model.subagent_requests) == 2, timeout=120
        ), run.screen()
        assert [(r.user_text, r.step) for r in model.subagent_requests] == [
            ("count the files", 0),
            ("count the files", 1),
        ]
        mains = [r for r in model.scripted_requests if not r.subagent]
        assert [(r.user_text, r.step) for r in mains] == [
            ("please delegate the count", 0),
            ("please delegate the count", 1),
        ]
        tools = [m.tool for m in run.messages if m.tool is not None]
        assert [t.name for t in tools][:1] == ["spawn_agent"] and tools[0].status == "ok"
        # The sub-agent's thread is a rollout of its own, marked with its parent.
        metas = [r["payload"] for r in rollouts(run)]
        spawned = [m for m in metas if isinstance(m.get("source"), dict)]
        assert len(metas) == 2 and len(spawned) == 1
        parent = spawned[0]["source"]["subagent"]["thread_spawn"]["parent_thread_id"]
        assert parent == next(m["id"] for m in metas if m is not spawned[0])


@pytest.mark.usefixtures("opencode_binary")
def test_opencode_takes_paced_reasoning_and_a_subagent(lab_home: Path, workdir: Path) -> None:
    sub = [
        Reply(
            thinking="Count with ls.",
            tools=[ToolUse("Bash", {"command": "ls | wc -l", "description": "count"})],
        ),
        Reply("3 files"),
    ]
    task = ToolUse("Task", {"description": "Count files", "prompt": "count the files"})
    main = [
        Reply(thinking=THOUGHT * 2, blocks=["Delegating.", task], cache_read_tokens=50),
        Reply("It counted 3 files.", thinking="Report the count."),
    ]
    model = ScriptedModel(
        rules=[Rule("count the files", sub, subagent=True), Rule("delegate", main)],
        sequence=["The main sequence, untouched."],
        block_delay=0.4,
    )
    with Run("opencode", cwd=workdir, model=model) as run:
        run.send("please delegate the count", ready_timeout=90)
        assert run.wait_for(
            lambda r: r.state == "idle" and "It counted 3 files." in assistant_texts(r),
            timeout=120,
        ), run.screen()
        assert errors(run) == []
        assert [(r.user_text, r.step) for r in model.subagent_requests] == [
            ("count the files", 0),
            ("count the files", 1),
        ]
        mains = [r for r in model.scripted_requests if not r.subagent]
        assert [(r.user_text, r.step) for r in mains] == [
            ("please delegate the count", 0),
            ("please delegate the count", 1),
        ]
        # OpenCode's task tool ran the sub-agent to its end and returned its answer.
        tools = [m.tool for m in run.messages if m.tool is not None and m.tool.name == "task"]
        assert tools and tools[0].status == "ok" and "3 files" in (tools[0].output or "")
        # The CLI kept the reasoning and sends it back with the assistant message.
        sent = [m for m in mains[1].body["messages"] if m.get("role") == "assistant"]
        assert sent[0]["reasoning_content"] == THOUGHT * 2


@pytest.mark.usefixtures("gemini_binary")
def test_gemini_cli_takes_paced_thoughts_and_a_subagent(lab_home: Path, workdir: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (workdir / name).write_text(name)
    sub = [
        # A read-only tool: the sub-agent runs without a confirmation.
        Reply(
            thinking="List the folder.",
            tools=[ToolUse("list_directory", {"dir_path": str(workdir)})],
        ),
        Reply("3 files"),
    ]
    task = ToolUse("Task", {"description": "Count files", "prompt": "count the files"})
    thought = "**Planning the count**\n\nA sub-agent can count them while I wait."
    main = [
        Reply(thinking=thought, blocks=["Delegating.", task], cache_read_tokens=50),
        Reply("It counted 3 files.", thinking="**Reporting**\n\nSay what it found."),
    ]
    model = ScriptedModel(
        rules=[Rule("count the files", sub, subagent=True), Rule("delegate", main)],
        sequence=["The main sequence, untouched."],
        block_delay=0.4,
    )
    with Run("gemini", cwd=workdir, model=model) as run:
        run.send("please delegate the count", ready_timeout=90)
        assert run.wait_for(
            lambda r: r.state == "idle" and "It counted 3 files." in assistant_texts(r),
            timeout=120,
        ), run.screen()
        assert errors(run) == []
        assert [(r.user_text, r.step) for r in model.subagent_requests] == [
            ("count the files", 0),
            ("count the files", 1),
        ]
        mains = [r for r in model.scripted_requests if not r.subagent]
        assert [(r.user_text, r.step) for r in mains] == [
            ("please delegate the count", 0),
            ("please delegate the count", 1),
        ]
        # The sub-agent handed its answer in, and the main turn got it as the call's result.
        tools = [m.tool for m in run.messages if m.tool is not None]
        assert tools and tools[0].name == "invoke_agent" and tools[0].status == "ok"
        assert "3 files" in (tools[0].output or "")
        # The CLI kept the signature on the call it belongs to and sends it back.
        model_turn = next(c for c in mains[1].body["contents"] if c.get("role") == "model")
        sent = model_turn["parts"]
        assert any("functionCall" in p and p.get("thoughtSignature") for p in sent)
