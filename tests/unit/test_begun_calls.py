"""Unit: an approval whose call the run's own tool server began reads answered at once,
though the agent's CLI records the approval only with the call's result."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from lab_widget._chat._answering import await_recorded
from lab_widget._chat._begun import BegunCall, BegunCalls, calls_folder
from lab_widget._chat._events import ChatEvent
from lab_widget._chat._session import ChatSession
from lab_widget.errors import WaitTimeoutError
from lab_widget.provider import LiveSignals, ReadResult, RunContext, TranscriptReader, TranscriptRef
from lab_widget.schema import Dialog, DialogAnswer, Message, Option, Question, State, ToolCall
from tests.support.fake_provider import FakeProvider, FakeReader

CODE = "import time\ntime.sleep(600)"
ASKED = Dialog(
    kind="approval",
    tool_id="toolu_1",
    tool_name="mcp__kernel__run_python",
    body=f"```python\n{CODE}\n```",
    questions=[Question(text="Run it?", options=[Option(label="Approve")])],
)


class PromptUntilResult(LiveSignals):
    """A CLI that shows its permission prompt as pending until the call's result is in."""

    def __init__(self) -> None:
        self.dialog: Dialog | None = ASKED

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        return self.dialog

    def blocked(self, context: RunContext) -> str | None:
        return None

    def signature(self, context: RunContext) -> object:
        return self.dialog

    def sweep(self, context: RunContext) -> None:
        return


@pytest.mark.parametrize(
    ("call", "tool_input", "answers"),
    [
        (BegunCall("kernel", "run_python", {"code": CODE}), {"code": CODE}, True),
        (BegunCall("kernel", "run_python", {"code": CODE}), None, True),  # from the dialog's text
        (BegunCall("kernel", "run_python", {"code": "x = 1"}), {"code": CODE}, False),
        (BegunCall("kernel", "run_python", {"code": "x = 1"}), None, False),
        (BegunCall("kernel", "insert_cell", {"code": CODE}), {"code": CODE}, False),
        (BegunCall("kernel", "python", {"code": CODE}), {"code": CODE}, False),  # not a whole name
        (BegunCall("other", "run_python", {"code": CODE}), {"code": CODE}, False),
    ],
)
def test_a_call_answers_the_approval_of_its_own_tool_and_arguments_only(
    call: BegunCall, tool_input: dict[str, object] | None, answers: bool
) -> None:
    assert call.answers(ASKED, tool_input) is answers


@pytest.mark.parametrize(
    "native",
    ["mcp__kernel__run_python", "mcp_kernel_run_python", "kernel_run_python", "run_python"],
)
def test_each_clis_name_for_the_tool_is_known(native: str) -> None:
    asked = ASKED.model_copy(update={"tool_name": native})
    assert BegunCall("kernel", "run_python", {"code": CODE}).answers(asked, None)


def test_a_note_is_there_while_the_call_runs_and_unreadable_notes_are_left_out(
    tmp_path: Path,
) -> None:
    calls = BegunCalls(tmp_path / "calls")
    with calls.running("kernel", "run_python", {"code": CODE}):
        (calls.folder / "broken.json").write_text("{not json")
        (calls.folder / "other.json").write_text(json.dumps({"arguments": {}}))
        assert calls.read() == [BegunCall("kernel", "run_python", {"code": CODE})]
    assert {p.name for p in calls.folder.iterdir()} == {"broken.json", "other.json"}


