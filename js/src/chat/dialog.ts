// Answering a dialog, without a DOM: how a dialog message is shown, which
// controls each question gets, what a half-filled form holds, whether it is
// complete, and the answers it sends.
import type { Answer, Dialog, DialogKind, DialogStatus, Question } from "../types";

export const DIALOG_KIND_LABELS: Record<DialogKind, string> = {
  question: "Question",
  plan: "Plan",
  approval: "Tool approval",
};

export const DIALOG_STATUS_LABELS: Record<DialogStatus, string> = {
  pending: "pending",
  answered: "answered",
  rejected: "rejected",
  dismissed: "dismissed",
};

/**
 * How a dialog message shows:
 * - `form`: it is the dialog the agent waits on and the widget can answer it;
 * - `terminal`: it waits on an answer only the agent's terminal can give;
 * - `waiting`: still pending, but not (or not yet) the dialog the agent waits on;
 * - `ended`: answered, rejected or dismissed.
 */
export type DialogMode = "form" | "terminal" | "waiting" | "ended";

/** Whether `pending` (the `pending_dialog` trait) is the dialog of this message. */
export function isPendingDialog(dialog: Dialog, pending: Dialog | null): pending is Dialog {
  // Without a tool_id an answer could not say what it answers.
  return pending !== null && pending.tool_id != null && pending.tool_id === dialog.tool_id;
}

export function dialogMode(dialog: Dialog, pending: Dialog | null): DialogMode {
  if (dialog.status !== "pending") return "ended";
  if (isPendingDialog(dialog, pending)) return pending.answerable ? "form" : "terminal";
  return dialog.answerable ? "waiting" : "terminal";
}

/** The text of an ended dialog's outcome line: "answered: Database → SQLite". */
export function outcomeText(dialog: Dialog): string {
  const status = DIALOG_STATUS_LABELS[dialog.status];
  const outcome = dialog.outcome.trim();
  return outcome ? `${status}: ${outcome}` : status;
}

// ---------------------------------------------------------------------------
// The form

export interface QuestionSpec {
  question: Question;
  /** Options are radio buttons (single select) or checkboxes (multi-select). */
  inputType: "radio" | "checkbox";
  /** An "Other" choice after the options, chosen by typing into the text field. */
  other: boolean;
  /** A text field: beside "Other", or the only control when there are no options. */
  freeText: boolean;
}

export function questionSpec(question: Question): QuestionSpec {
  const hasOptions = question.options.length > 0;
  return {
    question,
    inputType: question.multi_select ? "checkbox" : "radio",
    other: hasOptions && question.free_text,
    // A question without options can only be answered in words.
    freeText: question.free_text || !hasOptions,
  };
}

export function formSpec(dialog: Dialog): QuestionSpec[] {
  return dialog.questions.map(questionSpec);
}

/** What the user chose so far for one question. */
export interface QuestionDraft {
  /** Labels of the chosen options. */
  selected: string[];
  /** Whether "Other" is chosen. */
  other: boolean;
  /** What is in the text field, chosen or not. */
  text: string;
}

export type DialogDraft = QuestionDraft[];

export function emptyDraft(spec: readonly QuestionSpec[]): DialogDraft {
  return spec.map(() => ({ selected: [], other: false, text: "" }));
}

/** Whether a saved draft still fits the form (a changed dialog starts over). */
export function draftFits(spec: readonly QuestionSpec[], draft: DialogDraft | undefined): boolean {
  return draft !== undefined && draft.length === spec.length;
}

/**
 * Typing into the text field chooses "Other": in a single-select question
 * instead of the chosen option, in a multi-select one besides the options.
 */
export function typeText(spec: QuestionSpec, draft: QuestionDraft, text: string): QuestionDraft {
  if (!spec.other || text.trim() === "") return { ...draft, text };
  return {
    selected: spec.inputType === "radio" ? [] : draft.selected,
    other: true,
    text,
  };
}

/** Whether the typed text is part of the answer. */
function textCounts(spec: QuestionSpec, draft: QuestionDraft): boolean {
  return spec.freeText && (!spec.other || draft.other);
}

/** Why the question cannot be sent as it is, or null when it can. */
export function questionError(spec: QuestionSpec, draft: QuestionDraft): string | null {
  const typed = textCounts(spec, draft) && draft.text.trim() !== "";
  if (draft.selected.length > 0 || typed) return null;
  if (spec.other && draft.other) return "Type your answer next to “Other”, or choose an option.";
  if (spec.question.options.length === 0) return "Type an answer.";
  if (spec.other) return "Choose an option or type an answer.";
  return spec.inputType === "checkbox" ? "Choose at least one option." : "Choose an option.";
}

/** One entry per question: its error, or null. */
export function validateDraft(
  spec: readonly QuestionSpec[],
  draft: DialogDraft,
): (string | null)[] {
  return spec.map((s, i) => questionError(s, draft[i] ?? { selected: [], other: false, text: "" }));
}

/** The answers to send, one per question in order; `text` only when something was typed. */
export function buildAnswers(spec: readonly QuestionSpec[], draft: DialogDraft): Answer[] {
  return spec.map((s, i) => {
    const d = draft[i] ?? { selected: [], other: false, text: "" };
    const text = textCounts(s, d) ? d.text.trim() : "";
    // "Other" in a single-select question stands instead of an option.
    const single = s.inputType === "radio";
    const selected = single && text !== "" ? [] : single ? d.selected.slice(0, 1) : [...d.selected];
    return text === "" ? { selected } : { selected, text };
  });
}
