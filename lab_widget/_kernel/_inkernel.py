"""What the kernel tools evaluate inside the kernel: the user's variables listed and
described with the code the ``@``-mentions use, so the same secrets stay hidden.

The server reaches these through one expression (:func:`expression`); they read the
namespace of the IPython shell they run in and answer in JSON.

Examples
--------
>>> import json
>>> json.loads(variables_json({"rows": [1, 2], "api_token": "x", "_x": 1}))
[{'name': 'api_token', 'type': 'str', 'size': '', 'secret': True}, \
{'name': 'rows', 'type': 'list', 'size': '2 items', 'secret': False}]
>>> print(json.loads(describe_json("rows", {"rows": [1, 2]})))
`rows`: list of 2 items = [1, 2]
>>> print(json.loads(describe_json("nope", {})))
`nope` is not defined in the notebook's namespace.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Mapping
from typing import Protocol

from .._chat._mentions import describe, kernel_namespace, list_variables

__all__ = [
    "CellTaker",
    "describe_json",
    "expression",
    "insert_cell_json",
    "take_cells",
    "variables_json",
]


class CellTaker(Protocol):
    """What inserts cells for a run: its chat's view, in the notebook that shows it."""

    def insert_cell(self, code: str) -> None:
        """Insert ``code`` as a new code cell below the chat."""


_takers: dict[str, weakref.ref[CellTaker]] = {}


def take_cells(run_id: str, taker: CellTaker) -> None:
    """Have ``taker`` insert the cells the agent of ``run_id`` asks for (while it lives)."""
    for gone in [key for key, ref in _takers.items() if ref() is None]:
        del _takers[gone]
    _takers[run_id] = weakref.ref(taker)


def insert_cell_json(run_id: str, code: str) -> str:
    """Insert ``code`` below the chat of ``run_id``; what happened, as a JSON string.

    Examples
    --------
    >>> class Chat:
    ...     def insert_cell(self, code): print("inserted:", code)
    >>> chat = Chat()
    >>> take_cells("r1", chat)
    >>> json.loads(insert_cell_json("r1", "x = 1"))
    inserted: x = 1
    'Asked the notebook to insert the cell below the chat.'
    >>> json.loads(insert_cell_json("r2", "x = 1")).startswith("Not inserted")
    True
    """
    found = _takers.get(run_id)
    taker = found() if found is not None else None
    if taker is None:
        return json.dumps(
            "Not inserted: the run's chat is not shown in a notebook. Show the code in your "
            "answer instead; the user can insert it from the chat."
        )
    taker.insert_cell(code)
    return json.dumps("Asked the notebook to insert the cell below the chat.")


def _namespace(namespace: Mapping[str, object] | None) -> Mapping[str, object]:
    found = namespace if namespace is not None else kernel_namespace()
    return found if found is not None else {}


def variables_json(namespace: Mapping[str, object] | None = None) -> str:
    """The user's variables (name, type, shape or length) as JSON; a secret-looking name
    keeps its name and type only.
    """
    listed = []
    for info in list_variables(_namespace(namespace)):
        entry = info.to_json()
        if info.secret:
            entry["size"] = ""
        listed.append(entry)
    return json.dumps(listed)


def describe_json(name: str, namespace: Mapping[str, object] | None = None) -> str:
    """The description an ``@``-mention of ``name`` sends, as a JSON string."""
    found = _namespace(namespace)
    if name not in found:
        return json.dumps(f"`{name}` is not defined in the notebook's namespace.")
    return json.dumps(describe(name, found[name]))


def expression(function: str, *args: str) -> str:
    """The expression that calls ``function`` of this module in the kernel with ``args``.

    Examples
    --------
    >>> expression("describe_json", "df")
    "__import__('lab_widget._kernel._inkernel', fromlist=['_']).describe_json('df')"
    """
    call = ", ".join(repr(a) for a in args)
    return f"__import__({__name__!r}, fromlist=['_']).{function}({call})"
