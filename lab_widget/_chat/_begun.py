r"""Calls of an asking tool that the run's own tool server has begun: the answer to their
approval, where the agent's CLI records that answer only once the call ends.

Claude Code, Codex and Gemini CLI write nothing when the user approves a call; the
approval shows in their files with the call's result. For a call that runs minutes (code
in the user's kernel) the chat would keep asking a question already answered, and
``run.answer()`` would wait for the call to end. A server the run gave its agent receives a
call only once it was approved, so it notes each call of an asking tool in the run's calls
folder for as long as the call runs (:meth:`BegunCalls.running`), and the chat takes a note
with the pending approval's tool and arguments as that approval's answer
(:meth:`BegunCall.answers`).

Examples
--------
>>> import tempfile
>>> from lab_widget.schema import Dialog
>>> calls = BegunCalls(Path(tempfile.mkdtemp()) / "calls")
>>> asked = Dialog(kind="approval", tool_name="mcp__kernel__run_python",
...                body="```python\nx = 1\n```", tool_id="t1")
>>> with calls.running("kernel", "run_python", {"code": "x = 1"}):
...     [call.answers(asked, None) for call in calls.read()]
[True]
>>> calls.read()
[]
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..schema import Dialog

__all__ = ["BegunCall", "BegunCalls", "calls_folder"]

_NOTE = ".json"


def calls_folder(runtime_dir: Path) -> Path:
    """Where the tool servers of the run with ``runtime_dir`` note the calls they run.

    Examples
    --------
    >>> calls_folder(Path("/run/lab_widget/r1")).as_posix()
    '/run/lab_widget/r1/calls'
    """
    return runtime_dir / "calls"


@dataclass(frozen=True)
class BegunCall:
    """One call a tool server runs now: the server's name, its tool and its arguments."""

    server: str
    tool: str
    arguments: Mapping[str, str] = field(default_factory=dict)

    def answers(self, dialog: Dialog, tool_input: Mapping[str, object] | None) -> bool:
        """Whether this call is the one ``dialog`` asked to approve.

        ``tool_input`` is the call's input as the transcript has it, when it has the call:
        each argument must be there unchanged; without it, in the dialog's text.
        """
        if dialog.kind != "approval" or not _names(dialog.tool_name, self.server, self.tool):
            return False
        for key, value in self.arguments.items():
            if tool_input is not None:
                if tool_input.get(key) != value:
                    return False
            elif value.strip() not in dialog.body:
                return False
        return True


def _names(native: str, server: str, tool: str) -> bool:
    # A CLI names a server's tool with its own prefix: mcp__kernel__run_python (Claude
    # Code, Codex), mcp_kernel_run_python (Gemini CLI), kernel_run_python, or bare.
    named = rf"(?:^|[^A-Za-z0-9]){re.escape(server)}[^A-Za-z0-9]+{re.escape(tool)}"
    return native == tool or re.fullmatch(rf"(?:.*{named})", native) is not None


class BegunCalls:
    """The calls folder of one run, as its tool servers write it and its chat reads it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @contextlib.contextmanager
    def running(self, server: str, tool: str, arguments: Mapping[str, str]) -> Iterator[None]:
        """Note the call of ``server``'s ``tool`` with ``arguments`` while the block runs.

        A note that cannot be written is skipped: the approval then reads answered when the
        call ends, as the CLI records it, and the call itself is not held up.
        """
        note = self.folder / f"{uuid.uuid4().hex}{_NOTE}"
        partial = note.with_name(f".{note.name}.partial")
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            partial.write_text(
                json.dumps({"server": server, "tool": tool, "arguments": dict(arguments)})
            )
            partial.replace(note)  # whole or absent for a reader
        except OSError:
            pass
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                note.unlink(missing_ok=True)

    def read(self) -> list[BegunCall]:
        """The calls running now; a note that cannot be read is left out."""
        try:
            notes = list(self.folder.glob(f"*{_NOTE}"))
        except OSError:
            return []
        found = []
        for note in notes:
            try:
                raw = json.loads(note.read_text())
                arguments = {str(k): str(v) for k, v in dict(raw.get("arguments", {})).items()}
                found.append(BegunCall(str(raw["server"]), str(raw["tool"]), arguments))
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue  # ended meanwhile, or not ours
        return found
