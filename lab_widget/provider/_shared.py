"""Small pieces every adapter needs the same way: builtin command rows and the signature of
a hook spool.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from ..schema import CommandSpec

__all__ = ["builtin_command", "spool_signature"]


def builtin_command(
    name: str,
    description: str,
    arg_hint: str = "",
    *,
    clear_command: str,
    curated_out: Collection[str],
) -> CommandSpec:
    """One row of a provider's pinned builtin table.

    Examples
    --------
    >>> row = builtin_command("/new", "Start over", clear_command="/new", curated_out=())
    >>> (row.role, row.chat_safe, row.source)
    ('clear', True, 'builtin')
    """
    return CommandSpec(
        name=name,
        description=description,
        arg_hint=arg_hint,
        source="builtin",
        role="clear" if name == clear_command else None,
        chat_safe=name not in curated_out,
    )


def spool_signature(spool: Path, pattern: str = "*.json") -> tuple[str, ...]:
    """A cheap value that changes whenever a record is added to (or dropped from) a spool.

    Records are written under a new name and never rewritten, so the sorted names suffice.

    Examples
    --------
    >>> spool_signature(Path("/nonexistent/spool"))
    ()
    """
    return tuple(sorted(p.name for p in spool.glob(pattern))) if spool.is_dir() else ()
