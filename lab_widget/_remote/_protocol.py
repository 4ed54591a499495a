"""The worker protocol: newline-delimited JSON over a pipe (stdio of ``python -m lab_widget
worker``, wherever a transport runs it).

Every line is one JSON object with a ``kind``:

- ``hello`` — each side's first line: ``protocol`` (:data:`PROTOCOL`), ``lab_widget`` (the
  package version), ``pins`` (provider id → pinned npm spec), and from the worker ``host``,
  ``user`` and ``python``. Either side refuses a peer whose three do not match its own
  (:func:`mismatch`); the worker then writes ``refused`` with the reason and exits.
- ``request`` — kernel → worker: ``id`` (unique on the connection), ``op``, ``run`` (the run
  id, for the ops on one run) and ``args``.
- ``result`` — worker → kernel, exactly once per request: ``id``, ``ok``, then ``value`` or
  ``error`` (:func:`error_json`), and ``warnings`` raised while it ran
  (``[{category, message}]``).
- ``event`` — worker → kernel, a run's change: ``run``, ``changed`` (messages, as
  :class:`~lab_widget.schema.Message` JSON), ``reset``, ``state``, ``transcript_id`` and
  ``facts`` (only what changed since the run's last event: ``state_reason``,
  ``needs_input_reason``, ``pending_dialog``, ``session``, ``commands``,
  ``transcript_path``, and on a reset ``past``, the conversation the clear ended).
- ``tcp`` — both ways, a forwarded connection: ``op`` (``open`` from the worker with the
  ``run`` it is for, ``data`` with base64 ``data``, ``close``) and ``conn``.

Ops: ``start``, ``adopt``, ``list``, ``release``, ``send``, ``wait``, ``answer``, ``clear``,
``interrupt``, ``accept``, ``stop``, ``messages`` (a snapshot), ``session``, ``dialogs``,
``commands``, ``history``, ``diff``, ``commit``, ``attach`` (the command that opens the
TUI on the host), ``screen``, ``ping``.
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from .. import errors
from .._chat._answers import FreeText
from .._version import __version__
from ..compat import PINS
from ..errors import RemoteError
from ..schema import DialogAnswer

__all__ = [
    "PROTOCOL",
    "decode",
    "decode_answer",
    "encode",
    "encode_answer",
    "error_from_json",
    "error_json",
    "hello",
    "mismatch",
]

PROTOCOL = 1
"""The protocol's version; a change a peer of the last version would misread bumps it."""

_BUILTIN_ERRORS: dict[str, type[Exception]] = {
    cls.__name__: cls
    for cls in (
        ValueError,
        TypeError,
        KeyError,
        LookupError,
        TimeoutError,
        FileNotFoundError,
        NotImplementedError,
        RuntimeError,
    )
}


def hello(**extra: object) -> dict[str, Any]:
    """The ``hello`` line of this side.

    Examples
    --------
    >>> line = hello()
    >>> line["kind"], line["protocol"], "claude-code" in line["pins"]
    ('hello', 1, True)
    """
    return {
        "kind": "hello",
        "protocol": PROTOCOL,
        "lab_widget": __version__,
        "pins": {pin.provider_id: pin.spec for pin in PINS.values()},
        "python": platform.python_version(),
        **extra,
    }


def mismatch(mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> list[str]:
    """What differs between two ``hello`` lines (empty when the peers fit).

    Examples
    --------
    >>> mismatch(hello(), hello())
    []
    >>> mismatch(hello(), {**hello(), "protocol": 0, "pins": {}})[0]
    'protocol 1 here, 0 there'
    """
    found: list[str] = []
    if theirs.get("kind") != "hello":
        return [f"expected a hello, got {str(dict(theirs))[:200]}"]
    for key in ("protocol", "lab_widget"):
        if mine.get(key) != theirs.get(key):
            found.append(f"{key} {mine.get(key)} here, {theirs.get(key)} there")
    pins, other = mine.get("pins") or {}, theirs.get("pins") or {}
    for provider in sorted({*pins, *other}):
        if pins.get(provider) != other.get(provider):
            found.append(
                f"{provider} pinned to {pins.get(provider) or 'nothing'} here, "
                f"{other.get(provider) or 'nothing'} there"
            )
    return found


def encode(message: Mapping[str, Any]) -> bytes:
    r"""One line of the protocol.

    Examples
    --------
    >>> encode({"kind": "result", "id": 1, "ok": True})
    b'{"kind":"result","id":1,"ok":true}\n'
    """
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS)


