"""How Gemini CLI logs in, and whether the user's own environment is logged in.

Gemini CLI signs in in its own terminal (or takes a key from the environment); lab_widget
describes the ways and reads the outcome from the environment and the CLI's own files.
"""

from __future__ import annotations

import os
from typing import Any

from ...schema import AuthDescriptor, AuthMethod, AuthStatus
from ..kit import load_json
from . import _compat
from ._config import user_dir

__all__ = ["descriptor", "selected_auth", "status"]


def descriptor() -> AuthDescriptor:
    """How Gemini CLI logs in: an API key, a Google account or Vertex AI, set up outside it."""
    return AuthDescriptor(
        kind="api-key",
        env_vars=[_compat.ENV_KEY, "GOOGLE_API_KEY"],
        instructions=(
            "Use a Gemini API key (GEMINI_API_KEY), sign in with a Google account "
            "(`gemini`, then /auth), or use Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true "
            "with a project and location or an API key)."
        ),
        methods=[
            AuthMethod(
                kind="api-key",
                label="Gemini API key",
                env_var=_compat.ENV_KEY,
                instructions="Create a key in Google AI Studio; it is passed to the "
                "run as GEMINI_API_KEY.",
            ),
            AuthMethod(
                kind="external",
                label="Google account",
                instructions=(
                    "Run `gemini` in a terminal on the agent's machine and choose "
                    '"Sign in with Google" (or /auth): it opens a browser that '
                    "redirects to a local port there; with NO_BROWSER=true it prints a "
                    "link and asks for the code instead. Credentials are cached in "
                    f"~/.gemini/{_compat.OAUTH_CREDS}. {_compat.PERSONAL_ACCOUNTS_NOTE}"
                ),
            ),
            AuthMethod(
                kind="external",
                label="Vertex AI",
                instructions=(
                    "Set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and "
                    "GOOGLE_CLOUD_LOCATION (application default credentials), or with "
                    "GOOGLE_API_KEY."
                ),
            ),
        ],
    )


def status() -> AuthStatus:
    """Whether the user's own environment logs Gemini CLI in, and how."""
    for var in (_compat.ENV_KEY, "GOOGLE_API_KEY"):
        if os.environ.get(var):
            return AuthStatus(
                logged_in=True,
                method="gemini-api-key",
                kind="api-key",
                source=var,
                detail=f"{var} is set",
            )
    if os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() == "true":
        return AuthStatus(
            logged_in=True,
            method="vertex-ai",
            kind="external",
            source="GOOGLE_GENAI_USE_VERTEXAI",
            detail="Vertex AI is selected by the environment",
        )
    settings_path = user_dir() / "settings.json"
    selected = selected_auth(load_json(settings_path))
    creds = user_dir() / _compat.OAUTH_CREDS
    if selected == "oauth-personal" and creds.is_file():
        return AuthStatus(
            logged_in=True,
            method="oauth-personal",
            kind="external",
            source=str(creds),
            detail="signed in with a Google account",
        )
    if selected in ("vertex-ai", "compute-default-credentials", "cloud-shell", "gateway"):
        return AuthStatus(
            logged_in=True,
            method=selected,
            kind="external",
            source=str(settings_path),
            detail=f"{settings_path.name} selects {_compat.AUTH_TYPES[selected]}",
        )
    detail = (
        f"{settings_path.name} selects {_compat.AUTH_TYPES.get(selected, selected)} "
        "but no credential was found"
        if selected
        else "no API key in the environment and no sign-in"
    )
    return AuthStatus(logged_in=False, detail=detail)


def selected_auth(settings: dict[str, Any]) -> str | None:
    security = settings.get("security")
    auth = security.get("auth") if isinstance(security, dict) else None
    selected = auth.get("selectedType") if isinstance(auth, dict) else None
    return selected if isinstance(selected, str) else None
