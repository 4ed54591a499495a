"""Every coupling to OpenCode's private behaviour, verified against OpenCode 1.18.33 under
tmux with an isolated HOME / XDG dirs and the scripted model
(``scripts/record_opencode_fixtures.py``, ``tests/live/opencode/test_run.py``); evidence per
coupling in ``docs/compat/opencode.md``.
"""

from __future__ import annotations

from ...schema import DialogKind, RateLimitKind
from .. import kit

# The store's queries are couplings of this version too, kept apart for their length.
from ._compat_store import *  # noqa: F403

VERSION = kit.pinned("opencode", "1.18.33")

# -- storage (the SQLite store's queries: ``_compat_store``) --------------------------------

LEGACY_STORAGE = "opencode/storage"
"""Under ``$XDG_DATA_HOME``: before the SQLite store (1.1.65 and earlier) every session,
message and part is a JSON file of its own, rewritten on change; later versions migrate
these into the database once."""

LEGACY_SESSION_DIR = "session"
"""``session/<project id>/<session id>.json``: ``{id, slug, version, projectID, directory,
parentID?, title, time{created, updated}}``."""
LEGACY_MESSAGE_DIR = "message"
"""``message/<session id>/<message id>.json``: the message info with ``id`` and
``sessionID``, as the event log's ``message.updated`` carries it."""
LEGACY_PART_DIR = "part"
"""``part/<message id>/<part id>.json``: the part with ``id``, ``sessionID``, ``messageID``."""

MESSAGE_UPDATED = "message.updated."
PART_UPDATED = "message.part.updated."
SESSION_CREATED = "session.created."

REJECTED_ERROR = "The user rejected permission"
"""A tool call whose permission was rejected ends in ``state.status: "error"`` with
``error: "The user rejected permission to use this specific tool call."``; its message
finishes with ``tool-calls`` and the turn ends there (no further message)."""

QUESTION_DISMISSED_ERROR = "The user dismissed this question"
"""A question answered "No" by ``plan_exit`` (or dismissed) fails its call with this error
(``RejectedError`` of the question service) and the turn ends there, as after a rejected
permission (seen live: ``test_plan_exit_answered_from_the_chat``)."""

REJECTED_ERRORS = (REJECTED_ERROR, "PermissionRejectedError", QUESTION_DISMISSED_ERROR)
"""Every version's wording of it: 1.2.27 writes ``PermissionRejectedError({"_tag":
"PermissionRejectedError"})`` (fixture ``v1.2.27/reject``)."""

HIDDEN_REASONING_KEYS = ("redactedData", "reasoningEncryptedContent")
"""A ``reasoning`` part is ``{type: "reasoning", text, metadata, time{start, end?}}``, its text
growing as it streams; ``metadata`` is the provider's: ``anthropic.signature`` beside
readable thinking, ``anthropic.redactedData`` with an empty text for redacted thinking,
``openai.itemId`` and ``openai.reasoningEncryptedContent`` for encrypted reasoning (empty
text when no summary was sent); read from the 1.18.33 binary (``strings``: ``type:
"reasoning", text: "", providerMetadata: {anthropic: {redactedData: ...}}``). Recorded on
the chat-completions wire (``reasoning_content`` deltas): ``{type: "reasoning", text,
time}`` without metadata, its tokens in the step's ``tokens.reasoning``. Reasoning a model
keeps hidden reaches OpenCode on that wire as nothing it records (no part, no reasoning
tokens)."""

TRANSIENT_PART_MARKS = (("kilocode.lifecycle", "transient"),)
"""``metadata`` entries by which a CLI of OpenCode's family marks a part it shows only for
a moment and removes again (a ``message.part.removed`` event, its ``part`` row deleted):
Kilo 7.7.7 writes a synthetic assistant ``text`` part ``"⠋ Initializing snapshot…"``
(spinner frames, ``metadata: {"kilocode.lifecycle": "transient"}``) while a turn starts
(``tests/fixtures/kilo/``). OpenCode itself writes no such key; the reader shows no such
part."""

ABORTED_ERROR = "MessageAbortedError"
"""An assistant message stopped by the user (Esc Esc) carries ``error.name`` this."""

