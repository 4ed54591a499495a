// The anywidget entry point of the runs dashboard's table (RunsTable): rows in,
// actions out through channel.ts. All rendering lives in runs/table.ts.
import "../styles/runs.css";
import type { AnyModel, Render } from "@anywidget/types";
import { ActionChannel } from "../kernel/channel";
import { RunsTableView } from "../runs/table";
import type { RunsActionArgs } from "../types";

interface RunsTraits {
  rows: unknown[];
  opened: string;
}

const render: Render<RunsTraits> = ({ model, el }) => {
  const actions = new ActionChannel<RunsActionArgs>(model as AnyModel<RunsTraits>);
  const view = new RunsTableView(el, {
    open: (id) => actions.request("open", { run_id: id }),
    stop: (id) => actions.request("stop", { run_id: id }),
    close: () => actions.request("close", { run_id: "" }),
    terminal: (id) => actions.request("open", { run_id: id, pane: "terminal" }),
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
    actions.dispose();
    view.destroy();
  };
};

export default { render };
