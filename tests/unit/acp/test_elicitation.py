"""A form elicitation through the host: the agent's form is a question dialog in the chat,
and the answer reaches the agent as the form's values (a small agent built on the SDK).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from lab_widget._acp._agent import AcpAgent
from lab_widget._acp._log import post
from lab_widget._acp._reader import AcpTranscriptReader
from lab_widget.provider import RunContext, TranscriptRef
from lab_widget.schema import Answer, DialogAnswer

ASKING = r"""
import asyncio, json
from acp import run_agent, update_agent_message_text
from acp.schema import (AgentCapabilities, ElicitationFormSessionMode, ElicitationSchema,
    InitializeResponse, NewSessionResponse, PromptResponse)

class Asking:
    def on_connect(self, conn):
        self.conn = conn
    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kw):
        assert client_capabilities.elicitation.form is not None  # advertised
        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities())
    async def new_session(self, cwd, mcp_servers=None, **kw):
        return NewSessionResponse(session_id="s1")
    async def prompt(self, session_id, prompt, **kw):
        schema = ElicitationSchema.model_validate({"properties": {
            "db": {"type": "string", "title": "Database", "enum": ["pg", "lite"]},
            "n": {"type": "integer", "title": "Workers"}}})
        mode = ElicitationFormSessionMode(session_id=session_id, requested_schema=schema)
        got = await self.conn.create_elicitation(message="Pick one", mode=mode)
        said = json.dumps(got.model_dump(mode="json", exclude_none=True), sort_keys=True)
        await self.conn.session_update(session_id, update_agent_message_text(said))
        return PromptResponse(stop_reason="end_turn")

asyncio.run(run_agent(Asking(), use_unstable_protocol=True))
"""


def _wait(reader: AcpTranscriptReader, check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reader.read()
        if callable(check) and check():
            return
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {[m.text or m.dialog for m in reader.messages]}")


def test_a_form_is_asked_in_the_chat_and_answered_with_its_values(tmp_path: Path) -> None:
    argv = ["--folder", str(tmp_path), "--cwd", str(tmp_path), "--", sys.executable, "-c", ASKING]
    host = subprocess.Popen([sys.executable, "-m", "lab_widget._acp._host", *argv])
    try:
        _ask_and_answer(tmp_path)
    finally:
        host.terminate()
        assert host.wait(timeout=30) is not None


def _ask_and_answer(tmp_path: Path) -> None:
    reader = AcpTranscriptReader(TranscriptRef("t", tmp_path / "acp.jsonl"))
    _wait(reader, lambda: reader.ready)
    post(tmp_path, {"op": "prompt", "text": "go"})
    _wait(reader, lambda: reader.pending_dialog is not None)
    dialog = reader.pending_dialog
    assert dialog is not None and dialog.kind == "question" and dialog.body == "Pick one"
    assert [(q.header, [o.label for o in q.options], q.free_text) for q in dialog.questions] == [
        ("Database", ["pg", "lite"], False),
        ("Workers", [], True),
    ]
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    agent = AcpAgent("asking-acp", [sys.executable])
    answer = DialogAnswer(
        tool_id=dialog.tool_id, answers=[Answer(selected=["lite"]), Answer(text="4")]
    )
    agent.answer(context, None, dialog, answer)  # type: ignore[arg-type]  # no terminal used
    _wait(reader, lambda: reader.state == "idle" and reader.messages[-1].role == "assistant")
    assert json.loads(reader.messages[-1].text) == {
        "action": "accept",
        "content": {"db": "lite", "n": 4},
    }
    answered = next(m.dialog for m in reader.messages if m.dialog is not None)
    assert answered.status == "answered"
    assert answered.outcome == "Database → lite; Workers → 4"
