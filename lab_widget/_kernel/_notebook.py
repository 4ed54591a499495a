r"""The notebook's cells as last saved, read from its file: source, and output text where it
is cheap (streams and plain-text results).

Jupyter's server tells a kernel which notebook it serves (``JPY_SESSION_NAME``); a kernel
with no notebook (plain IPython, a console) has none, and the tool says so.

Examples
--------
>>> import json, tempfile
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "n.ipynb"
>>> _ = path.write_text(json.dumps({"cells": [
...     {"cell_type": "code", "source": ["x = 1\n", "x"], "outputs": [
...         {"output_type": "execute_result", "data": {"text/plain": "1"}}]},
...     {"cell_type": "markdown", "source": "# Notes"}]}))
>>> print(cells_text(path))
[1] code:
x = 1
x
output:
1
<BLANKLINE>
[2] markdown:
# Notes
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["MAX_OUTPUT_CHARS", "cells_text", "current_notebook"]

MAX_OUTPUT_CHARS = 1_000
"""At most this many characters of each cell's output text are shown."""


def current_notebook() -> Path | None:
    """The notebook file the Jupyter server runs this kernel for, if it said so."""
    name = os.environ.get("JPY_SESSION_NAME")
    if not name or not name.endswith(".ipynb"):
        return None
    return Path(name)


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _output_text(outputs: Any) -> str:
    pieces = []
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            pieces.append(_text(output.get("text")))
        elif kind in ("execute_result", "display_data"):
            pieces.append(_text((output.get("data") or {}).get("text/plain")))
        elif kind == "error":
            pieces.append(f"{output.get('ename')}: {output.get('evalue')}")
    text = "\n".join(p.rstrip("\n") for p in pieces if p)
    return text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS] + " …"


def cells_text(path: Path) -> str:
    """The cells of the notebook at ``path``, numbered, as the tool returns them."""
    notebook = json.loads(path.read_text())
    blocks = []
    for number, cell in enumerate(notebook.get("cells") or [], start=1):
        block = f"[{number}] {cell.get('cell_type')}:\n{_text(cell.get('source'))}"
        output = _output_text(cell.get("outputs"))
        if output:
            block += f"\noutput:\n{output}"
        blocks.append(block)
    return "\n\n".join(blocks) or "(the notebook has no cells)"
