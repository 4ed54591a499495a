"""Python source read as a syntax tree, for the tests that check the code itself."""

from __future__ import annotations

import ast
import time
from pathlib import Path

__all__ = ["parse_file"]

ATTEMPTS = 5


def parse_file(path: Path) -> ast.Module:
    """``ast.parse`` of the file at ``path``.

    CPython 3.11 keeps the AST builder's recursion counter per interpreter, not per thread:
    a parse on another thread at the same moment (a kernel server's ``literal_eval``, an
    IPython cell) makes this one fail with ``SystemError: AST constructor recursion depth
    mismatch``. The source is fine, so the parse is tried again.
    """
    source = path.read_text()
    for attempt in range(ATTEMPTS):
        try:
            return ast.parse(source, str(path))
        except SystemError:
            if attempt == ATTEMPTS - 1:
                raise
            time.sleep(0.05)
    raise AssertionError("unreachable")
