"""The runs dashboard driven as its front end drives it."""

from __future__ import annotations

import threading
from typing import Any

from lab_widget._widgets._dashboard import RunsDashboard

from .recording import from_browser


def act(board: RunsDashboard, action: str, run_id: str = "") -> dict[str, Any]:
    """Send an action as the browser does and wait for its result."""
    done = threading.Event()
    results: list[dict[str, Any]] = []
    original = board.table.send

    def capture(content: dict[str, Any], buffers: Any = None) -> None:
        results.append(content)
        done.set()
        original(content, buffers)

    board.table.send = capture
    try:
        from_browser(
            board.table, {"kind": "action", "id": "r1", "action": action, "run_id": run_id}
        )
        assert done.wait(20), f"no result for {action}"
    finally:
        board.table.send = original
    return results[0]
