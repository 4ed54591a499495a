"""Every coupling to Kilo Code CLI's private behaviour, verified against Kilo 7.7.7 under tmux
with an isolated HOME / XDG dirs and the scripted model (``scripts/record_kilo_fixtures.py``,
``tests/live/kilo/test_run.py``); evidence per coupling in ``docs/compat/kilo.md``.

Kilo is a fork of OpenCode: its store, embedded server, event stream, permission requests
and TUI keys are OpenCode's, so the family's code (``lab_widget.provider.opencode``) runs it
from :data:`KILO`, the record of what Kilo names its own way. What is pinned here is what
the TUI base plays for this version, each measured on Kilo itself.
"""

from __future__ import annotations

from dataclasses import replace

from ...compat import KILO_CONTEXT_TAGS
from ...schema import DialogKind
from .. import kit
from ..opencode import OpenCodeFamily
from ..opencode import pins as parent

VERSION = kit.pinned("kilo", "7.7.7")

KILO = OpenCodeFamily(
    name="Kilo",
    binary="kilo",
    folder="kilo",
    env_prefix="KILO",
    config_schema="https://app.kilo.ai/config.json",
    server_user="kilo",
)
"""Kilo's names, OpenCode's with ``kilo`` for ``opencode`` (read from the 7.7.7 binary,
``strings``, and seen live): its config
``$XDG_CONFIG_HOME/kilo/kilo.json`` (``$schema`` ``https://app.kilo.ai/config.json``, which
it writes back into a config without it), its store ``$XDG_DATA_HOME/kilo/kilo.db`` (tables
``session``, ``message``, ``part``, ``event`` in OpenCode's shape; ``KILO_DB`` moves it),
its log ``$XDG_DATA_HOME/kilo/log/opencode.log`` (OpenCode's lines, ``message="project copy
refresh done"`` among them). Its environment variables are its own, never OpenCode's:
``KILO_DISABLE_MODELS_FETCH`` (no model catalog fetched), ``KILO_DISABLE_AUTOUPDATE``. Its
TUI's embedded server asks for HTTP basic auth (401 with ``www-authenticate: Basic``) even
when no password is set; with ``KILO_SERVER_PASSWORD`` set it takes user ``kilo`` and that
password, so each run sets one of its own."""

CLEAR_COMMAND = "/new"
"""Starts a new session; its row is created with its first message, as OpenCode's."""

DIALOG_KINDS: tuple[DialogKind, ...] = ("approval",)
"""The permission prompt ("Permission required", "Allow once" / "Allow always" /
"Reject"), answered through the server as OpenCode's; Kilo's question tool and plan agent
are not yet verified here."""

INITIAL_PROMPT = replace(
    parent.INITIAL_PROMPT,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_with_shell_metacharacters_arrives_intact[kilo]; "
        "extraction: `kilo --help`: '--prompt  prompt to use'",
    ),
)
"""OpenCode's, verified on Kilo: a first prompt at start-up goes in ``--prompt``
(``--prompt=<text>``, one word)."""

READY_LOG_LINE = "message=init count=1"
"""The start-up log line (``$XDG_DATA_HOME/kilo/log/opencode.log``, OpenCode's format) that
comes shortly before the TUI draws its prompt, whether the folder is a git repository or
not. OpenCode's line (``message="project copy refresh done"``) does not do for Kilo: in a
git repository Kilo logs it twice, the first time 14 s before the prompt; outside one,
1.4 s before it."""

READY = replace(
    parent.READY,
    signal=parent.READY.signal.replace(parent.READY_LOG_LINE, READY_LOG_LINE),
    settle=4.0,
    evidence=kit.Evidence(
        VERSION,
        "measured: kilo/log/opencode.log against the pane polled for the prompt under tmux "
        "(load average 14 on 2 cores): the line 1.9 s before the prompt in a git repository, "
        "2.65 s outside one; a paste sent at OpenCode's line was lost (no user message, the "
        "prompt box empty); live: test_chat_tool_and_new_epoch",
    ),
)
"""The TUI takes a prompt 4 s after that line (the paste itself is lost when sent before
the prompt is drawn; the confirmed submit then presses Enter until the server announces the
message)."""

