"""Live: Claude Code's own login, through the real pinned CLI in an isolated HOME.

Offline, so a browser login can only get as far as its URL and the code exchange, whose
failure must come back as a typed error. The stored-key path runs a real agent against
the scripted model with the key injected at spawn.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import comm
import pytest

import lab_widget
from lab_widget import AuthRequiredError, Run, ScriptedModel
from lab_widget._install import tools_dir
from lab_widget._run._launch import runner as _runner
from lab_widget._widgets._auth_card import login
from lab_widget.errors import InvalidCodeError, LoginFailedError, NoLoginInProgressError
from lab_widget.provider import credentials, get_provider
from lab_widget.provider.claude_code import _auth as claude_auth
from lab_widget.provider.claude_code import _compat
from tests.support.paths import ROOT
from tests.support.recording import RecordingComm


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty HOME and no credential in the environment: logged out."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in (*_compat.CREDENTIAL_ENV, "CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    yield folder
    flow = get_provider("claude-code").auth_flow()
    flow.cancel()
    credentials.forget("claude-code")


def test_status_logged_out_in_an_empty_home(home: Path) -> None:
    status = get_provider("claude-code").auth_flow().status()
    assert status.logged_in is False and status.kind is None and status.method is None


def test_status_with_a_key_in_the_environment(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-key-for-status")
    status = get_provider("claude-code").auth_flow().status()
    assert status.logged_in is True
    assert (status.method, status.kind, status.source) == (
        "api_key",
        "api-key",
        "ANTHROPIC_API_KEY",
    )


def test_stored_key_logs_in_and_forgetting_logs_out(home: Path) -> None:
    flow = get_provider("claude-code").auth_flow()
    status = flow.save_key("sk-ant-stored-key-for-status")
    assert status.logged_in and status.kind == "api-key"
    assert status.source == "stored for this session"
    assert "sk-ant-stored" not in repr(status)
    assert flow.forget_key().logged_in is False


def test_oauth_code_login_fails_offline_with_a_typed_error(home: Path) -> None:
    flow = get_provider("claude-code").auth_flow()
    started = flow.start()
    assert started.kind == "oauth-code" and started.needs_code
    assert started.url.startswith("https://claude.ai/oauth/authorize")
    # A code without its "#<state>" half is refused by the CLI before any exchange, and the
    # login keeps waiting.
    with pytest.raises(InvalidCodeError):
        flow.submit_code("no-state-half")
    # A well-formed code goes to the token exchange, which cannot reach the network here.
    with pytest.raises(LoginFailedError, match=_compat.LOGIN_FAILED_PREFIX):
        flow.submit_code("offline-code#offline-state")
    with pytest.raises(NoLoginInProgressError):
        flow.submit_code("offline-code#offline-state")  # the failed login is over
    assert flow.status().logged_in is False
    assert not (home / ".claude" / ".credentials.json").exists()


def test_an_abandoned_login_is_ended(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_auth, "LOGIN_TTL", 0.5)
    flow = get_provider("claude-code").auth_flow()
    flow.start()
    assert isinstance(flow, claude_auth.ClaudeAuthFlow)
    login = flow._login
    assert login is not None
    # The timer kills the CLI, which otherwise waits for a code forever.
    assert login.proc.wait(timeout=30) != 0
    with pytest.raises(NoLoginInProgressError):
        flow.submit_code("late-code#late-state")


def test_login_card_reports_the_offline_failure(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    card = login("claude-code")
    try:
        assert card.status is not None
        assert card.status["logged_in"] is False
        assert [m["kind"] for m in card.descriptor["methods"]] == ["oauth-code", "api-key"]
        channel = card.comm
        assert isinstance(channel, RecordingComm)
        card._run_action({"kind": "action", "id": "a1", "action": "start"})
        assert card.pending_login is not None
        assert card.pending_login["url"].startswith("https://")
        channel.clear()
        card._run_action(
            {"kind": "action", "id": "a2", "action": "submit_code", "code": "c0de#st4te"}
        )
        [result] = channel.customs()
        assert result["id"] == "a2" and result["ok"] is False
        assert result["error"].startswith(_compat.LOGIN_FAILED_PREFIX)
    finally:
        card.close()


def test_logout_runs_in_an_empty_home(home: Path) -> None:
    assert get_provider("claude-code").auth_flow().logout().logged_in is False


def test_a_logged_out_run_refuses_to_start(home: Path, lab_home: Path, workdir: Path) -> None:
    with pytest.raises(AuthRequiredError, match=r"lab_widget.login\('claude-code'\)"):
        Run("claude-code", cwd=workdir)
    assert _runner().sessions() == []


def test_stored_key_is_injected_at_spawn(
    home: Path, lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's own environment, pointed at the scripted model; the only credential is
    # the key saved through the flow, which the CLI must receive at spawn.
    model = ScriptedModel(["Answered with the stored key."]).start()
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "projects": {str(workdir): {"hasTrustDialogAccepted": True}},
            }
        )
    )
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    flow = get_provider("claude-code").auth_flow()
    flow.save_key(model.api_key)
    run = Run("claude-code", cwd=workdir)
    try:
        assert run.needs_input_reason and "API key" in run.needs_input_reason
        run.accept()  # the CLI asks once whether to use a key it has not seen
        run.send("hello")
        assert run.wait(timeout=60) == "idle"
        assert run.messages[-1].text == "Answered with the stored key."
        assert model.api_key not in run.screen() and model.api_key not in repr(run)
    finally:
        run.stop()
        model.stop()


def test_model_aliases_are_the_ones_the_cli_documents(claude_binary: Path) -> None:
    help_text = subprocess.run(
        [str(claude_binary), "--help"], capture_output=True, text=True, timeout=30, check=True
    ).stdout
    flat = " ".join(help_text.split())
    for alias in _compat.MODEL_ALIASES:
        assert f"'{alias}'" in flat


def test_providers_in_a_fresh_kernel(home: Path) -> None:
    code = "import lab_widget; print(repr(lab_widget.providers()))"
    env = {**os.environ, "LAB_WIDGET_TOOLS": str(tools_dir())}
    env.pop("LAB_WIDGET_PROVIDER", None)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=ROOT,
        env=env,
    ).stdout
    header, *rows = out.strip().splitlines()
    assert header.split() == ["id", "name", "version", "health", "auth", "login", "capabilities"]
    ids = [row.split()[0] for row in rows]
    assert ids[0] == "claude-code" and set(ids) == set(lab_widget.provider._registry._BUILTIN)
    # Every pinned CLI is installed by the project's own setup: each row is healthy.
    for row in rows:
        # The health column is ok, perhaps with the provider's note after it.
        assert re.search(r"  ok(;|  )", row), row
    cells = [c for c in rows[0].split("  ") if c.strip()]
    assert [c.strip() for c in cells[:6]] == [
        "claude-code (default)",
        "Claude Code",
        "2.1.332 (pinned 2.1.332)",
        "ok",
        "not logged in",
        "oauth-code, api-key",
    ]
    assert cells[6].strip() == (
        "live signals: yes; dialogs: question, plan, approval; resume: no; "
        "model selection: yes; kernel tools: yes; models: fable, opus, sonnet"
    )
