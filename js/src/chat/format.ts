// What the view shows, derived from messages and run state without a DOM: render
// groups and threads, truncation, tool and command summaries, state labels and what
// the composer allows.
import type { ActionKind, Message, State, ToolCall, ToolStatus } from "../types";

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

/** What a shell call is called on screen, whatever the agent named its tool. */
export const SHELL_TITLE = "Shell";

/** The card's title: one name for every agent's shell tool, the agent's own otherwise. */
export function toolTitle(tool: ToolCall): string {
  return tool.shell ? SHELL_TITLE : tool.name;
}

export function toolSummary(tool: ToolCall): string {
  if (tool.shell) return oneLine(`$ ${tool.shell}`);
  const input = tool.input;
  const field =
    SUMMARY_FIELDS.find((k) => typeof input[k] === "string" && input[k] !== "") ??
    Object.keys(input).find((k) => typeof input[k] === "string" && input[k] !== "");
  if (field === undefined) return "";
  return oneLine(input[field] as string);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
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
