"""Transports as command prefixes: what each runs, and kubectl / podman shims that map their
``exec`` onto this machine, so a run goes through the very command lines a pod or a container
would get."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget import ContainerHost, Host, KubectlHost, LabWidgetError, Run, SshHost
from lab_widget._remote._transports import parse_host
from tests.support.paths import ROOT
from tests.support.remote import FAKE, close_connections

SHIM = """#!/bin/sh
# {name} [flags] exec -i|-it ... [--] COMMAND...: records its arguments, then runs COMMAND here.
printf '%s\\n' "$@" > "{log}"
seen_exec=""
for arg in "$@"; do [ "$arg" = exec ] && seen_exec=1; done
[ -n "$seen_exec" ] || {{ echo "{name}: only exec is shimmed" >&2; exit 2; }}
while [ $# -gt 0 ]; do
    case "$1" in
        --) shift; exec "$@" ;;
        env) exec "$@" ;;
    esac
    shift
done
echo "{name}: no command" >&2
exit 2
"""


def shim(folder: Path, name: str) -> tuple[Path, Path]:
    log = folder / f"{name}.args"
    path = folder / name
    path.write_text(SHIM.format(name=name, log=log))
    path.chmod(0o755)
    return path, log


@pytest.fixture
def shims(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    close_connections()


def env_of(lab_home: Path) -> dict[str, str]:
    return {"LAB_WIDGET_HOME": str(lab_home), "PYTHONPATH": str(ROOT)}


def drive(host: Host, workdir: Path) -> Run:
    with Run("fake", cwd=workdir, host=host) as run:
        assert run.wait_for(lambda r: r.state == "idle", 10)
        run.send("through the shim")
        assert run.wait(timeout=10) == "idle"
        assert [m.text for m in run.messages] == ["through the shim", "echo: through the shim"]
    return run


def test_a_run_in_a_pod_goes_through_kubectl_exec(
    shims: Path, lab_home: Path, workdir: Path
) -> None:
    kubectl, log = shim(shims, "kubectl")
    host = KubectlHost(
        "agent-0",
        namespace="lab",
        container="main",
        context="dev",
        kubectl=str(kubectl),
        python=sys.executable,
        env=env_of(lab_home),
        providers=FAKE,
    )
    run = drive(host, workdir)
    args = log.read_text().splitlines()
    head = args[: args.index("--") + 1]
    assert head == ["--context", "dev", "-n", "lab", "exec", "-i", "agent-0", "-c", "main", "--"]
    assert args[args.index("--") + 1] == "env"
    assert args[-4:] == [
        "lab_widget",
        "worker",
        "--provider",
        "fake=tests.support.fake_provider:FakeProvider",
    ]
    attach = shlex.split(run.attach_command)
    assert attach[:10] == [
        str(kubectl),
        *("--context", "dev", "-n", "lab", "exec", "-it", "agent-0", "-c", "main"),
    ]
    assert attach[10:13] == ["--", "sh", "-c"] and attach[13].startswith("tmux -S ")


def test_a_run_in_a_container_goes_through_podman_exec(
    shims: Path, lab_home: Path, workdir: Path
) -> None:
    podman, log = shim(shims, "podman")
    host = ContainerHost(
        "lab",
        engine=str(podman),
        user="agent",
        python=sys.executable,
        env=env_of(lab_home),
        providers=FAKE,
    )
    run = drive(host, workdir)
    args = log.read_text().splitlines()
    assert args[:5] == ["exec", "-i", "-u", "agent", "lab"] and args[5] == "env"
    attach = shlex.split(run.attach_command)
    assert attach[:7] == [str(podman), "exec", "-it", "-u", "agent", "lab", "sh"]


def test_ssh_command_lines() -> None:
    host = SshHost(
        "me@box",
        port=2222,
        config="/etc/lab/ssh_config",
        identity="~/.ssh/lab",
        options={"ProxyJump": "bastion"},
        multiplex=True,
        env={"LAB_WIDGET_HOME": "/srv/lab home"},
    )
    argv = host.worker_argv()
    assert argv[:2] == ["ssh", "-T"]
    assert "BatchMode=yes" in argv and "ServerAliveInterval=15" in argv
    assert argv[argv.index("-F") + 1] == "/etc/lab/ssh_config"
    assert argv[argv.index("-i") + 1] == "~/.ssh/lab"
    assert "ProxyJump=bastion" in argv and "ControlMaster=auto" in argv
    assert argv[argv.index("-p") + 1] == "2222"
    # One remote command, quoted once for the remote shell.
    assert argv[-3:-1] == ["me@box", "--"]
    assert shlex.split(argv[-1]) == [
        "env",
        "LAB_WIDGET_HOME=/srv/lab home",
        "python3",
        "-m",
        "lab_widget",
        "worker",
    ]
    attach = shlex.split(host.attach("tmux -S /tmp/s attach -t r1"))
    assert attach[:2] == ["ssh", "-t"] and attach[-1] == "tmux -S /tmp/s attach -t r1"
    assert "ServerAliveInterval=15" not in attach


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("ssh://me@box", "ssh://me@box"),
        ("ssh://alias:2200?python=/opt/py/bin/python", "ssh://alias:2200"),
        ("kubectl://agent-0", "kubectl://agent-0"),
        ("kubectl://lab/agent-0", "kubectl://lab/agent-0"),
        ("k8s://lab/agent-0/main", "kubectl://lab/agent-0/main"),
        ("podman://lab", "podman://lab"),
        ("docker://lab?user=me", "docker://lab"),
        ("local://", "local://"),
    ],
)
def test_host_strings(text: str, name: str) -> None:
    assert parse_host(text).name == name


def test_host_strings_name_the_python_and_refuse_nonsense() -> None:
    assert parse_host("ssh://alias?python=/opt/py/bin/python").python == "/opt/py/bin/python"
    for bad in ("box", "ssh://", "kubectl://a/b/c/d", "podman://"):
        with pytest.raises(LabWidgetError):
            parse_host(bad)
    with pytest.raises(LabWidgetError, match="destination"):
        SshHost("-oProxyCommand=evil")
