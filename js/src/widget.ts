// The anywidget entry point: wires RunView's traits and custom messages to a
// ChatView. The conversation's protocol lives in sync.ts, actions in channel.ts,
// all rendering in view.ts.
import "./styles.css";
import type { AnyModel, Initialize, Render } from "@anywidget/types";
import { ActionChannel } from "./channel";
import { notebookHost } from "./notebook";
import { ConversationSync } from "./sync";
import type { ChatActionArgs, Traits } from "./types";
import { ChatView, type RunInfo } from "./view";

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

  constructor(model: AnyModel<Traits>) {
    this.sync = new ConversationSync(model);
    this.actions = new ActionChannel<ChatActionArgs>(model);
  }

  dispose(): void {
    this.actions.dispose();
    this.sync.dispose();
  }
}

// One link per model, shared by every view of it (a run displayed twice): each
// delta is applied, and `_snapshot` updated, once.
const links = new WeakMap<AnyModel<Traits>, ModelLink>();

function readInfo(model: AnyModel<Traits>): RunInfo {
  const text = (key: (typeof INFO_TRAITS)[number]) => {
    const value: unknown = model.get(key);
    return typeof value === "string" ? value : "";
  };
  return {
    providerName: text("provider_name"),
    state: (text("state") || "idle") as RunInfo["state"],
    stateReason: text("state_reason"),
    attachCommand: text("attach_command"),
    clearCommand: text("clear_command"),
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

const render: Render<Traits> = ({ model, el }) => {
  // Hosts that never call initialize still get a working view.
  const borrowed = links.get(model);
  const link = borrowed ?? new ModelLink(model);
  const { actions } = link;
  const view = new ChatView(
    el,
    {
      send: (text) => actions.request("send", { text }),
      interrupt: () => actions.request("interrupt"),
      clear: () => actions.request("clear"),
      answer: (toolId, answers) => actions.request("answer", { tool_id: toolId, answers }),
    },
    {
      store: link.sync.store,
      info: readInfo(model),
      pendingDialog: model.get("pending_dialog"),
      commands: model.get("commands"),
      session: model.get("session"),
      // Asked when an `@` starts a mention; a quick answer or none (no kernel).
      variables: () => actions.ask("variables", {}, { timeoutMs: 10_000 }),
      code: notebookHost(model) ?? {},
    },
  );
  const onInfo = () => view.setInfo(readInfo(model));
  const onPendingDialog = () => view.setPendingDialog(model.get("pending_dialog"));
  const onCommands = () => view.setCommands(model.get("commands"));
  const onSession = () => view.setSession(model.get("session"));
  for (const trait of INFO_TRAITS) model.on(`change:${trait}`, onInfo);
  model.on("change:pending_dialog", onPendingDialog);
  model.on("change:commands", onCommands);
  model.on("change:session", onSession);
  return () => {
    for (const trait of INFO_TRAITS) model.off(`change:${trait}`, onInfo);
    model.off("change:pending_dialog", onPendingDialog);
    model.off("change:commands", onCommands);
    model.off("change:session", onSession);
    view.destroy();
    if (!borrowed) link.dispose();
  };
};

export default { initialize, render };
