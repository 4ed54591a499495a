"""How OpenCode logs in, and whether the user's own OpenCode has credentials.

OpenCode stores provider keys itself (``opencode auth login`` in a terminal); lab_widget
describes that and reads the outcome from its files and the environment.
"""

from __future__ import annotations

import os

from ...schema import AuthDescriptor, AuthMethod, AuthStatus
from ..kit import load_json
from ._config import config_home, data_home
from ._family import OPENCODE, OpenCodeFamily

__all__ = ["descriptor", "status"]


def descriptor(family: OpenCodeFamily = OPENCODE) -> AuthDescriptor:
    """How the CLI logs in: provider keys it stores itself, the environment, or its config."""
    login = f"`{family.binary} auth login`"
    return AuthDescriptor(
        kind="external",
        env_vars=["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
        instructions=(
            f"Run {login} in a terminal on the agent's machine, pick a "
            f"provider and paste its key ({family.name} stores it in its own auth.json), or "
            f"set the provider's key variable, or configure a provider in {family.config_name}."
        ),
        methods=[
            AuthMethod(
                kind="external",
                label="Provider key",
                instructions=f"{login} asks for the provider and its key.",
            ),
        ],
    )


def status(family: OpenCodeFamily = OPENCODE) -> AuthStatus:
    """Whether the user's own CLI has a provider to talk to, and from where."""
    auth_file = data_home() / family.auth_file
    stored = load_json(auth_file)
    if stored:
        return AuthStatus(
            logged_in=True,
            method=", ".join(sorted(stored)),
            kind="external",
            source=str(auth_file),
            detail=f"{auth_file.name} holds credentials for {', '.join(sorted(stored))}",
        )
    for name in descriptor(family).env_vars:
        if os.environ.get(name):
            return AuthStatus(logged_in=True, method=name, kind="external", source="environment")
    config = config_home() / family.config_file
    if load_json(config).get("provider"):
        return AuthStatus(
            logged_in=True,
            method="configured provider",
            kind="external",
            source=str(config),
            detail=f"{config.name} configures a provider",
        )
    return AuthStatus(logged_in=False, kind="external", detail="no stored provider key")
