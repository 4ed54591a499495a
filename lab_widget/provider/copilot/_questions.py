"""Copilot CLI's ``ask_user`` form as a question dialog: the call's fields, the keys that
answer them, and the answers its result records.

Couplings pinned to 1.0.102 (``_compat.QUESTION_*``) and verified live
(``tests/live/copilot/test_questions.py``):

- ``ask_user {message, requestedSchema: {properties: {<key>: <field>}, required}}``: a
  form, one tab per field in the order given, titled by the field's ``title``.
- A choice field (``enum``, ``oneOf``) lists its options then "Other (type your answer)";
  a multi-select (``type: "array"``, ``items.enum`` / ``items.anyOf``) the same, toggled by
  Space; a plain string field is a text box. The cursor starts on the first row.
- Down moves the cursor; on "Other" a text box opens under the list and takes typing;
  Enter accepts the field and shows the next tab, and on the last tab submits the form.
- The call's ``result.detailedContent`` is ``"User responded:"`` then one line
  ``<key>: <value>`` per field: an option's value, the typed text, or a multi-select's
  values joined by ``", "``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...schema import Answer, Dialog, DialogAnswer, Option, Question
from .. import Terminal
from ..kit import as_dict, describe_answers
from . import _compat

__all__ = ["Step", "answered", "play", "question_dialog", "recipe", "recorded_answers"]


@dataclass(frozen=True)
class _Field:
    """One field of the form: its key, and its options' recorded values and labels."""

    key: str
    title: str
    text: str
    values: list[str]
    labels: list[str]
    multi: bool
    playable: bool


