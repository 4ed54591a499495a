r"""Calls handed to a cell that waits on a run: the way an approved ``run_python`` reaches the
kernel while the kernel's main thread is busy waiting for that very run.

A kernel runs one execute request at a time. A cell that blocks in ``run.wait()`` or
``run.answer()`` holds the kernel's main thread, so code the server sends on the shell
channel would queue behind the cell that waits for it. Instead the server leaves the call on
the kernel's desk, a folder beside its connection file, and the waiting cell takes it and
runs it on the main thread it already holds (:meth:`Desk.serve`).

Who runs a call is decided by one rename: the waiting cell takes ``<id>.call`` by renaming
it to ``<id>.taken``; the server withdraws it, once the kernel is free again or its wait
ran out, by renaming it to ``<id>.withdrawn``. Only one rename of the same file succeeds,
so a call never runs twice and never runs after the server gave up on it. The result comes
back as ``<id>.done``, written whole before it appears.

Examples
--------
>>> import tempfile
>>> desk = Desk(Path(tempfile.mkdtemp()) / "desk")
>>> call = desk.deposit("print(6 * 7)")
>>> desk.serve({})
1
>>> desk.result(call)["stdout"]
'42\n'
>>> desk.withdraw(desk.deposit("1 / 0"))
True
>>> desk.serve({})
0
"""

from __future__ import annotations

import ast
import base64
import contextlib
import io
import json
import time
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import KernelToolsError
from ._spec import this_kernel_connection_file

__all__ = ["Desk", "desk_folder", "run_code", "waiting_cell_chore"]

_CALL = ".call"
_TAKEN = ".taken"
_DONE = ".done"
_WITHDRAWN = ".withdrawn"


def desk_folder(connection_file: Path) -> Path:
    """The desk of the kernel with ``connection_file``: a hidden folder beside that file.

    Examples
    --------
    >>> desk_folder(Path("/run/jupyter/kernel-1a.json")).as_posix()
    '/run/jupyter/.kernel-1a.lab-widget-desk'
    """
    return connection_file.with_name(f".{connection_file.stem}.lab-widget-desk")


def waiting_cell_chore(connection_file: Path | None) -> Callable[[], object] | None:
    """What a wait of this kernel's main thread does between its looks, for a run whose
    ``kernel`` server reaches ``connection_file`` (``None``: this kernel): serve this
    kernel's desk. ``None`` when that kernel is another one, or this is no kernel.
    """
    try:
        here = this_kernel_connection_file().resolve()
    except KernelToolsError:
        return None
    if connection_file is not None and Path(connection_file).resolve() != here:
        return None
    shell = _shell()
    if shell is None:
        return None
    desk = Desk(desk_folder(here))
    return lambda: desk.serve(shell.user_ns)


class Desk:
    """The calls left for one kernel's waiting cells, in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    # -- the server's side -------------------------------------------------------------

    def deposit(self, code: str) -> str:
        """Leave ``code`` to run; returns the call's id."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        call = uuid.uuid4().hex
        _write_whole(self.folder / f"{call}{_CALL}", json.dumps({"code": code}))
        return call

    def withdraw(self, call: str) -> bool:
        """Take ``call`` back before any cell took it; False once one has (it runs there)."""
        try:
            (self.folder / f"{call}{_CALL}").rename(self.folder / f"{call}{_WITHDRAWN}")
        except FileNotFoundError:
            return False
        (self.folder / f"{call}{_WITHDRAWN}").unlink(missing_ok=True)
        return True

    def taken(self, call: str) -> bool:
        """Whether a waiting cell took ``call`` (it runs, or ran)."""
        return not (self.folder / f"{call}{_CALL}").exists()

    def result(self, call: str) -> dict[str, Any] | None:
        """What running ``call`` gave (the fields of an execution), once it is done; read
        once, then gone.
        """
        done = self.folder / f"{call}{_DONE}"
        try:
            found: dict[str, Any] = json.loads(done.read_text())
        except FileNotFoundError:
            return None
        done.unlink(missing_ok=True)
        return found

    def wait_result(self, call: str, timeout: float) -> dict[str, Any] | None:
        """:meth:`result`, waiting at most ``timeout`` seconds for it."""
        deadline = time.monotonic() + timeout
        while (found := self.result(call)) is None:
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)
        return found

    # -- the waiting cell's side -------------------------------------------------------

    def serve(self, namespace: dict[str, Any]) -> int:
        """Run every call left on the desk in ``namespace``, oldest first; returns how many
        ran. Called on the kernel's main thread by a cell that waits on a run.
        """
        try:
            waiting = sorted(self.folder.glob(f"*{_CALL}"), key=_age)
        except OSError:
            return 0
        ran = 0
        for path in waiting:
            taken = path.with_suffix(_TAKEN)
            try:
                path.rename(taken)
            except FileNotFoundError:
                continue  # withdrawn by the server, or taken by another waiting cell
            try:
                code = str(json.loads(taken.read_text()).get("code", ""))
            except (OSError, ValueError) as exc:
                done = {"error": f"the call could not be read: {exc}"}
            else:
                done = run_code(code, namespace)
            _write_whole(path.with_suffix(_DONE), json.dumps(done))
            taken.unlink(missing_ok=True)
            ran += 1
        return ran


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _write_whole(path: Path, text: str) -> None:
    # Written aside, then renamed: a reader sees the whole file or none.
    partial = path.with_name(f"{path.name}.partial")
    partial.write_text(text)
    partial.replace(path)


