"""Drive real coding-agent CLIs from Jupyter notebooks.

The public API is small: :class:`Run` starts an agent CLI in its own tmux session and reads
its transcript into :mod:`lab_widget.schema` objects; :class:`ScriptedModel` is a local
model server that makes runs deterministic and offline.
"""

from . import _version, schema
from ._chat._answers import FreeText
from ._export import _export as _export  # installs Chat.export
from ._home import lab_home
from ._magics import load_ipython_extension
from ._provider_table import ProviderInfo, ProviderTable, providers
from ._reading._frames import rate_limits_dataframe, to_dataframe, turns_dataframe
from ._reading._history import SessionInfo, history
from ._reading._metrics import MetricsServer, metrics, serve_metrics
from ._reading._transcripts import read_transcript
from ._remote._transports import ContainerHost, Host, KubectlHost, LocalHost, SshHost
from ._run._run import Run
from ._run._runs import get_run, runs
from ._widgets._auth_card import ProviderAuthCard, login
from ._workspace._git import Workspace
from ._workspace._sandbox import Sandbox
from ._workspace._seed import Seed
from .errors import (
    AgentBlockedError,
    AgentNotReadyError,
    AnswerMismatchWarning,
    AnswerNotDeliveredError,
    AuthError,
    AuthNotSupportedError,
    AuthRequiredError,
    CLINotFoundError,
    CommandFileWarning,
    ConnectionLostError,
    DialogChangedError,
    DialogError,
    DialogNotAnswerableError,
    ExportFormatError,
    HostUnreachableError,
    InvalidAnswerError,
    InvalidCodeError,
    InvalidCwdError,
    InvalidHostError,
    InvalidKeyError,
    InvalidSeedError,
    LabWidgetError,
    LoginFailedError,
    MissingDependencyError,
    NoDialogError,
    NoLoginInProgressError,
    NoTerminalError,
    NpmNotFoundError,
    RemoteError,
    RemoteOptionsError,
    ReplyDroppedError,
    RunEndedError,
    RunNameTakenError,
    RunNotFoundError,
    RunStateError,
    SandboxError,
    ScrubPatternError,
    SeedConflictError,
    SeedMetaError,
    SetupError,
    StaleDialogError,
    TmuxError,
    UnknownProviderError,
    WaitTimeoutError,
    WorkerVersionError,
    WorkspaceError,
)
from .provider import AuthFlow, Endpoint, LoginStart, default_provider, provider_ids
from .provider._auth_events import AuthChange
from .provider._auth_events import subscribe as on_auth_change
from .scripted import Reply, Rule, ScriptedModel, ToolUse

__all__ = [
    "AgentBlockedError",
    "AgentNotReadyError",
    "AnswerMismatchWarning",
    "AnswerNotDeliveredError",
    "AuthChange",
    "AuthError",
    "AuthFlow",
    "AuthNotSupportedError",
    "AuthRequiredError",
    "CLINotFoundError",
    "CommandFileWarning",
    "ConnectionLostError",
    "ContainerHost",
    "DialogChangedError",
    "DialogError",
    "DialogNotAnswerableError",
    "Endpoint",
    "ExportFormatError",
    "FreeText",
    "Host",
    "HostUnreachableError",
    "InvalidAnswerError",
    "InvalidCodeError",
    "InvalidCwdError",
    "InvalidHostError",
    "InvalidKeyError",
    "InvalidSeedError",
    "KubectlHost",
    "LabWidgetError",
    "LocalHost",
    "LoginFailedError",
    "LoginStart",
    "MetricsServer",
    "MissingDependencyError",
    "NoDialogError",
    "NoLoginInProgressError",
    "NoTerminalError",
    "NpmNotFoundError",
    "ProviderAuthCard",
    "ProviderInfo",
    "ProviderTable",
    "RemoteError",
    "RemoteOptionsError",
    "Reply",
    "ReplyDroppedError",
    "Rule",
    "Run",
    "RunEndedError",
    "RunNameTakenError",
    "RunNotFoundError",
    "RunStateError",
    "Sandbox",
    "SandboxError",
    "ScriptedModel",
    "ScrubPatternError",
    "Seed",
    "SeedConflictError",
    "SeedMetaError",
    "SessionInfo",
    "SetupError",
    "SshHost",
    "StaleDialogError",
    "TmuxError",
    "ToolUse",
    "UnknownProviderError",
    "WaitTimeoutError",
    "WorkerVersionError",
    "Workspace",
    "WorkspaceError",
    "default_provider",
    "get_run",
    "history",
    "lab_home",
    "load_ipython_extension",
    "login",
    "metrics",
    "on_auth_change",
    "provider_ids",
    "providers",
    "rate_limits_dataframe",
    "read_transcript",
    "runs",
    "schema",
    "serve_metrics",
    "to_dataframe",
    "turns_dataframe",
]

__version__ = _version.__version__
