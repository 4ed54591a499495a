"""The kernel's picture of a run on another host, kept from the worker's snapshots and events.

A :class:`Mirror` holds what the worker's run shows (the messages by seq, the state, the
transcript id, the earlier conversations and the facts a view reads: state reason, pending
dialog, session, commands). The connection's reader thread applies the worker's messages to
it in pipe order, so reading it costs no round trip.

A snapshot taken again after a reconnect is compared with the picture: listeners get the
messages that differ (none twice, none lost; seqs are stable across re-reads) as one event,
and a clear that happened while the pipe was down becomes a reset.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .._chat._events import Listeners, wait_until
from .._chat._session import ChatEvent, Epoch
from ..provider import TranscriptRef
from ..schema import CommandSpec, Dialog, Message, SessionSummary, State

__all__ = ["Mirror"]

log = logging.getLogger(__name__)


def _ref(data: Mapping[str, Any]) -> TranscriptRef:
    return TranscriptRef(str(data.get("transcript_id")), Path(str(data.get("path"))))


def _messages(data: object) -> list[Message]:
    return [Message.model_validate(m) for m in data] if isinstance(data, list) else []


def _epoch(data: Mapping[str, Any]) -> Epoch:
    return Epoch(str(data.get("transcript_id")), _messages(data.get("messages")))


class Mirror:
    """What a worker's run shows, as its snapshots and events said.

    Every change happens under :attr:`lock` (re-entrant: listeners are called holding it);
    a reader that needs more than one field together takes it too.

    Examples
    --------
    >>> mirror = Mirror()
    >>> event = {"changed": [{"seq": 0, "role": "user", "kind": "text", "text": "hi"}],
    ...          "state": "working", "transcript_id": "t1"}
    >>> mirror.apply_event(event)
    False
    >>> [(m.role, m.text) for m in mirror.messages], mirror.state
    ([('user', 'hi')], 'working')
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._by_seq: dict[int, Message] = {}
        self._ordered: list[Message] | None = None
        self._listeners = Listeners(self.lock)
        self.state: State = "idle"
        self.transcript_id: str | None = None
        self.facts: dict[str, Any] = {}
        """The view's facts as the worker last sent them (``state_reason``, ...)."""
        self.dialog: Dialog | None = None
        self.summary = SessionSummary()
        self.commands: list[CommandSpec] = []
        self.past: list[Epoch] = []
        """The conversations before each clear, as this kernel saw them."""
        self.past_refs: list[TranscriptRef] = []
        """Their transcripts, on the host."""

    @property
    def messages(self) -> list[Message]:
        """The current conversation, oldest first."""
        with self.lock:
            if self._ordered is None:
                self._ordered = [self._by_seq[s] for s in sorted(self._by_seq)]
            return list(self._ordered)

    def fact(self, name: str) -> str | None:
        """One of the view's facts as text; ``None`` when the worker sent none (or empty)."""
        value = self.facts.get(name)
        return str(value) if value else None

    def _apply_facts(self, facts: Mapping[str, Any]) -> None:
        self.facts.update(facts)
        if "pending_dialog" in facts:
            raw = facts["pending_dialog"]
            self.dialog = Dialog.model_validate(raw) if raw else None
        if facts.get("session"):
            self.summary = SessionSummary.model_validate(facts["session"])
        if "commands" in facts:
            self.commands = [CommandSpec.model_validate(c) for c in facts["commands"] or []]

    def take_snapshot(self, value: Mapping[str, Any], *, announce: bool) -> None:
        """Take the worker's whole picture; with ``announce``, tell listeners what differs.

        The first snapshot is the picture itself (nobody listens yet); a later one is a new
        worker's after a reconnect.
        """
        with self.lock:
            fresh = {m.seq: m for m in _messages(value.get("messages"))}
            transcript_id = value.get("transcript_id")
            reset = announce and transcript_id != self.transcript_id
            if reset:
                # A clear happened while the pipe was down.
                self.past.append(Epoch(self.transcript_id or "", self.messages))
            reset = reset or any(seq not in fresh for seq in self._by_seq)
            if reset:
                changed = [fresh[s] for s in sorted(fresh)]
            else:
                changed = [fresh[s] for s in sorted(fresh) if self._by_seq.get(s) != fresh[s]]
            self._by_seq, self._ordered = fresh, None
            past = value.get("past") or []
            if len(past) > len(self.past):  # a new worker knows only what it saw itself
                self.past = [_epoch(e) for e in past]
            refs = value.get("past_refs") or []
            if len(refs) > len(self.past_refs):
                self.past_refs = [_ref(r) for r in refs]
            self._apply_facts(value.get("facts") or {})
            self.state = value.get("state") or "idle"
            self.transcript_id = transcript_id
            if announce:
                self._emit(ChatEvent(changed, reset, self.state, transcript_id))
            self._changed.notify_all()

    def apply_event(self, message: Mapping[str, Any]) -> bool:
        """Apply one of the worker's events; returns whether the run ended with it."""
        with self.lock:
            changed = _messages(message.get("changed"))
            reset = bool(message.get("reset"))
            if reset:
                past = message.get("past")
                if isinstance(past, dict):
                    epoch = _epoch(past)
                else:
                    epoch = Epoch(self.transcript_id or "", self.messages)
                self.past.append(epoch)
                ref = message.get("past_ref")
                if isinstance(ref, dict):
                    self.past_refs.append(_ref(ref))
                self._by_seq = {m.seq: m for m in changed}
            else:
                for m in changed:
                    self._by_seq[m.seq] = m
            self._ordered = None
            state: State = message.get("state") or self.state
            ended = state == "ended" and self.state != "ended"
            self.state = state
            self.transcript_id = message.get("transcript_id")
            self._apply_facts(message.get("facts") or {})
            self._emit(ChatEvent(changed, reset, state, self.transcript_id))
            self._changed.notify_all()
        return ended

    def end(self, reason: str) -> None:
        """Mark the run ended here (it was stopped), keeping a reason the worker gave."""
        with self.lock:
            was, self.state = self.state, "ended"
            if was != "ended":
                self.facts.setdefault("state_reason", reason)
                self._emit(ChatEvent([], False, "ended", self.transcript_id))
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds (re-checked on every change) or time runs out."""
        with self.lock:
            return wait_until(self._changed, predicate, timeout)

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every change; returns an unsubscribe function."""
        return self._listeners.subscribe(listener)

    def _emit(self, event: ChatEvent) -> None:
        self._listeners.emit(event)
