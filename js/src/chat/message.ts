// One DOM element per message. Builders are pure functions of the message and
// of the little UI state that must survive a re-render (what the user expanded).
import { decorateCodeBlocks, type CodeHost } from "./codeblocks";
import { h } from "../shared/dom";
import { renderDialog, type DialogContext } from "./dialog-form";
import { markdownBlock } from "./markdown";
import { splitContext } from "./mentions";
import {
  commandLine,
  formatInput,
  moreLabel,
  plainOutput,
  toolSummary,
  toolTitle,
  truncateText,
} from "./format";
import type { Attachment, Message, ToolCall } from "../types";

export interface RenderContext {
  /** Keys of what is open: long texts the user expanded ("<seq>:input", "<seq>:output")
   * and tool cards open ("<seq>:card"), so a view drawn again shows them as they were. */
  readonly expanded: Set<string>;
  readonly dialogs: DialogContext;
  /** What code blocks offer besides Copy (inserting a cell); absent: no code actions. */
  code?: CodeHost;
}

const STATUS_LABELS = { running: "running", ok: "done", error: "failed" } as const;

export function renderMessage(message: Message, ctx: RenderContext): HTMLElement {
  const el = renderBody(message, ctx);
  el.classList.add("lw-msg");
  el.dataset.seq = String(message.seq);
  el.dataset.kind = message.kind;
  el.dataset.role = message.role;
  const meta = metaText(message);
  if (meta) el.title = meta;
  if (ctx.code) decorateCodeBlocks(el, ctx.code);
  return el;
}

function renderBody(message: Message, ctx: RenderContext): HTMLElement {
  switch (message.kind) {
    case "tool":
      return message.tool ? renderTool(message, message.tool, ctx) : renderText(message);
    case "dialog":
      return message.dialog ? renderDialog(message.dialog, ctx.dialogs) : renderText(message);
    case "lifecycle":
      return renderLifecycle(message);
    default:
      if (message.thinking) return renderThinking(message);
      return message.command ? renderCommand(message) : renderText(message);
  }
}

function renderLifecycle(message: Message): HTMLElement {
  const note = h("span", { class: "lw-note" }, message.text);
  const attrs = { class: "lw-lifecycle", "data-level": message.level ?? "info" };
  if (message.detail.trim() === "") return h("div", attrs, note);
  // What the note summarises (a compaction's summary, a sub-agent's report) stays one
  // click away: it is long and rarely read.
  return h("details", attrs, h("summary", {}, note), markdownBlock(message.detail, false));
}

export const THINKING_LABEL = "Thinking";
export const HIDDEN_THINKING_LABEL = "Thinking (hidden by the agent)";

