// The chat: header, message log and composer. Knows nothing about Jupyter:
// it renders a ConversationStore and calls the actions it is given.
import type { CodeHost } from "./codeblocks";
import { normalizeCommands } from "./commands";
import { CommandCompleter } from "./complete";
import { dialogContext, syncDialogForm } from "./dialog-form";
import { h, syncChildren } from "./dom";
import { PastConversations } from "./epochs";
import { MentionCompleter, type VariableSource } from "./mentions";
import { SessionMeter } from "./meter";
import {
  createToolGroup,
  renderMessage,
  subthread,
  type RenderContext,
  type ToolGroupView,
} from "./render";
import { composerState, groupMessages, stateLabel, threads, toolGroupLabel } from "./format";
import { normalizeDialog } from "./normalize";
import { ConversationStore, type StoreChange } from "./store";
import type { ActionKind, Answer, DeltaMsg, Dialog, Message, State } from "./types";

export interface ChatActions {
  send(text: string): Promise<void>;
  interrupt(): Promise<void>;
  clear(): Promise<void>;
  /** Answer the pending dialog `toolId`: one answer per question, in order. */
  answer(toolId: string, answers: Answer[]): Promise<void>;
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
  /** The `pending_dialog` trait. */
  pendingDialog?: unknown;
  /** The `commands` trait. */
  commands?: unknown;
  /** The `session` trait. */
  session?: unknown;
  /** Asks the kernel for its variables, for `@` completion; absent: no completion. */
  variables?: VariableSource;
  /** What code blocks offer besides Copy (a notebook: inserting a cell below the chat). */
  code?: CodeHost;
  /** A pane shown between the conversation and the composer (the terminal). */
  terminal?: HTMLElement;
}

/** How close to the end (px) still counts as "at the bottom". */
const BOTTOM_SLACK = 32;
const COPY_FEEDBACK_MS = 1500;

const FAILURES: Record<ActionKind, string> = {
  send: "Could not send the message",
  interrupt: "Could not interrupt the agent",
  clear: "Could not start a new conversation",
  answer: "Could not send the answer",
  variables: "Could not list the kernel's variables",
};

