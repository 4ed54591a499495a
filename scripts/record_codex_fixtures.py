"""Record Codex rollout fixtures from a real Codex CLI against the scripted model.

Usage::

    python scripts/record_codex_fixtures.py [scenario ...]
    python scripts/record_codex_fixtures.py --version 0.150.1 [scenario ...]

Without ``--version`` the pinned CLI (the project's tools folder) records into
``tests/fixtures/codex/``. With it, that version is installed with npm OUTSIDE the
repository (``--versions-dir``, else ``$LAB_WIDGET_CODEX_VERSIONS``, else the versions cache
of ``scripts/cli_versions.py``: ``$LAB_WIDGET_CLI_CACHE`` or
``~/.cache/lab_widget/cli-versions``, as ``@openai+codex@<version>``) and records into
``tests/fixtures/codex/v<version>/``, each folder with its own ``manifest.json``. Scenarios a version cannot play (no hooks, no
sub-agent tools) are left out and the manifest says why.

Temporary paths become stable placeholders; the long instruction texts Codex repeats in
every rollout (base instructions, skills and permission notes) are shortened. A scenario
that writes several rollouts (a ``/new``) is stored as ``<name>_<n>.jsonl``; one whose
rollouts belong together (a sub-agent's beside its parent's) keeps Codex's own file names
in a folder ``<name>/``, since the reader finds a sub-agent's rollout by its name.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.kernels import running_kernel
from tests.support.local import local_parts

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "fixtures" / "codex"
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
LIMIT = 300
VERSIONS_DIR = Path(
    os.environ.get("LAB_WIDGET_CODEX_VERSIONS")
    or os.environ.get("LAB_WIDGET_CLI_CACHE")
    or Path.home() / ".cache/lab_widget/cli-versions"
).expanduser()
LEGACY_READY = 8.0
"""Seconds after spawn an older CLI is taken as ready: versions before the pin mark no
thread in ``tui-thread-reference-capabilities`` (0.150.1 and 0.80.0 checked), so the
adapter's ready signal never comes. Their TUI took input ≈ 3 s after spawn here."""


@dataclass
class Cli:
    """The Codex CLI a recording runs, and what it can do."""

    version: str
    tools: Path
    """The folder whose ``node_modules/.bin/codex`` is the CLI (a ``LAB_WIDGET_TOOLS``)."""
    pinned: bool
    help_text: str = ""
    features: dict[str, bool] = field(default_factory=dict)

    @property
    def binary(self) -> Path:
        return self.tools / "node_modules" / ".bin" / "codex"

    @property
    def hooks(self) -> bool:
        """Whether the CLI runs our hooks (0.80.0 has neither hooks nor the trust flag)."""
        from lab_widget.provider.codex import _compat  # noqa: PLC0415

        return _compat.HOOK_TRUST_FLAG in self.help_text

    @property
    def shell_tool(self) -> str:
        """The shell tool a turn offers: ``exec_command`` under unified exec, else the
        older ``shell_command`` (0.80.0 offers only that one)."""
        return "Bash" if self.features.get("unified_exec") else "shell_command"

    @property
    def subagents(self) -> bool:
        """Whether a turn offers the sub-agent tools (``multi_agent_v1.spawn_agent``)."""
        return bool(self.features.get("multi_agent") or self.features.get("multi_agent_v2"))

    @property
    def out(self) -> Path:
        return OUT if self.pinned else OUT / f"v{self.version}"


def _probe(cli: Cli) -> Cli:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CODEX_HOME": home, "HOME": home}
        cli.help_text = subprocess.run(
            [str(cli.binary), "--help"], capture_output=True, text=True, env=env, check=True
        ).stdout
        listing = subprocess.run(
            [str(cli.binary), "features", "list"],
            capture_output=True,
            text=True,
            env=env,
            check=False,  # a version without the subcommand lists no features
        ).stdout
    for row in listing.splitlines():
        parts = row.split()
        if len(parts) >= 3 and parts[-1] in ("true", "false"):
            cli.features[parts[0]] = parts[-1] == "true"
    return cli


