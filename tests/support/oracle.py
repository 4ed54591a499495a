"""ccusage, the independent reader the oracle tests compare our token totals with.

ccusage (pinned in ``lab_widget.compat.ORACLE``, installed by ``install-clis`` into the
tools folder) reads each agent's own files. A run on the scripted model keeps them in its
isolated home, ``<runtime>/home``; ccusage is pointed there with the variables it reads
(verified with 20.0.24): ``CLAUDE_CONFIG_DIR`` (``<home>/.claude``, it reads
``projects/**/*.jsonl``), ``CODEX_HOME`` (``<home>/.codex``, its ``sessions/``),
``GEMINI_DATA_DIR`` (``<home>/.gemini/tmp``), ``OPENCODE_DATA_DIR``
(``<home>/.local/share/opencode``), ``COPILOT_HOME`` (``<home>/.copilot``, its
``session-state/*/events.jsonl``, of which it counts the ``session.shutdown`` totals only:
a session still open counts nothing), with ``HOME`` and the XDG folders set to the same home
so nothing of the user's own leaks in.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lab_widget._install import find_tool
from lab_widget.compat import ORACLE
from lab_widget.schema import Usage

__all__ = ["SUBCOMMAND", "Report", "ccusage", "oracle_binary"]

SUBCOMMAND = {
    "claude-code": "claude",
    "codex": "codex",
    "gemini": "gemini",
    "opencode": "opencode",
    "copilot": "copilot",
}
"""The ccusage report of each provider's files."""

_OPTIONS = {"claude-code": ["--mode", "calculate"]}
"""``--mode calculate``: price Claude Code's tokens with ccusage's table, as our estimate
does, rather than take a cost the transcript records."""


def oracle_binary() -> Path:
    """The pinned ccusage, or a loud failure naming the fix."""
    binary = find_tool(ORACLE)
    if binary is None:
        pytest.fail(
            f"the pinned test oracle ({ORACLE.spec}) is not installed in the tools folder: "
            "run `make setup` (python -m lab_widget install-clis)"
        )
    return binary


def environment(home: Path) -> dict[str, str]:
    """ccusage's environment for an isolated run home (nothing of the user's own)."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TZ", "TMPDIR")}
    return {
        **keep,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "GEMINI_DATA_DIR": str(home / ".gemini" / "tmp"),
        "OPENCODE_DATA_DIR": str(home / ".local" / "share" / "opencode"),
        "COPILOT_HOME": str(home / ".copilot"),
        "NO_COLOR": "1",
        "LOG_LEVEL": "0",
    }


REASONING_OUTSIDE_OUTPUT = frozenset({"gemini", "opencode"})
"""Agents whose reasoning ccusage counts in its total but not in its output column."""


@dataclass(frozen=True)
class Report:
    """ccusage's ``session --json --offline`` report of one provider's files in a home."""

    raw: dict[str, Any]
    provider: str = ""

    @property
    def sessions(self) -> list[dict[str, Any]]:
        found = self.raw.get("sessions")
        return found if isinstance(found, list) else []

    @property
    def totals(self) -> dict[str, Any]:
        found = self.raw.get("totals")
        return found if isinstance(found, dict) else {}

    @property
    def usage(self) -> Usage:
        """The totals in the schema's terms. ccusage keeps cache reads apart from the input
        for all four agents, as the schema does (checked with cache reads on each), and
        counts reasoning as part of the output, as the schema does."""
        t = self.totals
        usage = Usage(
            input_tokens=int(t.get("inputTokens") or 0),
            output_tokens=int(t.get("outputTokens") or 0),
            cache_read_tokens=int(t.get("cacheReadTokens") or 0),
            cache_write_tokens=int(t.get("cacheCreationTokens") or 0),
            reasoning_tokens=int(t.get("reasoningOutputTokens") or 0),
        )
        if self.provider in REASONING_OUTSIDE_OUTPUT:
            # ccusage 20.0.24 leaves a Gemini or OpenCode response's reasoning out of its
            # output column and has no column for it, but counts it in totalTokens (checked:
            # 3600 in + 96 out + 12060 cache reads, 15763 in all with 7 thought tokens). The
            # vendors bill reasoning as output, as the schema counts it; the reasoning is
            # what the total holds beyond the four columns, to the token.
            reasoning = int(t.get("totalTokens") or 0) - usage.total
            usage = Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens + reasoning,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                reasoning_tokens=reasoning,
            )
        return usage

    @property
    def cost(self) -> float | None:
        for key in ("costUSD", "totalCost"):
            value = self.totals.get(key)
            if isinstance(value, int | float):
                return float(value)
        return None

    @property
    def missing_pricing(self) -> list[str]:
        """Models ccusage could not price (listed by some of its reports)."""
        found: list[str] = []
        for session in [self.raw, self.totals, *self.sessions]:
            value = (
                session.get("missingPricing")
                or session.get("missingPricingModels")
                or session.get("unpricedModels")
            )
            if isinstance(value, list):
                found += [str(v) for v in value]
            for model in session.get("modelBreakdowns") or []:
                if isinstance(model, dict) and model.get("missingPricing") is True:
                    found.append(str(model.get("modelName")))
        return sorted(set(found))


def ccusage(provider_id: str, home: Path) -> Report:
    """Run ccusage's session report of ``provider_id``'s files in ``home``."""
    argv = [
        str(oracle_binary()),
        SUBCOMMAND[provider_id],
        "session",
        "--json",
        "--offline",
        *_OPTIONS.get(provider_id, []),
    ]
    proc = subprocess.run(
        argv, capture_output=True, text=True, env=environment(home), timeout=120, check=False
    )
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    try:
        raw = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"{' '.join(argv)} printed no JSON: {proc.stdout[-2000:]}")
    return Report(raw if isinstance(raw, dict) else {}, provider_id)
