import type { AnyModel, InitializeProps, RenderProps } from "@anywidget/types";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ACTION_TIMEOUT_MS } from "../src/kernel/channel";
import type { Snapshot, Traits } from "../src/types";
import widget from "../src/widgets/chat";
import { delta, dialog, dialogOf, text } from "./fixtures";
import { CHAT_TRAITS, FakeModel as Model, flush } from "./harness";

/** The chat widget's model, with a conversation of one message. */
class FakeModel extends Model {
  constructor(traits: Partial<Traits> = {}) {
    super({
      ...CHAT_TRAITS,
      _snapshot: { transcript_id: "t-1", version: 0, messages: [text(0, "user", "hi")] },
      ...traits,
    });
  }

  actions() {
    return this.sentOf("action");
  }

  syncs() {
    return this.sentOf("sync").length;
  }
}

const cleanups: (() => unknown)[] = [];

async function start(model = new FakeModel()) {
  const anyModel = model as unknown as AnyModel<Traits>;
  const init = await widget.initialize({ model: anyModel } as InitializeProps<Traits>);
  if (typeof init === "function") cleanups.push(init as () => unknown);
  return { model, anyModel, init };
}

async function show(anyModel: AnyModel<Traits>) {
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = await widget.render({ model: anyModel, el } as unknown as RenderProps<Traits>);
  if (typeof cleanup === "function") cleanups.push(cleanup);
  const q = <T extends Element = HTMLElement>(s: string) => el.querySelector<T>(s)!;
  return { el, q, cleanup };
}

function sendText(q: (s: string) => HTMLElement, value: string) {
  const input = q(".lw-input") as HTMLTextAreaElement;
  input.value = value;
  input.dispatchEvent(new Event("input"));
  input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", cancelable: true }));
  return input;
}

beforeEach(() => {
  vi.useRealTimers();
});

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  document.body.replaceChildren();
  vi.useRealTimers();
});

