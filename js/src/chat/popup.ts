// The listbox above the composer that a completer (slash commands, `@` mentions) shows.
// It is driven by the textarea's keys (aria-activedescendant), so focus never leaves
// the text the user is typing; the completer decides what it lists and what picking
// an item does.
import { h, type Child } from "../shared/dom";

export interface CompletionPopupOptions<T> {
  /** The textarea the popup completes. */
  input: HTMLTextAreaElement;
  /** Prefix of the popup's id (numbered per prefix) and of its items' ids. */
  idPrefix: string;
  class: string;
  label: string;
  /** The item's name: its `data-name`, and what keeps the highlight across updates. */
  name(item: T): string;
  /** What the item shows inside its option element. */
  render(item: T): Child[];
  /** The user clicked item `index`. */
  pick(index: number): void;
  /** The pointer moving over an item highlights it. */
  hover?: boolean;
  /** The caret may have moved without any input (a click, an arrow key). */
  caretMoved(): void;
}

const counters = new Map<string, number>();

export class CompletionPopup<T> {
  /** Place it where `position: absolute` puts it above the input. */
  readonly el: HTMLElement;
  readonly id: string;

  readonly #options: CompletionPopupOptions<T>;
  #items: readonly T[] = [];
  #itemEls: HTMLElement[] = [];
  #active = 0;

  constructor(options: CompletionPopupOptions<T>) {
    const n = (counters.get(options.idPrefix) ?? 0) + 1;
    counters.set(options.idPrefix, n);
    this.id = `${options.idPrefix}-${n}`;
    this.#options = options;
    this.el = h("div", {
      class: options.class,
      id: this.id,
      role: "listbox",
      "aria-label": options.label,
      hidden: true,
    });

    // Keep focus (and the caret) in the textarea when an item is clicked.
    this.el.addEventListener("mousedown", (event) => event.preventDefault());
    this.el.addEventListener("click", (event) => {
      const index = this.#indexOf(event.target);
      if (index !== -1) options.pick(index);
    });
    if (options.hover) {
      this.el.addEventListener("mousemove", (event) => {
        const index = this.#indexOf(event.target);
        if (index !== -1 && index !== this.#active) this.#highlight(index);
      });
    }
    const input = options.input;
    input.addEventListener("click", () => options.caretMoved());
    input.addEventListener("keyup", (event) => {
      if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) options.caretMoved();
    });
    input.addEventListener("blur", () => this.hide());
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** What is listed (nothing while a note shows). */
  get items(): readonly T[] {
    return this.#items;
  }

  get active(): number {
    return this.#active;
  }

  /** List `items`, keeping the highlighted one when it is still there. */
  show(items: readonly T[]): void {
    const { name } = this.#options;
    const activeItem = this.#items[this.#active];
    const activeName = activeItem === undefined ? undefined : name(activeItem);
    const same = items.length === this.#items.length && items.every((c, i) => c === this.#items[i]);
    if (!same) {
      this.#items = items;
      this.#itemEls = items.map((item, i) => this.#renderItem(item, i));
      this.el.replaceChildren(...this.#itemEls);
    }
    const keep = items.findIndex((item) => name(item) === activeName);
    this.el.hidden = false;
    this.#highlight(keep === -1 ? 0 : keep);
  }

  /** Drop the listed items: the next `show` renders afresh and highlights the first. */
  forget(): void {
    this.#items = [];
  }

  /** A line instead of items (still asking, or why there is nothing). */
  note(text: string): void {
    this.#items = [];
    this.#itemEls = [];
    this.el.replaceChildren(h("div", { class: "lw-complete-note", role: "status" }, text));
    this.el.hidden = false;
    this.#options.input.removeAttribute("aria-activedescendant");
  }

  hide(): void {
    this.el.hidden = true;
    this.#options.input.removeAttribute("aria-activedescendant");
  }

  /** An unmodified ArrowDown or ArrowUp moves the highlight, wrapping around; true if it did. */
  navigate(event: KeyboardEvent): boolean {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return false;
    if (event.altKey || event.ctrlKey || event.metaKey) return false;
    event.preventDefault();
    const n = this.#items.length;
    this.#highlight((this.#active + (event.key === "ArrowDown" ? 1 : -1) + n) % n);
    return true;
  }

  #renderItem(item: T, index: number): HTMLElement {
    return h(
      "div",
      {
        class: "lw-complete-item",
        id: `${this.id}-${index}`,
        role: "option",
        "data-name": this.#options.name(item),
        "aria-selected": "false",
      },
      ...this.#options.render(item),
    );
  }

  #highlight(index: number): void {
    this.#itemEls[this.#active]?.setAttribute("aria-selected", "false");
    this.#active = index;
    const el = this.#itemEls[index];
    if (!el) return;
    el.setAttribute("aria-selected", "true");
    this.#options.input.setAttribute("aria-activedescendant", el.id);
    // Not in every DOM (jsdom has none).
    el.scrollIntoView?.({ block: "nearest" });
  }

  #indexOf(target: EventTarget | null): number {
    const item = target instanceof Element ? target.closest(".lw-complete-item") : null;
    return item ? this.#itemEls.indexOf(item as HTMLElement) : -1;
  }
}
