"""Browser: a real JupyterLab in Debian's Chromium shows a live Run of the real pinned CLI."""

from __future__ import annotations

import json
import shutil
import statistics
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import lab_widget
from tests.support.browser import (
    contrast,
    open_chat,
    send,
    texts,
    use_theme,
    wait_text,
)
from tests.support.paths import ROOT

ARTIFACTS = ROOT / "build" / "test-artifacts"

PAYLOAD = (
    "Payloads follow. <img src=x onerror=\"window.__xss='img'\"> "
    "<script>window.__xss='script'</script> "
    "[a link](javascript:window.__xss='md-link') "
    "<a href=\"javascript:window.__xss='a'\">raw link</a> "
    "<iframe src=\"javascript:window.__xss='iframe'\"></iframe> END-OF-PAYLOAD"
)

CELL = f"""
import tempfile
from lab_widget import Reply, Rule, Run, ScriptedModel

model = ScriptedModel(
    rules=[
        Rule("hello", Reply("Hello from the **scripted** model.", thinking="First I greet.")),
        Rule("payload", {PAYLOAD!r}),
    ],
    fallback="ok",
)
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""


def probe_entry(text: str) -> str:
    entry = {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "message": {
            "id": f"msg_probe_{uuid.uuid4().hex}",
            "type": "message",
            "role": "assistant",
            "model": "probe",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    return json.dumps(entry) + "\n"


def tool_entries(payload: str) -> str:
    """A Bash call whose command and output carry ``payload``, as transcript lines."""
    tool_id = f"toolu_probe_{uuid.uuid4().hex}"
    stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    call = {
        "type": "assistant",
        "uuid": str(uuid.uuid4()),
        "timestamp": stamp,
        "message": {
            "id": f"msg_probe_{uuid.uuid4().hex}",
            "type": "message",
            "role": "assistant",
            "model": "probe",
            "content": [
                {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": payload}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    result = {
        "type": "user",
        "uuid": str(uuid.uuid4()),
        "timestamp": stamp,
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": payload}],
        },
    }
    return json.dumps(call) + "\n" + json.dumps(result) + "\n"


def test_chat_in_jupyterlab(tmp_path: Path, lab_home: Path) -> None:
    with open_chat(tmp_path, lab_home, CELL) as page:
        assert page.locator(".lw-chat .lw-provider").inner_text().strip() == "Claude Code"
        assert "attach" in page.locator(".lw-chat .lw-attach").inner_text()

        # Type, press Enter, see the scripted reply rendered as markdown.
        send(page, "hello")
        wait_text(page, "Hello from the scripted model.")
        assert (
            page.locator(".lw-chat .lw-msg[data-role='assistant'] strong").first.inner_text()
            == "scripted"
        )
        assert page.locator(".lw-chat .lw-input").input_value() == ""

        # The model's thinking is there to read, in the light theme and the dark one.
        thinking = page.locator(".lw-chat details.lw-thinking").first
        thinking.locator("summary").click()
        reasoning = thinking.locator(".lw-markdown")
        assert reasoning.inner_text().strip() == "First I greet."
        light = (contrast(thinking.locator("summary")), contrast(reasoning))
        use_theme(page, "JupyterLab Dark")
        dark = (contrast(thinking.locator("summary")), contrast(reasoning))
        readable = {"light": light, "dark": dark}
        assert all(min(pair) >= 4.5 for pair in readable.values()), readable
        print(f"thinking contrast (summary, reasoning): {readable}")

        # New conversation: the /clear echo, and nothing of the old one.
        page.wait_for_selector(".lw-chat .lw-clear:not([disabled])", timeout=30_000)
        page.click(".lw-chat .lw-clear")
        wait_text(page, "/clear")
        page.wait_for_function(
            "() => ![...document.querySelectorAll('.lw-chat .lw-msg')]"
            ".some(e => e.innerText.includes('Hello from the scripted'))",
            timeout=30_000,
        )
        assert [t for t in texts(page) if t] == ["/clear"]

        # Hostile output renders as text and runs nothing.
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=30_000)
        send(page, "payload please")
        wait_text(page, "END-OF-PAYLOAD")
        page.wait_for_timeout(500)  # give any injected handler the chance to fire
        assert page.evaluate("() => window.__xss") is None
        chat = page.locator(".lw-chat")
        assert chat.locator("script, iframe, img[onerror], [onerror]").count() == 0
        assert chat.locator("a[href^='javascript']").count() == 0

        # The same payload as a tool's command and output, written to the transcript.
        [run] = lab_widget.runs()
        transcript = run.transcript_path
        assert transcript is not None
        with transcript.open("a") as f:
            f.write(tool_entries(PAYLOAD.replace("END-OF-PAYLOAD", "END-OF-TOOL-PAYLOAD")))
        page.wait_for_function(
            "() => document.querySelector('.lw-chat').textContent.includes('END-OF-TOOL-PAYLOAD')",
            timeout=30_000,
        )
        # Expanded, so anything injected would be live.
        page.evaluate(
            "() => document.querySelectorAll('.lw-chat details').forEach(d => d.open = true)"
        )
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.__xss") is None
        assert chat.locator("script, iframe, img, [onerror], a[href^='javascript']").count() == 0

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = tmp_path / "chat.png"
        page.locator(".lw-chat").screenshot(path=str(shot))
        shutil.copy(shot, ARTIFACTS / "chat.png")

        # Transcript append -> DOM, measured in the page.
        page.evaluate(
            """() => {
              window.__seen = {};
              new MutationObserver(() => {
                for (const e of document.querySelectorAll('.lw-chat .lw-msg')) {
                  const m = e.innerText.match(/latency-probe-(\\d+)/);
                  if (m && !(m[1] in window.__seen))
                    window.__seen[m[1]] = performance.timeOrigin + performance.now();
                }
              }).observe(document.body, {subtree: true, childList: true, characterData: true});
            }"""
        )
        appended: dict[str, float] = {}
        for i in range(20):
            with transcript.open("a") as f:
                appended[str(i)] = time.time() * 1000
                f.write(probe_entry(f"latency-probe-{i}"))
            page.wait_for_function("(i) => i in window.__seen", arg=str(i), timeout=30_000)
        seen = page.evaluate("() => window.__seen")
        latencies = [seen[k] - appended[k] for k in appended]
        median = statistics.median(latencies)

        figures = {
            "append_to_dom_ms_median": round(median, 1),
            "append_to_dom_ms_max": round(max(latencies), 1),
            "samples": len(latencies),
            "screenshot": str(ARTIFACTS / "chat.png"),
        }
        (ARTIFACTS / "browser-figures.json").write_text(json.dumps(figures, indent=2))
        print(f"\nbrowser figures: {figures}")
        run.stop()


def test_slash_command_autocomplete(tmp_path: Path, lab_home: Path) -> None:
    with open_chat(tmp_path, lab_home, CELL) as page:
        box = page.locator(".lw-chat .lw-input")
        box.click()
        box.type("/co")
        page.wait_for_selector(".lw-chat .lw-complete .lw-complete-item", timeout=10_000)
        names = [
            n.get_attribute("data-name") for n in page.locator(".lw-chat .lw-complete-item").all()
        ]
        prefixed = [n for n in names if n and n.startswith("/co")]
        assert len(prefixed) >= 2 and names[: len(prefixed)] == prefixed  # prefix matches first
        assert "/config" not in names  # opens a panel the widget cannot see: curated out
        box.type("nt")
        first = page.locator(".lw-chat .lw-complete-item").first
        assert first.get_attribute("data-name") == "/context"
        box.press("Tab")
        assert box.input_value() == "/context "
        box.press("Enter")
        wait_text(page, "/context")
        [run] = lab_widget.runs()
        assert run.wait_for(lambda r: any(m.command == "/context" for m in r.messages), 30)
        run.stop()


SUBAGENT_PERMISSION_CELL = """
import tempfile
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

