"""Answering the dialog a run waits on: the guard, the provider's recipe, and the check of
what the agent recorded against what was sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import DialogChangedError, DialogNotAnswerableError, NoDialogError, WaitTimeoutError
from ..provider import Terminal
from ..provider.kit import describe_answers
from ..schema import Dialog, DialogAnswer, Message
from ._answers import UserAnswer, normalise_answer
from ._session import ChatSession

__all__ = ["await_recorded", "mismatch", "play_answer", "resolution"]


def play_answer(
    chat: ChatSession, terminal: Terminal, answers: UserAnswer, attach_command: str
) -> tuple[Dialog, DialogAnswer]:
    """Check, under the run's lock, that the dialog is still pending and that ``answers`` fit
    it, then play the provider's recipe; returns the dialog and the answer sent.

    Nothing is typed when a check fails.
    """
    with chat.lock:
        dialog = chat.pending_dialog
        if dialog is None:
            raise NoDialogError("no dialog is pending (it may have been answered already)")
        if isinstance(answers, DialogAnswer) and answers.tool_id not in (None, dialog.tool_id):
            raise DialogChangedError("the pending dialog is not the one this answer is for")
        if not dialog.answerable:
            raise DialogNotAnswerableError(f"answer this dialog in the terminal: {attach_command}")
        intended = normalise_answer(dialog, answers)
        chat.provider.answer(chat.context, terminal, dialog, intended)
        if dialog.kind == "approval" and intended.answers and intended.answers[0].selected:
            # Only once it was sent: a failed answer leaves the prompt to the terminal.
            chat.note_chosen(dialog.tool_id, intended.answers[0].selected[0])
    return dialog, intended


def await_recorded(
    chat: ChatSession, dialog: Dialog, intended: DialogAnswer, timeout: float
) -> tuple[Dialog, str | None]:
    """Wait until the agent recorded its answer to ``dialog``; returns the dialog as it
    ended and, when the agent recorded other answers than ``intended``, the warning (which
    the dialog's message then shows).

    Raises :class:`~lab_widget.errors.WaitTimeoutError` when ``timeout`` passes first.
    """
    ended: list[Dialog] = []

    def resolved() -> bool:
        ended[:] = [d for d in [resolution(chat.messages, dialog.tool_id)] if d is not None]
        if not ended and chat.begun(dialog.tool_id):
            # Its call began, so it was approved; the transcript may not show the call yet.
            ended.append(dialog.model_copy(update={"status": "answered", "outcome": "approved"}))
        return bool(ended)

    if not chat.wait_for(resolved, timeout):
        raise WaitTimeoutError(timeout, "question")
    final = ended[0]
    warning = mismatch(final, intended)
    if warning is not None:
        chat.note_mismatch(final.tool_id or "", warning)
    return final, warning


def resolution(messages: Sequence[Message], tool_id: str | None) -> Dialog | None:
    """The dialog of ``tool_id`` as it ended, once a message shows it no longer pending."""
    for message in reversed(messages):
        dialog = message.dialog
        if dialog is not None and dialog.tool_id == tool_id and dialog.status != "pending":
            return dialog
    return None


def mismatch(dialog: Dialog, intended: DialogAnswer) -> str | None:
    """A warning when the agent recorded other answers to ``dialog`` than the ones sent."""
    if dialog.answers is None or dialog.kind != "question":
        return None
    recorded = [(sorted(a.selected), (a.text or "").strip()) for a in dialog.answers]
    wanted = [(sorted(a.selected), (a.text or "").strip()) for a in intended.answers]
    if recorded == wanted:
        return None
    return (
        "The agent recorded other answers than the ones sent: "
        f"recorded {dialog.outcome!r}, sent {describe_answers(dialog, intended.answers)!r}"
    )