def install(version: str, versions_dir: Path) -> Cli:
    """The CLI at ``version``, installed with npm outside the repository if needed."""
    from lab_widget.compat import PINS  # noqa: PLC0415

    pin = PINS["codex"]
    if version == pin.version:
        from lab_widget._install import tools_dir  # noqa: PLC0415

        return _probe(Cli(version=version, tools=tools_dir(), pinned=True))
    folder = versions_dir / f"{pin.npm_package.replace('/', '+')}@{version}"
    if ROOT in folder.resolve().parents:
        raise SystemExit(f"refusing to install into the repository: {folder}")
    binary = folder / "node_modules" / ".bin" / "codex"
    if not binary.exists():
        folder.mkdir(parents=True, exist_ok=True)
        manifest = folder / "package.json"
        if not manifest.exists():
            manifest.write_text('{"name": "codex-version", "private": true}\n')
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--save-exact",
                f"{pin.npm_package}@{version}",
            ],
            cwd=folder,
            check=True,
        )
    return _probe(Cli(version=version, tools=folder, pinned=False))


def _legacy_provider(cli: Cli, extra_argv: list[str]) -> Any:
    """The Codex adapter, driven with the knobs an older CLI understands.

    An older CLI without ``--dangerously-bypass-hook-trust`` gets no hook overrides (it
    would refuse the flag); one without thread markers counts as ready ``LEGACY_READY``
    seconds after spawn. ``extra_argv`` is appended (a scenario's ``--image``).
    """
    from lab_widget.provider import SpawnPlan  # noqa: PLC0415
    from lab_widget.provider.codex import CodexProvider, _compat  # noqa: PLC0415

    class Recorder(CodexProvider):
        def plan_spawn(self, request: Any) -> Any:
            plan = super().plan_spawn(request)
            argv = list(plan.argv)
            if not cli.hooks:
                kept = [argv[0]]
                rest = iter(argv[1:])
                for arg in rest:
                    if arg == _compat.HOOK_TRUST_FLAG:
                        continue
                    if arg == "-c":
                        value = next(rest)
                        if not value.startswith("hooks."):
                            kept += [arg, value]
                        continue
                    kept.append(arg)
                argv = kept
            return SpawnPlan(
                argv=[*argv, *extra_argv],
                env=plan.env,
                cwd=plan.cwd,
                secret_env=plan.secret_env,
                unset_env=plan.unset_env,
            )

        def is_ready(self, context: Any) -> bool:
            if super().is_ready(context):
                return True
            if cli.pinned:
                return False
            since = float(self._run_state(context).get("spawned_at") or 0.0)
            return time.time() - since >= LEGACY_READY

    return Recorder()


def png(width: int = 2, height: int = 2) -> bytes:
    """A tiny red PNG, built here so the fixture's image is known byte for byte."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


ENCRYPTED = base64.b64encode(b"opaque reasoning the vendor keeps encrypted").decode()


QUOTA_RESET = 1796180400
"""2026-12-02T03:00:00Z: a fixed reset time, so the rate-limit fixture is stable."""

QUOTA_HEADERS = {
    # As the vendor's server sends them (codex-rs/codex-api/src/rate_limits.rs).
    "x-codex-primary-used-percent": "42.5",
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-at": str(QUOTA_RESET),
    "x-codex-secondary-used-percent": "7",
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-at": str(QUOTA_RESET + 6 * 86400),
    "x-codex-credits-has-credits": "true",
    "x-codex-credits-unlimited": "false",
    "x-codex-credits-balance": "12.34",
}


QUESTIONS = [
    {
        "id": "db",
        "header": "Database",
        "question": "Which database should we use?",
        "options": [
            {"label": "SQLite", "description": "a file"},
            {"label": "Postgres", "description": "a server"},
        ],
    },
    {
        "id": "ui",
        "header": "Interface",
        "question": "Which interface?",
        "options": [
            {"label": "CLI", "description": "terminal"},
            {"label": "Web", "description": "browser"},
        ],
    },
]
"""Plan mode's ``request_user_input`` questions (``plan_question``)."""


