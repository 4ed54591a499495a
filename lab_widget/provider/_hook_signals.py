"""A run's hook spool, read incrementally: the live-signal channel of the adapters whose CLI
runs hook commands (one JSON record per event).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._files import load_json

__all__ = ["spool_drop", "spool_entries", "spool_records", "spool_signature"]


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
