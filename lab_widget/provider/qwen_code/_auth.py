"""How Qwen Code logs in, and whether the user's own environment is logged in.

It reaches a model through an OpenAI-compatible provider (a key in the environment or in
``settings.json`` ``modelProviders``) or a provider connected in its own ``/auth`` dialog;
lab_widget describes the ways and reads the outcome from the environment and the settings.
"""

from __future__ import annotations

import os

from ...schema import AuthDescriptor, AuthMethod, AuthStatus
from ..kit import load_json
from ._config import user_dir

__all__ = ["descriptor", "status"]


def descriptor() -> AuthDescriptor:
    """How Qwen Code logs in: an OpenAI-compatible key, or a provider connected in its TUI."""
    return AuthDescriptor(
        kind="api-key",
        env_vars=["OPENAI_API_KEY"],
        instructions=(
            "Set OPENAI_API_KEY (with OPENAI_BASE_URL and OPENAI_MODEL for another "
            "OpenAI-compatible endpoint), or run `qwen` and connect a provider with /auth."
        ),
        methods=[
            AuthMethod(
                kind="api-key",
                label="OpenAI-compatible API key",
                env_var="OPENAI_API_KEY",
                instructions="The key is passed to the run as OPENAI_API_KEY.",
            ),
            AuthMethod(
                kind="external",
                label="Provider connected in the TUI",
                instructions="Run `qwen` in a terminal on the agent's machine and choose a "
                "provider with /auth; it is kept in ~/.qwen/settings.json.",
            ),
        ],
    )


def status() -> AuthStatus:
    """Logged in when a key is in the environment or the settings chose an auth type.

    Examples
    --------
    >>> isinstance(status().logged_in, bool)
    True
    """
    if os.environ.get("OPENAI_API_KEY"):
        return AuthStatus(logged_in=True, method="OPENAI_API_KEY")
    settings = load_json(user_dir() / "settings.json")
    security = settings.get("security")
    auth = security.get("auth") if isinstance(security, dict) else None
    chosen = auth.get("selectedType") if isinstance(auth, dict) else None
    if isinstance(chosen, str) and chosen:
        return AuthStatus(logged_in=True, method=chosen)
    return AuthStatus(logged_in=False)
