"""Record Claude Code transcript fixtures from the real CLI against the scripted model.

Usage: ``python scripts/record_fixtures.py [--version V] [scenario ...]``. Writes
``tests/fixtures/claude-code/<scenario>.jsonl`` (and ``manifest.json`` with the CLI version)
from the pinned version, or ``tests/fixtures/claude-code/v<V>/`` from another one (installed
outside the project by ``scripts/cli_versions.py``): users' histories hold files of many
versions, and every one must read. A session's sub-agent transcripts are recorded beside it
(``<scenario>/subagents/``). Temporary paths are replaced by stable placeholders so fixtures
are reproducible; bulky bookkeeping strings (system prompt snapshots) are shortened — chain
entries are kept whole.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from cli_versions import cli_version  # noqa: E402

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse, read_transcript  # noqa: E402
from lab_widget._run._launch import runner as _runner  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402
from lab_widget.errors import LabWidgetError  # noqa: E402
from lab_widget.provider.claude_code import _compat  # noqa: E402
from lab_widget.provider.claude_code._statusline import mint_gateway_token  # noqa: E402
from lab_widget.scripted import ApiError  # noqa: E402
from tests.support.local import local_parts  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "claude-code"
OUT = FIXTURES
CWD_PLACEHOLDER = "/fixture/work"
HOME_PLACEHOLDER = "/fixture/home"
CHAIN = {"user", "assistant", "system"}
LIMIT = 400

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
IMAGE = "pixel.png"
SLOW_COMMAND = (
    "sleep 1; echo step 1; sleep 1; echo step 2; sleep 1; echo step 3; sleep 1; echo step 4"
)
"""Four seconds of output line by line (a loop would ask for permission in older versions)."""


def _parts(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def subagent_tool(version: str) -> str:
    """The sub-agent tool of a version: ``Agent`` since 2.1.332 took over ``Task``."""
    return "Agent" if _parts(version) >= (2, 1, 300) else "Task"


QUOTA_RESET = 1796180400
"""2026-12-02T03:00:00Z: a fixed reset time, so the status-line fixture is stable."""

QUOTA_HEADERS = {
    # As the vendor's API sends them: utilization a fraction, resets in epoch seconds.
    "anthropic-ratelimit-unified-status": "allowed",
    "anthropic-ratelimit-unified-5h-utilization": "0.42",
    "anthropic-ratelimit-unified-5h-reset": str(QUOTA_RESET),
    "anthropic-ratelimit-unified-7d-utilization": "0.07",
    "anthropic-ratelimit-unified-7d-reset": str(QUOTA_RESET + 6 * 86400),
    "anthropic-ratelimit-unified-reset": str(QUOTA_RESET),
}

MODEL_OPTIONS: dict[str, dict[str, Any]] = {
    # The CLI reads quota headers behind a gateway only: its token as the key.
    "statusline": {"api_key": mint_gateway_token(), "headers": QUOTA_HEADERS},
}
"""ScriptedModel options of the scenarios that need more than the default model."""


def script(work: Path, version: str, **options: Any) -> ScriptedModel:
    """The scripted model of one recording, in the run's folder ``work``."""
    # A sub-agent of 2.1.332 runs in the background and hands its report back through
    # SubagentHandback; an older one answers in plain text, in the foreground.
    background = subagent_tool(version) == "Agent"
    # Versions before auto mode ask before reading a file with cat; false fails unasked.
    failing = "cat missing-file.txt" if _parts(version) >= (2, 1, 100) else "false"
    report = "There is one file."
    sub_end = (
        Reply(tools=[ToolUse("SubagentHandback", {"message": report})])
        if background
        else Reply(report)
    )
    delegate = ToolUse(
        subagent_tool(version),
        {
            "description": "Count files",
            "prompt": "count the files",
            "subagent_type": "general-purpose",
        },
    )
    make = ToolUse(
        subagent_tool(version),
        {
            "description": "Make a file",
            "prompt": "make the file",
            "subagent_type": "general-purpose",
        },
    )
    return ScriptedModel(
        rules=[
            # A compaction's request, and the turns of the one-hour cache scenario: each
            # reports cache writes of both lifetimes, as the API does.
            Rule(
                "Your task is to create a detailed summary",
                Reply(
                    "<summary>The user cached for an hour, twice.</summary>",
                    input_tokens=12,
                    cache_read_tokens=5200,
                    cache_write_tokens=900,
                    cache_write_1h_tokens=600,
                ),
            ),
            Rule(
                "cache for an hour",
                Reply(
                    "Cached for an hour.",
                    input_tokens=20,
                    cache_read_tokens=3000,
                    cache_write_tokens=2500,
                    cache_write_1h_tokens=2000,
                ),
            ),
            Rule(
                "cache again",
                Reply(
                    "Cached again.",
                    input_tokens=8,
                    cache_read_tokens=5500,
                    cache_write_tokens=700,
                    cache_write_1h_tokens=700,
                ),
            ),
            Rule(
                "make the file",
                [
                    Reply(
                        "Making it.",
                        tools=[
                            ToolUse(
                                "Bash",
                                {"command": "touch made-by-subagent.txt", "description": "Make"},
                            )
                        ],
                    ),
                    Reply(tools=[ToolUse("SubagentHandback", {"message": "Made the file."})])
                    if background
                    else Reply("Made the file."),
                ],
            ),
            Rule(
                "hand the file over",
                [
                    Reply("I will ask a sub-agent.", tools=[make]),
                    *([Reply("Waiting for the sub-agent.")] if background else []),
                    Reply("The sub-agent made it."),
                ],
            ),
            Rule(
                "count the files",
                [
                    Reply(
                        "Counting.",
                        tools=[ToolUse("Bash", {"command": "ls | wc -l", "description": "Count"})],
                    ),
                    sub_end,
                ],
            ),
            Rule(
                "please delegate",
                [
                    Reply("I will ask a sub-agent.", tools=[delegate]),
                    # A background sub-agent's report comes back as the turn's next step.
                    *(
                        [
                            Reply("Waiting for the sub-agent."),
                            Reply("The sub-agent found one file."),
                        ]
                        if background
                        else [Reply("The sub-agent found one file.")]
                    ),
                ],
            ),
            Rule("over the limit", Reply("Never sent.", error=ApiError("rate_limit"))),
            Rule(
                "look at the image",
                [
                    Reply(tools=[ToolUse("Read", {"file_path": str(work / IMAGE)})]),
                    Reply("One pixel."),
                ],
            ),
            Rule(
                "use a tool",
                [
                    Reply(
                        "Let me check.",
                        tools=[
                            ToolUse(
                                "Bash", {"command": "echo tool-output-42", "description": "Echo"}
                            )
                        ],
                    ),
                    Reply("The tool said tool-output-42."),
                ],
            ),
            Rule(
                "failing tool",
                [
                    Reply(
                        tools=[
                            ToolUse(
                                "Bash",
                                {"command": failing, "description": "Read a file"},
                            )
                        ]
                    ),
                    Reply("That command failed."),
                ],
            ),
            Rule("slow", Reply("This takes a while. " * 40, chunk_delay=0.3)),
            Rule(
                "think it through",
                [
                    Reply(
                        "Let me look.",
                        thinking="The user wants me to think. I should list the files first.",
                        tools=[ToolUse("Bash", {"command": "ls", "description": "List files"})],
                        block_delay=0.6,
                    ),
                    Reply("There is one file.", thinking="One file is listed.", block_delay=0.6),
                ],
            ),
            Rule("answer small", Reply("A smaller model answers.", model="claude-haiku-4-5")),
            Rule(
                "quota again",
                Reply(
                    "Closer to the limit.",
                    headers={"anthropic-ratelimit-unified-5h-utilization": "0.97"},
                ),
            ),
            Rule(
                "long-running command",
                [
                    Reply(
                        tools=[
                            ToolUse(
                                "Bash",
                                {
                                    "command": SLOW_COMMAND,
                                    "description": "Count slowly",
                                },
                            )
                        ]
                    ),
                    Reply("It counted to four."),
                ],
            ),
            Rule("hello", "Hello from the scripted model."),
        ],
        fallback="Noted.",
        **options,
    )