/** The model's reasoning: quiet and collapsed; redacted reasoning says so, never blank. */
function renderThinking(message: Message): HTMLElement {
  const hidden = message.redacted || message.text.trim() === "";
  const el = h(
    "details",
    { class: "lw-thinking", "data-redacted": hidden },
    h("summary", {}, hidden ? HIDDEN_THINKING_LABEL : THINKING_LABEL),
  );
  if (!hidden) el.append(markdownBlock(message.text, false));
  return el;
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} kB`;
  return `${bytes} B`;
}

/** Images from the transcript's own data; an omitted one is named, never fetched. */
function renderAttachments(attachments: readonly Attachment[]): HTMLElement | false {
  if (attachments.length === 0) return false;
  return h(
    "div",
    { class: "lw-attachments" },
    ...attachments.map((a) => {
      const kind = a.media_type.replace("image/", "");
      const label = a.name || `${kind} image`;
      if (a.data === "") {
        const why = a.omitted ? `: ${a.omitted}` : "";
        return h(
          "div",
          { class: "lw-attachment-omitted" },
          `${label} (${formatSize(a.size)})${why}`,
        );
      }
      return h("img", {
        class: "lw-attachment",
        src: `data:${a.media_type};base64,${a.data}`,
        alt: label,
        title: `${label}, ${formatSize(a.size)}`,
        loading: "lazy",
      });
    }),
  );
}

function renderText(message: Message): HTMLElement {
  const el = h("div", { class: `lw-text lw-${message.role}` });
  const images = renderAttachments(message.attachments);
  if (message.text.trim() === "" && !images) {
    el.classList.add("lw-blank");
    return el;
  }
  if (message.text.trim() !== "") {
    // A prompt that mentioned notebook variables: their descriptions fold away under it.
    const split = message.role === "user" ? splitContext(message.text) : null;
    const bubble = markdownBlock(split?.prompt ?? message.text, message.role === "user");
    bubble.classList.add("lw-bubble");
    if (split) {
      bubble.append(
        h(
          "details",
          { class: "lw-context" },
          h("summary", {}, "Notebook variables sent with it"),
          markdownBlock(split.context, false),
        ),
      );
    }
    el.append(bubble);
  }
  if (images) el.append(images);
  return el;
}

function renderCommand(message: Message): HTMLElement {
  return h(
    "div",
    { class: `lw-command lw-${message.role}` },
    h("code", { class: "lw-bubble" }, commandLine(message)),
  );
}

function renderTool(message: Message, tool: ToolCall, ctx: RenderContext): HTMLElement {
  const seq = message.seq;
  const summary = toolSummary(tool);
  const shell = tool.shell ?? "";
  // A shell call's command is its input: the rest (a description, a timeout) only when
  // there is more.
  const input = shell && Object.keys(tool.input).length <= 1 ? "" : formatInput(tool.input);
  const output = tool.output == null ? "" : plainOutput(tool.output);
  const progress = tool.progress == null ? "" : plainOutput(tool.progress);

  let outputBlock: HTMLElement;
  if (output !== "") outputBlock = longText(output, `${seq}:output`, ctx);
  else if (tool.status === "running" && progress !== "") {
    outputBlock = longText(progress, `${seq}:progress`, ctx, true);
    outputBlock.classList.add("lw-progress");
  } else if (tool.status === "running") {
    outputBlock = h("div", { class: "lw-pending" }, "Running…");
  } else outputBlock = h("div", { class: "lw-pending" }, "No output");
  // The log hides a sub-agent call's output where the sub-agent's own reply says the same.
  outputBlock.classList.add("lw-tool-output");

  const key = `${seq}:card`;
  const card = h(
    "details",
    { class: "lw-tool", "data-status": tool.status, open: ctx.expanded.has(key) },
    h(
      "summary",
      {},
      h("span", {
        class: "lw-tool-status",
        role: "img",
        "aria-label": STATUS_LABELS[tool.status],
        title: STATUS_LABELS[tool.status],
      }),
      h("span", { class: "lw-tool-name" }, toolTitle(tool)),
      summary && h("span", { class: "lw-tool-summary" }, summary),
      // The agent's own name for its shell tool, kept as a detail.
      shell && h("span", { class: "lw-tool-native" }, tool.name),
    ),
    h(
      "div",
      { class: "lw-tool-body" },
      shell && h("div", { class: "lw-label" }, "Command"),
      shell && longText(shell, `${seq}:command`, ctx),
      input && h("div", { class: "lw-label" }, "Input"),
      input && longText(input, `${seq}:input`, ctx),
      h("div", { class: "lw-label lw-tool-output" }, outputLabel(tool, progress !== "")),
      outputBlock,
      renderAttachments(message.attachments),
      // A sub-agent's own messages go here (the view fills it).
      tool.agent_id != null && subthread(),
    ),
  );
  card.addEventListener("toggle", () => {
    if (card.open) ctx.expanded.add(key);
    else ctx.expanded.delete(key);
  });
  return card;
}

function outputLabel(tool: ToolCall, streaming: boolean): string {
  if (tool.status === "error") return "Error";
  return tool.status === "running" && streaming ? "Output so far" : "Output";
}

/** The container of a sub-agent's messages inside its call's card. */
export function subthread(): HTMLElement {
  return h("div", { class: "lw-subthread", role: "group", "aria-label": "Sub-agent" });
}

/**
 * Plain text in a <pre>, cut short with a "show more" toggle when long; `tail` keeps
 * the end instead (a running command's latest lines).
 */
function longText(full: string, key: string, ctx: RenderContext, tail = false): HTMLElement {
  const pre = h("pre", { class: "lw-pre" });
  const wrap = h("div", { class: "lw-long" }, pre);
  if (tail) {
    pre.textContent = tailText(full);
    return wrap;
  }
  const cut = truncateText(full);
  if (!cut.truncated) {
    pre.textContent = full;
    return wrap;
  }
  const toggle = h("button", { type: "button", class: "lw-more" });
  const show = (expanded: boolean) => {
    pre.textContent = expanded ? full : cut.text;
    toggle.textContent = expanded ? "Show less" : moreLabel(cut);
    toggle.setAttribute("aria-expanded", String(expanded));
    wrap.classList.toggle("lw-cut", !expanded);
  };
  toggle.addEventListener("click", () => {
    const expanded = !ctx.expanded.has(key);
    if (expanded) ctx.expanded.add(key);
    else ctx.expanded.delete(key);
    show(expanded);
  });
  show(ctx.expanded.has(key));
  wrap.append(toggle);
  return wrap;
}

const TAIL_LINES = 12;

function tailText(text: string): string {
  const lines = text.split("\n");
  return lines.length <= TAIL_LINES ? text : lines.slice(-TAIL_LINES).join("\n");
}

function metaText(message: Message): string {
  const parts: string[] = [];
  if (message.timestamp) {
    const t = new Date(message.timestamp);
    parts.push(Number.isNaN(t.getTime()) ? message.timestamp : t.toLocaleString());
  }
  if (message.model) parts.push(message.model);
  const u = message.usage;
  if (u) {
    const read = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
    parts.push(`${read} tokens in, ${u.output_tokens} out`);
  }
  return parts.join(" · ");
}

export interface ToolGroupView {
  el: HTMLDetailsElement;
  label: HTMLElement;
  list: HTMLElement;
  labelText: string;
}

export function createToolGroup(): ToolGroupView {
  const label = h("summary", { class: "lw-tool-group-label" });
  const list = h("div", { class: "lw-tool-list" });
  const el = h("details", { class: "lw-tool-group", open: true }, label, list);
  return { el, label, list, labelText: "" };
}
