"""The provider seam, its registry, and the pieces adapters share.

Concrete adapters live in sub-packages (``claude_code``); nothing outside them imports
them directly.
"""

from ._auth import (
    AuthFlow,
    CredentialStore,
    DescribedAuthFlow,
    LoginStart,
    credentials,
    injected_credentials,
    require_login,
)
from ._jsonl import CorruptLine, JsonlTail, Line
from ._registry import DEFAULT_PROVIDER, default_provider, get_provider, provider_ids, register
from ._seam import (
    AgentProvider,
    ApprovalOutcome,
    Endpoint,
    LiveSignals,
    ProviderMeta,
    ReadResult,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    Terminal,
    TranscriptReader,
    TranscriptRef,
)
from ._usage import UsageLedger

__all__ = [
    "DEFAULT_PROVIDER",
    "AgentProvider",
    "ApprovalOutcome",
    "AuthFlow",
    "CorruptLine",
    "CredentialStore",
    "DescribedAuthFlow",
    "Endpoint",
    "JsonlTail",
    "Line",
    "LiveSignals",
    "LoginStart",
    "ProviderMeta",
    "ReadResult",
    "RunContext",
    "SpawnPlan",
    "SpawnRequest",
    "StartupBlocker",
    "Terminal",
    "TranscriptReader",
    "TranscriptRef",
    "UsageLedger",
    "credentials",
    "default_provider",
    "get_provider",
    "injected_credentials",
    "provider_ids",
    "register",
    "require_login",
]