def _shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > LIMIT:
        return value[:LIMIT] + "…[shortened by record_fixtures]"
    if isinstance(value, list):
        return [_shorten(v) for v in value[:3]]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def _replacements(run: Run, home: Path) -> dict[str, str]:
    slug_cwd = "".join(c if c.isalnum() else "-" for c in str(run.cwd))
    return {
        str(home): HOME_PLACEHOLDER,
        str(run.cwd): CWD_PLACEHOLDER,
        slug_cwd: "".join(c if c.isalnum() else "-" for c in CWD_PLACEHOLDER),
    }


def _replace_paths(text: str, run: Run, home: Path) -> str:
    for old, new in _replacements(run, home).items():
        text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
    return text


def _normalise(path: Path, run: Run, home: Path) -> str:
    out = []
    for raw in path.read_text().splitlines():
        line = _replace_paths(raw, run, home)
        entry = json.loads(line)
        if entry.get("type") not in CHAIN:
            entry = _shorten(entry)
        out.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def _save(name: str, run: Run, path: Path | None) -> None:
    assert path is not None and path.exists(), f"{name}: no transcript"
    home = local_parts(run).context.runtime_dir / "home"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.jsonl").write_text(_normalise(path, run, home))
    print(f"recorded {name}: {path.stat().st_size} bytes")
    shutil.rmtree(OUT / name, ignore_errors=True)  # sub-agents of an earlier recording
    subagents = path.with_suffix("") / "subagents"
    for file in sorted(subagents.glob("agent-*")) if subagents.is_dir() else []:
        target = OUT / name / "subagents" / file.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if file.suffix == ".jsonl":
            target.write_text(_normalise(file, run, home))
        else:
            target.write_text(_replace_paths(file.read_text(), run, home))
        print(f"recorded {name}/subagents/{file.name}")


