"""Which processes belong to a run: for the live tests' "stop leaves nothing behind"."""

from __future__ import annotations

import os
from pathlib import Path


def run_processes(marker: str) -> list[str]:
    """Processes whose command line, environment or folder mentions ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            environ = (entry / "environ").read_bytes().decode(errors="replace")
            cwd = str((entry / "cwd").readlink())
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if marker in cmdline or marker in environ or cwd.startswith(marker):
            found.append(f"{entry.name}: {cmdline[:120]}")
    return found
