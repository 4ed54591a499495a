"""Unit: Gemini CLI session files and hook records (fixtures recorded from the pinned CLI)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lab_widget import history, read_transcript
from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, TranscriptRef, get_provider
from lab_widget.provider.gemini._files import is_document, peek_session, read_header
from lab_widget.provider.gemini._signals import GeminiSignals
from lab_widget.provider.gemini._transcript import GeminiTranscriptReader
from lab_widget.schema import Usage
from tests.support.paths import FIXTURES

GEMINI = FIXTURES / "gemini"
ALL = sorted(p.name for p in GEMINI.glob("*.jsonl") if not p.name.endswith(".hooks.jsonl"))
FOLDERS = sorted(p for p in GEMINI.glob("v*") if p.is_dir())
VERSIONS = [GEMINI, *(p for p in FOLDERS if (p / "manifest.json").is_file())]


def _version(folder: Path) -> str:
    return str(json.loads((folder / "manifest.json").read_text())["version"])


class Recorded:
    """One version's recorded session files (event logs, or JSON documents before 0.39)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.version = _version(folder)

    def __repr__(self) -> str:
        return self.version

    def file(self, name: str) -> Path:
        """The session file of ``name`` (a scenario, or ``<scenario>_<n>``)."""
        found = [self.folder / f"{name}{suffix}" for suffix in (".jsonl", ".json")]
        found = [p for p in found if p.is_file()]
        assert found, f"{self} has no {name} recording"
        return found[0]

    def has(self, name: str) -> bool:
        return any((self.folder / f"{name}{s}").is_file() for s in (".jsonl", ".json"))

    def hooks(self, name: str) -> list[dict[str, Any]] | None:
        stem = name.removesuffix(".jsonl").rstrip("_0123456789")
        path = self.folder / f"{stem}.hooks.jsonl"
        if not path.is_file():
            return None
        return [json.loads(line) for line in path.read_text().splitlines()]

    def reader(self, name: str, with_hooks: bool = False) -> GeminiTranscriptReader:
        records = self.hooks(name) if with_hooks else None
        r = GeminiTranscriptReader(
            TranscriptRef("t", self.file(name)),
            turn_signals=(lambda: records) if records is not None else None,
        )
        r.read()
        return r


RECORDED = [Recorded(folder) for folder in VERSIONS]
PINNED = RECORDED[0]
HOOKED = [r for r in RECORDED if r.hooks("hello") is not None]


