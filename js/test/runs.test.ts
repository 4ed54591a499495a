import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ago,
  normalizeRows,
  RunsTableView,
  STOP_CONFIRM,
  STOP_CONFIRM_MS,
  type RunsActions,
} from "../src/runs/table";

const ROW = {
  id: "run-a",
  provider: "Agent X",
  folder: "proj",
  path: "/home/u/proj",
  state: "working",
  last_activity: "2026-01-01T00:00:00+00:00",
  tokens: 12_345,
  cost_usd_estimate: "0.0123",
  memory_bytes: 412 * 2 ** 20,
  started_by: "this process",
  started_at: "2026-01-01T00:00:00+00:00",
  kind: "run",
};

function mount(actions: Partial<RunsActions> = {}) {
  const root = document.createElement("div");
  const calls: string[] = [];
  const view = new RunsTableView(root, {
    open: (id) => (calls.push(`open ${id}`), Promise.resolve()),
    stop: (id) => (calls.push(`stop ${id}`), Promise.resolve()),
    close: () => (calls.push("close"), Promise.resolve()),
    ...actions,
  });
  const q = <T extends HTMLElement = HTMLElement>(sel: string) => root.querySelector<T>(sel)!;
  return { root, view, calls, q };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => vi.useRealTimers());

describe("runs table", () => {
  it("says when there are no runs", () => {
    const { q, view } = mount();
    view.setRows([]);
    expect(q(".lw-runs-empty").hidden).toBe(false);
  });

  it("renders one row per run with state, tokens and cost", () => {
    const { root, q, view } = mount();
    view.setRows([ROW, { ...ROW, id: "run-b", state: "ended", cost_usd_estimate: null }]);
    expect(q(".lw-runs-empty").hidden).toBe(true);
    const rows = [...root.querySelectorAll<HTMLElement>("tbody tr")];
    expect(rows.map((r) => r.dataset.run)).toEqual(["run-a", "run-b"]);
    expect(q(".lw-runs-provider").textContent).toBe("Agent X");
    expect(q(".lw-runs-folder").title).toBe("/home/u/proj");
    expect(q(".lw-state").dataset.state).toBe("working");
    expect(q(".lw-runs-tokens").textContent).toBe("12.3k");
    expect(q(".lw-runs-cost").textContent).toBe("$0.012");
    expect(rows[1]!.querySelector(".lw-runs-cost")!.textContent).toBe("—");
    expect(rows[1]!.querySelector<HTMLButtonElement>(".lw-runs-stop")!.disabled).toBe(true);
  });

  it("shows each agent's memory and which kernel holds it", () => {
    const { root, view } = mount();
    view.setRows([
      ROW,
      { ...ROW, id: "run-b", memory_bytes: 1.5 * 2 ** 30, started_by: "an ended process" },
      { ...ROW, id: "run-c", memory_bytes: null, started_by: null },
    ]);
    const cells = (cls: string) =>
      [...root.querySelectorAll<HTMLElement>(`.${cls}`)].map((c) => c.textContent);
    expect(cells("lw-runs-memory")).toEqual(["412 MB", "1.5 GB", "—"]);
    expect(cells("lw-runs-holder")).toEqual(["this kernel", "none", "—"]);
    const unheld = root.querySelector<HTMLElement>("tr[data-run='run-b']")!;
    expect(unheld.dataset.unheld).toBe("true");
    expect(unheld.querySelector<HTMLElement>(".lw-runs-holder")!.title).toContain("has ended");
    expect(normalizeRows([{ id: "x" }])[0]).toMatchObject({ memory: null, startedBy: "" });
  });

  it("shows when each agent started, and spares with their memory and a Stop only", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.parse("2026-01-01T00:10:00+00:00"));
    const { root, view, calls } = mount({ terminal: () => Promise.resolve() });
    view.setRows([
      ROW,
      {
        ...ROW,
        id: "spare-1",
        kind: "spare",
        state: "spare",
        tokens: 0,
        cost_usd_estimate: null,
        started_at: "2026-01-01T00:09:30+00:00",
      },
    ]);
    const row = (id: string) => root.querySelector<HTMLElement>(`tr[data-run='${id}']`)!;
    expect(row("run-a").querySelector(".lw-runs-started")!.textContent).toBe("10 min ago");
    const spare = row("spare-1");
    expect(spare.dataset.kind).toBe("spare");
    expect(spare.querySelector(".lw-runs-started")!.textContent).toBe("30 s ago");
    expect(spare.querySelector(".lw-runs-memory")!.textContent).toBe("412 MB");
    expect(spare.querySelector<HTMLElement>(".lw-state")!.title).toContain("Started ahead");
    expect(spare.querySelector<HTMLElement>(".lw-runs-open")!.hidden).toBe(true);
    expect(spare.querySelector<HTMLElement>(".lw-runs-terminal")!.hidden).toBe(true);
    expect(row("run-a").querySelector<HTMLElement>(".lw-runs-open")!.hidden).toBe(false);
    const stop = spare.querySelector<HTMLButtonElement>(".lw-runs-stop")!;
    stop.click();
    stop.click();
    expect(calls).toEqual(["stop spare-1"]);
    // The ages move on by themselves.
    vi.advanceTimersByTime(60_000);
    expect(spare.querySelector(".lw-runs-started")!.textContent).toBe("1 min ago");
    expect(normalizeRows([{ id: "x" }])[0]).toMatchObject({ kind: "run", startedAt: "" });
  });

  it("keeps row elements across updates and drops rows of gone runs", () => {
    const { root, view } = mount();
    view.setRows([ROW, { ...ROW, id: "run-b" }]);
    const first = root.querySelector("tr[data-run='run-a']");
    view.setRows([{ ...ROW, state: "idle" }]);
    expect(root.querySelector("tr[data-run='run-a']")).toBe(first);
    expect(root.querySelector("tr[data-run='run-b']")).toBeNull();
    expect(first!.querySelector<HTMLElement>(".lw-state")!.dataset.state).toBe("idle");
  });

  it("open, close and stop send actions", async () => {
    const { calls, q, view } = mount();
    view.setRows([ROW]);
    q(".lw-runs-open").click();
    view.setOpened("run-a");
    expect(q(".lw-runs-open").textContent).toBe("Close");
    q(".lw-runs-open").click();
    q(".lw-runs-stop").click();
    await flush();
    // The first click only asks.
    expect(calls).toEqual(["open run-a", "close"]);
    expect(q(".lw-runs-stop").textContent).toBe(STOP_CONFIRM);
    q(".lw-runs-stop").click();
    await flush();
    expect(calls).toEqual(["open run-a", "close", "stop run-a"]);
    expect(q(".lw-runs-stop").textContent).toBe("Stop");
  });

  it("forgets an unconfirmed stop after a while", async () => {
    vi.useFakeTimers();
    try {
      const { calls, q, view } = mount();
      view.setRows([ROW]);
      q(".lw-runs-stop").click();
      vi.advanceTimersByTime(STOP_CONFIRM_MS + 10);
      expect(q(".lw-runs-stop").textContent).toBe("Stop");
      q(".lw-runs-stop").click();
      expect(calls).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows an action's error instead of swallowing it", async () => {
    const { q, view } = mount({ stop: () => Promise.reject(new Error("tmux is gone")) });
    view.setRows([ROW]);
    q(".lw-runs-stop").click();
    q(".lw-runs-stop").click();
    await flush();
    expect(q(".lw-runs-error").hidden).toBe(false);
    expect(q(".lw-runs-error").textContent).toBe("tmux is gone");
  });

  it("ignores malformed rows", () => {
    expect(normalizeRows("x")).toEqual([]);
    expect(normalizeRows([null, 3, { id: "" }, { id: "ok" }]).map((r) => r.id)).toEqual(["ok"]);
  });

  it("ages activity times", () => {
    const now = Date.parse("2026-01-01T01:00:00Z");
    expect(ago("2026-01-01T00:59:58Z", now)).toBe("just now");
    expect(ago("2026-01-01T00:59:18Z", now)).toBe("42 s ago");
    expect(ago("2026-01-01T00:55:00Z", now)).toBe("5 min ago");
    expect(ago("2025-12-31T22:00:00Z", now)).toBe("3 h ago");
    expect(ago("2025-12-01T00:00:00Z", now)).toBe("2025-12-01");
    expect(ago("nope", now)).toBe("");
  });
});