def run_code(code: str, namespace: dict[str, Any]) -> dict[str, Any]:
    r"""Run ``code`` in ``namespace`` as a cell runs it (the last expression's value is its
    result), with its output caught rather than shown in the cell that waits.

    Returns the fields of :class:`~._link.Execution`: ``stdout``, ``stderr``, ``result``,
    ``error`` and ``images`` (base64 PNGs displayed).

    Examples
    --------
    >>> ns = {}
    >>> run_code("x = 7\nx * 6", ns)["result"], ns["x"]
    ('42', 7)
    >>> run_code("undefined_name", ns)["error"].splitlines()[0]
    "NameError: name 'undefined_name' is not defined"
    """
    stdout, stderr = io.StringIO(), io.StringIO()
    done: dict[str, Any] = {"stdout": "", "stderr": "", "result": None, "error": None}
    images: list[str] = []
    with (
        _captured_displays(images),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        try:
            value = _run(code, namespace)
            if value is not None:
                done["result"], image = _formatted(value)
                if image is not None:
                    images.append(image)
        except Exception as exc:
            lines = traceback.format_exception(exc)
            # The frames of this module say nothing about the agent's code.
            shown = [line for line in lines if __file__ not in line]
            done["error"] = f"{type(exc).__name__}: {exc}\n{''.join(shown).rstrip()}"
    done["stdout"], done["stderr"], done["images"] = stdout.getvalue(), stderr.getvalue(), images
    return done


def _run(code: str, namespace: dict[str, Any]) -> object:
    tree = ast.parse(code, "<agent>", "exec")
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        tree.body.pop()
        exec(compile(tree, "<agent>", "exec"), namespace)
        expression = ast.Expression(last.value)
        return eval(compile(expression, "<agent>", "eval"), namespace)
    exec(compile(tree, "<agent>", "exec"), namespace)
    return None


def _formatted(value: object) -> tuple[str, str | None]:
    """The value's text, and its PNG when IPython renders one (a figure)."""
    shell = _shell()
    if shell is None:
        return repr(value), None
    data, _ = shell.display_formatter.format(value)
    png = data.get("image/png")
    return str(data.get("text/plain", repr(value))), png if isinstance(png, str) else None


def _shell() -> Any:
    try:
        from IPython import get_ipython  # noqa: PLC0415 (present in kernels)
    except ImportError:
        return None
    return get_ipython()


@contextlib.contextmanager
def _captured_displays(images: list[str]) -> Any:
    """Catch what the code displays (a plot's PNG) instead of showing it in the waiting
    cell; without an IPython shell there is nothing to catch.
    """
    shell = _shell()
    if shell is None:
        yield
        return
    publisher = shell.display_pub
    original = publisher.publish

    def publish(data: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        png = data.get("image/png")
        if isinstance(png, (str, bytes)):
            images.append(png if isinstance(png, str) else base64.b64encode(png).decode())

    publisher.publish = publish
    try:
        yield
    finally:
        publisher.publish = original
