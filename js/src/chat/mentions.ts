// `@name` in the composer: the kernel's variables offered as the user types. The list
// is asked from the kernel when an `@` starts a mention (never before, never kept past
// it: variables change between cells), and only names and kinds travel. What a
// mention becomes in the prompt is the kernel's business (lab_widget/_context.py).
import { h } from "../shared/dom";
import { isObj } from "../shared/guards";
import { CompletionPopup } from "./popup";
import type { Variable } from "../types";

/**
 * The line that opens the variables' descriptions the kernel adds below a prompt
 * (lab_widget/_context.py's CONTEXT_HEADER; a test keeps the two equal).
 */
export const CONTEXT_HEADER =
  "Notebook variables mentioned above, as the notebook's Python kernel holds them:";

/** A sent prompt and the descriptions of the variables it mentioned, or null if it has none. */
export function splitContext(text: string): { prompt: string; context: string } | null {
  const at = text.indexOf(`\n\n${CONTEXT_HEADER}\n\n`);
  if (at === -1) return null;
  return { prompt: text.slice(0, at), context: text.slice(at + CONTEXT_HEADER.length + 4) };
}

/** A mention being typed: where its `@` is, the name typed up to the caret, where the name ends. */
export interface MentionQuery {
  start: number;
  query: string;
  end: number;
}

const NAME_CHAR = /[A-Za-z0-9_]/;

/**
 * The mention the caret is in ("@df" with the caret after "d" gives "d"), or null.
 * An `@` glued to a word (an e-mail address), a path or a backtick starts none.
 */
