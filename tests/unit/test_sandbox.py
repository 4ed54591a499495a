"""Unit: a sandboxed spawn's bubblewrap command line and environment, built from nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lab_widget import Endpoint, Sandbox, SandboxError
from lab_widget._run._launch import _sandboxed
from lab_widget._workspace._sandbox import bwrap_binary, confine
from lab_widget.provider import RunContext, SpawnPlan, SpawnRequest, get_provider
from lab_widget.provider._seam_records import SandboxPaths


@pytest.fixture
def bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("LAB_WIDGET_BWRAP", str(fake))
    return str(fake)


def mounts(argv: list[str]) -> list[tuple[str, str]]:
    found = []
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg in ("--bind", "--ro-bind", "--tmpfs", "--symlink"):
            found.append((arg, argv[i + 1] if arg == "--tmpfs" else argv[i + 2]))
    return found


def plan_in(tmp_path: Path, env: dict[str, str] | None = None) -> tuple[SpawnPlan, Path]:
    cwd = tmp_path / "work"
    runtime = tmp_path / "home" / "runs" / "r1"
    cwd.mkdir()
    runtime.mkdir(parents=True)
    plan = SpawnPlan(
        argv=["/usr/bin/env", "true"],
        env=env or {},
        cwd=cwd,
        secret_env=frozenset({"KEY"}) if env and "KEY" in env else frozenset(),
        unset_env=frozenset({"DROPPED"}),
    )
    return plan, runtime


def test_the_agent_sees_its_folders_read_write_and_the_system_read_only(
    tmp_path: Path, bwrap: str
) -> None:
    plan, runtime = plan_in(tmp_path, {"HOME": str(tmp_path / "home" / "runs" / "r1" / "home")})
    confined = confine(plan, Sandbox(), runtime_dir=runtime, provider_paths=SandboxPaths())
    argv = list(confined.argv)
    assert argv[0] == bwrap
    assert argv[1:4] == ["--unshare-all", "--share-net", "--die-with-parent"]
    assert argv[argv.index("--") + 1 :] == ["/usr/bin/env", "true"]
    assert argv[argv.index("--chdir") + 1] == str(plan.cwd)
    seen = mounts(argv)
    assert ("--bind", str(plan.cwd)) in seen and ("--bind", str(runtime)) in seen
    assert ("--ro-bind", "/usr") in seen or ("--symlink", "/usr") in seen
    assert ("--tmpfs", "/tmp") in seen
    # An isolated home lives in the run folder: no empty home is needed.
    assert ("--tmpfs", str(Path.home())) not in seen
    assert not any(path == str(Path.home()) for _, path in seen)
    # /etc only as a short list, never whole (the host's keys and shadow files stay out).
    etc = [path for kind, path in seen if path.startswith("/etc")]
    assert "/etc" not in etc and "/etc/shadow" not in etc and "/etc/ssh" not in etc


def test_without_an_isolated_home_the_agent_gets_an_empty_one_at_the_users_path(
    tmp_path: Path, bwrap: str
) -> None:
    plan, runtime = plan_in(tmp_path)
    confined = confine(plan, Sandbox(), runtime_dir=runtime, provider_paths=SandboxPaths())
    seen = mounts(list(confined.argv))
    tmpfs_home = seen.index(("--tmpfs", str(Path.home())))
    # Folders inside the home are mounted after the empty home, so they show through it.
    later = [path for _, path in seen[tmpfs_home + 1 :]]
    assert str(plan.cwd) in later and str(runtime) in later
    assert confined.env["HOME"] == str(Path.home())


def test_parents_are_mounted_before_what_they_hold(tmp_path: Path, bwrap: str) -> None:
    plan, runtime = plan_in(tmp_path)
    inner = plan.cwd / "vendor"
    inner.mkdir()
    confined = confine(
        plan,
        Sandbox(read_only=[inner]),
        runtime_dir=runtime,
        provider_paths=SandboxPaths(),
    )
    seen = mounts(list(confined.argv))
    assert seen.index(("--bind", str(plan.cwd))) < seen.index(("--ro-bind", str(inner)))


def test_the_environment_is_built_from_nothing(
    tmp_path: Path, bwrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "leak")
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("LOGIN_KEY", "the-login-key")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy")
    monkeypatch.setenv("DROPPED", "x")
    plan, runtime = plan_in(tmp_path, {"KEY": "plan-key", "DROPPED": "set-by-plan"})
    confined = confine(
        plan,
        Sandbox(env=["HTTPS_PROXY", "NOT_SET_ANYWHERE"]),
        runtime_dir=runtime,
        provider_paths=SandboxPaths(),
        login_env=["LOGIN_KEY"],
    )
    env = confined.env
    assert "AWS_SECRET_ACCESS_KEY" not in env and "NOT_SET_ANYWHERE" not in env
    assert env["PATH"] == os.environ["PATH"] and env["LC_TIME"] == "C"
    assert env["LOGIN_KEY"] == "the-login-key" and env["HTTPS_PROXY"] == "http://proxy"
    assert env["KEY"] == "plan-key" and env["DROPPED"] == "set-by-plan"
    assert env["TMPDIR"] == "/tmp"
    assert confined.secret_env == {"KEY", "LOGIN_KEY"}
    # No value ever rides the command line.
    assert not any("the-login-key" in a or "plan-key" in a for a in confined.argv)


def test_paths_to_show_must_exist(tmp_path: Path, bwrap: str) -> None:
    plan, runtime = plan_in(tmp_path)
    with pytest.raises(SandboxError, match="does not exist"):
        confine(
            plan,
            Sandbox(read_only=[tmp_path / "missing"]),
            runtime_dir=runtime,
            provider_paths=SandboxPaths(),
        )
    with pytest.raises(SandboxError, match="absolute"):
        confine(
            plan,
            Sandbox(read_write=["relative"]),
            runtime_dir=runtime,
            provider_paths=SandboxPaths(),
        )


def test_a_missing_bubblewrap_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LAB_WIDGET_BWRAP", raising=False)
    monkeypatch.setenv("LAB_WIDGET_BWRAP_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxError, match=r"setup-system\.sh"):
        bwrap_binary()
    unpacked = tmp_path / "none" / "usr" / "bin" / "bwrap"
    unpacked.parent.mkdir(parents=True)
    unpacked.write_text("#!/bin/sh\n")
    unpacked.chmod(0o755)
    assert bwrap_binary() == str(unpacked)


def test_the_users_own_setup_is_refused_unless_its_config_is_named(
    tmp_path: Path, bwrap: str
) -> None:
    provider = get_provider("claude-code")
    context = RunContext(run_id="r1", cwd=tmp_path, runtime_dir=tmp_path)
    own = SpawnRequest(context=context, binary=Path("/usr/bin/env"))
    plan = SpawnPlan(argv=["/usr/bin/env"], env={}, cwd=tmp_path)
    with pytest.raises(SandboxError, match="cannot see"):
        _sandboxed(provider, own, plan, Sandbox())
    named = _sandboxed(provider, own, plan, Sandbox(read_write=[tmp_path]))
    assert named.argv[0] == bwrap
    isolated = SpawnRequest(
        context=context, binary=Path("/usr/bin/env"), endpoint=Endpoint("http://127.0.0.1:9", "k")
    )
    assert _sandboxed(provider, isolated, plan, Sandbox()).argv[0] == bwrap


def test_sandbox_round_trips_through_json() -> None:
    box = Sandbox(read_only=["~/.gitconfig"], read_write=["/data"], env=["A"])
    assert Sandbox.from_json(box.to_json()) == box
    with pytest.raises(SandboxError, match="list of strings"):
        Sandbox.from_json({"read_only": "nope", "read_write": [], "env": []})
