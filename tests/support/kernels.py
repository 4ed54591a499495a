"""A real IPython kernel for tests, started with ``jupyter_client`` as a notebook server
starts one, and a user's look into its namespace."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from lab_widget.provider import Endpoint, RunContext, SpawnRequest, ToolServer


@contextmanager
def running_kernel(setup: str = "") -> Iterator[KernelManager]:
    """A kernel that ran ``setup`` (the user's first cells), shut down afterwards."""
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel()
    try:
        # The manager's own client: it knows the kernel is alive from its process (a
        # fresh client judges by heartbeats, which a loaded machine may miss at start).
        client = manager.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=120)
            if setup:
                reply = client.execute_interactive(setup, timeout=120, output_hook=lambda m: None)
                assert reply["content"]["status"] == "ok", reply["content"]
        finally:
            client.stop_channels()
        yield manager
    finally:
        manager.shutdown_kernel(now=True)


def fresh_client(kernel: KernelManager) -> BlockingKernelClient:
    """A client with a session of its own, as a user's front end has: clients of one
    session share a socket identity, and replies would reach the wrong one.
    """
    client = BlockingKernelClient()
    client.load_connection_file(kernel.connection_file)
    client.start_channels()
    return client


def user_value(kernel: KernelManager, expression: str) -> str:
    """The text repr of ``expression`` in the user's namespace, as the user would see it."""
    client = fresh_client(kernel)
    try:
        reply = client.execute_interactive(
            "", user_expressions={"v": expression}, timeout=120, output_hook=lambda m: None
        )
    finally:
        client.stop_channels()
    found = reply["content"].get("user_expressions", {})
    assert "v" in found, reply["content"]
    value = found["v"]
    assert value.get("status") == "ok", value
    return str(value["data"]["text/plain"])


@dataclass(frozen=True)
class CellResult:
    """What a cell's execution printed, and how it ended."""

    status: str
    stdout: str
    stderr: str


def run_cell(kernel: KernelManager, code: str, cell_id: str, timeout: float = 180) -> CellResult:
    """Execute ``code`` as the notebook cell ``cell_id``, as JupyterLab sends it (the cell's
    id in the request's metadata; each execution a request of its own).
    """
    client = fresh_client(kernel)
    try:
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        msg = client.session.msg("execute_request", content, metadata={"cellId": cell_id})
        client.shell_channel.send(msg)
        out: dict[str, list[str]] = {"stdout": [], "stderr": []}
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"the cell did not finish in {timeout} s: {out}"
            got = client.get_iopub_msg(timeout=left)
            if got["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
                continue
            kind, body = got["msg_type"], got["content"]
            if kind == "stream":
                out[body["name"]].append(body["text"])
            elif kind == "error":
                out["stderr"].append("\n".join(body.get("traceback", [])))
            elif kind == "status" and body.get("execution_state") == "idle":
                break
        reply = client.get_shell_msg(timeout=max(1.0, deadline - time.monotonic()))
        return CellResult(
            reply["content"]["status"], "".join(out["stdout"]), "".join(out["stderr"])
        )
    finally:
        client.stop_channels()


TOOL_SERVER = ToolServer(
    "kernel", ("python", "-m", "k"), {"K": "1"}, asking=("run_python",), reading=("describe",)
)
"""A kernel server's record as a provider's spawn plan takes it (never started)."""


def tool_server_request(tmp_path: Path, binary: str, **options: object) -> SpawnRequest:
    """An isolated run's spawn request (an endpoint) with :data:`TOOL_SERVER`, its folder and
    runtime folder made under ``tmp_path``."""
    context = RunContext(run_id="r", cwd=tmp_path / "work", runtime_dir=tmp_path / "rt")
    context.cwd.mkdir(exist_ok=True)
    context.runtime_dir.mkdir(exist_ok=True)
    endpoint = Endpoint("http://127.0.0.1:5", "k")
    return SpawnRequest(
        context, Path(binary), endpoint=endpoint, options=options, tool_servers=(TOOL_SERVER,)
    )
