// The runs dashboard's table: one row per live run with open / stop buttons.
// Knows nothing about Jupyter; widgets/runs.ts adapts it to the RunsTable model.
import { h, syncChildren } from "../shared/dom";
import { str } from "../shared/guards";
import { compactCount, decimal, dollars } from "../chat/meter";
import { stateLabel } from "../chat/format";

export interface RunRow {
  id: string;
  /** "run", or "spare": an agent started ahead, waiting for a run to adopt it. */
  kind: "run" | "spare";
  provider: string;
  folder: string;
  path: string;
  state: string;
  lastActivity: string;
  tokens: number;
  /** An exact decimal (USD), as the kernel sends it. */
  cost: string | null;
  /** Resident bytes of the agent's processes; null when not known here. */
  memory: number | null;
  /** Who started the run (Run.started_by); "" when not known. */
  startedBy: string;
  /** When the agent started (ISO 8601); "" when not known. */
  startedAt: string;
}

export interface RunsActions {
  open(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  close(): Promise<void>;
  /** Open the run with its terminal pane showing (the agent's real TUI). */
  terminal?(id: string): Promise<void>;
}

export function normalizeRows(raw: unknown): RunRow[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((r): r is Record<string, unknown> => r !== null && typeof r === "object")
    .map((r) => ({
      id: str(r.id),
      kind: r.kind === "spare" ? ("spare" as const) : ("run" as const),
      provider: str(r.provider),
      folder: str(r.folder),
      path: str(r.path),
      state: str(r.state) || "idle",
      lastActivity: str(r.last_activity),
      tokens: typeof r.tokens === "number" ? r.tokens : 0,
      cost: decimal(r.cost_usd_estimate),
      memory: typeof r.memory_bytes === "number" ? r.memory_bytes : null,
      startedBy: str(r.started_by),
      startedAt: str(r.started_at),
    }))
    .filter((r) => r.id !== "");
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", else the date. */
export function ago(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** "412 MB", "1.3 GB"; "—" when unknown. */
export function megabytes(bytes: number | null): string {
  if (bytes === null) return "—";
  const mb = bytes / 2 ** 20;
  return mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${Math.round(mb)} MB`;
}

/** Who holds a run, as the table says it (from Run.started_by), and why it matters. */
export function holder(startedBy: string): { label: string; title: string } {
  switch (startedBy) {
    case "this process":
      return { label: "this kernel", title: "Started by this kernel" };
    case "another process":
      return { label: "another kernel", title: "Started by another kernel, still running" };
    case "an ended process":
      return {
        label: "none",
        title: "The kernel that started it has ended: it runs on, held by no kernel",
      };
    default:
      return { label: "—", title: "" };
  }
}

/** What the Stop button says while it waits for the second click, and for how long. */
export const STOP_CONFIRM = "Stop? Click again";
export const STOP_CONFIRM_MS = 4000;

export class RunsTableView {
  readonly #root: HTMLElement;
  readonly #actions: RunsActions;
  readonly #body = h("tbody");
  readonly #empty = h("p", { class: "lw-runs-empty" }, "No live runs.");
  readonly #error = h("div", { class: "lw-runs-error", role: "alert", hidden: true });
  readonly #rows = new Map<string, HTMLTableRowElement>();
  #data: RunRow[] = [];
  #opened = "";
  readonly #timer: ReturnType<typeof setInterval> | undefined;

  constructor(root: HTMLElement, actions: RunsActions) {
    this.#root = root;
    this.#actions = actions;
    root.classList.add("lw-runs");
    root.replaceChildren(
      this.#error,
      h(
        "table",
        { class: "lw-runs-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...[
              "Run",
              "Agent",
              "Folder",
              "State",
              "Started",
              "Last activity",
              "Tokens",
              "Cost (est.)",
              "Memory",
              "Held by",
              "",
            ].map((label) => h("th", { scope: "col" }, label)),
          ),
        ),
        this.#body,
      ),
      this.#empty,
    );
    // "5 s ago" must age even when nothing happens.
    this.#timer =
      typeof setInterval === "function" ? setInterval(() => this.#tick(), 10_000) : undefined;
  }

  setRows(raw: unknown): void {
    this.#data = normalizeRows(raw);
    const desired = this.#data.map((row) => this.#render(row));
    for (const id of [...this.#rows.keys()]) {
      if (!this.#data.some((r) => r.id === id)) this.#rows.delete(id);
    }
    syncChildren(this.#body, desired);
    this.#empty.hidden = this.#data.length > 0;
  }

  setOpened(id: string): void {
    this.#opened = id;
    for (const [rowId, tr] of this.#rows) {
      tr.dataset.opened = String(rowId === id);
      const open = tr.querySelector<HTMLButtonElement>(".lw-runs-open")!;
      open.textContent = rowId === id ? "Close" : "Open";
    }
  }

  destroy(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#root.replaceChildren();
  }

  #render(row: RunRow): HTMLTableRowElement {
    let tr = this.#rows.get(row.id);
    if (!tr) {
      const open = h("button", { type: "button", class: "lw-runs-open" }, "Open");
      const stop = h("button", { type: "button", class: "lw-runs-stop" }, "Stop");
      open.addEventListener("click", () =>
        this.#act(() =>
          this.#opened === row.id ? this.#actions.close() : this.#actions.open(row.id),
        ),
      );
      // Stopping ends the agent and its TUI: the first click asks, a second one stops.
      let asking: ReturnType<typeof setTimeout> | undefined;
      const calm = () => {
        clearTimeout(asking);
        delete stop.dataset.confirm;
        stop.textContent = "Stop";
        stop.title = "";
      };
      stop.addEventListener("click", () => {
        if (stop.dataset.confirm !== "true") {
          stop.dataset.confirm = "true";
          stop.textContent = STOP_CONFIRM;
          stop.title = "This ends the agent and its terminal; click again to stop it";
          asking = setTimeout(calm, STOP_CONFIRM_MS);
          return;
        }
        calm();
        this.#act(() => this.#actions.stop(row.id));
      });
      const terminal = this.#terminalButton(row.id);
      tr = h(
        "tr",
        { "data-run": row.id },
        h("td", { class: "lw-runs-id" }),
        h("td", { class: "lw-runs-provider" }),
        h("td", { class: "lw-runs-folder" }),
        h("td", {}, h("span", { class: "lw-state" })),
        h("td", { class: "lw-runs-started" }),
        h("td", { class: "lw-runs-activity" }),
        h("td", { class: "lw-runs-tokens" }),
        h("td", { class: "lw-runs-cost" }),
        h("td", { class: "lw-runs-memory" }),
        h("td", { class: "lw-runs-holder" }),
        h("td", { class: "lw-runs-buttons" }, open, terminal, stop),
      );
      this.#rows.set(row.id, tr);
    }
    const cell = (cls: string) => tr.querySelector<HTMLElement>(`.${cls}`)!;
    cell("lw-runs-id").textContent = row.id;
    cell("lw-runs-provider").textContent = row.provider;
    cell("lw-runs-folder").textContent = row.folder;
    cell("lw-runs-folder").title = row.path;
    const badge = cell("lw-state");
    badge.textContent = stateLabel(row.state);
    badge.dataset.state = row.state;
    for (const [cls, at] of [
      ["lw-runs-started", row.startedAt],
      ["lw-runs-activity", row.lastActivity],
    ] as const) {
      const when = cell(cls);
      when.dataset.at = at;
      when.textContent = ago(at);
      when.title = at;
    }
    cell("lw-runs-tokens").textContent = compactCount(row.tokens);
    cell("lw-runs-cost").textContent = row.cost === null ? "—" : dollars(row.cost);
    cell("lw-runs-cost").title = row.cost === null ? "" : `${row.cost} USD (estimate)`;
    cell("lw-runs-memory").textContent = megabytes(row.memory);
    const held = holder(row.startedBy);
    cell("lw-runs-holder").textContent = held.label;
    cell("lw-runs-holder").title = held.title;
    tr.dataset.unheld = String(row.startedBy === "an ended process");
    // A spare has no chat and no conversation yet: only stopping it means anything.
    tr.dataset.kind = row.kind;
    const spare = row.kind === "spare";
    for (const button of tr.querySelectorAll<HTMLElement>(".lw-runs-open, .lw-runs-terminal")) {
      button.hidden = spare;
    }
    if (spare) {
      badge.title = "Started ahead: the next matching Run takes it over without starting up";
    } else {
      badge.removeAttribute("title");
    }
    tr.querySelector<HTMLButtonElement>(".lw-runs-stop")!.disabled = row.state === "ended";
    tr.dataset.opened = String(row.id === this.#opened);
    return tr;
  }

  #terminalButton(id: string): HTMLButtonElement | null {
    const open = this.#actions.terminal;
    if (!open) return null;
    const button = h(
      "button",
      { type: "button", class: "lw-runs-terminal", title: "Open this run with its terminal" },
      "Terminal",
    );
    button.addEventListener("click", () => this.#act(() => open.call(this.#actions, id)));
    return button;
  }

  #tick(): void {
    for (const el of this.#body.querySelectorAll<HTMLElement>(
      ".lw-runs-started, .lw-runs-activity",
    )) {
      el.textContent = ago(el.dataset.at ?? "");
    }
  }

  async #act(action: () => Promise<void>): Promise<void> {
    this.#error.hidden = true;
    try {
      await action();
    } catch (error) {
      // Errors from the kernel are shown, never swallowed.
      this.#error.textContent = error instanceof Error ? error.message : String(error);
      this.#error.hidden = false;
    }
  }
}