QUIET = 4.0
"""Seconds without a write after which an older version's turn counts as over."""


def _settle(run: Run, timeout: float = 120) -> str:
    """Wait for the turn to end. Versions before 2.1.100 write no turn records and no stop
    reasons: their turn is over when the transcript, read as nobody writes it, says so."""

    def done(r: Run) -> bool:
        if r.state != "working":
            return True
        path = r.transcript_path
        if path is None or not path.exists() or time.time() - path.stat().st_mtime < QUIET:
            return False
        return read_transcript(path, "claude-code").state == "idle"

    deadline = time.monotonic() + timeout
    while not done(run):
        # wait_for wakes on the run's events; a quiet file needs a clock too.
        run.wait_for(lambda r: False, 1.0)
        assert time.monotonic() < deadline, run.screen()
    return "idle" if run.state == "working" else run.state


def hello(run: Run) -> None:
    run.send("hello")
    _settle(run, 120)
    _save("hello", run, run.transcript_path)


def tool(run: Run) -> None:
    run.send("please use a tool")
    _settle(run, 120)
    before = len(run.messages)
    run.send("now a failing tool")
    if not run.wait_for(lambda r: len(r.messages) > before, 20):
        # 2.1.39 may drop a prompt typed while its prompt suggestion comes up: once more.
        run.send("now a failing tool")
    _settle(run, 120)
    _save("tools", run, run.transcript_path)


def clear(run: Run) -> None:
    run.send("hello")
    _settle(run, 120)
    before, first = run.transcript_path, run.transcript_id
    run.clear()
    assert run.wait_for(
        lambda r: r.transcript_id != first and any(m.command for m in r.messages), 60
    )
    run.send("after clear")
    _settle(run, 120)
    _save("clear_before", run, before)
    _save("clear_after", run, run.transcript_path)


