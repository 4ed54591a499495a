// Mirror of lab_widget/schema.py (the JSON of its pydantic models) and of the
// widget protocol between RunView and this front end. Optional fields may be
// absent or null on the wire: the Python side is free to drop defaults.

export type State = "idle" | "working" | "needs_input" | "question" | "ended";
export type MessageKind = "text" | "tool" | "dialog" | "lifecycle";
export type Role = "user" | "assistant" | "system";
export type ToolStatus = "running" | "ok" | "error";
export type DialogKind = "question" | "plan" | "approval";
export type DialogStatus = "pending" | "answered" | "rejected" | "dismissed";
export type LifecycleLevel = "info" | "warning" | "error";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Of output_tokens, those spent reasoning (where the vendor reports it). */
  reasoning_tokens?: number;
  /** Of cache_write_tokens, those written to the one-hour cache (billed higher). */
  cache_write_1h_tokens?: number;
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  status: ToolStatus;
  output?: string | null;
  /** Output streamed while the call runs; `output` takes over when it ends. */
  progress?: string | null;
  /** The sub-agent this call runs; its messages carry this call's id as `parent_tool_id`. */
  agent_id?: string | null;
}

/** An image the conversation carries inline (never fetched). */
export interface Attachment {
  media_type: string;
  /** Base64 of the image; "" when it was left out (see `omitted`). */
  data: string;
  size: number;
  name: string;
  omitted: string;
}

export interface Option {
  label: string;
  description: string;
}

export interface Question {
  header: string;
  text: string;
  options: Option[];
  multi_select: boolean;
  free_text: boolean;
}

export interface Dialog {
  kind: DialogKind;
  questions: Question[];
  answerable: boolean;
  tool_id?: string | null;
  body: string;
  /** The native tool behind the dialog ("AskUserQuestion", "Bash"...); "" when unknown. */
  tool_name: string;
  status: DialogStatus;
  /** After it ended: what was answered, in words ("Database → SQLite; Features → Auth"). */
  outcome: string;
}

/** The answer to one question: chosen option labels and/or typed text. */
export interface Answer {
  selected: string[];
  text?: string | null;
}

export type CommandSource = "builtin" | "project" | "user";

/** A slash command the run offers (the `commands` trait). */
export interface CommandSpec {
  /** With its slash: "/compact". */
  name: string;
  description: string;
  arg_hint: string;
  source: CommandSource;
  /** "clear" marks the command that starts a new conversation. */
  role?: "clear" | null;
  /** False for commands that would strand the TUI where the widget cannot see it. */
  chat_safe: boolean;
}

export interface Message {
  seq: number;
  kind: MessageKind;
  role: Role;
  native_id?: string | null;
  timestamp?: string | null;
  text: string;
  command?: string | null;
  tool?: ToolCall | null;
  dialog?: Dialog | null;
  level?: LifecycleLevel | null;
  model?: string | null;
  usage?: Usage | null;
  /** The model's reasoning before it answered: shown collapsed. */
  thinking: boolean;
  /** Reasoning the CLI kept only encrypted or redacted (its text is empty). */
  redacted: boolean;
  /** For a sub-agent's message: the call that started the sub-agent. */
  parent_tool_id?: string | null;
  attachments: Attachment[];
  /** Text shown collapsed under the message (a compaction's summary). */
  detail: string;
}

/** A conversation a clear ended: the chat keeps it, collapsed, above the current one. */
export interface PastConversation {
  transcript_id: string | null;
  messages: Message[];
}

/** The conversation as one value: the `_snapshot` trait and the `snapshot` message. */
export interface Snapshot {
  transcript_id: string | null;
  version: number;
  messages: Message[];
  /** Earlier conversations of the run, oldest first (absent from older saved notebooks). */
  past?: PastConversation[];
}

