"""Unit: the JupyterLab defaults ``make setup`` writes into the project's environment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

SCRIPT = ROOT / "scripts" / "lab_settings.py"
PLUGIN = "@jupyter-widgets/jupyterlab-manager:plugin"


def test_widget_state_is_saved_and_other_defaults_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "settings" / "overrides.json"
    target.parent.mkdir()
    target.write_text(json.dumps({"other:plugin": {"x": 1}, PLUGIN: {"mimeBundle": True}}))
    subprocess.run([sys.executable, str(SCRIPT), str(target)], check=True, timeout=60)
    assert json.loads(target.read_text()) == {
        "other:plugin": {"x": 1},
        PLUGIN: {"mimeBundle": True, "saveState": True},
    }


def test_make_setup_writes_them_into_the_venv_only(tmp_path: Path) -> None:
    planned = subprocess.run(
        ["make", "-n", "setup", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    expected = f"scripts/lab_settings.py {tmp_path}/venv/share/jupyter/lab/settings/overrides.json"
    assert expected in planned
