"""Claude Code's config: the user's config folder and global state file, and the state an
isolated run's home starts with (onboarded, its key approved, its folder trusted).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["global_state_file", "prepare_isolated_home", "user_config_dir"]


def user_config_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def global_state_file(config_dir: Path | None) -> Path:
    """``.claude.json``: beside the config dir when it is set, else in HOME."""
    if os.environ.get("CLAUDE_CONFIG_DIR") and config_dir is not None:
        return config_dir / ".claude.json"
    return Path.home() / ".claude.json"


def prepare_isolated_home(home: Path, cwd: Path, api_key: str) -> None:
    """Write the global state an isolated run's CLI starts from: no first-run screen."""
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [api_key.strip()[-20:]], "rejected": []},
        "projects": {str(cwd): {"hasTrustDialogAccepted": True}},
    }
    (home / ".claude.json").write_text(json.dumps(state, indent=2))
