"""The suite's own tests: every obligation catches an adapter that breaks it, names
itself in the failure, and lets the well-behaved fake provider pass."""

from __future__ import annotations

import pytest

from tests.support.fake_provider import FakeProvider
from tests.support.kits import kit_for

from .broken import BROKEN
from .obligations import OBLIGATIONS, ConformanceFailure

CASES = [
    pytest.param(obligation, adapter, id=f"{obligation}-{adapter.__name__}")
    for obligation, adapters in sorted(BROKEN.items())
    for adapter in adapters
]


def test_every_obligation_has_a_broken_adapter() -> None:
    assert set(BROKEN) == set(OBLIGATIONS)


@pytest.mark.parametrize(("obligation", "adapter"), CASES)
def test_obligation_fails_a_broken_adapter_and_names_itself(
    obligation: str, adapter: type[FakeProvider]
) -> None:
    kit = kit_for("fake")
    assert kit is not None
    with pytest.raises(ConformanceFailure) as failure:
        OBLIGATIONS[obligation](adapter(), kit)
    assert failure.value.obligation == obligation
    assert str(failure.value).startswith(f"[{obligation}] {adapter.meta.id}: ")


@pytest.mark.parametrize(("obligation", "adapter"), CASES)
def test_a_broken_adapter_breaks_only_what_it_means_to(
    obligation: str, adapter: type[FakeProvider]
) -> None:
    # So a failure points at one obligation, the others pass for the same adapter.
    kit = kit_for("fake")
    assert kit is not None
    for other, check in OBLIGATIONS.items():
        if other != obligation:
            check(adapter(), kit)
