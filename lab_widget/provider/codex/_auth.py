"""How Codex logs in, and whether the user's own Codex is signed in.

Codex drives its sign-in in its own terminal (a browser redirect to a local port, or a
device code); lab_widget describes it and reads the outcome from ``codex login status``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from ...schema import AuthDescriptor, AuthKind, AuthMethod, AuthStatus
from . import _compat
from ._config import user_codex_home, user_config

__all__ = ["descriptor", "parse_status", "status"]


def descriptor() -> AuthDescriptor:
    """How Codex logs in: a ChatGPT sign-in in its own terminal, or a key it stores itself."""
    return AuthDescriptor(
        kind="oauth-redirect",
        env_vars=["OPENAI_API_KEY", "CODEX_API_KEY"],
        instructions=(
            "Sign in with ChatGPT (`codex login` opens a browser and waits on a local "
            "redirect; `codex login --device-auth` shows a code to enter instead), or "
            "store an API key with `codex login --with-api-key` (reads it from stdin)."
        ),
        methods=[
            AuthMethod(
                kind="oauth-redirect",
                label="ChatGPT account",
                redirect_port=_compat.LOGIN_REDIRECT_PORT,
                instructions=(
                    "Run `codex login` in a terminal on the agent's machine and open the "
                    "link it prints; the page redirects to its port "
                    f"{_compat.LOGIN_REDIRECT_PORT} there (forward the port when the "
                    "browser is elsewhere), or run `codex login --device-auth` and enter "
                    "the code it shows."
                ),
            ),
            AuthMethod(
                kind="external",
                label="OpenAI API key",
                instructions=(
                    "Store the key with `codex login --with-api-key`, which reads it from "
                    "stdin; lab_widget does not keep it."
                ),
            ),
        ],
    )


def status(binary: Callable[[], Path]) -> AuthStatus:
    """Whether the user's own Codex is signed in (``binary`` runs ``codex login status``)."""
    config_path = user_codex_home() / "config.toml"
    provider = user_config(config_path.parent).get("model_provider")
    if provider not in (None, "openai"):
        # `codex login status` only knows OpenAI sign-ins, but a custom model provider
        # brings its own key and Codex asks for no sign-in (the startup blocker agrees).
        return AuthStatus(
            logged_in=True,
            method=f"model provider {provider}",
            kind="external",
            source=str(config_path),
            detail=f"{config_path.name} selects the model provider {provider!r}",
        )
    try:
        proc = subprocess.run(
            [str(binary()), "login", "status"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return AuthStatus(logged_in=False, detail=str(exc))
    return parse_status(proc.returncode, proc.stdout + "\n" + proc.stderr)


def parse_status(returncode: int, output: str) -> AuthStatus:
    r"""Read ``codex login status``: exit 0 when logged in; its last line says how.

    Examples
    --------
    >>> parse_status(1, "WARNING: ...\nNot logged in\n").logged_in
    False
    >>> s = parse_status(0, "API key configured - sk-t***9\nAuthentication is checked")
    >>> s.logged_in, s.method, s.kind
    (True, 'api-key', 'external')
    """
    lines = [
        line.strip()
        for line in output.splitlines()
        if line.strip() and not line.startswith("WARNING")
    ]
    # The first line may show a masked key ("API key configured - sk-t***9"): keep the words.
    detail = (lines[0] if lines else "").split(" - ")[0]
    if returncode != 0:
        return AuthStatus(logged_in=False, detail=detail)
    lowered = detail.lower()
    method = "chatgpt" if "chatgpt" in lowered else "api-key" if "api key" in lowered else None
    # Which of the descriptor's methods is active: the browser sign-in, or a key the CLI
    # stored itself.
    kinds: dict[str, AuthKind] = {"chatgpt": "oauth-redirect", "api-key": "external"}
    kind = kinds.get(method or "")
    return AuthStatus(logged_in=True, method=method, detail=detail, kind=kind)
