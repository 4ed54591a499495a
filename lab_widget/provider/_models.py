"""Telling a model the CLI asked for from the one that answered, shared by adapters.

A gateway, a fallback or an overloaded vendor may answer with another model than the one
requested, without an error. Readers that see both names report each such change once, as
a lifecycle note, so the chat shows it where it happened.
"""

from __future__ import annotations

__all__ = ["ModelWatch", "same_model"]


def same_model(requested: str, answered: str) -> bool:
    """Whether ``answered`` is the model ``requested`` names: equal, or one a dated or
    suffixed form of the other (``claude-sonnet-4-5`` answered as
    ``claude-sonnet-4-5-20250929``).

    Examples
    --------
    >>> same_model("claude-sonnet-4-5", "claude-sonnet-4-5-20250929")
    True
    >>> same_model("claude-opus-5-5", "claude-haiku-4-5")
    False
    """
    a, b = requested.strip().lower(), answered.strip().lower()
    return a == b or a.startswith(b + "-") or b.startswith(a + "-") or a.startswith(b + "@")


class ModelWatch:
    """Remembers the substitution last reported, so each change is reported once.

    Examples
    --------
    >>> watch = ModelWatch()
    >>> watch.note("big-model", "small-model")
    'Asked for big-model; small-model answered.'
    >>> watch.note("big-model", "small-model") is None  # the same substitution again
    True
    >>> watch.note("big-model", "big-model"), watch.note("big-model", "small-model") is None
    (None, False)
    """

    def __init__(self) -> None:
        self._noted: tuple[str, str] | None = None

    def note(self, requested: str | None, answered: str | None) -> str | None:
        """The note to show for this response, if it starts a new substitution."""
        if not requested or not answered:
            return None
        if same_model(requested, answered):
            self._noted = None
            return None
        if self._noted == (requested, answered):
            return None
        self._noted = (requested, answered)
        return f"Asked for {requested}; {answered} answered."
