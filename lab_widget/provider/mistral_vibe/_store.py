"""Mistral Vibe's session store read whole: its last snapshot and the journal after it.

Grammar pinned to 3.0.2 (``store_format`` :data:`~._compat.STORE_FORMAT`), written by the
package's own runtime (``vibe/_bin/vibe-rs``) under ``logs/session/unified/<session id>/``:

- ``CURRENT`` names the newest snapshot (``generation``), ``generations/<g>/manifest.json``
  its ``snapshot_sequence`` and the chunks (``chunks/<sha256>.json``) of its
  ``projection_state``: the session's entries so far, a JSON list;
  ``generations/<g>/projection-state.json`` its ``snapshot`` envelope (status, usage);
- ``journal/<first sequence>.jsonl`` holds the records after a snapshot, one JSON object a
  line ``{sequence, type, payload}``; an older segment is deleted once a later snapshot
  holds it, so the journal alone is not the session;
- ``projection_delta`` (``payload.delta``: ``append_entry`` / ``replace_entry`` an entry,
  ``set_envelope`` the session's state), ``action_result`` (a completion's ``usage``),
  ``callback_registered`` / ``callback_resolved`` (an approval prompt and its answer),
  ``command_reserved`` (``turn/start``: a submitted prompt).

A store is read whole at each read (a few files; a journal segment is at most one turn's):
what a read finds is a pure function of the files, so reading as the CLI writes and reading
once agree. A journal line not yet ended is not read; a whole line that is not JSON is kept
as unreadable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..kit import as_dict, load_json

__all__ = ["Store", "Unreadable", "read_store", "usage_totals"]


@dataclass(frozen=True)
class Unreadable:
    """A whole journal line that is not a JSON object."""

    segment: str
    line: int
    error: str


@dataclass
class Store:
    """What a session's store holds, in the order the CLI wrote it."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    """The session's entries (messages, tool effects), in order, each at its latest."""
    envelope: dict[str, Any] = field(default_factory=dict)
    """The latest session state (``session.status``, ``session.tokenUsage``)."""
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    """A completion's usage by its action id (``assistant-<action id>`` is its entry)."""
    open_approvals: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Approval prompts waiting for their answer, by callback id (``routing``)."""
    decisions: dict[str, str] = field(default_factory=dict)
    """The answer to each approval prompt (``approve``, ``deny``, ...) by its entry id."""
    approvals: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every approval prompt's ``routing`` by the entry id of the call it is about."""
    unreadable: list[Unreadable] = field(default_factory=list)
    entry_order: list[tuple[str, str]] = field(default_factory=list)
    """``("entry", id)`` and ``("unreadable", key)`` in the order they were found."""
    calls: dict[str, str] = field(default_factory=dict)
    """The model's call id of each tool effect, by the effect's entry id."""
    answered_by: dict[str, str] = field(default_factory=dict)
    """The completion (action id) that asked for each call, by call id."""
    index: dict[str, int] = field(default_factory=dict)
    """Where each entry id is in :attr:`entries`."""


def _snapshot(folder: Path, store: Store) -> int:
    """Load the newest snapshot into ``store``; its sequence (0 without one)."""
    current = as_dict(load_json(folder / "CURRENT"))
    generation = current.get("generation")
    if not isinstance(generation, str):
        return 0
    base = folder / "generations" / generation
    manifest = as_dict(load_json(base / "manifest.json"))
    chunks = as_dict(manifest.get("projection_state")).get("chunks")
    for chunk in chunks if isinstance(chunks, list) else []:
        for entry in _chunk(folder / "chunks" / f"{chunk}.json"):
            if isinstance(entry, dict):
                _put(store, entry)
    state = as_dict(load_json(base / "projection-state.json"))
    store.envelope = as_dict(state.get("snapshot"))
    sequence = manifest.get("snapshot_sequence")
    return sequence if isinstance(sequence, int) else 0


