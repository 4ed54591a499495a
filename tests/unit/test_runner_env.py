"""The runner hands the agent this process's environment, minus what the plan unsets."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from libtmux.test.retry import retry_until

from lab_widget._run._launch import runner as _runner
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, get_provider
from lab_widget.provider.claude_code import _compat


def test_unset_names_do_not_reach_the_agent(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TEST_KEEP", "kept")
    monkeypatch.setenv("LAB_WIDGET_TEST_DROP", "leaked")
    out = workdir / "env.txt"
    terminal = _runner().spawn(
        "env-probe",
        ["sh", "-c", f"env > {out}.tmp && mv {out}.tmp {out}; sleep 30"],
        {"LAB_WIDGET_TEST_SET": "set"},
        workdir,
        unset={"LAB_WIDGET_TEST_DROP"},
    )
    try:
        retry_until(out.exists, 10)
        env = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
        assert env.get("LAB_WIDGET_TEST_KEEP") == "kept"
        assert env.get("LAB_WIDGET_TEST_SET") == "set"
        assert "LAB_WIDGET_TEST_DROP" not in env
    finally:
        terminal.kill()


def test_a_spawn_that_inherits_nothing_gets_only_its_own_environment(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TEST_KERNEL_ONLY", "leaked")
    out = workdir / "env.txt"
    terminal = _runner().spawn(
        "env-clean",
        ["/bin/sh", "-c", f"env > {out}.tmp && mv {out}.tmp {out}; sleep 30"],
        {"LAB_WIDGET_TEST_SET": "set", "PATH": "/usr/bin:/bin"},
        workdir,
        inherit_env=False,
    )
    try:
        retry_until(out.exists, 10)
        env = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
        assert env.get("LAB_WIDGET_TEST_SET") == "set"
        assert "LAB_WIDGET_TEST_KERNEL_ONLY" not in env and "LAB_WIDGET_HOME" not in env
        # What the shell adds itself (PWD, SHLVL, _) and the pane's terminal type, no more.
        assert set(env) <= {"LAB_WIDGET_TEST_SET", "PATH", "TERM", "PWD", "SHLVL", "_", "OLDPWD"}
        assert env["TERM"]
    finally:
        terminal.kill()


def test_isolated_claude_runs_never_inherit_the_users_config_dir(
    lab_home: Path, workdir: Path
) -> None:
    context = RunContext(run_id="iso", cwd=workdir, runtime_dir=lab_home / "runs" / "iso")
    context.runtime_dir.mkdir(parents=True)
    request = SpawnRequest(
        context=context, binary=Path("claude"), endpoint=Endpoint("http://127.0.0.1:9", "k")
    )
    plan = get_provider("claude-code").plan_spawn(request)
    assert "CLAUDE_CONFIG_DIR" in plan.unset_env
    assert plan.unset_env == _compat.ISOLATION_UNSET
    own = get_provider("claude-code").plan_spawn(
        SpawnRequest(context=context, binary=Path("claude"))
    )
    assert own.unset_env == frozenset()  # the user's own runs keep their setup


def test_an_agent_that_ignores_the_hangup_is_terminated(lab_home: Path, workdir: Path) -> None:
    terminal = _runner().spawn(
        "stubborn",
        ["sh", "-c", "trap '' HUP; touch trapped; while :; do sleep 0.2; done"],
        {},
        workdir,
    )
    retry_until(terminal.alive, 10)
    # Alive is not yet trapped: a hang-up sent before the shell ran `trap` ends it.
    retry_until((workdir / "trapped").exists, 10)
    pid = terminal.pid()
    assert pid is not None
    os.kill(pid, signal.SIGHUP)  # the control: a hang-up alone does not end it
    assert not retry_until(lambda: not Path(f"/proc/{pid}").exists(), 1, raises=False)
    terminal.kill(grace=0.5)
    retry_until(lambda: not Path(f"/proc/{pid}").exists(), 5)