def test_a_note_that_cannot_be_written_does_not_hold_up_the_call(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    ran = []
    with BegunCalls(blocked / "calls").running("kernel", "run_python", {"code": CODE}):
        ran.append(True)
    assert ran == [True]


def chat_waiting_on_approval(tmp_path: Path) -> tuple[ChatSession, PromptUntilResult]:
    provider = FakeProvider()
    signals = PromptUntilResult()
    provider.live_signals = signals
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    calls_folder(context.runtime_dir).mkdir(parents=True)
    (context.runtime_dir / "transcript.jsonl").write_text(
        json.dumps({"type": "user", "text": "time it"}) + "\n"
    )
    chat = ChatSession(provider, context, terminal=None)  # type: ignore[arg-type]
    chat.refresh()
    return chat, signals


def test_the_approval_reads_answered_once_its_call_begins(tmp_path: Path) -> None:
    chat, signals = chat_waiting_on_approval(tmp_path)
    assert chat.pending_dialog == ASKED
    assert chat.state == "question"
    assert calls_folder(chat.context.runtime_dir) in chat.watch_paths()
    events: list[ChatEvent] = []
    chat.subscribe(events.append)
    intended = DialogAnswer(tool_id="toolu_1", answers=[])
    with pytest.raises(WaitTimeoutError):
        await_recorded(chat, ASKED, intended, 0.1)

    calls = BegunCalls(calls_folder(chat.context.runtime_dir))
    with calls.running("kernel", "run_python", {"code": CODE}):
        recorded: list[Dialog] = []
        waiter = threading.Thread(
            target=lambda: recorded.append(await_recorded(chat, ASKED, intended, 10)[0])
        )
        waiter.start()
        chat.refresh()  # what the tailer does when the note lands
        waiter.join(10)
        assert [d.status for d in recorded] == ["answered"]
        assert recorded[0].outcome == "approved"
        assert chat.pending_dialog is None
        assert chat.state == "working"
        assert events and events[-1].state == "working"
    # The call ended; the CLI has not written its result yet, and still reports the prompt.
    chat.refresh()
    assert chat.pending_dialog is None
    assert chat.state == "working"
    signals.dialog = None  # its result is in
    chat.refresh()
    assert chat.state == "working"


def test_another_call_does_not_answer_the_approval(tmp_path: Path) -> None:
    chat, _ = chat_waiting_on_approval(tmp_path)
    calls = BegunCalls(calls_folder(chat.context.runtime_dir))
    with calls.running("kernel", "run_python", {"code": "print('something else')"}):
        chat.refresh()
        assert chat.pending_dialog == ASKED
        assert chat.state == "question"


class ToolReader(FakeReader):
    """The fake transcript, with a line ``{"type": "tool"}`` read as the call of ``ASKED``,
    running."""

    def read(self) -> ReadResult:
        items = self._tail.read()
        changed = []
        for item in items:
            value = getattr(item, "value", {})
            if value.get("type") == "tool":
                tool = ToolCall(id="toolu_1", name=ASKED.tool_name, input={"code": CODE})
                message = Message(seq=len(self._messages), kind="tool", role="assistant", tool=tool)
            else:
                message = Message(seq=len(self._messages), kind="text", role="user", text="go")
                self._state = "working"
            self._messages.append(message)
            changed.append(message)
        return ReadResult(changed=changed, reset=False)


class ToolProvider(FakeProvider):
    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return ToolReader(ref)


def test_a_prompt_the_cli_stops_showing_once_answered_reads_answered_when_its_call_begins(
    tmp_path: Path,
) -> None:
    # As OpenCode and Kilo do: the prompt goes once answered, the call stays running (and
    # the chat shows it as the approval it was) until its result.
    provider = ToolProvider()
    signals = PromptUntilResult()
    provider.live_signals = signals
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    calls_folder(context.runtime_dir).mkdir(parents=True)
    lines = [{"type": "user", "text": "go"}, {"type": "tool"}]
    (context.runtime_dir / "transcript.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    chat = ChatSession(provider, context, terminal=None)  # type: ignore[arg-type]
    chat.refresh()
    assert chat.pending_dialog == ASKED
    signals.dialog = None  # answered in the TUI: no longer asked
    chat.refresh()
    [shown] = [m for m in chat.messages if m.tool is not None]
    assert shown.dialog is not None and shown.dialog.status == "pending"
    with BegunCalls(calls_folder(context.runtime_dir)).running(
        "kernel", "run_python", {"code": CODE}
    ):
        chat.refresh()
        [shown] = [m for m in chat.messages if m.tool is not None]
        assert shown.dialog is not None
        assert (shown.dialog.status, shown.dialog.outcome) == ("answered", "approved")
        assert chat.state == "working"


class PromptInTheFiles(FakeReader):
    """A transcript that keeps the approval open until the CLI writes its answer, and says
    ``question`` meanwhile (as Mistral Vibe's store does)."""

    open_prompt = True

    @property
    def state(self) -> State:
        return "question" if self.open_prompt else super().state

    @property
    def pending_dialog(self) -> Dialog | None:
        return ASKED if self.open_prompt else None


class PromptInTheFilesProvider(FakeProvider):
    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return PromptInTheFiles(ref)


def test_a_prompt_the_files_keep_open_reads_working_once_its_call_begins(
    tmp_path: Path,
) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    calls_folder(context.runtime_dir).mkdir(parents=True)
    (context.runtime_dir / "transcript.jsonl").write_text(
        json.dumps({"type": "user", "text": "go"}) + "\n"
    )
    chat = ChatSession(PromptInTheFilesProvider(), context, terminal=None)  # type: ignore[arg-type]
    chat.refresh()
    assert (chat.pending_dialog, chat.state) == (ASKED, "question")
    states: list[str] = []
    chat.subscribe(lambda event: states.append(event.state))
    with BegunCalls(calls_folder(context.runtime_dir)).running(
        "kernel", "run_python", {"code": CODE}
    ):
        chat.refresh()
        assert (chat.pending_dialog, chat.state) == (None, "working")
    chat.refresh()  # the call ended; the files still hold the prompt open
    assert chat.state == "working"
    assert "question" not in states, states
