"""A run's hook spool as a live-signal channel: for the adapters whose CLI runs a command on
each hook event, one JSON record file per event, read incrementally.

The run's settings name :func:`hook_command` for every event the provider spools; it
writes the payload under a temporary name and renames it to ``<time ns>-<pid>.json``, so a
reader never sees half a record and the names sort in the order the events happened.
"""

from __future__ import annotations

import os
import shlex
import threading
import time
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ._lenient import load_json
from ._seam import LiveSignals
from ._seam_records import RunContext

__all__ = [
    "HookSignals",
    "hook_command",
    "open_calls",
    "spool_drop",
    "spool_entries",
    "spool_records",
    "spool_signature",
]


def hook_command(spool: Path, event: str | None = None) -> str:
    """The hook command that spools each event's payload (its stdin) into ``spool``.

    For a CLI whose payload does not name its event, ``event`` names it: the record is
    then ``{"hook_event_name": event, "payload": <the payload>}``.

    Examples
    --------
    >>> hook_command(Path("/run/signals")).startswith("sh -c ")
    True
    >>> import json, subprocess, tempfile
    >>> spool = Path(tempfile.mkdtemp())
    >>> _ = subprocess.run(hook_command(spool, "agentStop"), shell=True, input=b'{"a": 1}')
    >>> [json.loads(f.read_text()) for f in spool.iterdir()]
    [{'hook_event_name': 'agentStop', 'payload': {'a': 1}}]
    """
    # One file per event, written then renamed, so a reader never sees half a record.
    name = 'f="$0/$(date +%s%N)-$$"; '
    if event is None:
        script = name + 'cat > "$f.tmp" && mv "$f.tmp" "$f.json"'
        return f"sh -c {shlex.quote(script)} {shlex.quote(str(spool))}"
    script = (
        name + 'p=$(cat); printf \'{"hook_event_name": "%s", "payload": %s}\' "$1" "${p:-null}" '
        '> "$f.tmp" && mv "$f.tmp" "$f.json"'
    )
    return f"sh -c {shlex.quote(script)} {shlex.quote(str(spool))} {shlex.quote(event)}"


def open_calls(records: list[dict[str, Any]], closing: Collection[str]) -> list[dict[str, Any]]:
    """The ``PreToolUse`` records whose call no ``closing`` event has closed, oldest first.

    Examples
    --------
    >>> pre = {"hook_event_name": "PreToolUse", "tool_use_id": "a"}
    >>> post = {"hook_event_name": "PostToolUse", "tool_use_id": "a"}
    >>> open_calls([pre], ("PostToolUse",)), open_calls([pre, post], ("PostToolUse",))
    ([{'hook_event_name': 'PreToolUse', 'tool_use_id': 'a'}], [])
    """
    closed = {r.get("tool_use_id") for r in records if r.get("hook_event_name") in closing}
    return [
        r
        for r in records
        if r.get("hook_event_name") == "PreToolUse" and r.get("tool_use_id") not in closed
    ]


class HookSignals(LiveSignals):
    """A run's hook spool (``<runtime dir>/signals``) as its live signals.

    Subclasses read :meth:`records` for their pending dialog and blocked reason; the
    signature is the spool's, and the default sweep keeps every record (they are small,
    and the spool goes with the run).
    """

    spool_name: ClassVar[str] = "signals"
    """The run-folder spool the hooks write into."""

    def spool(self, context: RunContext) -> Path:
        """The run's spool folder."""
        return context.runtime_dir / self.spool_name

    def records(self, context: RunContext) -> list[dict[str, Any]]:
        """The run's records, oldest first."""
        return spool_records(self.spool(context))

    def session_starts(self, context: RunContext) -> list[tuple[str, Path]]:
        """``(session id, transcript path)`` of each ``SessionStart`` record, by the session's
        first record, oldest first.
        """
        found: dict[str, Path] = {}
        for record in self.records(context):
            if record.get("hook_event_name") != "SessionStart":
                continue
            session_id, path = record.get("session_id"), record.get("transcript_path")
            if session_id and path and str(session_id) not in found:
                found[str(session_id)] = Path(str(path))
        return list(found.items())

    def signature(self, context: RunContext) -> object:
        return spool_signature(self.spool(context))

    def sweep(self, context: RunContext) -> None:
        return