describe("anywidget adapter", () => {
  it("asks for a snapshot once and renders the saved one meanwhile", async () => {
    const { model, anyModel } = await start();
    const { q } = await show(anyModel);
    expect(model.syncs()).toBe(1);
    expect(q(".lw-msg[data-seq='0']").textContent).toBe("hi");
    expect(q(".lw-provider").textContent).toBe("Agent X");
  });

  it("applies deltas and keeps _snapshot current without saving it", async () => {
    const { model, anyModel } = await start();
    const { q } = await show(anyModel);
    model.fromKernel({ ...delta(0, [text(1, "assistant", "hello")]) });
    expect(q(".lw-msg[data-seq='1']").textContent).toBe("hello");
    const snap = model.get("_snapshot") as Snapshot;
    expect(snap.version).toBe(1);
    expect(snap.messages.map((m) => m.seq)).toEqual([0, 1]);
    expect(model.saves).toBe(0);
  });

  it("on a version gap asks for one snapshot, then applies it", async () => {
    const { model, anyModel } = await start();
    const { el } = await show(anyModel);
    model.fromKernel({
      kind: "snapshot",
      transcript_id: "t-1",
      version: 0,
      messages: [text(0, "user", "hi")],
    });
    model.fromKernel({ ...delta(4, [text(5, "assistant", "later")]) });
    model.fromKernel({ ...delta(5, [text(6, "assistant", "even later")]) });
    expect(model.syncs()).toBe(2); // the initial one, and one for both gaps
    expect(el.querySelectorAll(".lw-msg")).toHaveLength(1);

    model.fromKernel({
      kind: "snapshot",
      transcript_id: "t-1",
      version: 6,
      messages: [
        text(0, "user", "hi"),
        text(5, "assistant", "later"),
        text(6, "assistant", "even later"),
      ],
    });
    expect(el.querySelectorAll(".lw-msg")).toHaveLength(3);
    model.fromKernel({ ...delta(6, [text(7, "assistant", "next")]) });
    expect(el.querySelectorAll(".lw-msg")).toHaveLength(4);

    model.fromKernel({ ...delta(2, []) }); // a gap again: the snapshot cleared the throttle
    expect(model.syncs()).toBe(3);
  });

  it("while a sync is unanswered, asks again only after a while", async () => {
    vi.useFakeTimers();
    const { model } = await start();
    model.fromKernel({ ...delta(3, []) });
    expect(model.syncs()).toBe(1); // the initial sync's answer will cover it
    await vi.advanceTimersByTimeAsync(5_000);
    model.fromKernel({ ...delta(3, []) });
    expect(model.syncs()).toBe(2);
  });

  it("takes a _snapshot set by the kernel but ignores its own echo", async () => {
    const { model, anyModel } = await start();
    const { el } = await show(anyModel);
    model.fromKernel({ ...delta(0, [text(1, "assistant", "mine")]) });
    expect(el.querySelectorAll(".lw-msg")).toHaveLength(2);
    model.kernelSets("_snapshot", {
      transcript_id: "t-9",
      version: 1,
      messages: [text(0, "user", "new")],
    });
    expect([...el.querySelectorAll(".lw-msg")].map((e) => e.textContent)).toEqual(["new"]);
  });

  it("follows trait changes in the header and composer", async () => {
    const { model, anyModel } = await start();
    const { q } = await show(anyModel);
    model.kernelSets("state", "working");
    expect(q(".lw-state").dataset.state).toBe("working");
    expect(q(".lw-interrupt").hidden).toBe(false);
    model.kernelSets("provider_name", "Another CLI");
    expect(q(".lw-provider").textContent).toBe("Another CLI");
  });

  it("sends an action with an id and settles it with the matching result", async () => {
    const { model, anyModel } = await start();
    const { q } = await show(anyModel);
    const input = sendText(q, "do it");
    const [action] = model.actions();
    expect(action).toMatchObject({ kind: "action", action: "send", text: "do it" });
    expect(typeof action!.id).toBe("string");

    model.fromKernel({ kind: "result", id: "someone-else", ok: true });
    await flush();
    expect(input.value).toBe("do it");

    model.fromKernel({ kind: "result", id: action!.id, ok: true });
    await flush();
    expect(input.value).toBe("");
  });

  it("shows the kernel's error for a failed action", async () => {
    const { model, anyModel } = await start();
    const { q } = await show(anyModel);
    const input = sendText(q, "do it");
    model.fromKernel({
      kind: "result",
      id: model.actions()[0]!.id,
      ok: false,
      error: "agent is busy",
    });
    await flush();
    expect(q(".lw-error").textContent).toContain("agent is busy");
    expect(input.value).toBe("do it");
  });

  it("gives up after the timeout with 'no answer from the kernel'", async () => {
    vi.useFakeTimers();
    const { model, anyModel } = await start();
    const { q } = await show(anyModel);
    model.kernelSets("state", "working");
    q(".lw-interrupt").click();
    expect(model.actions()[0]).toMatchObject({ action: "interrupt" });
    expect(model.actions()[0]).not.toHaveProperty("text");
    await vi.advanceTimersByTimeAsync(ACTION_TIMEOUT_MS - 1);
    expect(q(".lw-error")).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(q(".lw-error").textContent).toContain("no answer from the kernel");
  });

  it("shares one channel between views of the same model", async () => {
    const { model, anyModel } = await start();
    const a = await show(anyModel);
    const b = await show(anyModel);
    const set = vi.spyOn(model, "set");
    model.fromKernel({ ...delta(0, [text(1, "assistant", "both")]) });
    expect(a.q(".lw-msg[data-seq='1']").textContent).toBe("both");
    expect(b.q(".lw-msg[data-seq='1']").textContent).toBe("both");
    expect(set).toHaveBeenCalledTimes(1);
    expect(model.syncs()).toBe(1);
  });

  it("cleans up every listener and the view", async () => {
    const model = new FakeModel();
    const anyModel = model as unknown as AnyModel<Traits>;
    const init = await widget.initialize({ model: anyModel } as InitializeProps<Traits>);
    const { el, cleanup } = await show(anyModel);
    cleanups.pop();
    expect(model.listenerCount()).toBeGreaterThan(0);
    await (cleanup as () => void)();
    expect(el.childElementCount).toBe(0);
    await (init as () => void)();
    expect(model.listenerCount()).toBe(0);
  });

  it("asks the kernel for its variables when an @ starts a mention", async () => {
    const { model, anyModel } = await start();
    const { q, el } = await show(anyModel);
    const input = q(".lw-input") as HTMLTextAreaElement;
    input.focus();
    input.value = "plot @";
    input.setSelectionRange(6, 6);
    input.dispatchEvent(new Event("input"));
    const [action] = model.actions();
    expect(action).toEqual({ kind: "action", id: action!.id, action: "variables" });
    model.fromKernel({
      kind: "result",
      id: action!.id,
      ok: true,
      value: [{ name: "df", type: "DataFrame", size: "3 × 2", secret: false }],
    });
    await flush();
    expect(el.querySelector(".lw-mentions .lw-complete-item")?.getAttribute("data-name")).toBe(
      "df",
    );
    // No notebook behind this model: code blocks offer Copy alone.
    expect(q(".lw-hint").textContent).toContain("@ for variables");
  });

  it("answers the pending dialog with an answer action for its tool_id", async () => {
    const model = new FakeModel({
      state: "question",
      pending_dialog: dialogOf(),
      _snapshot: { transcript_id: "t-1", version: 0, messages: [dialog(0)] },
    });
    const { anyModel } = await start(model);
    const { q, el } = await show(anyModel);
    const pick = (label: string) => q<HTMLInputElement>(`input[value="${label}"]`).click();
    pick("SQLite");
    pick("Auth");
    pick("Export");
    q(".lw-dialog-submit").click();
    const [action] = model.actions();
    expect(action).toEqual({
      kind: "action",
      id: action!.id,
      action: "answer",
      tool_id: "toolu_ask",
      answers: [{ selected: ["SQLite"] }, { selected: ["Auth", "Export"] }],
    });
    expect(typeof action!.id).toBe("string");
    expect(action).not.toHaveProperty("text");

    model.fromKernel({ kind: "result", id: action!.id, ok: true });
    model.kernelSets("pending_dialog", null);
    model.fromKernel({
      ...delta(0, [dialog(0, { status: "answered", outcome: "Database → SQLite" })]),
    });
    expect(el.querySelector(".lw-dialog-form")).toBeNull();
    expect(q(".lw-dialog").dataset.status).toBe("answered");
    expect(q(".lw-dialog-outcome").textContent).toBe("answered: Database → SQLite");
  });

  it("shows a failed answer in the card and keeps the form usable", async () => {
    const model = new FakeModel({
      state: "question",
      pending_dialog: dialogOf(),
      _snapshot: { transcript_id: "t-1", version: 0, messages: [dialog(0)] },
    });
    const { anyModel } = await start(model);
    const { q } = await show(anyModel);
    q<HTMLInputElement>('input[value="Postgres"]').click();
    q<HTMLInputElement>('input[value="Search"]').click();
    q(".lw-dialog-submit").click();
    model.fromKernel({
      kind: "result",
      id: model.actions()[0]!.id,
      ok: false,
      error: "the dialog is no longer pending",
    });
    await flush();
    expect(q(".lw-dialog-error").textContent).toContain("the dialog is no longer pending");
    expect(q(".lw-error").textContent).toContain("the dialog is no longer pending");
    expect(q<HTMLButtonElement>(".lw-dialog-submit").disabled).toBe(false);
    expect(q<HTMLInputElement>('input[value="Postgres"]').checked).toBe(true);
  });

  it("follows the pending_dialog and commands traits", async () => {
    const model = new FakeModel({
      _snapshot: { transcript_id: "t-1", version: 0, messages: [dialog(0)] },
    });
    const { anyModel } = await start(model);
    const { q, el } = await show(anyModel);
    expect(el.querySelector(".lw-dialog-form")).toBeNull();
    model.kernelSets("pending_dialog", dialogOf());
    expect(el.querySelector(".lw-dialog-form")).not.toBeNull();

    model.kernelSets("commands", [
      {
        name: "/compact",
        description: "Compact",
        arg_hint: "",
        source: "builtin",
        chat_safe: true,
      },
      { name: "/login", description: "", arg_hint: "", source: "builtin", chat_safe: false },
    ]);
    const input = q<HTMLTextAreaElement>(".lw-input");
    input.value = "/";
    input.dispatchEvent(new Event("input"));
    expect(
      [...el.querySelectorAll<HTMLElement>(".lw-complete-item")].map((i) => i.dataset.name),
    ).toEqual(["/compact"]);
  });

  it("follows the session trait in the header", async () => {
    const model = new FakeModel();
    const { anyModel } = await start(model);
    const { q } = await show(anyModel);
    expect(q(".lw-session").hidden).toBe(true);
    model.kernelSets("session", {
      model: "m-1",
      usage: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
      cost_usd_estimate: 0.001,
      context_tokens: 10,
      context_window: 100,
    });
    expect(q(".lw-session").hidden).toBe(false);
    expect(q(".lw-session-model").textContent).toBe("m-1");
    expect(q(".lw-context").getAttribute("aria-valuenow")).toBe("10");
  });

  it("works for hosts that render without initialize", async () => {
    const model = new FakeModel();
    const { q } = await show(model as unknown as AnyModel<Traits>);
    expect(model.syncs()).toBe(1);
    model.fromKernel({ ...delta(0, [text(1, "assistant", "ok")]) });
    expect(q(".lw-msg[data-seq='1']").textContent).toBe("ok");
    while (cleanups.length) await cleanups.pop()!();
    expect(model.listenerCount()).toBe(0);
  });
});

