"""Kilo's config: ``$XDG_CONFIG_HOME/kilo/kilo.json`` and the store
``$XDG_DATA_HOME/kilo/kilo.db``, as :data:`~._compat.KILO` names them. The family's spawn
writes an isolated run's ``kilo.json`` from that record: one provider on
``@ai-sdk/openai-compatible`` whose ``options.baseURL`` is the endpoint's.
"""

from __future__ import annotations

from ._compat import KILO

__all__ = ["CONFIG_FILE", "DATABASE_FILE"]

CONFIG_FILE = KILO.config_file
"""Under ``$XDG_CONFIG_HOME``. On its first start Kilo adds ``"permission": {"bash":
"allow"}`` to a config that sets no ``bash`` permission (and marks the migration in
``.bash-permission-migrated`` beside it); a run's ``permission`` option is kept as given."""

DATABASE_FILE = KILO.database_file
"""Under ``$XDG_DATA_HOME``."""
