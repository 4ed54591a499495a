"""Kilo's sessions are read by OpenCode's reader: the same store (``session``, ``message``,
``part`` and ``event`` tables), the same message infos and parts (fixtures
``tests/fixtures/kilo/``, recorded from 7.7.7 and 7.7.5, read in
``tests/unit/providers/kilo/test_transcript.py``).

Kilo's own additions leave the reader nothing new: the ``<environment_details>`` block it
sends after each prompt (:data:`~._compat.CONTEXT_TAGS`) is not stored, and the extra fields
of its parts and messages (``metrics`` of a ``step-finish``, ``approval`` in a tool's
``metadata``) are fields the reader does not read.
"""

from __future__ import annotations

from ..opencode import OpenCodeTranscriptReader

__all__ = ["KiloTranscriptReader"]

KiloTranscriptReader = OpenCodeTranscriptReader
"""The reader of a Kilo session: OpenCode's, unchanged."""
