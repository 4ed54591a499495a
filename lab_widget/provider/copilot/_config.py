"""Copilot CLI's config: where the user's own is, and the config of an isolated run's home
that trusts the run's folder and carries the run's hooks, so nothing is written into the
user's repository (``.github/hooks``) or their own ``~/.copilot``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from . import _compat

__all__ = ["isolated_config", "user_dir"]


def user_dir() -> Path:
    """The user's own ``COPILOT_HOME`` (``$HOME/.copilot`` unless set)."""
    return Path(os.environ.get(_compat.ENV_HOME) or Path.home() / _compat.USER_HOME)


def isolated_config(home: Path, cwd: Path, hooks: dict[str, Any]) -> None:
    """Write an isolated run's ``home``: ``cwd`` trusted (no trust screen) and ``hooks``
    (the run's spool) in its settings, where the CLI reads them for every folder.
    """
    home.mkdir(parents=True, exist_ok=True)
    (home / _compat.CONFIG_FILE).write_text(
        json.dumps({_compat.TRUSTED_FOLDERS: [str(cwd)]}, indent=2)
    )
    (home / _compat.SETTINGS_FILE).write_text(json.dumps({_compat.HOOKS_KEY: hooks}, indent=2))