QUOTA_CODES: dict[str, RateLimitKind] = {
    "insufficient_quota": "usage",
    "rate_limit_exceeded": "requests",
    "RESOURCE_EXHAUSTED": "usage",
    "rate_limit_error": "requests",
}
"""Error codes in a failed request's ``responseBody`` (OpenAI's ``error.code``, Gemini's
``error.status``, Anthropic's ``error.type``) that name a limit, with the schema's kind.
1.18.33 retries a 429 five times (backoff from ``retry-after``), then records the message's
``error`` as ``APIError`` with ``statusCode``, ``responseHeaders`` and ``responseBody``
(seen live against the scripted model's ``ApiError("quota")``; fixture ``quota``)."""

RATE_LIMIT_HEADERS: tuple[tuple[str, RateLimitKind], ...] = (
    ("requests", "requests"),
    ("tokens", "tokens"),
)
"""OpenAI's ``x-ratelimit-{limit,remaining,reset}-<family>`` headers, kept in the error's
``responseHeaders``: absolute figures, the reset a duration (``"1m30s"``)."""

TOOL_CALLS_FINISH = "tool-calls"
"""An assistant message finished with this ``finish`` is followed by another one in the same
turn (the tool results go back to the model): the turn is still working."""

# -- spawn ---------------------------------------------------------------------------------

ISOLATED_ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
}
"""Without ``OPENCODE_DISABLE_MODELS_FETCH`` start-up waits ≈ 20 s on the model catalog
offline."""

UNSET_ENV = frozenset(
    {
        "OPENCODE_CONFIG",
        "OPENCODE_CONFIG_CONTENT",
        "OPENCODE_CONFIG_DIR",
        "OPENCODE_DB",
        "OPENCODE_PERMISSION",
        "OPENCODE_SERVER_PASSWORD",
        "OPENCODE_SERVER_USERNAME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
    }
)
"""Settings of the user's own setup that would point an isolated run back at it."""

PROVIDER_ID = "lab_widget"
"""The ``provider.<id>`` written into an isolated ``opencode.json``."""

PROVIDER_NPM = "@ai-sdk/openai-compatible"
"""The provider package (bundled in the binary: no download) that speaks
``POST <baseURL>/chat/completions``."""

ENV_KEY = "LAB_WIDGET_OPENCODE_API_KEY"
"""The variable the isolated config's ``apiKey`` reads (``{env:...}`` substitution)."""

ENDPOINT_MODEL = "default"
"""The model name an endpoint run requests when none is named."""

SERVER_FLAGS = ("--hostname", "127.0.0.1", "--port")
"""The TUI embeds an HTTP server; these flags fix where (the live signal channel)."""

# -- live server ---------------------------------------------------------------------------

PERMISSION_PATH = "/permission"
"""``GET`` lists the pending permission requests: ``[{id, sessionID, permission: "bash",
patterns, metadata: {command}, always, tool: {messageID, callID}}]`` (empty when none). The
same request is announced on ``GET /event`` as ``permission.asked``; none of it reaches the
SQLite store."""

SERVER_TIMEOUT = 1.0
"""Seconds a live-server request may take before the channel counts as silent."""

READY_LOG_LINE = 'message="project copy refresh done"'
"""The last start-up line the CLI logs (``$XDG_DATA_HOME/opencode/log/*.log``, lines
``timestamp=<ISO> level=INFO run=<id> message=...``) before the TUI draws its prompt.
Measured: server answers ≈ 10 s after spawn, this line ≈ 17.5 s, prompt ≈ 18.8 s (2 shared
cores); a message typed between server and prompt was lost."""

INITIAL_PROMPT = kit.InitialPrompt(
    flag="--prompt",
    max_bytes=8192,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once[opencode], "
        "test_first_prompt_with_shell_metacharacters_arrives_intact[opencode]; "
        "extraction: `opencode --help`: '--prompt  prompt to use'; "
        'measured: tmux 3.3a refuses a new-session command over 16 KiB ("command too long"), '
        "so 8 KiB leaves the rest of the command line its room",
    ),
)
"""A first prompt given at start-up goes in the ``--prompt`` argument. The TUI starts and
submits the prompt once it is up (its user message is announced as ``message.updated`` and
stored); ``--prompt=<text>`` is one word, so a prompt starting with ``-`` is never read as
an option. The run's server is not up before the spawn, so the stored user message confirms
it (the transcript's first user message). A longer prompt is pasted once the TUI is ready."""

