"""Live: real ACP agents (the pinned CLIs in their ACP modes) against the scripted model,
driven through ``AcpAgent``: a reply, a tool call with its result, a permission answered
once and always, a cancel, usage. Each agent shares its TUI provider's isolated setup.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

from lab_widget import AcpAgent, Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget import lab_home as home_of_runs
from lab_widget._install import tools_dir
from lab_widget.provider.codex._compat import NATIVE_BINARY
from lab_widget.provider.kit import api_base_url
from tests.support.kernels import running_kernel, user_value

pytestmark = pytest.mark.live


@dataclass(frozen=True)
class Case:
    """One ACP agent: the words that start it in ACP mode, its shell tool, whether it asks
    before a shell command (under ``ask``, the run options that make it ask), and either the
    TUI provider whose isolated setup it shares or the environment that points it at the
    scripted model.
    """

    name: str
    binary: str
    acp_args: tuple[str, ...]
    shell: str
    asks: bool
    ask: dict[str, Any] = field(default_factory=dict)
    config_from: str | None = None
    openai_env: bool = False
    venv: str | None = None
    """The environment under ``tools/venvs`` a Python agent is installed in (else npm's)."""
    path: tuple[Path, ...] = ()
    """Folders put first on the agent's ``PATH``."""

    def agent(self, model: ScriptedModel) -> AcpAgent:
        bin_dir = tools_dir() / "venvs" / self.venv / "bin" if self.venv else None
        binary = (bin_dir or tools_dir() / "node_modules" / ".bin") / self.binary
        if not binary.exists():
            pytest.fail(f"{binary} is not installed: run `make setup`")
        env: dict[str, str] = {}
        if self.openai_env:
            # No TUI provider of this CLI here: its documented OpenAI-compatible variables.
            home = home_of_runs() / f"{self.name}-home"
            home.mkdir(parents=True, exist_ok=True)
            env = {
                "HOME": str(home),
                "OPENAI_API_KEY": model.api_key,
                "OPENAI_BASE_URL": api_base_url(model.base_url),
                "OPENAI_MODEL": "scripted",
            }
        if self.path:
            env["PATH"] = os.pathsep.join([*map(str, self.path), os.environ["PATH"]])
        return AcpAgent(
            f"{self.name}-acp",
            [str(binary), *self.acp_args],
            env=env,
            config_from=self.config_from,
        )

    def tool(self, command: str) -> ToolUse:
        return ToolUse(self.shell, {"command": command, "description": "run it"})


OPENCODE = Case(
    "opencode", "opencode", ("acp",), "bash", True, {"permission": {"bash": "ask"}}, "opencode"
)
GEMINI = Case("gemini", "gemini", ("--acp",), "run_shell_command", False, config_from="gemini")
COPILOT = Case("copilot", "copilot", ("--acp",), "Bash", True, config_from="copilot")
QWEN = Case(
    "qwen",
    "qwen",
    ("--acp", "--auth-type", "openai"),
    "run_shell_command",
    False,
    openai_env=True,
)
# Its read-only commands (echo) run unasked, as in its TUI.
VIBE = Case("vibe", "vibe-acp", (), "Bash", False, config_from="mistral-vibe", venv="mistral-vibe")


def codex_resources() -> Path:
    """The folder of the pinned Codex CLI's own bubblewrap, beside its native binary."""
    native = NATIVE_BINARY.resolve(tools_dir() / "node_modules" / ".bin" / "codex")
    if native is None:
        pytest.fail("the pinned Codex CLI is not installed: run `make setup`")
    return native.parents[1] / "codex-resources"


# Codex's adapter reads the Codex TUI's isolated CODEX_HOME. Its model is one its own
# catalog holds: with the TUI's (unknown to it) it says so in the reply's first chunk. Its
# unified exec is off: that shell's end event at times carries no output (the model gets
# it), the classic shell's always does. It ships no bubblewrap for the sandbox its commands
# run in (they fail without one): the Codex CLI's is lent. In its default mode an echo
# runs unasked.
CODEX = Case(
    "codex",
    "codex-acp",
    ("-c", 'model="gpt-5.3-codex"', "-c", "features.unified_exec=false"),
    "Bash",
    False,
    config_from="codex",
)


def script(case: Case) -> ScriptedModel:
    return ScriptedModel(
        rules=[
            Rule("hello", [Reply("Hi there.")]),
            Rule("echo", [Reply("Running.", tools=[case.tool("echo 42")]), Reply("Done.")]),
            Rule("again", [Reply("Again.", tools=[case.tool("echo 43")]), Reply("Redone.")]),
            Rule("slow", [Reply("Slowly.", delay=60)]),
        ]
    )


def tools(run: Run) -> list[tuple[str, str]]:
    return [(m.tool.status, m.tool.output or "") for m in run.messages if m.tool is not None]


@pytest.mark.parametrize(
    "case", [OPENCODE, GEMINI, COPILOT, QWEN, VIBE, CODEX], ids=lambda c: c.name
)
def test_reply_and_tool_call(case: Case, lab_home: Path, workdir: Path) -> None:
    if case is CODEX:
        case = replace(case, path=(codex_resources(),))
    model = script(case).start()
    run = Run(case.agent(model), cwd=workdir, model=model, **case.ask)
    try:
        run.send("hello", ready_timeout=120)
        assert run.wait(timeout=120) == "idle", run.screen()
        assert [(m.role, m.text) for m in run.messages if m.kind == "text"] == [
            ("user", "hello"),
            ("assistant", "Hi there."),
        ]
        run.send("echo it")
        if case.asks:
            assert run.wait_for(lambda r: r.pending_dialog is not None, 90), run.screen()
            assert run.state == "question"
            dialog = run.pending_dialog
            assert dialog is not None and dialog.kind == "approval"
            labels = [o.label for o in dialog.questions[0].options]
            assert labels[:2] == ["Approve", "Approve always"] and "Reject" in labels
            final = run.answer("approve")
            assert (final.status, final.outcome) == ("answered", "approved"), final
        assert run.wait_for(lambda r: r.messages[-1].text == "Done.", 120), run.screen()
        assert run.wait(timeout=60) == "idle"
        [(status, output)] = tools(run)
        assert status == "ok"
        if case.name != "gemini":  # its content is the command's description
            assert "42" in output
        if case.name == "codex":
            assert output == "42\n"  # the content's fences are not shown
        if case.name in ("opencode", "copilot", "vibe"):
            assert run.usage.input_tokens > 0  # the prompt's answer carries the turn's usage
        if case.name == "codex":  # its usage is the context's, in its usage updates
            assert (run.session.context_tokens or 0) > 0 and run.session.context_window
    finally:
        run.stop()
    assert run.state == "ended"


def test_permission_always_and_cancel(lab_home: Path, workdir: Path) -> None:
    case = OPENCODE
    model = script(case).start()
    run = Run(case.agent(model), cwd=workdir, model=model, **case.ask)
    try:
        run.send("echo it", ready_timeout=120)
        assert run.wait_for(lambda r: r.pending_dialog is not None, 90), run.screen()
        final = run.answer("approve_always")
        assert (final.status, final.outcome) == ("answered", "approved always"), final
        assert run.wait_for(lambda r: r.messages[-1].text == "Done.", 120), run.screen()
        assert run.wait(timeout=60) == "idle"
        run.send("again")
        assert run.wait_for(lambda r: r.messages[-1].text == "Redone.", 120), run.screen()
        # Only the first command was asked: always took.
        assert [m.kind for m in run.messages].count("dialog") == 1
        assert run.wait(timeout=60) == "idle"
        asked = len(model.scripted_requests)
        run.send("slow")
        assert run.state == "working"
        # Cancelled once the agent is in the turn (a cancel before it is one it may ignore).
        assert run.wait_for(lambda r: len(model.scripted_requests) > asked, 60)
        run.interrupt()
        # The agent's own answer: the prompt returned with its stop reason, cancelled.
        cancelled = "The turn ended: cancelled."
        assert run.wait_for(lambda r: any(m.text == cancelled for m in r.messages), 60)
        assert run.wait(timeout=60) == "idle", run.screen()
    finally:
        run.stop()


ADOPT = """
import json
import lab_widget
[run] = lab_widget.runs()
before = [m.text for m in run.messages]
run.send("hello again")
state = run.wait(timeout=120)
print(json.dumps({"id": run.id, "name": run.display_name, "before": before, "state": state,
                  "after": [m.text for m in run.messages]}))
"""


def test_a_fresh_kernel_readopts_the_agent_and_goes_on(lab_home: Path, workdir: Path) -> None:
    # The agent and its session outlive the process that started them: a new kernel finds
    # them through runs(), reads the conversation back and prompts the same session.
    case = OPENCODE
    model = script(case).start()
    with Run(case.agent(model), cwd=workdir, model=model, **case.ask) as run:
        run.send("hello", ready_timeout=120)
        assert run.wait(timeout=120) == "idle"
        mine = [m.text for m in run.messages]
        out = subprocess.run(
            [sys.executable, "-c", ADOPT],
            env={**os.environ, "LAB_WIDGET_HOME": str(lab_home)},
            capture_output=True,
            text=True,
            timeout=240,
            check=False,  # its stderr is the failure's message
        )
        assert out.returncode == 0, out.stderr
        adopted = json.loads(out.stdout)
        assert adopted["id"] == run.id and adopted["name"] == "opencode-acp"
        assert adopted["before"] == mine and adopted["state"] == "idle"
        assert adopted["after"] == [*mine, "hello again", "Hi there."]
        assert run.wait_for(lambda r: len(r.messages) == 4, 30)  # this kernel sees it too


def test_a_killed_agent_ends_the_run_with_its_exit_code(lab_home: Path, workdir: Path) -> None:
    case = COPILOT
    model = script(case).start()
    run = Run(case.agent(model), cwd=workdir, model=model)
    try:
        run.send("hello", ready_timeout=120)
        assert run.wait(timeout=120) == "idle"
        log = (lab_home / "runs" / run.id / "acp.jsonl").read_text().splitlines()
        [pid] = [json.loads(line)["pid"] for line in log if '"ev": "spawned"' in line]
        os.kill(pid, signal.SIGKILL)
        assert run.wait_for(lambda r: r.state == "ended", 60), run.screen()
        last = run.messages[-1]
        assert (last.text, last.level) == ("The agent exited with code -9.", "error")
        assert "exited with code -9" in run.state_reason
    finally:
        run.stop()


@dataclass(frozen=True)
class KernelCase:
    """An ACP agent given the kernel's tools: the name it offers ``run_python`` under (and
    titles its calls with), and the run options that make it ask before that tool.
    """

    case: Case
    run_python: str
    ask: dict[str, Any] = field(default_factory=dict)


KERNEL_CASES = {
    "opencode": KernelCase(
        OPENCODE, "kernel_run_python", {"permission": {"kernel_run_python": "ask"}}
    ),
}
"""Each ACP agent checked with the kernel's tools, by its case's name."""

CALL = "x = len(df)\nprint('rows:', x)"


@pytest.fixture
def kernel() -> Iterator[KernelManager]:
    with running_kernel("import pandas as pd\ndf = pd.DataFrame({'a': range(7)})") as manager:
        yield manager


def counting_run(
    kc: KernelCase, workdir: Path, kernel: KernelManager, options: dict[str, Any]
) -> Run:
    """A run of the agent on the kernel whose model calls ``run_python`` once, prompted."""
    turn = [
        Reply("Counting in your kernel.", tools=[ToolUse(kc.run_python, {"code": CALL})]),
        Reply("Done."),
    ]
    model = ScriptedModel(rules=[Rule("count", turn)], fallback="ok").start()
    run = Run(
        kc.case.agent(model), cwd=workdir, model=model, kernel=kernel.connection_file, **options
    )
    run.send("count the rows of df into x", ready_timeout=120)
    return run


@pytest.mark.parametrize("answer", ["approve", "reject"])
@pytest.mark.parametrize("name", sorted(KERNEL_CASES))
def test_kernel_run_python_is_asked_with_its_code(
    name: str, answer: str, lab_home: Path, workdir: Path, kernel: KernelManager
) -> None:
    kc = KERNEL_CASES[name]
    run = counting_run(kc, workdir, kernel, kc.ask)
    try:
        assert run.wait_for(lambda r: bool(r.pending_dialog and r.pending_dialog.body), 90), (
            run.screen()
        )
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert dialog.tool_name == kc.run_python
        assert "x = len(df)" in dialog.body and dialog.body.startswith("```python")
        # Approved call by call, or for this run: no "always" of the agent's own.
        labels = [o.label for o in dialog.questions[0].options]
        assert labels == ["Approve", "Approve for this run", "Reject"]
        assert user_value(kernel, "'x' in globals()") == "False"
        final = run.answer(answer)
        assert final.outcome == ("approved" if answer == "approve" else "rejected"), final
        assert run.wait(timeout=120) == "idle", run.screen()
        [card] = [m.tool for m in run.messages if m.tool and m.tool.name == kc.run_python]
        if answer == "approve":
            assert run.wait_for(lambda r: r.messages[-1].text == "Done.", 60), run.screen()
            assert user_value(kernel, "x") == "7"
            assert (card.status, card.input.get("code")) == ("ok", CALL)
            assert "rows: 7" in (card.output or "")
        else:
            assert user_value(kernel, "'x' in globals()") == "False"
            assert card.status == "error"
    finally:
        run.stop()


@pytest.mark.parametrize("name", sorted(n for n, kc in KERNEL_CASES.items() if kc.ask))
def test_kernel_run_python_unasked_is_refused(
    name: str, lab_home: Path, workdir: Path, kernel: KernelManager
) -> None:
    # Without the options that make it ask, the agent calls the tool unasked: the gate
    # between it and the server refuses the call, and nothing runs in the kernel.
    kc = KERNEL_CASES[name]
    run = counting_run(kc, workdir, kernel, {})
    try:
        assert run.wait_for(lambda r: r.messages[-1].text == "Done.", 120), run.screen()
        assert run.wait(timeout=60) == "idle"
        assert run.pending_dialog is None
        [card] = [m.tool for m in run.messages if m.tool and m.tool.name == kc.run_python]
        assert card.status == "error" and "without the user's approval" in (card.output or "")
        assert any(m.level == "warning" and "refused" in m.text for m in run.messages)
        assert user_value(kernel, "'x' in globals()") == "False"
    finally:
        run.stop()
