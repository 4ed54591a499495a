// @vitest-environment node
// The store is pure logic: it runs without a DOM.
import { describe, expect, it } from "vitest";
import {
  commandLine,
  composerState,
  formatInput,
  groupMessages,
  moreLabel,
  plainOutput,
  QUESTION_NOTICE,
  stateLabel,
  toolGroupLabel,
  toolSummary,
  truncateText,
  type ComposerInput,
} from "../src/chat/format";
import { normalizeMessage } from "../src/chat/normalize";
import { ConversationStore, type StoreChange } from "../src/chat/store";
import type { ActionKind } from "../src/types";
import { delta, lifecycle, text, tool } from "./fixtures";

function storeWith(...messages: ReturnType<typeof text>[]) {
  const store = new ConversationStore({ transcript_id: "t-1", version: 0, messages });
  const changes: StoreChange[] = [];
  store.subscribe((c) => changes.push(c));
  return { store, changes };
}

describe("ConversationStore", () => {
  it("starts from a snapshot, sorted by seq", () => {
    const { store } = storeWith(text(2, "assistant", "b"), text(1, "user", "a"));
    expect(store.messages.map((m) => m.seq)).toEqual([1, 2]);
    expect(store.version).toBe(0);
    expect(store.transcriptId).toBe("t-1");
  });

  it("starts empty without a snapshot", () => {
    const store = new ConversationStore();
    expect(store.messages).toEqual([]);
    expect(store.snapshot()).toEqual({ transcript_id: null, version: 0, messages: [], past: [] });
  });

  it("appends new messages from a delta and advances the version", () => {
    const { store, changes } = storeWith(text(0, "user", "hi"));
    expect(store.applyDelta(delta(0, [text(1, "assistant", "hello")]))).toBe("applied");
    expect(store.version).toBe(1);
    expect(store.messages.map((m) => m.text)).toEqual(["hi", "hello"]);
    expect(changes).toEqual([{ reset: false, changed: [1], removed: [] }]);
  });

  it("upserts by seq: replaces an existing message in place", () => {
    const { store } = storeWith(text(0, "user", "hi"), tool(1), text(2, "assistant", "x"));
    store.applyDelta(delta(0, [tool(1, { status: "ok", output: "done" })]));
    expect(store.messages.map((m) => m.seq)).toEqual([0, 1, 2]);
    expect(store.get(1)?.tool?.status).toBe("ok");
    expect(store.get(1)?.tool?.output).toBe("done");
  });

  it("inserts an out-of-order seq at its place", () => {
    const { store } = storeWith(text(0, "user", "a"), text(5, "assistant", "c"));
    store.applyDelta(delta(0, [text(3, "assistant", "b")]));
    expect(store.messages.map((m) => m.seq)).toEqual([0, 3, 5]);
  });

  it("keeps untouched message objects across a delta", () => {
    const { store } = storeWith(text(0, "user", "a"), tool(1));
    const first = store.get(0);
    store.applyDelta(delta(0, [tool(1, { status: "ok" })]));
    expect(store.get(0)).toBe(first);
  });

  it("reports as changed only what a delta changes", () => {
    const { store, changes } = storeWith(text(0, "user", "a"), tool(1));
    const same = store.get(1);
    expect(
      store.applyDelta(delta(0, [text(0, "user", "a"), tool(1), text(2, "assistant", "b")])),
    ).toBe("applied");
    expect(changes.at(-1)?.changed).toEqual([2]);
    expect(store.get(1)).toBe(same);
    expect(store.version).toBe(1);
  });

  it("replaces everything on a reset delta", () => {
    const { store, changes } = storeWith(text(0, "user", "a"), text(1, "assistant", "b"));
    store.applyDelta(
      delta(0, [text(0, "user", "/clear")], { reset: true, transcript_id: "t-2", version: 7 }),
    );
    expect(store.messages.map((m) => m.text)).toEqual(["/clear"]);
    expect(store.transcriptId).toBe("t-2");
    expect(store.version).toBe(7);
    expect(changes).toEqual([{ reset: true, past: true, changed: [], removed: [] }]);
  });

  it("detects a version gap and leaves the conversation alone", () => {
    const { store, changes } = storeWith(text(0, "user", "a"));
    expect(store.applyDelta(delta(3, [text(1, "assistant", "b")]))).toBe("gap");
    expect(store.version).toBe(0);
    expect(store.messages).toHaveLength(1);
    expect(changes).toEqual([]);
  });

  it("applies consecutive deltas and rejects a replayed one", () => {
    const { store } = storeWith();
    expect(store.applyDelta(delta(0, [text(0, "user", "a")]))).toBe("applied");
    expect(store.applyDelta(delta(1, [text(1, "assistant", "b")]))).toBe("applied");
    expect(store.applyDelta(delta(1, [text(1, "assistant", "b")]))).toBe("gap");
    expect(store.version).toBe(2);
  });

  it("a snapshot of the same transcript reports only what differs", () => {
    const { store, changes } = storeWith(text(0, "user", "a"), tool(1), text(2, "assistant", "c"));
    const kept = store.get(0);
    store.applySnapshot({
      transcript_id: "t-1",
      version: 9,
      messages: [text(0, "user", "a"), tool(1, { status: "ok" }), text(3, "assistant", "d")],
    });
    expect(changes).toEqual([{ reset: false, changed: [1, 3], removed: [2] }]);
    expect(store.get(0)).toBe(kept);
    expect(store.version).toBe(9);
    expect(store.messages.map((m) => m.seq)).toEqual([0, 1, 3]);
  });

  it("a snapshot of another transcript is a reset", () => {
    const { store, changes } = storeWith(text(0, "user", "a"));
    store.applySnapshot({ transcript_id: "t-2", version: 1, messages: [] });
    expect(changes).toEqual([{ reset: true, past: true, changed: [], removed: [] }]);
    expect(store.messages).toEqual([]);
  });

  it("hands out the same snapshot object until something changes", () => {
    const { store } = storeWith(text(0, "user", "a"));
    const a = store.snapshot();
    expect(store.snapshot()).toBe(a);
    store.applyDelta(delta(0, [text(1, "assistant", "b")]));
    const b = store.snapshot();
    expect(b).not.toBe(a);
    expect(b).toEqual({ transcript_id: "t-1", version: 1, messages: store.messages, past: [] });
    expect(a.messages).toHaveLength(1); // earlier snapshots stay as they were
  });

  it("stops notifying after unsubscribe", () => {
    const store = new ConversationStore();
    const seen: StoreChange[] = [];
    const off = store.subscribe((c) => seen.push(c));
    off();
    store.applyDelta(delta(0, [text(0, "user", "a")]));
    expect(seen).toEqual([]);
  });
});