READY = kit.ReadySignal(
    signal=f"the start-up log line {READY_LOG_LINE} after the spawn, the server answering",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "measured: probe timing (tmux, curl, the log); live: test_approval_approve_then_reject "
        "lost its first message with a server-only readiness and passes with the log line; "
        "test_twenty_prompts_under_load_arrive_once_each (the first prompt sent at the line, "
        "two busy processes beside)",
    ),
)
"""The TUI takes a prompt from that line on (no settle time): a paste sent then lands, and
the confirmed submit (:data:`PASTE`) presses Enter until the server announces the message."""

READY_WITHOUT_LOG = kit.ReadySignal(
    signal="the embedded server answering, when the log cannot be read",
    settle=10.0,
    evidence=kit.Evidence(
        VERSION, "measured: server ≈ 10 s after spawn, prompt ≈ 18.8 s (2 shared cores)"
    ),
)
"""Seconds from the server answering until input is sent when the log is unreadable."""

# -- keys ----------------------------------------------------------------------------------

PASTE = kit.PasteTiming(
    submit_delay=0.3,
    typed_command_delay=0.6,
    confirm_waits=(0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0),
    evidence=kit.Evidence(
        VERSION,
        "live: test_twenty_prompts_under_load_arrive_once_each, every test; beside "
        "`--cpu-hog 2`: test_users_own_config_and_store, "
        "test_question_tool_takes_a_typed_answer (their first prompt took over 7.75 s); "
        "typed commands: test_the_clear_command_opens_a_new_epoch_with_its_echo[opencode]",
    ),
)
"""A prompt is pasted with Enter at once; the server's ``message.updated`` event for a new
user message (:data:`PROMPT_SUBMITTED`, on ``GET /event``) confirms it, and while it has not
come Enter is pressed again after 0.25, 0.5, 1, 2, 4, 8 s (16 s for the last); an Enter on an
empty prompt box does nothing. The waits end when the event comes, so only a busy machine
reaches the long ones: there the first prompt after start-up took over 7.75 s to confirm.
The paste is never repeated. A one-line ``/command`` is typed instead (the TUI's command
autocomplete reads typed keys) and Enter follows 0.6 s later, once its autocomplete row is
selected: Enter then runs the highlighted command. A reply while a turn runs is pasted with
Enter 0.3 s later."""

EVENT_PATH = "/event"
"""``GET`` streams the embedded server's events from the moment of connecting (server-sent
events, one ``data: {id, type, properties}`` line each), ``server.connected`` first."""

