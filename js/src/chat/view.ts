// The chat: header, message log and composer. Knows nothing about Jupyter:
// it renders a ConversationStore and calls the actions it is given.
import type { CodeHost } from "./codeblocks";
import { normalizeCommands } from "./commands";
import { Composer, type Draft } from "./composer";
import { dialogContext, syncDialogForm } from "./dialog-form";
import { h } from "../shared/dom";
import { stateLabel } from "./format";
import { MessageLog } from "./log";
import type { VariableSource } from "./mentions";
import { SessionMeter } from "./meter";
import { normalizeDialog } from "./normalize";
import type { RenderContext } from "./message";
import { ConversationStore } from "./store";
import { awaitingModel, userPrompts, WaitingTail } from "./waiting";
import type { ActionKind, Answer, DeltaMsg, State } from "../types";

export interface ChatActions {
  send(text: string): Promise<void>;
  interrupt(): Promise<void>;
  clear(): Promise<void>;
  /** Answer the pending dialog `toolId`: one answer per question, in order. */
  answer(toolId: string, answers: Answer[]): Promise<void>;
  /** Start the agent again with (or without) the kernel's tools; absent: no switch. */
  restart?(kernel: boolean): Promise<void>;
}

export interface RunInfo {
  providerName: string;
  state: State;
  stateReason: string;
  attachCommand: string;
  clearCommand: string;
  /** Whether the agent has the kernel's tools (null: it cannot be restarted, no switch). */
  kernelTools: boolean | null;
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
  /** Saves the document the chat is in (a notebook): Ctrl+S / Cmd+S inside the chat. */
  save?: () => Promise<void>;
}

/** What the user had typed, scrolled and expanded: a new view of the same run gets it back. */
export interface UiState {
  draft: Draft;
  /** null: following the end. */
  scroll: number | null;
  expanded: readonly string[];
}

const COPY_FEEDBACK_MS = 1500;

const FAILURES: Record<ActionKind, string> = {
  send: "Could not send the message",
  interrupt: "Could not interrupt the agent",
  clear: "Could not start a new conversation",
  answer: "Could not send the answer",
  variables: "Could not list the kernel's variables",
  restart: "Could not restart the agent",
};

