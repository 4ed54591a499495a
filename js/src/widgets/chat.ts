// The anywidget entry point: wires RunView's traits and custom messages to a
// ChatView. The conversation's protocol lives in kernel/sync.ts, actions in
// kernel/channel.ts, all rendering in chat/view.ts.
import "../styles/chat.css";
import type { AnyModel, Initialize, Render } from "@anywidget/types";
import { ActionChannel } from "../kernel/channel";
import { notebookHost, notebookSaver } from "../kernel/notebook";
import { ConversationSync } from "../kernel/sync";
import { pointAtTerminal, TerminalPane } from "../terminal/pane";
import { createXterm } from "../terminal/xterm";
import type { ChatActionArgs, Traits } from "../types";
import { ChatView, type RunInfo, type UiState } from "../chat/view";
import type { CodeHost } from "../chat/codeblocks";
import { isObj } from "../shared/guards";

const INFO_TRAITS = [
  "provider_name",
  "state",
  "state_reason",
  "attach_command",
  "clear_command",
] as const;

/** What every view of one model shares. */
class ModelLink {
  readonly sync: ConversationSync;
  readonly actions: ActionChannel<ChatActionArgs>;
  #code: CodeHost | null = null;
  /** The views' elements, the newest last: a cell the agent inserts goes below one in the page. */
  readonly anchors: HTMLElement[] = [];
  readonly #model: AnyModel<Traits>;

  constructor(model: AnyModel<Traits>) {
    this.#model = model;
    this.sync = new ConversationSync(model);
    this.actions = new ActionChannel<ChatActionArgs>(model);
    model.on("msg:custom", this.#onMessage);
  }

  /** Where the notebook inserts cells: below the chat, as Insert cell does (null: no
   *  notebook). Asked when a view needs it: one host keeps the order of cells inserted. */
  get code(): CodeHost | null {
    this.#code ??= notebookHost(this.#model);
    return this.#code;
  }

  dispose(): void {
    this.#model.off("msg:custom", this.#onMessage);
    this.actions.dispose();
    this.sync.dispose();
  }

  // Once per model however many views show it: the link, not a view, takes the message.
  readonly #onMessage = (msg: unknown): void => {
    if (!isObj(msg) || msg.kind !== "insert_cell" || typeof msg.code !== "string") return;
    const anchor = [...this.anchors].reverse().find((el) => el.isConnected);
    if (!this.code?.insertCell || !anchor) {
      console.warn("lab_widget: no notebook to insert the agent's cell into");
      return;
    }
    this.code
      .insertCell({ cell_type: "code", source: msg.code }, anchor)
      .catch((error: unknown) => console.warn("lab_widget: inserting the agent's cell", error));
  };
}

// One link per model, shared by every view of it (a run displayed twice): each
// delta is applied, and `_snapshot` updated, once.
const links = new WeakMap<AnyModel<Traits>, ModelLink>();

function readInfo(model: AnyModel<Traits>): RunInfo {
  const text = (key: (typeof INFO_TRAITS)[number]) => {
    const value: unknown = model.get(key);
    return typeof value === "string" ? value : "";
  };
  const state = (text("state") || "idle") as RunInfo["state"];
  return {
    providerName: text("provider_name"),
    state,
    // When the answer is given in the terminal pane, the reason line says so.
    stateReason: pointAtTerminal(text("state_reason"), state, model.get("has_terminal") === true),
    attachCommand: text("attach_command"),
    clearCommand: text("clear_command"),
    kernelTools: typeof model.get("kernel_tools") === "boolean" ? model.get("kernel_tools") : null,
  };
}

const initialize: Initialize<Traits> = ({ model }) => {
  const link = new ModelLink(model);
  links.set(model, link);
  return () => {
    links.delete(model);
    link.dispose();
  };
};

// -- the terminal pane (terminal/pane.ts) -----------------------------------------

/** The `terminal_reveal` value each model's views have acted on. */
const revealed = new WeakMap<AnyModel<Traits>, string>();

function terminalPane(model: AnyModel<Traits>): { pane: TerminalPane; dispose(): void } {
  const pane = new TerminalPane(
    { send: (msg) => model.send({ kind: "term", ...msg }) },
    createXterm,
    {
      available: model.get("has_terminal") === true,
      saved: model.get("_terminal_screen"),
      // Kept for a saved notebook only: the kernel never needs it back.
      save: (screen) => model.set("_terminal_screen", { ...screen }),
    },
  );
  const onMessage = (msg: unknown, buffers?: unknown[]) => pane.receive(msg, buffers);
  const onState = () => pane.setRunState(model.get("state"), model.get("pending_dialog"));
  const onAvailable = () => pane.setAvailable(model.get("has_terminal") === true);
  const onReveal = () => {
    const token = model.get("terminal_reveal");
    if (typeof token !== "string" || token === "" || revealed.get(model) === token) return;
    revealed.set(model, token);
    pane.open();
    pane.el.scrollIntoView?.({ block: "nearest" });
  };
  model.on("msg:custom", onMessage);
  model.on("change:state", onState);
  model.on("change:pending_dialog", onState);
  model.on("change:has_terminal", onAvailable);
  model.on("change:terminal_reveal", onReveal);
  // After the view is in the page: an xterm.js opened detached has no size to fit.
  queueMicrotask(() => {
    onState();
    onReveal();
  });
  return {
    pane,
    dispose() {
      model.off("msg:custom", onMessage);
      model.off("change:state", onState);
      model.off("change:pending_dialog", onState);
      model.off("change:has_terminal", onAvailable);
      model.off("change:terminal_reveal", onReveal);
      pane.destroy();
    },
  };
}

