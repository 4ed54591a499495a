"""Codex's config: the user's ``CODEX_HOME`` and its ``config.toml``, and the ``config.toml``
an isolated run (a scripted model or an endpoint) gets.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from ..kit import api_base_url
from . import _compat

__all__ = ["isolated_config", "toml_string", "user_codex_home", "user_config"]


def user_codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def toml_string(value: str) -> str:
    r"""A TOML basic string (JSON's escaping is valid TOML).

    Examples
    --------
    >>> toml_string('a "b" \\ c')
    '"a \\"b\\" \\\\ c"'
    """
    return json.dumps(value)


def isolated_config(cwd: Path, base_url: str, model: str | None) -> str:
    lines = [
        f"model_provider = {toml_string(_compat.PROVIDER_ID)}",
        *([f"model = {toml_string(model)}"] if model else []),
        f"check_for_update_on_startup = {_compat.ISOLATED_SETTINGS['check_for_update_on_startup']}",
        "",
        f"[model_providers.{_compat.PROVIDER_ID}]",
        'name = "lab_widget endpoint"',
        f"base_url = {toml_string(api_base_url(base_url))}",
        'wire_api = "responses"',
        f"env_key = {toml_string(_compat.ENV_KEY)}",
        "",
        "[analytics]",
        f"enabled = {_compat.ISOLATED_SETTINGS['analytics.enabled']}",
        "",
        "[features]",
        f"daemon_auto_start = {_compat.ISOLATED_SETTINGS['features.daemon_auto_start']}",
        f"plugins = {_compat.ISOLATED_SETTINGS['features.plugins']}",
        f"apps = {_compat.ISOLATED_SETTINGS['features.apps']}",
        "",
        f"[projects.{toml_string(str(cwd))}]",
        'trust_level = "trusted"',
        "",
    ]
    return "\n".join(lines)


def user_config(codex_home: Path) -> dict[str, Any]:
    """The user's ``config.toml`` (empty when missing or unreadable)."""
    try:
        return tomllib.loads((codex_home / "config.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}
