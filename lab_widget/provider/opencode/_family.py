"""What a CLI of OpenCode's family names its own way: the record a fork of OpenCode fills in.

A fork keeps OpenCode's store (the SQLite ``session`` / ``message`` / ``part`` / ``event``
tables), its embedded server (``/permission``, ``/question``, ``/event``) and its TUI, and
renames what is branded: its folders, files and environment variables, and the account its
server asks for. Everything of the family reads these from an :class:`OpenCodeFamily`, so a
fork's package holds only its record (and its own pins), never a copy of the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["OPENCODE", "OpenCodeFamily"]


@dataclass(frozen=True)
class OpenCodeFamily:
    """The names one CLI of OpenCode's family uses where OpenCode uses its own.

    A fork renames by pattern: its folder where OpenCode's is ``opencode``, its variables'
    prefix where OpenCode's is ``OPENCODE``; the rest is derived from those (and checked
    against OpenCode's pins, ``tests/unit/providers/opencode/test_family.py``).

    Examples
    --------
    >>> OPENCODE.database_file, OPENCODE.config_file, OPENCODE.database_env
    ('opencode/opencode.db', 'opencode/opencode.json', 'OPENCODE_DB')
    >>> OPENCODE.always_scope.format(what="bash")
    'bash until OpenCode is restarted'
    """

    name: str
    """The CLI's name as its own texts give it ("until <name> is restarted")."""
    binary: str
    """The command a user types (its login instructions name it)."""
    folder: str
    """The folder named for the CLI under ``$XDG_CONFIG_HOME`` and ``$XDG_DATA_HOME``, and
    the stem of its config file, store and project folder (``.<folder>``)."""
    env_prefix: str
    """The prefix of the CLI's environment variables."""
    config_schema: str
    """The ``$schema`` an isolated config names."""
    server_user: str | None = None
    """The user the embedded server asks for; ``None``: it asks for no password."""
    extra_config: Mapping[str, object] = field(
        default_factory=lambda: {"autoupdate": False, "share": "disabled"}
    )
    """Further keys every isolated config holds: no self-update, no sharing."""

    def _env(self, name: str) -> str:
        return f"{self.env_prefix}_{name}"

    @property
    def config_name(self) -> str:
        """The config file in the CLI's config folder."""
        return f"{self.folder}.json"

    @property
    def config_file(self) -> str:
        """The config file under ``$XDG_CONFIG_HOME``."""
        return f"{self.folder}/{self.config_name}"

    @property
    def database_file(self) -> str:
        """The store under ``$XDG_DATA_HOME``."""
        return f"{self.folder}/{self.folder}.db"

    @property
    def database_env(self) -> str:
        """The variable that moves the store elsewhere."""
        return self._env("DB")

    @property
    def isolated_env(self) -> dict[str, str]:
        """Set for an isolated run: no model catalog fetched, no self-update."""
        return {self._env("DISABLE_MODELS_FETCH"): "1", self._env("DISABLE_AUTOUPDATE"): "1"}

    @property
    def unset_env(self) -> frozenset[str]:
        """The user's settings that would point an isolated run back at the user's setup."""
        own = ("CONFIG", "CONFIG_CONTENT", "CONFIG_DIR", "DB", "PERMISSION")
        server = ("SERVER_PASSWORD", "SERVER_USERNAME")
        xdg = ("CONFIG", "DATA", "STATE", "CACHE")
        return frozenset({*(self._env(n) for n in own + server), *(f"XDG_{n}_HOME" for n in xdg)})

    @property
    def config_content_env(self) -> str:
        """The variable whose inline JSON config the CLI merges over every other."""
        return self._env("CONFIG_CONTENT")

    @property
    def permission_env(self) -> str:
        """The variable whose rules (JSON) the CLI merges after every config's."""
        return self._env("PERMISSION")

    @property
    def plan_mode_env(self) -> dict[str, str]:
        """Set for a run started with the plan agent, so it has its tool to end planning."""
        return {self._env("EXPERIMENTAL_PLAN_MODE"): "1"}

    @property
    def server_password_env(self) -> str | None:
        """Where the TUI takes its server's password from (a run sets one of its own)."""
        return self._env("SERVER_PASSWORD") if self.server_user else None

    @property
    def api_key_env(self) -> str:
        """The variable an isolated config's ``apiKey`` reads."""
        return f"LAB_WIDGET_{self.env_prefix}_API_KEY"

    @property
    def auth_file(self) -> str:
        """Where ``<binary> auth login`` keeps provider keys, under ``$XDG_DATA_HOME``."""
        return f"{self.folder}/auth.json"

    @property
    def always_scope(self) -> str:
        """What "Allow always" covers, as the TUI says it (``{what}`` to fill in)."""
        return "{what} until " + self.name + " is restarted"

    @property
    def command_dirs(self) -> tuple[str, ...]:
        """Project command folders, under the run's folder."""
        return (f".{self.folder}/command", f".{self.folder}/commands")

    @property
    def user_command_dirs(self) -> tuple[str, ...]:
        """The user's command folders, under ``$XDG_CONFIG_HOME``."""
        return (f"{self.folder}/command", f"{self.folder}/commands")


_SCHEMA = "https://opencode.ai/config.json"

OPENCODE = OpenCodeFamily("OpenCode", "opencode", "opencode", "OPENCODE", _SCHEMA)
"""OpenCode itself: the names ``_compat.py`` pins."""
