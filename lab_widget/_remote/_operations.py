"""The worker's requests on one run it serves, by name: acting on the agent and reading what
the mirror does not keep.

Each takes the :class:`~._hosted.Hosted` run and the request's arguments and returns the
result's value (JSON). Starting, adopting, re-reading, releasing and stopping a run change
what the worker serves: they are the :class:`~._worker.Worker`'s own.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from ..errors import RemoteError
from ._hosted import Hosted, commands_json, dialog_json
from ._pane import allowed
from ._protocol import decode_answer

__all__ = ["OPERATIONS"]

Operation = Callable[[Hosted, dict[str, Any]], object]


def _send(hosted: Hosted, args: dict[str, Any]) -> None:
    hosted.run.send(str(args["text"]), ready_timeout=float(args.get("ready_timeout", 60.0)))
    hosted.recheck_later()


def _wait(hosted: Hosted, args: dict[str, Any]) -> str:
    timeout = args.get("timeout")
    return hosted.run.wait(timeout=None if timeout is None else float(timeout))


def _answer(hosted: Hosted, args: dict[str, Any]) -> dict[str, Any]:
    dialog = hosted.run.answer(
        decode_answer(args["answers"]),
        feedback=args.get("feedback"),
        timeout=float(args.get("timeout", 60.0)),
    )
    return dialog.model_dump(mode="json", exclude_none=True)


def _clear(hosted: Hosted, _args: dict[str, Any]) -> None:
    hosted.run.clear()
    hosted.recheck_later()


def _tmux(hosted: Hosted, args: dict[str, Any]) -> str:
    # For the terminal view of the kernel: the run's own server, a few commands only.
    argv = [str(a) for a in args.get("argv") or []]
    if not allowed(argv):
        raise RemoteError(f"tmux {argv[:1]} is not a command the terminal view runs")
    data = args.get("data")
    raw = base64.b64decode(str(data)) if data is not None else None
    return hosted.run.pane.runner.tmux(*argv, data=raw)


OPERATIONS: dict[str, Operation] = {
    # acting
    "send": _send,
    "wait": _wait,
    "answer": _answer,
    "clear": _clear,
    "interrupt": lambda hosted, _args: hosted.run.interrupt(),
    "accept": lambda hosted, args: hosted.run.accept(timeout=float(args.get("timeout", 30.0))),
    "commit": lambda hosted, args: hosted.run.commit(str(args["message"])),
    "tmux": _tmux,
    # reading
    "session": lambda hosted, _args: hosted.run.session.model_dump(mode="json"),
    "dialogs": lambda hosted, _args: dialog_json(hosted.run.pending_dialog),
    "commands": lambda hosted, _args: commands_json(hosted.run.commands),
    "history": lambda hosted, _args: [c.model_dump(mode="json") for c in hosted.run.history()],
    "diff": lambda hosted, _args: hosted.run.diff(),
    "changes": lambda hosted, _args: hosted.run.workspace.changes(),
    "attach": lambda hosted, _args: hosted.run.attach_command,
    "screen": lambda hosted, _args: hosted.run.screen(),
}
"""The requests on one served run, by operation name."""
