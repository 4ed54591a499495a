"""Codex's question picker (the ``request_user_input`` tool of Plan mode) as a dialog: the
call's questions, the keys that answer them, and the answers its output records.

Couplings pinned to 0.171.0 (``_compat.QUESTION_*``) and verified live
(``tests/live/codex/test_questions.py``):

- The picker shows one question at a time ("Question 1/2"), its options numbered, then a
  row "None of the above" the client adds. A fresh question starts on its first row.
- The digit of an option picks it and moves to the next question; on the last question it
  submits them all.
- Typed answers: Down to "None of the above", Tab opens its notes field, the text, then
  Enter (which moves on, or submits all on the last question).
- The call's ``function_call_output`` is ``{"answers": {<question id>: {"answers": [...]}}}``:
  the option label, or ``"None of the above"`` and ``"user_note: <text>"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...schema import Answer, Dialog, DialogAnswer
from .. import Terminal
from ..kit import as_dict, picker_questions
from . import _compat

__all__ = ["Step", "play", "question_dialog", "recipe", "recorded_answers"]


def question_dialog(tool_input: Any, call_id: str | None) -> Dialog:
    """The call's questions as a dialog; questions keep their ids in ``header`` order.

    Examples
    --------
    >>> q = {"id": "db", "header": "DB", "question": "Which?",
    ...      "options": [{"label": "SQLite", "description": "a file"}]}
    >>> d = question_dialog({"questions": [q]}, "call_1")
    >>> d.kind, d.tool_id, d.questions[0].options[0].label, d.questions[0].free_text
    ('question', 'call_1', 'SQLite', True)
    """
    # The picker's "None of the above" row always takes notes.
    questions = picker_questions(tool_input)
    answerable = bool(questions) and all(0 < len(q.options) < 9 for q in questions)
    return Dialog(
        kind="question",
        questions=questions,
        answerable=answerable,
        tool_id=call_id,
        tool_name=_compat.QUESTION_TOOL,
    )


def question_ids(tool_input: Any) -> list[str]:
    """The ids the call gave its questions, in order (the output is keyed by them)."""
    return [str(as_dict(q).get("id") or "") for q in as_dict(tool_input).get("questions") or []]


def recorded_answers(dialog: Dialog, tool_input: Any, output: str) -> list[Answer] | None:
    """The answers the call's output records, one per question; ``None`` when the output
    holds none (the tool refused, as it does outside Plan mode).

    Examples
    --------
    >>> q = {"id": "db", "question": "Which?", "options": [{"label": "A"}]}
    >>> d = question_dialog({"questions": [q]}, "c")
    >>> out = '{"answers": {"db": {"answers": ["None of the above", "user_note: mine"]}}}'
    >>> recorded_answers(d, {"questions": [q]}, out)
    [Answer(selected=[], text='mine')]
    >>> recorded_answers(d, {"questions": [q]}, "request_user_input is unavailable") is None
    True
    """
    try:
        value = json.loads(output)
    except ValueError:
        return None
    answers = as_dict(as_dict(value).get("answers"))
    if not answers:
        return None
    out = []
    for question, qid in zip(dialog.questions, question_ids(tool_input), strict=False):
        given = as_dict(answers.get(qid)).get("answers")
        values = [str(v) for v in given] if isinstance(given, list) else []
        labels = {o.label for o in question.options}
        notes = [
            v.removeprefix(_compat.QUESTION_NOTE_PREFIX)
            for v in values
            if v.startswith(_compat.QUESTION_NOTE_PREFIX)
        ]
        out.append(
            Answer(
                selected=[v for v in values if v in labels],
                text=" ".join(notes) if notes else None,
            )
        )
    return out


@dataclass(frozen=True)
class Step:
    """One move of the recipe: a named key, or text typed into the notes field."""

    key: str | None = None
    text: str | None = None
    moves_on: bool = False
    """The picker shows the next question (or closes) after this key."""


def recipe(dialog: Dialog, answer: DialogAnswer) -> list[Step]:
    """The keys that play ``answer`` into the open picker of ``dialog``.

    Examples
    --------
    >>> from lab_widget.schema import Option, Question
    >>> q = Question(header="DB", text="Which?", options=[Option(label="A"), Option(label="B")])
    >>> d = Dialog(kind="question", questions=[q, q], tool_id="c")
    >>> a = DialogAnswer(answers=[Answer(selected=["B"]), Answer(text="mine")])
    >>> [s.key or s.text for s in recipe(d, a)]
    ['2', 'Down', 'Down', 'Tab', 'mine', 'Enter']
    """
    steps: list[Step] = []
    for question, given in zip(dialog.questions, answer.answers, strict=True):
        if given.text:
            steps += [Step(key="Down") for _ in question.options]
            steps += [Step(key="Tab"), Step(text=given.text), Step(key="Enter", moves_on=True)]
        else:
            index = [o.label for o in question.options].index(given.selected[0])
            steps.append(Step(key=str(index + 1), moves_on=True))
    return steps


def play(terminal: Terminal, steps: list[Step], reported: float | None = None) -> None:
    """Type a recipe at the picker's pace (``_compat.QUESTION_PICKER``); ``reported`` is
    when the hook reported the call (the settle counts from then).
    """
    _compat.QUESTION_PICKER.play(terminal, [(s.text, s.key, s.moves_on) for s in steps], reported)
