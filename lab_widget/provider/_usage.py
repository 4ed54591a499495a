"""Token accounting every reader shares: each API response counted once, with its final figures
(:class:`UsageLedger`); a usage scan's plain sums per model (:class:`UsageTally`).

Agents write a response's usage more than once: Claude Code writes one entry per content block,
the early ones with the partial figures of the stream's start; Gemini CLI re-appends a record
when its tool calls finish. Whatever the order the copies arrive in, the figures that count are
the final ones, and the final count of a response only grows (output tokens are counted as they
stream), so the copy with the most output wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schema import AgentScope, ModelUsage, Usage

__all__ = ["UsageLedger", "UsageTally"]

_FIELDS = tuple(Usage.model_fields)


@dataclass
class _Entry:
    usage: Usage
    model: str
    scope: AgentScope


class UsageLedger:
    """Usage per API response, keyed by the response's id.

    Examples
    --------
    >>> ledger = UsageLedger()
    >>> ledger.record("msg_1", Usage(input_tokens=10, output_tokens=2), "m")
    True
    >>> ledger.record("msg_1", Usage(input_tokens=10, output_tokens=40), "m")
    True
    >>> ledger.record("msg_1", Usage(input_tokens=10, output_tokens=2), "m")  # a stale copy
    False
    >>> ledger.total.input_tokens, ledger.total.output_tokens
    (10, 40)
    >>> [(m.model, m.requests, m.usage.output_tokens) for m in ledger.models()]
    [('m', 1, 40)]
    """

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        # The totals as plain ints, made a model only when asked: a model per change would
        # be a large part of a long transcript's first read.
        self._sums = [0] * len(_FIELDS)
        self._total: Usage | None = Usage()

    def record(self, key: str, usage: Usage, model: str | None, scope: AgentScope = "main") -> bool:
        """Count ``usage`` for the response ``key``; True when the totals changed."""
        old = self._entries.get(key)
        sums = self._sums
        if old is not None:
            if usage.output_tokens < old.usage.output_tokens or usage == old.usage:
                return False
            for i, name in enumerate(_FIELDS):
                sums[i] -= getattr(old.usage, name)
        self._entries[key] = _Entry(usage, model or (old.model if old else "") or "", scope)
        for i, name in enumerate(_FIELDS):
            sums[i] += getattr(usage, name)
        self._total = None
        return True

    def usage(self, key: str) -> Usage | None:
        """The figures counted for ``key``, if any."""
        entry = self._entries.get(key)
        return entry.usage if entry else None

    @property
    def total(self) -> Usage:
        """All responses, each once."""
        if self._total is None:
            self._total = Usage(**dict(zip(_FIELDS, self._sums, strict=True)))
        return self._total

    def models(self) -> list[ModelUsage]:
        """Totals per model and scope, main agent first, then by model name."""
        groups: dict[tuple[AgentScope, str], tuple[Usage, int]] = {}
        for entry in self._entries.values():
            if not entry.model:
                continue
            usage, requests = groups.get((entry.scope, entry.model), (Usage(), 0))
            groups[(entry.scope, entry.model)] = (usage + entry.usage, requests + 1)
        order = {"main": 0, "subagent": 1, "compaction": 2}
        return [
            ModelUsage(model=model, scope=scope, usage=usage, requests=requests)
            for (scope, model), (usage, requests) in sorted(
                groups.items(), key=lambda item: (order[item[0][0]], item[0][1])
            )
        ]

    def __len__(self) -> int:
        return len(self._entries)


class UsageTally:
    """Token sums per model and scope as plain integers, made rows only when asked: a usage
    scan's tally (a pydantic model per response would be most of a scan's time).

    Examples
    --------
    >>> tally = UsageTally()
    >>> tally.add("m", "main", input_tokens=10, output_tokens=2)
    >>> tally.add("m", "main", input_tokens=5, cache_read_tokens=20)
    >>> tally.add("s", "subagent", output_tokens=1)
    >>> [(r.model, r.scope, r.requests, r.usage.input_tokens) for r in tally.rows()]
    [('m', 'main', 2, 15), ('s', 'subagent', 1, 0)]
    """

    def __init__(self) -> None:
        self._sums: dict[tuple[str, AgentScope], list[int]] = {}

    def add(
        self,
        model: str,
        scope: AgentScope,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
    ) -> None:
        """Count one response of ``model`` in ``scope``."""
        sums = self._sums.get((model, scope))
        if sums is None:
            sums = self._sums[model, scope] = [0, 0, 0, 0, 0, 0]
        sums[0] += input_tokens
        sums[1] += output_tokens
        sums[2] += cache_read_tokens
        sums[3] += cache_write_tokens
        sums[4] += reasoning_tokens
        sums[5] += 1

    def rows(self) -> list[ModelUsage]:
        """Per model and scope, in the order they were first counted."""
        return [
            ModelUsage(
                model=model,
                scope=scope,
                usage=Usage(
                    input_tokens=sums[0],
                    output_tokens=sums[1],
                    cache_read_tokens=sums[2],
                    cache_write_tokens=sums[3],
                    reasoning_tokens=sums[4],
                ),
                requests=sums[5],
            )
            for (model, scope), sums in self._sums.items()
        ]
