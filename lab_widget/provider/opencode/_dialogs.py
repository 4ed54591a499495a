"""OpenCode's permission prompt and question tool as dialogs, and how each is answered.

A permission prompt of any kind (known from the embedded server, ``_signals.py``) and a
question (in the store: its tool part, with the questions) are both answered through the
server's own reply endpoints: a structured reply cannot land on the wrong row.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ...errors import AnswerNotDeliveredError, DialogChangedError, InvalidAnswerError
from ...schema import Answer, Dialog, DialogAnswer, Option, Question
from .. import RunContext
from ..kit import approval_dialog as permission
from ..kit import as_dict, picker_questions
from . import _compat
from ._server import get_json, server_url, without_login

__all__ = [
    "answer_permission",
    "answer_plan",
    "answer_question",
    "approval_dialog",
    "call_input",
    "plan_dialog",
    "question_dialog",
    "recorded_answers",
    "tool_server_dialog",
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
    questions = picker_questions(tool_input, multi_select="multiple", free_text="custom")
    return Dialog(
        kind="question", questions=questions, tool_id=call_id, tool_name=_compat.QUESTION_TOOL
    )


def plan_dialog(call_id: str | None) -> Dialog:
    """``plan_exit``'s question as a plan dialog: Approve switches to the build agent.

    Examples
    --------
    >>> d = plan_dialog("call_1")
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('plan', 'call_1', ['Approve', 'Reject'])
    """
    question = Question(
        header="Plan",
        text="The plan is complete. Switch to the build agent and start implementing?",
        options=[
            Option(label="Approve", description="Switch to the build agent and implement it"),
            Option(label="Reject", description="Stay with the plan agent to refine it"),
        ],
        free_text=False,
    )
    return Dialog(
        kind="plan", questions=[question], tool_id=call_id, tool_name=_compat.PLAN_EXIT_TOOL
    )


def answer_plan(context: RunContext, dialog: Dialog, answer: DialogAnswer) -> None:
    """Answer ``plan_exit``'s question with the option the chat's answer stands for."""
    chosen = answer.answers[0].selected[0] if answer.answers and answer.answers[0].selected else ""
    reply = _compat.PLAN_REPLIES.get(chosen)
    if reply is None:
        raise InvalidAnswerError(f"no reply for {chosen!r}")
    answer_question(context, dialog, DialogAnswer(answers=[Answer(selected=[reply])]))


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


def _question_request(base: str, tool_id: str | None) -> dict[str, Any] | None:
    """The server's open question asked by the call ``tool_id``, if it lists one."""
    listed = get_json(base + _compat.QUESTION_PATH)
    return next(
        (
            as_dict(r)
            for r in (listed if isinstance(listed, list) else [])
            if as_dict(as_dict(r).get("tool")).get("callID") == tool_id
        ),
        None,
    )


def answer_question(context: RunContext, dialog: Dialog, answer: DialogAnswer) -> None:
    """Reply to the open question of ``dialog`` through the run's server.

    The store shows the question's call a moment before the server lists its request (a
    loaded machine widens the gap): a call not listed yet is looked for again, for up to
    :data:`~._compat.QUESTION_LISTED_TIMEOUT` seconds, before the question counts as gone.
    """
    base = server_url(context)
    request = None
    if base is not None:
        deadline = time.monotonic() + _compat.QUESTION_LISTED_TIMEOUT
        request = _question_request(base, dialog.tool_id)
        while request is None and time.monotonic() < deadline:
            time.sleep(0.2)
            request = _question_request(base, dialog.tool_id)
    if base is None or request is None:
        raise DialogChangedError("the agent no longer waits on this question")
    answers = [[*a.selected, *([a.text] if a.text else [])] for a in answer.answers]
    url = base + _compat.QUESTION_REPLY_PATH.format(id=urllib.parse.quote(str(request["id"])))
    _post(url, {"answers": answers})


def _file_name(path: object) -> str:
    return str(path or "").rsplit("/", 1)[-1] or "a file"


def _fenced(text: object, lang: str = "") -> str:
    text = str(text or "").rstrip("\n")
    return f"```{lang}\n{text}\n```" if text else ""


def _asked(permission_name: str, metadata: dict[str, Any], patterns: list[str]) -> tuple[str, str]:
    """What a permission request asks, and the markdown shown under it."""
    if permission_name == "edit":
        name = _file_name(metadata.get("filepath"))
        return f"apply this edit to {name}?", _fenced(metadata.get("diff"), "diff")
    if permission_name == "bash":
        return "run this shell command?", _fenced(metadata.get("command"))
    if permission_name == "webfetch":
        url = str(metadata.get("url") or (patterns[0] if patterns else ""))
        fmt = metadata.get("format")
        return f"fetch {url}?", _fenced(url + (f"\n(as {fmt})" if fmt else ""))
    if permission_name == "external_directory":
        folders = metadata.get("directories") or metadata.get("filepath") or patterns
        shown = folders if isinstance(folders, list) else [folders]
        body = "\n".join(str(f) for f in shown)
        if metadata.get("command"):
            body += f"\n\n{metadata['command']}"
        return "work outside the project folder?", _fenced(body)
    if permission_name == "doom_loop":
        tool = str(metadata.get("tool") or (patterns[0] if patterns else "a tool"))
        body = _fenced(json.dumps(metadata.get("input"), indent=2, ensure_ascii=False), "json")
        return f"{tool} was called again with the same input; go on?", body
    what = ", ".join(patterns) if patterns else ""
    return f"use {permission_name}" + (f" ({what})" if what else "") + "?", _fenced(
        json.dumps(metadata, indent=2, ensure_ascii=False) if metadata else "", "json"
    )


