// The widget protocol: every custom message between a widget and the kernel, and the
// structured traits. Mirror of lab_widget/_widgets/_protocol.py, held to it by
// tests/unit/test_wire_contract.py (same regular layout as schema.ts: one member a line,
// named types only, `?` for a key that may be absent, `| null` for a value that may be null).
import type {
  Answer,
  CommandSpec,
  CostUnit,
  Dialog,
  Message,
  RateLimit,
  State,
  Usage,
} from "./schema";

// -- the chat view's conversation (kernel →) ------------------------------------------

/** A conversation a clear ended: the chat keeps it, collapsed, above the current one. */
export interface PastConversation {
  transcript_id: string | null;
  messages: Message[];
}

/** The conversation as one value: the `_snapshot` trait (and the `snapshot` message). */
export interface Snapshot {
  transcript_id: string | null;
  version: number;
  messages: Message[];
  /** Earlier conversations of the run, oldest first (absent from older saved notebooks). */
  past?: PastConversation[];
}

export interface SnapshotMsg extends Snapshot {
  kind: "snapshot";
}

export interface DeltaMsg {
  kind: "delta";
  version: number;
  base: number;
  transcript_id: string | null;
  reset: boolean;
  changed: Message[];
  /** On a reset: the ids of every earlier conversation the kernel knows, oldest first. */
  past?: string[];
}

/** The agent's `insert_cell`: a new code cell below the chat, once per model (`id`). */
export interface InsertCellMsg {
  kind: "insert_cell";
  id: string;
  code: string;
}

/** A front end that started late, or missed a delta, asks for a snapshot. */
export interface SyncMsg {
  kind: "sync";
}

/** What the conversations a clear ended used, summed: the meter's session totals. */
export interface EarlierJSON {
  conversations: number;
  usage: Usage;
  /** Exact decimals, as strings. */
  cost_usd_estimate: string | null;
  vendor_cost_usd: string | null;
}

/** The `session` trait: the header meter's part of schema.SessionSummary (see meter.ts);
 * `earlier` sums the conversations before the last clear (absent: there were none). */
export interface SessionJSON {
  model: string | null;
  model_requested: string | null;
  usage: Usage;
  /** Exact decimals, as strings. */
  cost_usd_estimate: string | null;
  vendor_cost_usd: string | null;
  currency: CostUnit;
  price_table: string | null;
  rate_limits: RateLimit[];
  context_tokens: number | null;
  context_window: number | null;
  branch: string | null;
  earlier?: EarlierJSON;
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

// -- Actions: request/response over custom messages, the same for every widget ----------
// (js/src/channel.ts here, lab_widget/_widgets/_channel.py in the kernel).

/** An action to the kernel: its name and an id unique across tabs; its arguments (one of
 * the `*ActionArgs` members below) ride beside these keys. */
export interface ActionMsg {
  kind: "action";
  id: string;
  action: string;
}

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
  error?: string;
  /** What an action that answers a question returned (the kernel's variables...). */
  value?: unknown;
}

/** An action that carries nothing but its name. */
export type NoArgs = Record<string, never>;

export interface SendArgs {
  text: string;
}

export interface AnswerArgs {
  /** The pending dialog's tool_id: the kernel answers only the dialog it is waiting on. */
  tool_id?: string | null;
  /** One per question of the dialog, in order. */
  answers: Answer[];
}

/** Start the run's agent again, with or without the kernel's tools (`Run.restart`). */
export interface RestartArgs {
  kernel: boolean;
}

/** The chat view's actions (RunView) and what each carries. */
export interface ChatActionArgs {
  send: SendArgs;
  interrupt: NoArgs;
  clear: NoArgs;
  answer: AnswerArgs;
  /** The kernel's variables, for `@` completion; answers with a list of `Variable`. */
  variables: NoArgs;
  restart: RestartArgs;
}

export type TerminalPaneName = "terminal";

export interface OpenRunArgs {
  run_id: string;
  /** `pane: "terminal"` opens the run with its terminal pane showing. */
  pane?: TerminalPaneName;
}

