"""The kit adapters are built from: what two adapters would both write.

:mod:`lab_widget.provider` is the seam (what an adapter implements and what core calls),
its records, the registry and auth; this module is what an adapter uses to implement it:

- the TUI base and its compat records: :class:`TuiProvider` plays a provider's typed
  couplings (:class:`PasteTiming`, :class:`KeyRecipe`, :class:`ApprovalKeys`, ...), each
  pinned to a CLI version (:func:`pinned`) with the :class:`Evidence` it was verified by;
- live signals from a hook spool (:class:`HookSignals`, the ``spool_*`` helpers) and a
  submit confirmed by the CLI's own record (:class:`SpoolWatch`); a TUI whose hooks name
  its sessions (:class:`HookSessionProvider`, described by a :class:`SessionHooks`
  record), the base a CLI and its forks share;
- readers' parts: appended JSONL lines (:class:`JsonlTail`), usage counted once per
  response (:class:`UsageLedger`), a usage scan's sums (:class:`UsageTally`), per-turn
  facts (:class:`TurnFactsLog`), a model that answered in place of the one asked for
  (:class:`ModelWatch`), and values and files read leniently (:func:`as_dict`,
  :func:`iso_time`, :func:`exact`, :func:`load_json`, ...);
- the slash-command catalog (its pinned table in the package's ``commands.toml``,
  :func:`command_table`; :func:`builtin_table`, :func:`merge_commands`,
  :func:`walk_files`) and dialogs (:func:`approval_dialog`, :func:`picker_questions`, ...);
- spawning: an isolated run's home, an endpoint's URL, the run's own facts file, where a
  pinned binary is.

An adapter imports it as a namespace (``from .. import kit``) or by name
(``from ..kit import JsonlTail``); ``tests/unit/test_architecture.py`` holds adapters to the
seam, this kit, the schema, the errors and the pins.
"""

from ._binaries import find_binary
from ._catalog import (
    CommandTable,
    builtin_command,
    builtin_table,
    command_table,
    merge_commands,
    toml_catalog,
    toml_commands,
    walk_files,
)
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
    ShellTools,
    StartupScreens,
    ToolServerNames,
    command_line,
    ctrl_c_empties_the_box,
    hook_confirmed_paste,
    pinned,
)
from ._dialogs import (
    approval_dialog,
    approval_said_in_result,
    describe_answers,
    picker_options,
    picker_questions,
)
from ._genai_parts import PartsGrammar, genai_attachments, genai_call
from ._hook_session import HookSessionProvider, SessionFiles, SessionHooks
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
from ._jsonl import CorruptLine, JsonlTail, Line, collector_paused, loads_or_none
from ._lenient import as_dict, exact, iso_time, json_lines, load_json, read_head
from ._models import ModelWatch
from ._spawn import RunFile, api_base_url, isolated_home
from ._submit import SpoolWatch
from ._tui import CommandScan, TuiCouplings, TuiProvider
from ._turn_facts import TurnFactsLog
from ._usage import UsageLedger, UsageTally

__all__ = [
    "ApprovalKeys",
    "ColourQuery",
    "CommandScan",
    "CommandTable",
    "CorruptLine",
    "Coupling",
    "Evidence",
    "HookEvents",
    "HookSessionProvider",
    "HookSignals",
    "InitialPrompt",
    "JsonlTail",
    "KeyRecipe",
    "Line",
    "ModelWatch",
    "PartsGrammar",
    "PasteTiming",
    "PickerPacing",
    "PickerStep",
    "QuietStart",
    "ReadySignal",
    "RunFile",
    "SeedLayout",
    "SessionFiles",
    "SessionHooks",
    "ShellTools",
    "SpoolWatch",
    "StartupScreens",
    "ToolServerNames",
    "TuiCouplings",
    "TuiProvider",
    "TurnFactsLog",
    "UsageLedger",
    "UsageTally",
    "api_base_url",
    "approval_dialog",
    "approval_said_in_result",
    "as_dict",
    "builtin_command",
    "builtin_table",
    "collector_paused",
    "command_line",
    "command_table",
    "ctrl_c_empties_the_box",
    "describe_answers",
    "exact",
    "find_binary",
    "genai_attachments",
    "genai_call",
    "hook_command",
    "hook_confirmed_paste",
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
    "read_head",
    "reported_at",
    "spool_drop",
    "spool_entries",
    "spool_records",
    "spool_signature",
    "toml_catalog",
    "toml_commands",
    "walk_files",
]
