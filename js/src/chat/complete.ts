// Slash commands in the composer: the popup (popup.ts) lists the commands the first
// word matches; Tab or a click completes one.
import { commandQuery, completeCommand, rankCommands } from "./commands";
import { h } from "../shared/dom";
import { CompletionPopup } from "./popup";
import type { CommandSource, CommandSpec } from "../types";

const SOURCE_LABELS: Record<CommandSource, string> = {
  builtin: "built-in",
  project: "project",
  user: "user",
};

export class CommandCompleter {
  /** The popup; place it where `position: absolute` puts it above the input. */
  readonly el: HTMLElement;

  readonly #input: HTMLTextAreaElement;
  readonly #popup: CompletionPopup<CommandSpec>;
  #commands: readonly CommandSpec[] = [];
  /** Closed with Esc or Enter: stays closed until the text changes. */
  #dismissed = false;
  #lastText = "";

  constructor(input: HTMLTextAreaElement) {
    this.#input = input;
    this.#popup = new CompletionPopup<CommandSpec>({
      input,
      idPrefix: "lw-complete",
      class: "lw-complete",
      label: "Slash commands",
      name: (command) => command.name,
      render: (command) => [
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
      ],
      pick: (index) => this.#complete(index),
      hover: true,
      // The caret can leave the first word without any input.
      caretMoved: () => this.update(),
    });
    this.el = this.#popup.el;
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", this.#popup.id);
    input.addEventListener("focus", () => this.update());
  }

  get isOpen(): boolean {
    return this.#popup.isOpen;
  }

  setCommands(commands: readonly CommandSpec[]): void {
    this.#commands = commands;
    this.#popup.forget();
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
      this.#popup.hide();
      return;
    }
    this.#popup.show(items);
  }

  /** Handle a keydown in the textarea; true when the popup used it. */
  handleKey(event: KeyboardEvent): boolean {
    if (!this.isOpen || event.isComposing) return false;
    if (this.#popup.navigate(event)) return true;
    const modified = event.altKey || event.ctrlKey || event.metaKey;
    switch (event.key) {
      case "Tab":
        if (modified || event.shiftKey) return false;
        event.preventDefault();
        this.#complete(this.#popup.active);
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
    this.#popup.hide();
  }

  #complete(index: number): void {
    const command = this.#popup.items[index];
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
