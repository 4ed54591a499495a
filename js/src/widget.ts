// The anywidget entry point: wires RunView's traits and custom messages to a
// ChatView. All protocol logic lives in channel.ts, all rendering in view.ts.
import "./styles.css";
import type { AnyModel, Initialize, Render } from "@anywidget/types";
import { KernelChannel } from "./channel";
import type { Traits } from "./types";
import { ChatView, type RunInfo } from "./view";

const INFO_TRAITS = [
  "provider_name",
  "state",
  "state_reason",
  "attach_command",
  "clear_command",
] as const;

// One channel per model, shared by every view of it (a run displayed twice):
// each delta is applied, and `_snapshot` updated, once.
const channels = new WeakMap<AnyModel<Traits>, KernelChannel>();

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
  const channel = new KernelChannel(model);
  channels.set(model, channel);
  return () => {
    channels.delete(model);
    channel.dispose();
  };
};

const render: Render<Traits> = ({ model, el }) => {
  // Hosts that never call initialize still get a working view.
  const borrowed = channels.get(model);
  const channel = borrowed ?? new KernelChannel(model);
  const view = new ChatView(
    el,
    {
      send: (text) => channel.request("send", { text }),
      interrupt: () => channel.request("interrupt"),
      clear: () => channel.request("clear"),
      answer: (toolId, answers) => channel.request("answer", { tool_id: toolId, answers }),
    },
    {
      store: channel.store,
      info: readInfo(model),
      pendingDialog: model.get("pending_dialog"),
      commands: model.get("commands"),
      session: model.get("session"),
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
    if (!borrowed) channel.dispose();
  };
};

export default { initialize, render };