def _choices(spec: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """The values and labels of an ``enum`` (with ``enumNames``) or a ``oneOf``/``anyOf``
    list; ``None`` when the field lists no options.
    """
    enum = spec.get("enum")
    if isinstance(enum, list):
        values = [str(v) for v in enum]
        names = spec.get("enumNames")
        labels = [str(n) for n in names] if isinstance(names, list) else values
        return values, labels if len(labels) == len(values) else values
    consts = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(consts, list):
        items = [as_dict(c) for c in consts]
        return [str(c.get("const")) for c in items], [
            str(c.get("title") or c.get("const")) for c in items
        ]
    return None


def _fields(tool_input: Any) -> list[_Field]:
    properties = as_dict(as_dict(as_dict(tool_input).get("requestedSchema")).get("properties"))
    fields = []
    for key, raw in properties.items():
        spec = as_dict(raw)
        multi = spec.get("type") == "array"
        choices = _choices(as_dict(spec.get("items")) if multi else spec)
        values, labels = choices if choices is not None else ([], [])
        # Seen: choice, multi-select and plain string fields; a default moves the cursor
        # and booleans and numbers draw otherwise (not played).
        playable = "default" not in spec and (choices is not None or spec.get("type") == "string")
        title = str(spec.get("title") or key)
        text = str(spec.get("description") or title)
        fields.append(_Field(key, title, text, values, labels, multi, playable))
    return fields


def question_dialog(tool_input: Any, call_id: str | None) -> Dialog:
    """The form of an ``ask_user`` call as a dialog, one question per field.

    Examples
    --------
    >>> form = {"message": "Setup?", "requestedSchema": {"properties": {
    ...     "db": {"type": "string", "title": "Database", "enum": ["sqlite", "pg"],
    ...            "enumNames": ["SQLite", "Postgres"]},
    ...     "name": {"type": "string", "title": "Name"}}}}
    >>> d = question_dialog(form, "call_1")
    >>> d.kind, d.body, d.answerable
    ('question', 'Setup?', True)
    >>> [(q.header, [o.label for o in q.options]) for q in d.questions]
    [('Database', ['SQLite', 'Postgres']), ('Name', [])]
    """
    fields = _fields(tool_input)
    questions = [
        Question(
            header=f.title,
            text=f.text,
            options=[Option(label=label) for label in f.labels],
            multi_select=f.multi,
        )
        for f in fields
    ]
    message = as_dict(tool_input).get("message")
    return Dialog(
        kind="question",
        questions=questions,
        answerable=bool(fields) and all(f.playable for f in fields),
        tool_id=call_id,
        tool_name=_compat.QUESTION_TOOL,
        body=str(message) if isinstance(message, str) else "",
    )


def recorded_answers(tool_input: Any, detailed: str) -> list[Answer] | None:
    r"""The answers a call's ``result.detailedContent`` records, one per field; ``None`` when
    it records none (the form was declined or the call failed).

    Examples
    --------
    >>> form = {"requestedSchema": {"properties": {
    ...     "db": {"type": "string", "enum": ["SQLite", "Postgres"]},
    ...     "langs": {"type": "array", "items": {"type": "string", "enum": ["Python", "Go"]}}}}}
    >>> recorded_answers(form, "User responded:\ndb: DuckDB, of course\nlangs: Python, Zig")
    [Answer(selected=[], text='DuckDB, of course'), Answer(selected=['Python'], text='Zig')]
    >>> recorded_answers(form, "User declined") is None
    True
    """
    head, _, body = detailed.partition("\n")
    if head.strip() != _compat.QUESTION_RESULT_HEAD:
        return None
    lines = dict(line.partition(": ")[::2] for line in body.splitlines())
    answers = []
    for field in _fields(tool_input):
        value = lines.get(field.key, "")
        label = dict(zip(field.values, field.labels, strict=True))
        parts = value.split(", ") if field.multi else [value]
        chosen = [label[p] for p in parts if p in label]
        typed = ", ".join(p for p in parts if p not in label and p)
        answers.append(Answer(selected=chosen, text=typed or None))
    return answers


def answered(dialog: Dialog, tool_input: Any, success: bool, detailed: str) -> Dialog | None:
    """The dialog as its call's result ended it; ``None`` when the call failed before the
    form opened (a call the CLI refused to show).
    """
    if not success:
        return None
    recorded = recorded_answers(tool_input, detailed)
    if recorded is None:
        return dialog.model_copy(update={"status": "rejected", "outcome": detailed.strip()})
    return dialog.model_copy(
        update={
            "status": "answered",
            "answers": recorded,
            "outcome": describe_answers(dialog, recorded),
        }
    )


@dataclass(frozen=True)
class Step:
    """One move of the recipe: a named key, or text typed into the text box."""

    key: str | None = None
    text: str | None = None
    moves_on: bool = False
    """The form redraws more than the cursor after this key (next tab, a text box)."""


def _question_steps(question: Question, given: Answer) -> list[Step]:
    labels = [o.label for o in question.options]
    steps: list[Step] = []
    at = 0
    chosen = [labels.index(s) for s in given.selected if s in labels]
    for index in sorted(chosen) if question.multi_select else chosen[:1]:
        steps += [Step(key="Down") for _ in range(index - at)]
        if question.multi_select:
            steps.append(Step(key="Space"))
        at = index
    if given.text:
        if labels:
            # "Other (type your answer)" follows the options and opens the text box.
            steps += [Step(key="Down") for _ in range(len(labels) - at - 1)]
            steps.append(Step(key="Down", moves_on=True))
        steps.append(Step(text=given.text))
    steps.append(Step(key="Enter", moves_on=True))
    return steps


def recipe(dialog: Dialog, answer: DialogAnswer) -> list[Step]:
    """The keys that play ``answer`` into the open form of ``dialog``.

    Examples
    --------
    >>> q = Question(text="DB?", options=[Option(label="A"), Option(label="B")])
    >>> m = Question(text="Langs?", options=[Option(label="P"), Option(label="R"),
    ...              Option(label="G")], multi_select=True)
    >>> d = Dialog(kind="question", questions=[q, q, m], tool_id="c")
    >>> a = DialogAnswer(answers=[Answer(selected=["B"]), Answer(text="mine"),
    ...                           Answer(selected=["P", "G"], text="Zig")])
    >>> [s.key or s.text for s in recipe(d, a)]  # doctest: +NORMALIZE_WHITESPACE
    ['Down', 'Enter', 'Down', 'Down', 'mine', 'Enter',
     'Space', 'Down', 'Down', 'Space', 'Down', 'Zig', 'Enter']
    """
    steps: list[Step] = []
    for question, given in zip(dialog.questions, answer.answers, strict=True):
        steps += _question_steps(question, given)
    return steps


def play(terminal: Terminal, steps: list[Step]) -> None:
    """Type a recipe at the form's pace (``_compat.QUESTION_FORM``)."""
    _compat.QUESTION_FORM.play(terminal, [(s.text, s.key, s.moves_on) for s in steps])
