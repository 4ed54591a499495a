"""The front-end bundles of ``js/bundles.json`` and the files each builds."""

from __future__ import annotations

import json

from .paths import ROOT

BUNDLES: dict[str, str] = json.loads((ROOT / "js" / "bundles.json").read_text())
"""Bundle name to its entry point."""

OUTPUTS = sorted(f"lab_widget/static/{name}.{ext}" for name in BUNDLES for ext in ("js", "css"))
"""What a package build must contain, one JavaScript and one CSS file per bundle."""
