"""What adapters share about dialogs: answers in words, the one key of an approval, a
recipe played once the prompt takes keys, and a declined call told by its result.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from ..errors import LabWidgetError
from ..schema import Answer, Dialog, DialogAnswer, ToolCall
from ._seam import ApprovalOutcome, Terminal

__all__ = ["approval_key", "approval_said_in_result", "describe_answers", "play_keys"]


def approval_key(dialog: Dialog, answer: DialogAnswer, keys: Mapping[str, str], reject: str) -> str:
    """The one key that plays an approval answer: ``keys`` maps each option's label to its
    key; anything else is the ``reject`` option's.

    Examples
    --------
    >>> from lab_widget.schema import Answer, Question
    >>> d = Dialog(kind="approval", questions=[Question(header="P", text="Run it?")])
    >>> keys = {"Approve": "y", "Reject": "Escape"}
    >>> approval_key(d, DialogAnswer(answers=[Answer(selected=["Approve"])]), keys, "Reject")
    'y'
    >>> approval_key(d, DialogAnswer(answers=[]), keys, "Reject")
    'Escape'
    """
    if dialog.kind != "approval":
        raise LabWidgetError(f"no recipe for {dialog.kind} dialogs")
    choice = answer.answers[0].selected[0] if answer.answers and answer.answers[0].selected else ""
    return keys.get(choice, keys[reject])


def play_keys(terminal: Terminal, keys: list[str], settle: float) -> None:
    """Press a recipe's keys once the prompt, open for ``settle`` seconds, takes them."""
    time.sleep(settle)
    for key in keys:
        terminal.keys(key)


def describe_answers(dialog: Dialog, answers: Sequence[Answer]) -> str:
    """Answers in words: ``"Database → SQLite; Features → Auth, Export"``."""
    parts = []
    for question, answer in zip(dialog.questions, answers, strict=False):
        chosen = [*answer.selected, *([answer.text] if answer.text else [])]
        parts.append(f"{question.header or question.text} → {', '.join(chosen) or '(none)'}")
    return "; ".join(parts)


def approval_said_in_result(tool: ToolCall, word: str = "rejected") -> ApprovalOutcome:
    """``"rejected"`` for a failed call whose output says ``word``, else ``"approved"``.

    For adapters whose CLI (or reader) writes the refusal into the declined call's result.

    Examples
    --------
    >>> approval_said_in_result(ToolCall(id="t", name="Bash", status="error",
    ...                                  output="aborted by user (rejected)"))
    'rejected'
    >>> approval_said_in_result(ToolCall(id="t", name="Bash", status="error", output="exit 1"))
    'approved'
    """
    failed = tool.status == "error" and word in (tool.output or "")
    return "rejected" if failed else "approved"