def decode(line: bytes) -> dict[str, Any]:
    r"""The message on ``line``; :class:`~lab_widget.errors.RemoteError` when it is none.

    Examples
    --------
    >>> decode(b'{"kind": "hello"}\n')
    {'kind': 'hello'}
    >>> decode(b"garbage")
    Traceback (most recent call last):
    ...
    lab_widget.errors.RemoteError: the peer sent a line that is not a protocol message: ...
    """
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
        raise RemoteError(f"the peer sent a line that is not a protocol message: {line[:200]!r}")
    return value


def _jsonable(value: object) -> bool:
    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True


def error_json(exc: BaseException) -> dict[str, Any]:
    """An exception as a result's ``error``: its class name, message and plain attributes.

    Examples
    --------
    >>> error_json(errors.WaitTimeoutError(5, "working"))["attrs"]
    {'timeout': 5, 'state': 'working'}
    """
    attrs = (
        {k: v for k, v in vars(exc).items() if not k.startswith("_") and _jsonable(v)}
        if hasattr(exc, "__dict__")
        else {}
    )
    return {"type": type(exc).__name__, "message": str(exc), "attrs": attrs}


def error_from_json(data: Mapping[str, Any], where: str) -> Exception:
    """The exception a result's ``error`` describes: the same lab_widget error class (or a
    builtin one) with the same message; anything else as :class:`RemoteError`.

    Examples
    --------
    >>> exc = error_from_json(error_json(errors.WaitTimeoutError(5, "working")), "host")
    >>> type(exc).__name__, str(exc), exc.state
    ('WaitTimeoutError', "the agent was still 'working' after 5 s", 'working')
    >>> error_from_json({"type": "ZeroDivisionError", "message": "boom"}, "host")
    RemoteError('ZeroDivisionError on host: boom')
    """
    name, message = str(data.get("type")), str(data.get("message"))
    cls = getattr(errors, name, None) if name in errors.__all__ else _BUILTIN_ERRORS.get(name)
    if not (isinstance(cls, type) and issubclass(cls, Exception)) or issubclass(cls, Warning):
        return RemoteError(f"{name} on {where}: {message}")
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    attrs = data.get("attrs")
    if isinstance(attrs, Mapping):
        with contextlib.suppress(AttributeError, TypeError):
            exc.__dict__.update(attrs)
    return exc


def warning_categories() -> dict[str, type[Warning]]:
    """The warning classes a result's ``warnings`` may name, by name."""
    found: dict[str, type[Warning]] = {"UserWarning": UserWarning}
    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type) and issubclass(value, Warning):
            found[name] = value
    return found


def strings(value: object) -> Sequence[str]:
    """``value`` when it is a list of strings, else nothing."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return []


def encode_answer(answer: object) -> object:
    """A user's answer (:data:`lab_widget._chat._answers.UserAnswer`) as JSON.

    Examples
    --------
    >>> from lab_widget import FreeText
    >>> encode_answer({"Database": ["SQLite", FreeText("or DuckDB")]})
    {'Database': ['SQLite', {'$free_text': 'or DuckDB'}]}
    >>> decode_answer(encode_answer({"Database": FreeText("x")}))
    {'Database': FreeText(text='x')}
    """
    if isinstance(answer, DialogAnswer):
        return {"$dialog_answer": answer.model_dump(mode="json")}
    if isinstance(answer, FreeText):
        return {"$free_text": answer.text}
    if isinstance(answer, str):
        return answer
    if isinstance(answer, Mapping):
        return {str(k): encode_answer(v) for k, v in answer.items()}
    if isinstance(answer, Sequence):
        return [encode_answer(v) for v in answer]
    raise TypeError(f"an answer cannot be a {type(answer).__name__}")


def decode_answer(value: object) -> Any:
    """Read back :func:`encode_answer`'s output."""
    if isinstance(value, dict):
        if "$dialog_answer" in value:
            return DialogAnswer.model_validate(value["$dialog_answer"])
        if "$free_text" in value:
            return FreeText(str(value["$free_text"]))
        return {str(k): decode_answer(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_answer(v) for v in value]
    if isinstance(value, str):
        return value
    raise TypeError(f"an answer cannot be a {type(value).__name__}")