describe("cells the agent inserts", () => {
  it("go below the chat once, however many views show it", async () => {
    // A notebook of one cell that shows the chat (what the widget manager exposes).
    const notebook = {
      cells: [] as { id: string; cell_type: string; source: string; getOutputs(): unknown[] }[],
      insertCell(index: number, cell: { cell_type: string; source: string }) {
        const made = { id: `c${index}`, ...cell, getOutputs: () => [] };
        this.cells.splice(index, 0, made);
        return made;
      },
    };
    const model = new FakeModel();
    const anyModel = model as unknown as AnyModel<Traits>;
    (anyModel as unknown as { widget_manager: unknown }).widget_manager = {
      context: { model: { sharedModel: notebook } },
      get_model: () => Promise.resolve(anyModel),
    };
    notebook.cells.push({
      id: "chat",
      cell_type: "code",
      source: "run",
      getOutputs: () => [
        { data: { "application/vnd.jupyter.widget-view+json": { model_id: "m" } } },
      ],
    });
    await start(model);
    const cell = document.createElement("div");
    cell.className = "jp-Cell";
    cell.dataset.windowedListIndex = "0";
    document.body.append(cell);
    for (let i = 0; i < 2; i++) {
      const { el } = await show(anyModel);
      cell.append(el);
    }
    model.fromKernel({ kind: "insert_cell", id: "i1", code: "df.describe()" });
    await flush();
    await flush();
    expect(notebook.cells.map((c) => c.source)).toEqual(["run", "df.describe()"]);
    expect(notebook.cells[1]!.cell_type).toBe("code");
  });

  it("are not inserted where no notebook shows the chat", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { model, anyModel } = await start();
    await show(anyModel);
    model.fromKernel({ kind: "insert_cell", id: "i1", code: "x = 1" });
    expect(warn).toHaveBeenCalledWith("lab_widget: no notebook to insert the agent's cell into");
    warn.mockRestore();
  });
});