export function mentionQuery(text: string, caret: number): MentionQuery | null {
  let start = caret;
  while (start > 0 && NAME_CHAR.test(text[start - 1]!)) start--;
  if (start === 0 || text[start - 1] !== "@") return null;
  const at = start - 1;
  if (at > 0 && /[\w@.`/\\]/.test(text[at - 1]!)) return null;
  const query = text.slice(start, caret);
  if (/^[0-9]/.test(query)) return null;
  let end = caret;
  while (end < text.length && NAME_CHAR.test(text[end]!)) end++;
  return { start: at, query, end };
}

/** The kernel's answer as variables: well-formed entries only, one per name. */
export function normalizeVariables(raw: unknown): Variable[] {
  const seen = new Set<string>();
  const out: Variable[] = [];
  for (const v of Array.isArray(raw) ? raw : []) {
    if (!isObj(v) || typeof v.name !== "string" || !/^[A-Za-z_]\w*$/.test(v.name)) continue;
    if (seen.has(v.name)) continue;
    seen.add(v.name);
    out.push({
      name: v.name,
      type: typeof v.type === "string" ? v.type : "",
      size: typeof v.size === "string" ? v.size : "",
      secret: v.secret === true,
    });
  }
  return out;
}

/** Variables matching `query`, best first: name prefix, then substring; ties by name. */
export function rankVariables(variables: readonly Variable[], query: string): Variable[] {
  const q = query.toLowerCase();
  const tier = (v: Variable) => {
    const name = v.name.toLowerCase();
    if (name.startsWith(q)) return 0;
    return name.includes(q) ? 1 : -1;
  };
  return variables
    .map((v) => ({ v, t: tier(v) }))
    .filter((r) => r.t >= 0)
    .sort((a, b) => a.t - b.t || (a.v.name < b.v.name ? -1 : a.v.name > b.v.name ? 1 : 0))
    .map((r) => r.v);
}

/** `text` with the mention at `query` completed to `@name` and a space; the caret after it. */
export function completeMention(
  text: string,
  query: MentionQuery,
  name: string,
): { text: string; caret: number } {
  const rest = text.slice(query.end).replace(/^ /, "");
  const head = `${text.slice(0, query.start)}@${name} `;
  return { text: head + rest, caret: head.length };
}

/** Asks the kernel for its variables; rejects without a kernel. */
export type VariableSource = () => Promise<unknown>;

const MAX_SHOWN = 50;

/**
 * The `@` popup above the composer (popup.ts), like the slash-command one: the focus
 * never leaves the text.
 */
export class MentionCompleter {
  readonly el: HTMLElement;

  readonly #input: HTMLTextAreaElement;
  readonly #popup: CompletionPopup<Variable>;
  #source: VariableSource | null = null;
  /** The variables of the mention being typed; null until asked, or once it is over. */
  #variables: Variable[] | null = null;
  #asking: Promise<void> | null = null;
  #failed = "";
  #dismissedAt = -1;

  constructor(input: HTMLTextAreaElement) {
    this.#input = input;
    this.#popup = new CompletionPopup<Variable>({
      input,
      idPrefix: "lw-mentions",
      class: "lw-complete lw-mentions",
      label: "Notebook variables",
      name: (v) => v.name,
      render: (v) => {
        const kind = [v.type, v.size].filter(Boolean).join(" · ");
        return [
          h(
            "span",
            { class: "lw-complete-head" },
            h("span", { class: "lw-complete-name" }, `@${v.name}`),
            kind && h("span", { class: "lw-complete-args" }, kind),
            v.secret &&
              h(
                "span",
                { class: "lw-complete-source", title: "Named like a secret: never expanded" },
                "not expanded",
              ),
          ),
        ];
      },
      pick: (index) => this.#complete(index),
      caretMoved: () => this.update(),
    });
    this.el = this.#popup.el;
  }

  get isOpen(): boolean {
    return this.#popup.isOpen;
  }

  /** Where the variables come from; null: no kernel, no popup. */
  setSource(source: VariableSource | null): void {
    this.#source = source;
    this.#variables = null;
    this.update();
  }

  get enabled(): boolean {
    return this.#source !== null;
  }

  /** Follow the textarea's text and caret: call after every change to either. */
  update(): void {
    const input = this.#input;
    const query =
      this.#source && !input.disabled
        ? mentionQuery(input.value, input.selectionEnd ?? input.value.length)
        : null;
    if (query === null) {
      // The mention is over: the next one asks again (variables change between cells).
      this.#variables = null;
      this.#failed = "";
      this.#dismissedAt = -1;
      this.#popup.hide();
      return;
    }
    if (query.start === this.#dismissedAt) return;
    if (this.#failed) {
      this.#popup.note(this.#failed); // asked once for this mention: typing on does not ask again
      return;
    }
    if (this.#variables === null) {
      this.#ask();
      if (this.#variables === null) {
        this.#popup.note("Asking the kernel for its variables…");
        return;
      }
    }
    const items = rankVariables(this.#variables, query.query).slice(0, MAX_SHOWN);
    if (items.length === 0) {
      this.#popup.hide();
      return;
    }
    this.#popup.show(items);
  }

  /** Handle a keydown in the textarea; true when the popup used it. */
  handleKey(event: KeyboardEvent): boolean {
    if (!this.isOpen || event.isComposing || this.#popup.items.length === 0) return false;
    if (this.#popup.navigate(event)) return true;
    const modified = event.altKey || event.ctrlKey || event.metaKey;
    switch (event.key) {
      case "Tab":
      case "Enter":
        // A half-typed name is never what should be sent: Enter completes it first.
        if (modified || event.shiftKey) return false;
        event.preventDefault();
        this.#complete(this.#popup.active);
        return true;
      case "Escape": {
        event.preventDefault();
        event.stopPropagation();
        const query = mentionQuery(this.#input.value, this.#input.selectionEnd ?? 0);
        this.#dismissedAt = query?.start ?? -1;
        this.#popup.hide();
        return true;
      }
      default:
        return false;
    }
  }

  #ask(): void {
    if (this.#asking || !this.#source) return;
    const source = this.#source;
    this.#asking = source()
      .then(
        (raw) => {
          this.#variables = normalizeVariables(raw);
        },
        (error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          this.#failed = `No variables: ${why}`;
        },
      )
      .finally(() => {
        this.#asking = null;
        if (this.#source === source && document.activeElement === this.#input) this.update();
      });
  }

  #complete(index: number): void {
    const v = this.#popup.items[index];
    const input = this.#input;
    const query = mentionQuery(input.value, input.selectionEnd ?? input.value.length);
    if (!v || !query) return;
    const done = completeMention(input.value, query, v.name);
    input.value = done.text;
    input.focus();
    input.setSelectionRange(done.caret, done.caret);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
}
