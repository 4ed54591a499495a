"""The provider seam, its registry, and the kit adapters are built from.

Concrete adapters live in sub-packages (``claude_code``); nothing outside them imports
them directly. An adapter imports only this package's public names (the seam and the
kit below), :mod:`lab_widget.schema`, :mod:`lab_widget.errors` and
:mod:`lab_widget.compat` (``tests/unit/test_architecture.py``).
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
from ._catalog import builtin_command, builtin_table, merge_commands, walk_files
from ._couplings import (
    ApprovalKeys,
    ColourQuery,
    Coupling,
    Evidence,
    HookEvents,
    InitialPrompt,
    KeyRecipe,
    PasteTiming,
    PickerPacing,
    PickerStep,
    QuietStart,
    ReadySignal,
    SeedLayout,
    StartupScreens,
    pinned,
)
from ._dialogs import (
    ALWAYS_OUTCOME,
    APPROVE,
    APPROVE_ALWAYS,
    REJECT,
    approval_dialog,
    approval_said_in_result,
    describe_answers,
    picker_options,
    picker_questions,
)
from ._files import RunFile, json_lines, load_json, read_head
from ._hook_signals import (
    HookSignals,
    hook_command,
    open_calls,
    reported_at,
    spool_drop,
    spool_entries,
    spool_records,
    spool_signature,
)
from ._jsonl import CorruptLine, JsonlTail, Line, loads_or_none
from ._models import ModelWatch
from ._numbers import exact
from ._registry import DEFAULT_PROVIDER, default_provider, get_provider, provider_ids, register
from ._seam import AgentProvider, ApprovalOutcome, LiveSignals, Terminal, TranscriptReader
from ._seam_records import (
    Endpoint,
    ProviderMeta,
    ReadResult,
    RunContext,
    SessionStat,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    TranscriptRef,
)
from ._spawn import api_base_url, isolated_home
from ._submit import SpoolWatch, SubmitWatch
from ._tui import CommandScan, TuiCouplings, TuiProvider
from ._turn_facts import TurnFactsLog
from ._usage import UsageLedger
from ._values import as_dict, iso_time

__all__ = [
    "ALWAYS_OUTCOME",
    "APPROVE",
    "APPROVE_ALWAYS",
    "DEFAULT_PROVIDER",
    "REJECT",
    "AgentProvider",
    "ApprovalKeys",
    "ApprovalOutcome",
    "AuthFlow",
    "ColourQuery",
    "CommandScan",
    "CorruptLine",
    "Coupling",
    "CredentialStore",
    "DescribedAuthFlow",
    "Endpoint",
    "Evidence",
    "HookEvents",
    "HookSignals",
    "InitialPrompt",
    "JsonlTail",
    "KeyRecipe",
    "Line",
    "LiveSignals",
    "LoginStart",
    "ModelWatch",
    "PasteTiming",
    "PickerPacing",
    "PickerStep",
    "ProviderMeta",
    "QuietStart",
    "ReadResult",
    "ReadySignal",
    "RunContext",
    "RunFile",
    "SeedLayout",
    "SessionStat",
    "SpawnPlan",
    "SpawnRequest",
    "SpoolWatch",
    "StartupBlocker",
    "StartupScreens",
    "SubmitWatch",
    "Terminal",
    "TranscriptReader",
    "TranscriptRef",
    "TuiCouplings",
    "TuiProvider",
    "TurnFactsLog",
    "UsageLedger",
    "api_base_url",
    "approval_dialog",
    "approval_said_in_result",
    "as_dict",
    "builtin_command",
    "builtin_table",
    "credentials",
    "default_provider",
    "describe_answers",
    "exact",
    "find_binary",
    "get_provider",
    "hook_command",
    "injected_credentials",
    "iso_time",
    "isolated_home",
    "json_lines",
    "load_json",
    "loads_or_none",
    "merge_commands",
    "open_calls",
    "picker_options",
    "picker_questions",
    "pinned",
    "provider_ids",
    "read_head",
    "register",
    "reported_at",
    "require_login",
    "spool_drop",
    "spool_entries",
    "spool_records",
    "spool_signature",
    "walk_files",
]