# A hook spool is a folder of records, one file per event, written under a temporary name
# and renamed to ``<time ns>-<pid>.json``: a file never changes once it is there, and the
# names sort in the order the events happened. So each file is parsed once, and a refresh
# that finds only newer names appends them.
_SUFFIX = ".json"
_KEPT_SPOOLS = 64


@dataclass
class _Spool:
    names: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)


_spools: OrderedDict[Path, _Spool] = OrderedDict()
_spools_lock = threading.Lock()


_QUIET_NS = 1_000_000_000
_listings: OrderedDict[Path, tuple[int, int, list[str]]] = OrderedDict()


def _names(spool: Path) -> list[str]:
    """The spool's record names, sorted; listed again only when the folder changed.

    A folder's mtime moves with every name added or removed, but in clock ticks: two
    changes within one tick share it. A listing made a second or more after the mtime it
    saw therefore has every change up to that mtime, and stays good while the mtime does.
    """
    try:
        mtime = os.stat(spool).st_mtime_ns  # noqa: PTH116
    except OSError:
        return []
    with _spools_lock:
        cached = _listings.get(spool)
        if cached is not None and cached[0] == mtime and cached[1] - mtime >= _QUIET_NS:
            return cached[2]
    listed_at = time.time_ns()
    try:
        # Plain names: Path objects for every record made a refresh cost grow with the spool.
        names = sorted(n for n in os.listdir(spool) if n.endswith(_SUFFIX))  # noqa: PTH208
    except OSError:
        return []
    with _spools_lock:
        _listings.pop(spool, None)
        _listings[spool] = (mtime, listed_at, names)
        while len(_listings) > _KEPT_SPOOLS:
            _listings.popitem(last=False)
    return names


def spool_entries(spool: Path) -> list[tuple[str, dict[str, Any]]]:
    """The records of a hook spool with their file names, oldest first (``[]`` for a
    missing folder).

    A file that does not hold a JSON object reads as ``{}``: names appear only by an
    atomic rename, so such a file is never "not written yet".

    Examples
    --------
    >>> spool_entries(Path("/nonexistent/spool"))
    []
    """
    names = _names(spool)
    with _spools_lock:
        state = _spools.pop(spool, None) or _Spool()
        parsed: dict[str, dict[str, Any]] = {}
        if state.names != names[: len(state.names)]:
            # Records were dropped, or one sorted in before the last: rebuild the order
            # from the records already parsed.
            parsed = dict(zip(state.names, state.records, strict=True))
            state = _Spool()
        for name in names[len(state.names) :]:
            record = parsed.get(name)
            state.names.append(name)
            state.records.append(load_json(spool / name) if record is None else record)
        if names:
            _spools[spool] = state
            while len(_spools) > _KEPT_SPOOLS:
                _spools.popitem(last=False)
        return list(zip(state.names, state.records, strict=True))


def reported_at(spool: Path, tool_use_id: str | None, event: str = "PreToolUse") -> float | None:
    """When the hook first reported the call ``tool_use_id`` (``event``), in seconds since
    the epoch: the spool's file names start with the hook's ``date +%s%N``. With no call id
    (an event that names none, as a PermissionRequest), the newest record of ``event``.

    Examples
    --------
    >>> reported_at(Path("/nonexistent/spool"), "t1") is None
    True
    """
    entries = [(n, r) for n, r in spool_entries(spool) if r.get("hook_event_name") == event]
    if tool_use_id is None:
        found = entries[-1:]
    else:
        found = [(n, r) for n, r in entries if r.get("tool_use_id") == tool_use_id][:1]
    if not found:
        return None
    stamp = found[0][0].split("-", 1)[0]
    return int(stamp) / 1e9 if stamp.isdigit() else None


def spool_records(spool: Path) -> list[dict[str, Any]]:
    """The records of a hook spool, oldest first (see :func:`spool_entries`).

    Examples
    --------
    >>> spool_records(Path("/nonexistent/spool"))
    []
    """
    return [record for _, record in spool_entries(spool)]


def spool_drop(spool: Path, names: Collection[str]) -> None:
    """Delete these records from a spool (the ones no reader needs any more)."""
    for name in names:
        (spool / name).unlink(missing_ok=True)


def spool_signature(spool: Path) -> tuple[str, ...]:
    """A cheap value that changes whenever a record is added to (or dropped from) a spool.

    Records are written under a new name and never rewritten, so the sorted names suffice.

    Examples
    --------
    >>> spool_signature(Path("/nonexistent/spool"))
    ()
    """
    return tuple(_names(spool))
