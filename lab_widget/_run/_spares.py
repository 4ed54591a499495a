"""Warm start: spare agents started ahead, adopted by the next matching ``Run(...)``.

``prestart(provider, cwd=..., **the arguments of Run)`` spawns the agent's TUI in a thread
and returns at once. The next ``Run`` whose arguments give the same :class:`SpareKey` (the
provider, folder, endpoint or model, options, seed, worktree, sandbox, the credentials and
the homes it would use) takes the spare instead of spawning; anything different spawns as
before. Opt-in and bounded: one spare per key unless ``count`` says more, each stopped after
``idle`` seconds unused and when the process exits. A spare is never a run: ``runs()`` and
the dashboard list it apart (:func:`spares`), with its memory.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .._home import lab_home
from .._workspace._sandbox import Sandbox
from .._workspace._seed import Seed
from ..provider import Endpoint, credentials, default_provider
from ..scripted import ScriptedModel
from ._local import LocalBackend

__all__ = [
    "DEFAULT_IDLE",
    "Spare",
    "SpareKey",
    "SparePool",
    "pool",
    "prestart",
    "spare_key",
    "spares",
]

log = logging.getLogger(__name__)

DEFAULT_IDLE = 300.0
"""Seconds a spare waits unused before it is stopped."""

START_WAIT = 60.0
"""Seconds a ``Run`` waits for a matching spare that is still starting (a spawn's own
start-up bound)."""


def _digest(secret: str | None) -> str:
    # Credentials are compared, never kept: a digest tells two keys apart.
    return hashlib.sha256(secret.encode()).hexdigest()[:16] if secret else ""


@dataclass(frozen=True)
class SpareKey:
    """What a run must share with a spare to adopt it."""

    provider: str
    cwd: str
    endpoint: str
    credential: str
    model: str
    options: str
    seed: str
    worktree: bool
    sandbox: str
    home: str
    lab_home: str


def spare_key(
    provider_id: str,
    cwd: str | os.PathLike[str],
    *,
    endpoint: Endpoint | None,
    model: str | None,
    seed: Seed | None,
    worktree: bool,
    sandbox: bool | Sandbox,
    options: Mapping[str, Any],
) -> SpareKey:
    """The key of a run started with these arguments (a scripted model is its endpoint).

    Examples
    --------
    >>> a = spare_key("fake", "/tmp", endpoint=None, model=None, seed=None, worktree=False,
    ...               sandbox=False, options={})
    >>> a == spare_key("fake", "/tmp/", endpoint=None, model=None, seed=None,
    ...                worktree=False, sandbox=False, options={})
    True
    >>> a == spare_key("fake", "/tmp", endpoint=None, model="other", seed=None,
    ...                worktree=False, sandbox=False, options={})
    False
    """
    secret = endpoint.api_key if endpoint is not None else credentials.get(provider_id)
    return SpareKey(
        provider=provider_id,
        cwd=str(Path(cwd).expanduser().resolve()),
        endpoint=endpoint.base_url if endpoint is not None else "",
        credential=_digest(secret),
        model=model or "",
        options=repr(sorted((k, repr(v)) for k, v in options.items())),
        seed=repr(seed) if seed is not None else "",
        worktree=worktree,
        sandbox=repr(Sandbox.of(sandbox)),
        home=str(Path.home()),
        lab_home=str(lab_home()),
    )


@dataclass
class Spare:
    """One agent started ahead, waiting for a run to adopt it."""

    key: SpareKey
    backend: LocalBackend
    started: float = field(default_factory=time.monotonic)

    @property
    def id(self) -> str:
        return self.backend.id

    @property
    def provider(self) -> str:
        return self.key.provider

    @property
    def cwd(self) -> str:
        return self.key.cwd

    @property
    def display_name(self) -> str:
        """The agent's name, as its provider shows it."""
        return self.backend.provider.meta.display_name

    @property
    def started_at(self) -> datetime | None:
        """When the spare's agent started."""
        return self.backend.started_at

    @property
    def memory(self) -> int | None:
        """Resident bytes of the agent's processes."""
        return self.backend.terminal.memory()

    @property
    def alive(self) -> bool:
        return not self.backend.chat.ended

    def stop(self) -> None:
        self.backend.stop(cleanup=True, discard=True)

    def __repr__(self) -> str:
        memory = self.memory
        shown = f"{memory / 2**20:.0f} MB" if memory is not None else "?"
        return f"Spare({self.provider}, {self.cwd}, {self.id}, memory={shown})"


Build = Callable[[], LocalBackend]


