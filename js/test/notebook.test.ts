import { describe, expect, it } from "vitest";
import { notebookHost, sharedNotebook, type SharedCell } from "../src/kernel/notebook";

const VIEW = "application/vnd.jupyter.widget-view+json";

/** A shared notebook (the part of @jupyter/ydoc's YNotebook the host uses). */
class FakeNotebook {
  cells: SharedCell[] = [];
  next = 0;

  constructor(kinds: ("chat" | "plain" | string)[]) {
    this.cells = kinds.map((k) => this.#cell("code", "", k === "plain" ? [] : [k]));
  }

  #cell(cell_type: string, source: string, widgets: string[]): SharedCell & { source: string } {
    this.next += 1;
    const outputs = widgets.map((id) => ({ data: { [VIEW]: { model_id: id } } }));
    return { id: `c${this.next}`, cell_type, source, getOutputs: () => outputs };
  }

  insertCell(index: number, cell: { cell_type: string; source: string }) {
    const made = this.#cell(cell.cell_type, cell.source, []);
    this.cells.splice(index, 0, made);
    return made;
  }

  sources(): string[] {
    return this.cells.map((c) => (c as SharedCell & { source: string }).source);
  }
}

function hostFor(notebook: FakeNotebook | null, models: Record<string, object> = {}) {
  const snapshot = {};
  const ours = { get: (key: string) => (key === "_snapshot" ? snapshot : undefined) };
  models.chat = ours;
  const manager = notebook && {
    context: { model: { sharedModel: notebook } },
    get_model: (id: string) =>
      id in models ? Promise.resolve(models[id]) : Promise.reject(new Error("no such model")),
  };
  return notebookHost({ ...ours, widget_manager: manager });
}

/** The chat's element inside the notebook's rendering of cell `index`. */
function anchorIn(index: number | null): HTMLElement {
  const cell = document.createElement("div");
  cell.className = "jp-Cell";
  if (index !== null) cell.dataset.windowedListIndex = String(index);
  const anchor = document.createElement("div");
  cell.append(anchor);
  document.body.append(cell);
  return anchor;
}

describe("sharedNotebook", () => {
  it("finds the notebook's shared model behind the widget manager, or nothing", () => {
    const nb = new FakeNotebook(["chat"]);
    expect(sharedNotebook({ context: { model: { sharedModel: nb } } })).toBe(nb);
    expect(sharedNotebook(undefined)).toBeNull();
    expect(sharedNotebook({})).toBeNull();
    expect(sharedNotebook({ context: { model: { sharedModel: { cells: [] } } } })).toBeNull();
    const throwing = {
      get context(): never {
        throw new Error("disposed");
      },
    };
    expect(sharedNotebook(throwing)).toBeNull();
  });

  it("is no host where there is no notebook (copy only)", () => {
    expect(hostFor(null)).toBeNull();
  });
});

describe("notebookHost", () => {
  it("inserts below the cell that shows the chat, in the order blocks are inserted", async () => {
    const nb = new FakeNotebook(["plain", "chat", "plain"]);
    const host = hostFor(nb)!;
    const anchor = anchorIn(1);
    await host.insertCell!({ cell_type: "code", source: "a = 1" }, anchor);
    await host.insertCell!({ cell_type: "markdown", source: "b" }, anchor);
    expect(nb.sources()).toEqual(["", "", "a = 1", "b", ""]);
    expect(nb.cells.map((c) => c.cell_type)).toEqual(["code", "code", "code", "markdown", "code"]);
  });

  it("finds the chat's cell by its model when the page does not say", async () => {
    const nb = new FakeNotebook(["other", "chat"]);
    const host = hostFor(nb, { other: { get: () => ({}) } })!;
    await host.insertCell!({ cell_type: "code", source: "x" }, anchorIn(null));
    expect(nb.sources()).toEqual(["", "", "x"]);
  });

  it("refuses when the chat is in no cell of the notebook", async () => {
    const nb = new FakeNotebook(["plain"]);
    const host = hostFor(nb)!;
    await expect(host.insertCell!({ cell_type: "code", source: "x" }, anchorIn(0))).rejects.toThrow(
      "the chat is not in a cell of this notebook",
    );
    expect(nb.cells).toHaveLength(1);
  });
});
