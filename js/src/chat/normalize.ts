// The wire format as typed values. The kernel (or a recording) may omit defaults: fill
// them in once here instead of guarding every read in the view. A message of a kind
// this front end does not know becomes a warning that says so (unsupported.ts).
import { isObj, list, num, oneOf, optStr, str } from "../shared/guards";
import type {
  Attachment,
  Dialog,
  DialogKind,
  DialogStatus,
  LifecycleLevel,
  Message,
  MessageKind,
  Question,
  Role,
  Snapshot,
  ToolCall,
  ToolStatus,
  Usage,
} from "../types";
import { unsupportedMessage } from "../unsupported";

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
    shell: optStr(v.shell),
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
  if (!KINDS.includes(v.kind as MessageKind)) return unsupportedMessage(v.seq, v.kind);
  return {
    seq: v.seq,
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
export function normalizeMessages(v: unknown): Message[] {
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
