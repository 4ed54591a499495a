"""Live: the real pinned Claude Code on another host, through the worker, against the scripted
model in this kernel: over a local stdio transport, and over real SSH to a second user."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget import Host, RemoteKernelToolsError, Reply, Rule, Run, ScriptedModel, ToolUse, runs
from lab_widget._chat._session import ChatEvent
from lab_widget._remote import _connection
from lab_widget._remote._backend import RemoteBackend
from lab_widget._runtime._pane_stream import PaneStream
from tests.support import sshd
from tests.support.kernel_calls import RUN_PYTHON, model_call
from tests.support.kernels import running_kernel, user_value
from tests.support.paths import ROOT
from tests.support.questions import DATABASE
from tests.support.remote import close_connections, host_kwargs, local_host
from tests.support.streams import Recorder
from tests.support.waiting import retry_until

pytestmark = [pytest.mark.usefixtures("claude_binary")]

SLOW = "sleep 4; echo slept-through"


def script() -> ScriptedModel:
    return ScriptedModel(
        rules=[
            Rule("who", [Reply(tools=[ToolUse("Bash", {"command": "id -un; pwd"})]), Reply("Me.")]),
            Rule(
                "ask",
                [
                    Reply(tools=[ToolUse("AskUserQuestion", {"questions": [DATABASE]})]),
                    Reply("Thanks, noted."),
                ],
            ),
            Rule("slow", [Reply(tools=[ToolUse("Bash", {"command": SLOW})]), Reply("Slept.")]),
        ],
        fallback="Hello from the scripted model.",
    )


@pytest.fixture
def ssh_host(ssh_server: sshd.SshServer) -> Iterator[Host]:
    yield ssh_server.host()
    close_connections()


@pytest.fixture
def stdio_host(lab_home: Path) -> Iterator[Host]:
    yield local_host(lab_home)
    close_connections()


def chat_and_answer(run: Run, user: str, cwd: Path) -> None:
    run.send("hello")
    assert run.wait(timeout=90) == "idle", run.screen()
    assert [(m.role, m.text) for m in run.messages if m.kind == "text"] == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert run.session.usage.output_tokens > 0
    run.send("who are you")
    assert run.wait(timeout=90) == "idle", run.screen()
    [tool] = [m.tool for m in run.messages if m.tool is not None]
    assert tool.status == "ok" and tool.output == f"{user}\n{cwd}", tool
    run.send("ask me")
    assert run.wait(timeout=90) == "question", run.screen()
    dialog = run.pending_dialog
    assert dialog is not None and [o.label for o in dialog.questions[0].options] == [
        "SQLite",
        "Postgres",
    ]
    final = run.answer({"Database": "Postgres"})
    assert final.status == "answered" and final.outcome == "Database → Postgres"
    assert run.wait(timeout=90) == "idle"
    assert run.messages[-1].text == "Thanks, noted."


def test_claude_code_through_a_local_worker(stdio_host: Host, workdir: Path) -> None:
    model = script()
    with Run("claude-code", cwd=workdir, model=model, host=stdio_host) as run:
        chat_and_answer(run, os.environ.get("USER") or _whoami(), workdir)
        # The agent reached the model in this kernel through the pipe: the worker's own
        # loopback port, not the model's.
        assert model.scripted_requests
        settings = run.transcript_path
        assert settings is not None and settings.exists()
    assert run.state == "ended"


def _whoami() -> str:
    return subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()


def test_claude_code_over_ssh_as_a_second_user_survives_a_killed_connection(
    ssh_server: sshd.SshServer, ssh_host: Host
) -> None:
    cwd = ssh_server.folder_of_user("project")
    model = script()
    with Run("claude-code", cwd=cwd, model=model, host=ssh_host) as run:
        assert run.cwd == cwd
        assert run.attach_command.startswith("ssh -t ")
        chat_and_answer(run, sshd.USER, cwd)
        seen: list[ChatEvent] = []
        run.subscribe(seen.append)
        before = len(run.messages)
        run.send("slow please")
        assert run.wait_for(
            lambda r: any(m.tool is not None and m.tool.status == "running" for m in r.messages),
            60,
        ), run.screen()
        connection = _connection._connections[ssh_host]
        ssh = connection._proc
        assert ssh is not None
        assert isinstance(ssh.args, list) and Path(ssh.args[0]).name == "ssh"
        ssh.kill()  # the connection drops mid-turn; the agent goes on under tmux there
        assert run.wait(timeout=120) == "idle", run.screen()
        assert connection.reconnects == 1 and connection._proc is not ssh
        new = run.messages[before:]
        assert [(m.role, m.kind) for m in new] == [
            ("user", "text"),
            ("assistant", "tool"),
            ("assistant", "text"),
        ]
        assert new[1].tool is not None and new[1].tool.output == "slept-through"
        assert new[-1].text == "Slept."
        # Nothing was lost or delivered twice across the reconnect.
        delivered = {m.seq for e in seen for m in e.changed}
        assert delivered == {m.seq for m in new}
        # A fresh kernel on this machine re-adopts it from the host.
        script_text = (
            "import json, lab_widget\n"
            f"host = lab_widget.SshHost(**json.loads({json.dumps(json.dumps(host_kwargs(ssh_host)))}))\n"
            "[run] = lab_widget.runs(host=host)\n"
            "print(json.dumps([run.id, [m.text for m in run.messages]]))\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", script_text],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        ).stdout
        assert json.loads(out.splitlines()[-1]) == [run.id, [m.text for m in run.messages]]
        [same] = runs(host=ssh_host)
        assert same is run
    assert runs(host=ssh_host) == []


def test_an_agent_over_ssh_runs_code_in_this_kernel_once_that_host_is_allowed(
    ssh_server: sshd.SshServer, ssh_host: Host
) -> None:
    cwd = ssh_server.folder_of_user("kernel")
    code = "x = len(df)\nprint('rows:', x)"
    call = model_call("claude-code", RUN_PYTHON["claude-code"], {"code": code})
    turn = [Reply("Let me count them in your kernel.", tools=[call]), Reply("Done.")]
    double = model_call("claude-code", RUN_PYTHON["claude-code"], {"code": "y = 2 * x"})
    again = [Reply(tools=[double]), Reply("Doubled.")]
    rules = [Rule("count the rows", turn), Rule("double it", again)]
    model = ScriptedModel(rules=rules, fallback="ok")
    with running_kernel("import pandas as pd\ndf = pd.DataFrame({'a': range(7)})") as kernel:
        tools = kernel.connection_file
        with pytest.raises(RemoteKernelToolsError, match=r"kernel_host='ssh://"):
            Run("claude-code", cwd=cwd, model=model, host=ssh_host, kernel=tools)
        assert runs(host=ssh_host) == []  # refused before anything started
        with Run(
            "claude-code", cwd=cwd, model=model, host=ssh_host, kernel=tools, kernel_host=ssh_host
        ) as run:
            run.send("count the rows of df into x")
            assert run.wait(timeout=120) == "question", run.screen()
            dialog = run.pending_dialog
            assert dialog is not None and dialog.tool_name == RUN_PYTHON["claude-code"]
            assert "x = len(df)" in dialog.body
            run.answer("approve")
            assert run.wait(timeout=120) == "idle", run.screen()
            # The code ran here, in this kernel, from the other account's agent.
            assert user_value(kernel, "x") == "7"
            [card] = [m.tool for m in run.messages if m.tool and m.tool.name == call.name]
            assert card.status == "ok" and "rows: 7" in (card.output or ""), card

            # The pipe drops; the new worker listens on the ports the tools' server knows.
            connection = _connection._connections[ssh_host]
            ssh = connection._proc
            assert ssh is not None
            ssh.kill()
            assert retry_until(lambda: connection.reconnects == 1 and run.connected, 60)
            run.send("double it")
            assert run.wait(timeout=120) == "question", run.screen()
            run.answer("approve")
            assert run.wait(timeout=120) == "idle", run.screen()
            assert user_value(kernel, "y") == "14"


def test_secrets_travel_only_inside_the_pipe(ssh_server: sshd.SshServer, ssh_host: Host) -> None:
    cwd = ssh_server.folder_of_user("secrets")
    model = ScriptedModel(fallback="ok", api_key="sk-scripted-secret-9f8e7d6c5b4a39281706")
    with Run("claude-code", cwd=cwd, model=model, host=ssh_host) as run:
        run.send("hello")
        assert run.wait(timeout=90) == "idle", run.screen()
        connection = _connection._connections[ssh_host]
        assert connection._proc is not None
        argv = connection._proc.args
        assert isinstance(argv, list)
        assert not any(model.api_key in a for a in argv)
        # No process of the second user carries the key on its command line.
        lines = ssh_server.as_user("ps", "-o", "args=", "-u", sshd.USER).splitlines()
        assert any("lab_widget worker" in line for line in lines)
        assert not any(model.api_key in line for line in lines)
        # The agent's model port listens on the host's loopback only.
        backend = run._backend
        assert isinstance(backend, RemoteBackend)
        port = backend.forward_port
        assert isinstance(port, int)
        listening = [
            line.split()[1]
            for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
            if line.split()[3] == "0A"
        ]
        assert f"0100007F:{port:04X}" in listening
        assert not any(
            entry.endswith(f":{port:04X}") and not entry.startswith("0100007F")
            for entry in listening
        )


def test_the_terminal_pane_shows_the_tui_on_the_host(
    ssh_server: sshd.SshServer, ssh_host: Host
) -> None:
    cwd = ssh_server.folder_of_user("pane")
    run = Run("claude-code", cwd=cwd, model=script(), host=ssh_host)
    recorder = Recorder()
    stream = PaneStream(run.pane, recorder)
    try:
        run.send("hello")
        assert run.wait(timeout=90) == "idle", run.screen()
        argv = run.pane.control_argv()
        assert argv[0] == "ssh" and "-C attach-session" in argv[-1]
        stream.start(120, 40)
        stream.request_screen("v")
        assert retry_until(lambda: bool(recorder.of("screen")), 20)
        _, screen = recorder.of("screen")[0]
        assert b"Hello from the scripted model." in b"\n".join(screen.lines)
        run.send("who are you")
        assert run.wait(timeout=90) == "idle"
        assert retry_until(lambda: b"Me." in recorder.output_after_screen(), 20)
    finally:
        stream.close()
        run.stop()


def test_a_sandboxed_run_through_a_worker(stdio_host: Host, workdir: Path) -> None:
    secret = Path.home() / ".lab-widget-remote-sandbox-probe"
    secret.write_text("the kernel user's secret\n")
    model = ScriptedModel(
        rules=[
            Rule(
                "peek", [Reply(tools=[ToolUse("Bash", {"command": f"cat {secret}"})]), Reply("No.")]
            )
        ]
    )
    run = Run("claude-code", cwd=workdir, model=model, host=stdio_host, sandbox=True)
    try:
        run.send("peek please")
        assert run.wait(timeout=90) == "idle", run.screen()
        [tool] = [m.tool for m in run.messages if m.tool is not None]
        assert tool.status == "error" and "kernel user's secret" not in (tool.output or "")
        assert run.messages[-1].text == "No."
    finally:
        run.stop()
        secret.unlink()
