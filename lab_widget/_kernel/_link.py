"""The kernel's own connection, as ``jupyter console --existing`` makes it: code sent on the
shell channel runs on the kernel's main thread, queued behind the user's cells.

A call first asks the kernel for its info on the same shell channel: the kernel answers it
only once the cells ahead of it finished, so an unanswered request means a cell still runs.
The call is then left on the kernel's desk (:mod:`._desk`) for a cell that waits on the run
to take, and taken back when the kernel frees up first; when neither happens within the
wait, nothing of the agent's is queued behind the user's cell.
"""

from __future__ import annotations

import base64
import queue
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient

from ..errors import KernelBusyError, KernelToolsError
from ._desk import Desk, desk_folder

__all__ = ["Execution", "KernelLink", "strip_ansi"]

MAX_TEXT_CHARS = 20_000
"""At most this many characters of each stream (stdout, stderr) and of a result go back."""

MAX_IMAGE_BYTES = 1_000_000
"""PNG images larger than this (decoded) are left out, with a note saying so."""

FREE_GLANCE = 0.5
"""Seconds a free kernel takes at most to answer its info request: an unanswered one means
a cell runs, and the call goes on the desk."""

IOPUB_GLANCE = 1.0
"""Seconds the iopub channel has to carry the kernel's status for a probe before another
probe is sent (it joins late after a reconnect)."""

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    r"""``text`` without terminal colour codes (a traceback's).

    Examples
    --------
    >>> strip_ansi("\x1b[0;31mZeroDivisionError\x1b[0m: division by zero")
    'ZeroDivisionError: division by zero'
    """
    return _ANSI.sub("", text)


