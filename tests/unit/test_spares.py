"""Warm start: spares started ahead (``prestart``), adopted by the next matching run."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget import Endpoint, Run, prestart, runs, spares
from lab_widget._run._launch import runner
from lab_widget._run._spares import pool, spare_key
from tests.support.local import local_parts
from tests.support.waiting import retry_until


@pytest.fixture(autouse=True)
def _no_spares_left() -> Iterator[None]:
    yield
    pool.stop_all()


def ready_spares(count: int) -> bool:
    return retry_until(lambda: len(spares()) == count, 15)


def test_a_run_with_the_same_key_adopts_the_spare(lab_home: Path, workdir: Path) -> None:
    prestart("fake", cwd=workdir)
    assert ready_spares(1)
    [spare] = spares()
    assert "memory=" in repr(spare) and (spare.memory or 0) > 0
    assert [r.id for r in runs()] == []  # a spare is no run
    run = Run("fake", cwd=workdir, prompt="warm")
    try:
        assert run.id == spare.id and spares() == []
        assert run.wait(timeout=10) == "idle"
        assert [m.text for m in run.messages] == ["warm", "echo: warm"]
        assert [r.id for r in runs()] == [run.id]
    finally:
        run.stop()


def test_a_run_right_after_prestart_takes_the_spare_still_starting(
    lab_home: Path, workdir: Path
) -> None:
    prestart("fake", cwd=workdir)
    run = Run("fake", cwd=workdir, prompt="warm")  # the spare is not ready yet
    try:
        for thread in threading.enumerate():
            if thread.name == "lab-widget-prestart":
                thread.join(30)
        # Had the run spawned its own agent, the spare would be waiting now.
        assert spares() == []
        assert [r.id for r in runs()] == [run.id]
        assert run.wait(timeout=10) == "idle"
    finally:
        run.stop()


def test_a_different_key_spawns_and_leaves_the_spare(lab_home: Path, workdir: Path) -> None:
    prestart("fake", cwd=workdir)
    assert ready_spares(1)
    [spare] = spares()
    other = Run("fake", cwd=workdir, model="another-model")
    named = Run("fake", cwd=workdir, name="named")
    try:
        assert spare.id not in (other.id, named.id)
        assert spares() == [spare]
    finally:
        other.stop()
        named.stop()


def test_keys_tell_credentials_homes_and_settings_apart(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def key(**changes: object) -> object:
        args: dict[str, object] = {
            "endpoint": Endpoint(base_url="http://127.0.0.1:1", api_key="k1"),
            "model": None,
            "seed": None,
            "worktree": False,
            "sandbox": False,
            "options": {},
        }
        args.update(changes)
        return spare_key("fake", workdir, **args)  # type: ignore[arg-type]

    base = key()
    assert key() == base
    assert key(endpoint=Endpoint(base_url="http://127.0.0.1:1", api_key="k2")) != base
    assert key(endpoint=Endpoint(base_url="http://127.0.0.1:2", api_key="k1")) != base
    assert key(options={"permission_mode": "plan"}) != base
    assert key(sandbox=True) != base
    assert key(worktree=True) != base
    assert "k1" not in repr(base)  # compared by digest, never kept
    monkeypatch.setenv("HOME", str(tmp_path))
    assert key() != base


def test_spares_are_bounded_per_key(lab_home: Path, workdir: Path) -> None:
    prestart("fake", cwd=workdir)
    prestart("fake", cwd=workdir)
    assert ready_spares(1)
    prestart("fake", cwd=workdir, count=2)
    assert ready_spares(2)
    assert not retry_until(lambda: len(spares()) > 2, 1)


def test_an_idle_spare_is_reaped_and_its_agent_stopped(lab_home: Path, workdir: Path) -> None:
    prestart("fake", cwd=workdir, idle=1.0)
    assert ready_spares(1)
    [spare] = spares()
    assert retry_until(lambda: spares() == [], 10)
    assert retry_until(lambda: spare.id not in runner().sessions(), 10)
    run = Run("fake", cwd=workdir)  # spawns
    try:
        assert run.id != spare.id
        local_parts(run).chat.wait_ready(10)
    finally:
        run.stop()
