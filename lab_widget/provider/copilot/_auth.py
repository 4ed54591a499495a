"""How the new CLI logs in, and whether the user's own environment is logged in."""

from __future__ import annotations

from ...schema import AuthDescriptor, AuthStatus
from ._compat import todo

__all__ = ["descriptor", "status"]


def descriptor() -> AuthDescriptor:
    """How the CLI logs in: its kinds (``oauth-code``, ``oauth-redirect``, ``api-key``,
    ``external``), each with its instructions.
    """
    raise todo("_auth.py descriptor", "how the CLI logs in, described")


def status() -> AuthStatus:
    """Whether the user's own environment logs the CLI in, read without starting it."""
    raise todo("_auth.py status", "the login status, from the environment or the CLI")