def _put(store: Store, entry: dict[str, Any]) -> None:
    key = entry.get("id")
    if not isinstance(key, str):
        return
    at = store.index.get(key)
    if at is None:
        store.index[key] = len(store.entries)
        store.entry_order.append(("entry", key))
        store.entries.append(entry)
    else:
        store.entries[at] = entry


def _chunk(path: Path) -> list[Any]:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return value if isinstance(value, list) else []


def _record(store: Store, record: dict[str, Any]) -> None:
    kind = record.get("type")
    payload = as_dict(record.get("payload"))
    if kind == "projection_delta":
        delta = payload.get("delta")
        for item in delta if isinstance(delta, list) else []:
            change = as_dict(item)
            op = change.get("op")
            if op in ("append_entry", "replace_entry"):
                _put(store, as_dict(change.get("entry")))
            elif op == "set_envelope":
                store.envelope = as_dict(change.get("state"))
    elif kind == "action_intent" and payload.get("kind") == "tool":
        call = as_dict(payload.get("request")).get("call_id")
        if isinstance(call, str) and isinstance(payload.get("action_id"), str):
            store.calls[f"effect-{payload['action_id']}"] = call
    elif kind == "action_result":
        outer = as_dict(payload.get("result"))
        action = payload.get("action_id")
        if outer.get("type") == "completion_succeeded" and isinstance(action, str):
            result = as_dict(outer.get("result"))
            usage = as_dict(result.get("usage"))
            if usage:
                store.usage[action] = usage
            parts = result.get("parts")
            for item in parts if isinstance(parts, list) else []:
                part = as_dict(item)
                if part.get("type") == "tool_call" and isinstance(part.get("id"), str):
                    store.answered_by[part["id"]] = action
    elif kind == "callback_registered" and payload.get("kind") == "approval":
        routing = as_dict(payload.get("routing"))
        callback = payload.get("callback_id")
        if isinstance(callback, str):
            store.open_approvals[callback] = routing
            related = routing.get("relatedEntryId")
            if isinstance(related, str):
                store.approvals[related] = routing
    elif kind == "callback_resolved":
        callback = payload.get("callback_id")
        routing = store.open_approvals.pop(str(callback), {})
        output = as_dict(as_dict(payload.get("result")).get("output"))
        decision = as_dict(output.get("decision")).get("type")
        related = routing.get("relatedEntryId")
        if isinstance(related, str) and isinstance(decision, str):
            store.decisions[related] = decision


def _segments(folder: Path) -> list[Path]:
    journal = folder / "journal"
    return sorted(journal.glob("*.jsonl")) if journal.is_dir() else []


def read_store(folder: Path) -> Store:
    """The session's store at ``folder`` as it is now (empty when it is not there yet)."""
    store = Store()
    after = _snapshot(folder, store)
    for segment in _segments(folder):
        try:
            data = segment.read_bytes()
        except OSError:
            continue  # deleted under the read: a newer snapshot holds it
        whole = data[: data.rfind(b"\n") + 1]
        for number, raw in enumerate(whole.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError as exc:
                record = exc
            if not isinstance(record, dict):
                bad = Unreadable(segment.name, number, str(record) or "not a JSON object")
                store.unreadable.append(bad)
                store.entry_order.append(("unreadable", f"{segment.name}:{number}"))
                continue
            sequence = record.get("sequence")
            if isinstance(sequence, int) and sequence <= after:
                continue
            _record(store, record)
    return store


def usage_totals(envelope: dict[str, Any]) -> dict[str, int]:
    """The session's billed totals (``session.tokenUsage``): every completion's usage
    summed, the cached input part of the input.
    """
    usage = as_dict(as_dict(envelope.get("session")).get("tokenUsage"))
    return {
        key: value
        for key in ("inputTokens", "outputTokens", "cachedInputTokens")
        if isinstance(value := usage.get(key), int)
    }
