"""The provider seam, its registry, and the kit adapters are built from.

Concrete adapters live in sub-packages (``claude_code``); nothing outside them imports
them directly. An adapter imports only this package's public names (the seam and the
kit below), :mod:`lab_widget.schema`, :mod:`lab_widget.errors` and
:mod:`lab_widget.compat` (``tests/test_architecture.py``).
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
from ._binaries import find_binary
from ._catalog import builtin_command, walk_files
from ._dialogs import approval_key, approval_said_in_result, describe_answers, play_keys
from ._files import load_json
from ._hook_signals import spool_drop, spool_entries, spool_records, spool_signature
from ._jsonl import CorruptLine, JsonlTail, Line
from ._models import ModelWatch
from ._numbers import exact
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
from ._turn_facts import TurnFactsLog
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
    "ModelWatch",
    "ProviderMeta",
    "ReadResult",
    "RunContext",
    "SpawnPlan",
    "SpawnRequest",
    "StartupBlocker",
    "Terminal",
    "TranscriptReader",
    "TranscriptRef",
    "TurnFactsLog",
    "UsageLedger",
    "approval_key",
    "approval_said_in_result",
    "builtin_command",
    "credentials",
    "default_provider",
    "describe_answers",
    "exact",
    "find_binary",
    "get_provider",
    "injected_credentials",
    "load_json",
    "play_keys",
    "provider_ids",
    "register",
    "require_login",
    "spool_drop",
    "spool_entries",
    "spool_records",
    "spool_signature",
    "walk_files",
]
