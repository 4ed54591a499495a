"""What preparing a spawn shares between adapters: where an isolated run's home is, and an
endpoint's URL as OpenAI-style clients take it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from ._seam_records import RunContext

__all__ = ["api_base_url", "isolated_home"]


def isolated_home(context: RunContext) -> Path:
    """The ``HOME`` of a run on a scripted model or an endpoint: inside its runtime folder,
    so nothing of the user's own setup is read or written.

    Examples
    --------
    >>> isolated_home(RunContext(run_id="r", cwd=Path("/w"), runtime_dir=Path("/lab/runs/r")))
    PosixPath('/lab/runs/r/home')
    """
    return context.runtime_dir / "home"


def api_base_url(base_url: str) -> str:
    """The URL as an OpenAI-style client's base URL takes it: with the API's ``/v1`` path.

    A bare server URL (no path) gets ``/v1``; a URL with a path is kept as given.

    Examples
    --------
    >>> api_base_url("http://127.0.0.1:8000")
    'http://127.0.0.1:8000/v1'
    >>> api_base_url("https://proxy.example/openai/v1/")
    'https://proxy.example/openai/v1'
    """
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))
