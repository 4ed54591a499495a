"""Drive real coding-agent CLIs from Jupyter notebooks.

The public API is small: :class:`Run` starts an agent CLI in its own tmux session and reads
its transcript into :mod:`lab_widget.schema` objects; :class:`ScriptedModel` is a local
model server that makes runs deterministic and offline.
"""

from . import schema
from ._answers import FreeText
from ._frames import MissingDependencyError, to_dataframe
from ._history import SessionInfo, history
from ._magics import load_ipython_extension
from ._run import Run, get_run, lab_home, read_transcript, runs
from ._seed import Seed, Workspace
from .errors import (
    AgentNotReadyError,
    CLINotFoundError,
    InvalidSeedError,
    LabWidgetError,
    RunEndedError,
    ScrubPatternError,
    SeedConflictError,
    SeedMetaError,
    UnknownProviderError,
    WaitTimeoutError,
    WorkspaceError,
)
from .provider import Endpoint, provider_ids
from .scripted import Reply, Rule, ScriptedModel, ToolUse

__all__ = [
    "AgentNotReadyError",
    "CLINotFoundError",
    "Endpoint",
    "FreeText",
    "InvalidSeedError",
    "LabWidgetError",
    "MissingDependencyError",
    "Reply",
    "Rule",
    "Run",
    "RunEndedError",
    "ScriptedModel",
    "ScrubPatternError",
    "Seed",
    "SeedConflictError",
    "SeedMetaError",
    "SessionInfo",
    "ToolUse",
    "UnknownProviderError",
    "WaitTimeoutError",
    "Workspace",
    "WorkspaceError",
    "get_run",
    "history",
    "lab_home",
    "load_ipython_extension",
    "provider_ids",
    "read_transcript",
    "runs",
    "schema",
    "to_dataframe",
]

__version__ = "0.1.0"
