// The terminal pane inside the anywidget adapter: traits in, `term` messages out, with the
// real xterm.js (in jsdom it draws nothing, but it parses and answers like in a browser).
import type { AnyModel, RenderProps } from "@anywidget/types";
import { afterEach, describe, expect, it } from "vitest";
import type { Traits } from "../src/types";
import widget from "../src/widgets/chat";
import { CHAT_TRAITS, FakeModel as Model, flush } from "./harness";

// What jsdom lacks and xterm.js asks for when it opens (a browser has it).
window.matchMedia ??= ((query: string) => ({
  matches: false,
  media: query,
  onchange: null,
  addEventListener() {},
  removeEventListener() {},
  addListener() {},
  removeListener() {},
  dispatchEvent: () => false,
})) as typeof window.matchMedia;

/** The chat widget's model, for a run with a terminal. */
class FakeModel extends Model {
  constructor(traits: Record<string, unknown> = {}) {
    super({
      ...CHAT_TRAITS,
      has_terminal: true,
      terminal_reveal: "",
      _terminal_screen: {},
      _snapshot: { transcript_id: "t-1", version: 0, messages: [] },
      ...traits,
    });
  }
  terms() {
    return this.sentOf("term");
  }
}

const cleanups: (() => unknown)[] = [];

async function show(model: FakeModel) {
  const el = document.createElement("div");
  document.body.append(el);
  const props = { model: model as unknown as AnyModel<Traits>, el };
  const cleanup = await widget.render(props as unknown as RenderProps<Traits>);
  if (typeof cleanup === "function") cleanups.push(cleanup);
  await flush();
  const q = <T extends Element = HTMLElement>(s: string) => el.querySelector<T>(s)!;
  return { el, q };
}

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  document.body.replaceChildren();
});

describe("the terminal pane in the chat widget", () => {
  it("stays closed and silent while the run does not need it", async () => {
    const model = new FakeModel({ state: "working" });
    const { q } = await show(model);
    expect(q(".lw-term").dataset.open).toBe("false");
    expect(model.terms()).toEqual([]);
  });

  it("opens by itself for a screen only the terminal answers, and the reason says so", async () => {
    const model = new FakeModel();
    const { q } = await show(model);
    model.set("state_reason", "Agent X asks whether you trust this folder.");
    model.set("state", "needs_input");
    await flush();
    expect(q(".lw-term").dataset.open).toBe("true");
    expect(q(".lw-reason").textContent).toBe(
      "Agent X asks whether you trust this folder — answer it in the terminal below.",
    );
    const [open] = model.terms();
    expect(open).toMatchObject({ kind: "term", op: "open" });
    expect(q(".lw-term-screen .xterm")).not.toBeNull();
  });

  it("opens when the dashboard asks (terminal_reveal), once per request", async () => {
    const model = new FakeModel();
    const { q } = await show(model);
    model.set("terminal_reveal", "abc");
    expect(q(".lw-term").dataset.open).toBe("true");
    q<HTMLButtonElement>(".lw-term-toggle").click();
    expect(q(".lw-term").dataset.open).toBe("false");
    // The kernel attached on "open": closed before the first screen, the pane still says so.
    expect(model.terms().map((m) => m.op)).toEqual(["open", "close"]);
  });

  it("stays open in a new view of the model, unless closed in the old one meanwhile", async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)));
    const model = new FakeModel({ _view_key: "term-k" });
    const first = await show(model);
    first.q<HTMLButtonElement>(".lw-term-toggle").click();
    // JupyterLab draws the new view first (the settled run's display brought up to date),
    // then drops the old one.
    const second = await show(model);
    await frame();
    expect(second.q(".lw-term").dataset.open).toBe("true");
    // The user closes the pane they see, in the old view, before the new one's first frame.
    const third = await show(model);
    second.q<HTMLButtonElement>(".lw-term-toggle").click();
    first.q<HTMLButtonElement>(".lw-term-toggle").click();
    await frame();
    expect(third.q(".lw-term").dataset.open).toBe("false");
    // Every viewer that said "open" said "close": nothing keeps the agent's pane watched.
    const said = new Map(model.terms().map((m) => [m.viewer, m.op]));
    expect([...said.values()]).toEqual(["close", "close"]);
  });

  it("draws the kernel's screen in xterm.js and keeps it for a saved notebook", async () => {
    const model = new FakeModel();
    const { q } = await show(model);
    q<HTMLButtonElement>(".lw-term-toggle").click();
    const viewer = model.terms()[0]!.viewer;
    const data = new TextEncoder().encode("\u001b[32mhello from the TUI\u001b[0m");
    model.emit(
      "msg:custom",
      { kind: "term", op: "screen", viewer, cols: 60, rows: 8, live: true },
      [new DataView(data.buffer)],
    );
    model.emit("msg:custom", { kind: "term", op: "ended", reason: "done" }, []);
    await new Promise((resolve) => setTimeout(resolve, 50)); // xterm.js parses in batches
    const saved = model.get("_terminal_screen") as { data: string; ended: boolean };
    expect(saved.ended).toBe(true);
    expect(saved.data).toContain("hello from the TUI");
  });
});
