"""Conformance: the provider template fails each obligation it leaves to write, saying what.

The template (``lab_widget/provider/_template/``) is what a new provider starts from. Run
against the suite, every obligation whose piece it leaves open fails with the message of
that piece ("fill in <file> <what>"), so a copy of it is finished when the suite passes.
"""

from __future__ import annotations

import pytest

from lab_widget.provider._template import TemplateProvider
from tests.support.kits import kit_for

from .obligations import OBLIGATIONS

PLACEHOLDERS_PASS = {"seeding", "neutral-copy"}
"""Obligations the template meets as shipped: its seeding layout is a placeholder the
compat page must still verify, and its names are neutral."""


@pytest.mark.parametrize("obligation", sorted(OBLIGATIONS))
def test_the_template_says_what_each_obligation_needs(obligation: str) -> None:
    kit = kit_for("fake")  # any recorded samples: the template reads none of them
    assert kit is not None
    check = OBLIGATIONS[obligation]
    if obligation in PLACEHOLDERS_PASS:
        check(TemplateProvider(), kit)
        return
    with pytest.raises(NotImplementedError, match=r"^fill in lab_widget/provider/_template/\S+"):
        check(TemplateProvider(), kit)
