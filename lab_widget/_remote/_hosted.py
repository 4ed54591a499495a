"""A run the worker serves, and what it tells the kernel about it.

A :class:`Hosted` run follows its :class:`~lab_widget.Run` for the kernel: each change leaves
as an event (the changed messages, a reset with the conversation it ended, the state, the
transcript id) with the facts a view reads when they changed (state reason, pending dialog,
session, commands, transcript path), and a snapshot answers a start, an adopt or a re-read.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from .._chat._pending import PENDING_GRACE
from .._chat._session import ChatEvent, Epoch
from .._run._local import LocalBackend
from .._run._run import Run
from ..provider import TranscriptRef
from ..schema import CommandSpec, Dialog, Message
from ._forward import KERNEL_PREFIX, Listener, Send

__all__ = ["Hosted", "commands_json", "dialog_json", "dump"]


def dump(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages as the protocol carries them."""
    return [m.model_dump(mode="json", exclude_none=True) for m in messages]


def dialog_json(dialog: Dialog | None) -> dict[str, Any] | None:
    """A pending dialog as the protocol carries it."""
    return dialog.model_dump(mode="json", exclude_none=True) if dialog else None


def commands_json(commands: list[CommandSpec]) -> list[dict[str, Any]]:
    """Slash commands as the protocol carries them."""
    return [c.model_dump(mode="json") for c in commands]


def _epoch_json(epoch: Epoch) -> dict[str, Any]:
    return {"transcript_id": epoch.transcript_id, "messages": dump(epoch.messages)}


def _ref_json(ref: TranscriptRef) -> dict[str, Any]:
    return {"transcript_id": ref.transcript_id, "path": str(ref.path)}


class Hosted:
    """A run this worker serves, and what it last told the kernel about it.

    Parameters
    ----------
    run
        The run, here on the host.
    send
        Queues one message to the kernel (never blocks: it is called under the run's lock).
    listener
        The loopback port that carries the agent's connections to the kernel's scripted
        model, if the run has one.
    kernel_listeners
        The loopback ports that carry the agent's tools' connections to the kernel's own,
        for a run given them.
    """

    def __init__(
        self,
        run: Run,
        send: Send,
        listener: Listener | None = None,
        kernel_listeners: Sequence[Listener] = (),
    ) -> None:
        backend = run._backend
        if not isinstance(backend, LocalBackend):  # a worker serves the runs of its own host
            raise TypeError("a worker serves only runs on its own host")
        self.run = run
        self.local = backend
        self.listener = listener
        self.kernel_listeners = tuple(kernel_listeners)
        self._send = send
        self._unsubscribe: Callable[[], None] | None = None
        self._sent_facts: dict[str, bytes] = {}
        self._state = ""
        self._transcript_id: str | None = None

    def _facts(self, state: str) -> dict[str, Any]:
        run = self.run
        facts: dict[str, Any] = {
            "state_reason": run.state_reason,
            "needs_input_reason": run.needs_input_reason,
            "pending_dialog": dialog_json(run.pending_dialog),
            "session": run.session.model_dump(mode="json"),
        }
        if state == "idle" or not self._sent_facts:
            # Cheap when nothing changed (a signature of the command folders).
            facts["commands"] = commands_json(run.commands)
        if run.transcript_id != self._transcript_id or not self._sent_facts:
            path = run.transcript_path
            facts["transcript_path"] = str(path) if path else None
            self._transcript_id = run.transcript_id
        return facts

    def _changed_facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        changed: dict[str, Any] = {}
        for key, value in facts.items():
            encoded = orjson.dumps(value)
            if self._sent_facts.get(key) != encoded:
                self._sent_facts[key] = encoded
                changed[key] = value
        return changed

    def _on_event(self, event: ChatEvent) -> None:
        # Called under the run's lock, so events leave in the order they happened.
        run = self.run
        message: dict[str, Any] = {
            "kind": "event",
            "run": run.id,
            "changed": dump(event.changed),
            "reset": event.reset,
            "state": event.state,
            "transcript_id": event.transcript_id,
            "facts": self._changed_facts(self._facts(event.state)),
        }
        if event.reset:
            past, refs = run.past_conversations, run.past_epochs
            if past:
                message["past"] = _epoch_json(past[-1])
            if refs:
                message["past_ref"] = _ref_json(refs[-1])
        self._state = event.state
        self._send(message)

    def snapshot(self, reply: Callable[[object], None], *, follow: bool) -> None:
        """Answer with the run's whole picture (``reply`` sends the result), and with
        ``follow`` send every later change as an event.
        """
        # Snapshot, subscription and result under the run's lock: every event after the
        # snapshot leaves after the result, so the kernel never applies an older picture
        # over a newer one.
        run = self.run
        with run.lock:
            self._sent_facts = {}
            state = run.state
            facts = self._facts(state)
            self._changed_facts(facts)
            self._state = state
            snapshot = {
                "run_id": run.id,
                "provider": run.provider.meta.id,
                "cwd": str(run.cwd),
                "state": state,
                "transcript_id": run.transcript_id,
                "messages": dump(run.messages),
                "past": [_epoch_json(e) for e in run.past_conversations],
                "past_refs": [_ref_json(r) for r in run.past_epochs],
                "facts": facts,
                "attach_command": run.attach_command,
                "tmux": {
                    "binary": run.pane.runner.binary,
                    "socket": str(run.pane.runner.socket_path),
                },
                "record": self.local.record.to_json(),
                "forward_port": self.listener.port if self.listener else None,
                "kernel_ports": {
                    str(listener.to).removeprefix(KERNEL_PREFIX): listener.port
                    for listener in self.kernel_listeners
                },
                "host": socket.gethostname(),
            }
            if follow and self._unsubscribe is None:
                self._unsubscribe = run.subscribe(self._on_event)
            reply(snapshot)

    def recheck_later(self) -> None:
        """Look at the state again once a prompt that never shows up stops counting as work."""

        # That happens after a grace period with no event to say so: tell the kernel then,
        # if the state moved.
        def recheck() -> None:
            run = self.run
            with run.lock:
                if self._unsubscribe is not None and run.state != self._state:
                    self._on_event(ChatEvent([], False, run.state, run.transcript_id))

        timer = threading.Timer(PENDING_GRACE + 0.5, recheck)
        timer.daemon = True
        timer.start()

    def let_go(self) -> None:
        """Stop following the run; the agent keeps running under tmux."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        for listener in [self.listener, *self.kernel_listeners]:
            if listener is not None:
                listener.close()
        self.local.tailer.stop(timeout=0)
