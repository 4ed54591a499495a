"""A Codex session's tokens without its messages: the usage-only fast path for history and
session summaries over many rollouts.

Only the lines that can change what is counted are parsed, found by one pass of a byte
search over the mapped rollout before any JSON: ``turn_context`` (the model that answers
next), ``token_count`` (a response's figures), and the ``spawn_agent`` calls and their
outputs (a sub-agent's rollout, read after its parent's, as the reader reads them). Each
response counts as the reader counts it (a repeated total is no new response; its figures
are ``last_token_usage``), per model and scope in the order the reader first meets them,
so the totals and rows are the reader's.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...schema import AgentScope, SessionSummary, Usage
from ..kit import UsageTally, iso_time, loads_or_none
from . import _compat
from ._items import spawned_agent, tool_output
from ._rollouts import find_thread, resolve_pending

__all__ = ["usage_summary"]

_COMMON = b"n_"
"""What ``"token_count"``, ``"turn_context"`` and every spawn call's name (``"spawn_agent"``)
hold in common, to lead the one search for all of them."""
_NEEDLES = (b'"token_count"', b'"turn_context"')
_SPAWNS = tuple(b'"' + name.encode() + b'"' for name in sorted(_compat.SPAWN_TOOLS))
_AGENT_ID = b"agent_id"
"""In a spawn call's output (a JSON string inside the line, so its quotes are escaped)."""


def _tail(needle: bytes) -> bytes:
    # Every needle holds ``_COMMON`` (the doctest of ``_HITS`` finds each of them).
    return re.escape(needle[needle.index(_COMMON) + len(_COMMON) :])


_HITS = re.compile(
    re.escape(_COMMON)
    + b"(?:"
    + b"|".join(_tail(n) for n in _NEEDLES)
    + b"|("
    + b"|".join(_tail(n) for n in _SPAWNS)
    + b"))"
)
"""Every needle, spawn names in the group: led by the literal bytes they share, the regex
finds them all in one pass as fast as one ``bytes.find`` (a search per needle reads the
file once per needle).

Examples
--------
>>> [bool(_HITS.search(n)) for n in (*_NEEDLES, *_SPAWNS)], _HITS.search(b'"spawn_agent"')[1]
([True, True, True], b'agent"')
"""

_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def _lines(data: mmap.mmap | bytes) -> list[tuple[int, int]]:
    """``(start, end)`` of each complete line that may hold a needle, in file order.

    One C-level pass over the file; a partial last line (no newline yet) is left out, as
    the reader leaves it. Only a rollout that names a spawn call is searched again, for
    the outputs that name its sub-agents.
    """
    found: list[tuple[int, int]] = []
    spawns = False
    line_end = -1
    for match in _HITS.finditer(data):
        spawns = spawns or match.lastindex is not None
        position = match.start()
        if position < line_end:
            continue  # another needle of a line already found
        line_end = data.find(b"\n", position)
        if line_end < 0:
            break
        found.append((data.rfind(b"\n", 0, position) + 1, line_end))
    if not spawns:
        return found
    position = 0
    more = set(found)
    while (hit := data.find(_AGENT_ID, position)) >= 0:
        end = data.find(b"\n", hit)
        if end < 0:
            break
        more.add((data.rfind(b"\n", 0, hit) + 1, end))
        position = end + 1
    return sorted(more)


_Counts = tuple[int, int, int, int, int]
"""Input (cached included), cached, output, cache writes, reasoning: ``Counts`` as a tuple."""


def _tokens(value: Any, *, or_else: Any = None) -> int:
    """``_count`` of one figure (``or_else``: the older key's value, where the newer is no
    integer), with ``type() is int`` for a JSON value's ``isinstance(int)`` and not bool.
    """
    if type(value) is not int:
        value = or_else
        if type(value) is not int:
            return 0
    return value if value > 0 else 0


def _figures(raw: Any) -> _Counts | None:
    """``counts(raw)`` as a plain tuple (the dataclass per line is a scan's main cost).

    Examples
    --------
    >>> from dataclasses import astuple
    >>> from lab_widget.provider.codex._items import counts
    >>> raw = {"input_tokens": 10, "cache_read_input_tokens": 4, "output_tokens": 3}
    >>> _figures(raw), astuple(counts(raw)) == _figures(raw)
    ((10, 4, 3, 0, 0), True)
    >>> raw = {"input_tokens": True, "cached_input_tokens": -1, "cache_read_input_tokens": 4}
    >>> _figures(raw), astuple(counts(raw)) == _figures(raw)
    ((0, 0, 0, 0, 0), True)
    """
    if not isinstance(raw, dict):
        return None
    get = raw.get
    return (
        _tokens(get("input_tokens")),
        _tokens(get("cached_input_tokens"), or_else=get("cache_read_input_tokens")),
        _tokens(get("output_tokens")),
        _tokens(get("cache_write_input_tokens"), or_else=get("cache_creation_input_tokens")),
        _tokens(get("reasoning_output_tokens")),
    )


def _advanced(total: _Counts, before: _Counts) -> bool:
    return (
        total[0] >= before[0]
        and total[1] >= before[1]
        and total[2] >= before[2]
        and total[3] >= before[3]
        and total[4] >= before[4]
    )


