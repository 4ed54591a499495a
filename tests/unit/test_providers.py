"""Unit: ``providers()`` rows, health of missing and broken CLIs, the default, the reprs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget import _provider_table, providers
from lab_widget._provider_table import ProviderTable
from lab_widget.compat import install_command
from lab_widget.errors import AuthNotSupportedError, UnknownProviderError
from lab_widget.provider import _registry, credentials, get_provider
from lab_widget.schema import AuthMethod
from tests.support.fake_provider import auth_provider

KEY = AuthMethod(kind="api-key", env_var="FAKE_API_KEY")


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Three extra providers: one healthy, one whose CLI is missing, one whose CLI fails."""
    broken = tmp_path / "broken-cli"
    broken.write_text("#!/bin/sh\necho 'cannot start: <bad> & worse' >&2\nexit 3\n")
    broken.chmod(0o755)
    for provider_id, binary in (
        ("fake-ok", sys.executable),
        ("fake-missing", "lab-widget-no-such-cli"),
        ("fake-broken", str(broken)),
    ):
        monkeypatch.setitem(
            _registry._registered, provider_id, auth_provider(provider_id, KEY, binary=binary)
        )
    yield
    for provider_id in ("fake-ok", "fake-missing", "fake-broken"):
        _registry._instances.pop(provider_id, None)
        credentials.forget(provider_id)


@pytest.mark.usefixtures("fakes")
def test_rows_report_health_without_crashing() -> None:
    table = providers(check_auth=True)
    assert isinstance(table, ProviderTable)
    ok = table.get("fake-ok")
    assert ok.health == "ok"
    assert ok.installed_version == ".".join(map(str, sys.version_info[:3]))
    assert ok.pinned_version is None
    assert ok.auth is not None and ok.auth.logged_in is False
    assert ok.auth_kinds == ("api-key",)
    missing = table.get("fake-missing")
    assert missing.health == "not installed"
    assert missing.health_text == f"not installed: {install_command()}"
    assert missing.auth is None and missing.auth_text == "unknown (CLI unavailable)"
    broken = table.get("fake-broken")
    assert broken.health.startswith("broken: --version failed: cannot start")
    assert broken.installed_version is None
    with pytest.raises(UnknownProviderError, match="known providers: "):
        table.get("nope")


@pytest.mark.usefixtures("fakes")
def test_default_is_marked_and_overridable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAB_WIDGET_PROVIDER", "fake-ok")
    assert [r.id for r in providers(check_auth=False) if r.default] == ["fake-ok"]
    chosen = providers("fake-missing", check_auth=False)
    assert [r.id for r in chosen if r.default] == ["fake-missing"]
    with pytest.raises(UnknownProviderError, match="'nope'; known providers: claude-code"):
        providers("nope")
    monkeypatch.setenv("LAB_WIDGET_PROVIDER", "also-unknown")
    with pytest.raises(UnknownProviderError):
        providers()


@pytest.mark.usefixtures("fakes")
def test_text_and_html_reprs() -> None:
    table = ProviderTable(r for r in providers(check_auth=False) if r.id.startswith("fake-"))
    text = repr(table).splitlines()
    assert text[0].split() == ["id", "name", "version", "health", "auth", "login", "capabilities"]
    assert [line.split()[0] for line in text[1:]] == ["fake-broken", "fake-missing", "fake-ok"]
    assert "unknown (not checked)" in text[3]
    assert "live signals: no; dialogs: none; resume: no; model selection: no" in text[3]
    assert repr(table) == repr(table)  # no addresses, no timings: nbval can compare it
    html = table._repr_html_()
    assert html.count("<tr>") == 4
    assert "&lt;bad&gt; &amp; worse" in html and "<bad>" not in html


def test_claude_missing_shows_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path / "no-tools"))
    monkeypatch.setenv("PATH", str(tmp_path))
    row = providers(check_auth=True).get("claude-code")
    assert row.health == "not installed" and row.installed_version is None
    assert row.pinned_version == "2.1.332"
    assert row.version_text == "- (pinned 2.1.332)"
    assert row.capabilities.live_signals is True
    assert row.auth_kinds == ("oauth-code", "api-key")


def test_codex_row_declares_what_the_adapter_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path / "no-tools"))
    monkeypatch.setenv("PATH", str(tmp_path))
    row = providers(check_auth=True).get("codex")
    assert row.health == "not installed" and row.auth is None
    assert row.pinned_version == "0.171.0"
    caps = row.capabilities
    assert (caps.live_signals, caps.dialog_kinds) == (True, ["approval", "question"])
    assert (caps.session_resume, caps.model_selection, caps.models) == (False, True, [])
    # Both logins run in the CLI: no key field, since a key in the spawn's environment is
    # not a login to `codex login status`.
    assert row.auth_kinds == ("oauth-redirect", "external")
    provider = get_provider("codex")
    method = provider.auth().method("oauth-redirect")
    assert method is not None and method.redirect_port == 1455
    flow = provider.auth_flow()
    with pytest.raises(AuthNotSupportedError, match="does not take an API key"):
        flow.save_key("sk-anything")
    with pytest.raises(AuthNotSupportedError, match="cannot start a oauth-redirect login"):
        flow.start()


def test_codex_with_its_own_model_provider_counts_as_logged_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # `codex login status` says "Not logged in" here, yet Codex runs: the provider's own key
    # is used and no sign-in is asked (test_users_own_codex_home_with_folder_trust_accepted).
    (tmp_path / "config.toml").write_text('model_provider = "mine"\n')
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path / "no-tools"))  # no CLI is asked
    monkeypatch.setenv("PATH", str(tmp_path))
    status = get_provider("codex").auth_flow().status()
    assert (status.logged_in, status.kind) == (True, "external")
    assert status.method == "model provider mine"


def test_gemini_says_personal_google_accounts_are_no_longer_served() -> None:
    row = providers().get("gemini")
    assert "no longer serves personal Google accounts" in row.note
    assert row.note in row.health_text
    method = next(
        m for m in get_provider("gemini").auth().all_methods() if m.label == "Google account"
    )
    assert "API key or Vertex AI" in method.instructions


def test_a_version_probe_that_timed_out_is_asked_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A CLI slow to start on a busy machine is not broken for the rest of the kernel's life.
    marker = tmp_path / "answered-once"
    cli = tmp_path / "slow-cli"
    cli.write_text(f"#!/bin/sh\n[ -e {marker} ] || {{ touch {marker}; sleep 5; }}\necho 1.2.3\n")
    cli.chmod(0o755)
    monkeypatch.setattr(_provider_table, "VERSION_TIMEOUT", 0.5)
    assert _provider_table._probe_version(cli) == (None, "--version gave no answer in 0.5 s")
    assert _provider_table._probe_version(cli) == ("1.2.3", "")
