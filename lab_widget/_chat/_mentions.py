"""Notebook variables in prompts: ``@name`` expanded to a compact description of the value.

A prompt that mentions ``@df`` reaches the agent with ```df``` in its place and, below the
prompt, a short description of what ``df`` holds in the kernel: a DataFrame's shape, dtypes and
first rows, an array's shape and dtype, a short repr of anything else. Descriptions are capped
in size, one by one and together. A value whose name or contents look like a secret is never
described: the prompt says it was left out, and why.

The ``@`` is replaced on the way because the agents' own terminal UIs give ``@`` a meaning of
their own (a file mention); a name the namespace does not hold is left as typed, so a file
mention still reaches the agent unchanged.

Examples
--------
>>> print(expand("double @n, please", {"n": 21}))
double `n`, please
<BLANKLINE>
Notebook variables mentioned above, as the notebook's Python kernel holds them:
<BLANKLINE>
`n`: int = 21
>>> expand("mail me@example.org about @nothing", {"n": 21})
'mail me@example.org about @nothing'
>>> print(describe("api_key", "sk-live-123"))
`api_key`: not expanded: its name looks like a secret.
"""

from __future__ import annotations

import inspect
import re
import reprlib
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONTEXT_HEADER",
    "MAX_CONTEXT_CHARS",
    "MAX_DESCRIPTION_CHARS",
    "VariableInfo",
    "describe",
    "expand",
    "kernel_namespace",
    "list_variables",
    "looks_secret",
    "mentions",
]

CONTEXT_HEADER = "Notebook variables mentioned above, as the notebook's Python kernel holds them:"
"""The line that opens the descriptions appended to a prompt."""

MAX_DESCRIPTION_CHARS = 2_000
"""At most this many characters describe one variable."""

MAX_CONTEXT_CHARS = 8_000
"""At most this many characters of descriptions are added to one prompt."""

HEAD_ROWS = 5
"""Rows of a DataFrame (or values of a Series) shown."""

MAX_COLUMNS = 30
"""Columns whose dtype is listed; the rest are counted."""

MAX_VARIABLES = 1_000
"""Variables offered for completion at most (a namespace can hold many more)."""

# A mention: "@" not glued to a word (an e-mail address) and a bare name not followed by
# what makes it a path or an attribute ("@src/main.py", "@df.columns").
_MENTION = re.compile(r"(?<![\w@.`])@([A-Za-z_]\w*)(?![\w/\\-]|\.\w)")
# Code is quoted as written: fenced blocks and inline code spans.
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)

_SECRET_NAME = re.compile(r"key|token|secret|passw(?:or)?d|credential", re.IGNORECASE)
# Strings shaped like the credentials people keep in notebooks.
_CREDENTIAL = re.compile(
    "|".join(
        [
            r"\bsk-[A-Za-z0-9_-]{16,}",  # model API keys
            r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # code host tokens
            r"\bgithub_pat_[A-Za-z0-9_]{20,}",
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # cloud access key ids
            r"\bAIza[0-9A-Za-z_-]{35}",  # cloud API keys
            r"\bxox[abprs]-[A-Za-z0-9-]{10,}",  # chat bot tokens
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWTs
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
            r"(?i:\bbearer\s+[A-Za-z0-9._~+/=-]{16,})",
            r"(?i:(?:password|passwd|secret|token|api[_-]?key)['\"]?\s*[:=]\s*['\"]?[^\s'\",}]{4,})",
            r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@",  # URLs with a password
        ]
    )
)

_SKIPPED_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})
"""What IPython puts into every namespace: never the user's data."""

_repr = reprlib.Repr()
_repr.maxstring = 200
_repr.maxother = 200
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxdict = 10
_repr.maxlevel = 3


@dataclass(frozen=True)
class VariableInfo:
    """A variable the composer offers after ``@``: its name and kind, never its value.

    Examples
    --------
    >>> list_variables({"rows": [1, 2, 3], "_hidden": 1, "token": "x"})
    [VariableInfo(name='rows', type='list', size='3 items', secret=False), \
VariableInfo(name='token', type='str', size='1 character', secret=True)]
    """

    name: str
    type: str
    """The value's type, short: ``DataFrame``, ``ndarray``, ``int``."""
    size: str
    """Its shape or length where it has one (``100 × 3``, ``12 items``), else ``""``."""
    secret: bool
    """Whether its name looks like a secret (it will not be expanded)."""

    def to_json(self) -> dict[str, Any]:
        """The completion entry as the front end takes it."""
        return {"name": self.name, "type": self.type, "size": self.size, "secret": self.secret}


def looks_secret(text: str) -> bool:
    """Whether ``text`` holds something shaped like a credential.

    Examples
    --------
    >>> looks_secret("key = 'sk-ant-abcdefghijklmnopqrstuvwx'"), looks_secret("x = 3")
    (True, False)
    >>> looks_secret("postgres://me:hunter2@db.local/x")
    True
    """
    return _CREDENTIAL.search(text) is not None


