"""Hostile prompts: each arrives as exactly one user message, its printable characters and
line breaks byte-exact, triggering nothing else (no interrupt, no key, no second submit).

Run against the fake agent under real tmux, and (live) against the real pinned Claude Code
with the scripted model, which also records what reached the model.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from lab_widget import Run, ScriptedModel

CORPUS = {
    "c0": "c0:" + "".join(chr(c) for c in range(0x20) if chr(c) not in "\n\r\t") + ":end",
    "c1-del": "c1:\x7f" + "".join(chr(c) for c in range(0x80, 0xA0)) + ":end",
    "esc-csi": "esc \x1b csi \x1b[2J\x1b[H\x1b[31mred\x1b[0m osc \x1b]0;title\x07 \x1bOA end",
    "paste-end": "before \x1b[201~ after \x1b[200~ again \x1b[201~\x1b[201~ done",
    "tmux-keys": "C-c",
    "tmux-keys-words": "C-c Enter Escape Up Down C-d M-x BSpace ; send-keys q",
    "crlf": "one\r\ntwo\rthree\nfour",
    "multiline": "line 1\n  indented 2\n\n\nafter blanks\n\ttab",
    "rtl-emoji": "שלום עולם مرحبا بالعالم \u202eevil\u202c 👩\u200d💻 🇯🇵 e\u0301 \U0001f600",
    "shell": "$(id) `id` ${HOME} && rm -rf / ; | > /dev/null",
    "long": "".join(f"word{i} " for i in range(2500)) + "\n" + "x" * 5000,
}


BIDI = {chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}


def printable(text: str) -> str:
    """What must arrive: line breaks (CR and CRLF as LF) and tabs, and every character that is
    neither a control character nor a bidi override; those are dropped, never acted on."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(
        ch for ch in text if ch in "\n\t" or (unicodedata.category(ch) != "Cc" and ch not in BIDI)
    )


@pytest.mark.parametrize("name", list(CORPUS))
def test_fake_agent_gets_each_prompt_once_and_exact(
    lab_home: Path, workdir: Path, name: str
) -> None:
    run = Run("fake", cwd=workdir)
    try:
        run._chat.wait_ready(10)
        run.send(CORPUS[name])
        assert run.wait(timeout=20) == "idle"
        assert run.wait_for(lambda r: len(r.messages) >= 2, 5)
        kinds = [(m.kind, m.role) for m in run.messages]
        assert kinds == [("text", "user"), ("text", "assistant")], run.messages
        assert run.messages[0].text == printable(CORPUS[name])
        run.send("next")  # the agent still takes input normally afterwards
        assert run.wait_for(lambda r: r.messages[-1].text == "echo: next", 10)
    finally:
        run.stop()


@pytest.mark.live
@pytest.mark.usefixtures("claude_binary")
def test_claude_gets_each_prompt_once_and_exact(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(fallback="Got it.")
    run = Run("claude-code", cwd=workdir, model=model)
    try:
        for count, (name, prompt) in enumerate(CORPUS.items(), start=1):
            run.send(prompt)
            assert run.wait(timeout=90) == "idle", name
            assert run.wait_for(
                lambda r, n=count: sum(m.role == "assistant" for m in r.messages) >= n, 30
            ), name
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
    finally:
        run.stop()
