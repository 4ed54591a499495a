"""Claude Code's own login, driven through its CLI: ``auth status``, ``auth login``,
``auth logout``. Nothing reads the screen: without a TTY the login prints its URL to
stdout and reads the pasted code from stdin.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ...errors import AuthError, InvalidCodeError, LoginFailedError, NoLoginInProgressError
from ...schema import AuthDescriptor, AuthKind, AuthMethod, AuthStatus
from .. import AuthFlow, LoginStart, credentials
from . import _compat

__all__ = ["ClaudeAuthFlow", "api_key", "descriptor"]

_URL = re.compile(_compat.LOGIN_URL_PATTERN)

LOGIN_TTL = 900.0
"""Seconds a started login waits for its code before it is ended. The CLI itself waits
forever, even on a closed stdin, so an abandoned login would outlive the kernel."""


def api_key(provider_id: str) -> str:
    """The API key a run on the user's own home uses: the one stored through the login card,
    else ``ANTHROPIC_API_KEY``; empty when there is none.
    """
    return (credentials.get(provider_id) or os.environ.get(_compat.API_KEY_ENV, "")).strip()


def descriptor() -> AuthDescriptor:
    """How Claude Code logs in: its account's browser code, or an API key kept in memory."""
    return AuthDescriptor(
        kind="oauth-code",
        env_vars=list(_compat.CREDENTIAL_ENV),
        instructions="Log in with your Claude account, or provide an API key.",
        methods=[
            AuthMethod(
                kind="oauth-code",
                label="Claude account",
                instructions="Open the link, sign in, then paste the code the page shows.",
            ),
            AuthMethod(
                kind="api-key",
                label="Anthropic API key",
                env_var=_compat.API_KEY_ENV,
                instructions="Kept in this kernel's memory only and passed to new runs as "
                f"{_compat.API_KEY_ENV}; never saved in the notebook.",
            ),
        ],
    )


class _Login:
    """One ``auth login`` process with its output collected by reader threads."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own group: cancel() reaches anything it started
        )
        self._out = bytearray()
        self._err = bytearray()
        self._changed = threading.Condition()
        self._pumps = [
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
            for stream, sink in ((self.proc.stdout, self._out), (self.proc.stderr, self._err))
        ]
        for pump in self._pumps:
            pump.start()

    def _pump(self, stream: object, sink: bytearray) -> None:
        fd = stream.fileno()  # type: ignore[attr-defined]
        while chunk := os.read(fd, 4096):
            with self._changed:
                sink.extend(chunk)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    @property
    def stdout(self) -> str:
        with self._changed:
            return self._out.decode(errors="replace")

    @property
    def stderr(self) -> str:
        with self._changed:
            return self._err.decode(errors="replace")

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate`` holds or the process ended and its output is read."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                if self.proc.poll() is not None:
                    # Exited: give the pumps a moment to drain, then decide once more.
                    self._changed.wait(min(left, 0.2))
                    return predicate()
                self._changed.wait(min(left, 0.2))
        return True

    def drain(self, timeout: float = 2.0) -> None:
        """Wait for the reader threads to see the end of an exited process's output."""
        for pump in self._pumps:
            pump.join(timeout)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


class ClaudeAuthFlow(AuthFlow):
    """Status from ``auth status --json`` (plus a key stored for this kernel), an
    ``oauth-code`` login through ``auth login``, logout through ``auth logout``.
    """

    def __init__(
        self, provider_id: str, descriptor: AuthDescriptor, binary: Callable[[], Path]
    ) -> None:
        super().__init__(provider_id, descriptor)
        self._binary = binary
        self._login: _Login | None = None
        self._lock = threading.Lock()
        self._expiry: threading.Timer | None = None
        atexit.register(self.cancel)

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        key = credentials.get(self.provider_id)
        if key is not None:
            env[_compat.API_KEY_ENV] = key  # what a spawn will inject
        return env

    def _run(self, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        """One of the CLI's auth commands, run to its end (``AUTH_TIMEOUT`` at most)."""
        return subprocess.run(
            [str(self._binary()), *args],
            capture_output=True,
            text=True,
            timeout=_compat.AUTH_TIMEOUT,
            env=self._env(),
            check=False,
        )

    def status(self) -> AuthStatus:
        proc = self._run(_compat.AUTH_STATUS_ARGS)
        try:
            data = json.loads(proc.stdout)
        except ValueError:
            raise AuthError(
                f"could not read the login status: {proc.stderr.strip() or proc.stdout.strip()}"
            ) from None
        logged_in = bool(data.get("loggedIn"))
        method = str(data.get("authMethod") or "") or None
        kind: AuthKind | None = None
        if logged_in and method:
            kind = _compat.AUTH_METHOD_KINDS.get(method, "external")
        source = data.get("apiKeySource") or data.get("tokenSource")
        if kind == "api-key" and credentials.get(self.provider_id) is not None:
            source = "stored for this session"
        return AuthStatus(
            logged_in=logged_in,
            method=method if logged_in else None,
            kind=kind,
            source=str(source) if source else None,
            detail=str(data.get("apiProvider") or ""),
        )

    def _start(self, kind: AuthKind) -> LoginStart:
        if kind != "oauth-code":
            return super()._start(kind)
        self.cancel()
        login = _Login([str(self._binary()), *_compat.AUTH_LOGIN_ARGS], self._env())
        found = login.wait_for(lambda: _URL.search(login.stdout) is not None, _compat.AUTH_TIMEOUT)
        match = _URL.search(login.stdout)
        if not found or match is None:
            login.close()
            raise LoginFailedError(
                "the login did not print a sign-in URL: "
                + (login.stderr.strip() or login.stdout.strip() or "no output")
            )
        expiry = threading.Timer(LOGIN_TTL, self._expire, args=(login,))
        expiry.daemon = True
        with self._lock:
            self._login, self._expiry = login, expiry
        expiry.start()
        method = self.descriptor.method("oauth-code")
        return LoginStart(
            kind="oauth-code",
            url=match.group(1),
            instructions=method.instructions if method else "",
        )

    def _submit_code(self, code: str) -> None:
        with self._lock:
            login = self._login
        if login is None or login.proc.poll() is not None:
            raise NoLoginInProgressError("no login is waiting for a code; start one first")
        seen = len(login.stderr)

        def answered() -> bool:
            return login.proc.poll() is not None or _compat.LOGIN_BAD_CODE in login.stderr[seen:]

        login.send(code)
        if not login.wait_for(answered, _compat.AUTH_TIMEOUT):
            self.cancel()
            raise LoginFailedError(f"the login gave no answer in {_compat.AUTH_TIMEOUT:g} s")
        if login.proc.poll() is None:
            raise InvalidCodeError(
                "that does not look like the whole code: copy all of it (it has a # in the "
                "middle) and submit again"
            )
        login.drain()
        self.cancel()
        if login.proc.returncode != 0:
            detail = login.stderr[seen:].strip() or login.stdout.strip()
            raise LoginFailedError(detail or f"the login exited with {login.proc.returncode}")

    def cancel(self) -> None:
        with self._lock:
            login, self._login = self._login, None
            expiry, self._expiry = self._expiry, None
        if expiry is not None:
            expiry.cancel()
        if login is not None:
            login.close()

    def _expire(self, login: _Login) -> None:
        with self._lock:
            current = self._login is login
        if current:
            self.cancel()

    def _logout(self) -> None:
        self.cancel()
        proc = self._run(_compat.AUTH_LOGOUT_ARGS)
        if proc.returncode != 0:
            raise AuthError(f"logout failed: {proc.stderr.strip() or proc.stdout.strip()}")
