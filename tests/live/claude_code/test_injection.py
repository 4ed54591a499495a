"""Live: hostile prompts reach the real pinned Claude Code each as exactly one user message,
byte-exact but for what the TUI itself normalises, and reach the model the same way."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from lab_widget import Run, ScriptedModel
from tests.support.hostile import CORPUS, printable


def test_claude_gets_each_prompt_once_and_exact(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(fallback="Got it.")
    with Run("claude-code", cwd=workdir, model=model) as run:
        for count, (name, prompt) in enumerate(CORPUS.items(), start=1):
            run.send(prompt)
            assert run.wait(timeout=90) == "idle", name

            def answered(r: Run, n: int = count) -> bool:
                return sum(m.role == "assistant" for m in r.messages) >= n

            assert run.wait_for(answered, 30), name
            users = [m for m in run.messages if m.role == "user"]
            assert len(users) == count, (name, [m.text[:80] for m in users])
            got, want = users[-1].text, printable(prompt)
            # The TUI keeps a tab, or (collapsing a large paste) expands it to four spaces,
            # and it stores text in Unicode NFC: all seen on the pinned version; nothing else
            # may differ.
            nfc = unicodedata.normalize("NFC", want)
            allowed = {want, want.replace("\t", "    "), nfc, nfc.replace("\t", "    ")}
            assert got in allowed, (name, got[:200], want[:200])
            assert [m.text for m in run.messages if m.role == "assistant"] == ["Got it."] * count
            assert not any(m.kind == "lifecycle" for m in run.messages), name
            # What reached the model: the same text, in one request of this turn.
            assert len(model.scripted_requests) == count, name
            sent = model.scripted_requests[-1].user_text
            assert nfc.replace("\t", "") in sent.replace("\t", "").replace("    ", ""), name
