"""Gemini CLI's config: its global dir, the folders it trusts, and where a settings file may
live for the CLI to read it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..kit import load_json
from . import _compat

__all__ = ["secure", "trusted", "user_dir"]


def user_dir() -> Path:
    """The user's global dir (``$GEMINI_CLI_HOME`` or ``$HOME``, then ``.gemini``)."""
    return Path(os.environ.get(_compat.HOME_ENV) or Path.home()) / _compat.GLOBAL_DIR


def secure(folder: Path) -> bool:
    """Whether neither ``folder`` nor a folder above it is writable by group or others."""
    try:
        return not any(p.stat().st_mode & 0o022 for p in (folder, *folder.parents))
    except OSError:
        return False


def trusted(cwd: Path) -> bool:
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true":
        return True
    trusted = load_json(user_dir() / "trustedFolders.json")
    folder = Path(cwd).resolve()
    if trusted.get(str(folder)) == "TRUST_FOLDER":
        return True
    return any(trusted.get(str(f)) in ("TRUST_FOLDER", "TRUST_PARENT") for f in folder.parents)
