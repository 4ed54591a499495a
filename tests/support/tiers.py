"""A tier is a folder: its ``conftest.py`` marks every test collected under it."""

from __future__ import annotations

from pathlib import Path

import pytest


def mark_folder(items: list[pytest.Item], folder: Path, *markers: str) -> None:
    """Add ``markers`` to each of ``items`` whose module lies under ``folder``.

    Collection hooks see every item of the session, not only the folder's, hence the filter.
    """
    for item in items:
        if item.path.is_relative_to(folder):
            for name in markers:
                item.add_marker(getattr(pytest.mark, name))
