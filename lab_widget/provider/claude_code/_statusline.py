"""Claude Code's status line, spooled per run: the CLI's own cost, quotas and live facts.

A run's settings name a ``statusLine`` command; Claude Code runs it after each change it
shows, with a JSON payload on stdin (see ``_compat.STATUS_FIELDS``). The command appends the
payload, stamped with the time, as one line of the run folder's spool, then runs the user's
own status-line command, if any, on the same payload, so the user's status row still shows.
Reading the spool costs what was appended since the last read.

Examples
--------
>>> from decimal import Decimal
>>> record = {"at": 1796142793000, "status": {"session_id": "s", "prompt_id": "p",
...     "cost": {"total_cost_usd": 0.036588},
...     "rate_limits": {"five_hour": {"used_percentage": 42, "resets_at": 1796142793}}}}
>>> status = Status.from_record(record)
>>> status.cost, [(r.limit_id, r.window, r.used_percent) for r in status.rate_limits]
(Decimal('0.036588'), [('unified', 'five_hour', 42.0)])
"""

from __future__ import annotations

import base64
import json
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...schema import RateLimit, SessionSummary, TurnFacts
from ..kit import JsonlTail, Line, exact
from . import _compat

__all__ = [
    "Status",
    "StatusSpool",
    "is_gateway_token",
    "mint_gateway_token",
    "status_command",
    "user_status_command",
]

_SCRIPT = (
    # One line per payload, stamped in ms: {"at": ..., "status": <payload>}. The payload is
    # already one line of JSON; a user's own command then gets it unchanged.
    'd=$(cat); printf \'{"at":%s,"status":%s}\\n\' "$(date +%s%3N)" "$d" >> "$0"; '
    '[ -z "$1" ] || printf "%s" "$d" | sh -c "$1"'
)


def status_command(spool: Path, user_command: str | None = None) -> str:
    """The ``statusLine`` command that appends each payload to ``spool``, then runs
    ``user_command`` (the user's own status line) on it.
    """
    return (
        f"sh -c {shlex.quote(_SCRIPT)} {shlex.quote(str(spool))} {shlex.quote(user_command or '')}"
    )


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def mint_gateway_token(subject: str = "lab_widget") -> str:
    """An unsigned token the CLI takes for a Claude gateway's: a scripted model (or a local
    gateway) given it as its API key makes the CLI read the quota headers it sends.

    Examples
    --------
    >>> is_gateway_token(mint_gateway_token())
    True
    """
    claims = {"aud": _compat.GATEWAY_AUDIENCE, "sub": subject}
    return f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims)}.unsigned"


def is_gateway_token(key: str) -> bool:
    """Whether ``key`` is a token the CLI treats as a Claude gateway's (see ``_compat``).

    Examples
    --------
    >>> is_gateway_token("sk-ant-123"), is_gateway_token("a.b.c")
    (False, False)
    """
    parts = key.split(".")
    if len(parts) != 3:
        return False
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return False
    audience = claims.get("aud") if isinstance(claims, dict) else None
    if isinstance(audience, list):
        return _compat.GATEWAY_AUDIENCE in audience
    return audience == _compat.GATEWAY_AUDIENCE


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _epoch(value: Any) -> datetime | None:
    seconds = _number(value)
    if seconds is None:
        return None
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _get(payload: dict[str, Any], dotted: str) -> Any:
    value: Any = payload
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


@dataclass(frozen=True)
class Status:
    """One status-line payload, as lab_widget reads it."""

    session_id: str | None
    prompt_id: str | None
    observed_at: datetime | None
    cost: Decimal | None
    """``cost.total_cost_usd``: what the CLI says the session has cost so far, in USD."""
    model: str | None = None
    context_window: int | None = None
    effort: str | None = None
    rate_limits: list[RateLimit] = field(default_factory=list)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Status | None:
        """A spool line's status, or ``None`` when it holds no payload."""
        payload = record.get("status")
        if not isinstance(payload, dict):
            return None
        at = _number(record.get("at"))
        observed = datetime.fromtimestamp(at / 1000, UTC) if at is not None else None
        session = payload.get("session_id")
        prompt = payload.get("prompt_id")
        model = _get(payload, "model.id")
        effort = _get(payload, "effort.level")
        return cls(
            session_id=session if isinstance(session, str) else None,
            prompt_id=prompt if isinstance(prompt, str) else None,
            observed_at=observed,
            cost=exact(_get(payload, "cost.total_cost_usd")),
            model=model if isinstance(model, str) else None,
            context_window=_int(_get(payload, "context_window.context_window_size")),
            effort=effort if isinstance(effort, str) else None,
            rate_limits=_rate_limits(payload.get("rate_limits"), observed),
        )


