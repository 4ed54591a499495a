"""OpenCode behind the provider seam.

Besides the provider, what a fork of OpenCode builds from (its package imports these names
and nothing else of this one): the provider class to subclass, the record that names the
fork's folders, files and variables, the live signals, the reader and the usage scans of
the store, the commands and login parameterised by that record, OpenCode's pins (``pins``,
the records a fork re-verifies) and the builtins it curates out of the chat.
"""

from . import _compat as pins
from ._auth import descriptor as family_auth
from ._auth import status as family_auth_status
from ._commands import BUILTIN_COMMANDS, CURATED_OUT, family_catalog, family_sources
from ._family import OpenCodeFamily
from ._provider import OpenCodeProvider
from ._signals import OpenCodeSignals
from ._transcript import OpenCodeTranscriptReader
from ._usage_scan import usage_summaries, usage_summary

__all__ = [
    "BUILTIN_COMMANDS",
    "CURATED_OUT",
    "OpenCodeFamily",
    "OpenCodeProvider",
    "OpenCodeSignals",
    "OpenCodeTranscriptReader",
    "family_auth",
    "family_auth_status",
    "family_catalog",
    "family_sources",
    "pins",
    "usage_summaries",
    "usage_summary",
]
