"""The base of every widget of the package: its front end is one bundle of ``static/``.

``js/bundles.json`` lists the bundles ``js/build.mjs`` writes into ``lab_widget/static/``
(``<name>.js`` and ``<name>.css``); a widget class names its bundle, and serves a short note
instead when the front end was never built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import anywidget

__all__ = ["STATIC", "UNBUILT_ESM", "BundledWidget"]

STATIC = Path(__file__).resolve().parents[1] / "static"
"""Where the built front-end bundles are (git-ignored; every package build makes them)."""

UNBUILT_ESM = """
export default { render({ el }) {
  el.textContent = "lab_widget's front end is not built: run `make setup` " +
    "(or `npm install && npm run build` in js/) and restart the kernel.";
} };
"""
"""The front end of a widget whose bundle is missing: it says how to build it."""


class BundledWidget(anywidget.AnyWidget):
    """An anywidget whose front end is the bundle named in the class statement.

    ``class RunView(BundledWidget, bundle="widget")`` serves ``static/widget.js`` and
    ``static/widget.css``.
    """

    bundle: ClassVar[str] = ""
    """The bundle's name in ``js/bundles.json``."""

    def __init_subclass__(cls, bundle: str = "", **kwargs: Any) -> None:
        if bundle:
            cls.bundle = bundle
            script, style = STATIC / f"{bundle}.js", STATIC / f"{bundle}.css"
            # Set before anywidget's own hook runs: it turns files into watched contents.
            cls._esm = script if script.is_file() else UNBUILT_ESM
            cls._css = style if style.is_file() else ""
        super().__init_subclass__(**kwargs)
