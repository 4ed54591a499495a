// How a chat shown in a notebook inserts a cell below itself, without a server extension.
//
// An anywidget view gets its model and element, nothing of the application (JupyterLab
// exposes `window.jupyterapp` only in dev mode). But the model's widget manager is, in
// JupyterLab 4 and Notebook 7 alike, the notebook's own (@jupyter-widgets/jupyterlab-manager),
// and it holds the document context: `widget_manager.context.model.sharedModel` is the
// notebook's shared model, whose `insertCell` is what the notebook's own "insert below"
// does to the document. Every step is checked; where one is missing (another front end,
// a dashboard) there is no host and the chat offers Copy alone.
import type { CellSource, CodeHost } from "../chat/codeblocks";
import { isObj, type Obj } from "../shared/guards";

const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";

/** The part of a shared notebook (@jupyter/ydoc's YNotebook) this uses. */
export interface SharedNotebook {
  readonly cells: readonly SharedCell[];
  insertCell(index: number, cell: { cell_type: string; source: string; metadata?: Obj }): unknown;
}

export interface SharedCell {
  readonly id: string;
  readonly cell_type: string;
  getOutputs?(): unknown[];
}

/** The part of a widget model this uses (anywidget's model, or any Backbone one). */
export interface HostModel {
  get(key: string): unknown;
  widget_manager?: unknown;
}

/** The notebook's shared model behind a widget manager, or null where there is none. */
export function sharedNotebook(widgetManager: unknown): SharedNotebook | null {
  try {
    const context = isObj(widgetManager) ? widgetManager.context : undefined;
    const model = isObj(context) ? context.model : undefined;
    const shared = isObj(model) ? model.sharedModel : undefined;
    if (!isObj(shared) || typeof shared.insertCell !== "function") return null;
    if (!Array.isArray(shared.cells)) return null;
    return shared as unknown as SharedNotebook;
  } catch {
    return null; // a disposed context throws on access
  }
}

/** The widget models a cell's outputs show. */
function widgetIds(cell: SharedCell): string[] {
  let outputs: unknown[] = [];
  try {
    outputs = cell.getOutputs?.() ?? [];
  } catch {
    return [];
  }
  return outputs.flatMap((o) => {
    const data = isObj(o) && isObj(o.data) ? o.data : {};
    const view = data[WIDGET_VIEW];
    return isObj(view) && typeof view.model_id === "string" ? [view.model_id] : [];
  });
}

/** Whether widget `id` is the model behind `ours` (two handles of one model share values). */
async function isOurs(manager: unknown, id: string, ours: HostModel): Promise<boolean> {
  const getModel = isObj(manager) ? manager.get_model : undefined;
  if (typeof getModel !== "function") return false;
  try {
    const model: unknown = await (getModel as (id: string) => Promise<unknown>).call(manager, id);
    const get = isObj(model) ? model.get : undefined;
    // The conversation trait is one object per model: the same object means the same model.
    return typeof get === "function" && get.call(model, "_snapshot") === ours.get("_snapshot");
  } catch {
    return false; // a model that is gone
  }
}

/** The index of the cell that shows the chat `anchor` is in, or -1. */
async function anchorIndex(
  notebook: SharedNotebook,
  manager: unknown,
  model: HostModel,
  anchor: HTMLElement,
): Promise<number> {
  const cells = notebook.cells;
  // The notebook numbers the cells it renders; the output is in the one it numbered.
  const rendered = anchor.closest<HTMLElement>(".jp-Cell")?.dataset.windowedListIndex;
  const index = rendered === undefined ? NaN : Number(rendered);
  if (Number.isInteger(index) && cells[index] && widgetIds(cells[index]!).length > 0) return index;
  // Shown elsewhere (a cell's output opened in a view of its own): find its cell.
  for (let i = 0; i < cells.length; i++) {
    for (const id of widgetIds(cells[i]!)) if (await isOurs(manager, id, model)) return i;
  }
  return -1;
}

/**
 * A code host that inserts cells below the chat in the notebook showing `model`, or
 * null when the front end offers no notebook. Blocks inserted one after another keep
 * their order: each goes below the ones inserted before it.
 */
export function notebookHost(model: HostModel): CodeHost | null {
  const manager = model.widget_manager;
  if (sharedNotebook(manager) === null) return null;
  const inserted = new Set<string>();
  return {
    async insertCell(cell: CellSource, anchor: HTMLElement): Promise<void> {
      const notebook = sharedNotebook(manager);
      if (notebook === null) throw new Error("the notebook is closed");
      const at = await anchorIndex(notebook, manager, model, anchor);
      if (at === -1) throw new Error("the chat is not in a cell of this notebook");
      let index = at + 1;
      while (notebook.cells[index] && inserted.has(notebook.cells[index]!.id)) index++;
      const made = notebook.insertCell(index, { ...cell, metadata: {} });
      const id = isObj(made) && typeof made.id === "string" ? made.id : notebook.cells[index]?.id;
      if (id) inserted.add(id);
      reveal(anchor, index);
    },
  };
}

/** Scroll the new cell into view once the notebook has rendered it. */
function reveal(anchor: HTMLElement, index: number): void {
  const notebook = anchor.closest(".jp-Notebook");
  if (!notebook) return;
  setTimeout(() => {
    const cell = notebook.querySelector(`.jp-Cell[data-windowed-list-index="${index}"]`);
    cell?.scrollIntoView?.({ block: "nearest" });
  }, 50);
}

/**
 * What saves the notebook showing `model` (the document context's own save, which also
 * stores the widget state where that is turned on), or null where there is none. The chat
 * keeps JupyterLab's shortcuts away from its keys, so Ctrl+S in it calls this instead.
 */
export function notebookSaver(model: HostModel): (() => Promise<void>) | null {
  const manager = model.widget_manager;
  try {
    const context = isObj(manager) ? manager.context : undefined;
    const save = isObj(context) ? context.save : undefined;
    if (typeof save !== "function") return null;
    return async () => {
      await (save as () => Promise<void>).call(context);
    };
  } catch {
    return null; // a disposed context throws on access
  }
}
