"""The chat's own word on dialogs: permission prompts, the answers chosen, recorded mismatches.

A transcript shows a tool call that stopped at a permission prompt as a plain running call,
tells approved from rejected only, and knows nothing of what the user intended to answer.
:class:`DialogOverlay` keeps what the chat knows besides (the prompt the live channel
signalled, the option chosen, a warning when the agent recorded other answers) and lays it
over the transcript's messages as they are shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..provider import ALWAYS_OUTCOME, APPROVE_ALWAYS, AgentProvider
from ..schema import Answer, Dialog, Message
from ._allow import RUN_APPROVE, RUN_OUTCOME

__all__ = ["DialogOverlay"]

_SAID = {APPROVE_ALWAYS: ALWAYS_OUTCOME, RUN_APPROVE: RUN_OUTCOME}
"""What an approval answered with these options says: the transcript only says approved."""


class DialogOverlay:
    """Dialogs as the chat shows them, over the messages a reader holds.

    Not locked itself: the chat calls it under its lock.
    """

    def __init__(self, provider: AgentProvider) -> None:
        self._provider = provider
        # Tool calls that stopped at a permission prompt: their messages show as dialogs.
        self._approvals: dict[str, Dialog] = {}
        # The answer chosen for each of them ("Approve always" is not in the transcript).
        self._chosen: dict[str, str] = {}
        # Warnings for answers the agent recorded differently: shown on the dialog's
        # message (same seq).
        self._mismatch: dict[str, str] = {}
        # Approvals whose call the run's own tool server began (so they were approved)
        # while the transcript still has them waiting (see ._begun).
        self._begun: set[str] = set()

    @property
    def active(self) -> bool:
        """Whether any message may show otherwise than its reader has it."""
        return bool(self._mismatch or self._approvals or self._chosen or self._begun)

    @property
    def approvals(self) -> bool:
        """Whether a permission prompt turned a tool call into a dialog."""
        return bool(self._approvals)

    def prompted(self, message: Message) -> bool:
        """Whether ``message`` shows as a dialog because of a permission prompt."""
        return (
            message.kind == "dialog"
            and message.tool is not None
            and message.tool.id in self._approvals
        )

    def pending(
        self, signalled: Dialog | None, from_transcript: Dialog | None, messages: Sequence[Message]
    ) -> Dialog | None:
        """The dialog the agent waits on, from the live channel's and the transcript's word.

        ``messages`` are the transcript's: a signalled dialog whose call has a result there
        is over already. A permission prompt only the live channel knows is noted, so its
        call shows as a dialog from then on.
        """
        if signalled is not None and _resolved(signalled.tool_id, messages):
            signalled = None  # the transcript already has its result
        if signalled is not None and signalled.tool_id in self._begun:
            signalled = None
        if from_transcript is not None and from_transcript.tool_id in self._begun:
            from_transcript = None
        if signalled is not None and (
            from_transcript is None or from_transcript.tool_id != signalled.tool_id
        ):
            if signalled.kind == "approval" and signalled.tool_id:
                self._approvals.setdefault(signalled.tool_id, signalled)
            return signalled
        if from_transcript is not None and signalled is not None and not from_transcript.body:
            # The live channel may carry what the transcript leaves out (a plan's text).
            return from_transcript.model_copy(update={"body": signalled.body})
        return from_transcript  # the same dialog, with what only the transcript knows

    def note_chosen(self, tool_id: str, label: str) -> None:
        """The option a permission prompt was answered with."""
        self._chosen[tool_id] = label

    def note_begun(self, tool_id: str) -> None:
        """The call of the approval ``tool_id`` began: it was approved."""
        self._begun.add(tool_id)

    def prompted_approval(self, tool_id: str) -> Dialog | None:
        """The approval a permission prompt made of the call ``tool_id``, if one did."""
        return self._approvals.get(tool_id)

    def begun(self, tool_id: str | None) -> bool:
        """Whether the approval ``tool_id`` was answered by its call beginning."""
        return tool_id in self._begun

    def note_mismatch(self, tool_id: str, warning: str) -> None:
        """The agent recorded other answers to a dialog than intended."""
        self._mismatch[tool_id] = warning

    def overlay(self, message: Message) -> Message:
        """``message`` as the chat shows it."""
        tool = message.tool
        if message.dialog is None and tool is not None and tool.id in self._approvals:
            approval = self._approvals[tool.id]
            if tool.status != "running" or tool.id in self._begun:
                # How it was answered is the provider's to read from the call's result;
                # a call that began was approved.
                outcome = (
                    "approved"
                    if tool.status == "running"
                    else self._provider.approval_outcome(tool)
                )
                chosen = self._chosen.get(tool.id)
                said = _SAID.get(chosen or "", outcome) if outcome == "approved" else outcome
                approval = approval.model_copy(
                    update={
                        "status": "rejected" if outcome == "rejected" else "answered",
                        "outcome": said,
                        "answers": [Answer(selected=[chosen])] if chosen else approval.answers,
                    }
                )
            message = message.model_copy(update={"kind": "dialog", "dialog": approval})
        dialog = message.dialog
        if dialog is not None and dialog.status == "pending" and dialog.tool_id in self._begun:
            chosen = self._chosen.get(dialog.tool_id or "")
            dialog = dialog.model_copy(
                update={
                    "status": "answered",
                    "outcome": _SAID.get(chosen or "", "approved"),
                    "answers": [Answer(selected=[chosen])] if chosen else dialog.answers,
                }
            )
            message = message.model_copy(update={"dialog": dialog})
        chosen = self._chosen.get(dialog.tool_id or "") if dialog is not None else None
        if (
            dialog is not None
            and dialog.kind == "approval"
            and dialog.status == "answered"
            and chosen in _SAID
        ):
            # The transcript tells approved from rejected only: the choice is the chat's.
            dialog = dialog.model_copy(
                update={"outcome": _SAID[chosen], "answers": [Answer(selected=[chosen])]}
            )
            message = message.model_copy(update={"dialog": dialog})
        if dialog is None or dialog.tool_id not in self._mismatch:
            return message
        warning = self._mismatch[dialog.tool_id or ""]
        return message.model_copy(
            update={"level": "warning", "dialog": dialog.model_copy(update={"outcome": warning})}
        )


def _resolved(tool_id: str | None, messages: Sequence[Message]) -> bool:
    if tool_id is None:
        return False
    for message in reversed(messages):
        if message.tool is not None and message.tool.id == tool_id:
            return message.tool.status != "running"
    return False
