// The chat: header, message log and composer. Knows nothing about Jupyter:
// it renders a ConversationStore and calls the actions it is given.
import { h, syncChildren } from "./dom";
import { createToolGroup, renderMessage, type RenderContext, type ToolGroupView } from "./render";
import {
  composerState,
  ConversationStore,
  groupMessages,
  stateLabel,
  toolGroupLabel,
  type StoreChange,
} from "./store";
import type { ActionKind, DeltaMsg, State } from "./types";

export interface ChatActions {
  send(text: string): Promise<void>;
  interrupt(): Promise<void>;
  clear(): Promise<void>;
}

export interface RunInfo {
  providerName: string;
  state: State;
  stateReason: string;
  attachCommand: string;
  clearCommand: string;
}

export interface ChatViewOptions {
  /** Share one store between views of the same conversation. */
  store?: ConversationStore;
  info?: Partial<RunInfo>;
}

/** How close to the end (px) still counts as "at the bottom". */
const BOTTOM_SLACK = 32;
const COPY_FEEDBACK_MS = 1500;

const FAILURES: Record<ActionKind, string> = {
  send: "Could not send the message",
  interrupt: "Could not interrupt the agent",
  clear: "Could not start a new conversation",
};

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}

export class ChatView {
  readonly store: ConversationStore;

