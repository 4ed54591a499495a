// One DOM element per message. Builders are pure functions of the message and
// of the little UI state that must survive a re-render (what the user expanded).
import { h } from "./dom";
import { renderMarkdown } from "./markdown";
import {
  commandLine,
  formatInput,
  moreLabel,
  plainOutput,
  toolSummary,
  truncateText,
} from "./store";
import type { Dialog, Message, ToolCall } from "./types";

export interface RenderContext {
  /** Keys ("<seq>:input", "<seq>:output") of long texts the user expanded. */
  readonly expanded: Set<string>;
}

const STATUS_LABELS = { running: "running", ok: "done", error: "failed" } as const;
const DIALOG_TITLES = { question: "Question", plan: "Plan", approval: "Approval" } as const;

export function renderMessage(message: Message, ctx: RenderContext): HTMLElement {
  const el = renderBody(message, ctx);
  el.classList.add("lw-msg");
  el.dataset.seq = String(message.seq);
  el.dataset.kind = message.kind;
  el.dataset.role = message.role;
  const meta = metaText(message);
  if (meta) el.title = meta;
  return el;
}

function renderBody(message: Message, ctx: RenderContext): HTMLElement {
  switch (message.kind) {
    case "tool":
      return message.tool ? renderTool(message.seq, message.tool, ctx) : renderText(message);
    case "dialog":
      return message.dialog ? renderDialog(message.dialog) : renderText(message);
    case "lifecycle":
      return h(
        "div",
        { class: "lw-lifecycle", "data-level": message.level ?? "info" },
        h("span", { class: "lw-note" }, message.text),
      );
    default:
      return message.command ? renderCommand(message) : renderText(message);
  }
}

function markdownBlock(text: string, breaks: boolean): HTMLElement {
  const el = h("div", { class: "lw-markdown" });
  el.innerHTML = renderMarkdown(text, { breaks });
  return el;
}

function renderText(message: Message): HTMLElement {
  const el = h("div", { class: `lw-text lw-${message.role}` });
  if (message.text.trim() === "") {
    el.classList.add("lw-blank");
    return el;
  }
  const bubble = markdownBlock(message.text, message.role === "user");
  bubble.classList.add("lw-bubble");
  el.append(bubble);
  return el;
}

function renderCommand(message: Message): HTMLElement {
  return h(
    "div",
    { class: `lw-command lw-${message.role}` },
    h("code", { class: "lw-bubble" }, commandLine(message)),
  );
}

function renderTool(seq: number, tool: ToolCall, ctx: RenderContext): HTMLElement {
  const summary = toolSummary(tool);
  const input = formatInput(tool.input);
  const output = tool.output == null ? "" : plainOutput(tool.output);

  let outputBlock: HTMLElement;
  if (output !== "") outputBlock = longText(output, `${seq}:output`, ctx);
  else if (tool.status === "running") outputBlock = h("div", { class: "lw-pending" }, "Running…");
  else outputBlock = h("div", { class: "lw-pending" }, "No output");

  return h(
    "details",
    { class: "lw-tool", "data-status": tool.status },
    h(
      "summary",
      {},
      h("span", {
        class: "lw-tool-status",
        role: "img",
        "aria-label": STATUS_LABELS[tool.status],
        title: STATUS_LABELS[tool.status],
      }),
      h("span", { class: "lw-tool-name" }, tool.name),
      summary && h("span", { class: "lw-tool-summary" }, summary),
    ),
    h(
      "div",
      { class: "lw-tool-body" },
      input && h("div", { class: "lw-label" }, "Input"),
      input && longText(input, `${seq}:input`, ctx),
      h("div", { class: "lw-label" }, tool.status === "error" ? "Error" : "Output"),
      outputBlock,
    ),
  );
}

/** Plain text in a <pre>, cut short with a "show more" toggle when long. */
function longText(full: string, key: string, ctx: RenderContext): HTMLElement {
  const pre = h("pre", { class: "lw-pre" });
  const wrap = h("div", { class: "lw-long" }, pre);
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

function renderDialog(dialog: Dialog): HTMLElement {
  const el = h(
    "div",
    { class: "lw-dialog", "data-dialog-kind": dialog.kind },
    h("div", { class: "lw-dialog-title" }, DIALOG_TITLES[dialog.kind]),
  );
  if (dialog.body.trim()) el.append(markdownBlock(dialog.body, false));
  for (const q of dialog.questions) {
    const hint = q.multi_select ? "Choose any" : q.options.length ? "Choose one" : "";
    el.append(
      h(
        "div",
        { class: "lw-question" },
        q.header && h("div", { class: "lw-question-header" }, q.header),
        h("div", { class: "lw-question-text" }, q.text),
        q.options.length > 0 &&
          h(
            "ul",
            { class: "lw-options" },
            ...q.options.map((o) =>
              h(
                "li",
                {},
                h("span", { class: "lw-option-label" }, o.label),
                o.description && h("span", { class: "lw-option-description" }, o.description),
              ),
            ),
          ),
        hint && h("div", { class: "lw-hint" }, q.free_text ? `${hint}, or type an answer` : hint),
      ),
    );
  }
  el.append(h("div", { class: "lw-hint" }, "Answer in the agent's terminal."));
  return el;
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
