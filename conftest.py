"""Session-wide test settings (also for notebooks collected by nbval)."""

from __future__ import annotations

import os
import tempfile

# Tests never touch the user's real lab home, and notebooks run on the scripted model even
# where real credentials are set, so their stored outputs stay reproducible.
os.environ.setdefault("LAB_WIDGET_HOME", tempfile.mkdtemp(prefix="lab-widget-tests-"))
os.environ["LAB_WIDGET_QUICKSTART_SCRIPTED"] = "1"

# `--cpu-hog N` (or LAB_WIDGET_CPU_HOG=N): busy processes beside the whole session.
pytest_plugins = ["tests.support.load"]
