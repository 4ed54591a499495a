import type { AnyModel, RenderProps } from "@anywidget/types";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ACTION_TIMEOUT_MS, ActionChannel, ActionError, newActionId } from "../src/kernel/channel";
import runsWidget from "../src/widgets/runs";
import type { ChatActionArgs } from "../src/types";
import { flush } from "./harness";

type Handler = (msg: unknown) => void;

/** The custom-message side of a model: what the kernel got, and a way to answer. */
class FakePort {
  readonly sent: Record<string, unknown>[] = [];
  readonly handlers = new Set<Handler>();
  readonly attrs: Record<string, unknown> = { rows: [], opened: "" };
  readonly traitHandlers = new Map<string, Set<() => void>>();
  failSend = false;

  on(event: string, handler: Handler): void {
    if (event === "msg:custom") this.handlers.add(handler);
    else {
      if (!this.traitHandlers.has(event)) this.traitHandlers.set(event, new Set());
      this.traitHandlers.get(event)!.add(handler as () => void);
    }
  }

  off(event: string, handler: Handler): void {
    if (event === "msg:custom") this.handlers.delete(handler);
    else this.traitHandlers.get(event)?.delete(handler as () => void);
  }

  send(msg: Record<string, unknown>): void {
    if (this.failSend) throw new Error("comm closed");
    this.sent.push(msg);
  }

  get(key: string): unknown {
    return this.attrs[key];
  }

  fromKernel(msg: Record<string, unknown>): void {
    for (const handler of [...this.handlers]) handler(msg);
  }

  actions() {
    return this.sent.filter((m) => m.kind === "action");
  }

  cancels() {
    return this.sent.filter((m) => m.kind === "cancel");
  }
}

/** The outcome of a promise, without waiting for it to settle. */
function track(promise: Promise<void>) {
  const state: { settled: "pending" | "resolved" | "rejected"; error?: unknown } = {
    settled: "pending",
  };
  promise.then(
    () => (state.settled = "resolved"),
    (error: unknown) => {
      state.settled = "rejected";
      state.error = error;
    },
  );
  return state;
}

afterEach(() => {
  vi.useRealTimers();
  vi.resetModules();
  document.body.replaceChildren();
});

describe("action ids", () => {
  it("never repeat, within a page or across pages started in the same millisecond", async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2026-12-01T12:00:00Z"));
    const ids = new Set(Array.from({ length: 5_000 }, () => newActionId()));
    expect(ids.size).toBe(5_000);
    // Another tab: a fresh copy of the module, so its counter starts over at the same
    // time; the random part still tells them apart.
    vi.resetModules();
    const otherTab = await import("../src/kernel/channel");
    vi.resetModules();
    const thirdTab = await import("../src/kernel/channel");
    const a = otherTab.newActionId();
    const b = thirdTab.newActionId();
    expect(a.split("-").slice(0, 2)).toEqual(b.split("-").slice(0, 2));
    expect(a).not.toBe(b);
    expect(ids.has(a) || ids.has(b)).toBe(false);
  });

  it("every request goes out with its own id and only the arguments given", () => {
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port);
    void channel.request("send", { text: "hi" }).catch(() => {});
    void channel.request("interrupt").catch(() => {});
    void channel.request("answer", { tool_id: undefined, answers: [] }).catch(() => {});
    const [send, interrupt, answer] = port.actions();
    expect(send).toEqual({ kind: "action", id: send!.id, action: "send", text: "hi" });
    expect(interrupt).toEqual({ kind: "action", id: interrupt!.id, action: "interrupt" });
    expect(answer).not.toHaveProperty("tool_id");
    expect(new Set([send!.id, interrupt!.id, answer!.id]).size).toBe(3);
    channel.dispose();
  });
});

describe("results", () => {
  it("carry a value back to the one who asked", async () => {
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port);
    const asked = channel.ask("variables");
    const [action] = port.actions();
    port.fromKernel({ kind: "result", id: action!.id, ok: true, value: [{ name: "df" }] });
    await expect(asked).resolves.toEqual([{ name: "df" }]);
    const plain = channel.request("interrupt");
    port.fromKernel({ kind: "result", id: port.actions()[1]!.id, ok: true, value: 3 });
    await expect(plain).resolves.toBeUndefined();
    channel.dispose();
  });

  it("settle only their own request; other tabs' results are ignored", async () => {
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port);
    const first = track(channel.request("clear"));
    const second = track(channel.request("interrupt"));
    const [a, b] = port.actions();
    port.fromKernel({ kind: "result", id: "another-tab", ok: true });
    port.fromKernel({ kind: "result", id: b!.id, ok: true });
    await flush();
    expect([first.settled, second.settled]).toEqual(["pending", "resolved"]);
    port.fromKernel({ kind: "result", id: a!.id, ok: true });
    await flush();
    expect(first.settled).toBe("resolved");
    expect(channel.pending).toBe(0);
    channel.dispose();
  });

  it("carry the kernel's error to the caller", async () => {
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port);
    const failed = channel.request("send", { text: "x" });
    port.fromKernel({ kind: "result", id: port.actions()[0]!.id, ok: false, error: "busy" });
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActionError);
    expect(error).toMatchObject({ message: "busy", reason: "failed", action: "send" });
    const unexplained = channel.request("clear");
    port.fromKernel({ kind: "result", id: port.actions()[1]!.id, ok: false });
    await expect(unexplained).rejects.toThrow("the action failed");
    channel.dispose();
  });
});

