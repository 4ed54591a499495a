// The chat's composer: the message input with its slash-command and `@` completers,
// Send, Interrupt and New conversation, and the notice saying why it is limited. What
// it allows is composerState's (format.ts); the view runs the actions it asks for.
import { CommandCompleter } from "./complete";
import { h } from "../shared/dom";
import { composerState, type ComposerInput, type ComposerState } from "./format";
import { MentionCompleter, type VariableSource } from "./mentions";
import type { ActionKind, CommandSpec } from "../types";

/** What the composer needs to know of the run. */
export type ComposerRun = Omit<ComposerInput, "text" | "busy">;

export interface ComposerActions {
  /** Send `text`; resolves with why it failed, or null. */
  send(text: string): Promise<string | null>;
  interrupt(): void;
  clear(): void;
}

const HINT = "Enter to send · Shift+Enter for a new line";

/** What was typed and where the caret was: kept when the view is drawn again. */
export interface Draft {
  text: string;
  start: number;
  end: number;
  focused: boolean;
}

export class Composer {
  readonly el: HTMLElement;

  readonly #actions: ComposerActions;
  /** The actions under way (the view's): a busy one's button waits. */
  readonly #busy: ReadonlySet<ActionKind>;
  #run: ComposerRun = { state: "idle", stateReason: "", providerName: "", clearCommand: "" };
  #destroyed = false;

  readonly #notice = h("div", { class: "lw-notice", role: "status" });
  readonly #input = h("textarea", { class: "lw-input", rows: 1, "aria-label": "Message" });
  readonly #send = h("button", { type: "button", class: "lw-send" }, "Send");
  readonly #interrupt = h("button", { type: "button", class: "lw-interrupt" }, "Interrupt");
  readonly #clear = h("button", { type: "button", class: "lw-clear" }, "New conversation");
  readonly #hint = h("span", { class: "lw-hint" }, HINT);
  readonly #completer = new CommandCompleter(this.#input);
  readonly #mentions = new MentionCompleter(this.#input);

  constructor(busy: ReadonlySet<ActionKind>, actions: ComposerActions) {
    this.#busy = busy;
    this.#actions = actions;
    this.el = h(
      "div",
      { class: "lw-composer" },
      this.#completer.el,
      this.#mentions.el,
      this.#notice,
      h(
        "div",
        { class: "lw-compose-row" },
        this.#input,
        h("div", { class: "lw-compose-buttons" }, this.#send, this.#interrupt),
      ),
      h("div", { class: "lw-compose-foot" }, this.#clear, this.#hint),
    );
    this.#input.addEventListener("keydown", this.#onKeyDown);
    this.#input.addEventListener("input", () => this.#typed());
    this.#send.addEventListener("click", () => void this.#sendInput());
    this.#interrupt.addEventListener("click", () => this.#actions.interrupt());
    this.#clear.addEventListener("click", () => this.#actions.clear());
  }

  /** Where `@` completion gets the kernel's variables; null: no completion. */
  setVariables(source: VariableSource | null): void {
    this.#mentions.setSource(source);
  }

  /** The slash commands offered, and the hint that says what is on offer. */
  setCommands(commands: readonly CommandSpec[]): void {
    this.#completer.setCommands(commands);
    const hints = [HINT];
    if (commands.length) hints.push("/ for commands");
    if (this.#mentions.enabled) hints.push("@ for variables");
    this.#hint.textContent = hints.join(" · ");
  }

  /** The run's state and commands, which say what the composer allows. */
  setRun(run: ComposerRun): void {
    this.#run = run;
    const { clearCommand } = run;
    this.#clear.title = clearCommand ? `Start a new conversation (sends ${clearCommand})` : "";
    this.update();
  }

  /** Bring inputs and buttons in line with the run and the actions under way. */
  update(): void {
    if (this.#destroyed) return;
    const c = this.#state();
    this.#input.disabled = !c.inputEnabled;
    this.#input.placeholder = c.placeholder;
    this.#send.disabled = !c.sendEnabled;
    this.#send.textContent = c.sendBusy ? "Sending…" : "Send";
    this.#send.classList.toggle("lw-busy", c.sendBusy);
    this.#send.setAttribute("aria-busy", String(c.sendBusy));
    this.#interrupt.hidden = !c.interruptVisible;
    this.#interrupt.disabled = !c.interruptEnabled;
    this.#interrupt.classList.toggle("lw-busy", this.#busy.has("interrupt"));
    this.#clear.hidden = !c.clearVisible;
    this.#clear.disabled = !c.clearEnabled;
    this.#clear.classList.toggle("lw-busy", this.#busy.has("clear"));
    // How to type means nothing where nothing can be typed (an ended run, a question).
    this.#hint.hidden = !c.inputEnabled;
    this.#notice.textContent = c.notice;
    this.#notice.hidden = c.notice === "";
    if (this.#input.disabled && this.#completer.isOpen) this.#completer.update();
    if (this.#input.disabled && this.#mentions.isOpen) this.#mentions.update();
  }

  /** The text typed and not sent, with its caret. */
  draft(): Draft {
    const input = this.#input;
    const focused = typeof document !== "undefined" && document.activeElement === input;
    return { text: input.value, start: input.selectionStart, end: input.selectionEnd, focused };
  }

  /** Put back a draft (a new view of the same run); a text typed here already wins.
   *
   * Called as soon as the view exists, before it is in the page: an Enter that reaches the
   * new input then sends the draft instead of an empty box. */
  restoreDraft(draft: Draft): void {
    const input = this.#input;
    if (input.value !== "" || draft.text === "") return;
    input.value = draft.text;
    this.update();
    input.setSelectionRange(draft.start, draft.end);
  }

  /** Once the view is laid out: size the restored draft, and focus it if it had the focus. */
  settleDraft(draft: Draft): void {
    const input = this.#input;
    this.#fitInput();
    if (draft.focused && !input.disabled && input.value === draft.text && draft.text !== "") {
      input.focus({ preventScroll: true });
    }
  }

  /** Stop updating: the view is gone. */
  destroy(): void {
    this.#destroyed = true;
  }

  readonly #onKeyDown = (event: KeyboardEvent): void => {
    if (this.#completer.handleKey(event) || this.#mentions.handleKey(event)) return;
    // isComposing: Enter also confirms an IME candidate; that is not a send.
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    void this.#sendInput();
  };

  /** The text changed: size, buttons and completers follow. */
  #typed(): void {
    this.#fitInput();
    this.update();
    this.#completer.update();
    this.#mentions.update();
  }

  async #sendInput(): Promise<void> {
    const text = this.#input.value;
    if (!this.#state().sendEnabled) return;
    const error = await this.#actions.send(text.trimEnd());
    // Keep whatever was typed meanwhile; clear only what was sent.
    if (error === null && !this.#destroyed && this.#input.value === text) {
      this.#input.value = "";
      this.#typed();
    }
  }

  #state(): ComposerState {
    return composerState({ ...this.#run, text: this.#input.value, busy: this.#busy });
  }

  #fitInput(): void {
    const input = this.#input;
    input.style.height = "auto";
    if (input.scrollHeight) input.style.height = `${input.scrollHeight}px`;
  }
}