def script(cli: Cli, work: Path, outside: Path, headers: dict[str, str] | None = None) -> Any:
    from lab_widget import Reply, Rule, ScriptedModel, ToolUse  # noqa: PLC0415
    from lab_widget.scripted import ApiError  # noqa: PLC0415

    def shell(command: str) -> Any:
        if cli.shell_tool == "Bash":
            return ToolUse("Bash", {"command": command})
        return ToolUse(cli.shell_tool, {"command": command})

    escalate = ToolUse(
        "exec_command",
        {
            "cmd": f"touch {outside}",
            "sandbox_permissions": "require_escalated",
            "justification": "Create a file outside the workspace?",
        },
    )
    # Rules only, no sequence: older CLIs send their title request without the mark that
    # tells the scripted model it is a side query, and it would take a sequence's turn.
    return ScriptedModel(
        rules=[
            Rule(
                "use a tool",
                [
                    Reply(
                        "Let me check.",
                        tools=[shell("echo tool-output-42")],
                        reasoning="The user wants a tool call.",
                    ),
                    Reply("The tool said tool-output-42."),
                ],
            ),
            Rule(
                "failing tool",
                [Reply(tools=[shell("cat missing-file.txt")]), Reply("That command failed.")],
            ),
            Rule("escalate", [Reply(tools=[escalate]), Reply("Escalated command finished.")]),
            Rule("slow", Reply("late answer", delay=30)),
            Rule(
                "count the rows",
                [
                    Reply(tools=[ToolUse("mcp__kernel__run_python", {"code": "x = len(df)"})]),
                    Reply("x holds the row count."),
                ],
            ),
            Rule(
                "show the missing column",
                [
                    Reply(tools=[ToolUse("mcp__kernel__run_python", {"code": "df['missing']"})]),
                    Reply("That column does not exist."),
                ],
            ),
            Rule(
                "stream a command",
                [Reply(tools=[shell("sleep 1; echo a; sleep 1; echo b")]), Reply("Both lines.")],
            ),
            Rule(
                "look at the image",
                [
                    Reply(tools=[ToolUse("view_image", {"path": str(work / "red.png")})]),
                    Reply("A red square."),
                ],
            ),
            Rule("describe", Reply("The image is red.", reasoning="It is a small red picture.")),
            Rule("think secretly", Reply("Done thinking.", reasoning=ENCRYPTED)),
            Rule(
                "child task",
                [
                    Reply(tools=[shell("echo child-output")], reasoning="The child plans."),
                    Reply("The child is done."),
                ],
            ),
            Rule(
                "delegate",
                [
                    Reply(tools=[ToolUse("spawn_agent", {"message": "child task: echo"})]),
                    # Held until the child is done: its notification then lands inside this
                    # turn, which answers it (0.171.0 starts no turn for a notification
                    # that arrives while the parent is idle; it waits for the next prompt).
                    Reply("A sub-agent is on it.", delay=4),
                ],
            ),
            Rule("subagent_notification", Reply("The sub-agent finished.")),
            Rule("and again", Reply("Second answer.")),
            Rule(
                "quota again",
                Reply("Closer to the limit.", headers={"x-codex-primary-used-percent": "97"}),
            ),
            Rule(
                "over the quota",
                Reply("Never sent.", error=ApiError("quota", retry_after=30)),
            ),
            Rule(
                "ask me",
                [
                    Reply(tools=[ToolUse("request_user_input", {"questions": QUESTIONS})]),
                    Reply("Thanks, noted."),
                ],
            ),
            Rule("hello", Reply("Hello from the scripted model.")),
        ],
        fallback="Summary: the user said hello and the model answered.",
        headers=headers,
    )