const HINT = "Enter to send · Shift+Enter for a new line";

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
  readonly #ctx: RenderContext = {
    expanded: new Set(),
    dialogs: dialogContext((toolId, answers) => void this.#answer(toolId, answers)),
  };
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
  readonly #meter = new SessionMeter();
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
  readonly #hint = h("span", { class: "lw-hint" }, HINT);
  readonly #completer = new CommandCompleter(this.#input);
  readonly #mentions = new MentionCompleter(this.#input);
  readonly #past: PastConversations;

  constructor(root: HTMLElement, actions: ChatActions, options: ChatViewOptions = {}) {
    this.#root = root;
    this.#actions = actions;
    this.store = options.store ?? new ConversationStore();
    this.#ctx.code = options.code ?? {};
    this.#past = new PastConversations(this.#ctx.code);
    this.#scroller.prepend(this.#past.el);
    this.#mentions.setSource(options.variables ?? null);

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
        this.#meter.el,
      ),
      this.#errors,
      h("div", { class: "lw-body" }, this.#scroller, this.#jump),
      ...(options.terminal ? [options.terminal] : []),
      h(
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
      ),
    );

    this.#input.addEventListener("keydown", this.#onKeyDown);
    this.#input.addEventListener("input", () => {
      this.#fitInput();
      this.#updateComposer();
      this.#completer.update();
      this.#mentions.update();
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
    this.#ctx.dialogs.attachCommand = options.info?.attachCommand ?? "";
    this.#ctx.dialogs.pending = normalizeDialog(options.pendingDialog);
    this.setInfo(options.info ?? {});
    this.setCommands(options.commands);
    this.setSession(options.session);
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
    const dialogs = this.#ctx.dialogs;
    if (dialogs.attachCommand !== attachCommand) {
      dialogs.attachCommand = attachCommand;
      // Cards that send the user to the terminal show the command.
      this.#rerenderDialogs((d) => d.status === "pending");
    }
  }

  /** The dialog the agent waits on now (the `pending_dialog` trait), or null. */
  setPendingDialog(raw: unknown): void {
    if (this.#destroyed) return;
    const dialogs = this.#ctx.dialogs;
    const old = dialogs.pending;
    const next = normalizeDialog(raw);
    if (JSON.stringify(old) === JSON.stringify(next)) return;
    dialogs.pending = next;
    const oldId = old?.tool_id ?? null;
    const newId = next?.tool_id ?? null;
    if (oldId !== null && oldId !== newId) {
      // That dialog has moved on: nothing of its form is needed any more.
      dialogs.drafts.delete(oldId);
      dialogs.errors.delete(oldId);
      dialogs.sent.delete(oldId);
    }
    const affected = new Set([oldId, newId]);
    affected.delete(null);
    this.#rerenderDialogs((d) => affected.has(d.tool_id ?? null));
  }

  /** The slash commands the composer offers (the `commands` trait). */
  setCommands(raw: unknown): void {
    if (this.#destroyed) return;
    const commands = normalizeCommands(raw);
    this.#completer.setCommands(commands);
    const hints = [HINT];
    if (commands.length) hints.push("/ for commands");
    if (this.#mentions.enabled) hints.push("@ for variables");
    this.#hint.textContent = hints.join(" · ");
  }

  /** Model, tokens, cost and context of the session (the `session` trait). */
  setSession(raw: unknown): void {
    if (this.#destroyed) return;
    this.#meter.set(raw);
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
    if (change.past || change.reset) this.#past.set(this.store.past);
    if (change.reset) {
      this.#ctx.expanded.clear();
      this.#renderAll();
      return;
    }
    for (const seq of change.removed) {
      this.#messageEls.get(seq)?.remove();
      this.#messageEls.delete(seq);
    }
    for (const seq of change.changed) this.#rerender(seq);
    this.#layout();
    this.#followNewContent();
  }

  /** Render message `seq` again, in place, keeping what the user had open and focused. */
  #rerender(seq: number): void {
    const message = this.store.get(seq);
    if (!message) return;
    const el = renderMessage(message, this.#ctx);
    const old = this.#messageEls.get(seq);
    this.#messageEls.set(seq, el);
    if (!old) return;
    if (old instanceof HTMLDetailsElement && el instanceof HTMLDetailsElement) el.open = old.open;
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && old.contains(active) ? active : null;
    old.replaceWith(el);
    // A dialog form re-rendered while the user works in it keeps their place.
    const key = focused?.dataset.focusKey;
    const twin = key ? el.querySelector<HTMLElement>(`[data-focus-key="${key}"]`) : null;
    if (!twin) return;
    twin.focus();
    const typing = focused instanceof HTMLInputElement && focused.type === "text";
    if (typing && twin instanceof HTMLInputElement) {
      twin.setSelectionRange(focused.selectionStart, focused.selectionEnd);
    }
  }

  #rerenderDialogs(match: (dialog: Dialog) => boolean): void {
    let any = false;
    for (const message of this.store.messages) {
      if (message.kind === "dialog" && message.dialog && match(message.dialog)) {
        this.#rerender(message.seq);
        any = true;
      }
    }
    if (!any) return;
    this.#layout();
    this.#followNewContent();
  }

  async #answer(toolId: string, answers: Answer[]): Promise<void> {
    const dialogs = this.#ctx.dialogs;
    if (dialogs.sending.has(toolId) || dialogs.sent.has(toolId)) return;
    dialogs.sending.add(toolId);
    dialogs.errors.delete(toolId);
    this.#syncDialogForms();
    const error = await this.#run("answer", () => this.#actions.answer(toolId, answers));
    if (this.#destroyed) return;
    dialogs.sending.delete(toolId);
    if (error === null) dialogs.sent.add(toolId);
    else dialogs.errors.set(toolId, `${FAILURES.answer}: ${error}`);
    this.#syncDialogForms();
    // Disabling the form dropped the focus: give it back to Submit, to try again.
    if (
      error !== null &&
      (document.activeElement === null || document.activeElement === document.body)
    ) {
      for (const form of this.#dialogForms(toolId)) {
        form.querySelector<HTMLElement>(".lw-dialog-submit")?.focus();
      }
    }
  }

  #dialogForms(toolId?: string): HTMLFormElement[] {
    return [...this.#log.querySelectorAll<HTMLFormElement>(".lw-dialog-form")].filter(
      (form) => toolId === undefined || form.dataset.toolId === toolId,
    );
  }

  #syncDialogForms(): void {
    for (const form of this.#dialogForms()) syncDialogForm(form, this.#ctx.dialogs);
  }

  #renderAll(): void {
    this.#past.set(this.store.past);
    this.#messageEls.clear();
    this.#groups.clear();
    this.#log.replaceChildren();
    for (const message of this.store.messages) {
      this.#messageEls.set(message.seq, renderMessage(message, this.#ctx));
    }
    this.#layout();
    this.#scrollToBottom();
  }

  /**
   * Put message elements into groups and order, touching only what moved. A sub-agent's
   * messages go inside the card of the call that started it, grouped the same way.
   */
  #layout(): void {
    const groups = new Map<string, ToolGroupView>();
    const { top, children } = threads(this.store.messages);
    const placed = new Set<string>();
    const elementOf = (seq: number): HTMLElement => {
      let el = this.#messageEls.get(seq);
      if (!el) {
        el = renderMessage(this.store.get(seq)!, this.#ctx);
        this.#messageEls.set(seq, el);
      }
      return el;
    };
    const nest = (el: HTMLElement, message: Message): void => {
      const id = message.tool?.id;
      if (!id) return;
      const body = el.querySelector<HTMLElement>(":scope > .lw-tool-body") ?? el;
      let box = body.querySelector<HTMLElement>(":scope > .lw-subthread");
      const kids = placed.has(id) ? undefined : children.get(id);
      if (!kids) {
        if (box) syncChildren(box, []);
        return;
      }
      placed.add(id); // a malformed parent chain must not loop
      if (!box) {
        box = subthread();
        body.append(box);
      }
      arrange(box, kids);
    };
    const arrange = (container: Element, list: readonly Message[]): void => {
      const out: HTMLElement[] = [];
      for (const group of groupMessages(list)) {
        if (group.type === "message") {
          const el = elementOf(group.message.seq);
          nest(el, group.message);
          out.push(el);
          continue;
        }
        const view = this.#groups.get(group.key) ?? createToolGroup();
        groups.set(group.key, view);
        syncChildren(
          view.list,
          group.messages.map((m) => {
            const el = elementOf(m.seq);
            nest(el, m);
            return el;
          }),
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
        out.push(view.el);
      }
      syncChildren(container, out);
    };
    arrange(this.#log, top);
    this.#groups = groups;
    // A form the agent waits on (a sub-agent's permission prompt nested in its call's
    // card, a call in a collapsed group) must be seen: open every fold around it.
    for (const form of this.#log.querySelectorAll<HTMLElement>(".lw-dialog-form")) {
      for (let p = form.parentElement; p && p !== this.#log; p = p.parentElement) {
        if (p instanceof HTMLDetailsElement && !p.open) p.open = true;
      }
    }
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
    if (this.#completer.handleKey(event) || this.#mentions.handleKey(event)) return;
    // isComposing: Enter also confirms an IME candidate; that is not a send.
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    void this.#sendInput();
  };

  async #sendInput(): Promise<void> {
    const text = this.#input.value;
    if (!this.#composer().sendEnabled) return;
    const error = await this.#run("send", () => this.#actions.send(text.trimEnd()));
    // Keep whatever was typed meanwhile; clear only what was sent.
    if (error === null && !this.#destroyed && this.#input.value === text) {
      this.#input.value = "";
      this.#fitInput();
      this.#updateComposer();
      this.#completer.update();
      this.#mentions.update();
    }
  }

  /** Run an action, showing its failure; resolves with that failure's text, or null. */
  async #run(kind: ActionKind, action: () => Promise<void>): Promise<string | null> {
    this.#busy.add(kind);
    this.#updateComposer();
    try {
      await action();
      return null;
    } catch (error) {
      const message = errorText(error);
      this.showError(`${FAILURES[kind]}: ${message}`);
      return message;
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
    if (this.#input.disabled && this.#completer.isOpen) this.#completer.update();
    if (this.#input.disabled && this.#mentions.isOpen) this.#mentions.update();
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
