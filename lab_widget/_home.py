"""The lab home: where runs keep their private files, and the record each run leaves there.

Every run has a runtime folder, ``<lab home>/runs/<run id>/``, holding ``run.json`` (a
:class:`RunRecord`) beside the provider's own files (settings, signal spool, an isolated
config home). The record is what re-adopts a run in a fresh kernel and what lists a folder's
past lab_widget sessions. The tmux socket is derived from the lab home too, so every process
with the same lab home reaches the same server.

Nothing here starts a process: reading records is cheap and safe from anywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "RUN_FILE",
    "Holder",
    "RunRecord",
    "lab_home",
    "run_records",
    "runtime_dir",
    "socket_path",
]

RUN_FILE = "run.json"


def lab_home() -> Path:
    """Where runs keep their private files: ``$LAB_WIDGET_HOME`` or
    ``~/.local/state/lab_widget``.
    """
    env = os.environ.get("LAB_WIDGET_HOME")
    return Path(env).expanduser() if env else Path.home() / ".local" / "state" / "lab_widget"


def runtime_dir(run_id: str) -> Path:
    """The private folder of run ``run_id``."""
    return lab_home() / "runs" / run_id


def socket_path(home: Path | None = None) -> Path:
    """The tmux socket of the lab home's server (one server per lab home)."""
    home = lab_home() if home is None else home
    # Unix socket paths are limited to ~108 bytes: keep it short, one server per lab home.
    digest = hashlib.sha1(str(home.resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"lab_widget-{os.getuid()}" / f"{digest}.sock"


def _start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot); ``None`` when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The name (field 2) may hold spaces and parentheses: count from its closing one.
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


@dataclass(frozen=True)
class Holder:
    """The process a run cannot work without: the kernel serving its scripted model.

    The start time tells the process apart from a later one given the same pid.

    Examples
    --------
    >>> Holder.this_process().alive()
    True
    >>> Holder(pid=2**22 + 1, started=1).alive()  # beyond any pid
    False
    """

    pid: int
    started: int | None

    @classmethod
    def this_process(cls) -> Holder:
        """The holder that is the current process."""
        return cls(pid=os.getpid(), started=_start_ticks(os.getpid()))

    def alive(self) -> bool:
        """Whether the process still runs (the same one, not a reuse of its pid)."""
        started = _start_ticks(self.pid)
        if started is None:
            try:
                os.kill(self.pid, 0)  # no /proc (not Linux): the pid alone
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
            return self.started is None
        return self.started is None or started == self.started

    def to_json(self) -> dict[str, int | None]:
        """The holder as ``run.json`` keeps it."""
        return {"pid": self.pid, "started": self.started}

    @classmethod
    def from_json(cls, data: object) -> Holder | None:
        """The holder in ``data``; ``None`` when there is none."""
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
            return None
        started = data.get("started")
        return cls(pid=data["pid"], started=started if isinstance(started, int) else None)


@dataclass(frozen=True)
class RunRecord:
    """What a run wrote about itself when it started (``run.json``).

    Examples
    --------
    >>> record = RunRecord(run_id="r1", provider="fake", cwd=Path("/work"), model="m")
    >>> RunRecord.from_json(record.to_json(), Path("/home/runs/r1")).model
    'm'
    >>> RunRecord.from_json({"run_id": "r1"}, Path("/x")) is None  # not a run's record
    True
    """

    run_id: str
    provider: str
    cwd: Path
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    isolated: bool = False
    """Whether the run had its own config home (a scripted model or an endpoint)."""
    model: str | None = None
    """The model name the run asked for, if any."""
    workspace: Mapping[str, Any] | None = None
    """The workspace as :meth:`lab_widget.Workspace.to_record` described it."""
    holder: Holder | None = None
    """The process serving the run's scripted model: when it is gone, nothing can answer."""
    owner: Holder | None = None
    """The process (a kernel, a script) that started the run; ``None`` in older records."""
    folder: Path | None = field(default=None, compare=False)
    """The runtime folder the record was read from (``None`` before it is written)."""

    @property
    def runtime_dir(self) -> Path:
        """The run's private folder."""
        return self.folder if self.folder is not None else runtime_dir(self.run_id)

    def to_json(self) -> dict[str, Any]:
        """The record as ``run.json`` holds it."""
        return {
            "run_id": self.run_id,
            "provider": self.provider,
            "cwd": str(self.cwd),
            "created": self.created,
            "isolated": self.isolated,
            "model": self.model,
            "workspace": dict(self.workspace) if self.workspace is not None else None,
            "holder": self.holder.to_json() if self.holder is not None else None,
            "owner": self.owner.to_json() if self.owner is not None else None,
        }

    @classmethod
    def from_json(cls, data: object, folder: Path) -> RunRecord | None:
        """The record in ``data``; ``None`` when it is not a run's record."""
        if not isinstance(data, dict):
            return None
        run_id, provider, cwd = data.get("run_id"), data.get("provider"), data.get("cwd")
        if not (isinstance(run_id, str) and isinstance(provider, str) and isinstance(cwd, str)):
            return None
        model, workspace = data.get("model"), data.get("workspace")
        return cls(
            run_id=run_id,
            provider=provider,
            cwd=Path(cwd),
            created=str(data.get("created") or ""),
            isolated=bool(data.get("isolated")),
            model=model if isinstance(model, str) else None,
            workspace=workspace if isinstance(workspace, dict) else None,
            holder=Holder.from_json(data.get("holder")),
            owner=Holder.from_json(data.get("owner")),
            folder=folder,
        )

    def write(self) -> None:
        """Write ``run.json`` into the run's folder (which must exist)."""
        (self.runtime_dir / RUN_FILE).write_text(json.dumps(self.to_json(), indent=2))

    @classmethod
    def read(cls, path: Path) -> RunRecord | None:
        """The record in ``path``; ``None`` when it is unreadable or half-written."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return cls.from_json(data, path.parent)


def run_records() -> list[RunRecord]:
    """Every run record of the lab home (live or not), in the order of their folders."""
    runs = lab_home() / "runs"
    paths = sorted(runs.glob(f"*/{RUN_FILE}")) if runs.is_dir() else []
    return [record for path in paths if (record := RunRecord.read(path)) is not None]