def _rate_limits(raw: Any, observed: datetime | None) -> list[RateLimit]:
    if not isinstance(raw, dict):
        return []
    found: list[RateLimit] = []
    for window, minutes in _compat.RATE_LIMIT_WINDOWS.items():
        entry = raw.get(window)
        if isinstance(entry, dict):
            found.append(
                RateLimit(
                    limit_id="unified",
                    window=window,
                    window_minutes=minutes,
                    used_percent=_number(entry.get("used_percentage")),
                    resets_at=_epoch(entry.get("resets_at")),
                    observed_at=observed,
                    source="status line",
                )
            )
    spend = raw.get("spend_limit")
    if isinstance(spend, dict):
        period = spend.get("period")
        found.append(
            RateLimit(
                limit_id="spend_limit",
                window=period if isinstance(period, str) else None,
                kind="spend",
                used_percent=_number(spend.get("used_percentage")),
                used=exact(spend.get("used_usd")),
                limit=exact(spend.get("limit_usd")),
                unit="USD" if "used_usd" in spend or "limit_usd" in spend else None,
                resets_at=_epoch(spend.get("resets_at")),
                observed_at=observed,
                source="status line",
            )
        )
    return found


class StatusSpool:
    """The status-line payloads of one run, read incrementally, latest per session."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tail = JsonlTail(path)
        self._latest: dict[str, Status] = {}
        # Per session: prompt id -> the cost last read during that prompt, in prompt order.
        self._per_prompt: dict[str, dict[str, Decimal]] = {}
        # A turn's facts with its cost, made once: a merge costs no copies for old turns.
        self._with_cost: dict[tuple[TurnFacts, Decimal], TurnFacts] = {}

    def read(self) -> None:
        """Take in what was appended since the last read."""
        items = list(self._tail.read_iter())
        if self._tail.rewound:
            self._latest, self._per_prompt = {}, {}
        for item in items:
            # A payload cut short (the CLI stops a status command that a newer change
            # overtook) is one lost snapshot of many: the next one says the same and more.
            if not isinstance(item, Line) or not isinstance(item.value, dict):
                continue
            status = Status.from_record(item.value)
            if status is None or status.session_id is None:
                continue
            self._latest[status.session_id] = status
            if status.prompt_id is not None and status.cost is not None:
                prompts = self._per_prompt.setdefault(status.session_id, {})
                prompts.pop(status.prompt_id, None)  # moves to the end: the latest prompt
                prompts[status.prompt_id] = status.cost

    def latest(self, session_id: str | None) -> Status | None:
        """The newest payload of ``session_id``."""
        return self._latest.get(session_id) if session_id is not None else None

    def turn_costs(
        self, session_id: str | None, order: list[str] | None = None
    ) -> dict[str, Decimal]:
        """Prompt id -> what the CLI's running cost grew by during that prompt.

        ``order`` is every prompt of the session in turn order (the transcript's). The
        status line runs when the CLI gets to it: a quick turn followed at once by the next
        may leave no payload of its own, and then the next payload's growth spans both
        turns; neither is given a cost rather than one given both.
        """
        prompts = self._per_prompt.get(session_id or "", {})
        costs: dict[str, Decimal] = {}
        before: Decimal | None = Decimal(0)
        for prompt in order if order is not None else list(prompts):
            total = prompts.get(prompt)
            if total is not None and before is not None:
                costs[prompt] = total - before
            before = total
        return costs

    def merge(self, summary: SessionSummary) -> SessionSummary:
        """``summary`` with what the CLI's status line adds for its session."""
        self.read()
        status = self.latest(summary.transcript_id)
        if status is None:
            return summary
        update: dict[str, Any] = {}
        if summary.vendor_cost_usd is None and status.cost is not None:
            update["vendor_cost_usd"] = status.cost
        if status.rate_limits:
            kept = {r.key: r for r in summary.rate_limits}
            kept.update({r.key: r for r in status.rate_limits})
            update["rate_limits"] = list(kept.values())
        if status.context_window is not None:
            update["context_window"] = status.context_window
        order = [f.prompt_id for f in summary.turn_facts if f.prompt_id]
        costs = self.turn_costs(summary.transcript_id, order)
        if costs and summary.turn_facts:
            update["turn_facts"] = [self._costed(fact, costs) for fact in summary.turn_facts]
        return summary.model_copy(update=update) if update else summary

    def _costed(self, fact: TurnFacts, costs: dict[str, Decimal]) -> TurnFacts:
        cost = costs.get(fact.prompt_id or "")
        if cost is None or fact.vendor_cost_usd is not None:
            return fact
        key = (fact, cost)
        if key not in self._with_cost:
            self._with_cost[key] = fact.model_copy(update={"vendor_cost_usd": cost})
        return self._with_cost[key]


def user_status_command(settings_file: Path) -> str | None:
    """The ``statusLine.command`` of a settings file, if it names one."""
    try:
        settings = json.loads(settings_file.read_text())
    except (OSError, ValueError):
        return None
    line = settings.get("statusLine") if isinstance(settings, dict) else None
    command = line.get("command") if isinstance(line, dict) else None
    return command if isinstance(command, str) and command.strip() else None
