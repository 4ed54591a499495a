"""The provider seam: what an adapter implements and core calls, its records, the registry
and auth.

Concrete adapters live in sub-packages (``claude_code``); nothing outside them imports
them directly. What an adapter is built from (the TUI base, the compat records, hook
signals, readers' parts, lenient JSON, ...) is the kit, :mod:`lab_widget.provider.kit`. An
adapter imports only this package's public names, the kit's, :mod:`lab_widget.schema`,
:mod:`lab_widget.errors` and :mod:`lab_widget.compat` (``tests/unit/test_architecture.py``).

The kit's names are importable from here too, as they were before the kit had a module of
its own; they are not part of this module's ``__all__``, and new code imports them from
:mod:`lab_widget.provider.kit`.
"""

from . import kit
from ._auth import (
    AuthFlow,
    CredentialStore,
    DescribedAuthFlow,
    LoginStart,
    credentials,
    injected_credentials,
    require_login,
)
from ._auth_events import AuthChange
from ._auth_events import publish as publish_auth_change
from ._auth_events import subscribe as on_auth_change
from ._dialogs import ALWAYS_OUTCOME, APPROVE, APPROVE_ALWAYS, REJECT
from ._registry import DEFAULT_PROVIDER, default_provider, get_provider, provider_ids, register
from ._seam import (
    AgentProvider,
    ApprovalOutcome,
    LiveSignals,
    SubmitWatch,
    Terminal,
    TranscriptReader,
)
from ._seam_records import (
    Endpoint,
    ProviderMeta,
    ReadResult,
    RunContext,
    SessionStat,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    ToolServer,
    TranscriptRef,
)
from .kit import *  # noqa: F403  (the kit's names, still importable from here)

__all__ = [
    "ALWAYS_OUTCOME",
    "APPROVE",
    "APPROVE_ALWAYS",
    "DEFAULT_PROVIDER",
    "REJECT",
    "AgentProvider",
    "ApprovalOutcome",
    "AuthChange",
    "AuthFlow",
    "CredentialStore",
    "DescribedAuthFlow",
    "Endpoint",
    "LiveSignals",
    "LoginStart",
    "ProviderMeta",
    "ReadResult",
    "RunContext",
    "SessionStat",
    "SpawnPlan",
    "SpawnRequest",
    "StartupBlocker",
    "SubmitWatch",
    "Terminal",
    "ToolServer",
    "TranscriptReader",
    "TranscriptRef",
    "credentials",
    "default_provider",
    "get_provider",
    "injected_credentials",
    "kit",
    "on_auth_change",
    "provider_ids",
    "publish_auth_change",
    "register",
    "require_login",
]
