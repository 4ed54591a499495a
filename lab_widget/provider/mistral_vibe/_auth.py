"""How Mistral Vibe logs in, and whether the user's own environment is logged in.

Vibe takes its provider's key from the variable the provider names (``MISTRAL_API_KEY`` for
Mistral's API), from the environment or its home's ``.env``; ``vibe --setup`` (or a browser
sign-in) writes it there. A run on a scripted model or an endpoint needs none of the user's:
its own home names the endpoint and its key.
"""

from __future__ import annotations

import os

from ...schema import AuthDescriptor, AuthMethod, AuthStatus
from ._config import user_dir

__all__ = ["KEY_ENV", "descriptor", "status"]

KEY_ENV = "MISTRAL_API_KEY"
"""The key of Mistral's own provider, the default one."""

ENV_FILE = ".env"
"""``<VIBE_HOME>/.env``: the keys Vibe loads at start-up (dotenv)."""


def descriptor() -> AuthDescriptor:
    """A Mistral API key, in the environment or Vibe's ``.env``.

    Examples
    --------
    >>> [m.kind for m in descriptor().all_methods()]
    ['api-key']
    """
    return AuthDescriptor(
        kind="api-key",
        env_vars=[KEY_ENV],
        instructions=(
            "Set MISTRAL_API_KEY to a key from console.mistral.ai, or run `vibe --setup` in "
            "a terminal on the agent's machine, which keeps it in ~/.vibe/.env."
        ),
        methods=[
            AuthMethod(
                kind="api-key",
                label="Mistral API key",
                instructions="A key from the Mistral console (API Keys).",
                env_var=KEY_ENV,
            )
        ],
    )


def _in_env_file() -> bool:
    try:
        lines = (user_dir() / ENV_FILE).read_text().splitlines()
    except OSError:
        return False
    return any(line.strip().startswith(f"{KEY_ENV}=") for line in lines)


def status() -> AuthStatus:
    """The key in the environment, else in Vibe's ``.env``."""
    if os.environ.get(KEY_ENV):
        return AuthStatus(logged_in=True, method=KEY_ENV, kind="api-key", source="environment")
    if _in_env_file():
        return AuthStatus(
            logged_in=True, method=KEY_ENV, kind="api-key", source=str(user_dir() / ENV_FILE)
        )
    return AuthStatus(logged_in=False, kind="api-key", detail=f"no {KEY_ENV} and no key in .env")
