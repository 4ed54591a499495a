"""The new CLI's config: where the user's own is, and the config of an isolated run's home
that points the CLI at an endpoint (``kit.isolated_home``).
"""

from __future__ import annotations

from pathlib import Path

from ._compat import todo

__all__ = ["isolated_config", "user_dir"]


def user_dir() -> Path:
    """The folder of the user's own config (the CLI's environment override first)."""
    raise todo("_config.py user_dir", "where the CLI keeps the user's config and sessions")


def isolated_config(home: Path, base_url: str, model: str | None) -> None:
    """Write the config of an isolated run's ``home`` that sends the CLI to ``base_url``."""
    raise todo(
        "_config.py isolated_config",
        "the config file(s) under the isolated home that point the CLI at the endpoint, "
        "with the model, and nothing of the user's own setup",
    )
