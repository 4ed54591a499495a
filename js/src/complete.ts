// The slash-command popup above the composer. A listbox driven by the
// textarea's keys (aria-activedescendant), so focus never leaves the text the
// user is typing.
import { commandQuery, completeCommand, rankCommands } from "./commands";
import { h } from "./dom";
import type { CommandSource, CommandSpec } from "./types";

const SOURCE_LABELS: Record<CommandSource, string> = {
  builtin: "built-in",
  project: "project",
  user: "user",
};

let counter = 0;

export class CommandCompleter {
  /** The popup; place it where `position: absolute` puts it above the input. */
  readonly el: HTMLElement;

  readonly #input: HTMLTextAreaElement;
  readonly #id: string;
  #commands: readonly CommandSpec[] = [];
  #items: CommandSpec[] = [];
  #itemEls: HTMLElement[] = [];
  #active = 0;
  /** Closed with Esc or Enter: stays closed until the text changes. */
  #dismissed = false;
  #lastText = "";

  constructor(input: HTMLTextAreaElement) {
    counter += 1;
    this.#id = `lw-complete-${counter}`;
    this.#input = input;
    this.el = h("div", {
      class: "lw-complete",
      id: this.#id,
      role: "listbox",
      "aria-label": "Slash commands",
      hidden: true,
    });
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", this.#id);

    // Keep focus (and the caret) in the textarea when an item is clicked.
    this.el.addEventListener("mousedown", (event) => event.preventDefault());
    this.el.addEventListener("click", (event) => {
      const index = this.#indexOf(event.target);
      if (index !== -1) this.#complete(index);
    });
    this.el.addEventListener("mousemove", (event) => {
      const index = this.#indexOf(event.target);
      if (index !== -1 && index !== this.#active) this.#highlight(index);
    });
    // The caret can leave the first word without any input.
    input.addEventListener("click", () => this.update());
    input.addEventListener("keyup", (event) => {
      if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) this.update();
    });
    input.addEventListener("focus", () => this.update());
    input.addEventListener("blur", () => this.#hide());
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  setCommands(commands: readonly CommandSpec[]): void {
    this.#commands = commands;
    this.#items = [];
    this.update();
  }

  /** Follow the textarea's text and caret: call after every change to either. */
  update(): void {
    const input = this.#input;
    const text = input.value;
    if (text !== this.#lastText) {
      this.#lastText = text;
      this.#dismissed = false;
    }
    const word =
      this.#dismissed || input.disabled || this.#commands.length === 0
        ? null
        : commandQuery(text, input.selectionEnd ?? text.length);
    const items = word === null ? [] : rankCommands(this.#commands, word);
    if (items.length === 0) {
      this.#hide();
      return;
    }
    this.#show(items);
  }

  /** Handle a keydown in the textarea; true when the popup used it. */
  handleKey(event: KeyboardEvent): boolean {
    if (!this.isOpen || event.isComposing) return false;
    const modified = event.altKey || event.ctrlKey || event.metaKey;
    switch (event.key) {
      case "ArrowDown":
      case "ArrowUp": {
        if (modified) return false;
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        const n = this.#items.length;
        this.#highlight((this.#active + step + n) % n);
        return true;
      }
      case "Tab":
        if (modified || event.shiftKey) return false;
        event.preventDefault();
        this.#complete(this.#active);
        return true;
      case "Escape":
        // The notebook must not see it: Esc there leaves edit mode.
        event.preventDefault();
        event.stopPropagation();
        this.close();
        return true;
      case "Enter":
        // Enter sends what was typed: the popup only gets out of the way.
        this.close();
        return false;
      default:
        return false;
    }
  }

  /** Close until the text changes. */
  close(): void {
    this.#dismissed = true;
    this.#hide();
  }

  #show(items: CommandSpec[]): void {
    const activeName = this.#items[this.#active]?.name;
    const same = items.length === this.#items.length && items.every((c, i) => c === this.#items[i]);
    if (!same) {
      this.#items = items;
      this.#itemEls = items.map((command, i) => this.#renderItem(command, i));
      this.el.replaceChildren(...this.#itemEls);
    }
    const keep = items.findIndex((c) => c.name === activeName);
    this.el.hidden = false;
    this.#highlight(keep === -1 ? 0 : keep);
  }

  #hide(): void {
    this.el.hidden = true;
    this.#input.removeAttribute("aria-activedescendant");
  }

  #renderItem(command: CommandSpec, index: number): HTMLElement {
    return h(
      "div",
      {
        class: "lw-complete-item",
        id: `${this.#id}-${index}`,
        role: "option",
        "data-name": command.name,
        "aria-selected": "false",
      },
      h(
        "span",
        { class: "lw-complete-head" },
        h("span", { class: "lw-complete-name" }, command.name),
        command.arg_hint && h("span", { class: "lw-complete-args" }, command.arg_hint),
        h(
          "span",
          { class: "lw-complete-source", "data-source": command.source },
          SOURCE_LABELS[command.source],
        ),
      ),
      command.description && h("span", { class: "lw-complete-desc" }, command.description),
    );
  }

  #highlight(index: number): void {
    this.#itemEls[this.#active]?.setAttribute("aria-selected", "false");
    this.#active = index;
    const el = this.#itemEls[index];
    if (!el) return;
    el.setAttribute("aria-selected", "true");
    this.#input.setAttribute("aria-activedescendant", el.id);
    // Not in every DOM (jsdom has none).
    el.scrollIntoView?.({ block: "nearest" });
  }

  #indexOf(target: EventTarget | null): number {
    const item = target instanceof Element ? target.closest(".lw-complete-item") : null;
    return item ? this.#itemEls.indexOf(item as HTMLElement) : -1;
  }

  #complete(index: number): void {
    const command = this.#items[index];
    if (!command) return;
    const input = this.#input;
    const { text, caret } = completeCommand(input.value, command.name);
    input.value = text;
    input.focus();
    input.setSelectionRange(caret, caret);
    // Whoever listens to typing (the composer's size and buttons, this popup)
    // sees the completion as typing.
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
}
