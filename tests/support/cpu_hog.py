"""Busy processes beside a live test: the machine under load, as a user's loaded laptop is.

Examples
--------
>>> with cpu_hog(1) as pids:
...     len(pids)
1
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cpu_hog"]

# Busy until the parent is gone: a session killed outright (SIGKILL) leaves no spinner behind.
_SPIN = """
import os, sys
parent = int(sys.argv[1])
while os.getppid() == parent:
    for _ in range(1_000_000):
        pass
"""


@contextmanager
def cpu_hog(processes: int | None = None) -> Iterator[list[int]]:
    """Keep ``processes`` busy loops running (one per core by default) while the block runs.

    Each is ended by its own pid when the block exits, however it exits, and ends itself
    when this process is gone.
    """
    count = processes if processes is not None else (os.cpu_count() or 2)
    spinners = [
        subprocess.Popen([sys.executable, "-c", _SPIN, str(os.getpid())], stdin=subprocess.DEVNULL)
        for _ in range(count)
    ]
    try:
        yield [p.pid for p in spinners]
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()
