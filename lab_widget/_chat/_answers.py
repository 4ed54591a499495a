"""Turning what a user writes into one validated answer per question of a dialog."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidAnswerError
from ..schema import Answer, Dialog, DialogAnswer, Question

__all__ = ["FreeText", "UserAnswer", "normalise_answer", "validate_answer"]


@dataclass(frozen=True)
class FreeText:
    """An answer typed instead of (or, on a multi-select question, besides) the options.

    Examples
    --------
    >>> FreeText("Use DuckDB").text
    'Use DuckDB'
    """

    text: str


OneAnswer = str | Sequence[str | FreeText] | FreeText
UserAnswer = str | Mapping[str, OneAnswer] | DialogAnswer


def _question_for(dialog: Dialog, key: str) -> int:
    for i, q in enumerate(dialog.questions):
        if key in (q.header, q.text):
            return i
    names = ", ".join(repr(q.header or q.text) for q in dialog.questions)
    raise InvalidAnswerError(f"no question {key!r} in this dialog; its questions: {names}")


def _label(question: Question, given: str) -> str:
    for option in question.options:
        if given == option.label:
            return option.label
    for option in question.options:  # "approve_always" for "Approve always"
        if given.replace("_", " ").casefold() == option.label.casefold():
            return option.label
    labels = ", ".join(repr(o.label) for o in question.options)
    raise InvalidAnswerError(f"{given!r} is not an option of {question.text!r}; options: {labels}")


def _one(question: Question, given: OneAnswer) -> Answer:
    items: list[str | FreeText] = [given] if isinstance(given, str | FreeText) else list(given)
    selected = [_label(question, i) for i in items if isinstance(i, str)]
    texts = [i.text for i in items if isinstance(i, FreeText)]
    return Answer(selected=selected, text=" ".join(texts) if texts else None)


def validate_answer(dialog: Dialog, answer: DialogAnswer) -> DialogAnswer:
    """Check ``answer`` against ``dialog``; raise :class:`InvalidAnswerError` if it does not fit."""
    if len(answer.answers) != len(dialog.questions):
        raise InvalidAnswerError(
            f"the dialog asks {len(dialog.questions)} question(s); "
            f"got {len(answer.answers)} answer(s)"
        )
    for question, given in zip(dialog.questions, answer.answers, strict=True):
        labels = {o.label for o in question.options}
        unknown = [s for s in given.selected if s not in labels]
        if unknown:
            raise InvalidAnswerError(f"{unknown[0]!r} is not an option of {question.text!r}")
        if len(set(given.selected)) != len(given.selected):
            raise InvalidAnswerError(f"an option is picked twice for {question.text!r}")
        text = (given.text or "").strip()
        if text and not question.free_text:
            raise InvalidAnswerError(f"{question.text!r} takes no typed answer")
        if not question.multi_select and len(given.selected) + bool(text) > 1:
            raise InvalidAnswerError(f"{question.text!r} takes one answer")
        if not given.selected and not text:
            raise InvalidAnswerError(f"no answer for {question.text!r}")
    return DialogAnswer(tool_id=answer.tool_id or dialog.tool_id, answers=answer.answers)


def normalise_answer(dialog: Dialog, given: UserAnswer) -> DialogAnswer:
    """One validated answer per question from the forms users write.

    Examples
    --------
    >>> from lab_widget.schema import Option
    >>> q = Question(header="DB", text="Which?", options=[Option(label="SQLite")])
    >>> d = Dialog(kind="question", questions=[q], tool_id="t1")
    >>> normalise_answer(d, {"DB": "SQLite"}).answers[0].selected
    ['SQLite']
    >>> normalise_answer(d, {"Which?": FreeText("DuckDB")}).answers[0].text
    'DuckDB'
    """
    if isinstance(given, DialogAnswer):
        return validate_answer(dialog, given)
    if isinstance(given, str):
        if len(dialog.questions) != 1:
            raise InvalidAnswerError("this dialog asks several questions: answer with a mapping")
        answers = [_one(dialog.questions[0], given)]
    else:
        found: dict[int, Answer] = {}
        for key, value in given.items():
            index = _question_for(dialog, key)
            found[index] = _one(dialog.questions[index], value)
        answers = [found.get(i, Answer()) for i in range(len(dialog.questions))]
    return validate_answer(dialog, DialogAnswer(tool_id=dialog.tool_id, answers=answers))
