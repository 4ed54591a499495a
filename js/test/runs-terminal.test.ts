import { afterEach, describe, expect, it } from "vitest";
import { RunsTableView } from "../src/runs/table";

const row = { id: "run-a", provider: "Agent X", folder: "repo", path: "/w/repo", state: "idle" };

afterEach(() => document.body.replaceChildren());

describe("the runs table's terminal button", () => {
  it("opens a run with its terminal", async () => {
    const calls: string[] = [];
    const root = document.createElement("div");
    document.body.append(root);
    const view = new RunsTableView(root, {
      open: (id) => (calls.push(`open ${id}`), Promise.resolve()),
      stop: (id) => (calls.push(`stop ${id}`), Promise.resolve()),
      close: () => (calls.push("close"), Promise.resolve()),
      terminal: (id) => (calls.push(`terminal ${id}`), Promise.resolve()),
    });
    view.setRows([row]);
    root.querySelector<HTMLButtonElement>(".lw-runs-terminal")!.click();
    await Promise.resolve();
    expect(calls).toEqual(["terminal run-a"]);
    view.destroy();
  });

  it("is absent where the host offers no terminal", () => {
    const root = document.createElement("div");
    const view = new RunsTableView(root, {
      open: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      close: () => Promise.resolve(),
    });
    view.setRows([row]);
    expect(root.querySelector(".lw-runs-terminal")).toBeNull();
    view.destroy();
  });
});