@pytest.fixture(params=RECORDED, ids=repr)
def recorded(request: pytest.FixtureRequest) -> Recorded:
    """Each recorded version in turn (one test body, every version)."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(params=HOOKED, ids=repr)
def hooked(request: pytest.FixtureRequest) -> Recorded:
    """Each recorded version whose hooks fire (approval dialogs reach the chat)."""
    return request.param  # type: ignore[no-any-return]


def hooks(name: str) -> list[dict[str, Any]]:
    found = PINNED.hooks(name)
    assert found is not None
    return found


def reader(name: str, with_hooks: bool = False) -> GeminiTranscriptReader:
    return PINNED.reader(name.removesuffix(".jsonl"), with_hooks)


def texts(path: Path) -> list[tuple[str, str]]:
    chat = read_transcript(path, provider="gemini")
    return [(m.role, m.text) for m in chat.messages if m.kind == "text" and not m.thinking]


def test_fixtures_come_from_their_version() -> None:
    assert PINNED.version == PINS["gemini"].version
    for name in ALL:
        header = json.loads((GEMINI / name).read_text().splitlines()[0])
        assert header["kind"] == "main" and header["sessionId"], name
    assert [p.name for p in FOLDERS] == [f"v{r.version}" for r in RECORDED[1:]]
    for item in RECORDED[1:]:
        assert item.version != PINNED.version
        for path in item.folder.glob("*.json*"):
            if path.name.endswith(".hooks.jsonl") or path.name == "manifest.json":
                continue
            assert read_header(path) is not None, path


def test_older_versions_keep_a_session_as_one_json_document() -> None:
    # Up to 0.38.2 (the last before 0.39.0's event log): one document, rewritten whole.
    documents = [r for r in RECORDED if r.file("hello").suffix == ".json"]
    assert {r.version for r in documents} >= {"0.20.2", "0.38.2"}
    for item in documents:
        assert is_document(item.file("hello"))
        assert json.loads(item.file("hello").read_text())["messages"]


def test_hello_skips_the_session_context(recorded: Recorded) -> None:
    r = recorded.reader("hello")
    assert texts(recorded.file("hello")) == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert r.state == "idle"
    last = r.messages[-1]
    assert last.model and last.usage is not None and last.usage.output_tokens > 0
    s = r.summary
    assert s.usage.input_tokens > 0 and s.model == last.model
    assert s.started_at is not None and s.context_tokens


def test_tool_calls_pair_with_their_results_and_report_exit_codes(recorded: Recorded) -> None:
    r = recorded.reader("tools")
    tools = [m.tool for m in r.messages if m.tool is not None]
    assert [t.name for t in tools] == ["run_shell_command", "run_shell_command"]
    assert [t.status for t in tools] == ["ok", "error"]
    assert tools[0].input["command"] == "echo tool-output-42"
    # 0.61.0 recorded "Output: (empty)" for this echo (its shell missed the output).
    assert tools[0].output in ("tool-output-42", "")
    failed = tools[1].output or ""
    assert "Exit Code: 2" in failed and "missing-file.txt" in failed
    assert "untrusted_context" not in failed and "PGID" not in failed
    assert [m.text for m in r.messages if m.kind == "text"].count("Let me check.") == 1
    assert [m.text for m in r.messages if m.role == "user"] == [
        "please use a tool",
        "now a failing tool",
    ]
    assert r.state == "idle"


def test_thoughts_come_before_their_answer_as_thinking(recorded: Recorded) -> None:
    r = recorded.reader("thinking")
    shown = [(m.kind, m.thinking, m.text) for m in r.messages if m.role == "assistant"]
    assert shown == [
        ("text", True, "**Planning the check**\n\nI should run a command first."),
        ("text", False, "Let me look."),
        ("tool", False, ""),
        ("text", True, "**Reading the output**\n\nThe command printed thought-42."),
        ("text", False, "It printed thought-42."),
    ]
    assert not any(m.redacted for m in r.messages)
    assert r.state == "idle"


def _final_records(path: Path) -> dict[str, dict[str, Any]]:
    """Every message record by id, as its last line (or the document) left it."""
    if path.suffix == ".json":
        return {m["id"]: m for m in json.loads(path.read_text())["messages"]}
    found: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if isinstance(record.get("id"), str):
            found[record["id"]] = record
    return found


@pytest.mark.parametrize("scenario", ["hello", "tools", "thinking"])
def test_each_response_counts_once_with_its_final_figures(
    recorded: Recorded, scenario: str
) -> None:
    r = recorded.reader(scenario)
    responses = [m for m in _final_records(recorded.file(scenario)).values() if m.get("tokens")]
    assert responses
    expected = Usage()
    for record in responses:
        t = record["tokens"]
        expected = expected + Usage(
            input_tokens=t["input"] - t["cached"] + t["tool"],
            output_tokens=t["output"] + t["thoughts"],
            reasoning_tokens=t["thoughts"],
            cache_read_tokens=t["cached"],
        )
    s = r.summary
    assert s.usage == expected
    assert [(m.model, m.scope, m.requests, m.usage) for m in s.models] == [
        (responses[0]["model"], "main", len(responses), expected)
    ]
    # On the first message of each response: summing messages counts each once.
    assert sum((m.usage for m in r.messages if m.usage), Usage()) == expected
    for record in responses:
        shown = [m for m in r.messages if m.native_id == record["id"]]
        assert shown[0].usage is not None and all(m.usage is None for m in shown[1:])


def test_a_replaced_response_counts_once_with_its_last_figures(tmp_path: Path) -> None:
    header = {"sessionId": "s", "startTime": "2026-11-30T09:00:00Z", "kind": "main"}
    prompt = {"id": "u", "type": "user", "content": [{"text": "hi"}]}
    early = {
        "id": "g",
        "type": "gemini",
        "content": "Hel",
        "model": "m",
        "tokens": {"input": 100, "output": 5, "cached": 0, "thoughts": 0, "tool": 0},
    }
    final: dict[str, Any] = dict(
        early,
        content="Hello",
        thoughts=[{"subject": "S", "description": "d"}],
        tokens={
            "input": 1000,
            "output": 50,
            "cached": 400,
            "thoughts": 20,
            "tool": 7,
            "total": 1077,
        },
    )
    path = tmp_path / "session-x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in (header, prompt, early)))
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    r.read()
    with path.open("a") as f:
        f.write(json.dumps(final) + "\n")
    r.read()
    usage = r.summary.usage
    # ccusage (20.0.24, --offline) reads this file as 607 input, 50 output, 400 cache
    # reads, 1077 tokens in all: the same total; it leaves thoughts out of its output
    # column (and counts them only in the total), the schema counts them as output.
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (607, 70, 400)
    assert usage.total == final["tokens"]["total"]
    assert r.summary.models[0].requests == 1
    assert [m.usage for m in r.messages if m.usage] == [usage]
    assert r.messages[1].thinking and r.messages[1].usage == usage


def test_hidden_thinking_shows_as_hidden_never_as_nothing() -> None:
    # The model sent only a thought signature: Gemini CLI records no thought but the
    # thought tokens it was billed for.
    r = reader("hidden_thinking.jsonl")
    shown = [(m.thinking, m.redacted, m.text) for m in r.messages if m.role == "assistant"]
    assert shown == [(True, True, ""), (False, False, "Done.")]
    (record,) = [
        m for m in _final_records(GEMINI / "hidden_thinking.jsonl").values() if m.get("tokens")
    ]
    hidden = next(m for m in r.messages if m.redacted)
    assert hidden.usage is not None  # the response's first message
    assert hidden.usage.output_tokens == record["tokens"]["output"] + record["tokens"]["thoughts"]


def test_interrupt_keeps_the_cancelled_prompt(recorded: Recorded) -> None:
    r = recorded.reader("interrupt", with_hooks=True)
    assert [(m.kind, m.text) for m in r.messages] == [
        ("text", "be slow"),
        ("lifecycle", "Request cancelled."),
    ]
    assert r.state == "idle"


def test_clear_starts_a_new_session(recorded: Recorded) -> None:
    if recorded.has("clear_0"):
        first, second = recorded.reader("clear_0"), recorded.reader("clear_1")
        assert [m.text for m in first.messages] == ["hello", "Hello from the scripted model."]
        assert [m.text for m in second.messages] == ["and again", "Second answer."]
        assert first.summary.started_at != second.summary.started_at
    else:
        # 0.20.2's /clear only empties the screen and the model's history: the session
        # file goes on.
        assert recorded.version == "0.20.2"
        assert [m.text for m in recorded.reader("clear").messages] == [
            "hello",
            "Hello from the scripted model.",
            "and again",
            "Second answer.",
        ]


def test_approved_call_carries_its_dialog_from_the_hook_record(hooked: Recorded) -> None:
    r = hooked.reader("approve", with_hooks=True)
    dialogs = [m for m in r.messages if m.dialog is not None]
    assert len(dialogs) == 1
    message = dialogs[0]
    assert message.kind == "dialog" and message.dialog is not None and message.tool is not None
    assert message.dialog.status == "answered" and message.dialog.outcome == "approved"
    assert message.tool.id == message.dialog.tool_id and message.tool.status == "ok"
    assert "touch made.txt" in message.dialog.body
    assert r.state == "idle"
    # Without the hook records the same call is a plain tool call.
    assert not any(m.dialog for m in hooked.reader("approve").messages)


def test_declined_call_is_rejected_and_ends_the_turn(hooked: Recorded) -> None:
    r = hooked.reader("reject", with_hooks=True)
    kinds = [(m.kind, m.text) for m in r.messages]
    assert kinds == [
        ("text", "please make a file"),
        ("text", "Creating it."),
        ("dialog", ""),
        ("lifecycle", "Request cancelled."),
    ]
    dialog = r.messages[2].dialog
    assert dialog is not None and dialog.status == "rejected"
    tool = r.messages[2].tool
    assert tool is not None and tool.status == "error" and "(rejected)" in (tool.output or "")
    # No AfterAgent follows a declined confirmation: the transcript ends the turn.
    records = hooked.hooks("reject")
    assert records is not None and records[-1]["hook_event_name"] == "Notification"
    assert r.state == "idle"


def test_declined_call_stays_in_the_chat_after_the_roll_back() -> None:
    # 0.61.0 rolls a declined turn back by rewriting its history; the chat keeps it.
    raw = (GEMINI / "reject.jsonl").read_text()
    assert '"$set": {"messages"' in raw.split("\n", 2)[2]
    assert len(reader("reject.jsonl", with_hooks=True).messages) == 4


def test_an_approved_edit_carries_its_diff_from_the_hook_record() -> None:
    r = reader("edit_approve.jsonl", with_hooks=True)
    dialogs = [m for m in r.messages if m.dialog is not None]
    assert len(dialogs) == 1
    message = dialogs[0]
    assert message.dialog is not None and message.tool is not None
    assert message.tool.name == "replace" and message.tool.status == "ok"
    assert (message.dialog.tool_name, message.dialog.outcome) == ("edit", "approved")
    assert message.dialog.questions[0].text == "Apply this change to old.txt?"
    assert "-beta\n+gamma" in message.dialog.body
    assert message.tool.id == message.dialog.tool_id
    assert r.state == "idle"


def test_a_declined_edit_stays_in_the_chat_as_rejected() -> None:
    r = reader("edit_reject.jsonl", with_hooks=True)
    dialogs = [m.dialog for m in r.messages if m.dialog is not None]
    assert [(d.tool_name, d.status) for d in dialogs] == [("edit", "rejected")]
    assert "+hello" in dialogs[0].body
    assert r.messages[-1].text == "Request cancelled."
    assert r.state == "idle"


def test_turn_hooks_decide_the_state_while_a_response_waits_on_its_tools(
    tmp_path: Path,
) -> None:
    # The response text is written before its tool calls: alone it reads as a finished turn.
    lines = (GEMINI / "tools.jsonl").read_text().splitlines()
    upto = next(i for i, line in enumerate(lines) if '"Let me check."' in line)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines[: upto + 1]) + "\n")
    session = json.loads(lines[0])["sessionId"]
    alone = GeminiTranscriptReader(TranscriptRef("t", path))
    alone.read()
    assert alone.state == "idle"
    started = [{"hook_event_name": "BeforeAgent", "session_id": session, "timestamp": "z"}]
    hooked = GeminiTranscriptReader(TranscriptRef("t", path), turn_signals=lambda: started)
    hooked.read()
    assert hooked.state == "working"


def test_a_session_nobody_writes_settles_by_its_records(tmp_path: Path) -> None:
    # A run stopped before the AfterAgent hook: live the turn hooks still say working;
    # the file says the turn ended.
    records = hooks("tools.jsonl")
    open_turn = records[
        : max(i for i, r in enumerate(records) if r["hook_event_name"] == "AfterAgent")
    ]
    r = GeminiTranscriptReader(
        TranscriptRef("t", GEMINI / "tools.jsonl"), turn_signals=lambda: open_turn
    )
    r.read()
    assert r.state == "working" and r.settled_state() == "idle"
    assert read_transcript(GEMINI / "tools.jsonl", provider="gemini").state == "idle"
    # Cut after a tool result went back to the model: the turn was under way.
    lines = (GEMINI / "tools.jsonl").read_text().splitlines()
    upto = next(
        i for i, line in enumerate(lines) if "functionResponse" in line and '"type": "user"' in line
    )
    path = tmp_path / "session-x.jsonl"
    path.write_text("\n".join(lines[: upto + 1]) + "\n")
    assert read_transcript(path, provider="gemini").state == "working"


def test_rewind_cuts_and_reports_a_reset(tmp_path: Path) -> None:
    lines = (GEMINI / "clear_0.jsonl").read_text().splitlines()
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    r.read()
    assert [m.text for m in r.messages] == ["hello", "Hello from the scripted model."]
    user_id = next(json.loads(x)["id"] for x in lines if '"type": "user"' in x and "hello" in x)
    with path.open("a") as f:
        f.write(json.dumps({"$rewindTo": user_id}) + "\n")
    result = r.read()
    assert result.reset and r.messages == [] and result.changed == []


def test_preview_and_sessions(tmp_path: Path, monkeypatch: Any) -> None:
    assert peek_session(GEMINI / "hello.jsonl") == ("hello", reader("hello.jsonl").summary.model)
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "work" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-x.jsonl").write_bytes((GEMINI / "hello.jsonl").read_bytes())
    work = tmp_path / "work"
    work.mkdir()
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(work.resolve()): "work"}})
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    refs = get_provider("gemini").sessions(work)
    assert [r.transcript_id for r in refs] == [
        json.loads((GEMINI / "hello.jsonl").read_text().splitlines()[0])["sessionId"]
    ]


def _session_id(path: Path) -> str:
    header = read_header(path)
    assert header is not None
    return str(header["sessionId"])


def test_history_lists_and_opens_the_sessions_of_every_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0.20.2 kept a folder's sessions under the hash of its path, later versions under a
    slug; documents up to 0.38.2, event logs since; 0.61.0 converts a resumed document to
    an event log beside it. History lists each session once and opens it."""
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    folder = str(work.resolve())
    hashed = home / ".gemini" / "tmp" / hashlib.sha256(folder.encode()).hexdigest() / "chats"
    slug = home / ".gemini" / "tmp" / "work" / "chats"
    hashed.mkdir(parents=True)
    slug.mkdir(parents=True)
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {folder: "work"}}))
    old, middle = RECORDED[1].file("hello"), RECORDED[-1].file("tools")
    assert old.suffix == middle.suffix == ".json"
    shutil.copy(old, hashed / "session-2026-01-01T00-00-aaaaaaaa.json")
    shutil.copy(middle, slug / "session-2026-02-01T00-00-bbbbbbbb.json")
    shutil.copy(GEMINI / "hello.jsonl", slug / "session-2026-03-01T00-00-cccccccc.jsonl")
    # A resumed document, converted: the event log beside it stands for the session.
    converted = RECORDED[-1].file("interrupt")
    shutil.copy(converted, slug / "session-2026-04-01T00-00-dddddddd.json")
    lines = [json.dumps({"sessionId": _session_id(converted), "kind": "main"})]
    lines += [json.dumps(m) for m in json.loads(converted.read_text())["messages"]]
    (slug / "session-2026-04-01T00-00-dddddddd.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    monkeypatch.setenv("LAB_WIDGET_HOME", str(tmp_path / "lab"))
    provider = get_provider("gemini")
    refs = provider.sessions(work)
    assert sorted(r.transcript_id for r in refs) == sorted(
        {_session_id(p) for p in (old, middle, GEMINI / "hello.jsonl", converted)}
    )
    assert [r.path.suffix for r in refs if r.transcript_id == _session_id(converted)] == [".jsonl"]
    previews = {r.transcript_id: provider.preview(r) for r in refs}
    assert previews[_session_id(old)][0] == "hello" and previews[_session_id(old)][1]
    assert previews[_session_id(middle)][0] == "please use a tool"
    found = history(work, provider="gemini")
    assert len(found) == 4
    for info in found:
        chat = info.open()
        assert chat.messages and chat.messages[0].text == info.first_prompt
        assert chat.state == "idle"


def test_a_rewritten_document_reports_only_what_changed(tmp_path: Path) -> None:
    document = json.loads(RECORDED[-1].file("tools").read_text())
    path = tmp_path / "session-x.json"
    first = dict(document, messages=document["messages"][:2])
    path.write_text(json.dumps(first, indent=2))
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    assert [(m.kind, m.text) for m in r.read().changed] == [
        ("text", "please use a tool"),
        ("text", "Let me check."),
        ("tool", ""),
    ]
    path.write_text(json.dumps(document, indent=2))
    result = r.read()
    assert not result.reset
    assert result.changed[0].seq >= 1  # what came before the rewrite is unchanged
    assert r.messages == RECORDED[-1].reader("tools").messages
    assert r.read().changed == []  # the same document again: nothing read


def test_a_half_written_document_keeps_what_was_read(tmp_path: Path) -> None:
    text = RECORDED[-1].file("tools").read_text()
    path = tmp_path / "session-x.json"
    path.write_text(text)
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    r.read()
    shown = r.messages
    path.write_text(text[: len(text) // 2])  # caught in the middle of a rewrite
    assert r.read().changed == [] and r.messages == shown
    path.write_text(text)
    assert r.read().changed == [] and r.messages == shown


def test_an_unreadable_document_is_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "session-x.json"
    path.write_text('{\n  "sessionId": "s",\n  "messages": [\n    {"id": "1", "type"')
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    r.read()
    assert [(m.kind, m.level) for m in r.messages] == [("lifecycle", "warning")]
    assert "unreadable" in r.messages[0].text


def _lay_out_subagent(tmp_path: Path, main_lines: int | None = None) -> tuple[Path, Path]:
    """The recorded sub-agent session as Gemini CLI keeps it: the main session file, and
    the sub-agent's under ``chats/<main session id>/``. ``main_lines`` cuts the main file."""
    chats = tmp_path / "chats"
    main = GEMINI / "subagent.jsonl"
    session = _session_id(main)
    folder = chats / session
    folder.mkdir(parents=True)
    lines = main.read_text().splitlines(keepends=True)
    target = chats / "session-2026-12-01T15-00-aaaaaaaa.jsonl"
    target.write_text("".join(lines[:main_lines]))
    (agent,) = sorted((GEMINI / "subagent.agents").glob("*.jsonl"))
    shutil.copy(agent, folder / agent.name)
    return target, folder / agent.name


def test_a_subagent_nests_under_the_call_that_started_it(tmp_path: Path) -> None:
    main, agent = _lay_out_subagent(tmp_path)
    r = GeminiTranscriptReader(TranscriptRef("t", main))
    r.read()
    calls = [m for m in r.messages if m.tool is not None and m.tool.name == "invoke_agent"]
    assert len(calls) == 1
    call = calls[0].tool
    assert call is not None and call.agent_id == agent.stem and call.status == "ok"
    nested = [m for m in r.messages if m.parent_tool_id == call.id]
    assert [(m.role, m.kind, m.text) for m in nested] == [
        ("user", "text", "count the files here"),
        ("assistant", "text", "Counting."),
        ("assistant", "tool", ""),
        ("assistant", "tool", ""),
    ]
    assert [m.tool.name for m in nested if m.tool] == ["run_shell_command", "complete_task"]
    # Right after the call, in the same flat list; the main turn goes on after them.
    at = r.messages.index(calls[0])
    assert r.messages[at + 1 : at + 1 + len(nested)] == nested
    assert (
        r.messages[-1].text == "The sub-agent found 3 files."
        and r.messages[-1].parent_tool_id is None
    )
    assert r.state == "idle"
    s = r.summary
    scopes = {(m.scope, m.requests) for m in s.models}
    assert scopes == {("main", 2), ("subagent", 2)}
    assert s.usage == sum((m.usage for m in s.models), Usage())
    assert sum((m.usage for m in r.messages if m.usage), Usage()) == s.usage


def test_a_subagent_shows_while_it_works(tmp_path: Path) -> None:
    lines = (GEMINI / "subagent.jsonl").read_text().splitlines()
    # Up to the response that starts the sub-agent, before its call is recorded (Gemini
    # CLI records a call when it finishes).
    upto = next(i for i, line in enumerate(lines) if "Asking a sub-agent." in line) + 1
    main, agent = _lay_out_subagent(tmp_path, upto)
    agent_lines = agent.read_text().splitlines(keepends=True)
    agent.write_text("".join(agent_lines[:2]))  # the sub-agent has just got its prompt
    r = GeminiTranscriptReader(TranscriptRef("t", main))
    r.read()
    standin = r.messages[-2]
    assert standin.tool is not None and standin.tool.status == "running"
    assert standin.tool.agent_id == agent.stem
    assert (r.messages[-1].parent_tool_id, r.messages[-1].text) == (
        standin.tool.id,
        "count the files here",
    )
    assert r.state == "working"
    agent.write_text("".join(agent_lines))  # it works on
    changed = r.read().changed
    assert [m.text for m in changed if m.parent_tool_id == standin.tool.id][:1] == ["Counting."]
    with main.open("a") as f:  # the call is recorded: the stand-in gives way to it
        f.write("\n".join(lines[upto:]) + "\n")
    r.read()
    whole = GeminiTranscriptReader(TranscriptRef("t", _lay_out_subagent(tmp_path / "b")[0]))
    whole.read()
    assert r.messages == whole.messages
    assert not any(m.tool and m.tool.id.startswith("agent:") for m in r.messages)


def test_a_missing_or_corrupt_subagent_costs_only_its_own_entries(tmp_path: Path) -> None:
    whole = GeminiTranscriptReader(TranscriptRef("t", _lay_out_subagent(tmp_path / "whole")[0]))
    whole.read()
    main_only = [m.text for m in whole.messages if m.parent_tool_id is None]
    # Missing: one warning under the call, the rest as it was.
    main, agent = _lay_out_subagent(tmp_path / "missing")
    agent.unlink()
    r = GeminiTranscriptReader(TranscriptRef("t", main))
    r.read()
    assert [m.text for m in r.messages if m.parent_tool_id is None] == main_only
    (warning,) = [m for m in r.messages if m.parent_tool_id is not None]
    assert warning.kind == "lifecycle" and warning.level == "warning"
    # Corrupt and cut off: its readable entries, a warning for the bad line, nothing lost.
    main, agent = _lay_out_subagent(tmp_path / "corrupt")
    good = agent.read_text().splitlines(keepends=True)
    agent.write_text(good[0] + "{not json\n" + "".join(good[1:]) + '{"id": "cut off')
    r = GeminiTranscriptReader(TranscriptRef("t", main))
    r.read()
    assert [m.text for m in r.messages if m.parent_tool_id is None] == main_only
    nested = [m for m in r.messages if m.parent_tool_id is not None]
    assert [m.level for m in nested if m.kind == "lifecycle"] == ["warning"]
    assert len(nested) == 1 + len([m for m in whole.messages if m.parent_tool_id])
    assert r.summary.usage == whole.summary.usage


def test_a_compression_is_noted_with_its_summary_and_keeps_the_chat() -> None:
    r = reader("compress.jsonl")
    assert [(m.kind, m.text, m.detail) for m in r.messages] == [
        ("text", "hello", ""),
        ("text", "Hello from the scripted model.", ""),
        # The scripted model answered the summary request with its side-query text.
        ("lifecycle", "Conversation compacted", "Scripted session"),
    ]
    assert r.state == "idle"


def test_usage_and_context_stay_across_a_compression(tmp_path: Path) -> None:
    lines = (GEMINI / "compress.jsonl").read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if "Got it" in line)
    path = tmp_path / "session-x.jsonl"
    path.write_text("\n".join(lines[:cut]) + "\n")
    before = GeminiTranscriptReader(TranscriptRef("t", path))
    before.read()
    after = reader("compress.jsonl")
    # The compression's own request is recorded nowhere: the figures stay as they were.
    assert after.summary.usage == before.summary.usage
    assert after.summary.context_tokens == before.summary.context_tokens


def test_a_compression_noted_once_however_often_the_history_is_rewritten(
    tmp_path: Path,
) -> None:
    lines = (GEMINI / "compress.jsonl").read_text().splitlines()
    rewrite = next(line for line in lines if '"$set": {"messages"' in line and "Got it" in line)
    path = tmp_path / "session-x.jsonl"
    path.write_text("\n".join([*lines, rewrite, rewrite]) + "\n")
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    r.read()
    assert [m.text for m in r.messages].count("Conversation compacted") == 1


def test_an_image_a_tool_returned_is_an_attachment() -> None:
    r = reader("image.jsonl")
    tool = next(m for m in r.messages if m.tool is not None)
    assert tool.tool is not None and tool.tool.name == "read_file" and tool.tool.status == "ok"
    assert [(a.media_type, a.size) for a in tool.attachments] == [("image/png", 69)]
    assert tool.attachments[0].data.startswith("iVBORw0KGgo")
    assert r.messages[-1].text == "A green pixel."
    # The user record that sends the image back to the model is not a user message.
    assert [m.text for m in r.messages if m.role == "user"] == ["look at the picture"]


def test_an_image_the_user_sent_is_an_attachment_of_the_prompt() -> None:
    # "describe @pic.png": the content sent carries the file between the CLI's markers;
    # the prompt shows as typed (displayContent), with the image.
    r = reader("user_image.jsonl")
    prompt = next(m for m in r.messages if m.role == "user")
    assert prompt.text == "describe @pic.png"
    assert [a.media_type for a in prompt.attachments] == ["image/png"]
    assert peek_session(GEMINI / "user_image.jsonl")[0] == "describe @pic.png"


def test_spawn_isolated_settings_and_hooks(tmp_path: Path) -> None:
    provider = get_provider("gemini")
    context = RunContext(run_id="r", cwd=tmp_path / "work", runtime_dir=tmp_path / "rt")
    context.cwd.mkdir()
    context.runtime_dir.mkdir()
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=Path("gemini"),
            endpoint=Endpoint("http://127.0.0.1:5/", "sk-x"),
            model="gemini-test",
        )
    )
    assert list(plan.argv) == ["gemini", "--model", "gemini-test"]
    assert plan.env["GEMINI_API_KEY"] == "sk-x" and "GEMINI_API_KEY" in plan.secret_env
    assert plan.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:5"
    assert plan.env["GEMINI_CLI_NO_RELAUNCH"] == "true"
    assert "GEMINI_CLI_HOME" in plan.unset_env and "GOOGLE_API_KEY" in plan.unset_env
    assert {"CI", "GITHUB_ACTIONS"} <= plan.unset_env
    settings = json.loads((tmp_path / "rt" / "home" / ".gemini" / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["telemetry"]["enabled"] is False
    assert set(settings["hooks"]) >= {"SessionStart", "BeforeAgent", "AfterAgent", "Notification"}
    trusted = json.loads((tmp_path / "rt" / "home" / ".gemini" / "trustedFolders.json").read_text())
    assert trusted == {str(context.cwd): "TRUST_FOLDER"}


def test_live_signal_reads_the_permission_notification(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    spool = tmp_path / "signals"
    spool.mkdir()
    records = hooks("approve.jsonl")
    upto = next(i for i, r in enumerate(records) if r["hook_event_name"] == "Notification")
    for i, record in enumerate(records[: upto + 1]):
        (spool / f"{i:04d}-1.json").write_text(json.dumps(record))
    signals = GeminiSignals()
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.kind == "approval"
    assert dialog.tool_id == f"confirm:{records[upto]['timestamp']}"
    assert signals.blocked(context) is None
    (spool / f"{upto + 1:04d}-1.json").write_text(json.dumps(records[upto + 1]))
    assert signals.pending_dialog(context) is None


def test_custom_toml_commands(tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "home"
    (home / ".gemini" / "commands").mkdir(parents=True)
    (home / ".gemini" / "commands" / "hi.toml").write_text('prompt = "Say hi"\n')
    project = tmp_path / "work" / ".gemini" / "commands" / "git"
    project.mkdir(parents=True)
    (project / "log.toml").write_text('description = "Show the log"\nprompt = "!{git log}"\n')
    (project / "bad.toml").write_text("description = 'no prompt'\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    specs = {c.name: c for c in get_provider("gemini").commands(tmp_path / "work")}
    assert specs["/hi"].source == "user"
    assert (specs["/git:log"].source, specs["/git:log"].description) == ("project", "Show the log")
    assert "/git:bad" not in specs
    assert specs["/clear"].role == "clear" and specs["/clear"].chat_safe
    assert not specs["/quit"].chat_safe


def test_an_approved_mcp_call_carries_its_confirmation_from_the_hook_record() -> None:
    r = PINNED.reader("mcp_approve", with_hooks=True)
    [message] = [m for m in r.messages if m.dialog is not None]
    assert message.kind == "dialog" and message.dialog is not None and message.tool is not None
    assert message.tool.name == "mcp_labtools_lookup" and message.tool.status == "ok"
    assert "widget -> found" in (message.tool.output or "")
    dialog = message.dialog
    assert (dialog.status, dialog.outcome) == ("answered", "approved")
    assert dialog.questions[0].text == "Allow the MCP tool lookup of server labtools?"
    assert dialog.tool_name == "mcp_labtools_lookup" and message.tool.id == dialog.tool_id
    assert r.state == "idle"
    confirm = [h for h in PINNED.hooks("mcp_approve") or [] if h.get("notification_type")]
    assert confirm[0]["details"]["type"] == "mcp"
    assert "toolArgs" not in confirm[0]["details"]  # the arguments are not reported


@pytest.mark.parametrize(
    ("kind", "says"), [("ask_user", "asks you questions"), ("exit_plan_mode", "its plan")]
)
def test_dialogs_the_cli_does_not_report_are_blocked_with_the_reason(
    tmp_path: Path, kind: str, says: str
) -> None:
    # Their Notification carries only type and title (toSerializableDetails, 0.61.0).
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    spool = tmp_path / "signals"
    spool.mkdir()
    record = {
        "hook_event_name": "Notification",
        "notification_type": "ToolPermission",
        "session_id": "s",
        "message": "Tool requires confirmation",
        "details": {"type": kind, "title": "Ask"},
    }
    (spool / "0001-1.json").write_text(json.dumps(record))
    signals = GeminiSignals()
    assert signals.pending_dialog(context) is None
    reason = signals.blocked(context)
    assert reason is not None and says in reason and "terminal" in reason


def test_a_stray_line_with_an_id_is_not_taken_for_a_compression(tmp_path: Path) -> None:
    # An id and a type Gemini CLI never writes, before the session's rewrites: the chat
    # shows what it shows without the line, and no "Conversation compacted".
    recorded = FIXTURES / "gemini" / "thinking.jsonl"
    lines = recorded.read_bytes().splitlines()
    stray = tmp_path / "stray.jsonl"
    stray.write_bytes(b"\n".join([b'{"id": "", "type": "0"}', *lines]) + b"\n")
    read = read_transcript(stray, provider="gemini").messages
    assert [(m.kind, m.text) for m in read] == [
        (m.kind, m.text) for m in read_transcript(recorded, provider="gemini").messages
    ]
