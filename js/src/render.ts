// One DOM element per message. Builders are pure functions of the message and
// of the little UI state that must survive a re-render (what the user expanded).
import {
  buildAnswers,
  DIALOG_KIND_LABELS,
  dialogMode,
  draftFits,
  emptyDraft,
  formSpec,
  outcomeText,
  questionError,
  typeText,
  validateDraft,
  type DialogDraft,
  type DialogMode,
  type QuestionDraft,
  type QuestionSpec,
} from "./dialog";
import { decorateCodeBlocks, type CodeHost } from "./codeblocks";
import { h } from "./dom";
import { renderMarkdown } from "./markdown";
import { splitContext } from "./mentions";
import {
  commandLine,
  formatInput,
  moreLabel,
  plainOutput,
  toolSummary,
  truncateText,
} from "./format";
import type { Answer, Attachment, Dialog, Message, ToolCall } from "./types";

/** What dialog cards need beyond their message; the view owns it. */
export interface DialogContext {
  /** The dialog the agent waits on now (the `pending_dialog` trait). */
  pending: Dialog | null;
  attachCommand: string;
  /** What the user chose so far, by tool_id: survives re-renders and failed sends. */
  readonly drafts: Map<string, DialogDraft>;
  /** tool_ids whose answer is on its way. */
  readonly sending: Set<string>;
  /** tool_ids whose answer the kernel took: the form stays shut until the dialog moves on. */
  readonly sent: Set<string>;
  /** Why the last answer failed, by tool_id. */
  readonly errors: Map<string, string>;
  answer(toolId: string, answers: Answer[]): void;
}

export interface RenderContext {
  /** Keys ("<seq>:input", "<seq>:output") of long texts the user expanded. */
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

function markdownBlock(text: string, breaks: boolean): HTMLElement {
  const el = h("div", { class: "lw-markdown" });
  el.innerHTML = renderMarkdown(text, { breaks });
  return el;
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
  const input = formatInput(tool.input);
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
      h("div", { class: "lw-label" }, outputLabel(tool, progress !== "")),
      outputBlock,
      renderAttachments(message.attachments),
      // A sub-agent's own messages go here (the view fills it).
      tool.agent_id != null && subthread(),
    ),
  );
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

// -- dialogs ----------------------------------------------------------------
// A dialog message is a wrapper around its card, so the card can carry its own
// data-kind (the dialog's) beside the message's.

function renderDialog(dialog: Dialog, ui: DialogContext): HTMLElement {
  const mode = dialogMode(dialog, ui.pending);
  // The form answers the pending dialog, so it is built from that one.
  const card =
    mode === "form" && ui.pending
      ? renderDialogForm(ui.pending, ui)
      : renderDialogCard(dialog, mode, ui);
  return h("div", { class: "lw-dialog-msg" }, card);
}

function dialogTitle(dialog: Dialog): HTMLElement {
  return h(
    "div",
    { class: "lw-dialog-title" },
    h("span", { class: "lw-dialog-kind" }, DIALOG_KIND_LABELS[dialog.kind]),
    dialog.tool_name && h("span", { class: "lw-dialog-tool" }, dialog.tool_name),
  );
}

function questionHeader(header: string): HTMLElement | false {
  return header !== "" && h("span", { class: "lw-question-header" }, header);
}

