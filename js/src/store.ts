// The conversation as the front end knows it, and everything derived from it
// that does not need a DOM: render groups, truncation, summaries, composer state.
import type {
  ActionKind,
  Attachment,
  DeltaMsg,
  Dialog,
  DialogKind,
  DialogStatus,
  LifecycleLevel,
  Message,
  MessageKind,
  PastConversation,
  Question,
  Role,
  Snapshot,
  State,
  ToolCall,
  ToolStatus,
  Usage,
} from "./types";
import { isObj, list, num, oneOf, optStr, str } from "./guards";

// ---------------------------------------------------------------------------
// Normalisation: the wire format may omit defaults, so fill them in once here
// instead of guarding every read in the view.

const KINDS: readonly MessageKind[] = ["text", "tool", "dialog", "lifecycle"];
const ROLES: readonly Role[] = ["user", "assistant", "system"];
const TOOL_STATUSES: readonly ToolStatus[] = ["running", "ok", "error"];
const DIALOG_KINDS: readonly DialogKind[] = ["question", "plan", "approval"];
const DIALOG_STATUSES: readonly DialogStatus[] = ["pending", "answered", "rejected", "dismissed"];
const LEVELS: readonly LifecycleLevel[] = ["info", "warning", "error"];

function normalizeTool(v: unknown): ToolCall | null {
  if (!isObj(v)) return null;
  return {
    id: str(v.id),
    name: str(v.name, "tool"),
    input: isObj(v.input) ? v.input : {},
    status: oneOf(v.status, TOOL_STATUSES, "running"),
    output: optStr(v.output),
    progress: optStr(v.progress),
    agent_id: optStr(v.agent_id),
  };
}

/** Raster images only: an SVG can carry script. */
export const IMAGE_TYPES: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function normalizeAttachment(v: unknown): Attachment | null {
  if (!isObj(v) || !IMAGE_TYPES.includes(str(v.media_type))) return null;
  const data = str(v.data);
  return {
    media_type: str(v.media_type),
    // Anything but plain base64 is dropped rather than put into a URL.
    data: BASE64.test(data) ? data : "",
    size: num(v.size),
    name: str(v.name),
    omitted: str(v.omitted) || (BASE64.test(data) ? "" : "unreadable image data"),
  };
}

function normalizeQuestion(v: unknown): Question | null {
  if (!isObj(v)) return null;
  return {
    header: str(v.header),
    text: str(v.text),
    options: list(v.options)
      .filter(isObj)
      .map((o) => ({ label: str(o.label), description: str(o.description) })),
    multi_select: v.multi_select === true,
    free_text: v.free_text !== false,
  };
}

/** A dialog with every default filled in (also the `pending_dialog` trait), or null. */
export function normalizeDialog(v: unknown): Dialog | null {
  if (!isObj(v)) return null;
  return {
    kind: oneOf(v.kind, DIALOG_KINDS, "question"),
    questions: list(v.questions)
      .map(normalizeQuestion)
      .filter((q): q is Question => q !== null),
    answerable: v.answerable !== false,
    tool_id: optStr(v.tool_id),
    body: str(v.body),
    tool_name: str(v.tool_name),
    status: oneOf(v.status, DIALOG_STATUSES, "pending"),
    outcome: str(v.outcome),
  };
}

function normalizeUsage(v: unknown): Usage | null {
  if (!isObj(v)) return null;
  return {
    input_tokens: num(v.input_tokens),
    output_tokens: num(v.output_tokens),
    cache_read_tokens: num(v.cache_read_tokens),
    cache_write_tokens: num(v.cache_write_tokens),
  };
}

/** A message with every default filled in, or null when it has no usable seq. */
export function normalizeMessage(v: unknown): Message | null {
  if (!isObj(v) || typeof v.seq !== "number" || !Number.isInteger(v.seq)) return null;
  return {
    seq: v.seq,
    // An unknown kind from a newer Python side still shows its text.
    kind: oneOf(v.kind, KINDS, "text"),
    role: oneOf(v.role, ROLES, "system"),
    native_id: optStr(v.native_id),
    timestamp: optStr(v.timestamp),
    text: str(v.text),
    command: optStr(v.command),
    tool: normalizeTool(v.tool),
    dialog: normalizeDialog(v.dialog),
    level: LEVELS.includes(v.level as LifecycleLevel) ? (v.level as LifecycleLevel) : null,
    model: optStr(v.model),
    usage: normalizeUsage(v.usage),
    thinking: v.thinking === true,
    redacted: v.redacted === true,
    parent_tool_id: optStr(v.parent_tool_id),
    attachments: list(v.attachments)
      .map(normalizeAttachment)
      .filter((a): a is Attachment => a !== null),
    detail: str(v.detail),
  };
}

