"""Where Claude Code keeps its session files, and a cheap look inside one.

Layout pinned to Claude Code 2.1.332: ``<config dir>/projects/<slug>/<session id>.jsonl``,
sub-agents in ``<config dir>/projects/<slug>/<session id>/subagents/agent-<agent id>.jsonl``
beside an ``agent-<agent id>.meta.json`` that names the spawning tool call.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .. import TranscriptRef
from ._entries import prompt_text

__all__ = [
    "peek_session",
    "project_dir",
    "project_slug",
    "session_files",
    "subagent_dir",
    "subagent_file",
]

_SLUG_LIMIT = 200


def _java_hash(text: str) -> int:
    data = text.encode("utf-16-le")
    h = 0
    for i in range(0, len(data), 2):
        h = ((h << 5) - h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def project_slug(cwd: str) -> str:
    """The folder name Claude Code keeps a cwd's transcripts under.

    Examples
    --------
    >>> project_slug("/tmp/my repo.v2")
    '-tmp-my-repo-v2'
    >>> len(project_slug("/x" * 150)) > 200
    True
    """
    slug = re.sub(r"[^a-zA-Z0-9]", "-", cwd)
    if len(slug) <= _SLUG_LIMIT:
        return slug
    return f"{slug[:_SLUG_LIMIT]}-{_base36(abs(_java_hash(cwd)))}"


def project_dir(config_dir: Path, cwd: str) -> Path:
    """``<config dir>/projects/<slug>``."""
    return config_dir / "projects" / project_slug(cwd)


def session_files(folder: Path) -> list[TranscriptRef]:
    """The session transcripts in a project folder, by name (none when it is missing)."""
    try:
        files = sorted(folder.glob("*.jsonl"))
    except OSError:
        return []
    return [
        TranscriptRef(transcript_id=path.stem, path=path, watch=(folder,))
        for path in files
        if path.is_file()
    ]


def subagent_dir(transcript: Path) -> Path:
    """The folder of a session's sub-agent transcripts.

    Examples
    --------
    >>> subagent_dir(Path("/c/projects/-w/s1.jsonl"))
    PosixPath('/c/projects/-w/s1/subagents')
    """
    return transcript.with_suffix("") / "subagents"


def subagent_file(transcript: Path, agent_id: str) -> Path | None:
    """The transcript of sub-agent ``agent_id``; ``None`` for an id that is not a plain name."""
    if not agent_id or not re.fullmatch(r"[A-Za-z0-9_-]+", agent_id):
        return None
    return subagent_dir(transcript) / f"agent-{agent_id}.jsonl"


def peek_session(path: Path, limit: int = 1 << 20) -> tuple[str | None, str | None]:
    """The first prompt and the answering model of a session file, reading at most
    ``limit`` bytes and stopping as soon as both are found.

    Falls back to the requested model when no answer was seen within the limit.
    """
    prompt: str | None = None
    model: str | None = None
    requested: str | None = None
    read = 0
    try:
        with path.open("rb") as handle:
            for raw in handle:
                read += len(raw)
                if read > limit:
                    break
                try:
                    entry = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(entry, dict):
                    continue
                kind = entry.get("type")
                if kind == "user" and prompt is None:
                    prompt = prompt_text(entry)
                elif kind == "assistant" and model is None:
                    message = entry.get("message")
                    name = message.get("model") if isinstance(message, dict) else None
                    if isinstance(name, str) and name and name != "<synthetic>":
                        model = name
                elif kind == "api-request" and requested is None:
                    params = entry.get("params")
                    name = params.get("model") if isinstance(params, dict) else None
                    requested = name if isinstance(name, str) and name else None
                if prompt is not None and model is not None:
                    break
    except OSError:
        pass
    return prompt, model or requested