/** Read-only: a dialog that ended, or one this widget cannot (or not yet) answer. */
function renderDialogCard(dialog: Dialog, mode: DialogMode, ui: DialogContext): HTMLElement {
  const el = h(
    "div",
    { class: "lw-dialog", "data-kind": dialog.kind, "data-status": dialog.status },
    dialogTitle(dialog),
  );
  if (mode === "ended") {
    // Compact: what was asked and how it ended; a plan stays one click away.
    if (dialog.body.trim()) {
      el.append(
        h(
          "details",
          { class: "lw-dialog-body" },
          h("summary", {}, dialog.kind === "plan" ? "Show the plan" : "Show details"),
          markdownBlock(dialog.body, false),
        ),
      );
    }
    if (dialog.questions.length) {
      el.append(
        h(
          "ul",
          { class: "lw-dialog-questions" },
          ...dialog.questions.map((q) =>
            h("li", {}, questionHeader(q.header), h("span", { class: "lw-question-text" }, q.text)),
          ),
        ),
      );
    }
    el.append(h("div", { class: "lw-dialog-outcome" }, outcomeText(dialog)));
    return el;
  }
  // Pending: everything needed to answer it elsewhere.
  if (dialog.body.trim()) el.append(markdownBlock(dialog.body, false));
  for (const q of dialog.questions) {
    const hint = q.multi_select ? "Choose any" : q.options.length ? "Choose one" : "";
    el.append(
      h(
        "div",
        { class: "lw-question", "data-header": q.header },
        questionHeader(q.header),
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
  if (mode === "terminal") {
    el.append(
      h(
        "div",
        { class: "lw-dialog-terminal" },
        ui.attachCommand ? "Answer it in the terminal: " : "Answer it in the agent's terminal.",
        ui.attachCommand && h("code", { class: "lw-dialog-attach" }, ui.attachCommand),
      ),
    );
  }
  return el;
}

let formCounter = 0;

/** The pending dialog as a form: every question, one Submit. */
function renderDialogForm(dialog: Dialog, ui: DialogContext): HTMLElement {
  const toolId = dialog.tool_id ?? "";
  const spec = formSpec(dialog);
  const saved = ui.drafts.get(toolId);
  const draft = draftFits(spec, saved) ? saved! : emptyDraft(spec);
  formCounter += 1;
  const formId = `lw-dialog-${formCounter}`;

  const questions = spec.map((s, i) => renderQuestion(s, draft[i]!, formId, i));
  const submit = h(
    "button",
    { type: "submit", class: "lw-dialog-submit", "data-focus-key": "submit" },
    "Submit",
  );
  const form = h(
    "form",
    {
      class: "lw-dialog-form",
      novalidate: true,
      "aria-label": DIALOG_KIND_LABELS[dialog.kind],
      "data-tool-id": toolId,
    },
    dialog.body.trim() !== "" && markdownBlock(dialog.body, false),
    ...questions.map((q) => q.el),
    h("div", { class: "lw-dialog-error", role: "alert", hidden: true }),
    h("div", { class: "lw-dialog-actions" }, submit),
  );

  const readDraft = (): DialogDraft => questions.map((q) => q.read());
  const showErrors = (errors: readonly (string | null)[]) =>
    questions.forEach((q, i) => q.setError(errors[i] ?? null));

  form.addEventListener("input", (event) => {
    const i = questions.findIndex((q) => q.el.contains(event.target as Node));
    const q = questions[i];
    if (!q) return;
    if (event.target === q.text) q.write(typeText(q.spec, q.read(), q.text.value));
    const next = readDraft();
    ui.drafts.set(toolId, next);
    // Errors go away as soon as they are fixed, and only then.
    if (q.hasError()) q.setError(questionError(q.spec, next[i]!));
  });
  // "change" covers what "input" does not report everywhere (radios unchecked by a sibling).
  form.addEventListener("change", () => ui.drafts.set(toolId, readDraft()));
  form.addEventListener("keydown", (event) => {
    const onText = questions.some((q) => q.text === event.target);
    if (!onText || event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    form.requestSubmit();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (ui.sending.has(toolId) || ui.sent.has(toolId)) return;
    const current = readDraft();
    ui.drafts.set(toolId, current);
    const errors = validateDraft(spec, current);
    showErrors(errors);
    const first = errors.findIndex((e) => e !== null);
    if (first !== -1) {
      questions[first]!.focus();
      return;
    }
    ui.answer(toolId, buildAnswers(spec, current));
  });

  const el = h(
    "div",
    {
      class: "lw-dialog lw-dialog-active",
      "data-kind": dialog.kind,
      "data-status": dialog.status,
    },
    dialogTitle(dialog),
    form,
  );
  syncDialogForm(form, ui);
  return el;
}

interface QuestionView {
  spec: QuestionSpec;
  el: HTMLFieldSetElement;
  /** The free-text field, or a detached input when there is none. */
  text: HTMLInputElement;
  read(): QuestionDraft;
  write(draft: QuestionDraft): void;
  setError(error: string | null): void;
  hasError(): boolean;
  focus(): void;
}

function renderQuestion(
  spec: QuestionSpec,
  draft: QuestionDraft,
  formId: string,
  index: number,
): QuestionView {
  const q = spec.question;
  // ids are unique in the page; focus keys name the same control across re-renders.
  const id = `${formId}-q${index}`;
  const key = `q${index}`;
  const name = `${id}-choice`;
  const optionInputs = q.options.map((o, i) =>
    h("input", {
      type: spec.inputType,
      name,
      value: o.label,
      "data-focus-key": `${key}-o${i}`,
    }),
  );
  const options = q.options.map((o, i) =>
    h(
      "label",
      { class: "lw-option" },
      optionInputs[i],
      h(
        "span",
        { class: "lw-option-text" },
        h("span", { class: "lw-option-label" }, o.label),
        o.description && h("span", { class: "lw-option-description" }, o.description),
      ),
    ),
  );
  const otherInput = spec.other
    ? h("input", {
        type: spec.inputType,
        name,
        value: "",
        class: "lw-other-input",
        "data-focus-key": `${key}-other`,
      })
    : null;
  const text = h("input", {
    type: "text",
    class: "lw-freetext",
    autocomplete: "off",
    "aria-label": spec.other ? "Other answer" : "Your answer",
    placeholder: spec.other ? "Type another answer" : "Type your answer",
    "data-focus-key": `${key}-text`,
  });
  const error = h("div", { class: "lw-question-error", id: `${id}-error`, hidden: true });
  const el = h(
    "fieldset",
    { class: "lw-question", "data-header": q.header },
    h(
      "legend",
      {},
      questionHeader(q.header),
      h("span", { class: "lw-question-text" }, q.text),
      h(
        "span",
        { class: "lw-sr-only" },
        spec.inputType === "checkbox" ? " (choose any)" : q.options.length ? " (choose one)" : "",
      ),
    ),
    options.length > 0 && h("div", { class: "lw-options" }, ...options),
    spec.freeText &&
      h(
        "div",
        { class: "lw-other" },
        otherInput && h("label", { class: "lw-other-choice" }, otherInput, "Other"),
        text,
      ),
    error,
  );

  const view: QuestionView = {
    spec,
    el,
    text,
    read: () => ({
      selected: optionInputs.filter((i) => i.checked).map((i) => i.value),
      other: otherInput?.checked ?? false,
      text: spec.freeText ? text.value : "",
    }),
    write: (d) => {
      optionInputs.forEach((input) => {
        input.checked = d.selected.includes(input.value);
      });
      if (otherInput) otherInput.checked = d.other;
      if (text.value !== d.text) text.value = d.text;
    },
    setError: (message) => {
      error.textContent = message ?? "";
      error.hidden = message === null;
      el.toggleAttribute("data-invalid", message !== null);
      if (message === null) el.removeAttribute("aria-describedby");
      else el.setAttribute("aria-describedby", error.id);
    },
    hasError: () => !error.hidden,
    focus: () => {
      const target = optionInputs[0] ?? (spec.freeText ? text : undefined);
      target?.focus();
    },
  };
  view.write(draft);
  return view;
}

/** Bring a dialog form in line with its answer's progress: in flight, taken, or failed. */
export function syncDialogForm(form: HTMLFormElement, ui: DialogContext): void {
  const toolId = form.dataset.toolId ?? "";
  const sending = ui.sending.has(toolId);
  const shut = sending || ui.sent.has(toolId);
  for (const fieldset of form.querySelectorAll<HTMLFieldSetElement>("fieldset.lw-question")) {
    fieldset.disabled = shut;
  }
  const submit = form.querySelector<HTMLButtonElement>(".lw-dialog-submit");
  if (submit) {
    submit.disabled = shut;
    submit.textContent = sending ? "Sending…" : ui.sent.has(toolId) ? "Sent" : "Submit";
    submit.classList.toggle("lw-busy", sending);
    submit.setAttribute("aria-busy", String(sending));
  }
  form.setAttribute("aria-busy", String(sending));
  const error = form.querySelector<HTMLElement>(".lw-dialog-error");
  if (error) {
    const message = ui.errors.get(toolId) ?? "";
    if (error.textContent !== message) error.textContent = message;
    error.hidden = message === "";
  }
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
