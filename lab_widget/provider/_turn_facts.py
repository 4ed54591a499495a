"""What a reader records per turn beside its messages, kept so that asking costs nothing.

A reader starts a turn at its prompt's seq and notes facts on the turn under way; the list it
hands to its summary is rebuilt only for the turns that changed since the last time, so a
summary costs the same late in a long session as early.
"""

from __future__ import annotations

from typing import Any

from ..schema import TurnFacts

__all__ = ["TurnFactsLog"]


class TurnFactsLog:
    """Facts per turn, keyed by the seq of the prompt that started it.

    Examples
    --------
    >>> log = TurnFactsLog()
    >>> log.note(model_requested="m")  # before any prompt: kept for the next turn
    >>> log.start(0)
    >>> log.note(duration_ms=12)
    >>> [(f.seq, f.model_requested, f.duration_ms) for f in log.facts()]
    [(0, 'm', 12)]
    >>> log.start(3, keep=("model_requested",))
    >>> [(f.seq, f.model_requested) for f in log.facts()]
    [(0, 'm'), (3, 'm')]
    """

    def __init__(self) -> None:
        self._turns: dict[int, dict[str, Any]] = {}
        self._current: dict[str, Any] = {}
        self._built: dict[int, TurnFacts] = {}
        self._dirty: set[int] = set()

    def start(self, seq: int, *, keep: tuple[str, ...] = ()) -> None:
        """A prompt at ``seq`` starts a turn: it takes the facts noted since the last turn
        ended (those that came before its prompt), or carries ``keep`` over from the turn
        before it when that one already had a prompt.
        """
        if "seq" in self._current:
            self._current = {k: self._current[k] for k in keep if k in self._current}
        self._current["seq"] = seq
        self._turns[seq] = self._current
        self._dirty.add(seq)

    def note(self, **facts: Any) -> None:
        """Facts of the turn under way (``None`` values are ignored)."""
        given = {k: v for k, v in facts.items() if v is not None}
        if not given:
            return
        self._current.update(given)
        if "seq" in self._current:
            self._dirty.add(self._current["seq"])

    def end(self) -> None:
        """The turn under way is over: later facts belong to the next one."""
        if "seq" in self._current:
            self._current = {}

    def drop(self, seq: int) -> None:
        """The message at ``seq`` turned out to start no turn (a command's echo)."""
        facts = self._turns.pop(seq, None)
        self._built.pop(seq, None)
        self._dirty.discard(seq)
        if facts is self._current:
            self._current = {k: v for k, v in facts.items() if k != "seq"}

    def facts(self) -> list[TurnFacts]:
        """Every turn's facts, oldest first."""
        for seq in self._dirty:
            if seq in self._turns:
                self._built[seq] = TurnFacts(**self._turns[seq])
        self._dirty.clear()
        return [self._built[seq] for seq in self._turns]