def _capped(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"\n… (cut at {MAX_TEXT_CHARS} characters of {len(text)})"


@dataclass
class Execution:
    r"""What running code in the kernel gave back.

    Examples
    --------
    >>> Execution(stdout="hi\n", result="3").summary()
    'stdout:\nhi\n\nresult: 3'
    >>> Execution().summary()
    '(no output)'
    """

    stdout: str = ""
    stderr: str = ""
    result: str | None = None
    """The text repr of the last expression's value, if the code ended with one."""
    error: str | None = None
    """``Name: value`` and the traceback, when the code raised."""
    images: list[bytes] = field(default_factory=list)
    """PNG images displayed, each at most :data:`MAX_IMAGE_BYTES`."""
    notes: list[str] = field(default_factory=list)
    """What was left out (an image over the cap)."""

    def summary(self) -> str:
        """The text parts, labelled, as a tool result reads them."""
        parts = []
        if self.stdout:
            parts.append(f"stdout:\n{_capped(self.stdout.rstrip())}")
        if self.stderr:
            parts.append(f"stderr:\n{_capped(self.stderr.rstrip())}")
        if self.result is not None:
            parts.append(f"result: {_capped(self.result)}")
        if self.error is not None:
            parts.append(f"error:\n{_capped(self.error)}")
        parts += self.notes
        return "\n\n".join(parts) or "(no output)"

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> Execution:
        r"""An execution from the fields a waiting cell wrote (images as base64 PNGs).

        Examples
        --------
        >>> Execution.from_fields({"stdout": "hi\n", "result": "3"}).summary()
        'stdout:\nhi\n\nresult: 3'
        """
        found = cls(
            stdout=str(fields.get("stdout") or ""),
            stderr=str(fields.get("stderr") or ""),
            result=None if fields.get("result") is None else str(fields["result"]),
            error=None if fields.get("error") is None else str(fields["error"]),
            notes=[str(note) for note in fields.get("notes") or []],
        )
        for png in fields.get("images") or []:
            found.take("display_data", {"data": {"image/png": png}})
        return found

    def take(self, kind: str, content: dict[str, Any]) -> None:
        """Add one IOPub message of the execution."""
        if kind == "stream":
            text = str(content.get("text", ""))
            if content.get("name") == "stderr":
                self.stderr += text
            else:
                self.stdout += text
        elif kind in ("execute_result", "display_data"):
            data = content.get("data") or {}
            png = data.get("image/png")
            if isinstance(png, str):
                raw = base64.b64decode(png)
                if len(raw) <= MAX_IMAGE_BYTES:
                    self.images.append(raw)
                else:
                    self.notes.append(
                        f"(an image of {len(raw)} bytes was left out: the cap is "
                        f"{MAX_IMAGE_BYTES} bytes)"
                    )
            plain = data.get("text/plain")
            if kind == "execute_result" and isinstance(plain, str):
                self.result = plain
        elif kind == "error":
            traceback = "\n".join(strip_ansi(str(t)) for t in content.get("traceback") or [])
            head = f"{content.get('ename')}: {content.get('evalue')}"
            self.error = f"{head}\n{traceback}" if traceback else head


class KernelLink:
    """A client of one kernel, through its connection file; one call at a time.

    Parameters
    ----------
    connection_file
        The kernel's JSON connection file (``jupyter --runtime-dir``, or
        ``ipykernel.get_connection_file()`` inside the kernel).
    """

    def __init__(self, connection_file: Path) -> None:
        if not connection_file.is_file():
            raise KernelToolsError(f"no kernel connection file at {connection_file}")
        self._client = BlockingKernelClient()
        self._client.load_connection_file(str(connection_file))
        self._client.start_channels()
        self._lock = threading.Lock()
        self._desk = Desk(desk_folder(connection_file))

    def close(self) -> None:
        """Close the channels (the kernel goes on)."""
        self._client.stop_channels()

    def _reply(self, msg_id: str, deadline: float) -> dict[str, Any] | None:
        """The shell reply to ``msg_id``, or ``None`` when ``deadline`` passes first."""
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = self._client.get_shell_msg(timeout=left)
            except queue.Empty:
                return None
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return msg
        return None

    def _run_or_hand_over(self, code: str, wait: float, timeout: float) -> dict[str, Any] | None:
        """``None`` once the kernel is free for ``code`` to be sent; else what running it
        gave in a cell that waits on the run (:mod:`._desk`).

        Raises :class:`KernelBusyError` when the kernel stays busy for ``wait`` seconds and
        no waiting cell took the call; nothing runs then.
        """
        msg_id = self._client.kernel_info()
        deadline = time.monotonic() + wait
        if self._reply(msg_id, min(deadline, time.monotonic() + FREE_GLANCE)) is not None:
            return None
        call = self._desk.deposit(code)
        while not self._desk.taken(call):
            left = deadline - time.monotonic()
            if left <= 0:
                if self._desk.withdraw(call):
                    raise KernelBusyError(
                        f"the kernel is still running a cell after {wait:g} s; nothing was "
                        "run. Try again once the user's cell finished (or ask the user to let "
                        "it finish)."
                    )
                break
            if self._reply(msg_id, time.monotonic() + min(left, 0.1)) is not None:
                if self._desk.withdraw(call):
                    return None  # free again before any waiting cell took it
                break
        found = self._desk.wait_result(call, timeout)
        if found is None:
            return {
                "notes": [
                    f"(still running after {timeout:g} s: the code goes on in the kernel; its "
                    "later output is not shown here)"
                ]
            }
        return found

    def execute(self, code: str, *, wait: float, timeout: float) -> Execution:
        """Run ``code`` in the user's namespace once the kernel is free (waiting at most
        ``wait`` seconds for it), and collect its output for at most ``timeout`` seconds.
        While a cell waits on the run, that cell runs it.

        Raises :class:`KernelBusyError` when the kernel stays busy; nothing runs then.
        """
        with self._lock:
            handed = self._run_or_hand_over(code, wait, timeout)
            if handed is not None:
                return Execution.from_fields(handed)
            self._until_iopub_hears(time.monotonic() + wait)
            msg_id = self._client.execute(code, store_history=False, allow_stdin=False)
            return self._collect(msg_id, timeout)

    def _until_iopub_hears(self, deadline: float) -> None:
        """Return once the iopub channel carries what the kernel publishes, or at
        ``deadline``. A subscriber that (re)connects misses what was published before it
        joined: after the connection to the kernel dropped and came back (a run on another
        host whose pipe was cut), the output and the end of the code would go unheard.
        """
        while time.monotonic() < deadline:
            probe = self._client.kernel_info()
            if self._reply(probe, deadline) is None:
                return
            heard = min(deadline, time.monotonic() + IOPUB_GLANCE)
            while (left := heard - time.monotonic()) > 0:
                try:
                    msg = self._client.get_iopub_msg(timeout=left)
                except queue.Empty:
                    break
                if (
                    msg.get("parent_header", {}).get("msg_id") == probe
                    and msg["msg_type"] == "status"
                    and msg["content"].get("execution_state") == "idle"
                ):
                    return

    def _collect(self, msg_id: str, timeout: float) -> Execution:
        found = Execution()
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = self._client.get_iopub_msg(timeout=left)
            except queue.Empty:
                break
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "status" and msg["content"].get("execution_state") == "idle":
                return found
            found.take(kind, msg["content"])
        found.notes.append(
            f"(still running after {timeout:g} s: the code goes on in the kernel; its later "
            "output is not shown here)"
        )
        return found

    def evaluate(self, expression: str, *, wait: float) -> str:
        """The text repr of ``expression`` evaluated in the user's namespace, silently
        (nothing in the user's history or outputs).
        """
        with self._lock:
            handed = self._run_or_hand_over(expression, wait, wait)
            if handed is not None:
                if handed.get("error") or handed.get("result") is None:
                    raise KernelToolsError(
                        f"the kernel could not evaluate it: {handed.get('error') or 'no value'}"
                    )
                return str(handed["result"])
            msg_id = self._client.execute(
                "", silent=True, store_history=False, user_expressions={"value": expression}
            )
            reply = self._reply(msg_id, time.monotonic() + wait)
        if reply is None:
            raise KernelBusyError(f"the kernel did not answer within {wait:g} s")
        value = reply["content"].get("user_expressions", {}).get("value", {})
        if value.get("status") != "ok":
            raise KernelToolsError(
                f"the kernel could not evaluate it: {value.get('ename')}: {value.get('evalue')}"
            )
        return str(value.get("data", {}).get("text/plain", ""))