sub_turn = [
    Reply("Making it.", tools=[ToolUse("Bash", {"command": "touch from-the-form.txt", "description": "Make"})]),
    Reply(tools=[ToolUse("SubagentHandback", {"message": "Made the file."})]),
]
agent = {"description": "Make a file", "prompt": "make the file", "subagent_type": "general-purpose"}
main_turn = [Reply("I will ask a sub-agent.", tools=[ToolUse("Agent", agent)]),
             Reply("Waiting for the sub-agent."), Reply("The sub-agent reported.")]
model = ScriptedModel(rules=[Rule("make the file", sub_turn), Rule("please delegate", main_turn)])
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model,
          permission_mode="default")
run
"""


def test_answer_a_sub_agents_permission_always_from_the_form(
    tmp_path: Path, lab_home: Path
) -> None:
    with open_chat(tmp_path, lab_home, SUBAGENT_PERMISSION_CELL) as page:
        send(page, "please delegate")
        form = page.locator(".lw-chat .lw-dialog-form")
        form.wait_for(timeout=90_000)
        assert "Asked by the general-purpose sub-agent." in form.inner_text()
        assert "touch from-the-form.txt" in form.inner_text()
        form.locator("input[value='Approve always']").check()
        page.click(".lw-chat .lw-dialog-submit")
        outcome = page.locator(".lw-chat .lw-dialog[data-status='answered'] .lw-dialog-outcome")
        outcome.wait_for(timeout=90_000)
        assert "approved always" in outcome.inner_text()
        # The answered prompt stays inside the Agent call's card, where it was asked.
        nested = page.locator(".lw-chat .lw-subthread .lw-dialog[data-status='answered']")
        assert nested.count() == 1
        [run] = lab_widget.runs()
        assert (run.cwd / "from-the-form.txt").exists()
        # The sub-agent's report is its reply, once, before the main agent's answer; the
        # hand-back call that carried it shows nowhere.
        wait_text(page, "The sub-agent reported.", timeout=90_000)
        page.locator(".lw-chat details.lw-tool:has(.lw-subthread)").first.evaluate(
            "card => { card.open = true; }"
        )
        chat = page.locator(".lw-chat .lw-log").inner_text()
        assert "SubagentHandback" not in chat
        assert "Made the file." in page.locator(".lw-chat .lw-subthread").inner_text()
        # Seen once: the call's result, the same words, is not shown again above it.
        assert chat.count("Made the file.") == 1, chat
        assert chat.index('Agent "Make a file" finished') < chat.index("The sub-agent reported.")
        run.stop()
