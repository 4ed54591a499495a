"""Claude Code's dialogs: structured input → :class:`Dialog`, results → outcome, answers →
the keystroke recipe that plays them into the live picker.

Couplings pinned to 2.1.332 (``_compat.py``) and verified live
(``tests/live/claude_code/test_dialogs.py``):

- AskUserQuestion shows one tab per question, plus a Submit tab (and its review screen)
  unless the dialog is a single single-select question, which Enter submits at once.
  On a single-select question the digit ``k`` picks option ``k`` and moves to the next tab
  at once; the digit of the free-text row only moves the cursor into that field, and Enter
  submits what was typed there. On a multi-select question Space toggles the row
  under the cursor and Down moves. The row after the options is the free-text row ("Type
  something"); on a multi-select question a Submit row follows it, whose Enter moves to
  the next tab. Up wraps around, so a recipe never counts on it; a fresh tab starts on the
  first row.
- After the last of several questions, a review screen preselects "Submit answers".
- ExitPlanMode shows "Exit plan mode?" with 1 = yes, 2 = no; it takes no feedback, so
  feedback after a rejection is sent as the next message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...errors import DialogNotAnswerableError
from ...schema import Answer, Dialog, DialogAnswer, DialogStatus, Question
from .. import APPROVE, REJECT, Terminal
from ..kit import approval_dialog, describe_answers, picker_questions
from . import _compat

__all__ = ["Step", "approval_for_tool", "dialog_for_tool", "outcome_for_result", "play", "recipe"]


def dialog_for_tool(name: str, tool_input: Any, tool_id: str | None) -> Dialog | None:
    """The dialog a tool call opens, or ``None`` for an ordinary tool."""
    kind = _compat.DIALOG_TOOLS.get(name)
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if kind == "question":
        # The picker always adds its free-text row; a question without words is no question.
        asked = picker_questions(tool_input, multi_select="multiSelect")
        questions = [q for q in asked if q.text]
        return Dialog(
            kind="question",
            questions=questions,
            answerable=bool(questions) and all(len(q.options) < 9 for q in questions),
            tool_id=tool_id,
            tool_name=name,
        )
    if kind == "plan":
        plan = tool_input.get("plan")
        return Dialog(
            kind="plan",
            questions=[_compat.PLAN_QUESTION],
            tool_id=tool_id,
            tool_name=name,
            body=plan if isinstance(plan, str) else "",
        )
    return None


def _summary(tool_input: Any) -> str:
    if not isinstance(tool_input, dict):
        return ""
    for key in ("command", "code", "file_path", "path", "url", "pattern", "description"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _suggested_scope(suggestions: Any) -> str | None:
    """What "don't ask again" covers, from the hook's ``permission_suggestions`` (the first
    one is the prompt's second row), in words.

    Examples
    --------
    >>> _suggested_scope([{"type": "addRules", "rules": [{"toolName": "Bash",
    ...     "ruleContent": "npm test:*"}], "behavior": "allow", "destination": "localSettings"}])
    'always allow Bash(npm test:*) (saved in localSettings)'
    >>> _suggested_scope([{"type": "addDirectories", "directories": ["/w"],
    ...     "destination": "session"}])
    'always allow access to /w (for this session)'
    """
    first = suggestions[0] if isinstance(suggestions, list) and suggestions else None
    if not isinstance(first, dict):
        return None
    where = str(first.get("destination") or "")
    scope = "for this session" if where == "session" else f"saved in {where}" if where else ""
    kind = first.get("type")
    if kind == "addRules":
        rules = [
            f"{r.get('toolName')}({r['ruleContent']})"
            if r.get("ruleContent")
            else r.get("toolName")
            for r in first.get("rules") or []
            if isinstance(r, dict)
        ]
        what = "always allow " + ", ".join(str(r) for r in rules)
    elif kind == "addDirectories":
        what = "always allow access to " + ", ".join(map(str, first.get("directories") or []))
    elif kind == "setMode":
        what = f"switch to {first.get('mode')} mode"
    else:
        return None
    return f"{what} ({scope})" if scope else what


def approval_for_tool(
    name: str,
    tool_input: Any,
    tool_id: str | None,
    *,
    suggestions: Any = None,
    agent_type: str | None = None,
    always: bool = True,
) -> Dialog:
    """The permission prompt for a tool call (known from its PermissionRequest hook): the
    second row's scope from the hook's ``permission_suggestions``, and the sub-agent that
    asks, if one does (the hook's ``agent_type``).

    ``always=False`` offers no "don't ask again": a tool of the run's own servers that asks
    before every call (the CLI's second row would save an allow rule in the user's project,
    beyond the run, and the run's ask rule would still ask).

    Examples
    --------
    >>> d = approval_for_tool("Bash", {"command": "ls"}, "t1", agent_type="general-purpose")
    >>> d.questions[0].text, d.body.splitlines()[0]
    ('Allow Bash: ls?', 'Asked by the general-purpose sub-agent.')
    >>> d = approval_for_tool("mcp__kernel__run_python", {"code": "x = 1"}, "t2", always=False)
    >>> [o.label for o in d.questions[0].options], d.body.splitlines()
    (['Approve', 'Reject'], ['```python', 'x = 1', '```'])
    """
    summary = _summary(tool_input)
    scope = _suggested_scope(suggestions)
    code = isinstance(tool_input, dict) and isinstance(tool_input.get("code"), str)
    body = f"```{'python' if code else ''}\n{summary}\n```" if summary else ""
    if agent_type:
        body = f"Asked by the {agent_type} sub-agent.\n\n{body}".rstrip()
    return approval_dialog(
        f"Allow {name}" + (f": {summary}" if summary else "") + "?",
        approve="Run it this once",
        approve_always=(f"Run it, and {scope}" if scope else "Run it, and don't ask again")
        if always
        else None,
        reject="Don't run it",
        tool_id=tool_id,
        tool_name=name,
        body=body,
    )


_ANSWER_PAIR = re.compile(r'"(.*?)"="(.*?)"')


def _recorded_answers(dialog: Dialog, result: Any, content: str) -> list[Answer] | None:
    """The answers the agent recorded: ``toolUseResult.answers`` ({question: "A, B"})."""
    answers = result.get("answers") if isinstance(result, dict) else None
    if not isinstance(answers, dict):
        answers = dict(_ANSWER_PAIR.findall(content)) or None
    if answers is None:
        return None
    out: list[Answer] = []
    for question in dialog.questions:
        value = answers.get(question.text)
        if not isinstance(value, str):
            out.append(Answer())
            continue
        labels = {o.label for o in question.options}
        parts = [p.strip() for p in value.split(", ")] if question.multi_select else [value]
        selected = [p for p in parts if p in labels]
        others = [p for p in parts if p not in labels]
        out.append(Answer(selected=selected, text=", ".join(others) or None))
    return out


def rejection_feedback(content: str) -> str | None:
    r"""The words the user typed when rejecting a plan or a tool, if any.

    Examples
    --------
    >>> rejection_feedback("The tool use was rejected. To tell you how to proceed, "
    ...     "the user said:\nKeep the old schema.")
    'Keep the old schema.'
    >>> rejection_feedback("The tool use was rejected.") is None
    True
    """
    _, marker, said = content.partition(_compat.REJECTED_FEEDBACK)
    return said.strip() or None if marker else None


def _rejected(label: str, content: str) -> tuple[DialogStatus, str, list[Answer]]:
    # The user's reason is the answer's free text: the export and the frames show it.
    said = rejection_feedback(content)
    outcome = f"rejected: {said}" if said else "rejected"
    return "rejected", outcome, [Answer(selected=[label], text=said)]


def outcome_for_result(
    dialog: Dialog, result: Any, content: str, is_error: bool
) -> tuple[DialogStatus, str, list[Answer] | None]:
    """How a dialog ended, read from its ``tool_result`` (and ``toolUseResult``)."""
    if dialog.kind == "approval":
        if is_error and _compat.REJECTED_RESULT in content:
            return _rejected(REJECT, content)
        return "answered", "approved", [Answer(selected=[APPROVE])]
    if dialog.kind == "plan":
        if is_error:
            return _rejected(_compat.PLAN_REJECT, content)
        return "answered", "approved", [Answer(selected=[_compat.PLAN_APPROVE])]
    if is_error:
        return "rejected", "dismissed in the terminal", None
    recorded = _recorded_answers(dialog, result, content)
    if recorded is None:
        return "answered", content.strip()[:200], None
    return "answered", describe_answers(dialog, recorded), recorded


# -- answering ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One move of a recipe: a named key, or literal text typed into a field."""

    key: str | None = None
    text: str | None = None
    switches_tab: bool = False
    """The picker redraws a new tab after this key: give it time before the next."""


def _digit(index: int) -> Step:
    return Step(key=str(index + 1))


def _question_steps(question: Question, answer: Answer) -> list[Step]:
    n = len(question.options)
    index = {o.label: i for i, o in enumerate(question.options)}
    steps: list[Step] = []
    if not question.multi_select:
        if answer.text:
            steps += [_digit(n), Step(text=answer.text), Step(key="Enter", switches_tab=True)]
        else:
            # A digit on an option picks it and moves on by itself (no Enter).
            steps.append(Step(key=str(index[answer.selected[0]] + 1), switches_tab=True))
        return steps
    # Walk the rows from the first: Space toggles the row under the cursor. (A digit
    # toggles other rows but not the one under the cursor, so digits are not used here.)
    chosen = {index[label] for label in answer.selected}
    for row in range(n):
        if row in chosen:
            steps.append(Step(key="Space"))
        steps.append(Step(key="Down"))
    if answer.text:
        steps.append(Step(text=answer.text))  # the cursor is on the free-text row
    # The free-text row is a field (Right would move its caret): leave through the row
    # below it, whose Enter goes to the next tab.
    steps += [Step(key="Down"), Step(key="Enter", switches_tab=True)]
    return steps


def recipe(dialog: Dialog, answer: DialogAnswer) -> list[Step]:
    """The keys that play ``answer`` into the open picker of ``dialog``."""
    if dialog.kind == "plan":
        choice = answer.answers[0].selected[0] if answer.answers[0].selected else ""
        return [Step(key="1" if choice == _compat.PLAN_APPROVE else "2"), Step(key="Enter")]
    if dialog.kind == "approval":
        return [Step(key=_compat.APPROVAL.key_for(dialog, answer))]
    if dialog.kind != "question":
        raise DialogNotAnswerableError(f"no recipe for {dialog.kind} dialogs")
    steps: list[Step] = []
    for question, given in zip(dialog.questions, answer.answers, strict=True):
        steps += _question_steps(question, given)
    # One single-select question submits on Enter; otherwise a Submit tab follows and its
    # review screen preselects "Submit answers".
    if len(dialog.questions) > 1 or dialog.questions[0].multi_select:
        steps.append(Step(key="Enter"))
    return steps


def play(terminal: Terminal, steps: list[Step], reported: float | None = None) -> None:
    """Type a recipe, paced so the TUI takes each key before the next; ``reported`` is
    when the hook reported the dialog (the settle counts from then).
    """
    # The hook reports the dialog before its picker takes keys, and a new tab needs time
    # too: keys sent at once were lost in live runs. No hook says a tab was drawn.
    _compat.PICKER.play(terminal, [(s.text, s.key, s.switches_tab) for s in steps], reported)