PROMPT_SUBMITTED = "message.updated"
"""The event a submitted prompt brings at once: ``properties.info`` is the new message,
``role: "user"``, ``time.created`` in ms (a later update of the same message repeats it, with
its old ``created``)."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape", "Escape"),
    key_delay=0.4,
    evidence=kit.Evidence(
        VERSION,
        "fixture: interrupt: test_interrupt_is_a_lifecycle_message_and_idle; "
        "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered[opencode]",
    ),
)
"""The first Esc shows "esc again to interrupt"; the second, 0.4 s later, aborts the turn
(the assistant message gets ``MessageAbortedError``)."""

STARTUP = None
"""OpenCode shows no start-up screen to accept."""

RESTORED_INPUT = None
"""An interrupt leaves the prompt box empty (the next message is sent as typed)."""

CLEAR_COMMAND = "/new"
"""Starts a new session; nothing is recorded until its first message creates the row."""

APPROVAL = kit.ApprovalKeys(
    approve="Enter",
    reject="Escape",
    settle=1.0,
    evidence=kit.Evidence(VERSION, "live: test_approval_approve_then_reject"),
)
""""Permission required" lists "Allow once", "Allow always", "Reject" with "Allow once"
selected: Enter allows it once; Esc rejects it. The chat answers through the server
(``PERMISSION_REPLY_PATH``) instead; these keys are what a user types in the terminal."""

DIALOG_KINDS: tuple[DialogKind, ...] = ("approval", "question", "plan")

SUBAGENT_KEY = "sessionId"
"""The ``task`` tool (``{description, prompt, subagent_type: "general" | ...}``, offered by
default) runs a sub-agent as a child session of the same store (``session.parent_id`` the
caller's, title ``"<description> (@<type> subagent)"``); its tool part names the child in
``state.metadata.sessionId`` from its first ``running`` update on, and completes with
``output`` ``<task id="<child>" state="completed"><task_result>...</task_result></task>``.
The child's requests go to the same endpoint with the prompt as their user text and fewer
tools (no ``task``, no ``question``, no ``todowrite``)."""

PROGRESS_KEY = "output"
"""A running ``bash`` tool part is re-written as the command prints: ``state.metadata.output``
holds what it printed so far (``""``, ``"a\n"``, ``"a\nb\n"`` for ``sleep 1; echo a; sleep 1;
echo b``), in the event log and the ``part`` row alike; ``state.output`` takes over once
it completes."""

ATTACHMENTS_KEY = "attachments"
"""A tool that returns an image (``read`` of a PNG) completes with ``state.attachments``:
file parts ``{type: "file", mime, url: "data:<mime>;base64,..."}``; a file the user attaches
is such a part of the user's message."""

COMPACTION_PART = "compaction"
"""``/compact`` (or an automatic compaction) writes a user message holding a ``compaction``
part (``auto``), then an assistant message with ``summary: true`` (``mode``/``agent``
``compaction``) whose text is the summary; its step is billed like any other."""

QUESTION_TOOL = "question"
"""The agent's question tool (offered by default): input ``{questions: [{question, header,
options: [{label, description}], multiple}]}``; a "Type your own answer" choice is added to
every question. While it waits, its tool part is ``running`` in the event log; once
answered, ``completed`` with ``metadata.answers`` (one list of strings per question: option
labels, or the text typed); dismissed (Esc), ``error``."""

PLAN_EXIT_TOOL = "plan_exit"
"""The plan agent's tool to end planning (``--agent plan``, or Tab in the TUI): it asks,
through the same question service as the question tool (``GET /question``, tied to the
call by ``tool.callID``), "Plan at <path> is complete. Would you like to switch to the build
agent and start implementing?" (header "Build Agent", options "Yes" / "No", no typed
answer). "Yes" completes the call and switches to the build agent; "No" fails it
(``RejectedError``). Its part's input is empty: the plan is the file the path names."""

PLAN_REPLIES = {"Approve": "Yes", "Reject": "No"}
"""The chat's plan answers as the options ``plan_exit`` asks with."""

PLAN_AGENT_FLAG = "--agent"
"""Starts the TUI with an agent (``plan``) instead of the default ``build``."""

PLAN_AGENT = "plan"

PLAN_MODE_ENV = {"OPENCODE_EXPERIMENTAL_PLAN_MODE": "1"}
"""1.18.33 offers ``plan_exit`` to the plan agent only with this flag
(``experimentalPlanMode`` in the binary); without it a call is "Model tried to call
unavailable tool 'plan_exit'" (seen live) and the plan agent ends its turn in text. A run
started with ``agent="plan"`` sets it."""

QUESTION_PATH = "/question"
"""``GET`` lists the questions the agent waits on: ``[{id, sessionID, questions,
tool: {messageID, callID}}]``."""

QUESTION_LISTED_TIMEOUT = 10.0
"""Seconds an answer waits for the server to list a question its store already shows: under
load (two test workers beside each other) an answer given at once found none listed yet."""

QUESTION_REPLY_PATH = "/question/{id}/reply"
"""``POST {"answers": [[...], ...]}`` (one list per question) answers it: the TUI closes
its picker, the tool part completes with those answers and the turn goes on. The chat
answers questions here, not by keys: a structured reply cannot land on the wrong row."""

# -- commands ------------------------------------------------------------------------------

COMMAND_DIRS = (".opencode/command", ".opencode/commands")
"""Project commands: ``<folder>/**/*.md`` (frontmatter ``description``); the user's own in
``$XDG_CONFIG_HOME/opencode/command(s)``. Verified: both listed by ``GET /command`` with
``source: "command"`` after a restart."""

USER_COMMAND_DIRS = ("opencode/command", "opencode/commands")

# -- auth, seeding -------------------------------------------------------------------------

AUTH_FILE = "opencode/auth.json"
"""Where ``opencode auth login`` stores provider keys, under ``$XDG_DATA_HOME``."""

SEED = kit.SeedLayout(
    context_file="AGENTS.md",
    skills_dir=".opencode/skills",
    exclude=("/AGENTS.md", "/.opencode/skills/"),
    evidence=kit.Evidence(
        VERSION, "conformance: seeding (a real git repository, in place and in a worktree)"
    ),
)
"""What a seed writes and excludes."""

PERMISSION_KINDS = (
    "bash",
    "edit",
    "webfetch",
    "websearch",
    "external_directory",
    "doom_loop",
    "read",
    "glob",
    "grep",
    "task",
    "skill",
    "lsp",
    "todowrite",
)
"""Permission names the 1.18.33 binary asks with (``strings``: ``ask({permission: ...})``):
shell commands (``metadata.command``), file edits for the ``edit`` and ``write`` tools alike
(``metadata.filepath`` and a unified ``metadata.diff``), web fetches (``patterns: [url]``,
``always: ["*"]``, ``metadata: {url, format, timeout}``), folders outside the project
(``metadata: {command?, directories, patterns}`` or ``filepath``), a tool called again with
the same input (``doom_loop``, ``metadata: {tool, input}``), and the tools a config may set
to ``ask``. Every one, and any other name a later version adds, is shown with the same three
choices ("Allow once", "Allow always", "Reject") and answered through the server; the chat
shows the metadata it knows and the request's ``patterns`` otherwise."""

PERMISSION_ASKED = "permission.asked"
PERMISSION_REPLIED = "permission.replied"
"""A request opens with ``permission.asked`` (``properties``: the request as ``GET
/permission`` lists it) and ends with ``permission.replied`` (``{sessionID, requestID,
reply}``). 1.18.33's ``GET /permission`` answers 400 ("Expected JSON value, got undefined
at [0]["metadata"]["timeout"]") while a web fetch without a timeout waits, so the stream
is the source the signals fall back on (seen live: the probe behind
``test_webfetch_permission_answered_from_the_chat``)."""

PERMISSION_REPLY_PATH = "/permission/{id}/reply"
"""``POST {"reply": "once" | "always" | "reject", "message"?}`` answers a pending request
(``PermissionReplyBody`` in the binary); the TUI closes its prompt on the server's
``permission.replied`` event and the call goes on (or fails "The user rejected
permission ..."). Verified live: ``test_webfetch_permission_answered_from_the_chat``,
``test_approval_approve_then_reject``."""

PERMISSION_REPLIES = {"Approve": "once", "Approve always": "always", "Reject": "reject"}
"""The chat's answers as the server's replies."""

ALWAYS_SCOPE = "{what} until OpenCode is restarted"
"""What "Allow always" covers, as the TUI says it: "This will allow <permission> until
OpenCode is restarted." for ``always: ["*"]``, else the listed patterns; the rule lives in
the running process (the pending requests it covers are answered with it)."""

LOG_DIR = "opencode/log"
"""Under ``$XDG_DATA_HOME``: the CLI logs ``message=asking id=per_... permission=bash``
when a permission request opens, so a change there wakes the reader to ask the server
(the store does not change while a request waits)."""

COUNTED_EVENTS_QUERY = (
    "SELECT seq, id, type, CAST(data AS BLOB) FROM event WHERE aggregate_id = ? AND ("
    f"type GLOB '{MESSAGE_UPDATED}*' OR type GLOB '{SESSION_CREATED}*' OR "
    f"(type GLOB '{PART_UPDATED}*' AND (instr(data, '\"type\":\"step-finish\"') > 0 "
    f"OR instr(data, '\"{SUBAGENT_KEY}\"') > 0))) ORDER BY seq"
)
"""The events a session's token count needs (usage-only summaries): message infos, the
session's own, ``step-finish`` parts and the parts that name a sub-agent's session; the CLI
stores parts as compact JSON, so a part's type is ``"type":"step-finish"`` in its text.
The rest (text, reasoning, tool output as it streams: the bulk of the log) stays in the
store, unread. The data comes as bytes: JSON is parsed from them without a text copy."""

COUNTED_MESSAGES_QUERY = (
    'SELECT session_id, id, instr(data, \'"role":"assistant"\') > 0, CAST(data AS BLOB) '
    "FROM message WHERE session_id IN ({marks}) ORDER BY session_id, time_created, id"
)
COUNTED_PARTS_QUERY = (
    "SELECT session_id, id, message_id, CAST(data AS BLOB) FROM part "
    f'WHERE session_id IN ({{marks}}) AND (instr(data, \'"type":"step-finish"\') > 0 '
    f"OR instr(data, '\"{SUBAGENT_KEY}\"') > 0) ORDER BY message_id, id"
)
COUNTED_SESSIONS_QUERY = (
    "SELECT id, directory, version, parent_id, time_created FROM session WHERE id IN ({marks})"
)
"""The rows the token counts of many sessions need (usage-only summaries of a listing, one
query each for all of them, ``{marks}`` their ids), where the store keeps ``message`` /
``part`` rows (1.2.27 and later; beside the event log from 1.17.19, with the same final
states): every message row (an assistant message's ``tokens``, ``cost`` and ``modelID`` are
in its ``data``, as last written), the parts that are ``step-finish`` or name a sub-agent's
session, and the session rows (their facts). The CLI stores messages and parts as compact
JSON, so an assistant message has ``"role":"assistant"`` in its text (one without it counts
nothing and is parsed only if a part asks for it) and a part's type is
``"type":"step-finish"``. The tables are indexed by session
(``message_session_time_created_id_idx``, ``part_session_idx``) and hold each record once,
where the event log holds every version of it: a fraction of the bytes (a 53 MB history:
4 MB of rows, 26 MB of events). The data comes as bytes: JSON is parsed from them without
a text copy."""

COUNTED_IDS_PER_QUERY = 500
"""Session ids bound in one query (SQLite allows 32766 bound values since 3.32, 999 before)."""

# -- the run's own MCP servers (kernel tools) -----------------------------------------------

MCP_TOOLS = kit.ToolServerNames(
    pattern="{server}_{tool}",
    evidence=kit.Evidence(
        VERSION,
        "live: tests/live/test_kernel_tools.py -k opencode (the store's tool part, the "
        "permission request's ``permission``, a ``permission`` rule that makes it ask); "
        'strings: ``Z1(server)+"_"+Z1(tool)``, ``Z1`` replacing [^a-zA-Z0-9_-] by ``_``',
    ),
)
"""A server of the config's ``mcp`` (``{name: {"type": "local", "command": [argv...],
"environment": {...}}}``) offers its tools as ``<server>_<tool>``; the config's ``permission``
rules name them so. A call asks ``{permission: <that name>, patterns: ["*"], always: ["*"],
metadata: {}}``: the request carries no arguments, only ``tool: {messageID, callID}``
(:data:`MESSAGE_PATH` gives the call's input). The run's servers and their rules go in the
inline config the CLI merges last, over the user's and the project's
(``OPENCODE_CONFIG_CONTENT``, :attr:`~._family.OpenCodeFamily.config_content_env`;
``strings``: "inject inline JSON as a final local-scope merge"): in the run's environment
only, never in a file of the user's."""

MCP_ASK = "ask"
MCP_ALLOW = "allow"
"""The ``permission`` rules' actions for an asking tool (asked before every call) and a
reading one. The rules are evaluated last match first (``findLast`` over the merged
rules), so the run's rules, merged last, decide for its own tools (the same evidence as
:data:`MCP_TOOLS`)."""

MCP_CALL_TIMEOUT = "timeout"
"""The key of a server's ``mcp`` entry that sets, in milliseconds, how long the CLI waits on
it: to connect and list its tools, and for each call (``experimental.mcp_timeout`` else;
then the MCP SDK's 60 s). Without it a kernel cell of 70 s was cut at 60 s ("MCP error
-32001: Request timed out") while the code ran on; with it a 5 s limit cuts a 12 s call at
5 s (live: ``tests/live/test_kernel_tools.py -k time_the_server``; ``strings``: the tools'
``timeout`` is ``config.timeout ?? experimental.mcp_timeout``). The run sets it from the
server's ``call_timeout``."""

MESSAGE_PATH = "/session/{session}/message/{message}"
"""``GET`` answers ``{info, parts}``; the tool part whose ``callID`` a permission request
names holds the call's arguments in ``state.input`` while it waits (``running``) (the same
evidence as :data:`MCP_TOOLS`)."""

CALL_INPUT_WAIT = 10.0
"""Seconds a request for a tool of the run's servers waits to be shown until its call's
arguments are read: the server lists the request before the message it names shows the
call's ``state.input`` (seen on Kilo 7.7.7 under load: a first read without it, in 1 run of
3), and a dialog without the code would be approved blind; after it, the dialog shows
without its code rather than never."""

SHELL_TOOLS = kit.ShellTools(
    fields={"bash": "command"},
    evidence=kit.Evidence(
        VERSION,
        "fixture: approve.jsonl (tool part bash, state.input {command, description})",
    ),
)
"""OpenCode (and Kilo Code, which reads with this family's code) runs shell commands with
``bash``."""
