"""The IPython extension: ``%load_ext lab_widget``, then ``%%agent`` and ``%agent``.

``%%agent [target] [--provider ID] [--cwd DIR] [--host HOST] [--kernel] [--kernel-host HOST]
[--wait [SECONDS]]`` sends the
cell body to a run and displays its view. ``target`` is, in order: a :class:`~lab_widget.Run`
bound to that name in the notebook, a live run with that id, or a new run created under that
name with the default provider (or ``--provider``). Without a target the cell goes to the run
the previous ``%%agent`` cell used, or to a new one. ``--host`` puts a new run on another host:
a :class:`~lab_widget.Host` bound to that name in the notebook, or a host string
(``ssh://me@box``). ``--kernel`` gives a new run this notebook's kernel as tools
(``Run(..., kernel=True)``): every piece of code the agent wants to run there is approved in the
chat first. With ``--host`` it needs ``--kernel-host`` naming the same host (``kernel_host=``).

``@name`` in the cell mentions the notebook's variable ``name``: it reaches the agent described,
as with ``run.send(text, context=globals())`` (see :meth:`~lab_widget.Run.send`).

``%agent`` lists the live runs; ``%agent NAME`` shows one; ``%agent stop NAME`` stops one.

User mistakes (an unknown provider, a run that has ended, a bad flag) come back as one short
line, never a traceback: they are raised as IPython's ``UsageError``.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from ._chat._mentions import expand
from ._remote._transports import Host
from ._run._run import Run
from ._run._runs import runs
from .errors import LabWidgetError

__all__ = ["AgentMagics", "load_ipython_extension"]


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:  # an unbalanced quote
        raise UsageError(f"%agent: {exc}") from None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the kernel's process
        raise UsageError(f"%%agent: {message}\n{self.format_usage().strip()}")


def _parser() -> _Parser:
    parser = _Parser(prog="%%agent", add_help=False)
    parser.add_argument("target", nargs="?", help="a Run variable, a run id or a new name")
    parser.add_argument("--provider", "-p", help="provider id for a new run")
    parser.add_argument("--cwd", "-d", default=".", help="folder for a new run")
    parser.add_argument("--host", "-H", help="a Host variable or host string for a new run")
    parser.add_argument(
        "--kernel",
        "-k",
        action="store_true",
        help="give a new run this notebook's kernel as tools (each run_python approved first)",
    )
    parser.add_argument(
        "--kernel-host",
        help="with --host and --kernel: that same host, allowed to run code in this kernel",
    )
    parser.add_argument(
        "--wait",
        "-w",
        nargs="?",
        type=float,
        const=300.0,
        default=None,
        metavar="SECONDS",
        help="block until the agent is done (default 300 s)",
    )
    return parser


@magics_class
class AgentMagics(Magics):
    """``%agent`` / ``%%agent``: talk to agent runs from notebook cells."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self._last: Run | None = None

    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> Any:
        """Send a cell to an agent run (cell magic) or list / show / stop runs (line)."""
        try:
            if cell is None:
                return self._line(line)
            self._cell(line, cell)
        except LabWidgetError as exc:
            raise UsageError(f"%%agent: {exc}") from None
        return None

    # -- %agent ---------------------------------------------------------------------------

    def _line(self, line: str) -> Any:
        words = _words(line)
        if not words:
            return runs()
        if words[0] == "stop":
            if len(words) != 2:
                raise UsageError("%agent stop: name the run to stop (`%agent stop NAME`)")
            run = self._find(words[1])
            if run is None:
                raise UsageError(f"%agent stop: no live run {words[1]!r}")
            run.stop()
            return None
        if len(words) != 1:
            raise UsageError("%agent takes nothing (list runs), NAME, or `stop NAME`")
        run = self._find(words[0])
        if run is None:
            raise UsageError(f"%agent: no live run {words[0]!r}; `%agent` lists them")
        return run

    # -- %%agent --------------------------------------------------------------------------

    def _cell(self, line: str, cell: str) -> None:
        args = _parser().parse_args(_words(line))
        text = cell.strip()
        if not text:
            raise UsageError("%%agent: the cell is empty; write the message below the magic")
        namespace = self.shell.user_ns if self.shell is not None else None
        # A new run starts with the cell as its first prompt (on the CLI's command line).
        first = expand(text, namespace) if namespace is not None else text
        run, started = self._target(args, first)
        if not started and run.state == "ended":
            raise UsageError(f"%%agent: run {run.id!r} has ended; start another with a new name")
        self._last = run
        display(run)  # type: ignore[no-untyped-call]
        if not started:
            run.send(text, context=namespace)
        if args.wait is not None:
            run.wait(timeout=args.wait)

    def _host(self, given: str | None) -> Host | str | None:
        """The host ``given`` names: a Host variable, or a host string."""
        bound = self.shell.user_ns.get(given) if self.shell is not None and given else None
        return bound if isinstance(bound, Host) else given

    def _target(self, args: argparse.Namespace, prompt: str) -> tuple[Run, bool]:
        """The run the cell goes to, and whether it was started here with ``prompt``."""
        name: str | None = args.target
        if name is None:
            if self._last is not None and self._last.state != "ended":
                return self._last, False
            # The magic holds its runs itself (the last one, or by name): a cell run again
            # goes on talking to them, so none is an earlier run to stop.
            run = Run(
                args.provider,
                cwd=args.cwd,
                host=self._host(args.host),
                prompt=prompt,
                kernel=args.kernel,
                kernel_host=self._host(args.kernel_host),
                rerun="keep",
            )
            return run, True
        bound = self.shell.user_ns.get(name) if self.shell is not None else None
        if isinstance(bound, Run):
            return bound, False
        found = self._find(name)
        if found is not None:
            return found, False
        run = Run(
            args.provider,
            cwd=args.cwd,
            name=name,
            host=self._host(args.host),
            prompt=prompt,
            kernel=args.kernel,
            kernel_host=self._host(args.kernel_host),
            rerun="keep",
        )
        if self.shell is not None and name.isidentifier():
            # Later cells and Python code reach it by the same name.
            self.shell.user_ns.setdefault(name, run)
        return run, True

    def _find(self, name: str) -> Run | None:
        bound = self.shell.user_ns.get(name) if self.shell is not None else None
        if isinstance(bound, Run):
            return bound
        return next((r for r in runs() if r.id == name), None)


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (``%load_ext lab_widget``)."""
    ipython.register_magics(AgentMagics)
