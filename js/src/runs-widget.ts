// The anywidget entry point of the runs dashboard's table (RunsTable).
import "./runs.css";
import type { AnyModel, Render } from "@anywidget/types";
import { RunsTableView } from "./runs";

interface RunsTraits {
  rows: unknown[];
  opened: string;
}

export const ACTION_TIMEOUT_MS = 30_000;

let counter = 0;

/** Send an action; settle with the kernel's result or fail after the timeout. */
function requester(model: AnyModel<RunsTraits>) {
  const pending = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  const onMessage = (msg: unknown) => {
    if (msg === null || typeof msg !== "object") return;
    const m = msg as Record<string, unknown>;
    if (m.kind !== "result" || typeof m.id !== "string") return;
    const waiter = pending.get(m.id);
    if (!waiter) return;
    pending.delete(m.id);
    if (m.ok === true) waiter.resolve();
    else waiter.reject(new Error(typeof m.error === "string" ? m.error : "the action failed"));
  };
  model.on("msg:custom", onMessage);
  const request = (action: string, runId = ""): Promise<void> =>
    new Promise((resolve, reject) => {
      const id = `runs-${Date.now().toString(36)}-${(counter++).toString(36)}`;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("no answer from the kernel"));
      }, ACTION_TIMEOUT_MS);
      pending.set(id, {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      model.send({ kind: "action", id, action, run_id: runId });
    });
  const dispose = () => {
    model.off("msg:custom", onMessage);
    for (const waiter of pending.values()) waiter.reject(new Error("the widget was closed"));
    pending.clear();
  };
  return { request, dispose };
}

const render: Render<RunsTraits> = ({ model, el }) => {
  const { request, dispose } = requester(model);
  const view = new RunsTableView(el, {
    open: (id) => request("open", id),
    stop: (id) => request("stop", id),
    close: () => request("close"),
  });
  const onRows = () => view.setRows(model.get("rows"));
  const onOpened = () => view.setOpened(model.get("opened"));
  onRows();
  onOpened();
  model.on("change:rows", onRows);
  model.on("change:opened", onOpened);
  return () => {
    model.off("change:rows", onRows);
    model.off("change:opened", onOpened);
    dispose();
    view.destroy();
  };
};

export default { render };
