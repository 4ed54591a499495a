"""What adapters share about dialogs: a permission prompt as the chat shows it, answers in
words, and a declined call told by its result. The keys that answer a prompt are a
provider's compat record (:class:`~._couplings.ApprovalKeys`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..schema import Answer, Dialog, Option, Question, ToolCall
from ._lenient import as_dict
from ._seam import ApprovalOutcome

__all__ = [
    "ALWAYS_OUTCOME",
    "APPROVE",
    "APPROVE_ALWAYS",
    "REJECT",
    "approval_dialog",
    "approval_said_in_result",
    "describe_answers",
    "picker_options",
    "picker_questions",
]

APPROVE = "Approve"
APPROVE_ALWAYS = "Approve always"
REJECT = "Reject"
"""The answers a permission prompt offers in the chat, whatever the CLI's own wording."""

ALWAYS_OUTCOME = "approved always"
"""The recorded outcome of a prompt approved with "Approve always" (the CLI remembers it)."""


def approval_dialog(
    text: str,
    *,
    approve: str,
    reject: str,
    approve_always: str | None = None,
    tool_id: str | None,
    tool_name: str,
    body: str = "",
) -> Dialog:
    """A permission prompt as a dialog: one question, answered Approve (or Approve always,
    where the CLI offers it) or Reject, each option described in the provider's words.

    Examples
    --------
    >>> d = approval_dialog("Run it?", approve="Once", reject="No", tool_id="c1", tool_name="Bash")
    >>> d.kind, d.tool_id, [(o.label, o.description) for o in d.questions[0].options]
    ('approval', 'c1', [('Approve', 'Once'), ('Reject', 'No')])
    """
    options = [Option(label=APPROVE, description=approve)]
    if approve_always is not None:
        options.append(Option(label=APPROVE_ALWAYS, description=approve_always))
    options.append(Option(label=REJECT, description=reject))
    question = Question(header="Permission", text=text, options=options, free_text=False)
    return Dialog(
        kind="approval", questions=[question], tool_id=tool_id, tool_name=tool_name, body=body
    )


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


def picker_options(question: object) -> list[Option]:
    """The labelled options of a question as a tool's input lists them
    (``{"options": [{"label", "description"}, ...]}``); unlabelled ones are left out.

    Examples
    --------
    >>> [o.label for o in picker_options({"options": [{"label": "A"}, {"description": "?"}]})]
    ['A']
    """
    return [
        Option(label=str(o.get("label")), description=str(o.get("description") or ""))
        for o in map(as_dict, as_dict(question).get("options") or [])
        if o.get("label")
    ]


def picker_questions(
    tool_input: object, *, multi_select: str | None = None, free_text: str | None = None
) -> list[Question]:
    """The questions of a question tool's input
    (``{"questions": [{"header", "question", "options"}, ...]}``), in order.

    ``multi_select`` names the key whose true value lets a question take several options
    (``None``: the CLI's picker takes one); ``free_text`` the key whose ``false`` turns the
    typed answer off (``None``: the picker always has a row for one).

    Examples
    --------
    >>> q = {"header": "DB", "question": "Which?", "multiple": True, "custom": False,
    ...      "options": [{"label": "SQLite"}]}
    >>> [(x.text, x.multi_select, x.free_text) for x in picker_questions({"questions": [q]})]
    [('Which?', False, True)]
    >>> [(x.multi_select, x.free_text) for x in picker_questions(
    ...     {"questions": [q]}, multi_select="multiple", free_text="custom")]
    [(True, False)]
    """
    questions = []
    for raw in as_dict(tool_input).get("questions") or []:
        item = as_dict(raw)
        questions.append(
            Question(
                header=str(item.get("header") or ""),
                text=str(item.get("question") or ""),
                options=picker_options(item),
                multi_select=multi_select is not None and bool(item.get(multi_select)),
                free_text=free_text is None or item.get(free_text) is not False,
            )
        )
    return questions
