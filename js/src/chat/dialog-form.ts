// A dialog message's card: read-only once it ended (or when this widget cannot answer
// it), else the pending dialog as a form. The form's logic without a DOM is dialog.ts;
// the view owns the DialogContext that survives re-renders.
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
import { h } from "../shared/dom";
import { markdownBlock } from "./markdown";
import type { Answer, Dialog } from "../types";

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

/** A context with no pending dialog and nothing drafted; `answer` sends an answer. */
export function dialogContext(answer: DialogContext["answer"]): DialogContext {
  return {
    pending: null,
    attachCommand: "",
    drafts: new Map(),
    sending: new Set(),
    sent: new Set(),
    errors: new Map(),
    answer,
  };
}

/** A dialog message: a wrapper around its card, so the card can carry its own data-kind. */
export function renderDialog(dialog: Dialog, ui: DialogContext): HTMLElement {
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
