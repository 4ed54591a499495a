"""Session-wide test settings (also for notebooks collected by nbval)."""

from __future__ import annotations

import os
import tempfile

# Tests never touch the user's real lab home, and notebooks run on the scripted model even
# where real credentials are set, so their stored outputs stay reproducible.
os.environ.setdefault("LAB_WIDGET_HOME", tempfile.mkdtemp(prefix="lab-widget-tests-"))
os.environ["LAB_WIDGET_QUICKSTART_SCRIPTED"] = "1"

# `--cpu-hog N` (or LAB_WIDGET_CPU_HOG=N): busy processes beside the whole session. The
# package's own pytest plugin (lab_home, scripted_model, agent_run) is loaded by its entry
# point where the package is installed; naming it here also covers a source checkout.
pytest_plugins = ["tests.support.load", "lab_widget.testing"]