def paste(run: Run) -> None:
    run.send("first line $HOME `id`\n\tsecond line C-c Enter\nthird ünïcødé ✓")
    _settle(run, 120)
    _save("paste", run, run.transcript_path)


def interrupt(run: Run) -> None:
    run.send("slow")
    assert run.wait_for(lambda r: any(m.text == "slow" for m in r.messages), 60)
    time.sleep(2)  # the answer is streaming; Claude Code writes it when it ends
    run.interrupt()
    assert run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), 60)
    run.wait(timeout=60)
    _save("interrupt", run, run.transcript_path)


def slow_tool(run: Run) -> None:
    run.send("start the long-running command")
    _settle(run)
    _save("slow_tool", run, run.transcript_path)


def thinking(run: Run) -> None:
    run.send("think it through")
    _settle(run, 120)
    _save("thinking", run, run.transcript_path)


def subagent(run: Run) -> None:
    run.send("please delegate")
    _settle(run, 180)
    assert run.wait_for(lambda r: any("found one file" in m.text for m in r.messages), 120)
    assert _settle(run) == "idle"
    _save("subagent", run, run.transcript_path)


def image(run: Run) -> None:
    (run.cwd / IMAGE).write_bytes(PIXEL)
    run.send("look at the image")
    _settle(run, 120)
    _save("image", run, run.transcript_path)


def compact(run: Run) -> None:
    # Some versions compact only a conversation of a few turns.
    for prompt in ("hello", "please use a tool", "now a failing tool"):
        run.send(prompt)
        _settle(run, 120)
    run.send("/compact")
    compacted = lambda r: any(m.detail for m in r.messages)  # noqa: E731
    if not run.wait_for(compacted, 20):
        # Some older versions leave the command menu open on the first Enter.
        local_parts(run).terminal.keys("Enter")
    assert run.wait_for(compacted, 120)
    _save("compact", run, run.transcript_path)
    assert _settle(run) == "idle"


def cache_hour(run: Run) -> None:
    # Responses that write to the one-hour cache, then a compaction (its own billed request).
    for prompt in ("cache for an hour", "cache again", "hello"):
        run.send(prompt)
        _settle(run, 120)
    run.send("/compact")
    compacted = lambda r: any(m.detail for m in r.messages)  # noqa: E731
    if not run.wait_for(compacted, 20):
        run._terminal.keys("Enter")
    assert run.wait_for(compacted, 120)
    assert _settle(run) == "idle"
    time.sleep(1.0)  # the compaction's own file is written beside the session's
    _save("cache_hour", run, run.transcript_path)


def statusline(run: Run) -> None:
    # Two turns, the second one nearer the quota; then the status line's last payload.
    spool = local_parts(run).context.runtime_dir / _compat.STATUS_SPOOL
    for prompt in ("hello", "please use a tool", "quota again"):
        run.send(prompt)
        run.wait(timeout=120)
        run.wait_for(lambda r: r.session.vendor_cost_usd is not None, 30)
    time.sleep(2)  # the status command runs after the TUI's last change
    _save("statusline", run, run.transcript_path)
    home = local_parts(run).context.runtime_dir / "home"
    lines = [_replace_paths(line, run, home) for line in spool.read_text().splitlines()]
    target = OUT / "status-line" / _compat.STATUS_SPOOL
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n")
    print(f"recorded status-line/{target.name}: {len(lines)} payloads")


def substitution(run: Run) -> None:
    for prompt in ("hello", "answer small", "answer small", "hello"):
        run.send(prompt)
        run.wait(timeout=120)
    _save("substitution", run, run.transcript_path)


