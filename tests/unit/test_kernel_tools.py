"""Unit: the ``kernel`` MCP server's tools against a real IPython kernel, through the real
server process over stdio, as an agent's CLI starts it."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

import lab_widget
from lab_widget import Run
from lab_widget._chat._begun import BegunCall, BegunCalls
from lab_widget._kernel import kernel_tool_server, this_kernel_connection_file
from lab_widget._kernel._desk import Desk, desk_folder
from lab_widget._kernel._notebook import cells_text
from lab_widget._kernel._server import DEFAULT_TIMEOUT, DEFAULT_WAIT
from lab_widget._kernel._spec import CALL_TIMEOUT
from lab_widget.compat import PINS
from lab_widget.errors import KernelToolsError, RemoteKernelToolsError
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, get_provider
from tests.support.kernels import fresh_client, running_kernel, user_value
from tests.support.paths import ROOT
from tests.support.waiting import retry_until

README = ROOT / "README.md"


@pytest.fixture(scope="module")
def kernel() -> Iterator[KernelManager]:
    with running_kernel(
        "import pandas as pd\n"
        "df = pd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']})\n"
        "api_key = 'sk-live-abcdefghijklmnopqrstuv'\n"
        "rows = [1, 2, 3, 4]"
    ) as manager:
        yield manager


def call(
    kernel: KernelManager,
    tool: str,
    arguments: dict[str, Any],
    *extra: str,
    run_id: str | None = None,
    calls: Path | None = None,
) -> Any:
    spec = kernel_tool_server(Path(kernel.connection_file))
    if run_id is not None or calls is not None:
        spec = spec.for_run(run_id or "r", calls)
    params = StdioServerParameters(
        command=spec.command[0], args=[*spec.command[1:], *extra], env=dict(spec.env)
    )

    async def go() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(go())


@contextmanager
def cell_running(
    kernel: KernelManager, release: Path, *, before: str = "", each: str = "", after: str = ""
) -> Iterator[None]:
    """A user's cell that runs (``before``, then ``each`` in a loop, then ``after``) until
    the block ends and creates ``release``.
    """
    client = fresh_client(kernel)
    loop = f"while not __import__('os').path.exists({str(release)!r}):\n"
    loop += f"    {each or 'pass'}\n    __import__('time').sleep(0.05)\n"
    client.execute(before + loop + after)
    try:
        yield
    finally:
        release.touch()
        client.stop_channels()


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def test_run_python_sets_a_variable_in_the_users_namespace(kernel: KernelManager) -> None:
    result = call(kernel, "run_python", {"code": "x = len(df)\nprint('rows', x)\nx * 2"})
    assert not result.is_error
    assert "stdout:\nrows 3" in text_of(result)
    assert "result: 6" in text_of(result)
    assert user_value(kernel, "x") == "3"


def test_an_exception_comes_back_as_an_error_with_its_traceback(kernel: KernelManager) -> None:
    result = call(kernel, "run_python", {"code": "1 / 0"})
    assert result.is_error
    assert "ZeroDivisionError: division by zero" in text_of(result)
    assert "\x1b[" not in text_of(result)


def test_a_png_comes_back_as_image_content(kernel: KernelManager) -> None:
    code = (
        "import base64\nfrom IPython.display import Image, display\n"
        "display(Image(data=base64.b64decode("
        "'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==')))"
    )
    result = call(kernel, "run_python", {"code": code})
    images = [c for c in result.content if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"


def test_list_variables_hides_secret_looking_names(kernel: KernelManager) -> None:
    listed = text_of(call(kernel, "list_variables", {}))
    assert "df: DataFrame, 3 × 2" in listed
    assert "rows: list, 4 items" in listed
    assert "api_key: str (secret-looking name: not described)" in listed
    assert "sk-live" not in listed


def test_describe_sends_what_a_mention_sends(kernel: KernelManager) -> None:
    described = text_of(call(kernel, "describe", {"name": "df"}))
    assert described.startswith("`df`: pandas DataFrame, 3 rows × 2 columns")
    assert "not expanded: its name looks like a secret" in text_of(
        call(kernel, "describe", {"name": "api_key"})
    )
    assert "is not defined" in text_of(call(kernel, "describe", {"name": "nope"}))


def test_a_running_cell_makes_the_call_wait_then_give_up(
    kernel: KernelManager, tmp_path: Path
) -> None:
    # The user's cell runs until the test lets it end: however slow the server starts.
    with cell_running(kernel, tmp_path / "release", after="waited = 1"):
        result = call(kernel, "run_python", {"code": "ran = 1"}, "--wait", "3")
        assert result.is_error
        assert "still running a cell after 3 s; nothing was run" in text_of(result)
    # The user's cell finished; the agent's code never ran.
    assert user_value(kernel, "waited") == "1"
    assert user_value(kernel, "'ran' in globals()") == "False"


def test_a_cell_waiting_on_a_run_runs_the_calls_left_on_its_desk(
    kernel: KernelManager, tmp_path: Path
) -> None:
    # What run.wait() does in a kernel whose run has the kernel's tools: serve the desk.
    serving = (
        "from lab_widget._kernel import this_kernel_connection_file\n"
        "from lab_widget._kernel._desk import Desk, desk_folder\n"
        "desk = Desk(desk_folder(this_kernel_connection_file().resolve()))\n"
    )
    with cell_running(kernel, tmp_path / "release", before=serving, each="desk.serve(globals())"):
        ran = call(
            kernel, "run_python", {"code": "served = len(df)\nprint('rows', served)\nserved"}
        )
        failed = call(kernel, "run_python", {"code": "1 / 0"})
        described = text_of(call(kernel, "describe", {"name": "df"}))
    assert not ran.is_error and text_of(ran) == "stdout:\nrows 3\n\nresult: 3"
    assert failed.is_error and "ZeroDivisionError: division by zero" in text_of(failed)
    assert "_desk.py" not in text_of(failed)  # the traceback is the agent's code alone
    assert described.startswith("`df`: pandas DataFrame, 3 rows × 2 columns")
    assert user_value(kernel, "served") == "3"
    desk = desk_folder(Path(kernel.connection_file).resolve())
    assert list(desk.iterdir()) == []


def test_a_call_is_noted_for_the_run_while_it_runs(kernel: KernelManager, tmp_path: Path) -> None:
    # The note is how a run learns that the approval it shows was given (see _chat._begun).
    release = tmp_path / "release"
    code = f"while not __import__('os').path.exists({str(release)!r}):\n    pass\nnoted = 1"
    calls = BegunCalls(tmp_path / "calls")
    done: list[Any] = []
    caller = threading.Thread(
        target=lambda: done.append(call(kernel, "run_python", {"code": code}, calls=calls.folder))
    )
    caller.start()
    try:
        assert retry_until(lambda: bool(calls.read()), 60)
        assert calls.read() == [BegunCall("kernel", "run_python", {"code": code})]
    finally:
        release.touch()
        caller.join(60)
    assert done and not done[0].is_error
    assert calls.read() == []
    call(kernel, "describe", {"name": "df"}, calls=calls.folder)
    assert list(calls.folder.iterdir()) == []  # reading tools are not approved: not noted


def test_a_call_is_run_by_the_waiting_cell_or_withdrawn_never_both(tmp_path: Path) -> None:
    desk = Desk(tmp_path / "desk")
    namespace: dict[str, Any] = {"runs": 0}
    withdrawals = 0
    for _ in range(50):
        call_id = desk.deposit("runs += 1")
        cell = threading.Thread(target=desk.serve, args=(namespace,))
        cell.start()
        withdrawn = desk.withdraw(call_id)
        cell.join()
        assert withdrawn == (desk.result(call_id) is None)
        withdrawals += withdrawn
    assert namespace["runs"] == 50 - withdrawals
    assert list((tmp_path / "desk").iterdir()) == []


def test_a_short_cell_is_waited_for_and_runs_in_order(kernel: KernelManager) -> None:
    client = fresh_client(kernel)
    client.execute("import time; time.sleep(3); order = ['user']")
    try:
        result = call(kernel, "run_python", {"code": "order.append('agent')"})
    finally:
        client.stop_channels()
    assert not result.is_error
    assert user_value(kernel, "order") == "['user', 'agent']"


def test_notebook_cells_without_a_notebook_says_so(kernel: KernelManager) -> None:
    result = call(kernel, "notebook_cells", {})
    assert result.is_error and "serves no notebook" in text_of(result)


def test_notebook_cells_reads_the_saved_notebook(kernel: KernelManager, tmp_path: Path) -> None:
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "x = 1"}]}))
    result = call(kernel, "notebook_cells", {}, "--notebook", str(path))
    assert text_of(result) == cells_text(path) == "[1] code:\nx = 1"


def test_insert_cell_goes_to_the_runs_chat_in_the_kernel(kernel: KernelManager) -> None:
    # The run's chat view takes the cells (Run.view registers it); here a stand-in in the
    # kernel that records them.
    client = fresh_client(kernel)
    try:
        reply = client.execute_interactive(
            "from lab_widget._kernel import take_cells\n"
            "class Chat:\n"
            "    cells = []\n"
            "    def insert_cell(self, code): self.cells.append(code)\n"
            "chat = Chat()\n"
            "take_cells('run-1', chat)",
            timeout=120,
            output_hook=lambda m: None,
        )
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()
    inserted = call(kernel, "insert_cell", {"code": "df.describe()"}, run_id="run-1")
    assert not inserted.is_error and "insert the cell below the chat" in text_of(inserted)
    assert user_value(kernel, "chat.cells") == "['df.describe()']"
    # Another run's chat is not shown here; a server without a run cannot say where.
    elsewhere = call(kernel, "insert_cell", {"code": "x"}, run_id="run-2")
    assert "Not inserted: the run's chat is not shown" in text_of(elsewhere)
    unknown = call(kernel, "insert_cell", {"code": "x"})
    assert unknown.is_error and "Not available" in text_of(unknown)
    assert user_value(kernel, "chat.cells") == "['df.describe()']"


def test_no_connection_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(KernelToolsError, match="no kernel connection file"):
        kernel_tool_server(tmp_path / "missing.json")


def test_outside_a_kernel_kernel_true_is_a_typed_error() -> None:
    with pytest.raises(KernelToolsError, match="needs a Jupyter kernel"):
        this_kernel_connection_file()


def test_a_provider_that_cannot_take_tool_servers_is_refused_before_it_starts(
    kernel: KernelManager, lab_home: Path, workdir: Path
) -> None:
    with pytest.raises(KernelToolsError, match="cannot be given the kernel's tools yet"):
        Run("fake", cwd=workdir, kernel=kernel.connection_file)
    assert lab_widget.runs() == []


def test_kernel_tools_are_refused_on_another_host(kernel: KernelManager, workdir: Path) -> None:
    with pytest.raises(RemoteKernelToolsError, match="with this machine's files"):
        Run("fake", cwd=workdir, host="ssh://me@box", kernel=kernel.connection_file)
    # Allowing one host allows that host only.
    with pytest.raises(RemoteKernelToolsError, match="kernel_host='ssh://me@box'"):
        Run(
            "fake",
            cwd=workdir,
            host="ssh://me@box",
            kernel=kernel.connection_file,
            kernel_host="ssh://me@other",
        )


def test_a_kernel_whose_ports_cannot_travel_is_refused_for_another_host(
    tmp_path: Path, workdir: Path
) -> None:
    ipc = tmp_path / "kernel-ipc.json"
    ipc.write_text(json.dumps({"transport": "ipc", "ip": "/tmp/k", "shell_port": 1}))
    with pytest.raises(KernelToolsError, match="over TCP"):
        Run("fake", cwd=workdir, host="ssh://me@box", kernel=ipc, kernel_host="ssh://me@box")
    with pytest.raises(KernelToolsError, match="cannot read"):
        Run(
            "fake",
            cwd=workdir,
            host="ssh://me@box",
            kernel=tmp_path / "missing.json",
            kernel_host="ssh://me@box",
        )


def test_the_readme_table_says_which_providers_take_kernel_tools() -> None:
    table = README.read_text().split("| Provider id |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|") for line in table.splitlines() if line.startswith("| `")]
    said = {cells[1].strip(" `"): cells[6].strip() for cells in rows}
    caps = {pid: get_provider(pid).capabilities().tool_servers for pid in PINS}
    assert said == {pid: "yes" if can else "not yet" for pid, can in caps.items()}
    assert caps["claude-code"]


def test_a_mode_that_never_asks_is_refused_with_kernel_tools(
    kernel: KernelManager, tmp_path: Path
) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    request = SpawnRequest(
        context=context,
        binary=Path("claude"),
        endpoint=Endpoint("http://127.0.0.1:1", "k"),
        options={"permission_mode": "bypassPermissions"},
        tool_servers=(kernel_tool_server(Path(kernel.connection_file)),),
    )
    with pytest.raises(KernelToolsError, match="bypassPermissions"):
        get_provider("claude-code").plan_spawn(request)
    # The same run without the kernel's tools may bypass: it is the user's choice.
    get_provider("claude-code").plan_spawn(replace(request, tool_servers=()))


def test_the_cli_is_told_to_wait_longer_than_the_server_can_take() -> None:
    # A CLI that gave up first would report a failure while the code ran on in the kernel.
    assert CALL_TIMEOUT > DEFAULT_WAIT + DEFAULT_TIMEOUT