describe("normalizeMessage", () => {
  it("fills in the defaults the wire format may drop", () => {
    const m = normalizeMessage({
      seq: 4,
      kind: "tool",
      role: "assistant",
      tool: { id: "x", name: "Read" },
    });
    expect(m).toMatchObject({
      seq: 4,
      text: "",
      command: null,
      tool: { id: "x", name: "Read", input: {}, status: "running", output: null },
    });
    const d = normalizeMessage({
      seq: 5,
      kind: "dialog",
      role: "assistant",
      dialog: { kind: "plan", questions: [{ text: "ok?" }] },
    });
    expect(d?.dialog).toEqual({
      kind: "plan",
      questions: [{ header: "", text: "ok?", options: [], multi_select: false, free_text: true }],
      answerable: true,
      tool_id: null,
      body: "",
      tool_name: "",
      status: "pending",
      outcome: "",
    });
    const answered = normalizeMessage({
      seq: 6,
      kind: "dialog",
      role: "assistant",
      dialog: { kind: "nope", status: "answered", outcome: "DB → SQLite", tool_name: "Ask" },
    });
    expect(answered?.dialog).toMatchObject({
      kind: "question",
      status: "answered",
      outcome: "DB → SQLite",
      tool_name: "Ask",
    });
    expect(
      normalizeMessage({ seq: 7, kind: "dialog", role: "assistant", dialog: { status: "gone" } })
        ?.dialog?.status,
    ).toBe("pending");
  });

  it("drops messages without an integer seq", () => {
    expect(normalizeMessage({ kind: "text", role: "user", text: "x" })).toBeNull();
    expect(normalizeMessage({ seq: "1", kind: "text" })).toBeNull();
    expect(normalizeMessage(null)).toBeNull();
  });
});

