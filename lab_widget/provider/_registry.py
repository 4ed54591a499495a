"""Provider lookup by id. Concrete providers are named here by import path only, so core
code never imports one.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

from ..errors import UnknownProviderError
from ._seam import AgentProvider

__all__ = ["DEFAULT_PROVIDER", "default_provider", "get_provider", "provider_ids", "register"]

DEFAULT_PROVIDER = "claude-code"

_BUILTIN: dict[str, str] = {
    "claude-code": "lab_widget.provider.claude_code:ClaudeCodeProvider",
    "codex": "lab_widget.provider.codex:CodexProvider",
    "opencode": "lab_widget.provider.opencode:OpenCodeProvider",
    "gemini": "lab_widget.provider.gemini:GeminiProvider",
    "qwen-code": "lab_widget.provider.qwen_code:QwenCodeProvider",
    "copilot": "lab_widget.provider.copilot:CopilotProvider",
    "mistral-vibe": "lab_widget.provider.mistral_vibe:VibeProvider",
    "kilo": "lab_widget.provider.kilo:KiloProvider",
}
_registered: dict[str, Callable[[], AgentProvider]] = {}
_instances: dict[str, AgentProvider] = {}


def register(provider_id: str, factory: Callable[[], AgentProvider]) -> None:
    """Make a provider available under ``provider_id`` (third-party adapters, tests)."""
    _registered[provider_id] = factory
    _instances.pop(provider_id, None)


def provider_ids() -> list[str]:
    """Every known provider id.

    Examples
    --------
    >>> "claude-code" in provider_ids()
    True
    """
    return sorted({*_BUILTIN, *_registered})


def default_provider() -> str:
    """``$LAB_WIDGET_PROVIDER`` if set, else :data:`DEFAULT_PROVIDER`."""
    return os.environ.get("LAB_WIDGET_PROVIDER") or DEFAULT_PROVIDER


def get_provider(provider_id: str) -> AgentProvider:
    """The provider with this id; :class:`UnknownProviderError` lists the known ones.

    Examples
    --------
    >>> get_provider("claude-code").meta.display_name
    'Claude Code'
    """
    if provider_id in _instances:
        return _instances[provider_id]
    if provider_id in _registered:
        provider = _registered[provider_id]()
    elif provider_id in _BUILTIN:
        module_name, _, class_name = _BUILTIN[provider_id].partition(":")
        provider = getattr(importlib.import_module(module_name), class_name)()
    else:
        raise UnknownProviderError(provider_id, provider_ids())
    # Seeding metadata validates itself when built (scrub patterns against their samples):
    # building it here makes a bad pattern fail at lookup, not in the middle of a run.
    provider.seed_meta()
    _instances[provider_id] = provider
    return provider