def _always_scope(request: dict[str, Any], permission_name: str, scope: str) -> str:
    """What "Allow always" covers, in the TUI's own words (``scope``, the family's
    :attr:`~._family.OpenCodeFamily.always_scope`).
    """
    always = [str(p) for p in request.get("always") or []]
    if always == ["*"] or not always:
        return scope.format(what=permission_name)
    return scope.format(what=", ".join(always))


def approval_dialog(request: dict[str, Any], scope: str = _compat.ALWAYS_SCOPE) -> Dialog:
    r"""A permission request, of any kind, as a dialog.

    Examples
    --------
    >>> d = approval_dialog({"permission": "bash", "metadata": {"command": "ls"},
    ...                      "always": ["ls *"], "tool": {"callID": "call_1"}})
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'call_1', ['Approve', 'Approve always', 'Reject'])
    >>> d.questions[0].options[1].description
    'Allow always: ls * until OpenCode is restarted'
    >>> e = approval_dialog({"permission": "edit", "metadata": {"filepath": "/w/a.txt",
    ...                      "diff": "+hi\n"}, "tool": {"callID": "call_2"}})
    >>> e.questions[0].text, e.tool_name, e.body
    ('Permission required: apply this edit to a.txt?', 'edit', '```diff\n+hi\n```')
    >>> w = approval_dialog({"permission": "webfetch", "patterns": ["http://x/"],
    ...                      "metadata": {"url": "http://x/", "format": "text"},
    ...                      "always": ["*"], "tool": {"callID": "c3"}})
    >>> w.questions[0].text, w.questions[0].options[1].description
    ('Permission required: fetch http://x/?', 'Allow always: webfetch until OpenCode is restarted')
    """
    metadata = as_dict(request.get("metadata"))
    tool = as_dict(request.get("tool"))
    permission_name = str(request.get("permission") or "bash")
    patterns = [str(p) for p in request.get("patterns") or []]
    asked, body = _asked(permission_name, metadata, patterns)
    return permission(
        f"Permission required: {asked}",
        approve="Allow once",
        approve_always=f"Allow always: {_always_scope(request, permission_name, scope)}",
        reject="Reject; the turn stops",
        tool_id=str(tool.get("callID")) if tool.get("callID") else str(request.get("id") or ""),
        tool_name=permission_name,
        body=body,
    )


def call_input(base: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments of the call a permission request holds, read from its message on the
    run's server (the request of a server's tool carries none), if it lists them yet.
    """
    tool = as_dict(request.get("tool"))
    session, message = request.get("sessionID"), tool.get("messageID")
    if not isinstance(session, str) or not isinstance(message, str):
        return None
    path = _compat.MESSAGE_PATH.format(
        session=urllib.parse.quote(session), message=urllib.parse.quote(message)
    )
    for raw in as_dict(get_json(base + path)).get("parts") or []:
        part = as_dict(raw)
        if part.get("type") == "tool" and part.get("callID") == tool.get("callID"):
            given = as_dict(part.get("state")).get("input")
            return given if isinstance(given, dict) else None
    return None


def tool_server_dialog(request: dict[str, Any], tool_input: dict[str, Any] | None) -> Dialog:
    r"""A permission request for a tool of the run's own servers, which asks before every
    call: approved or rejected call by call, with no "Allow always" that would let the
    next calls run unasked; the code it runs is the body.

    Examples
    --------
    >>> d = tool_server_dialog({"permission": "kernel_run_python", "tool": {"callID": "c1"}},
    ...                        {"code": "x = 1"})
    >>> d.tool_name, d.tool_id, [o.label for o in d.questions[0].options], d.body
    ('kernel_run_python', 'c1', ['Approve', 'Reject'], '```python\nx = 1\n```')
    """
    name = str(request.get("permission") or "")
    code = as_dict(tool_input).get("code")
    if isinstance(code, str):
        body = _fenced(code, "python")
    else:
        body = _fenced(json.dumps(tool_input, indent=2, ensure_ascii=False), "json")
    tool = as_dict(request.get("tool"))
    return permission(
        f"Permission required: run {name}?",
        approve="Run this call (the next one asks again)",
        reject="Reject; the turn stops",
        tool_id=str(tool.get("callID")) if tool.get("callID") else str(request.get("id") or ""),
        tool_name=name,
        body=body if tool_input is not None else "",
    )


def answer_permission(
    context: RunContext, dialog: Dialog, answer: DialogAnswer, pending: list[dict[str, Any]]
) -> None:
    """Reply to the request of ``dialog`` among the ``pending`` ones through the run's
    server (``_compat.PERMISSION_REPLY_PATH``): once, always or reject, as chosen.
    """
    base = server_url(context)
    request = next(
        (
            r
            for r in pending
            if dialog.tool_id in (as_dict(r.get("tool")).get("callID"), r.get("id"))
        ),
        None,
    )
    if base is None or request is None:
        raise DialogChangedError("the agent no longer waits on this permission")
    chosen = answer.answers[0].selected[0] if answer.answers and answer.answers[0].selected else ""
    reply = _compat.PERMISSION_REPLIES.get(chosen)
    if reply is None:
        raise InvalidAnswerError(f"no reply for {chosen!r}")
    url = base + _compat.PERMISSION_REPLY_PATH.format(id=urllib.parse.quote(str(request["id"])))
    _post(url, {"reply": reply})


def _post(url: str, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    plain, headers = without_login(url)
    headers["Content-Type"] = "application/json"
    try:
        req = urllib.request.Request(plain, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=_compat.SERVER_TIMEOUT * 5) as response:
            response.read()
    except (OSError, urllib.error.URLError) as exc:
        raise AnswerNotDeliveredError(f"the agent's server did not take the answer: {exc}") from exc
