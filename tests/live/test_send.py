"""Live: every prompt sent arrives exactly once, in the transcript and at the model, with the
machine under load; each pinned CLI's submit is confirmed by its own record, never paced.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from lab_widget import Run, ScriptedModel
from lab_widget.compat import PINS
from tests.support.binaries import pinned_binary
from tests.support.cpu_hog import cpu_hog

pytestmark = [pytest.mark.live]

PROVIDERS = sorted(PINS)
PROMPTS = 20


@pytest.mark.parametrize("provider_id", PROVIDERS)
def test_twenty_prompts_under_load_arrive_once_each(
    provider_id: str, lab_home: Path, workdir: Path
) -> None:
    pinned_binary(provider_id)
    model = ScriptedModel(fallback="ok")
    prompts = [f"prompt number {i} of the load test" for i in range(PROMPTS)]
    with cpu_hog():
        run = Run(provider_id, cwd=workdir, model=model)
        try:
            for prompt in prompts:
                # The first goes the moment the run is ready: the riskiest send of all.
                run.send(prompt)
                assert run.wait(timeout=120) == "idle", run.screen()
            sent = [m.text for m in run.messages if m.role == "user" and m.kind == "text"]
            answered = [r.user_text for r in model.scripted_requests if not r.subagent]
        finally:
            run.stop()
            model.stop()
    assert sent == prompts
    counts = Counter(answered)
    assert [counts[p] for p in prompts] == [1] * PROMPTS, answered