class SparePool:
    """The spares of this process, by key; bounded, reaped when idle and at exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Notified when a spare is added or a start fails: a take waits on a starting one.
        self._settled = threading.Condition(self._lock)
        self._spares: dict[SpareKey, list[Spare]] = {}
        self._starting: dict[SpareKey, int] = {}
        self._timers: dict[str, threading.Timer] = {}
        self._atexit = False
        self._watchers: list[Callable[[], None]] = []

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after a spare joins or leaves the pool (the dashboard's rows);
        returns a function that stops the calls.
        """
        with self._lock:
            self._watchers.append(listener)

        def unwatch() -> None:
            with self._lock:
                if listener in self._watchers:
                    self._watchers.remove(listener)

        return unwatch

    def _changed(self) -> None:
        with self._lock:
            listeners = list(self._watchers)
        for listener in listeners:
            try:
                listener()
            except Exception:  # a broken dashboard must not stop a spare starting
                log.exception("a spares watcher failed")

    def fill(self, key: SpareKey, build: Build, *, count: int, idle: float) -> threading.Thread:
        """Start spares for ``key`` in a thread until it has ``count`` (ready or starting)."""
        with self._lock:
            if not self._atexit:
                atexit.register(self.stop_all)
                self._atexit = True
            have = len(self._spares.get(key, [])) + self._starting.get(key, 0)
            wanted = max(0, count - have)
            self._starting[key] = self._starting.get(key, 0) + wanted

        def start() -> None:
            for _ in range(wanted):
                try:
                    backend = build()
                except Exception as error:  # a spare that fails costs a cold start only
                    warnings.warn(f"a spare agent did not start: {error}", stacklevel=1)
                    with self._lock:
                        self._starting[key] -= 1
                        self._settled.notify_all()
                    continue
                spare = Spare(key, backend)
                with self._lock:
                    self._starting[key] -= 1
                    self._spares.setdefault(key, []).append(spare)
                    self._reap_after(spare, idle)
                    self._settled.notify_all()
                self._changed()

        thread = threading.Thread(target=start, name="lab-widget-prestart", daemon=True)
        thread.start()
        return thread

    def _reap_after(self, spare: Spare, idle: float) -> None:
        timer = threading.Timer(idle, self._reap, args=(spare,))
        timer.daemon = True
        self._timers[spare.id] = timer
        timer.start()

    def _reap(self, spare: Spare) -> bool:
        """Take ``spare`` out of the pool and stop it; ``False`` when it was no longer in
        it (adopted or reaped meanwhile).
        """
        with self._lock:
            held = self._spares.get(spare.key, [])
            if spare not in held:
                return False
            held.remove(spare)
            timer = self._timers.pop(spare.id, None)
        if timer is not None:
            timer.cancel()  # a no-op from the timer's own thread
        spare.stop()
        self._changed()
        return True

    def take(self, key: SpareKey, wait: float = START_WAIT) -> LocalBackend | None:
        """A live spare for ``key``, removed from the pool (``None``: spawn as usual).

        A spare of ``key`` still starting is waited for, up to ``wait`` seconds: it is
        further on than a spawn begun now would be.
        """
        deadline = time.monotonic() + wait
        while True:
            with self._lock:
                held = self._spares.setdefault(key, [])
                while not held and self._starting.get(key, 0) > 0:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    self._settled.wait(left)
                if not held:
                    return None
                spare = held.pop(0)
                timer = self._timers.pop(spare.id, None)
            if timer is not None:
                timer.cancel()
            self._changed()
            if spare.alive:
                return spare.backend
            spare.stop()

    def list(self) -> list[Spare]:
        with self._lock:
            return [s for held in self._spares.values() for s in held]

    def stop(self, spare_id: str) -> bool:
        """Stop the spare ``spare_id`` now; ``False`` when the pool has no such spare (it
        was adopted or reaped meanwhile).
        """
        found = next((s for s in self.list() if s.id == spare_id), None)
        return found is not None and self._reap(found)

    def stop_all(self) -> None:
        """Stop every spare (at exit, and for tests)."""
        with self._lock:
            held = [s for group in self._spares.values() for s in group]
            self._spares.clear()
            timers = list(self._timers.values())
            self._timers.clear()
        for timer in timers:
            timer.cancel()
        for spare in held:
            try:
                spare.stop()
            except Exception:  # at exit: stop what can be stopped
                pass
        if held:
            self._changed()


pool = SparePool()
"""The process's spares."""


def spares() -> list[Spare]:
    """The spare agents started ahead and not adopted yet (see :func:`lab_widget.prestart`)."""
    return pool.list()


def prestart(
    provider: str | None = None,
    cwd: str | os.PathLike[str] = ".",
    *,
    count: int = 1,
    idle: float = DEFAULT_IDLE,
    model: ScriptedModel | str | None = None,
    endpoint: Endpoint | None = None,
    seed: Seed | None = None,
    worktree: bool = False,
    sandbox: bool | Sandbox = False,
    **options: Any,
) -> SpareKey:
    """Start the agent's TUI in the background, for the next matching ``Run`` to adopt.

    Returns at once (the spawn runs in a thread). The next ``Run(...)`` with the same
    provider, folder, model or endpoint, options, seed, worktree and sandbox (and the same
    credentials and homes) takes the spare instead of spawning, so its first reply costs
    no start-up; anything different spawns as usual. At most ``count`` spares wait per key;
    each is stopped after ``idle`` seconds unused and when the process exits.
    :func:`lab_widget.runs` lists the waiting spares apart, with their memory.
    """
    provider_id = provider or default_provider()
    model_name = model if isinstance(model, str) else None
    if isinstance(model, ScriptedModel):
        model.start()
        endpoint = Endpoint(base_url=model.base_url, api_key=model.api_key)
    key = spare_key(
        provider_id,
        cwd,
        endpoint=endpoint,
        model=model_name,
        seed=seed,
        worktree=worktree,
        sandbox=sandbox,
        options=options,
    )

    def build() -> LocalBackend:
        return LocalBackend.start(
            provider_id,
            cwd,
            lambda _live: None,
            endpoint=endpoint,
            model=model_name,
            name=None,
            seed=seed,
            worktree=worktree,
            sandbox=sandbox,
            prompt=None,
            options=options,
        )

    pool.fill(key, build, count=count, idle=idle)
    return key
