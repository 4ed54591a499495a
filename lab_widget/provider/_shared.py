"""Small pieces every adapter needs the same way: builtin command rows, JSON files read
leniently, a run's hook spool read incrementally, and a declined call told by its result.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LabWidgetError
from ..schema import CommandSpec, Dialog, DialogAnswer, ToolCall
from ._seam import ApprovalOutcome, Terminal

__all__ = [
    "approval_key",
    "approval_said_in_result",
    "builtin_command",
    "load_json",
    "play_keys",
    "spool_drop",
    "spool_entries",
    "spool_records",
    "spool_signature",
]


def builtin_command(
    name: str,
    description: str,
    arg_hint: str = "",
    *,
    clear_command: str,
    curated_out: Collection[str],
) -> CommandSpec:
    """One row of a provider's pinned builtin table.

    Examples
    --------
    >>> row = builtin_command("/new", "Start over", clear_command="/new", curated_out=())
    >>> (row.role, row.chat_safe, row.source)
    ('clear', True, 'builtin')
    """
    return CommandSpec(
        name=name,
        description=description,
        arg_hint=arg_hint,
        source="builtin",
        role="clear" if name == clear_command else None,
        chat_safe=name not in curated_out,
    )


def approval_key(dialog: Dialog, answer: DialogAnswer, keys: Mapping[str, str], reject: str) -> str:
    """The one key that plays an approval answer: ``keys`` maps each option's label to its
    key; anything else is the ``reject`` option's.

    Examples
    --------
    >>> from lab_widget.schema import Answer, Question
    >>> d = Dialog(kind="approval", questions=[Question(header="P", text="Run it?")])
    >>> keys = {"Approve": "y", "Reject": "Escape"}
    >>> approval_key(d, DialogAnswer(answers=[Answer(selected=["Approve"])]), keys, "Reject")
    'y'
    >>> approval_key(d, DialogAnswer(answers=[]), keys, "Reject")
    'Escape'
    """
    if dialog.kind != "approval":
        raise LabWidgetError(f"no recipe for {dialog.kind} dialogs")
    choice = answer.answers[0].selected[0] if answer.answers and answer.answers[0].selected else ""
    return keys.get(choice, keys[reject])


def play_keys(terminal: Terminal, keys: list[str], settle: float) -> None:
    """Press a recipe's keys once the prompt, open for ``settle`` seconds, takes them."""
    time.sleep(settle)
    for key in keys:
        terminal.keys(key)


def load_json(path: Path) -> dict[str, Any]:
    """A JSON object from a file; ``{}`` when it is missing, unreadable or not an object.

    Examples
    --------
    >>> load_json(Path("/nonexistent/file.json"))
    {}
    """
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


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


def approval_said_in_result(tool: ToolCall, word: str = "rejected") -> ApprovalOutcome:
    """``"rejected"`` for a failed call whose output says ``word``, else ``"approved"``.

    For adapters whose CLI (or reader) writes the refusal into the declined call's result.

    Examples
    --------
    >>> approval_said_in_result(ToolCall(id="t", name="Bash", status="error",
    ...                                  output="aborted by user (rejected)"))
    'rejected'
    >>> approval_said_in_result(ToolCall(id="t", name="Bash", status="error", output="exit 1"))
    'approved'
    """
    failed = tool.status == "error" and word in (tool.output or "")
    return "rejected" if failed else "approved"
