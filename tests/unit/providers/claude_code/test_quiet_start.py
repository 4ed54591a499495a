"""Unit: an isolated run's CLI skips the first-start work a fresh home would repeat; the
user's own runs keep their setup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab_widget.provider import Endpoint, RunContext, SpawnPlan, SpawnRequest
from lab_widget.provider.claude_code import ClaudeCodeProvider, _compat


def _plan(tmp_path: Path, endpoint: Endpoint | None) -> tuple[SpawnPlan, dict[str, object]]:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    plan = ClaudeCodeProvider().plan_spawn(
        SpawnRequest(context=context, binary=Path("claude"), endpoint=endpoint)
    )
    settings = json.loads(Path(plan.argv[plan.argv.index("--settings") + 1]).read_text())
    return plan, settings


def test_an_isolated_run_skips_the_marketplace_install_and_the_url_handler(
    tmp_path: Path,
) -> None:
    plan, settings = _plan(tmp_path, Endpoint("http://127.0.0.1:9", "k"))
    assert plan.env["CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL"] == "1"
    assert settings["disableDeepLinkRegistration"] == "disable"
    assert _compat.QUIET_START.env.items() <= plan.env.items()


def test_the_users_own_run_keeps_its_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    plan, settings = _plan(tmp_path, None)
    assert not set(_compat.QUIET_START.env) & set(plan.env)
    assert not set(_compat.QUIET_START.settings) & set(settings)
