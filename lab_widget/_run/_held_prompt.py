"""A first prompt held while a start-up screen stands before the agent's input."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from .._chat._session import ChatEvent, ChatSession
from ..errors import LabWidgetError

__all__ = ["HeldPrompt"]

log = logging.getLogger(__name__)


class HeldPrompt:
    """A first prompt that could not go on the command line because a start-up screen (a
    folder to trust) comes first: sent once, when :meth:`release` is called after the
    screen was accepted, or as soon as the run is ready by other means (the screen answered
    in the terminal view).
    """

    def __init__(self, chat: ChatSession, prompt: str, send: Callable[[str], None]) -> None:
        self._chat = chat
        self._prompt: str | None = prompt
        self._send = send
        self._lock = threading.Lock()
        self._sender: threading.Thread | None = None
        self._unsubscribe = chat.subscribe(self._on_change)

    @property
    def pending(self) -> bool:
        """Whether the prompt is still waiting to be sent."""
        return self._prompt is not None

    def _take(self) -> str | None:
        with self._lock:
            prompt, self._prompt = self._prompt, None
        if prompt is not None:
            self._unsubscribe()
        return prompt

    def _on_change(self, _event: ChatEvent) -> None:
        # Called under the chat's lock: the send (which waits for the agent) runs apart.
        if not self._chat.ready or self._prompt is None:
            return
        prompt = self._take()
        if prompt is not None:
            self._sender = threading.Thread(
                target=self._send_apart, args=(prompt,), name="lab-widget-held-prompt", daemon=True
            )
            self._sender.start()

    def _send_apart(self, prompt: str) -> None:
        try:
            self._send(prompt)
        except LabWidgetError:
            log.exception("the first prompt held for the start-up screen was not taken")

    def release(self, timeout: float) -> None:
        """Send the prompt now (the screen was accepted), or wait up to ``timeout`` seconds
        for the send the run's readiness already started.
        """
        prompt = self._take()
        if prompt is not None:
            self._send(prompt)
        elif self._sender is not None:
            self._sender.join(timeout)
