"""The slash commands a Gemini CLI run offers: pinned builtins and custom TOML commands.

Custom commands are ``.toml`` files under ``.gemini/commands`` in the run's folder
(project) and in the user's global dir (user); a file ``a/b.toml`` is ``/a:b``. A project
command of the same name as a user one wins.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ...schema import CommandSpec
from .. import merge_commands
from . import _compat
from ._config import user_dir

__all__ = ["catalog", "command_sources"]


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose ``.toml`` files define commands (user first, then project)."""
    return [user_dir() / "commands", Path(cwd) / _compat.CUSTOM_COMMANDS_DIR]


def _custom(folder: Path, source: str) -> list[CommandSpec]:
    specs = []
    try:
        files = sorted(folder.rglob("*.toml"))
    except OSError:
        return []
    for path in files:
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if not isinstance(data.get("prompt"), str):
            continue  # Gemini CLI skips a command without a prompt
        name = "/" + ":".join(path.relative_to(folder).with_suffix("").parts)
        description = data.get("description")
        specs.append(
            CommandSpec(
                name=name,
                description=description if isinstance(description, str) else "",
                source="project" if source == "project" else "user",
            )
        )
    return specs


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom commands.

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("/nonexistent"))}
    >>> specs["/clear"].role, specs["/model"].chat_safe
    ('clear', False)
    """
    user, project = command_sources(cwd)
    custom = (*_custom(user, "user"), *_custom(project, "project"))
    return merge_commands(_compat.BUILTIN_COMMANDS, custom)