describe("groupMessages", () => {
  it("groups consecutive tool messages and keys groups by their first seq", () => {
    const groups = groupMessages([
      text(0, "user", "go"),
      tool(1),
      tool(2),
      text(3, "assistant", "done"),
      tool(4),
      lifecycle(5, "ended"),
    ]);
    expect(groups.map((g) => [g.type, g.key])).toEqual([
      ["message", "m0"],
      ["tools", "t1"],
      ["message", "m3"],
      ["tools", "t4"],
      ["message", "m5"],
    ]);
    const first = groups[1]!;
    expect(first.type === "tools" && first.messages.map((m) => m.seq)).toEqual([1, 2]);
  });

  it("labels a group with its counts", () => {
    expect(toolGroupLabel([tool(1, { status: "ok" })])).toBe("1 tool call");
    expect(toolGroupLabel([tool(1), tool(2, { status: "ok" }), tool(3, { status: "error" })])).toBe(
      "3 tool calls · 1 running · 1 failed",
    );
  });
});

describe("truncateText", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

  it("leaves short text alone", () => {
    expect(truncateText("a\nb")).toEqual({
      text: "a\nb",
      truncated: false,
      hiddenLines: 0,
      hiddenChars: 0,
    });
  });

  it("keeps the first N lines", () => {
    const t = truncateText(lines(100), { maxLines: 10, maxChars: 10_000 });
    expect(t.truncated).toBe(true);
    expect(t.text.split("\n")).toHaveLength(10);
    expect(t.text.endsWith("line 10")).toBe(true);
    expect(t.hiddenLines).toBe(90);
    expect(moreLabel(t)).toBe("Show 90 more lines");
  });

  it("caps characters inside a single long line", () => {
    const t = truncateText("x".repeat(5000), { maxLines: 10, maxChars: 100 });
    expect(t.text).toHaveLength(100);
    expect(t.hiddenLines).toBe(0);
    expect(t.hiddenChars).toBe(4900);
    expect(moreLabel(t)).toBe("Show 4900 more characters");
  });

  it("is not fooled by exactly N lines", () => {
    expect(truncateText(lines(10), { maxLines: 10, maxChars: 10_000 }).truncated).toBe(false);
  });

  it("never splits a surrogate pair", () => {
    const t = truncateText("ab😀cd", { maxLines: 10, maxChars: 3 });
    expect(t.text).toBe("ab");
  });
});

