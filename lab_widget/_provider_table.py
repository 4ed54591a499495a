"""``providers()``: every registered provider with its CLI, login and capabilities.

Nothing here crashes on a missing or broken CLI: such a provider shows its health
(``not installed`` with the install command, or ``broken``) and the table goes on.
"""

from __future__ import annotations

import html
import importlib
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._acp._agent import AcpAgent
from ._install import find_binary
from .compat import PINS, install_command
from .errors import LabWidgetError, MissingDependencyError, UnknownProviderError
from .provider import AgentProvider, default_provider, get_provider, provider_ids
from .schema import AuthKind, AuthStatus, ProviderCapabilities

__all__ = ["ProviderInfo", "ProviderTable", "providers"]

VERSION_TIMEOUT = 60.0
"""Seconds for ``<cli> --version`` to answer before the CLI counts as hung.

A bound on a hang, not a measure of speed: a Node CLI's start-up is CPU-bound, and one pinned
CLI's ``--version`` (≈ 1.7 s of CPU) took 17 s on two cores shared with busy processes.
"""

_VERSION = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")
_versions: dict[tuple[str, int], tuple[str | None, str]] = {}


def _probe_version(binary: Path) -> tuple[str | None, str]:
    """``(version, problem)`` from ``<binary> --version``, cached per file and mtime.

    A timeout is not cached: a CLI slow on a busy machine is asked again next time.
    """
    try:
        key = (str(binary.resolve()), binary.stat().st_mtime_ns)
    except OSError as exc:
        return None, f"cannot read {binary}: {exc.strerror}"
    if key in _versions:
        return _versions[key]
    try:
        proc = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"--version gave no answer in {VERSION_TIMEOUT:g} s"
    except OSError as exc:
        result: tuple[str | None, str] = (None, f"cannot run {binary}: {exc.strerror}")
    else:
        match = _VERSION.search(proc.stdout)
        if proc.returncode == 0 and match:
            result = (match.group(0), "")
        else:
            output = (proc.stderr or proc.stdout).strip().splitlines()
            result = (None, f"--version failed: {output[-1] if output else proc.returncode}")
    _versions[key] = result
    return result


@dataclass(frozen=True)
class ProviderInfo:
    """One row of :func:`providers`."""

    id: str
    display_name: str
    default: bool
    pinned_version: str | None
    installed_version: str | None
    health: str
    """``ok``, ``not installed``, or ``broken: <why>``."""
    install_command: str
    binary: str | None
    auth: AuthStatus | None
    """``None`` when the status could not be read (see ``auth_problem``)."""
    auth_problem: str
    auth_kinds: tuple[AuthKind, ...]
    capabilities: ProviderCapabilities
    checked_at: datetime | None = None
    """When this row's health was checked."""
    latency_ms: float | None = None
    """How long the check took: the CLI's ``--version`` (cached per binary) and, when asked,
    its login status."""
    note: str = ""
    """What the provider says a user must know beside its health (see ``health_note``)."""

    @property
    def auth_text(self) -> str:
        """The auth column: the status's summary, or why it is unknown."""
        if self.auth is not None:
            return self.auth.summary()
        return f"unknown ({self.auth_problem})" if self.auth_problem else "unknown"

    @property
    def version_text(self) -> str:
        """``installed / pinned``, marking a mismatch."""
        installed = self.installed_version or "-"
        pinned = self.pinned_version or "-"
        if self.installed_version and self.pinned_version and installed != pinned:
            return f"{installed} (pinned {pinned}: mismatch)"
        return f"{installed} (pinned {pinned})"

    @property
    def health_text(self) -> str:
        """The health column, with the install command when the CLI is missing and the
        provider's own note (timings stay out: the table's text is stable for nbval).
        """
        text = self.health
        if self.health == "not installed":
            text = f"not installed: {self.install_command}"
        return f"{text}; {self.note}" if self.note else text

    def capabilities_text(self) -> str:
        """Capabilities in one short line."""
        caps = self.capabilities
        parts = [
            f"live signals: {'yes' if caps.live_signals else 'no'}",
            f"dialogs: {', '.join(caps.dialog_kinds) or 'none'}",
            f"resume: {'yes' if caps.session_resume else 'no'}",
            f"model selection: {'yes' if caps.model_selection else 'no'}",
            f"kernel tools: {'yes' if caps.tool_servers else 'no'}",
        ]
        if caps.models:
            parts.append(f"models: {', '.join(caps.models)}")
        return "; ".join(parts)


_COLUMNS = ("id", "name", "version", "health", "auth", "login", "capabilities")


