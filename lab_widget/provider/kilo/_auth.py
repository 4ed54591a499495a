"""How Kilo logs in, and whether the user's own Kilo has credentials: OpenCode's provider
keys (``kilo auth login``, Kilo's ``auth.json``, its ``kilo.json``) under Kilo's names.
"""

from __future__ import annotations

from ...schema import AuthDescriptor, AuthStatus
from ..opencode import family_auth, family_auth_status
from ._compat import KILO

__all__ = ["descriptor", "status"]


def descriptor() -> AuthDescriptor:
    """How Kilo logs in: provider keys it stores itself, the environment, or its config."""
    return family_auth(KILO)


def status() -> AuthStatus:
    """Whether the user's own Kilo has a provider to talk to, and from where."""
    return family_auth_status(KILO)
