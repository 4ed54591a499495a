"""Unit: every provider's compat records carry their evidence and are on its compat page."""

from __future__ import annotations

import importlib
import re
from types import ModuleType

import pytest

from lab_widget.compat import PINS
from lab_widget.provider import Coupling, Evidence, KeyRecipe, TuiProvider, get_provider
from tests.support.paths import ROOT

DOCS = ROOT / "docs" / "compat"
PINNED = sorted(PINS)
KINDS = ("live", "fixture", "unit", "conformance", "measured", "extraction")
"""How a coupling may be shown to hold (see the compat pages)."""
CHECK = re.compile(rf"({'|'.join(KINDS)}): \S")
"""Evidence opens with the kind of check and what it is (a test, a fixture, a command)."""
PLAYED = ("PASTE", "INITIAL_PROMPT", "INTERRUPT", "APPROVAL", "STARTUP", "RESTORED_INPUT", "SEED")
"""The records a :class:`TuiProvider` plays, by the names its ``_compat`` gives them."""


def compat_module(provider_id: str) -> ModuleType:
    package = type(get_provider(provider_id)).__module__.rpartition(".")[0]
    return importlib.import_module(f"{package}._compat")


def records(module: ModuleType) -> dict[str, Coupling]:
    return {name: value for name, value in vars(module).items() if isinstance(value, Coupling)}


@pytest.mark.parametrize("provider_id", PINNED)
def test_every_record_names_the_pinned_version_and_how_it_was_verified(provider_id: str) -> None:
    module = compat_module(provider_id)
    found = records(module)
    assert found, f"{provider_id}: _compat.py pins no coupling record"
    for name, record in found.items():
        assert record.evidence.version == module.VERSION == PINS[provider_id].version, name
        assert CHECK.match(record.evidence.how), (
            f"{provider_id} {name}: evidence {record.evidence.how!r} names no check ({KINDS})"
        )


@pytest.mark.parametrize("provider_id", PINNED)
def test_every_record_is_listed_on_the_compat_page(provider_id: str) -> None:
    page = (DOCS / f"{provider_id}.md").read_text()
    missing = [name for name in records(compat_module(provider_id)) if f"`{name}`" not in page]
    assert missing == [], f"docs/compat/{provider_id}.md does not list {missing}"


@pytest.mark.parametrize("provider_id", PINNED)
def test_what_the_tui_base_plays_is_the_providers_own_compat_record(provider_id: str) -> None:
    provider = get_provider(provider_id)
    assert isinstance(provider, TuiProvider)
    module = compat_module(provider_id)
    assert provider.couplings is module
    for name in PLAYED:
        value = getattr(module, name)
        assert value is None or isinstance(value, Coupling), name


def test_the_evidence_check_sees_a_record_without_it() -> None:
    # A sanity check so the guards above can never go blind.
    module = ModuleType("probe")
    module.VERSION = "1.0"  # type: ignore[attr-defined]
    module.KEYS = KeyRecipe(keys=("x",), evidence=Evidence("0.9", "hearsay"))  # type: ignore[attr-defined]
    found = records(module)
    assert list(found) == ["KEYS"]
    assert found["KEYS"].evidence.version != module.VERSION
    assert not CHECK.match(found["KEYS"].evidence.how)
    assert CHECK.match("live: test_interrupt; fixture: interrupt.jsonl")