/** Messages sorted by seq, one per seq (the last one wins). */
function normalizeMessages(v: unknown): Message[] {
  const bySeq = new Map<number, Message>();
  for (const raw of list(v)) {
    const m = normalizeMessage(raw);
    if (m) bySeq.set(m.seq, m);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

export function normalizeSnapshot(v: unknown): Required<Snapshot> {
  const o = isObj(v) ? v : {};
  return {
    transcript_id: optStr(o.transcript_id),
    version: num(o.version),
    messages: normalizeMessages(o.messages),
    past: list(o.past)
      .filter(isObj)
      .map((p) => ({
        transcript_id: optStr(p.transcript_id),
        messages: normalizeMessages(p.messages),
      })),
  };
}

function samePast(a: readonly PastConversation[], b: readonly PastConversation[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (p, i) =>
        p.transcript_id === b[i]!.transcript_id && p.messages.length === b[i]!.messages.length,
    )
  );
}

// ---------------------------------------------------------------------------
// The store

/** What an update did, so a view can touch only what changed. */
export interface StoreChange {
  /** Everything was replaced (a new epoch): drop all state derived from the old messages. */
  reset: boolean;
  /** The earlier conversations changed (always with a reset; alone after a re-sync). */
  past?: boolean;
  /** Seqs added or changed; empty on reset. */
  changed: readonly number[];
  /** Seqs that are gone; empty on reset. */
  removed: readonly number[];
}

/** `gap`: the delta does not follow the local version, so a snapshot is needed. */
export type DeltaOutcome = "applied" | "gap";

export type StoreListener = (change: StoreChange) => void;

/** Index of `seq` in messages sorted by seq, or the index where it would go. */
function searchSeq(messages: readonly Message[], seq: number): number {
  let lo = 0;
  let hi = messages.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (messages[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class ConversationStore {
  #transcriptId: string | null = null;
  #version = 0;
  // Replaced, never mutated: snapshots handed out stay valid and cheap to compare.
  #messages: readonly Message[] = [];
  #past: readonly PastConversation[] = [];
  #snapshot: Snapshot | null = null;
  readonly #listeners = new Set<StoreListener>();

  constructor(initial?: unknown) {
    if (initial != null) {
      const s = normalizeSnapshot(initial);
      this.#set(s.transcript_id, s.version, s.messages);
      this.#past = s.past;
    }
  }

  get version(): number {
    return this.#version;
  }

  get transcriptId(): string | null {
    return this.#transcriptId;
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** The conversations a clear ended, oldest first. */
  get past(): readonly PastConversation[] {
    return this.#past;
  }

  get(seq: number): Message | undefined {
    const m = this.#messages[searchSeq(this.#messages, seq)];
    return m?.seq === seq ? m : undefined;
  }

  /** The current conversation; the same object until the next change. */
  snapshot(): Snapshot {
    this.#snapshot ??= {
      transcript_id: this.#transcriptId,
      version: this.#version,
      messages: [...this.#messages],
      past: [...this.#past],
    };
    return this.#snapshot;
  }

  subscribe(listener: StoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Replace the conversation. Within the same transcript only the messages that
   * differ are reported, so a re-sync does not rebuild (and collapse) the view.
   */
  applySnapshot(raw: unknown): void {
    const s = normalizeSnapshot(raw);
    const pastChanged = !samePast(this.#past, s.past);
    if (pastChanged) this.#past = s.past;
    if (s.transcript_id !== this.#transcriptId) {
      this.#set(s.transcript_id, s.version, s.messages);
      this.#emit({ reset: true, past: true, changed: [], removed: [] });
      return;
    }
    const old = new Map(this.#messages.map((m) => [m.seq, m]));
    const changed: number[] = [];
    const messages = s.messages.map((m) => {
      const prev = old.get(m.seq);
      old.delete(m.seq);
      // Keeping the old object tells "untouched" to anyone comparing identity.
      if (prev && JSON.stringify(prev) === JSON.stringify(m)) return prev;
      changed.push(m.seq);
      return m;
    });
    const removed = [...old.keys()];
    this.#set(s.transcript_id, s.version, messages);
    this.#emit(
      pastChanged
        ? { reset: false, past: true, changed, removed }
        : { reset: false, changed, removed },
    );
  }

  applyDelta(delta: DeltaMsg): DeltaOutcome {
    if (delta.base !== this.#version) return "gap";
    const incoming = normalizeMessages(delta.changed);
    const transcriptId = delta.transcript_id ?? null;
    if (delta.reset) {
      const { past, complete } = this.#pastAfterReset(transcriptId, delta.past);
      this.#set(transcriptId, delta.version, incoming);
      this.#past = past;
      this.#emit({ reset: true, past: true, changed: [], removed: [] });
      // Applied, but an earlier conversation this front end never saw must come from a
      // snapshot: reporting a gap asks for one.
      return complete ? "applied" : "gap";
    }
    const messages = [...this.#messages];
    for (const m of incoming) {
      const last = messages[messages.length - 1];
      if (!last || last.seq < m.seq) {
        messages.push(m); // the common case: a new message at the end
        continue;
      }
      const i = searchSeq(messages, m.seq);
      messages.splice(i, messages[i]?.seq === m.seq ? 1 : 0, m);
    }
    this.#set(transcriptId, delta.version, messages);
    this.#emit({ reset: false, changed: incoming.map((m) => m.seq), removed: [] });
    return "applied";
  }

  /**
   * The earlier conversations once the current one ends: it joins them, and the kernel's
   * list (when it sends one) says which there are; `complete` is false when one is missing.
   */
  #pastAfterReset(
    next: string | null,
    ids: unknown,
  ): { past: readonly PastConversation[]; complete: boolean } {
    let past = this.#past;
    const current = this.#transcriptId;
    if (current !== null && current !== next && !past.some((p) => p.transcript_id === current)) {
      past = [...past, { transcript_id: current, messages: [...this.#messages] }];
    }
    if (!Array.isArray(ids)) return { past, complete: true };
    const byId = new Map(past.map((p) => [p.transcript_id, p]));
    const known = ids.filter((id): id is string => typeof id === "string");
    return {
      past: known.flatMap((id) => byId.get(id) ?? []),
      complete: known.every((id) => byId.has(id)),
    };
  }

  #set(transcriptId: string | null, version: number, messages: readonly Message[]): void {
    this.#transcriptId = transcriptId;
    this.#version = version;
    this.#messages = messages;
    this.#snapshot = null;
  }

  #emit(change: StoreChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}

// ---------------------------------------------------------------------------
// Render groups: a run of consecutive tool calls reads as one block.

export type RenderGroup =
  | { type: "message"; key: string; message: Message }
  | { type: "tools"; key: string; messages: Message[] };

/**
 * Consecutive tool calls of one thread as one group. Pass one thread's messages:
 * the conversation's top level, or one sub-agent's (see `threads`).
 */
export function groupMessages(messages: readonly Message[]): RenderGroup[] {
  const groups: RenderGroup[] = [];
  for (const message of messages) {
    const last = groups[groups.length - 1];
    if (message.kind !== "tool") {
      groups.push({ type: "message", key: `m${message.seq}`, message });
    } else if (last?.type === "tools") {
      last.messages.push(message);
    } else {
      groups.push({ type: "tools", key: `t${message.seq}`, messages: [message] });
    }
  }
  return groups;
}

/** Top-level messages, and each sub-agent's messages keyed by the call that started it. */
export function threads(messages: readonly Message[]): {
  top: Message[];
  children: Map<string, Message[]>;
} {
  const top: Message[] = [];
  const children = new Map<string, Message[]>();
  for (const message of messages) {
    const parent = message.parent_tool_id;
    if (!parent) {
      top.push(message);
      continue;
    }
    const list = children.get(parent);
    if (list) list.push(message);
    else children.set(parent, [message]);
  }
  return { top, children };
}

export function toolGroupLabel(messages: readonly Message[]): string {
  const count = (status: ToolStatus) => messages.filter((m) => m.tool?.status === status).length;
  const parts = [`${messages.length} tool call${messages.length === 1 ? "" : "s"}`];
  const running = count("running");
  const failed = count("error");
  if (running) parts.push(`${running} running`);
  if (failed) parts.push(`${failed} failed`);
  return parts.join(" · ");
}

// ---------------------------------------------------------------------------
// Long text

export interface TruncateLimits {
  maxLines: number;
  maxChars: number;
}

export const OUTPUT_LIMITS: TruncateLimits = { maxLines: 24, maxChars: 3000 };

export interface Truncated {
  /** What to show while collapsed. */
  text: string;
  truncated: boolean;
  hiddenLines: number;
  hiddenChars: number;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** The first `maxLines` lines, at most `maxChars` characters, of `text`. */
export function truncateText(text: string, limits: TruncateLimits = OUTPUT_LIMITS): Truncated {
  // Walk newlines instead of splitting: outputs can be megabytes long.
  let end = -1;
  for (let line = 0; line < limits.maxLines; line++) {
    end = text.indexOf("\n", end + 1);
    if (end === -1) break;
  }
  let cut = end === -1 ? text.length : end;
  if (cut > limits.maxChars) {
    cut = limits.maxChars;
    // Never split a surrogate pair.
    const code = text.charCodeAt(cut);
    if (code >= 0xdc00 && code <= 0xdfff) cut--;
  }
  if (cut >= text.length) return { text, truncated: false, hiddenLines: 0, hiddenChars: 0 };
  const head = text.slice(0, cut);
  return {
    text: head,
    truncated: true,
    hiddenLines: countLines(text) - countLines(head),
    hiddenChars: text.length - head.length,
  };
}

export function moreLabel(t: Truncated): string {
  if (t.hiddenLines > 0) return `Show ${t.hiddenLines} more line${t.hiddenLines === 1 ? "" : "s"}`;
  return `Show ${t.hiddenChars} more characters`;
}

// ---------------------------------------------------------------------------
// Tools and commands as text

// The input fields that say best what a call does, most telling first.
const SUMMARY_FIELDS = [
  "command",
  "file_path",
  "notebook_path",
  "pattern",
  "path",
  "url",
  "query",
  "description",
  "prompt",
];
const SUMMARY_MAX = 160;

export function toolSummary(tool: ToolCall): string {
  const input = tool.input;
  const field =
    SUMMARY_FIELDS.find((k) => typeof input[k] === "string" && input[k] !== "") ??
    Object.keys(input).find((k) => typeof input[k] === "string" && input[k] !== "");
  if (field === undefined) return "";
  const line = (input[field] as string).replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
}

export function formatInput(input: Record<string, unknown>): string {
  return Object.keys(input).length ? JSON.stringify(input, null, 2) : "";
}

// Terminal colour codes mean nothing in a <pre>.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function plainOutput(output: string): string {
  return output.replace(ANSI, "").trimEnd();
}

/** The command line of a slash-command echo, e.g. "/model opus". */
export function commandLine(message: Message): string {
  const command = message.command ?? "";
  const text = message.text.trim();
  if (!command || text.startsWith(command)) return text || command;
  return text ? `${command} ${text}` : command;
}

// ---------------------------------------------------------------------------
// Run state → header and composer

const STATE_LABELS: Record<State, string> = {
  idle: "idle",
  working: "working",
  needs_input: "needs input",
  question: "question",
  ended: "ended",
};

export function stateLabel(state: string): string {
  return STATE_LABELS[state as State] ?? state.replace(/_/g, " ");
}

export interface ComposerInput {
  state: string;
  stateReason: string;
  providerName: string;
  clearCommand: string;
  text: string;
  busy: ReadonlySet<ActionKind>;
}

export interface ComposerState {
  inputEnabled: boolean;
  sendEnabled: boolean;
  sendBusy: boolean;
  interruptVisible: boolean;
  interruptEnabled: boolean;
  clearVisible: boolean;
  clearEnabled: boolean;
  placeholder: string;
  /** Why the composer is limited; "" when it is not. */
  notice: string;
}

export const QUESTION_NOTICE = "Answer the question above to continue.";

export function composerState(input: ComposerInput): ComposerState {
  const { state, stateReason, providerName, clearCommand, text, busy } = input;
  const ended = state === "ended";
  // A blocked TUI shows a prompt or a menu, not the input line: typed text
  // (a message or the clear command) would land in the wrong place.
  const blocked = state === "needs_input" || state === "question";
  // A dialog is answered in its card (or the terminal), never by a message.
  const locked = ended || state === "question";
  const hasText = text.trim() !== "";

  let notice = "";
  let placeholder = providerName ? `Message ${providerName}` : "Write a message";
  if (ended) {
    notice = stateReason ? `The session has ended: ${stateReason}` : "The session has ended.";
    placeholder = "The session has ended";
  } else if (state === "needs_input") {
    notice = stateReason || "The agent is waiting for input in its terminal.";
    placeholder = "Waiting for input in the terminal";
  } else if (state === "question") {
    notice = QUESTION_NOTICE;
    placeholder = "Waiting for an answer";
  }

  return {
    inputEnabled: !locked,
    sendEnabled: !ended && !blocked && hasText && !busy.has("send"),
    sendBusy: busy.has("send"),
    interruptVisible: state === "working",
    interruptEnabled: state === "working" && !busy.has("interrupt"),
    clearVisible: clearCommand !== "",
    clearEnabled: clearCommand !== "" && state === "idle" && !busy.has("clear"),
    placeholder,
    notice,
  };
}
