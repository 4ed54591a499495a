"""Approve for this run: a tool of the run's own servers (the kernel's ``run_python``) that the
user approved once for the rest of the run is approved by lab_widget each later time it asks.

The CLIs' own "always" would outlive the run (a rule saved in the user's settings, or kept
for the CLI's whole session), so their forms never offer it for these tools. This one lives
in the run's object: the form gets one more option, the answer sent to the CLI is its plain
Approve, and the run answers the next asks of that tool itself, each still shown in the chat.

Examples
--------
>>> from lab_widget.provider import ToolServer
>>> from lab_widget.schema import Option, Question
>>> allow = RunAllowance([ToolServer("kernel", ("k",), asking=("run_python",))])
>>> ask = Dialog(kind="approval", tool_name="mcp__kernel__run_python", tool_id="t1",
...     questions=[Question(text="Run it?", options=[Option(label="Approve"),
...     Option(label="Reject")])])
>>> [o.label for o in allow.offer(ask).questions[0].options]
['Approve', 'Approve for this run', 'Reject']
>>> allow.take(ask, "Approve for this run"), allow.due(ask.model_copy(update={"tool_id": "t2"}))
('Approve', True)
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from ..provider import APPROVE, ToolServer
from ..schema import Answer, Dialog, DialogAnswer, Option
from ._answers import UserAnswer

__all__ = ["RUN_APPROVE", "RUN_OUTCOME", "RunAllowance"]

RUN_APPROVE = "Approve for this run"
"""The option that approves a tool of the run's servers for the rest of the run."""

RUN_OUTCOME = "approved for this run"
"""What a call answered so (by the user, or later by the run) says it was."""

_DESCRIPTION = "Approve this call, and every later call of this tool while this run lives"


class RunAllowance:
    """Which asking tools of ``servers`` the user approved for the rest of the run."""

    def __init__(self, servers: Sequence[ToolServer]) -> None:
        # Each CLI names a server's tool its own way: mcp__kernel__run_python,
        # kernel-run_python, mcp_kernel.run_python...
        self._tools = {
            (server.name, tool): re.compile(
                rf"(?:^|[^A-Za-z0-9]){re.escape(server.name)}[_.\-]+{re.escape(tool)}$"
            )
            for server in servers
            for tool in server.asking
        }
        self._granted: set[tuple[str, str]] = set()
        self._answered: set[str] = set()
        self._returned: set[str] = set()
        self._lock = threading.Lock()

    def _tool(self, dialog: Dialog | None) -> tuple[str, str] | None:
        if dialog is None or dialog.kind != "approval" or len(dialog.questions) != 1:
            return None
        if APPROVE not in [o.label for o in dialog.questions[0].options]:
            return None
        for tool, pattern in self._tools.items():
            if pattern.search(dialog.tool_name):
                return tool
        return None

    def offer(self, dialog: Dialog) -> Dialog:
        """``dialog`` with the run-wide option after Approve, where it asks for such a tool."""
        if self._tool(dialog) is None or dialog.status != "pending":
            return dialog
        question = dialog.questions[0]
        options: list[Option] = []
        for option in question.options:
            options.append(option)
            if option.label == APPROVE:
                options.append(Option(label=RUN_APPROVE, description=_DESCRIPTION))
        asked = question.model_copy(update={"options": options})
        return dialog.model_copy(update={"questions": [asked]})

    def take(self, dialog: Dialog, answers: UserAnswer) -> UserAnswer:
        """``answers`` as the CLI takes them: the run-wide option becomes its plain Approve,
        and the tool is approved from now on.
        """
        tool = self._tool(dialog)
        if tool is None:
            return answers
        if isinstance(answers, str):
            if answers.strip().casefold() != RUN_APPROVE.casefold():
                return answers
            self._grant(tool, dialog)
            return APPROVE
        if isinstance(answers, DialogAnswer) and answers.answers:
            first = answers.answers[0]
            if RUN_APPROVE not in first.selected:
                return answers
            self._grant(tool, dialog)
            plain = Answer(selected=[APPROVE], text=first.text)
            return answers.model_copy(update={"answers": [plain, *answers.answers[1:]]})
        return answers

    def _grant(self, tool: tuple[str, str], dialog: Dialog) -> None:
        with self._lock:
            self._granted.add(tool)
            if dialog.tool_id:
                self._answered.add(dialog.tool_id)

    def answers(self, dialog: Dialog) -> bool:
        """Whether ``dialog`` is the run's to answer (its tool approved for the run), not the
        user's: until it is answered, the run counts as working.
        """
        tool = self._tool(dialog)
        if tool is None or not dialog.tool_id or dialog.status != "pending":
            return False
        with self._lock:
            return tool in self._granted and dialog.tool_id not in self._returned

    def give_back(self, dialog: Dialog) -> None:
        """The run could not answer ``dialog``: it is the user's again."""
        if dialog.tool_id:
            with self._lock:
                self._returned.add(dialog.tool_id)

    def due(self, dialog: Dialog | None) -> bool:
        """Whether the run should approve ``dialog`` itself, now (once per call)."""
        tool = self._tool(dialog)
        if dialog is None or tool is None or not dialog.tool_id:
            return False
        with self._lock:
            if tool not in self._granted or dialog.tool_id in self._answered:
                return False
            self._answered.add(dialog.tool_id)
            return True
