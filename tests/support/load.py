"""``--cpu-hog N``: the whole test session beside N busy processes, a loaded laptop's machine.

A suite that passes only on an idle machine waits on time instead of on a record; running it
beside busy processes finds those waits. ``LAB_WIDGET_CPU_HOG=N`` sets the option's default,
so ``make live LAB_WIDGET_CPU_HOG=2`` loads any target. The processes start when the session is
configured and end when it is unconfigured, which pytest does however the session ends
(failures, ``-x``, Ctrl-C); each also ends itself when pytest's process is gone, so not even a
killed session leaves one spinning.
"""

from __future__ import annotations

import argparse
import os
from contextlib import ExitStack

import pytest

from tests.support.cpu_hog import cpu_hog

__all__ = ["ENV", "hog_pids"]

ENV = "LAB_WIDGET_CPU_HOG"
_PIDS = pytest.StashKey[list[int]]()


def _count(value: str) -> int:
    """A count of busy processes: a whole number, zero or more."""
    try:
        count = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if count < 0:
        raise argparse.ArgumentTypeError(f"cannot run {count} processes")
    return count


def pytest_addoption(parser: pytest.Parser) -> None:
    default = os.environ.get(ENV, "0") or "0"
    parser.addoption(
        "--cpu-hog",
        type=_count,
        default=_count(default),
        metavar="N",
        help=f"run N busy processes beside the whole session (default: ${ENV} or 0)",
    )


def pytest_configure(config: pytest.Config) -> None:
    count: int = config.getoption("--cpu-hog")
    stack = ExitStack()
    config.add_cleanup(stack.close)
    config.stash[_PIDS] = stack.enter_context(cpu_hog(count)) if count else []


def pytest_report_header(config: pytest.Config) -> str | None:
    pids = hog_pids(config)
    if not pids:
        return None
    return (
        f"cpu hog: {len(pids)} busy processes beside the session (pids {' '.join(map(str, pids))})"
    )


def hog_pids(config: pytest.Config) -> list[int]:
    """The busy processes' pids of this session (empty without ``--cpu-hog``)."""
    return config.stash.get(_PIDS, [])