export interface DeltaMsg {
  kind: "delta";
  version: number;
  base: number;
  transcript_id: string | null;
  reset: boolean;
  changed: Message[];
  /** On a reset: the ids of every earlier conversation the kernel knows, oldest first. */
  past?: string[] | null;
}

export interface SnapshotMsg extends Snapshot {
  kind: "snapshot";
}

// -- Actions: request/response over custom messages, the same for every widget ----------
// (js/src/channel.ts here, lab_widget/_widgets/_channel.py in the kernel).

/** An action to the kernel: its name, an id unique across tabs, and its arguments. */
export type ActionMsg<K extends string = string, Args extends object = object> = {
  kind: "action";
  id: string;
  action: K;
} & Args;

/** Sent once this front end stopped waiting for an action: the kernel skips it if queued. */
export interface CancelMsg {
  kind: "cancel";
  id: string;
}

/** The kernel's one answer to an action; `error` says why it failed. */
export interface ResultMsg {
  kind: "result";
  id: string;
  ok: boolean;
  error?: string | null;
  /** What an action that answers a question returned (the kernel's variables...). */
  value?: unknown;
}

/** A kernel variable the composer offers after `@`: its name and kind, never its value. */
export interface Variable {
  name: string;
  /** Its type, short: "DataFrame", "ndarray", "int". */
  type: string;
  /** Its shape or length ("100 × 3", "12 items"), or "". */
  size: string;
  /** Named like a secret: it will not be expanded. */
  secret: boolean;
}

/** The chat view's actions (RunView) and what each carries. */
export interface ChatActionArgs {
  send: { text: string };
  interrupt: Record<string, never>;
  clear: Record<string, never>;
  answer: {
    /** The pending dialog's tool_id: the kernel answers only the dialog it is waiting on. */
    tool_id?: string | null;
    /** One per question of the dialog, in order. */
    answers: Answer[];
  };
  /** The kernel's variables, for `@` completion; answers with a list of `Variable`. */
  variables: Record<string, never>;
}

/** The runs dashboard's actions (RunsDashboard); `close` needs no run. */
export interface RunsActionArgs {
  /** `pane: "terminal"` opens the run with its terminal pane showing. */
  open: { run_id: string; pane?: "terminal" };
  stop: { run_id: string };
  close: { run_id: string };
}

/** The login card's actions (ProviderAuthCard); a key or code travels only here, once. */
export interface AuthActionArgs {
  refresh: Record<string, never>;
  start: { login_kind?: string };
  cancel: Record<string, never>;
  submit_code: { code: string };
  save_key: { key: string };
  forget_key: Record<string, never>;
  logout: Record<string, never>;
}

export type ActionKind = keyof ChatActionArgs & string;

/** What a chat action carries besides its kind: `text` for send, the rest for answer. */
export type ActionArgs = Partial<ChatActionArgs["send"] & ChatActionArgs["answer"]>;

/** Custom messages from the kernel to the chat view. */
export type KernelMsg = DeltaMsg | SnapshotMsg | ResultMsg;

/** Custom messages to the kernel. */
export type FrontendMsg = { kind: "sync" } | CancelMsg | ActionMsg;

/** The synced traits of RunView. */
export interface Traits {
  provider_name: string;
  state: State;
  state_reason: string;
  attach_command: string;
  clear_command: string;
  /** The dialog the agent waits on now, or null. */
  pending_dialog: Dialog | null;
  commands: CommandSpec[];
  /** Model, token totals, both costs (decimal strings), quotas and context of the session
   * (schema.SessionSummary; see meter.ts). */
  session: Record<string, unknown> | null;
  _snapshot: Snapshot;
  // -- the terminal pane (terminal.ts)
  /** The run has a tmux pane the terminal pane can show. */
  has_terminal: boolean;
  /** A new value opens the terminal pane (the runs dashboard's button). */
  terminal_reveal: string;
  /** The last screen, kept by the front end for a saved notebook. */
  _terminal_screen: Record<string, unknown>;
}