def mentions(text: str) -> list[str]:
    """The names ``text`` mentions with ``@``, first mention first, each once; code is skipped.

    Examples
    --------
    >>> mentions("plot @df by @col, then @df again; not `@x`, not a@b.c, not @src/main.py")
    ['df', 'col']
    """
    found: dict[str, None] = {}
    for start, end in _prose(text):
        for match in _MENTION.finditer(text, start, end):
            found.setdefault(match.group(1), None)
    return list(found)


def _prose(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` outside code, as (start, end) pairs."""
    spans, at = [], 0
    for code in _CODE.finditer(text):
        spans.append((at, code.start()))
        at = code.end()
    spans.append((at, len(text)))
    return spans


def expand(text: str, namespace: Mapping[str, object]) -> str:
    """``text`` with every ``@name`` that ``namespace`` holds described below it.

    Names the namespace does not hold stay as typed; a text that mentions none comes back
    unchanged. See the module's docstring for the format.
    """
    names = [name for name in mentions(text) if name in namespace]
    if not names:
        return text
    wanted = set(names)

    def quote(match: re.Match[str]) -> str:
        return f"`{match.group(1)}`" if match.group(1) in wanted else match.group(0)

    pieces, at = [], 0
    for start, end in _prose(text):
        pieces.append(text[at:start])  # code, as written
        pieces.append(_MENTION.sub(quote, text[start:end]))
        at = end
    described, used = [], 0
    for name in names:
        description = describe(name, namespace[name])
        if used + len(description) > MAX_CONTEXT_CHARS:
            description = (
                f"`{name}`: left out: a prompt carries at most {MAX_CONTEXT_CHARS} characters "
                "of variable descriptions."
            )
        used += len(description)
        described.append(description)
    return "\n\n".join(["".join(pieces).rstrip(), CONTEXT_HEADER, *described])


def describe(name: str, value: object) -> str:
    """A compact description of ``value`` under ``name``, at most ``MAX_DESCRIPTION_CHARS``.

    Examples
    --------
    >>> print(describe("xs", list(range(100))))
    `xs`: list of 100 items = [0, 1, 2, 3, 4, 5, ...]
    >>> print(describe("conf", {"user": "me", "password": "hunter22"}))
    `conf`: not expanded: its value looks like it holds a credential.
    """
    if _SECRET_NAME.search(name):
        return f"`{name}`: not expanded: its name looks like a secret."
    try:
        text = _describe_value(name, value)
    except _NotExpandedError as refused:
        return f"`{name}`: not expanded: {refused}."
    except Exception as exc:  # the value's own code failed: say so, never fail the prompt
        text = f"`{name}`: {_type_name(value)} (it could not be described: {type(exc).__name__})"
    if looks_secret(text):
        return f"`{name}`: not expanded: its value looks like it holds a credential."
    if len(text) > MAX_DESCRIPTION_CHARS:
        cut = text[: MAX_DESCRIPTION_CHARS - 40].rstrip()
        fence = "\n```" if cut.count("```") % 2 else ""  # close a block the cut left open
        text = f"{cut}{fence}\n(cut at {MAX_DESCRIPTION_CHARS} characters)"
    return text


class _NotExpandedError(Exception):
    """A value that must not be described; the message says why."""


def _type_name(value: object) -> str:
    kind = type(value)
    module = kind.__module__.split(".")[0]
    local = module in ("builtins", "__main__") or kind.__qualname__ != kind.__name__
    return kind.__name__ if local else f"{module} {kind.__name__}"


def _describe_value(name: str, value: object) -> str:
    label = f"`{name}`: {_type_name(value)}"
    for matches, describer in _DESCRIBERS:
        if matches(value):
            return describer(label, value)
    return _describe_other(label, value)


def _is_frame(value: object) -> bool:
    shape = getattr(value, "shape", None)
    return (
        isinstance(shape, tuple)
        and len(shape) == 2
        and all(hasattr(value, a) for a in ("columns", "dtypes", "head"))
    )


def _is_series(value: object) -> bool:
    shape = getattr(value, "shape", None)
    return (
        isinstance(shape, tuple)
        and len(shape) == 1
        and all(hasattr(value, a) for a in ("dtype", "head", "index"))
    )


def _is_array(value: object) -> bool:
    return isinstance(getattr(value, "shape", None), tuple) and hasattr(value, "dtype")


def _fenced(text: str) -> str:
    return f"```text\n{text.rstrip()}\n```"


def _describe_frame(label: str, frame: Any) -> str:
    rows, cols = frame.shape
    columns = [str(c) for c in frame.columns]
    secret = next((c for c in columns if _SECRET_NAME.search(c)), None)
    if secret is not None:
        raise _NotExpandedError(f"it has a column named like a secret ({secret!r})")
    dtypes = frame.dtypes
    pairs = (
        list(dtypes.items())
        if hasattr(dtypes, "items")
        else list(zip(columns, dtypes, strict=False))
    )
    listed = ", ".join(f"{c} {t}" for c, t in pairs[:MAX_COLUMNS])
    if len(pairs) > MAX_COLUMNS:
        listed += f", … ({len(pairs) - MAX_COLUMNS} more)"
    head = frame.head(HEAD_ROWS)
    to_string = getattr(head, "to_string", None)
    table = (
        to_string(max_cols=12, max_colwidth=40, line_width=100)
        if callable(to_string)
        else str(head)
    )
    shown = min(rows, HEAD_ROWS)
    return f"{label}, {rows} rows × {cols} columns\n" + _fenced(
        f"columns: {listed}\nfirst {shown} rows:\n{table}"
    )


def _describe_series(label: str, series: Any) -> str:
    name = getattr(series, "name", None)
    named = f" {name!r}" if name is not None else ""
    if name is not None and _SECRET_NAME.search(str(name)):
        raise _NotExpandedError(f"it is named like a secret ({name!r})")
    (length,) = series.shape
    head = series.head(HEAD_ROWS)
    to_string = getattr(head, "to_string", None)
    values = to_string(max_rows=HEAD_ROWS) if callable(to_string) else str(head)
    shown = min(length, HEAD_ROWS)
    return f"{label}{named}, {length} values, dtype {series.dtype}\n" + _fenced(
        f"first {shown} values:\n{values}"
    )


def _describe_array(label: str, array: Any) -> str:
    return f"{label}, shape {tuple(int(n) for n in array.shape)}, dtype {array.dtype}"


def _describe_routine(label: str, value: Any) -> str:
    try:
        signature = str(inspect.signature(value))
    except (TypeError, ValueError):
        signature = "(...)"
    doc = (inspect.getdoc(value) or "").strip().splitlines()
    summary = f": {doc[0]}" if doc else ""
    return f"{label} {getattr(value, '__name__', '')}{signature}{summary}"


def _describe_module(label: str, value: Any) -> str:
    return f"{label} {value.__name__}"


_PLAIN = (list, tuple, set, frozenset, dict, str, bytes, int, float, complex, bool, type(None))
_MAX_REPR = 1_500


def _describe_other(label: str, value: object) -> str:
    size = ""
    if isinstance(value, list | tuple | set | frozenset | dict):
        size = f" of {len(value)} items"
    elif isinstance(value, str | bytes):
        size = f" of {len(value)} characters" if len(value) > 60 else ""
    if isinstance(value, _PLAIN):
        shown = _repr.repr(value)  # bounded however large the container
    else:
        shown = repr(value)  # an object's own repr says best what it is (a fitted model...)
        if len(shown) > _MAX_REPR:
            shown = shown[:_MAX_REPR].rstrip() + " …"
    if "\n" in shown:
        return f"{label}{size}\n" + _fenced(shown)
    return f"{label}{size} = {shown}"


_DESCRIBERS: list[tuple[Callable[[object], bool], Callable[[str, Any], str]]] = [
    (_is_frame, _describe_frame),
    (_is_series, _describe_series),
    (_is_array, _describe_array),
    (lambda v: isinstance(v, types.ModuleType), _describe_module),
    (lambda v: inspect.isroutine(v) or inspect.isclass(v), _describe_routine),
]


def _size(value: object) -> str:
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
        return " × ".join(str(n) for n in shape)
    if isinstance(value, str | bytes):
        return f"{len(value)} character{'' if len(value) == 1 else 's'}"
    if isinstance(value, list | tuple | set | frozenset | dict):
        return f"{len(value)} items"
    return ""


def list_variables(namespace: Mapping[str, object]) -> list[VariableInfo]:
    """The data variables of ``namespace`` by name: no modules, functions, classes or
    IPython's own names, nothing starting with ``_``; at most ``MAX_VARIABLES``.
    """
    found = []
    for name, value in sorted(dict(namespace).items()):
        if name.startswith("_") or name in _SKIPPED_NAMES or not name.isidentifier():
            continue
        if (
            isinstance(value, types.ModuleType)
            or inspect.isroutine(value)
            or inspect.isclass(value)
        ):
            continue
        try:
            size = _size(value)
        except Exception:  # a property of the value's own code failed: no size, still offered
            size = ""
        kind = type(value).__qualname__
        found.append(VariableInfo(name, kind, size, _SECRET_NAME.search(name) is not None))
        if len(found) >= MAX_VARIABLES:
            break
    return found


def kernel_namespace() -> Mapping[str, object] | None:
    """The namespace of the IPython kernel this code runs in (the notebook's variables), or
    ``None`` outside IPython.
    """
    try:
        from IPython import get_ipython  # noqa: PLC0415 (only where IPython runs)
    except ImportError:
        return None
    shell = get_ipython()
    namespace = getattr(shell, "user_ns", None) if shell is not None else None
    return namespace if isinstance(namespace, Mapping) else None
