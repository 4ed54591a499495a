"""Past sessions of a folder, from every provider that can list them.

Display: a :class:`SessionList` shows as a table (HTML in a notebook, plain text elsewhere)
of when, provider, model, size and first prompt. Paths never appear in either; the
transcript ids and times naturally differ between machines, so a notebook compared by nbval
should show something stable instead (``len(history())``) or mark the cell to be skipped.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .._home import run_records
from ..provider import AgentProvider, RunContext, TranscriptRef, get_provider, provider_ids
from ..schema import Chat, SessionSummary
from ..schema._session import Exportable
from ._pricing import enrich_summary
from ._transcripts import read_transcript

__all__ = ["SessionInfo", "SessionList", "history"]

_PROMPT_SHOWN = 80


def _short(text: str | None, limit: int = _PROMPT_SHOWN) -> str:
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


@dataclass(frozen=True)
class SessionInfo(Exportable):
    """One past session: which provider, which transcript, when, and how it began.

    ``first_prompt`` and ``model`` come from a bounded read of the transcript's start and
    may be ``None``. The repr leaves the path out (``info.path`` has it).
    """

    provider_id: str
    transcript_id: str
    path: Path = field(repr=False)
    modified: datetime
    """Last change of the session (UTC): its transcript file's, or where one file holds
    many sessions (a database), the session's own."""
    size_bytes: int
    """Bytes the session takes: its file, or its share of a file holding many."""
    first_prompt: str | None = None
    model: str | None = None

    @property
    def ref(self) -> TranscriptRef:
        """Where the session's transcript is (its file and id)."""
        return TranscriptRef(transcript_id=self.transcript_id, path=self.path)

    def summary(self) -> SessionSummary:
        """The session's tokens per model and their estimated cost, sub-agents included,
        read without building its messages (a usage-only scan where the provider has one;
        :meth:`SessionList.summaries` reads a whole listing's together).
        """
        return enrich_summary(get_provider(self.provider_id).usage_summary(self.ref))

    def open(self) -> Chat:
        """The whole conversation, read from the transcript (see :func:`read_transcript`)."""
        return read_transcript(
            self.path, provider=self.provider_id, transcript_id=self.transcript_id
        )

    def _exported(self) -> tuple[list[Chat], str | None]:
        return [self.open()], f"Session {self.transcript_id} ({self.provider_id})"

    def _cells(self) -> tuple[str, str, str, str, str]:
        return (
            self.modified.strftime("%Y-%m-%d %H:%M"),
            self.provider_id,
            self.model or "",
            _size(self.size_bytes),
            _short(self.first_prompt),
        )


_HEADERS = ("modified (UTC)", "provider", "model", "size", "first prompt")


class SessionList(list[SessionInfo]):
    """A list of :class:`SessionInfo`, newest first, that shows as a table."""

    def __repr__(self) -> str:
        if not self:
            return "SessionList([])"
        rows = [_HEADERS, *(info._cells() for info in self)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADERS))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
        return "\n".join(line.rstrip() for line in lines)

    def summaries(self) -> list[SessionSummary]:
        """Every session's :meth:`SessionInfo.summary`, in the list's order: the sessions of
        one provider read together (where they share a store, one pass over it for all).
        """
        found: dict[int, SessionSummary] = {}
        groups: dict[str, list[int]] = {}
        for index, info in enumerate(self):
            groups.setdefault(info.provider_id, []).append(index)
        for provider_id, indexes in groups.items():
            refs = [self[i].ref for i in indexes]
            summaries = get_provider(provider_id).usage_summaries(refs)
            for index, summary in zip(indexes, summaries, strict=True):
                found[index] = enrich_summary(summary)
        return [found[i] for i in range(len(self))]

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        text = getattr(printer, "text", None)
        if callable(text):
            text(repr(self))

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in _HEADERS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in info._cells()) + "</tr>"
            for info in self
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _run_contexts(folder: Path) -> dict[str, list[RunContext]]:
    """lab_widget's own runs in ``folder`` (live or not), by provider id."""
    found: dict[str, list[RunContext]] = {}
    for record in run_records():
        if record.cwd != folder:
            continue  # another folder's run (a half-written record is no run at all)
        context = RunContext(run_id=record.run_id, cwd=folder, runtime_dir=record.runtime_dir)
        found.setdefault(record.provider, []).append(context)
    return found


def _infos(provider: AgentProvider, folder: Path, contexts: list[RunContext]) -> list[SessionInfo]:
    refs = list(provider.sessions(folder))
    for context in contexts:
        refs += provider.run_sessions(context)
    # One file may hold many sessions (a database): a session is a file and an id.
    seen: set[tuple[Path, str]] = set()
    unique: list[TranscriptRef] = []
    for ref in refs:
        if (ref.path, ref.transcript_id) not in seen:
            seen.add((ref.path, ref.transcript_id))
            unique.append(ref)
    # A session deleted since it was listed has no stat: it is left out.
    listed = [
        (ref, stat)
        for ref, stat in zip(unique, provider.session_stats(unique), strict=True)
        if stat is not None
    ]
    shown = provider.previews([ref for ref, _ in listed])
    return [
        SessionInfo(
            provider_id=provider.meta.id,
            transcript_id=ref.transcript_id,
            path=ref.path,
            modified=datetime.fromtimestamp(stat.modified, UTC),
            size_bytes=stat.size_bytes,
            first_prompt=prompt,
            model=model,
        )
        for (ref, stat), (prompt, model) in zip(listed, shown, strict=True)
    ]


def history(cwd: str | os.PathLike[str] | None = None, provider: str | None = None) -> SessionList:
    """Past sessions run in a folder, newest first.

    Parameters
    ----------
    cwd
        The folder (default: the current directory).
    provider
        One provider id; default: every provider that can list its sessions.

    Returns
    -------
    SessionList
        :class:`SessionInfo` entries, newest first; ``info.open()`` reads one as a Chat,
        ``info.summary()`` its tokens, and the list's ``summaries()`` every session's at
        once (the sessions of one store read together).
    """
    folder = Path(cwd if cwd is not None else Path.cwd()).expanduser().resolve()
    ids = [provider] if provider is not None else provider_ids()
    contexts = _run_contexts(folder)
    found: list[SessionInfo] = []
    for provider_id in ids:
        found += _infos(get_provider(provider_id), folder, contexts.get(provider_id, []))
    found.sort(key=lambda info: (info.modified, info.transcript_id), reverse=True)
    return SessionList(found)