describe("timeouts", () => {
  it("fail a request after its timeout and cancel it in the kernel", async () => {
    vi.useFakeTimers();
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port);
    const late = track(channel.request("interrupt"));
    const quick = track(channel.request("clear", {}, { timeoutMs: 1_000 }));
    const [slowMsg, quickMsg] = port.actions();
    await vi.advanceTimersByTimeAsync(999);
    expect(quick.settled).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    expect(quick.settled).toBe("rejected");
    expect(quick.error).toMatchObject({ message: "no answer from the kernel", reason: "timeout" });
    expect(port.cancels()).toEqual([{ kind: "cancel", id: quickMsg!.id }]);
    expect(late.settled).toBe("pending"); // the default timeout is its own
    await vi.advanceTimersByTimeAsync(ACTION_TIMEOUT_MS - 1_000);
    expect(late.settled).toBe("rejected");
    expect(port.cancels().map((m) => m.id)).toEqual([quickMsg!.id, slowMsg!.id]);
    channel.dispose();
  });

  it("ignore a result that arrives after the timeout", async () => {
    vi.useFakeTimers();
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port, { timeoutMs: 50 });
    const gaveUp = track(channel.request("send", { text: "slow" }));
    const id = port.actions()[0]!.id;
    await vi.advanceTimersByTimeAsync(50);
    expect(gaveUp.settled).toBe("rejected");
    const next = track(channel.request("clear"));
    expect(() => port.fromKernel({ kind: "result", id, ok: true })).not.toThrow();
    port.fromKernel({ kind: "result", id, ok: false, error: "late" });
    await vi.advanceTimersByTimeAsync(0);
    expect(gaveUp.error).toMatchObject({ message: "no answer from the kernel" });
    expect(next.settled).toBe("pending"); // a late result settles nothing else
    expect(channel.pending).toBe(1);
    channel.dispose();
  });
});

describe("closing and failing to send", () => {
  it("fails waiting requests when the widget closes, and stops listening", async () => {
    const port = new FakePort();
    const channel = new ActionChannel<ChatActionArgs>(port);
    const waiting = channel.request("clear");
    channel.dispose();
    await expect(waiting).rejects.toMatchObject({
      message: "the widget was closed",
      reason: "closed",
    });
    expect(port.handlers.size).toBe(0);
  });

  it("fails a request whose message cannot be sent", async () => {
    const port = new FakePort();
    port.failSend = true;
    const channel = new ActionChannel<ChatActionArgs>(port);
    await expect(channel.request("clear")).rejects.toMatchObject({
      message: "comm closed",
      reason: "unsent",
    });
    expect(channel.pending).toBe(0);
    channel.dispose();
  });
});

describe("runs table adapter", () => {
  async function show() {
    const port = new FakePort();
    port.attrs.rows = [
      { id: "r1", provider: "Agent X", folder: "w", path: "/w", state: "idle", tokens: 1 },
    ];
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = (await runsWidget.render({
      model: port as unknown as AnyModel<{ rows: unknown[]; opened: string }>,
      el,
    } as unknown as RenderProps<{ rows: unknown[]; opened: string }>)) as () => void;
    const q = <T extends Element = HTMLElement>(s: string) => el.querySelector<T>(s)!;
    return { port, el, q, cleanup };
  }

  it("sends each button's action with an id and shows the kernel's error", async () => {
    const { port, q, cleanup } = await show();
    q(".lw-runs-stop").click();
    q(".lw-runs-stop").click(); // the second click confirms
    const [stop] = port.actions();
    expect(stop).toEqual({ kind: "action", id: stop!.id, action: "stop", run_id: "r1" });
    port.fromKernel({ kind: "result", id: stop!.id, ok: false, error: "no run 'r1'" });
    await flush();
    expect(q(".lw-runs-error").hidden).toBe(false);
    expect(q(".lw-runs-error").textContent).toBe("no run 'r1'");
    cleanup();
    expect(port.handlers.size).toBe(0);
  });

  it("fails an unanswered action after the timeout", async () => {
    vi.useFakeTimers();
    const { port, q, cleanup } = await show();
    q(".lw-runs-open").click();
    await vi.advanceTimersByTimeAsync(ACTION_TIMEOUT_MS);
    expect(q(".lw-runs-error").textContent).toBe("no answer from the kernel");
    expect(port.cancels()).toHaveLength(1);
    cleanup();
  });
});