  readonly #root: HTMLElement;
  readonly #actions: ChatActions;
  #info: RunInfo = {
    providerName: "",
    state: "idle",
    stateReason: "",
    attachCommand: "",
    clearCommand: "",
  };
  readonly #busy = new Set<ActionKind>();
  readonly #ctx: RenderContext = { expanded: new Set() };
  readonly #messageEls = new Map<number, HTMLElement>();
  #groups = new Map<string, ToolGroupView>();
  readonly #disposers: (() => void)[] = [];
  #atBottom = true;
  #destroyed = false;
  #copyTimer: ReturnType<typeof setTimeout> | undefined;

  readonly #provider = h("span", { class: "lw-provider" });
  readonly #state = h("span", { class: "lw-state" });
  readonly #reason = h("span", { class: "lw-reason" });
  readonly #attach = h("code", { class: "lw-attach" });
  readonly #copy = h("button", { type: "button", class: "lw-copy" }, "Copy");
  readonly #attachRow = h(
    "div",
    { class: "lw-attach-row" },
    h("span", { class: "lw-attach-label" }, "Attach in a terminal:"),
    this.#attach,
    this.#copy,
  );
  readonly #errors = h("div", { class: "lw-errors" });
  readonly #log = h("div", { class: "lw-log", role: "log", "aria-label": "Conversation" });
  readonly #scroller = h("div", { class: "lw-scroll" }, this.#log);
  readonly #jump = h(
    "button",
    { type: "button", class: "lw-jump", hidden: true },
    "↓ Jump to latest",
  );
  readonly #notice = h("div", { class: "lw-notice", role: "status" });
  readonly #input = h("textarea", { class: "lw-input", rows: 1, "aria-label": "Message" });
  readonly #send = h("button", { type: "button", class: "lw-send" }, "Send");
  readonly #interrupt = h("button", { type: "button", class: "lw-interrupt" }, "Interrupt");
  readonly #clear = h("button", { type: "button", class: "lw-clear" }, "New conversation");

  constructor(root: HTMLElement, actions: ChatActions, options: ChatViewOptions = {}) {
    this.#root = root;
    this.#actions = actions;
    this.store = options.store ?? new ConversationStore();

    root.classList.add("lw-chat");
    // Keys typed here are for the widget, not for JupyterLab's notebook
    // shortcuts ("d d" deletes a cell, "a"/"b" insert one).
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    root.replaceChildren(
      h(
        "header",
        { class: "lw-header" },
        h("div", { class: "lw-title" }, this.#provider, this.#state, this.#reason),
        this.#attachRow,
      ),
      this.#errors,
      h("div", { class: "lw-body" }, this.#scroller, this.#jump),
      h(
        "div",
        { class: "lw-composer" },
        this.#notice,
        h(
          "div",
          { class: "lw-compose-row" },
          this.#input,
          h("div", { class: "lw-compose-buttons" }, this.#send, this.#interrupt),
        ),
        h(
          "div",
          { class: "lw-compose-foot" },
          this.#clear,
          h("span", { class: "lw-hint" }, "Enter to send · Shift+Enter for a new line"),
        ),
      ),
    );

    this.#input.addEventListener("keydown", this.#onKeyDown);
    this.#input.addEventListener("input", () => {
      this.#fitInput();
      this.#updateComposer();
    });
    this.#send.addEventListener("click", () => void this.#sendInput());
    this.#interrupt.addEventListener("click", () => {
      void this.#run("interrupt", () => this.#actions.interrupt());
    });
    this.#clear.addEventListener("click", () => {
      void this.#run("clear", () => this.#actions.clear());
    });
    this.#copy.addEventListener("click", () => void this.#copyAttach());
    this.#jump.addEventListener("click", () => this.#scrollToBottom());
    this.#scroller.addEventListener("scroll", this.#onScroll, { passive: true });

    // The element may not be laid out yet (a notebook renders outputs detached),
    // and cells get resized: stay pinned to the end whenever the size changes.
    if (typeof ResizeObserver !== "undefined") {
      const observer = new ResizeObserver(() => {
        if (this.#atBottom) this.#scrollToBottom();
      });
      observer.observe(this.#scroller);
      observer.observe(this.#log);
      this.#disposers.push(() => observer.disconnect());
    }

    this.#disposers.push(this.store.subscribe((change) => this.#onStoreChange(change)));
    this.setInfo(options.info ?? {});
    this.#renderAll();
  }

  /** Update the header and what the composer allows. */
  setInfo(info: Partial<RunInfo>): void {
    if (this.#destroyed) return;
    const prev = this.#info;
    this.#info = {
      providerName: info.providerName ?? prev.providerName,
      state: info.state ?? prev.state,
      stateReason: info.stateReason ?? prev.stateReason,
      attachCommand: info.attachCommand ?? prev.attachCommand,
      clearCommand: info.clearCommand ?? prev.clearCommand,
    };
    const { providerName, state, stateReason, attachCommand, clearCommand } = this.#info;
    this.#root.dataset.state = state;
    this.#provider.textContent = providerName;
    this.#state.textContent = stateLabel(state);
    this.#state.dataset.state = state;
    this.#reason.textContent = stateReason;
    this.#reason.hidden = stateReason === "";
    this.#attach.textContent = attachCommand;
    this.#attachRow.hidden = attachCommand === "";
    this.#clear.title = clearCommand ? `Start a new conversation (sends ${clearCommand})` : "";
    this.#updateComposer();
  }

  applySnapshot(snapshot: unknown): void {
    this.store.applySnapshot(snapshot);
  }

  /** Apply a delta; "gap" means it did not follow and a snapshot is needed. */
  applyDelta(delta: DeltaMsg): "applied" | "gap" {
    return this.store.applyDelta(delta);
  }

  /** Show an error until the user dismisses it. */
  showError(message: string): void {
    if (this.#destroyed) return;
    const dismiss = h(
      "button",
      { type: "button", class: "lw-error-dismiss", "aria-label": "Dismiss", title: "Dismiss" },
      "×",
    );
    const box = h(
      "div",
      { class: "lw-error", role: "alert" },
      h("span", { class: "lw-error-text" }, message),
      dismiss,
    );
    dismiss.addEventListener("click", () => box.remove());
    this.#errors.append(box);
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const dispose of this.#disposers) dispose();
    clearTimeout(this.#copyTimer);
    this.#root.replaceChildren();
    this.#root.classList.remove("lw-chat");
    this.#root.removeAttribute("data-lm-suppress-shortcuts");
    delete this.#root.dataset.state;
  }

  // -- messages --------------------------------------------------------------

  #onStoreChange(change: StoreChange): void {
    if (change.reset) {
      this.#ctx.expanded.clear();
      this.#renderAll();
      return;
    }
    for (const seq of change.removed) {
      this.#messageEls.get(seq)?.remove();
      this.#messageEls.delete(seq);
    }
    for (const seq of change.changed) {
      const message = this.store.get(seq);
      if (!message) continue;
      const el = renderMessage(message, this.#ctx);
      const old = this.#messageEls.get(seq);
      if (old) {
        if (old instanceof HTMLDetailsElement && el instanceof HTMLDetailsElement) {
          el.open = old.open;
        }
        old.replaceWith(el);
      }
      this.#messageEls.set(seq, el);
    }
    this.#layout();
    this.#followNewContent();
  }

  #renderAll(): void {
    this.#messageEls.clear();
    this.#groups.clear();
    this.#log.replaceChildren();
    for (const message of this.store.messages) {
      this.#messageEls.set(message.seq, renderMessage(message, this.#ctx));
    }
    this.#layout();
    this.#scrollToBottom();
  }

  /** Put message elements into groups and order, touching only what moved. */
  #layout(): void {
    const groups = new Map<string, ToolGroupView>();
    const top: HTMLElement[] = [];
    const elementOf = (seq: number): HTMLElement => {
      let el = this.#messageEls.get(seq);
      if (!el) {
        el = renderMessage(this.store.get(seq)!, this.#ctx);
        this.#messageEls.set(seq, el);
      }
      return el;
    };
    for (const group of groupMessages(this.store.messages)) {
      if (group.type === "message") {
        top.push(elementOf(group.message.seq));
        continue;
      }
      const view = this.#groups.get(group.key) ?? createToolGroup();
      groups.set(group.key, view);
      syncChildren(
        view.list,
        group.messages.map((m) => elementOf(m.seq)),
      );
      const label = toolGroupLabel(group.messages);
      if (view.labelText !== label) {
        view.label.textContent = label;
        view.labelText = label;
      }
      const count = String(group.messages.length);
      if (view.el.dataset.count !== count) {
        view.el.dataset.count = count;
        // A lone call has no group header to reopen it with.
        if (group.messages.length === 1) view.el.open = true;
      }
      top.push(view.el);
    }
    this.#groups = groups;
    syncChildren(this.#log, top);
  }

  // -- scrolling -------------------------------------------------------------

  readonly #onScroll = (): void => {
    const s = this.#scroller;
    this.#atBottom = s.scrollHeight - s.scrollTop - s.clientHeight <= BOTTOM_SLACK;
    this.#jump.hidden = this.#atBottom;
  };

  #followNewContent(): void {
    if (this.#atBottom) this.#scrollToBottom();
    else this.#jump.hidden = false;
  }

  #scrollToBottom(): void {
    this.#scroller.scrollTop = this.#scroller.scrollHeight;
    this.#atBottom = true;
    this.#jump.hidden = true;
  }

  // -- composer --------------------------------------------------------------

  readonly #onKeyDown = (event: KeyboardEvent): void => {
    // isComposing: Enter also confirms an IME candidate; that is not a send.
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    void this.#sendInput();
  };

  async #sendInput(): Promise<void> {
    const text = this.#input.value;
    if (!this.#composer().sendEnabled) return;
    const sent = await this.#run("send", () => this.#actions.send(text.trimEnd()));
    // Keep whatever was typed meanwhile; clear only what was sent.
    if (sent && !this.#destroyed && this.#input.value === text) {
      this.#input.value = "";
      this.#fitInput();
      this.#updateComposer();
    }
  }

  async #run(kind: ActionKind, action: () => Promise<void>): Promise<boolean> {
    this.#busy.add(kind);
    this.#updateComposer();
    try {
      await action();
      return true;
    } catch (error) {
      this.showError(`${FAILURES[kind]}: ${errorText(error)}`);
      return false;
    } finally {
      this.#busy.delete(kind);
      this.#updateComposer();
    }
  }

  #composer() {
    return composerState({
      state: this.#info.state,
      stateReason: this.#info.stateReason,
      providerName: this.#info.providerName,
      clearCommand: this.#info.clearCommand,
      text: this.#input.value,
      busy: this.#busy,
    });
  }

  #updateComposer(): void {
    if (this.#destroyed) return;
    const c = this.#composer();
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
    this.#notice.textContent = c.notice;
    this.#notice.hidden = c.notice === "";
  }

  #fitInput(): void {
    const input = this.#input;
    input.style.height = "auto";
    if (input.scrollHeight) input.style.height = `${input.scrollHeight}px`;
  }

  // -- attach command --------------------------------------------------------

  async #copyAttach(): Promise<void> {
    const text = this.#info.attachCommand;
    let feedback = "Copied";
    try {
      // Missing outside secure contexts (a notebook served over plain http).
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
    } catch {
      const selection = window.getSelection();
      const range = document.createRange();
      range.selectNodeContents(this.#attach);
      selection?.removeAllRanges();
      selection?.addRange(range);
      feedback = "Selected";
    }
    if (this.#destroyed) return;
    this.#copy.textContent = feedback;
    clearTimeout(this.#copyTimer);
    this.#copyTimer = setTimeout(() => {
      this.#copy.textContent = "Copy";
    }, COPY_FEEDBACK_MS);
  }
}
