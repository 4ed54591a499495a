"""OpenCode's permission prompt and question tool as dialogs, and how each is answered.

A permission prompt (known from the embedded server, ``_signals.py``) is answered by keys
(``_compat.APPROVAL``). A question is in the store (its tool part, with the questions), and
is answered through the server's own reply endpoint.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ...errors import DialogChangedError, LabWidgetError
from ...schema import Answer, Dialog, DialogAnswer, Option, Question
from .. import RunContext, as_dict
from .. import approval_dialog as permission
from . import _compat
from ._server import get_json, server_url

__all__ = [
    "answer_question",
    "approval_dialog",
    "question_dialog",
    "recorded_answers",
]


def question_dialog(tool_input: Any, call_id: str | None) -> Dialog:
    """The question tool's call as a dialog.

    Examples
    --------
    >>> q = {"question": "Which DB?", "header": "DB", "multiple": True,
    ...      "options": [{"label": "SQLite", "description": "a file"}]}
    >>> d = question_dialog({"questions": [q]}, "call_1")
    >>> d.kind, d.tool_id, d.questions[0].multi_select, d.questions[0].options[0].label
    ('question', 'call_1', True, 'SQLite')
    """
    questions = []
    for raw in as_dict(tool_input).get("questions") or []:
        item = as_dict(raw)
        options = [
            Option(label=str(o.get("label")), description=str(o.get("description") or ""))
            for o in map(as_dict, item.get("options") or [])
            if o.get("label")
        ]
        questions.append(
            Question(
                header=str(item.get("header") or ""),
                text=str(item.get("question") or ""),
                options=options,
                multi_select=bool(item.get("multiple")),
                free_text=item.get("custom") is not False,
            )
        )
    return Dialog(
        kind="question", questions=questions, tool_id=call_id, tool_name=_compat.QUESTION_TOOL
    )


def recorded_answers(dialog: Dialog, metadata: Any) -> list[Answer] | None:
    """The answers the agent recorded (``metadata.answers``), one per question.

    Examples
    --------
    >>> d = question_dialog({"questions": [{"question": "Q", "options": [{"label": "A"}]}]}, "c")
    >>> recorded_answers(d, {"answers": [["A", "my own"]]})
    [Answer(selected=['A'], text='my own')]
    """
    given = as_dict(metadata).get("answers")
    if not isinstance(given, list):
        return None
    out = []
    for question, raw in zip(dialog.questions, given, strict=False):
        labels = {o.label for o in question.options}
        values = [str(v) for v in raw] if isinstance(raw, list) else []
        others = [v for v in values if v not in labels]
        out.append(
            Answer(selected=[v for v in values if v in labels], text=", ".join(others) or None)
        )
    return out


def answer_question(context: RunContext, dialog: Dialog, answer: DialogAnswer) -> None:
    """Reply to the open question of ``dialog`` through the run's server."""
    base = server_url(context)
    listed = get_json(base + _compat.QUESTION_PATH) if base else None
    request = next(
        (
            r
            for r in (listed if isinstance(listed, list) else [])
            if as_dict(as_dict(r).get("tool")).get("callID") == dialog.tool_id
        ),
        None,
    )
    if base is None or request is None:
        raise DialogChangedError("the agent no longer waits on this question")
    answers = [[*a.selected, *([a.text] if a.text else [])] for a in answer.answers]
    url = base + _compat.QUESTION_REPLY_PATH.format(id=urllib.parse.quote(str(request["id"])))
    body = json.dumps({"answers": answers}).encode()
    headers = {"Content-Type": "application/json"}
    try:
        req = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=_compat.SERVER_TIMEOUT * 5) as response:
            response.read()
    except (OSError, urllib.error.URLError) as exc:
        raise LabWidgetError(f"the agent's server did not take the answer: {exc}") from exc


def approval_dialog(request: dict[str, Any]) -> Dialog:
    r"""A shell command's or a file edit's permission request as a dialog.

    Examples
    --------
    >>> d = approval_dialog({"permission": "bash", "metadata": {"command": "ls"},
    ...                      "tool": {"callID": "call_1"}})
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'call_1', ['Approve', 'Reject'])
    >>> e = approval_dialog({"permission": "edit", "metadata": {"filepath": "/w/a.txt",
    ...                      "diff": "+hi\n"}, "tool": {"callID": "call_2"}})
    >>> e.questions[0].text, e.tool_name, e.body
    ('Permission required: apply this edit to a.txt?', 'edit', '```diff\n+hi\n```')
    """
    metadata = as_dict(request.get("metadata"))
    tool = as_dict(request.get("tool"))
    permission_name = str(request.get("permission") or "bash")
    if permission_name == "edit":
        path = str(metadata.get("filepath") or "")
        name = path.rsplit("/", 1)[-1] or "a file"
        diff = str(metadata.get("diff") or "").rstrip("\n")
        text, what = f"Permission required: apply this edit to {name}?", "make this change"
        body = f"```diff\n{diff}\n```" if diff else ""
    else:
        command = metadata.get("command")
        text, what = "Permission required: run this shell command?", "run it this once"
        body = f"```\n{command}\n```" if command else ""
    return permission(
        text,
        approve=f"Allow once: {what}",
        reject="Don't do it; the turn stops",
        tool_id=str(tool.get("callID")) if tool.get("callID") else None,
        tool_name=permission_name,
        body=body,
    )
