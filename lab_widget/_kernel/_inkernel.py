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
from collections.abc import Mapping

from .._chat._mentions import describe, kernel_namespace, list_variables

__all__ = ["describe_json", "expression", "variables_json"]


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
