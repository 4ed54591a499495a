"""A comm that records what a widget publishes: the Python side of widgets without a browser."""

from __future__ import annotations

import json
from typing import Any

from comm import DummyComm
from comm.base_comm import BaseComm


class RecordingComm(DummyComm):
    """Keeps every message a widget publishes, with its size on the wire."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sent: list[tuple[str, dict[str, Any], int]] = []
        self.buffers: list[list[bytes]] = []
        """The binary buffers of each message in ``sent`` (their bytes count in its size)."""
        super().__init__(*args, **kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        payload = json.dumps(data, default=str)
        binary = [bytes(b) for b in buffers or []]
        self.sent.append((msg_type, data or {}, len(payload.encode()) + sum(map(len, binary))))
        self.buffers.append(binary)

    def customs(self) -> list[dict[str, Any]]:
        return [
            d["content"] for t, d, _ in self.sent if t == "comm_msg" and d.get("method") == "custom"
        ]

    def customs_with_buffers(self) -> list[tuple[dict[str, Any], list[bytes]]]:
        return [
            (d["content"], b)
            for (t, d, _), b in zip(self.sent, self.buffers, strict=True)
            if t == "comm_msg" and d.get("method") == "custom"
        ]

    def clear(self) -> None:
        self.sent.clear()
        self.buffers.clear()

    def bytes_sent(self) -> int:
        return sum(size for _, _, size in self.sent)


def from_browser(widget: Any, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
    """Send ``widget`` one custom message as its front end does: a ``comm_msg`` handed to the
    widget's comm (a ``RecordingComm`` under the ``comms`` fixture), which calls the widget's
    ``on_msg`` callbacks."""
    comm: BaseComm | None = widget.comm
    assert comm is not None, "the widget has no comm (closed, or never shown)"
    comm.handle_msg(
        {
            "content": {"comm_id": comm.comm_id, "data": {"method": "custom", "content": content}},
            "buffers": list(buffers or []),
        }
    )
