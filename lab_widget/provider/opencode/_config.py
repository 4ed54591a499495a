"""OpenCode's config: the XDG folders it keeps its config and store in, and the
``opencode.json`` an isolated run (a scripted model or an endpoint) gets.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..kit import api_base_url
from . import _compat

__all__ = ["config_home", "data_home", "database", "isolated_config"]


def data_home(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """``$XDG_DATA_HOME`` or ``~/.local/share``."""
    return Path(env.get("XDG_DATA_HOME") or Path(env.get("HOME") or Path.home()) / ".local/share")


def config_home(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME`` or ``~/.config``."""
    return Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")


def database(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """Where OpenCode keeps its store for this environment."""
    override = env.get(_compat.DB_ENV)
    return Path(override) if override else data_home(env) / _compat.DB_FILE


def isolated_config(base_url: str, model: str, permission: object) -> dict[str, object]:
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            _compat.PROVIDER_ID: {
                "npm": _compat.PROVIDER_NPM,
                "name": "lab_widget endpoint",
                "options": {
                    "baseURL": api_base_url(base_url),
                    "apiKey": "{env:" + _compat.ENV_KEY + "}",
                },
                "models": {model: {"name": model}},
            }
        },
        "model": f"{_compat.PROVIDER_ID}/{model}",
        "autoupdate": False,
        "share": "disabled",
    }
    if permission is not None:
        config["permission"] = permission
    return config
