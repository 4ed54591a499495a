"""Unit: a Codex run spawns the native binary its npm launcher would run, with the
launcher's environment; anything that is not that launcher is spawned as it is."""

from __future__ import annotations

import dataclasses
import json
import platform
import sys
from pathlib import Path

from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, find_binary, get_provider
from lab_widget.provider.codex import _compat

TARGET = ("@openai/codex-linux-x64", "x86_64-unknown-linux-musl")
RECORD = dataclasses.replace(
    _compat.NATIVE_BINARY, platforms={(sys.platform, platform.machine()): TARGET}
)
"""The pinned record, its table reduced to this machine (the lookup is the same anywhere)."""


def _package(root: Path) -> Path:
    """A launcher in an npm package folder like @openai/codex's; returns the launcher."""
    (root / "bin").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "@openai/codex"}))
    launcher = root / "bin" / "codex.js"
    launcher.write_text("#!/usr/bin/env node\n")
    return launcher


def _binary_in(folder: Path) -> Path:
    binary = folder / RECORD.path.format(triple=TARGET[1])
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    return binary


def test_the_platform_package_beside_the_launcher_is_found(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    launcher = _package(modules / "@openai" / "codex")
    binary = _binary_in(modules / TARGET[0])
    link = tmp_path / "bin-codex"
    link.symlink_to(launcher)  # node_modules/.bin/codex is a symlink to the launcher
    assert RECORD.resolve(link) == binary
    env = RECORD.spawn_env(link)
    assert env == {
        "CODEX_MANAGED_BY_NPM": "1",
        "CODEX_MANAGED_PACKAGE_ROOT": str(modules / "@openai" / "codex"),
    }


def test_the_packages_own_vendor_folder_is_the_fallback(tmp_path: Path) -> None:
    launcher = _package(tmp_path / "codex")
    assert RECORD.resolve(launcher) is None  # no binary anywhere: the launcher is spawned
    binary = _binary_in(tmp_path / "codex")
    assert RECORD.resolve(launcher) == binary


def test_a_binary_that_is_not_the_launcher_is_spawned_as_it_is(tmp_path: Path) -> None:
    other = tmp_path / "codex"
    other.write_text("")
    assert RECORD.resolve(other) is None
    assert RECORD.spawn_env(other) == {"CODEX_MANAGED_BY_NPM": "1"}


def test_a_run_spawns_the_pinned_native_binary(tmp_path: Path) -> None:
    launcher = find_binary(PINS["codex"], "Codex CLI")
    native = _compat.NATIVE_BINARY.resolve(launcher)
    assert native is not None and native.is_file(), "the pinned install has its native binary"
    context = RunContext(run_id="n", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    context.runtime_dir.mkdir()
    plan = get_provider("codex").plan_spawn(
        SpawnRequest(context=context, binary=launcher, endpoint=Endpoint("http://127.0.0.1:9", "k"))
    )
    assert plan.argv[0] == str(native)
    assert plan.env["CODEX_MANAGED_BY_NPM"] == "1"
    assert Path(plan.env["CODEX_MANAGED_PACKAGE_ROOT"]) == launcher.resolve().parent.parent
