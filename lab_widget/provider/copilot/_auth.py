"""How GitHub Copilot CLI logs in, and whether the user's own environment is logged in.

Copilot CLI logs in to GitHub itself (``copilot login`` or ``/login``: a device flow, the
token kept in the system keychain or its config), or takes a GitHub token from the
environment; lab_widget describes both and reads what it can without starting the CLI. A
run on a scripted model or an endpoint needs neither: it runs offline, as a BYOK provider.
"""

from __future__ import annotations

import os

from ...schema import AuthDescriptor, AuthMethod, AuthStatus
from . import _compat
from ._config import user_dir

__all__ = ["TOKEN_ENV", "descriptor", "status"]

TOKEN_ENV = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
"""The token variables, in the CLI's order of precedence (``copilot help environment``)."""


def descriptor() -> AuthDescriptor:
    """GitHub's device login, run in a terminal, or a GitHub token in the environment.

    Examples
    --------
    >>> [m.kind for m in descriptor().all_methods()]
    ['external', 'api-key']
    """
    return AuthDescriptor(
        kind="external",
        env_vars=list(TOKEN_ENV),
        instructions=(
            "Run `copilot login` in a terminal on the agent's machine and follow GitHub's "
            "device login, or set COPILOT_GITHUB_TOKEN to a GitHub token with the Copilot "
            "Requests permission."
        ),
        methods=[
            AuthMethod(
                kind="external",
                label="GitHub login",
                instructions="`copilot login` shows a code to enter at github.com/login/device.",
            ),
            AuthMethod(
                kind="api-key",
                label="GitHub token",
                instructions="A fine-grained token with the Copilot Requests permission.",
                env_var=TOKEN_ENV[0],
            ),
        ],
    )


def status() -> AuthStatus:
    """A token in the environment, else a CLI that has been set up (its config exists)."""
    for name in TOKEN_ENV:
        if os.environ.get(name):
            return AuthStatus(logged_in=True, method=name, kind="api-key", source="environment")
    config = user_dir() / _compat.CONFIG_FILE
    if config.is_file():
        return AuthStatus(
            logged_in=True,
            method="GitHub login",
            kind="external",
            source=str(config),
            detail="Copilot CLI is set up here; it checks its stored login when it starts",
        )
    return AuthStatus(
        logged_in=False, kind="external", detail="no GitHub token and no Copilot CLI setup"
    )
