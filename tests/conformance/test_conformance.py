"""Conformance: every registered provider against every obligation, offline.

Parametrised over :func:`lab_widget.provider.provider_ids` at collection time, so a
provider added to the registry is covered without touching this file; without a kit in
``tests/conformance/kits.py`` it fails with what to add.
"""

from __future__ import annotations

import pytest

from lab_widget.provider import get_provider, provider_ids

from .kits import kit_for
from .obligations import OBLIGATIONS

PROVIDERS = provider_ids()


def test_the_suite_covers_every_registered_provider() -> None:
    assert {"claude-code", "fake"} <= set(PROVIDERS)


@pytest.mark.parametrize("obligation", sorted(OBLIGATIONS))
@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_provider_meets_obligation(provider_id: str, obligation: str) -> None:
    kit = kit_for(provider_id)
    if kit is None:
        pytest.fail(
            f"provider {provider_id!r} has no conformance kit: add `{provider_id!r}: "
            f"_<name>_kit` to KITS in tests/conformance/kits.py, with sample transcripts "
            f"recorded into tests/fixtures/{provider_id}/ (see docs/conformance.md)"
        )
    OBLIGATIONS[obligation](get_provider(provider_id), kit)