class ProviderTable(list[ProviderInfo]):
    """The rows of :func:`providers`; an HTML table in Jupyter, a stable text table else."""

    def rows(self) -> list[tuple[str, ...]]:
        """The table's cells, as shown."""
        return [
            (
                f"{p.id}{' (default)' if p.default else ''}",
                p.display_name,
                p.version_text,
                p.health_text,
                p.auth_text,
                ", ".join(p.auth_kinds),
                p.capabilities_text(),
            )
            for p in self
        ]

    def __repr__(self) -> str:
        rows = [_COLUMNS, *self.rows()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
        return "\n".join(line.rstrip() for line in lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in _COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
            for row in self.rows()
        )
        return (
            '<table class="lab-widget-providers">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )

    def to_dataframe(self) -> Any:
        """One row per provider: health, when it was checked and how long the check took,
        login, version against the pin (needs ``pip install 'lab_widget[pandas]'``).
        """
        try:
            pd = importlib.import_module("pandas")
        except ImportError as exc:
            raise MissingDependencyError("pandas", "pandas") from exc
        rows = [
            {
                "provider": p.id,
                "name": p.display_name,
                "health": p.health,
                "available": p.health == "ok",
                "checked_at": p.checked_at,
                "latency_ms": p.latency_ms,
                "note": p.note,
                "logged_in": p.auth.logged_in if p.auth is not None else None,
                "installed_version": p.installed_version,
                "pinned_version": p.pinned_version,
            }
            for p in self
        ]
        frame = pd.DataFrame(rows)
        if not frame.empty:
            frame["checked_at"] = pd.to_datetime(frame["checked_at"], utc=True)
        return frame

    def get(self, provider_id: str) -> ProviderInfo:
        """The row of ``provider_id``; :class:`~lab_widget.UnknownProviderError` if none."""
        for info in self:
            if info.id == provider_id:
                return info
        # Known to the package but not in this table (a table of some providers only).
        raise UnknownProviderError(provider_id, [info.id for info in self])


def _binary(provider: AgentProvider) -> Path | None:
    pin = PINS.get(provider.meta.id)
    if pin is not None:
        try:
            return find_binary(pin, provider.meta.display_name)
        except LabWidgetError:
            return None
    found = shutil.which(provider.meta.binary)
    return Path(found) if found else None


def _info(provider_id: str, default: str, check_auth: bool) -> ProviderInfo:
    started = time.perf_counter()
    checked_at = datetime.now(UTC)
    provider = get_provider(provider_id)
    pin = PINS.get(provider_id)
    binary = _binary(provider)
    installed: str | None = None
    if binary is None:
        health = "not installed"
    else:
        installed, problem = _probe_version(binary)
        health = f"broken: {problem}" if problem else "ok"
    descriptor = provider.auth()
    auth: AuthStatus | None = None
    auth_problem = ""
    if health != "ok":
        auth_problem = "CLI unavailable"
    elif check_auth:
        try:
            auth = provider.auth_flow().status()
        except Exception as exc:  # a diagnostic table shows a failure, it never raises it
            auth_problem = str(exc) or type(exc).__name__
    else:
        auth_problem = "not checked"
    capabilities = provider.capabilities()
    latency = (time.perf_counter() - started) * 1000
    note = provider.health_note()
    if isinstance(provider, AcpAgent) and health == "ok":
        # An ACP agent's health is its handshake: the round trip and what it declares.
        found = provider.probe()
        health = "ok" if found.ok else f"broken: {found.problem}"
        latency = found.latency_ms or latency
        note = f"{found.agent}; declares {', '.join(found.capabilities) or 'nothing'}"
    return ProviderInfo(
        id=provider_id,
        display_name=provider.meta.display_name,
        default=provider_id == default,
        pinned_version=pin.version if pin else None,
        installed_version=installed,
        health=health,
        install_command=install_command(),
        binary=str(binary) if binary else None,
        auth=auth,
        auth_problem=auth_problem,
        auth_kinds=tuple(m.kind for m in descriptor.all_methods()),
        capabilities=capabilities,
        checked_at=checked_at,
        latency_ms=round(latency, 1),
        note=note,
    )


def providers(default: str | None = None, *, check_auth: bool = True) -> ProviderTable:
    """Every registered provider: CLI version against the pin, health, login, capabilities.

    Parameters
    ----------
    default
        The provider to mark as default (``$LAB_WIDGET_PROVIDER`` or the built-in default
        when ``None``); an unknown id raises :class:`~lab_widget.UnknownProviderError`.
    check_auth
        Ask each installed CLI for its login status (a short subprocess each).

    Examples
    --------
    >>> table = providers(check_auth=False)
    >>> "claude-code" in [row.id for row in table]
    True
    """
    chosen = default or default_provider()
    get_provider(chosen)  # an unknown default fails here, listing the known ids
    return ProviderTable(_info(p, chosen, check_auth) for p in provider_ids())