describe("a new view of the same model", () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(null)));

  /** What anywidget hands a view: its own handle on the model, never the same object. */
  const handle = (model: FakeModel) =>
    ({
      get: (k: string) => model.get(k),
      set: (k: string, v: unknown) => model.set(k, v),
      on: (e: string, f: () => void) => model.on(e, f),
      off: (e: string, f: () => void) => model.off(e, f),
      send: (m: Record<string, unknown>) => model.send(m),
    }) as unknown as AnyModel<Traits>;

  it("gets back the draft and caret of the view it replaces, before or after it goes", async () => {
    const { model } = await start(new FakeModel({ _view_key: "k1" }));
    const show2 = () => show(handle(model));
    const first = await show2();
    const input = first.q(".lw-input") as HTMLTextAreaElement;
    input.value = "half a thought";
    input.dispatchEvent(new Event("input"));
    input.focus();
    input.setSelectionRange(5, 6);
    // JupyterLab draws the new view first, then drops the old one.
    const second = await show2();
    // Before its first frame the draft is there already: an Enter now sends it.
    expect((second.q(".lw-input") as HTMLTextAreaElement).value).toBe("half a thought");
    await first.cleanup!();
    await frame();
    const again = second.q(".lw-input") as HTMLTextAreaElement;
    expect(again.value).toBe("half a thought");
    expect([again.selectionStart, again.selectionEnd]).toEqual([5, 6]);
    expect(document.activeElement).toBe(again);
    // The other order: the old view is gone before the new one is drawn.
    await second.cleanup!();
    const third = await show2();
    await frame();
    expect((third.q(".lw-input") as HTMLTextAreaElement).value).toBe("half a thought");
    // Another run's view starts empty.
    const other = await show(handle(new FakeModel({ _view_key: "k2" })));
    await frame();
    expect((other.q(".lw-input") as HTMLTextAreaElement).value).toBe("");
  });

  it("sends what was typed in the view it replaces when Enter reaches the new one first", async () => {
    const { model } = await start(new FakeModel({ _view_key: "k3", state: "idle" }));
    const first = await show(handle(model));
    const input = first.q(".lw-input") as HTMLTextAreaElement;
    input.value = "ask me";
    input.dispatchEvent(new Event("input"));
    // The run settled, its display is replaced: the Enter lands in the new view's input.
    const second = await show(handle(model));
    await first.cleanup!();
    const box = second.q(".lw-input");
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", cancelable: true }));
    expect(model.actions()).toEqual([expect.objectContaining({ action: "send", text: "ask me" })]);
  });
});
