"""Live: a prompt's @mentions reach the real pinned Claude Code described, over the real
scripted model, and the run's record exports to a notebook that validates."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from lab_widget import Rule, Run, ScriptedModel

pytestmark = [pytest.mark.usefixtures("claude_binary")]


def test_the_agent_receives_the_described_variables(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(rules=[Rule("summarise", "It has three rows.")])
    df = pd.DataFrame({"city": ["Oslo", "Lima", "Pune"], "temp": [4.5, 19.0, 31.2]})
    context = {"df": df, "grid": np.zeros((2, 3)), "api_key": "sk-ant-abcdefghijklmnopqrstuvwx"}
    with Run("claude-code", cwd=workdir, model=model) as run:
        run.send("summarise @df and @grid, using @api_key", context=context)
        assert run.wait(timeout=90) == "idle"
        [request] = model.scripted_requests
        received = request.user_text
        assert "summarise `df` and `grid`, using `api_key`\n\n" in received
        assert "`df`: pandas DataFrame, 3 rows × 2 columns" in received
        assert "Lima" in received and "31.2" in received  # the first rows
        assert "`grid`: numpy ndarray, shape (2, 3), dtype float64" in received
        assert "`api_key`: not expanded: its name looks like a secret." in received
        assert "sk-ant" not in received
        # The agent recorded the prompt as typed, whole (Claude Code wraps a long paste in
        # <pasted_content> on the wire; its transcript reader takes the wrapper off).
        [prompt] = [m.text for m in run.messages if m.role == "user" and m.kind == "text"]
        assert prompt.startswith("summarise `df` and `grid`, using `api_key`\n\nNotebook variables")
        assert prompt in received
        assert run.messages[-1].text == "It has three rows."

        path = run.export(workdir / "record.ipynb")
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert any("It has three rows." in c.source for c in notebook.cells)