def _minus(total: _Counts, before: _Counts) -> _Counts:
    return (
        total[0] - before[0],
        total[1] - before[1],
        total[2] - before[2],
        total[3] - before[3],
        total[4] - before[4],
    )


@dataclass
class _Thread:
    path: Path
    scope: AgentScope
    model: str | None = None
    previous_total: _Counts | None = None


class _Scan:
    """The reader's counting, over the lines that feed it."""

    def __init__(self) -> None:
        self.tally = UsageTally()
        self.model: str | None = None
        self.children: dict[str, _Thread | None] = {}
        self.queue: list[_Thread] = []

    def thread(self, thread: _Thread, main: bool) -> None:
        try:
            with thread.path.open("rb") as f:
                # Mapped, not read: the search runs over the page cache without a copy.
                data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
            return
        spawns: set[str] = set()
        with data:
            for start, end in _lines(data):
                line = loads_or_none(data[start:end])
                if not isinstance(line, dict):
                    continue
                payload = line.get("payload")
                if isinstance(payload, dict):
                    self._line(thread, main, line, payload, spawns)

    def _line(
        self,
        thread: _Thread,
        main: bool,
        line: dict[str, Any],
        payload: dict[str, Any],
        spawns: set[str],
    ) -> None:
        kind = line.get("type")
        if kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str):
                thread.model = model
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self._token_count(thread, main, payload)
        elif kind == "response_item":
            item = payload.get("type")
            if item in _CALLS:
                name = str(payload.get("name") or item)
                if name in _compat.SPAWN_TOOLS:
                    spawns.add(str(payload.get("call_id") or payload.get("id") or ""))
            elif item in _OUTPUTS and str(payload.get("call_id") or "") in spawns:
                self._spawn_output(thread, line, payload)

    def _spawn_output(self, thread: _Thread, line: dict[str, Any], payload: dict[str, Any]) -> None:
        output, _, _ = tool_output(payload.get("output"))
        if output.rstrip().endswith(_compat.DECLINED_OUTPUT):
            return  # declined: no sub-agent started
        agent = spawned_agent(output)
        if agent is None or agent[0] in self.children:
            return
        path = find_thread(agent[0], thread.path, iso_time(line.get("timestamp")))
        child = _Thread(path, "subagent") if path is not None else None
        self.children[agent[0]] = child
        if child is not None:
            self.queue.append(child)

    def _token_count(self, thread: _Thread, main: bool, payload: dict[str, Any]) -> None:
        # The reader's rule (``CodexTranscriptReader._token_count``), without the messages.
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total = _figures(info.get("total_token_usage"))
        response: _Counts | None
        if total is not None:
            before, thread.previous_total = thread.previous_total, total
            if before is not None and total == before:
                return
            last = _figures(info.get("last_token_usage"))
            if last is not None:
                response = last
            elif before is None or not _advanced(total, before):
                response = total  # the first count, or totals that started over
            else:
                response = _minus(total, before)
        else:
            response = _figures(info.get("last_token_usage"))
        if response is None or not any(response):
            return
        # Plain sums until the end: a pydantic model per response is most of a scan's time.
        inputs, cached, output, cache_write, reasoning = response
        model = thread.model or "unknown"
        self.tally.add(
            model,
            thread.scope,
            input_tokens=max(0, inputs - cached),
            output_tokens=output,
            cache_read_tokens=cached,
            cache_write_tokens=cache_write,
            reasoning_tokens=reasoning,
        )
        if main and thread.model is not None:
            self.model = thread.model


def usage_summary(path: Path, transcript_id: str) -> SessionSummary:
    r"""The usage of the rollout at ``path`` and its sub-agents', as the reader totals it.

    Examples
    --------
    >>> import json, tempfile
    >>> def count(total, last):
    ...     usage = lambda n: {"input_tokens": 10 * n, "output_tokens": n}
    ...     info = {"total_token_usage": usage(total), "last_token_usage": usage(last)}
    ...     return json.dumps({"type": "event_msg",
    ...                        "payload": {"type": "token_count", "info": info}})
    >>> turn = json.dumps({"type": "turn_context", "payload": {"model": "gpt-x"}})
    >>> file = Path(tempfile.mkdtemp()) / "rollout.jsonl"
    >>> _ = file.write_text("\n".join([turn, count(2, 2), count(2, 2), count(5, 3)]) + "\n")
    >>> summary = usage_summary(file, "t")
    >>> summary.usage.output_tokens, summary.model, [m.requests for m in summary.models]
    (5, 'gpt-x', [2])
    """
    scan = _Scan()
    real = resolve_pending(path)
    if real is not None:
        scan.thread(_Thread(real, "main"), main=True)
        # Sub-agents found while reading are read after their parent (the queue grows).
        index = 0
        while index < len(scan.queue):
            scan.thread(scan.queue[index], main=False)
            index += 1
    rows = scan.tally.rows()
    return SessionSummary(
        transcript_id=transcript_id,
        model=scan.model,
        usage=sum((row.usage for row in rows), Usage()),
        models=rows,
    )