def _encrypted_reasoning() -> Callable[[], None]:
    """Serve ``ENCRYPTED`` reasoning as the vendor does: no summary, only
    ``encrypted_content``. Returns the undo."""
    from lab_widget.scripted import _openai_responses  # noqa: PLC0415

    original = _openai_responses._items

    def items(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        found = original(*args, **kwargs)
        for item in found:
            summary = item.get("summary") if item.get("type") == "reasoning" else None
            if summary and summary[0].get("text") == ENCRYPTED:
                item["summary"] = []
                item["encrypted_content"] = ENCRYPTED
        return found

    _openai_responses._items = items  # type: ignore[assignment]

    def undo() -> None:
        _openai_responses._items = original  # type: ignore[assignment]

    return undo


def _shorten(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= LIMIT else value[:LIMIT] + "…"
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _placeholders(text: str, work: Path, home: Path, outside: Path) -> str:
    text = text.replace(str(outside.parent), "/fixture/outside")
    return text.replace(str(work), CWD_PLACEHOLDER).replace(str(home), HOME_PLACEHOLDER)


def _sanitise(path: Path, work: Path, home: Path, outside: Path) -> list[str]:
    lines = []
    for raw in path.read_text().splitlines():
        line = json.loads(_placeholders(raw, work, home, outside))
        payload = line.get("payload", {})
        # Keep conversation and lifecycle whole; shorten bulky context snapshots.
        if line.get("type") in ("session_meta", "turn_context", "world_state") or (
            payload.get("type") == "message" and payload.get("role") == "developer"
        ):
            line = _shorten(line)
        elif line.get("type") == "compacted" and "replacement_history" in payload:
            payload["replacement_history"] = _shorten(payload["replacement_history"])
        lines.append(json.dumps(line, ensure_ascii=False))
    return lines


@dataclass(frozen=True)
class Scenario:
    play: Callable[[Any, Path], None]
    needs: tuple[str, ...] = ()
    """What the CLI must offer: ``hooks`` (dialogs), ``subagents``, ``pinned``."""
    argv: Callable[[Path], list[str]] | None = None
    """Extra arguments at spawn (a first prompt with an image)."""
    together: bool = False
    """Keep the rollouts in a folder under Codex's own names (parent and sub-agents)."""
    setup: Callable[[], Callable[[], None]] | None = None
    headers: dict[str, str] | None = None
    """Response headers the scripted model sends with every answer (rate limits)."""
    kernel: bool = False
    """Give the run a real kernel's tools (``Run(..., kernel=...)``), its ``df`` 7 rows."""


def _kernel(stack: contextlib.ExitStack) -> str:
    """A real kernel holding a 7-row ``df``, shut down with ``stack``: its connection file."""
    setup = "import pandas as pd\ndf = pd.DataFrame({'a': range(7)})"
    return str(stack.enter_context(running_kernel(setup)).connection_file)


def _record(cli: Cli, name: str, scenario: Scenario) -> list[Path]:
    from lab_widget import Run  # noqa: PLC0415
    from lab_widget._run._launch import runner as _runner  # noqa: PLC0415
    from lab_widget.provider import register  # noqa: PLC0415

    undo = scenario.setup() if scenario.setup else None
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        work, outside = base / "work", base / "outside" / "file.txt"
        work.mkdir()
        (work / "red.png").write_bytes(png())
        outside.parent.mkdir()
        os.environ["LAB_WIDGET_HOME"] = str(base / "lab")
        os.environ["LAB_WIDGET_TOOLS"] = str(cli.tools)
        extra = scenario.argv(work) if scenario.argv else []
        register("codex", lambda: _legacy_provider(cli, extra))
        model = script(cli, work, outside, scenario.headers)
        stack = contextlib.ExitStack()
        kernel: str | bool = _kernel(stack) if scenario.kernel else False
        run = Run("codex", cwd=work, model=model, name=name, kernel=kernel)
        try:
            scenario.play(run, work)
            epochs = [ref.path for ref in local_parts(run).chat.past_epochs]
            paths = [*epochs, run.transcript_path]
        finally:
            run.stop()
            stack.close()
            _runner().kill_server()
            if undo:
                undo()
        home = base / "lab" / "runs" / name / "home"
        out = cli.out
        written = []
        spool = base / "lab" / "runs" / name / "signals"
        records = [
            json.loads(_placeholders(f.read_text(), work, home, outside))
            for f in sorted(spool.glob("*.json"))
        ]
        if records:
            target = out / f"{name}.hooks.jsonl"
            target.write_text("".join(json.dumps(r) + "\n" for r in records))
            written.append(target)
        if scenario.together:
            folder = out / name
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for path in sorted((home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl")):
                target = folder / path.name
                target.write_text("\n".join(_sanitise(path, work, home, outside)) + "\n")
                written.append(target)
            return written
        kept = [p for p in paths if p is not None]
        for index, path in enumerate(kept):
            suffix = f"_{index}" if len(kept) > 1 else ""
            target = out / f"{name}{suffix}.jsonl"
            target.write_text("\n".join(_sanitise(path, work, home, outside)) + "\n")
            written.append(target)
        return written


def hello(run: Any, work: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)


def tools(run: Any, work: Path) -> None:
    run.send("please use a tool")
    run.wait(timeout=60)
    run.send("now a failing tool")
    run.wait(timeout=60)


def answering(prompt: str, answer: str) -> Callable[[Any, Path], None]:
    """A scenario that sends ``prompt`` and answers the approval it opens with ``answer``."""

    def play(run: Any, work: Path) -> None:
        run.send(prompt)
        run.wait_for(lambda r: r.pending_dialog is not None, timeout=60)
        run.answer(answer)
        run.wait(timeout=60)

    return play


def interrupt(run: Any, work: Path) -> None:
    run.send("be slow")
    run.wait_for(lambda r: any(m.role == "user" for m in r.messages), timeout=30)
    time.sleep(1.0)  # the request is at the scripted model, which holds it
    run.interrupt()
    run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), timeout=30)


def new(run: Any, work: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)
    first = run.transcript_id
    run.clear()
    run.send("and again")
    run.wait_for(lambda r: r.transcript_id != first and r.state == "idle", timeout=60)
    run.wait(timeout=60)


def stream(run: Any, work: Path) -> None:
    run.send("stream a command")
    run.wait(timeout=60)


def image(run: Any, work: Path) -> None:
    run.send("look at the image")
    run.wait(timeout=60)


def user_image(run: Any, work: Path) -> None:
    # The first prompt and its image came with the command line (``--image``).
    run.wait_for(lambda r: any(m.role == "assistant" for m in r.messages), timeout=60)
    run.wait(timeout=60)


def encrypted(run: Any, work: Path) -> None:
    run.send("think secretly")
    run.wait(timeout=60)


def compact(run: Any, work: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)
    run.send("/compact")
    run.wait_for(
        lambda r: (
            any(m.text == "Conversation compacted" for m in r.messages)
            or bool(r.transcript_path and '"compacted"' in r.transcript_path.read_text())
        ),
        timeout=60,
    )
    time.sleep(1.0)  # the turn that compacted ends just after the summary is written
    run.wait(timeout=60)


def subagent(run: Any, work: Path) -> None:
    run.send("please delegate")
    run.wait_for(lambda r: "The sub-agent finished." in [m.text for m in r.messages], timeout=90)
    run.wait(timeout=60)


def rate_limits(run: Any, work: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)
    run.send("quota again")
    run.wait(timeout=60)


def quota(run: Any, work: Path) -> None:
    run.send("hello")
    run.wait(timeout=60)
    run.send("over the quota")
    run.wait_for(lambda r: r.messages[-1].kind == "lifecycle", timeout=60)
    run.wait(timeout=60)


def plan_question(run: Any, work: Path) -> None:
    from lab_widget import FreeText  # noqa: PLC0415

    run.send("/plan")
    run.send("ask me")
    run.wait_for(lambda r: r.pending_dialog is not None, timeout=60)
    run.answer({"Database": "Postgres", "Interface": FreeText("a notebook widget")})
    run.wait(timeout=60)


KERNEL_APPROVE = answering("count the rows of df into x", "approve")
KERNEL_REJECT = answering("count the rows of df into x", "reject")
KERNEL_ERROR = answering("show the missing column", "approve")

SCENARIOS: dict[str, Scenario] = {
    "hello": Scenario(hello),
    "tools": Scenario(tools),
    "approve": Scenario(answering("please escalate", "approve"), needs=("hooks",)),
    "reject": Scenario(answering("please escalate", "reject"), needs=("hooks",)),
    "interrupt": Scenario(interrupt),
    "new": Scenario(new),
    "stream": Scenario(stream),
    "image": Scenario(image),
    "user_image": Scenario(
        # The prompt goes first: ``--image`` takes every value after it as another file.
        user_image,
        argv=lambda work: ["describe it", "--image", str(work / "red.png")],
    ),
    "encrypted": Scenario(encrypted, setup=_encrypted_reasoning),
    "compact": Scenario(compact),
    "subagent": Scenario(subagent, needs=("subagents",), together=True),
    "rate_limits": Scenario(rate_limits, headers=QUOTA_HEADERS),
    "quota": Scenario(quota, needs=("pinned",)),
    "plan_question": Scenario(plan_question, needs=("hooks",)),
    "kernel_approve": Scenario(KERNEL_APPROVE, needs=("pinned",), kernel=True),
    "kernel_reject": Scenario(KERNEL_REJECT, needs=("pinned",), kernel=True),
    "kernel_error": Scenario(KERNEL_ERROR, needs=("pinned",), kernel=True),
}


def _can(cli: Cli, scenario: Scenario) -> str | None:
    """Why the CLI cannot play ``scenario`` (``None`` when it can)."""
    for need in scenario.needs:
        if need == "hooks" and not cli.hooks:
            return "no hooks: the approval prompt is not signalled"
        if need == "subagents" and not cli.subagents:
            return "no sub-agent tools offered"
    return None


def main(argv: list[str] | None = None) -> None:
    from lab_widget.compat import PINS  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=PINS["codex"].version, help="Codex CLI version")
    parser.add_argument("--versions-dir", type=Path, default=VERSIONS_DIR)
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=", ".join(SCENARIOS))
    args = parser.parse_args(argv)
    unknown = [s for s in args.scenarios if s not in SCENARIOS]
    if unknown:
        parser.error(
            f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}"
        )
    cli = install(args.version, args.versions_dir)
    cli.out.mkdir(parents=True, exist_ok=True)
    manifest_path = cli.out / "manifest.json"
    manifest: dict[str, Any] = (
        json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    )
    if manifest.get("version") != cli.version:
        manifest = {}
    skipped: dict[str, str] = dict(manifest.get("not_recorded") or {})
    for name in args.scenarios or list(SCENARIOS):
        why = _can(cli, SCENARIOS[name])
        if why is not None:
            skipped[name] = why
            print(f"not recorded: {name} ({why})")
            continue
        skipped.pop(name, None)
        for path in _record(cli, name, SCENARIOS[name]):
            print(f"wrote {path.relative_to(ROOT)}")
    manifest = {"provider": "codex", "version": cli.version}
    if skipped:
        manifest["not_recorded"] = dict(sorted(skipped.items()))
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
