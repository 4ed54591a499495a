"""Shared pieces of the benchmarks: synthetic transcripts, statistics, a file-backed chat."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import comm  # noqa: E402
from comm import DummyComm  # noqa: E402

from lab_widget._chat._session import ChatEvent, ChatSession, Epoch  # noqa: E402
from lab_widget._widgets._view import RunView  # noqa: E402
from lab_widget.provider import (  # noqa: E402
    RunContext,
    TranscriptReader,
    TranscriptRef,
    get_provider,
    register,
)
from lab_widget.schema import CommandSpec, Dialog, DialogAnswer, Message, State  # noqa: E402
from tests.support.fake_provider import FakeProvider  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "claude-code"
register("fake", FakeProvider)

Row = tuple[str, str]


def machine_rows() -> list[Row]:
    """Cores, CPU model and load: the machine is shared, so the figures need this context."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        ("machine", f"{os.cpu_count()} cores, {model}"),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("load average at start (1/5/15 min)", load),
    ]


def fixture_entries(name: str = "tools.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines()]


def fresh(entry: dict[str, Any], round_: int) -> dict[str, Any]:
    """A recorded entry with fresh ids, so repeated rounds are distinct messages."""
    out = dict(entry, uuid=str(uuid.uuid4()))
    message = out.get("message")
    if isinstance(message, dict):
        message = dict(message)
        if "id" in message:
            message["id"] = f"{message['id']}-{round_}"
        content = message.get("content")
        if isinstance(content, list):
            # Tool ids pair calls with results: keep the pairs, but per round.
            blocks = []
            for original in content:
                block = dict(original) if isinstance(original, dict) else original
                if isinstance(block, dict):
                    for key in ("id", "tool_use_id"):
                        if key in block:
                            block[key] = f"{block[key]}-{round_}"
                blocks.append(block)
            message["content"] = blocks
        out["message"] = message
    return out


_COMPACT = (",", ":")


# The shape of long real sessions, which the reader must keep up with: most bytes are tool
# output (file reads, test logs), written twice per result (the model's ``tool_result`` and
# the CLI's own ``toolUseResult``), between bookkeeping lines the reader never parses
# (attachments, request shapes, snapshots). Sizes cycle from a line to a long file read.
_OUTPUT_SIZES = (300, 1_500, 6_000, 24_000, 60_000)
_SOURCE = "".join(p.read_text() for p in sorted((ROOT / "lab_widget" / "_export").glob("*.py")))


def _output(size: int, round_: int) -> str:
    """A file read as the CLI returns it: numbered lines of real source, ``size`` chars."""
    start = (round_ * 997) % len(_SOURCE)
    text = _SOURCE[start:] + _SOURCE
    while len(text) < size:
        text += _SOURCE
    return "\n".join(f"{i + 1:>6}\t{line}" for i, line in enumerate(text[:size].splitlines()))


def _real_sized(entry: dict[str, Any], round_: int) -> dict[str, Any]:
    """A recorded entry with its tool output and thinking grown to long sessions' sizes."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return entry
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
            block["content"] = _output(_OUTPUT_SIZES[round_ % len(_OUTPUT_SIZES)], round_)
            result = entry.get("toolUseResult")
            if isinstance(result, dict) and "stdout" in result:
                result["stdout"] = block["content"]
        elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            block["thinking"] = " ".join([block["thinking"]] * 20)
    return entry


def recorded_sessions() -> list[list[dict[str, Any]]]:
    """Every recorded Claude Code session, of every recorded version, as its entries."""
    files = sorted(FIXTURES.glob("*.jsonl")) + sorted(FIXTURES.glob("v*/*.jsonl"))
    return [
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for path in files
        if not path.name.endswith(".hooks.jsonl")
    ]


def synthetic_transcript(path: Path, megabytes: float) -> int:
    """A long session of the real mix, up to ``megabytes``; bytes written.

    Every recorded session (every line type the recorded versions write) repeated with fresh
    ids, tool output and thinking grown to long sessions' sizes (``_real_sized``). Lines
    are written compact and with raw non-ASCII text, as the CLI writes them.
    """
    sessions = recorded_sessions()
    target = int(megabytes * 1024 * 1024)
    written = 0
    with path.open("w", encoding="utf-8") as f:
        round_ = 0
        while written < target:
            for entries in sessions:
                for entry in entries:
                    round_ += 1
                    grown = _real_sized(fresh(json.loads(json.dumps(entry)), round_), round_)
                    line = json.dumps(grown, separators=_COMPACT, ensure_ascii=False) + "\n"
                    f.write(line)
                    written += len(line.encode())
    return written


def exchange_lines(round_: int) -> list[str]:
    """One user prompt and its assistant answer (two messages), as transcript lines."""
    entries = [e for e in fixture_entries("hello.jsonl") if e.get("type") in ("user", "assistant")]
    return [json.dumps(fresh(e, round_)) + "\n" for e in entries]


def transcript_with_messages(path: Path, messages: int) -> None:
    """A transcript of about ``messages`` text messages (prompt/answer pairs)."""
    template = [e for e in fixture_entries("hello.jsonl") if e.get("type") in ("user", "assistant")]
    with path.open("w") as f:
        for round_ in range(max(1, messages // 2)):
            for entry in template:
                f.write(json.dumps(fresh(entry, round_)) + "\n")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def ms(values: list[float]) -> str:
    return (
        f"p50 {statistics.median(values) * 1000:.1f} ms, "
        f"p95 {percentile(values, 0.95) * 1000:.1f} ms (n={len(values)})"
    )


class FileProvider(FakeProvider):
    """The fake provider's seam over a given transcript file read by a real provider's
    reader: ChatSession, tailer and view run their real code without an agent process.
    """

    def __init__(self, path: Path, reader_of: str = "claude-code") -> None:
        self.path = path
        self.reader_of = reader_of

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        return current or TranscriptRef("bench", self.path, watch=(self.path.parent,))

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return get_provider(self.reader_of).open_reader(ref)

    def is_ready(self, context: RunContext) -> bool:
        return True


class ChatSource:
    """A ChatSession seen through the view's ChatSource protocol."""

    display_name = "Bench"
    clear_command = "/clear"
    attach_command = "tmux attach"
    state_reason = ""
    pending_dialog: Dialog | None = None
    commands: ClassVar[list[CommandSpec]] = []

    def __init__(self, chat: ChatSession) -> None:
        self.chat = chat

    @property
    def messages(self) -> list[Message]:
        return self.chat.messages

    @property
    def state(self) -> State:
        return self.chat.state

    @property
    def transcript_id(self) -> str | None:
        return self.chat.transcript_id

    @property
    def past_conversations(self) -> list[Epoch]:
        return self.chat.past

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        return self.chat.subscribe(listener)

    def answer_dialog(self, answer: DialogAnswer) -> None:
        raise NotImplementedError

    def send(self, text: str) -> None:
        raise NotImplementedError

    def interrupt(self) -> None:
        raise NotImplementedError

    def clear(self) -> None:
        raise NotImplementedError


def file_chat(path: Path, runtime: Path) -> ChatSession:
    provider = FileProvider(path)
    context = RunContext(run_id="bench", cwd=runtime, runtime_dir=runtime)
    return ChatSession(provider, context, terminal=None)  # type: ignore[arg-type]


class RecordingComm(DummyComm):  # type: ignore[misc]
    """Counts the bytes a widget publishes (the JSON of each comm message)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sizes: list[int] = []
        super().__init__(*args, **kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        self.sizes.append(len(json.dumps(data, default=str).encode()))


@contextmanager
def recording_comms() -> Iterator[list[RecordingComm]]:
    made: list[RecordingComm] = []
    original = comm.create_comm

    def create_comm(*args: Any, **kwargs: Any) -> RecordingComm:
        c = RecordingComm(*args, **kwargs)
        made.append(c)
        return c

    comm.create_comm = create_comm
    try:
        yield made
    finally:
        comm.create_comm = original


def view_of(chat: ChatSession) -> tuple[RunView, RecordingComm]:
    with recording_comms() as made:
        view = RunView(ChatSource(chat))
    return view, made[-1]