def rate_limited(run: Run) -> None:
    # The recording's environment sets CLAUDE_CODE_MAX_RETRIES=1: the CLI's own ten
    # retries with backoff would take minutes.
    run.send("over the limit")
    assert run.wait_for(lambda r: any(m.level == "error" for m in r.messages), 120)
    _settle(run)
    _save("rate_limited", run, run.transcript_path)


def subagent_permission(run: Run) -> None:
    # Asked in the default permission mode (see MODES): the sub-agent's command prompts.
    run.send("please hand the file over")
    assert run.wait(timeout=120) == "question"
    # The spool as it stands while the prompt is open (answered records are swept).
    spool = local_parts(run).context.runtime_dir / "signals"
    home = local_parts(run).context.runtime_dir / "home"
    records = [json.loads(p.read_text()) for p in sorted(spool.glob("*.json"))]
    run.answer("approve")
    assert run.wait_for(lambda r: any("made it" in m.text for m in r.messages), 120)
    assert _settle(run) == "idle"
    _save("subagent_permission", run, run.transcript_path)
    lines = [_replace_paths(json.dumps(r), run, home) for r in records]
    (OUT / "subagent_permission.hooks.jsonl").write_text("".join(f"{x}\n" for x in lines))
    print(f"recorded subagent_permission.hooks.jsonl: {len(lines)} records")


MODES: dict[str, str] = {"subagent_permission": "default"}
"""Permission modes a scenario needs instead of the version's default."""


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "hello": hello,
    "tools": tool,
    "clear": clear,
    "paste": paste,
    "interrupt": interrupt,
    "subagent": subagent,
    "thinking": thinking,
    "slow_tool": slow_tool,
    "image": image,
    "compact": compact,
    "cache_hour": cache_hour,
    "statusline": statusline,
    "substitution": substitution,
    "rate_limited": rate_limited,
    "subagent_permission": subagent_permission,
}
OLDER = ("hello", "tools", "subagent", "thinking", "slow_tool", "image", "compact")
"""What is recorded from an older version: what its users' histories hold."""


def main(argv: list[str]) -> int:
    global OUT  # noqa: PLW0603 - the scenarios save where main says
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--version", help="another Claude Code version to record from")
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=", ".join(SCENARIOS))
    args = parser.parse_args(argv)
    unknown = [n for n in args.scenarios if n not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    pinned = PINS["claude-code"].version
    older = args.version not in (None, pinned)
    OUT = FIXTURES / f"v{args.version}" if older else FIXTURES
    os.environ["LAB_WIDGET_HOME"] = tempfile.mkdtemp(prefix="lab-widget-record-")
    os.environ["CLAUDE_CODE_MAX_RETRIES"] = "1"  # a refused request fails in seconds
    manifest_path = OUT / "manifest.json"
    previous = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    missing: dict[str, str] = dict(previous.get("not_recorded", {}))
    with cli_version("claude-code", args.version) as version:
        try:
            for name in args.scenarios or (OLDER if older else list(SCENARIOS)):
                missing.pop(name, None)
                work = Path(tempfile.mkdtemp(prefix="record-work-"))
                model = script(work, version, **MODEL_OPTIONS.get(name, {}))
                # Versions before auto mode ask before running a command.
                mode = None if _parts(version) >= (2, 1, 100) else "acceptEdits"
                run = Run(
                    "claude-code",
                    cwd=work,
                    model=model,
                    name=f"record-{name}",
                    permission_mode=MODES.get(name, mode),
                )
                try:
                    SCENARIOS[name](run)
                except (AssertionError, LabWidgetError) as exc:
                    if not older:
                        raise
                    # What an older version cannot do offline is said, not faked.
                    missing[name] = f"{type(exc).__name__}: {exc}".strip(": ")[:200]
                    print(f"not recorded {name}: {missing[name]}")
                finally:
                    run.stop()
                    model.stop()
        finally:
            _runner().kill_server()
    OUT.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, object] = {"provider": "claude-code", "version": version}
    if missing:
        manifest["not_recorded"] = missing
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
