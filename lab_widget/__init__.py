"""Drive real coding-agent CLIs from Jupyter notebooks.

The public API is small: :class:`Run` starts an agent CLI in its own tmux session and reads
its transcript into :mod:`lab_widget.schema` objects; :class:`ScriptedModel` is a local
model server that makes runs deterministic and offline.
"""

from . import _version, errors, schema
from ._acp._agent import AcpAgent
from ._chat._answers import FreeText
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
from ._run._spares import prestart, spares
from ._widgets._auth_card import ProviderAuthCard, login
from ._workspace._git import Workspace
from ._workspace._sandbox import Sandbox
from ._workspace._seed import Seed
from .errors import *  # noqa: F403  (every typed error and warning: errors.__all__)
from .provider import (
    AuthChange,
    AuthFlow,
    Endpoint,
    LoginStart,
    default_provider,
    on_auth_change,
    provider_ids,
)
from .scripted import Reply, Rule, ScriptedModel, ToolUse

__all__ = [
    "AcpAgent",
    "AuthChange",
    "AuthFlow",
    "ContainerHost",
    "Endpoint",
    "FreeText",
    "Host",
    "KubectlHost",
    "LocalHost",
    "LoginStart",
    "MetricsServer",
    "ProviderAuthCard",
    "ProviderInfo",
    "ProviderTable",
    "Reply",
    "Rule",
    "Run",
    "Sandbox",
    "ScriptedModel",
    "Seed",
    "SessionInfo",
    "SshHost",
    "ToolUse",
    "Workspace",
    "default_provider",
    "get_run",
    "history",
    "lab_home",
    "load_ipython_extension",
    "login",
    "metrics",
    "on_auth_change",
    "prestart",
    "provider_ids",
    "providers",
    "rate_limits_dataframe",
    "read_transcript",
    "runs",
    "schema",
    "serve_metrics",
    "spares",
    "to_dataframe",
    "turns_dataframe",
]
__all__ += errors.__all__  # every typed error and warning

__version__ = _version.__version__
