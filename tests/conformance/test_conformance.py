"""Conformance: every registered provider against every obligation, offline.

Parametrised over :func:`lab_widget.provider.provider_ids` at collection time, so a
provider added to the registry is covered without touching this file; without a kit in
``tests/support/kits.py`` it fails with what to add.
"""

from __future__ import annotations

import pytest

from lab_widget.provider import _registry, get_provider, provider_ids
from tests.support.kits import require_kit

from .obligations import OBLIGATIONS

PROVIDERS = provider_ids()


def test_the_suite_covers_every_registered_provider() -> None:
    assert {"claude-code", "fake"} <= set(PROVIDERS)


@pytest.mark.parametrize("obligation", sorted(OBLIGATIONS))
@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_provider_meets_obligation(
    provider_id: str, obligation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A provider instance of its own: what a check's runs leave on the shared instance
    # (the epochs a clear opened, by transcript id) must not reach other tests, which read
    # the same recorded sessions.
    monkeypatch.setattr(_registry, "_instances", {})
    OBLIGATIONS[obligation](get_provider(provider_id), require_kit(provider_id))


def test_a_provider_without_a_kit_fails_saying_what_to_add() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"'newcomer' has no conformance kit") as e:
        require_kit("newcomer")
    assert "KITS in tests/support/kits.py" in str(e.value)
    assert "tests/fixtures/newcomer/" in str(e.value)