const KERNEL_SWITCH_TITLE =
  "Give the agent this notebook's kernel as tools (run code, read variables; each run is " +
  "yours to approve). The agent starts again for it: the conversation so far stays above.";

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
    kernelTools: null,
  };
  readonly #busy = new Set<ActionKind>();
  readonly #ctx: RenderContext = {
    expanded: new Set(),
    dialogs: dialogContext((toolId, answers) => void this.#answer(toolId, answers)),
  };
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
  readonly #kernelInput = h("input", {
    type: "checkbox",
    role: "switch",
    class: "lw-switch lw-kernel-switch",
    "aria-checked": "false",
  });
  readonly #kernelSwitch = h(
    "label",
    { class: "lw-kernel", title: KERNEL_SWITCH_TITLE, hidden: true },
    this.#kernelInput,
    h("span", {}, "Kernel tools"),
  );
  readonly #meter = new SessionMeter();
  readonly #errors = h("div", { class: "lw-errors" });
  readonly #tail = new WaitingTail();
  #unsubscribeTail: () => void = () => {};
  readonly #composer = new Composer(this.#busy, {
    send: (text) => this.#send(text),
    interrupt: () => void this.#run("interrupt", () => this.#actions.interrupt()),
    clear: () => void this.#run("clear", () => this.#actions.clear()),
  });
  readonly #log: MessageLog;

  constructor(root: HTMLElement, actions: ChatActions, options: ChatViewOptions = {}) {
    this.#root = root;
    this.#actions = actions;
    this.store = options.store ?? new ConversationStore();
    this.#ctx.code = options.code ?? {};
    this.#log = new MessageLog(this.store, this.#ctx);
    this.#log.setTail(this.#tail.el);
    this.#unsubscribeTail = this.store.subscribe((change) => this.#updateTail(change.reset));
    this.#composer.setVariables(options.variables ?? null);

    root.classList.add("lw-chat");
    // Keys typed here are for the widget, not for JupyterLab's notebook
    // shortcuts ("d d" deletes a cell, "a"/"b" insert one).
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    root.replaceChildren(
      h(
        "header",
        { class: "lw-header" },
        h(
          "div",
          { class: "lw-title" },
          this.#provider,
          this.#state,
          this.#reason,
          this.#kernelSwitch,
        ),
        this.#attachRow,
        this.#meter.el,
      ),
      this.#errors,
      this.#log.el,
      ...(options.terminal ? [options.terminal] : []),
      this.#composer.el,
    );

    this.#copy.addEventListener("click", () => void this.#copyAttach());
    this.#kernelInput.addEventListener("change", () => void this.#restart());
    // The resize corner is the frame's own: a user who takes it wants more than the limit
    // the frame grows to by itself.
    root.addEventListener("pointerdown", (event) => {
      if (event.target === root) root.style.maxHeight = "none";
    });
    const save = options.save;
    if (save) {
      // The notebook's own shortcuts never see keys typed here (see above): save as it would.
      root.addEventListener("keydown", (event) => {
        const mod = event.ctrlKey || event.metaKey;
        if (!mod || event.altKey || event.shiftKey || event.key.toLowerCase() !== "s") return;
        event.preventDefault();
        event.stopPropagation();
        void save().catch((error: unknown) =>
          this.showError(`Could not save the notebook: ${errorText(error)}`),
        );
      });
    }
    this.#ctx.dialogs.attachCommand = options.info?.attachCommand ?? "";
    this.#ctx.dialogs.pending = normalizeDialog(options.pendingDialog);
    this.setInfo(options.info ?? {});
    this.setCommands(options.commands);
    this.setSession(options.session);
    this.#log.render();
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
      kernelTools: info.kernelTools === undefined ? prev.kernelTools : info.kernelTools,
    };
    const { providerName, state, stateReason, attachCommand, clearCommand } = this.#info;
    this.#root.dataset.state = state;
    this.#provider.textContent = providerName;
    this.#state.textContent = stateLabel(state);
    this.#state.dataset.state = state;
    this.#reason.textContent = stateReason;
    this.#reason.hidden = stateReason === "";
    this.#attach.textContent = attachCommand;
    // An ended run has no TUI to attach to.
    this.#attachRow.hidden = attachCommand === "" || state === "ended";
    this.#composer.setRun({ state, stateReason, providerName, clearCommand });
    this.#renderKernelSwitch();
    if (state === "ended") this.#tail.drop();
    this.#updateTail();
    const dialogs = this.#ctx.dialogs;
    if (dialogs.attachCommand !== attachCommand) {
      dialogs.attachCommand = attachCommand;
      // Cards that send the user to the terminal show the command.
      this.#log.rerenderDialogs((d) => d.status === "pending");
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
    this.#log.rerenderDialogs((d) => affected.has(d.tool_id ?? null));
  }

  /** The slash commands the composer offers (the `commands` trait). */
  setCommands(raw: unknown): void {
    if (this.#destroyed) return;
    this.#composer.setCommands(normalizeCommands(raw));
  }

  /** Model, tokens, cost and context of the session (the `session` trait). */
  setSession(raw: unknown): void {
    if (this.#destroyed) return;
    this.#meter.set(raw);
  }

  /** What the user typed, scrolled and expanded, for a view drawn in this one's place. */
  saveUi(): UiState {
    return {
      draft: this.#composer.draft(),
      scroll: this.#log.scrollPosition(),
      expanded: [...this.#ctx.expanded],
    };
  }

  /** Take back what an earlier view of the same run had: what needs no layout now (the
   * draft, what was expanded), the rest with {@link settleUi} once the view is in the page. */
  restoreUi(state: UiState): void {
    if (this.#destroyed) return;
    if (state.expanded.length) {
      for (const key of state.expanded) this.#ctx.expanded.add(key);
      this.#log.render();
    }
    this.#composer.restoreDraft(state.draft);
  }

  /** The part of {@link restoreUi} that needs layout: the scroll position and the focus. */
  settleUi(state: UiState): void {
    if (this.#destroyed) return;
    this.#composer.settleDraft(state.draft);
    this.#log.restoreScroll(state.scroll);
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
    this.#log.destroy();
    this.#unsubscribeTail();
    this.#composer.destroy();
    clearTimeout(this.#copyTimer);
    this.#root.replaceChildren();
    this.#root.classList.remove("lw-chat");
    this.#root.removeAttribute("data-lm-suppress-shortcuts");
    delete this.#root.dataset.state;
  }

  // -- dialogs ---------------------------------------------------------------

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
      for (const form of this.#log.dialogForms(toolId)) {
        form.querySelector<HTMLElement>(".lw-dialog-submit")?.focus();
      }
    }
  }

  #syncDialogForms(): void {
    for (const form of this.#log.dialogForms()) syncDialogForm(form, this.#ctx.dialogs);
  }

  // -- what is on its way ----------------------------------------------------

  /** Send a prompt; one sent while the agent works shows as queued until it is taken. */
  async #send(text: string): Promise<string | null> {
    const messages = this.store.messages;
    const drop =
      this.#info.state === "working" ? this.#tail.queue(text, userPrompts(messages)) : null;
    this.#log.contentAdded();
    const error = await this.#run("send", () => this.#actions.send(text));
    if (error !== null) drop?.();
    return error;
  }

  #updateTail(reset = false): void {
    if (this.#destroyed) return;
    const messages = this.store.messages;
    this.#tail.update(userPrompts(messages), awaitingModel(this.#info.state, messages), reset);
    this.#log.contentAdded();
  }

  // -- actions ---------------------------------------------------------------

  /** Run an action, showing its failure; resolves with that failure's text, or null. */
  async #run(kind: ActionKind, action: () => Promise<void>): Promise<string | null> {
    this.#busy.add(kind);
    this.#composer.update();
    try {
      await action();
      return null;
    } catch (error) {
      const message = errorText(error);
      this.showError(`${FAILURES[kind]}: ${message}`);
      return message;
    } finally {
      this.#busy.delete(kind);
      this.#composer.update();
    }
  }

  // -- the kernel's tools ----------------------------------------------------

  #renderKernelSwitch(): void {
    const { kernelTools, state } = this.#info;
    const restarting = this.#busy.has("restart");
    this.#kernelSwitch.hidden = kernelTools === null || !this.#actions.restart;
    this.#kernelInput.checked = kernelTools === true;
    this.#kernelInput.setAttribute("aria-checked", String(kernelTools === true));
    // A turn in progress would end with the old agent: the switch waits for it.
    this.#kernelInput.disabled = restarting || state === "working" || state === "question";
    this.#kernelSwitch.dataset.restarting = String(restarting);
  }

  async #restart(): Promise<void> {
    const restart = this.#actions.restart;
    const wanted = this.#kernelInput.checked;
    if (!restart) return;
    // Shown as the run has it until the new agent says otherwise (kernel_tools).
    this.#kernelInput.checked = !wanted;
    const running = this.#run("restart", () => restart(wanted));
    this.#renderKernelSwitch();
    await running;
    if (!this.#destroyed) this.#renderKernelSwitch();
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