export interface RunArgs {
  run_id: string;
}

/** The runs dashboard's actions (RunsDashboard); `close` needs no run. */
export interface RunsActionArgs {
  open: OpenRunArgs;
  stop: RunArgs;
  close: RunArgs;
}

export interface StartLoginArgs {
  login_kind?: string;
}

export interface CodeArgs {
  code: string;
}

export interface KeyArgs {
  key: string;
}

/** The login card's actions (ProviderAuthCard); a key or code travels only here, once. */
export interface AuthActionArgs {
  refresh: NoArgs;
  start: StartLoginArgs;
  cancel: NoArgs;
  submit_code: CodeArgs;
  save_key: KeyArgs;
  forget_key: NoArgs;
  logout: NoArgs;
}

export type ActionKind = keyof ChatActionArgs & string;

/** What a chat action carries besides its kind: `text` for send, the rest for answer. */
export type ActionArgs = Partial<SendArgs & AnswerArgs>;

// -- the terminal pane (terminal.ts; lab_widget/_widgets/_terminal.py) -------------------

export type TermViewOp = "open" | "ping" | "resize";

/** To the kernel: a viewer opens the pane, pings while open, or resizes it. */
export interface TermViewMsg {
  kind: "term";
  op: TermViewOp;
  viewer: string;
  cols: number;
  rows: number;
}

export interface TermCloseMsg {
  kind: "term";
  op: "close";
  viewer: string;
}

/** To the kernel: what the terminal sends for the keys pressed (only while taken over). */
export interface TermInputMsg {
  kind: "term";
  op: "input";
  viewer: string;
  data: string;
}

export interface TermPasteMsg {
  kind: "term";
  op: "paste";
  viewer: string;
  text: string;
}

/** From the kernel: one viewer's screen; its bytes are the message's buffer. */
export interface TermScreenMsg {
  kind: "term";
  op: "screen";
  viewer: string;
  cols: number;
  rows: number;
  live: boolean;
}

/** From the kernel: the pane's output; its bytes are the message's buffer. */
export interface TermOutputMsg {
  kind: "term";
  op: "output";
}

/** From the kernel: the pane's real size (a terminal attached by hand may set it). */
export interface TermSizeMsg {
  kind: "term";
  op: "size";
  cols: number;
  rows: number;
}

export interface TermEndedMsg {
  kind: "term";
  op: "ended";
  reason: string;
}

export interface TermErrorMsg {
  kind: "term";
  op: "error";
  viewer: string;
  message: string;
}

/** Terminal messages to the kernel. */
export type TermFrontendMsg = TermViewMsg | TermCloseMsg | TermInputMsg | TermPasteMsg;

/** Terminal messages from the kernel. */
export type TermKernelMsg =
  TermScreenMsg | TermOutputMsg | TermSizeMsg | TermEndedMsg | TermErrorMsg;

/** Custom messages from the kernel to the chat view. */
export type KernelMsg = DeltaMsg | SnapshotMsg | ResultMsg | InsertCellMsg | TermKernelMsg;

/** Custom messages to the kernel. */
export type FrontendMsg = SyncMsg | CancelMsg | ActionMsg | TermFrontendMsg;

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
  /** Model, token totals, both costs (decimal strings), quotas and context (see meter.ts). */
  session: SessionJSON | null;
  _snapshot: Snapshot;
  /** Names the model across its views (anywidget gives each view its own handle). */
  _view_key: string;
  /** The agent has the kernel's tools; the header's switch restarts it with or without
   * them (null: the run cannot be restarted here, no switch). */
  kernel_tools: boolean | null;
  /** The run has a tmux pane the terminal pane can show (terminal.ts). */
  has_terminal: boolean;
  /** A new value opens the terminal pane (the runs dashboard's button). */
  terminal_reveal: string;
  /** The last screen, kept by the front end for a saved notebook. */
  _terminal_screen: Record<string, unknown>;
}
