"""Mistral Vibe (``mistral-vibe`` on PyPI) behind the seam: its TUI driven by the records in
``_compat.py``, its session store read into the universal schema.
"""

from ._provider import VibeProvider

__all__ = ["VibeProvider"]
