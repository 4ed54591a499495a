"""Reading a transcript without a run: no tmux, no agent, for history, analysis and tests."""

from __future__ import annotations

import os
from pathlib import Path

from ..provider import AgentProvider, TranscriptRef, default_provider, get_provider
from ..schema import Chat
from ._pricing import enrich_summary
from ._turns import chat_of

__all__ = ["read_chat", "read_transcript"]


def read_chat(provider: AgentProvider, ref: TranscriptRef) -> Chat:
    """One epoch read whole through ``provider``'s reader, with its estimated cost and turns."""
    reader = provider.open_reader(ref)
    reader.read()
    messages, state = reader.messages, reader.settled_state()
    return chat_of(messages, state, enrich_summary(reader.summary))


def read_transcript(
    path: str | os.PathLike[str], provider: str | None = None, transcript_id: str | None = None
) -> Chat:
    """Read any transcript file of a provider into a :class:`~lab_widget.schema.Chat`.

    No tmux, no agent: for history, analysis and tests. The state is what the transcript
    alone tells of a session nobody writes any more: ``idle`` when its last turn finished,
    ``working`` when the file stops in the middle of a turn. ``transcript_id`` names the
    session in a file that holds several (a database); by default it is the file's name
    without suffix.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise FileNotFoundError(f"no transcript at {file}")
    agent = get_provider(provider or default_provider())
    return read_chat(agent, TranscriptRef(transcript_id=transcript_id or file.stem, path=file))