READY_WITHOUT_LOG = replace(
    parent.READY_WITHOUT_LOG,
    settle=45.0,
    evidence=kit.Evidence(
        VERSION,
        "measured: a first start in a fresh home (load average 14 on 2 cores): the server "
        "answered 53 s after the spawn, the start-up line came 26 s after the server",
    ),
)
"""Seconds from the server answering until input is sent without the log line."""

PASTE = replace(
    parent.PASTE,
    evidence=kit.Evidence(
        VERSION,
        "live: test_chat_tool_and_new_epoch, "
        "test_the_clear_command_opens_a_new_epoch_with_its_echo[kilo]",
    ),
)
"""OpenCode's, verified on Kilo: a prompt is pasted with Enter at once and Enter again
until the server's ``message.updated`` event for a new user message confirms it; ``/new``
is typed (its autocomplete row selected) and Enter follows 0.6 s later."""

INTERRUPT = replace(
    parent.INTERRUPT,
    evidence=kit.Evidence(
        VERSION,
        "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered[kilo]; "
        "fixture: interrupt.jsonl",
    ),
)
"""OpenCode's, verified on Kilo: the first Esc arms the interrupt, the second aborts the
turn."""

APPROVAL = replace(
    parent.APPROVAL, evidence=kit.Evidence(VERSION, "live: test_chat_tool_and_new_epoch")
)
"""OpenCode's, verified on Kilo: "Permission required" lists "Allow once", "Allow always",
"Reject" with "Allow once" selected; the chat answers through the server instead."""

MCP_TOOLS = replace(
    parent.MCP_TOOLS,
    evidence=kit.Evidence(
        VERSION,
        "live: tests/live/test_kernel_tools.py -k kilo; strings of the 7.7.7 binary: "
        '``acL(server)+"_"+acL(tool)``, ``ask({permission: <name>, metadata: {}, patterns: '
        '["*"], always: ["*"]})``, ``KILO_CONFIG_CONTENT``, ``KILO_PERMISSION`` merged '
        "after the configs, ``findLast`` over the rules",
    ),
)
"""OpenCode's, verified on Kilo: a server's tools are ``<server>_<tool>``; the run's servers
and rules go in ``KILO_CONFIG_CONTENT``; a call asks with no arguments, read from its message
on the run's server. Kilo's "Allow always" would write an allow rule into the user's global
``kilo.json`` (``updateGlobal({permission})`` in the binary): not offered. The rules the
server keeps in memory (an "always" reply, ``/auto-approve``'s allow-everything, both only
reachable from the TUI for these tools) are evaluated after the config's."""

MCP_CALL_TIMEOUT = "timeout"
"""As OpenCode's (:data:`lab_widget.provider.opencode._compat.MCP_CALL_TIMEOUT`): a server's
``mcp`` entry's ``timeout``, in milliseconds, is how long the CLI waits for each of its
calls (``strings``: ``experimental?.mcp_timeout`` beside it; live: ``tests/live/
test_kernel_tools.py -k time_the_server``)."""

STARTUP = None
"""Kilo shows no start-up screen to accept (an isolated home, the scripted model)."""

RESTORED_INPUT = None
"""An interrupt leaves the prompt box empty."""

SEED = replace(
    parent.SEED,
    skills_dir=".kilo/skills",
    exclude=("/AGENTS.md", "/.kilo/skills/"),
    evidence=kit.Evidence(VERSION, "conformance: seeding (in place and in a worktree)"),
)
"""OpenCode's layout in Kilo's folder: ``AGENTS.md`` and ``.kilo/skills``."""

CONTEXT_TAGS = KILO_CONTEXT_TAGS
"""Kilo sends each prompt's text part followed by a text part of its own,
``\n\n<environment_details>\nMessage time: ...\nWorking directory: ...\n
</environment_details>`` (seen in the scripted model's requests); its store keeps the user's
words alone (the ``part`` row's ``text``), so the reader has nothing to strip, and the
scripted model matches its rules on the words before it."""
