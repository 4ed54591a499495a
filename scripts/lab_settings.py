"""Default JupyterLab settings of the project's own environment, written to its overrides file.

``make setup`` runs it with the venv's Python: ``<venv>/share/jupyter/lab/settings/
overrides.json`` sets defaults for that JupyterLab only (the user's own settings still win, and
their global settings are never touched). Widget state is saved with the notebook, so a chat
reopened without its kernel still shows its conversation.

Usage: ``python scripts/lab_settings.py [overrides.json]`` (default: the running Python's).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    # JupyterLab's "Save Widget State Automatically".
    "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True},
}


def overrides_path() -> Path:
    """Where this Python's JupyterLab reads its overrides."""
    return Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def write(path: Path) -> dict[str, Any]:
    """Merge :data:`DEFAULTS` into the overrides at ``path``, keeping every other setting."""
    current: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    for plugin, values in DEFAULTS.items():
        current[plugin] = {**current.get(plugin, {}), **values}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2) + "\n")
    return current


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else overrides_path()
    write(target)
    print(f"JupyterLab defaults written to {target}")