// -- what the user had, across views of one model -----------------------------------

/** A view's UI state with the terminal pane's. */
interface ViewUi extends UiState {
  terminalOpen: boolean;
}

/** Each model's views in the page, and what the last one to go had. JupyterLab draws a
 *  new view of the same model when the output's data is replaced (the static copy brought
 *  up to date): the draft, caret, scroll and open panes carry over. */
const liveViews = new Map<unknown, Set<() => ViewUi>>();
const leftUi = new Map<unknown, ViewUi>();

/** What names the model: `_view_key`, or the handle itself where it is the same for all. */
function uiKey(model: AnyModel<Traits>): unknown {
  const key: unknown = model.get("_view_key");
  return typeof key === "string" && key !== "" ? key : model;
}

/** What the view this one replaces has, read when called: the old view may still be in the
 *  page when the new one is drawn (and the user still at it), or already gone. */
function priorUi(key: unknown): () => ViewUi | undefined {
  const live = [...(liveViews.get(key) ?? [])];
  const last = live[live.length - 1];
  return () => (last && liveViews.get(key)?.has(last) ? last() : leftUi.get(key));
}

const render: Render<Traits> = ({ model, el }) => {
  // Hosts that never call initialize still get a working view.
  const borrowed = links.get(model);
  const link = borrowed ?? new ModelLink(model);
  const { actions } = link;
  const terminal = terminalPane(model);
  const save = notebookSaver(model);
  const view = new ChatView(
    el,
    {
      send: (text) => actions.request("send", { text }),
      interrupt: () => actions.request("interrupt"),
      clear: () => actions.request("clear"),
      answer: (toolId, answers) => actions.request("answer", { tool_id: toolId, answers }),
      // Stops one agent and starts another: longer than an ordinary action may take.
      restart: (kernel) => actions.request("restart", { kernel }, { timeoutMs: 120_000 }),
    },
    {
      store: link.sync.store,
      info: readInfo(model),
      pendingDialog: model.get("pending_dialog"),
      commands: model.get("commands"),
      session: model.get("session"),
      // Asked when an `@` starts a mention; a quick answer or none (no kernel).
      variables: () => actions.ask("variables", {}, { timeoutMs: 10_000 }),
      code: link.code ?? {},
      ...(save ? { save } : {}),
      terminal: terminal.pane.el,
    },
  );
  link.anchors.push(el);
  const key = uiKey(model);
  const priorNow = priorUi(key);
  const prior = priorNow();
  const saveUi = (): ViewUi => ({ ...view.saveUi(), terminalOpen: terminal.pane.isOpen });
  const live = liveViews.get(key) ?? new Set();
  liveViews.set(key, live);
  live.add(saveUi);
  if (prior) {
    // The draft at once: the front end replaces a view while the user may be pressing Enter
    // (a settled run's display is brought up to date), and that Enter must send it.
    view.restoreUi(prior);
    // Once laid out: a scroll position or the focus means nothing before.
    requestAnimationFrame(() => {
      view.settleUi(prior);
      // Asked again: a pane closed in the old view since this one was drawn stays closed.
      const terminalOpen = priorNow()?.terminalOpen ?? prior.terminalOpen;
      if (terminalOpen && !terminal.pane.isOpen) terminal.pane.open();
    });
  }
  const onInfo = () => view.setInfo(readInfo(model));
  const onPendingDialog = () => view.setPendingDialog(model.get("pending_dialog"));
  const onCommands = () => view.setCommands(model.get("commands"));
  const onSession = () => view.setSession(model.get("session"));
  for (const trait of INFO_TRAITS) model.on(`change:${trait}`, onInfo);
  model.on("change:has_terminal", onInfo);
  model.on("change:kernel_tools", onInfo);
  model.on("change:pending_dialog", onPendingDialog);
  model.on("change:commands", onCommands);
  model.on("change:session", onSession);
  return () => {
    leftUi.set(key, saveUi());
    live.delete(saveUi);
    if (live.size === 0) liveViews.delete(key);
    for (const trait of INFO_TRAITS) model.off(`change:${trait}`, onInfo);
    model.off("change:has_terminal", onInfo);
    model.off("change:kernel_tools", onInfo);
    model.off("change:pending_dialog", onPendingDialog);
    model.off("change:commands", onCommands);
    model.off("change:session", onSession);
    link.anchors.splice(link.anchors.indexOf(el), 1);
    terminal.dispose();
    view.destroy();
    if (!borrowed) link.dispose();
  };
};

export default { initialize, render };