describe("text helpers", () => {
  it("summarises a tool call by its most telling field", () => {
    expect(toolSummary(tool(1).tool!)).toBe("ls");
    expect(
      toolSummary({
        id: "",
        name: "Bash",
        input: { description: "List", command: "ls -la" },
        status: "ok",
      }),
    ).toBe("ls -la");
    expect(
      toolSummary({ id: "", name: "Read", input: { file_path: "/a/b.py" }, status: "ok" }),
    ).toBe("/a/b.py");
    expect(
      toolSummary({
        id: "",
        name: "Task",
        input: { description: "Find bugs", prompt: "..." },
        status: "ok",
      }),
    ).toBe("Find bugs");
    expect(
      toolSummary({ id: "", name: "X", input: { n: 1, other: "fallback" }, status: "ok" }),
    ).toBe("fallback");
    expect(toolSummary({ id: "", name: "X", input: { n: 1 }, status: "ok" })).toBe("");
  });

  it("keeps a summary to one short line", () => {
    const s = toolSummary({
      id: "",
      name: "Bash",
      input: { command: `echo a\n  && ${"x".repeat(400)}` },
      status: "ok",
    });
    expect(s).not.toContain("\n");
    expect(s.startsWith("echo a && x")).toBe(true);
    expect(s.length).toBeLessThanOrEqual(160);
    expect(s.endsWith("…")).toBe(true);
  });

  it("pretty-prints input, empty for none", () => {
    expect(formatInput({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(formatInput({})).toBe("");
  });

  it("strips terminal colours and trailing blank lines from output", () => {
    expect(plainOutput("\u001b[31mred\u001b[0m ok\n\n")).toBe("red ok");
  });

  it("spells a command echo as typed", () => {
    const echo = (command: string, body: string) => ({ ...text(1, "user", body), command });
    expect(commandLine(echo("/clear", ""))).toBe("/clear");
    expect(commandLine(echo("/model", "opus"))).toBe("/model opus");
    expect(commandLine(echo("/model", "/model opus"))).toBe("/model opus");
  });

  it("names states for people", () => {
    expect(stateLabel("needs_input")).toBe("needs input");
    expect(stateLabel("working")).toBe("working");
    expect(stateLabel("some_new_state")).toBe("some new state");
  });
});

describe("composerState", () => {
  const base: ComposerInput = {
    state: "idle",
    stateReason: "",
    providerName: "Agent X",
    clearCommand: "/clear",
    text: "hello",
    busy: new Set<ActionKind>(),
  };
  const at = (over: Partial<ComposerInput>) => composerState({ ...base, ...over });

  it("idle: everything available", () => {
    expect(at({})).toEqual({
      inputEnabled: true,
      sendEnabled: true,
      sendBusy: false,
      interruptVisible: false,
      interruptEnabled: false,
      clearVisible: true,
      clearEnabled: true,
      placeholder: "Message Agent X",
      notice: "",
    });
  });

  it("needs text to send", () => {
    expect(at({ text: "  \n " }).sendEnabled).toBe(false);
  });

  it("working: interrupt shown, clear disabled, sending still allowed", () => {
    const c = at({ state: "working" });
    expect(c).toMatchObject({
      interruptVisible: true,
      interruptEnabled: true,
      clearEnabled: false,
    });
    expect(c.sendEnabled).toBe(true);
  });

  it("ended: all disabled, with the reason", () => {
    const c = at({ state: "ended", stateReason: "the agent exited (code 0)" });
    expect(c).toMatchObject({
      inputEnabled: false,
      sendEnabled: false,
      interruptVisible: false,
      clearEnabled: false,
      notice: "The session has ended: the agent exited (code 0)",
    });
    expect(at({ state: "ended" }).notice).toBe("The session has ended.");
  });

  it("needs input: typing allowed, sending not, reason shown", () => {
    const c = at({ state: "needs_input", stateReason: "Trust this folder?" });
    expect(c).toMatchObject({
      inputEnabled: true,
      sendEnabled: false,
      clearEnabled: false,
      interruptVisible: false,
      notice: "Trust this folder?",
    });
    expect(at({ state: "needs_input" }).notice).toMatch(/terminal/);
  });

  it("a pending question locks the composer until it is answered", () => {
    const c = at({ state: "question", stateReason: "Which database?" });
    expect(c).toMatchObject({
      inputEnabled: false,
      sendEnabled: false,
      clearEnabled: false,
      interruptVisible: false,
      notice: "Answer the question above to continue.",
    });
    expect(c.notice).toBe(QUESTION_NOTICE);
  });

  it("hides clear without a clear command", () => {
    expect(at({ clearCommand: "" })).toMatchObject({ clearVisible: false, clearEnabled: false });
  });

  it("an action in flight disables its own button", () => {
    const c = at({ busy: new Set<ActionKind>(["send", "clear"]) });
    expect(c).toMatchObject({ sendEnabled: false, sendBusy: true, clearEnabled: false });
    const i = at({ state: "working", busy: new Set<ActionKind>(["interrupt"]) });
    expect(i).toMatchObject({ interruptVisible: true, interruptEnabled: false });
  });

  it("falls back to a generic placeholder without a provider name", () => {
    expect(at({ providerName: "" }).placeholder).toBe("Write a message");
  });
});
