// Mirror of lab_widget/schema.py: the JSON of its pydantic models, as the widgets send it.
// Optional fields may be absent (the kernel drops defaults and nulls); normalisers fill
// them in (store.ts).
//
// Held to the Python side by tests/unit/test_wire_contract.py, which reads this file with
// plain regexes. Keep its layout regular so they see everything:
// - a union of string literals is a named `export type X = "a" | "b";`;
// - an interface has one member a line, `name: type;` or `name?: type;`, with no inline
//   object types (name them) and no generics but `Record<string, unknown>` and `X[]`;
// - comments are `//` lines or `/** … */` blocks.

export type State = "idle" | "working" | "needs_input" | "question" | "ended";
export type MessageKind = "text" | "tool" | "dialog" | "lifecycle";
export type Role = "user" | "assistant" | "system";
export type ToolStatus = "running" | "ok" | "error";
export type DialogKind = "question" | "plan" | "approval";
export type DialogStatus = "pending" | "answered" | "rejected" | "dismissed";
export type LifecycleLevel = "info" | "warning" | "error";
export type CommandSource = "builtin" | "project" | "user";
export type CommandRole = "clear";
export type RateLimitKind = "usage" | "requests" | "tokens" | "credits" | "spend";
export type CostUnit = "USD";

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
  /** The command line, when the call runs a shell command (every agent's shell tool). */
  shell?: string | null;
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

/** The answer to one question: chosen option labels and/or typed text. */
export interface Answer {
  selected: string[];
  text?: string | null;
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
  /** After it ended: the answers the agent recorded, one per question, where known. */
  answers?: Answer[] | null;
  /** After it ended: what was answered, in words ("Database → SQLite; Features → Auth"). */
  outcome: string;
}

/** Answers to a whole dialog, for the dialog's `tool_id`. */
export interface DialogAnswer {
  tool_id?: string | null;
  answers: Answer[];
}

/** A slash command the run offers (the `commands` trait). */
export interface CommandSpec {
  /** With its slash: "/compact". */
  name: string;
  description: string;
  arg_hint: string;
  source: CommandSource;
  /** "clear" marks the command that starts a new conversation. */
  role?: CommandRole | null;
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

/** One rate limit or quota as the vendor reported it (decimals as strings). */
export interface RateLimit {
  limit_id: string;
  name?: string | null;
  window?: string | null;
  window_minutes?: number | null;
  kind: RateLimitKind;
  used_percent?: number | null;
  used?: string | null;
  limit?: string | null;
  remaining?: string | null;
  unit?: string | null;
  unlimited?: boolean | null;
  resets_at?: string | null;
  status?: string | null;
  plan_type?: string | null;
  observed_at?: string | null;
  source: string;
}
