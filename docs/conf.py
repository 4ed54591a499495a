"""Sphinx configuration: the user guide (the notebooks, with their stored outputs), the
design records and the API reference from the package's docstrings.

Build with ``make docs``; warnings fail the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

project = "lab_widget"
author = "lab_widget contributors"
copyright = "2026, lab_widget contributors"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

# The notebooks are executed and checked by `pytest --nbval`; the docs show their stored
# outputs and never run an agent.
nb_execution_mode = "off"
nb_output_stderr = "remove"
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

napoleon_numpy_docstring = True
napoleon_google_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}

exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = "lab_widget"
html_static_path: list[str] = []
suppress_warnings = ["mystnb.unknown_mime_type"]
