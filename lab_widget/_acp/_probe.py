"""The health of an ACP agent: an ``initialize`` round trip, timed, and what it declares."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..errors import AcpHandshakeError
from ._wire import Refusing, handshake, spawn

__all__ = ["Probe", "declared", "probe"]


@dataclass(frozen=True)
class Probe:
    """What one ``initialize`` round trip found."""

    ok: bool
    latency_ms: float | None = None
    agent: str = ""
    """The agent's own name and version, as it declares them."""
    capabilities: list[str] = field(default_factory=list)
    problem: str = ""


def declared(answer: dict[str, Any]) -> list[str]:
    """The capabilities an ``initialize`` answer declares, as short words.

    Examples
    --------
    >>> declared({"agentCapabilities": {"loadSession": True,
    ...     "promptCapabilities": {"image": True, "audio": False},
    ...     "sessionCapabilities": {"list": {}, "resume": {}}}})
    ['loadSession', 'prompt: image', 'session: list, resume']
    """
    caps = answer.get("agentCapabilities") or {}
    words = ["loadSession"] if caps.get("loadSession") else []
    prompt = [k for k, v in (caps.get("promptCapabilities") or {}).items() if v is True]
    if prompt:
        words.append("prompt: " + ", ".join(prompt))
    session = sorted((caps.get("sessionCapabilities") or {}).keys())
    if session:
        words.append("session: " + ", ".join(session))
    return words


async def _probe(command: list[str], env: dict[str, str], timeout: float) -> Probe:
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="lab-widget-acp-probe-") as folder:
        wire = await spawn(
            command, lambda _a: Refusing(), env=env, cwd=folder, warn=problems.append
        )
        try:
            answer, latency = await handshake(wire, command, timeout)
        except AcpHandshakeError as exc:
            return Probe(ok=False, problem=str(exc).splitlines()[0])
        finally:
            await wire.close()
    raw = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
    info = raw.get("agentInfo") or {}
    agent = " ".join(str(info[k]) for k in ("name", "version") if info.get(k))
    return Probe(
        ok=True, latency_ms=round(latency * 1000, 1), agent=agent, capabilities=declared(raw)
    )


def probe(command: list[str], env: dict[str, str], timeout: float = 30.0) -> Probe:
    """Start the agent, shake hands, stop it; never raises for the agent's faults."""
    try:
        return asyncio.run(_probe(command, env, timeout))
    except OSError as exc:
        return Probe(ok=False, problem=f"cannot start `{' '.join(command)}`: {exc.strerror}")
