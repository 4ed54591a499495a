"""Unit: auth descriptors, flows per kind, the key store, change events and the login card,
over the fake provider (no CLI)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import lab_widget
import lab_widget._run._launch
from lab_widget._widgets import _auth_card
from lab_widget._widgets._auth_card import ProviderAuthCard, login
from lab_widget.errors import (
    AuthNotSupportedError,
    AuthRequiredError,
    InvalidCodeError,
    InvalidKeyError,
    LoginFailedError,
    NoLoginInProgressError,
    UnknownProviderError,
)
from lab_widget.provider import (
    AgentProvider,
    DescribedAuthFlow,
    _auth_events,
    _registry,
    credentials,
    get_provider,
    injected_credentials,
)
from lab_widget.schema import AuthDescriptor, AuthMethod
from tests.support.fake_provider import FakeAuthFlow, FakeProvider, auth_provider
from tests.support.recording import RecordingComm

SECRET = "sk-test-NEVER-SHOWN-0123456789"

CODE = AuthMethod(kind="oauth-code", label="Fake account", instructions="Paste the code.")
REDIRECT = AuthMethod(
    kind="oauth-redirect", label="Fake SSO", redirect_port=8765, instructions="Forward 8765."
)
KEY = AuthMethod(kind="api-key", label="Fake key", env_var="FAKE_API_KEY")
EXTERNAL = AuthMethod(kind="external", instructions="Log in with the vendor's tool.")


@pytest.fixture
def register(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., AgentProvider]]:
    """Register a provider for one test only; stored keys are dropped afterwards."""
    ids: list[str] = []

    def add(provider_id: str, *methods: AuthMethod, binary: str | None = None) -> AgentProvider:
        cls = auth_provider(provider_id, *methods, binary=binary)
        monkeypatch.setitem(_registry._registered, provider_id, cls)
        ids.append(provider_id)
        return get_provider(provider_id)

    yield add
    for provider_id in ids:
        credentials.forget(provider_id)
        _registry._instances.pop(provider_id, None)


@pytest.fixture
def changes() -> Iterator[list[_auth_events.AuthChange]]:
    seen: list[_auth_events.AuthChange] = []
    unsubscribe = _auth_events.subscribe(seen.append)
    yield seen
    unsubscribe()


def flow_of(provider: AgentProvider) -> FakeAuthFlow:
    flow = provider.auth_flow()
    assert isinstance(flow, FakeAuthFlow)
    return flow


# -- descriptors and the seam's defaults ---------------------------------------------------


def test_descriptor_lists_its_methods_or_its_primary_kind() -> None:
    both = AuthDescriptor(kind="oauth-code", methods=[CODE, KEY])
    assert [m.kind for m in both.all_methods()] == ["oauth-code", "api-key"]
    assert both.method("api-key") == KEY
    assert both.method("oauth-redirect") is None
    bare = AuthDescriptor(kind="external", instructions="elsewhere")
    assert [(m.kind, m.instructions) for m in bare.all_methods()] == [("external", "elsewhere")]


def test_a_provider_without_its_own_flow_gets_the_described_default() -> None:
    provider = FakeProvider()
    flow = provider.auth_flow()
    assert isinstance(flow, DescribedAuthFlow)
    assert flow.status().logged_in is True
    with pytest.raises(AuthNotSupportedError, match="external"):
        flow.start()
    with pytest.raises(AuthNotSupportedError):
        flow.save_key(SECRET)
    assert credentials.get("fake") is None


def test_capabilities_default_is_conservative() -> None:
    caps = FakeProvider().capabilities()
    assert caps.live_signals is False
    assert caps.dialog_kinds == [] and caps.models == []
    assert caps.session_resume is False and caps.model_selection is False


# -- one test per kind ---------------------------------------------------------------------


def test_oauth_code_start_then_code(
    register: Callable[..., AgentProvider], changes: list[Any]
) -> None:
    flow = flow_of(register("fake-code", CODE))
    with pytest.raises(NoLoginInProgressError):
        flow.submit_code(FakeAuthFlow.GOOD_CODE)
    started = flow.start()
    assert started.kind == "oauth-code" and started.needs_code
    assert started.url.startswith("https://login.example.test/oauth-code")
    assert started.instructions == "Paste the code."
    with pytest.raises(InvalidCodeError):
        flow.submit_code("   ")
    with pytest.raises(LoginFailedError, match="refused"):
        flow.submit_code("bad#code")
    assert changes == []  # failures change nothing
    status = flow.submit_code(f"  {FakeAuthFlow.GOOD_CODE}\n")
    assert status.logged_in and status.kind == "oauth-code"
    assert [(c.provider_id, c.status) for c in changes] == [("fake-code", status)]
    out = flow.logout()
    assert not out.logged_in and changes[-1].status == out


def test_oauth_redirect_gives_url_and_operator_instructions(
    register: Callable[..., AgentProvider], changes: list[Any]
) -> None:
    flow = flow_of(register("fake-redirect", REDIRECT))
    started = flow.start("oauth-redirect")
    assert started.kind == "oauth-redirect" and not started.needs_code
    assert "8765" in started.instructions
    with pytest.raises(AuthNotSupportedError, match="oauth-code"):
        flow.start("oauth-code")
    flow.complete_redirect()
    assert flow.status().kind == "oauth-redirect"
    assert [c.provider_id for c in changes] == ["fake-redirect"]


def test_api_key_is_kept_in_memory_and_injected_never_shown(
    register: Callable[..., AgentProvider], changes: list[Any]
) -> None:
    provider = register("fake-key", KEY)
    flow = flow_of(provider)
    assert injected_credentials("fake-key", provider.auth()) == {}
    with pytest.raises(InvalidKeyError):
        flow.save_key("  ")
    status = flow.save_key(f" {SECRET} ")
    assert status.logged_in and status.kind == "api-key" and flow.has_stored_key
    assert injected_credentials("fake-key", provider.auth()) == {"FAKE_API_KEY": SECRET}
    for shown in (repr(credentials), repr(flow), repr(status), status.model_dump_json()):
        assert SECRET not in shown
    assert SECRET not in repr(changes)
    status = flow.forget_key()
    assert not status.logged_in and credentials.get("fake-key") is None
    assert len(changes) == 2


def test_external_reports_status_only(register: Callable[..., AgentProvider]) -> None:
    flow = flow_of(register("fake-external", EXTERNAL))
    assert flow.status().logged_in is False
    with pytest.raises(AuthNotSupportedError):
        flow.start()
    with pytest.raises(AuthNotSupportedError, match="does not take an API key"):
        flow.save_key(SECRET)


def test_a_broken_listener_does_not_hide_the_change(changes: list[Any]) -> None:
    def broken(_change: Any) -> None:
        raise RuntimeError("boom")

    unsubscribe = _auth_events.subscribe(broken)
    try:
        _auth_events.publish(_auth_events.AuthChange("x", None))
    finally:
        unsubscribe()
    assert [c.provider_id for c in changes] == ["x"]


# -- runs refuse to start logged out -------------------------------------------------------


def test_run_without_endpoint_refuses_to_start_logged_out(
    register: Callable[..., AgentProvider], lab_home: Path, workdir: Path, comms: Any
) -> None:
    register("fake-gate", KEY)
    with pytest.raises(AuthRequiredError, match=r"lab_widget.login\('fake-gate'\)"):
        lab_widget.Run("fake-gate", cwd=workdir)
    assert lab_widget._run._launch.runner().sessions() == []  # nothing was spawned


def test_in_a_kernel_the_refused_run_shows_the_login_card(
    register: Callable[..., AgentProvider],
    lab_home: Path,
    workdir: Path,
    comms: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    register("fake-gate-kernel", KEY)
    shown: list[object] = []
    monkeypatch.setattr(_auth_card, "get_ipython", lambda: SimpleNamespace(kernel=object()))
    monkeypatch.setattr(_auth_card, "display", shown.append)
    with pytest.raises(AuthRequiredError):
        lab_widget.Run("fake-gate-kernel", cwd=workdir)
    [card] = shown
    assert isinstance(card, ProviderAuthCard) and card.provider_id == "fake-gate-kernel"
    card.close()
    # Outside a kernel nothing is displayed; the error alone says what to do.
    monkeypatch.setattr(_auth_card, "get_ipython", lambda: None)
    with pytest.raises(AuthRequiredError):
        lab_widget.Run("fake-gate-kernel", cwd=workdir)
    assert len(shown) == 1


# -- the login card ------------------------------------------------------------------------


def card_state(card: ProviderAuthCard) -> str:
    return json.dumps(card.get_state(), default=str)


def test_card_is_driven_by_the_descriptor(
    register: Callable[..., AgentProvider], comms: Any
) -> None:
    register("fake-card", CODE, KEY)
    card = login("fake-card")
    try:
        assert repr(card) == "ProviderAuthCard(Fake oauth-code/api-key)"
        assert [m["kind"] for m in card.descriptor["methods"]] == ["oauth-code", "api-key"]
        assert card.status == {"logged_in": False, "detail": "", "summary": "not logged in"}
        with pytest.raises(UnknownProviderError, match="known providers"):
            login("no-such-provider")
    finally:
        card.close()


def test_card_oauth_code_round_trip(register: Callable[..., AgentProvider], comms: Any) -> None:
    register("fake-card-code", CODE)
    card = login("fake-card-code")
    try:
        card.perform("start", {"login_kind": "oauth-code"})
        assert card.pending_login is not None
        assert card.pending_login["url"].startswith("https://login.example.test/")
        with pytest.raises(LoginFailedError):
            card.perform("submit_code", {"code": "wrong#code"})
        assert card.pending_login is not None  # still waiting for a good code
        card.perform("submit_code", {"code": FakeAuthFlow.GOOD_CODE})
        assert card.pending_login is None
        assert card.status is not None and card.status["logged_in"] is True
        assert FakeAuthFlow.GOOD_CODE not in card_state(card)
        with pytest.raises(ValueError, match="unknown login kind"):
            card.perform("start", {"login_kind": "telepathy"})
    finally:
        card.close()


def test_card_api_key_never_reaches_a_trait_and_errors_come_back(
    register: Callable[..., AgentProvider], comms: list[RecordingComm]
) -> None:
    register("fake-card-key", KEY)
    card = login("fake-card-key")
    try:
        channel = card.comm
        assert isinstance(channel, RecordingComm)
        channel.clear()
        card._run_action({"kind": "action", "id": "r1", "action": "save_key", "key": SECRET})
        assert card.status is not None
        assert card.status["logged_in"] is True
        assert card.has_stored_key is True
        assert SECRET not in card_state(card)
        assert SECRET not in json.dumps([data for _, data, _ in channel.sent], default=str)
        assert channel.customs() == [{"kind": "result", "id": "r1", "ok": True}]
        card._run_action({"kind": "action", "id": "r2", "action": "start"})
        assert channel.customs()[-1]["ok"] is False
        assert "offers no" in channel.customs()[-1]["error"]
        card._run_action({"kind": "action", "id": "r3", "action": "explode"})
        assert channel.customs()[-1] == {
            "kind": "result",
            "id": "r3",
            "ok": False,
            "error": "unknown action 'explode'",
        }
    finally:
        card.close()


def test_cards_follow_changes_made_elsewhere(
    register: Callable[..., AgentProvider], comms: Any
) -> None:
    provider = register("fake-card-sync", KEY)
    first, second = login("fake-card-sync"), login("fake-card-sync")
    try:
        provider.auth_flow().save_key(SECRET)  # from Python, not from a card
        for card in (first, second):
            assert card.status is not None
            assert card.status["logged_in"] is True
            assert card.has_stored_key is True
        first.perform("forget_key", {})
        assert second.status is not None
        assert second.status["logged_in"] is False
    finally:
        first.close()
        second.close()
    provider.auth_flow().save_key(SECRET)  # a closed card stops listening
    assert first.status is not None
    assert first.status["logged_in"] is False


def test_card_shows_a_status_it_cannot_read(
    register: Callable[..., AgentProvider], comms: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = register("fake-card-broken", EXTERNAL)

    def broken() -> Any:
        raise LoginFailedError("the CLI crashed")

    monkeypatch.setattr(flow_of(provider), "status", broken)
    card = login("fake-card-broken")
    try:
        assert card.status is None and card.status_error == "the CLI crashed"
    finally:
        card.close()
