import { describe, expect, it, vi } from "vitest";
import { ConversationStore } from "../src/chat/store";
import { deferred, flush, INFO, mount, press, type } from "./harness";
import { delta, lifecycle, PLAIN, text, tool } from "./fixtures";

describe("header", () => {
  it("shows provider, state, reason and attach command from the data", () => {
    const { root, q, view } = mount([], { state: "needs_input", stateReason: "Trust folder?" });
    expect(root.classList.contains("lw-chat")).toBe(true);
    expect(q(".lw-provider").textContent).toBe("Agent X");
    expect(q(".lw-state").dataset.state).toBe("needs_input");
    expect(q(".lw-state").textContent).toBe("needs input");
    expect(q(".lw-reason").textContent).toBe("Trust folder?");
    expect(q(".lw-attach").textContent).toBe(INFO.attachCommand);

    view.setInfo({ providerName: "Other CLI", state: "idle", stateReason: "" });
    expect(q(".lw-provider").textContent).toBe("Other CLI");
    expect(q(".lw-state").dataset.state).toBe("idle");
    expect(q(".lw-reason").hidden).toBe(true);
    expect(q(".lw-attach").textContent).toBe(INFO.attachCommand); // untouched keys stay
  });

  it("hides the attach row without an attach command", () => {
    const { q } = mount([], { attachCommand: "" });
    expect(q(".lw-attach").closest<HTMLElement>(".lw-attach-row")!.hidden).toBe(true);
  });

  it("copies the attach command to the clipboard", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    try {
      const { q } = mount();
      q(".lw-copy").click();
      await flush();
      expect(writeText).toHaveBeenCalledWith(INFO.attachCommand);
      expect(q(".lw-copy").textContent).toBe("Copied");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("selects the attach command when the clipboard is unavailable", async () => {
    vi.stubGlobal("navigator", { ...navigator, clipboard: undefined });
    try {
      const { q } = mount();
      q(".lw-copy").click();
      await flush();
      expect(window.getSelection()?.toString()).toBe(INFO.attachCommand);
      expect(q(".lw-copy").textContent).toBe("Selected");
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("the kernel tools switch", () => {
  it("is there only for a run that can be restarted, showing what the agent has", () => {
    expect(mount().q<HTMLElement>(".lw-kernel").hidden).toBe(true);
    const { q, view } = mount([], { kernelTools: false });
    expect(q<HTMLElement>(".lw-kernel").hidden).toBe(false);
    expect(q<HTMLInputElement>(".lw-kernel-switch").checked).toBe(false);
    view.setInfo({ kernelTools: true });
    expect(q<HTMLInputElement>(".lw-kernel-switch").checked).toBe(true);
    expect(q(".lw-kernel-switch").getAttribute("aria-checked")).toBe("true");
  });

  it("restarts the agent with the tools and shows them only once the run has them", async () => {
    const { q, view, actions } = mount([], { kernelTools: false });
    const pending = deferred();
    actions.restart.mockReturnValueOnce(pending.promise);
    const input = q<HTMLInputElement>(".lw-kernel-switch");
    input.click();
    expect(actions.restart).toHaveBeenCalledWith(true);
    // Not on until the kernel says so; no second restart while this one runs.
    expect(input.checked).toBe(false);
    expect(input.disabled).toBe(true);
    view.setInfo({ kernelTools: true });
    pending.resolve();
    await flush();
    expect(input.checked).toBe(true);
    expect(input.disabled).toBe(false);
    input.click();
    expect(actions.restart).toHaveBeenLastCalledWith(false);
  });

  it("waits for a turn to end, and shows why a restart failed", async () => {
    const { q, root, view, actions } = mount([], { kernelTools: false, state: "working" });
    const input = q<HTMLInputElement>(".lw-kernel-switch");
    expect(input.disabled).toBe(true);
    view.setInfo({ state: "idle" });
    expect(input.disabled).toBe(false);
    actions.restart.mockRejectedValueOnce(new Error("no kernel"));
    input.click();
    await flush();
    expect(root.querySelector(".lw-errors")?.textContent).toContain(
      "Could not restart the agent: no kernel",
    );
    expect(input.checked).toBe(false);
  });
});

describe("messages", () => {
  it("marks every message with seq, kind and role", () => {
    const { root } = mount([text(0, "user", "hi"), tool(1), lifecycle(2, "Session started")]);
    const els = [...root.querySelectorAll<HTMLElement>(".lw-msg")];
    expect(els.map((e) => [e.dataset.seq, e.dataset.kind, e.dataset.role])).toEqual([
      ["0", "text", "user"],
      ["1", "tool", "assistant"],
      ["2", "lifecycle", "system"],
    ]);
  });

  it("renders user and assistant text as markdown, on their own sides", () => {
    const { msg } = mount([text(0, "user", "see **this**"), text(1, "assistant", "# Done")]);
    expect(msg(0)!.classList.contains("lw-user")).toBe(true);
    expect(msg(0)!.querySelector("strong")?.textContent).toBe("this");
    expect(msg(1)!.classList.contains("lw-assistant")).toBe(true);
    expect(msg(1)!.querySelector("h1")?.textContent).toBe("Done");
  });

  it("renders a command echo as the typed command in monospace", () => {
    const { msg } = mount([{ ...text(0, "user", ""), command: "/clear" }]);
    const code = msg(0)!.querySelector("code")!;
    expect(code.textContent).toBe("/clear");
    expect(msg(0)!.classList.contains("lw-command")).toBe(true);
  });

  it("renders lifecycle messages as notes styled by level", () => {
    const { msg } = mount([lifecycle(0, "Started"), lifecycle(1, "Bad line", "warning")]);
    expect(msg(0)!.dataset.level).toBe("info");
    expect(msg(1)!.dataset.level).toBe("warning");
    expect(msg(1)!.textContent).toBe("Bad line");
  });

  it("groups consecutive tool calls into one collapsible block", () => {
    const { root, msg } = mount([
      text(0, "user", "go"),
      tool(1, { name: "Read", input: { file_path: "/src/app.py" }, status: "ok", output: "x" }),
      tool(2, { status: "error", output: "boom" }),
      text(3, "assistant", "done"),
    ]);
    const groups = root.querySelectorAll(".lw-tool-group");
    expect(groups).toHaveLength(1);
    expect(groups[0]!.querySelectorAll(".lw-msg")).toHaveLength(2);
    expect(groups[0]!.querySelector("summary")?.textContent).toBe("2 tool calls · 1 failed");

    const read = msg(1)!;
    expect(read.tagName).toBe("DETAILS");
    expect(read.dataset.status).toBe("ok");
    expect(read.querySelector(".lw-tool-name")?.textContent).toBe("Read");
    expect(read.querySelector(".lw-tool-summary")?.textContent).toBe("/src/app.py");
    expect(read.querySelector("pre")?.textContent).toBe('{\n  "file_path": "/src/app.py"\n}');
    expect(msg(2)!.dataset.status).toBe("error");
  });

  it("shows every agent's shell call alike: its command, the agent's name as a detail", () => {
    const { msg } = mount([
      tool(1, {
        name: "exec_command",
        input: { cmd: "ls -la" },
        shell: "ls -la",
        status: "ok",
        output: "a",
      }),
      tool(2, {
        name: "Bash",
        input: { command: "make test", description: "Run the tests" },
        shell: "make test",
        status: "ok",
      }),
    ]);
    const codex = msg(1)!;
    expect(codex.querySelector(".lw-tool-name")?.textContent).toBe("Shell");
    expect(codex.querySelector(".lw-tool-summary")?.textContent).toBe("$ ls -la");
    expect(codex.querySelector(".lw-tool-native")?.textContent).toBe("exec_command");
    const labels = [...codex.querySelectorAll(".lw-label")].map((l) => l.textContent);
    // The command is the input: no JSON of it.
    expect(labels).toEqual(["Command", "Output"]);
    expect(codex.querySelector("pre")?.textContent).toBe("ls -la");
    const claude = msg(2)!;
    expect(claude.querySelector(".lw-tool-name")?.textContent).toBe("Shell");
    expect(claude.querySelector(".lw-tool-native")?.textContent).toBe("Bash");
    // More than the command: the rest of the input stays to be read.
    const more = [...claude.querySelectorAll(".lw-label")].map((l) => l.textContent);
    expect(more).toEqual(["Command", "Input", "Output"]);
    // Any other tool keeps its own name and no detail.
    const { msg: other } = mount([tool(3, { name: "Read", input: { file_path: "/a" } })]);
    expect(other(3)!.querySelector(".lw-tool-name")?.textContent).toBe("Read");
    expect(other(3)!.querySelector(".lw-tool-native")).toBeNull();
  });

  it("draws a tool card the user (or a form in it) opened open again in a view drawn anew", () => {
    const calls = [tool(1, { status: "ok", output: "a" }), tool(2, { status: "ok", output: "b" })];
    const { view, msg } = mount([text(0, "user", "go"), ...calls]);
    const card = msg(1) as HTMLDetailsElement;
    card.open = true;
    card.dispatchEvent(new Event("toggle"));
    const again = mount([text(0, "user", "go"), ...calls]);
    again.view.restoreUi(view.saveUi());
    expect((again.msg(1) as HTMLDetailsElement).open).toBe(true);
    expect((again.msg(2) as HTMLDetailsElement).open).toBe(false);
    // Closed again, it stays closed in the next view.
    card.open = false;
    card.dispatchEvent(new Event("toggle"));
    const third = mount([text(0, "user", "go"), ...calls]);
    third.view.restoreUi(view.saveUi());
    expect((third.msg(1) as HTMLDetailsElement).open).toBe(false);
  });

  it("shows a running tool as running", () => {
    const { msg } = mount([tool(1)]);
    expect(msg(1)!.dataset.status).toBe("running");
    expect(msg(1)!.querySelector(".lw-tool-status")?.getAttribute("aria-label")).toBe("running");
    expect(msg(1)!.textContent).toContain("Running…");
  });

  it("truncates long tool output behind a show-more button", () => {
    const output = Array.from({ length: 200 }, (_, i) => `row ${i}`).join("\n");
    const { msg } = mount([tool(1, { status: "ok", output })]);
    const pres = msg(1)!.querySelectorAll("pre");
    const out = pres[pres.length - 1]!;
    expect(out.textContent!.split("\n").length).toBeLessThan(50);
    const more = msg(1)!.querySelector<HTMLButtonElement>(".lw-more")!;
    expect(more.textContent).toMatch(/^Show \d+ more lines$/);
    more.click();
    expect(out.textContent).toBe(output);
    expect(more.textContent).toBe("Show less");
  });

  it("shows tool input and output as text, never as HTML", () => {
    const evil = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';
    const { root } = mount([
      tool(1, { input: { command: evil }, status: "ok", output: evil }),
      text(2, "user", evil),
      { ...lifecycle(3, evil) },
    ]);
    expect(root.querySelector("img, script, [onerror]")).toBeNull();
    expect(root.textContent).toContain(evil);
  });

  it("renders a pending dialog it is not asked to answer read-only", () => {
    const { msg } = mount([
      {
        ...PLAIN,
        seq: 0,
        kind: "dialog",
        role: "assistant",
        text: "",
        dialog: {
          kind: "question",
          answerable: true,
          body: "Pick a **database**",
          tool_name: "",
          status: "pending",
          outcome: "",
          questions: [
            {
              header: "DB",
              text: "Which one?",
              options: [{ label: "Postgres", description: "relational" }],
              multi_select: false,
              free_text: true,
            },
          ],
        },
      },
    ]);
    const el = msg(0)!;
    expect(el.querySelector("strong")?.textContent).toBe("database");
    expect(el.querySelector(".lw-option-label")?.textContent).toBe("Postgres");
    expect(el.querySelector("input, textarea, button")).toBeNull();
  });
});

describe("applying updates", () => {
  it("a delta replaces only the changed element and appends new ones", () => {
    const { view, msg, root } = mount([text(0, "user", "go"), tool(1), text(2, "assistant", "a")]);
    const user = msg(0);
    const running = msg(1);
    const reply = msg(2);
    const group = root.querySelector(".lw-tool-group");

    expect(
      view.applyDelta(
        delta(0, [tool(1, { status: "ok", output: "fine" }), text(3, "assistant", "b")]),
      ),
    ).toBe("applied");

    expect(msg(0)).toBe(user);
    expect(msg(2)).toBe(reply);
    expect(msg(1)).not.toBe(running);
    expect(msg(1)!.dataset.status).toBe("ok");
    expect(root.querySelector(".lw-tool-group")).toBe(group);
    expect(msg(3)!.textContent).toBe("b");
    expect([...root.querySelectorAll<HTMLElement>(".lw-msg")].map((e) => e.dataset.seq)).toEqual([
      "0",
      "1",
      "2",
      "3",
    ]);
  });

  it("does not touch untouched nodes at all", () => {
    const { view, root } = mount([text(0, "user", "go"), text(1, "assistant", "a")]);
    const log = root.querySelector(".lw-log")!;
    const mutations: MutationRecord[] = [];
    const observer = new MutationObserver((records) => mutations.push(...records));
    observer.observe(log, {
      childList: true,
      subtree: true,
      attributes: true,
      characterData: true,
    });
    view.applyDelta(delta(0, [text(2, "assistant", "b")]));
    const records = [...mutations, ...observer.takeRecords()];
    observer.disconnect();
    expect(records).toHaveLength(1);
    expect(records[0]!.target).toBe(log);
    expect([...records[0]!.addedNodes].map((n) => (n as HTMLElement).dataset.seq)).toEqual(["2"]);
    expect(records[0]!.removedNodes).toHaveLength(0);
  });

  it("a tool call after a tool call joins its group", () => {
    const { view, root, msg } = mount([text(0, "user", "go"), tool(1)]);
    const group = root.querySelector(".lw-tool-group")!;
    const first = msg(1);
    view.applyDelta(delta(0, [tool(2)]));
    expect(root.querySelectorAll(".lw-tool-group")).toHaveLength(1);
    expect(root.querySelector(".lw-tool-group")).toBe(group);
    expect(msg(1)).toBe(first);
    expect(group.querySelectorAll(".lw-msg")).toHaveLength(2);
    expect(group.querySelector("summary")?.textContent).toBe("2 tool calls · 2 running");
  });

  it("keeps a tool call open, and its output expanded, across updates", () => {
    const output = Array.from({ length: 100 }, (_, i) => `row ${i}`).join("\n");
    const { view, msg } = mount([tool(1, { output })]);
    (msg(1) as HTMLDetailsElement).open = true;
    msg(1)!.querySelector<HTMLButtonElement>(".lw-more")!.click();
    view.applyDelta(delta(0, [tool(1, { status: "ok", output })]));
    expect((msg(1) as HTMLDetailsElement).open).toBe(true);
    const pres = msg(1)!.querySelectorAll("pre");
    expect(pres[pres.length - 1]!.textContent).toBe(output);
  });

  it("a reset re-renders everything", () => {
    const { view, msg, root } = mount([text(0, "user", "old"), text(1, "assistant", "older")]);
    const before = msg(0);
    view.applyDelta(
      delta(0, [{ ...text(0, "user", ""), command: "/clear" }], {
        reset: true,
        transcript_id: "t-2",
      }),
    );
    expect(msg(0)).not.toBe(before);
    expect(msg(0)!.textContent).toBe("/clear");
    expect(root.querySelectorAll(".lw-msg")).toHaveLength(1);
  });

  it("reports a version gap instead of applying", () => {
    const { view, root } = mount([text(0, "user", "a")]);
    expect(view.applyDelta(delta(5, [text(1, "assistant", "b")]))).toBe("gap");
    expect(root.querySelectorAll(".lw-msg")).toHaveLength(1);
  });

  it("views sharing a store both follow it", () => {
    const store = new ConversationStore({ transcript_id: "t-1", version: 0, messages: [] });
    const a = mount([], {}, store);
    const b = mount([], {}, store);
    store.applyDelta(delta(0, [text(0, "assistant", "hello")]));
    expect(a.msg(0)!.textContent).toBe("hello");
    expect(b.msg(0)!.textContent).toBe("hello");
  });
});

describe("composer", () => {
  it("Enter sends and clears the input on success", async () => {
    const { q, actions } = mount();
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "hello there");
    const event = press(input, { key: "Enter" });
    expect(event.defaultPrevented).toBe(true);
    expect(actions.send).toHaveBeenCalledWith("hello there");
    await flush();
    expect(input.value).toBe("");
  });

  it("Shift+Enter does not send", () => {
    const { q, actions } = mount();
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "line one");
    const event = press(input, { key: "Enter", shiftKey: true });
    expect(event.defaultPrevented).toBe(false);
    expect(actions.send).not.toHaveBeenCalled();
  });

  it("does not send while an input method is composing", () => {
    const { q, actions } = mount();
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "にほん");
    press(input, { key: "Enter", isComposing: true });
    expect(actions.send).not.toHaveBeenCalled();
  });

  it("does not send empty text", () => {
    const { q, actions } = mount();
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "   ");
    press(input, { key: "Enter" });
    q(".lw-send").click();
    expect(actions.send).not.toHaveBeenCalled();
    expect(q<HTMLButtonElement>(".lw-send").disabled).toBe(true);
  });

  it("shows the send button busy while the send is in flight", async () => {
    const { q, actions } = mount();
    const pending = deferred();
    actions.send.mockReturnValueOnce(pending.promise);
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "hi");
    q(".lw-send").click();
    const send = q<HTMLButtonElement>(".lw-send");
    expect(send.classList.contains("lw-busy")).toBe(true);
    expect(send.disabled).toBe(true);
    expect(send.getAttribute("aria-busy")).toBe("true");
    press(input, { key: "Enter" });
    expect(actions.send).toHaveBeenCalledTimes(1); // no double send
    pending.resolve();
    await flush();
    expect(send.classList.contains("lw-busy")).toBe(false);
    expect(input.value).toBe("");
  });

  it("keeps what was typed meanwhile", async () => {
    const { q, actions } = mount();
    const pending = deferred();
    actions.send.mockReturnValueOnce(pending.promise);
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "first");
    press(input, { key: "Enter" });
    type(input, "first, and more");
    pending.resolve();
    await flush();
    expect(input.value).toBe("first, and more");
  });

  it("on failure keeps the text and shows the error until dismissed", async () => {
    const { q, root, actions } = mount();
    actions.send.mockRejectedValueOnce(new Error("no answer from the kernel"));
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "important words");
    press(input, { key: "Enter" });
    await flush();
    expect(input.value).toBe("important words");
    const error = q(".lw-error");
    expect(error.textContent).toContain("no answer from the kernel");
    expect(error.getAttribute("role")).toBe("alert");
    error.querySelector<HTMLButtonElement>(".lw-error-dismiss")!.click();
    expect(root.querySelector(".lw-error")).toBeNull();
  });

  it("shows Interrupt only while working", async () => {
    const { q, view, actions } = mount();
    const interrupt = q<HTMLButtonElement>(".lw-interrupt");
    expect(interrupt.hidden).toBe(true);
    view.setInfo({ state: "working" });
    expect(interrupt.hidden).toBe(false);
    interrupt.click();
    expect(actions.interrupt).toHaveBeenCalledTimes(1);
    await flush();
    view.setInfo({ state: "idle" });
    expect(interrupt.hidden).toBe(true);
  });

  it("disables everything when the session has ended, and says why", () => {
    const { q } = mount([], { state: "ended", stateReason: "the agent exited" });
    expect(q<HTMLTextAreaElement>(".lw-input").disabled).toBe(true);
    expect(q<HTMLButtonElement>(".lw-send").disabled).toBe(true);
    expect(q<HTMLButtonElement>(".lw-clear").disabled).toBe(true);
    expect(q(".lw-interrupt").hidden).toBe(true);
    expect(q(".lw-notice").textContent).toContain("the agent exited");
    expect(q(".lw-notice").hidden).toBe(false);
  });

  it("New conversation calls clear, is disabled while working, hidden without a command", async () => {
    const { q, view, actions } = mount();
    const clear = q<HTMLButtonElement>(".lw-clear");
    expect(clear.hidden).toBe(false);
    clear.click();
    expect(actions.clear).toHaveBeenCalledTimes(1);
    await flush();
    view.setInfo({ state: "working" });
    expect(clear.disabled).toBe(true);
    view.setInfo({ clearCommand: "" });
    expect(clear.hidden).toBe(true);
  });

  it("a failed clear or interrupt is shown, not swallowed", async () => {
    const { q, root, view, actions } = mount();
    actions.clear.mockRejectedValueOnce(new Error("tmux is gone"));
    q(".lw-clear").click();
    await flush();
    view.setInfo({ state: "working" });
    actions.interrupt.mockRejectedValueOnce("plain string reason");
    q(".lw-interrupt").click();
    await flush();
    const errors = [...root.querySelectorAll(".lw-error-text")].map((e) => e.textContent);
    expect(errors).toEqual([
      "Could not start a new conversation: tmux is gone",
      "Could not interrupt the agent: plain string reason",
    ]);
  });
});

describe("scrolling", () => {
  function fakeScroll(el: HTMLElement, height: { content: number; view: number }) {
    let top = 0;
    Object.defineProperty(el, "scrollHeight", { configurable: true, get: () => height.content });
    Object.defineProperty(el, "clientHeight", { configurable: true, get: () => height.view });
    Object.defineProperty(el, "scrollTop", {
      configurable: true,
      get: () => top,
      set: (v: number) => {
        top = Math.max(0, Math.min(v, height.content - height.view));
      },
    });
  }

  it("follows new messages until the user scrolls up, then offers a jump", () => {
    const { view, q } = mount([text(0, "user", "a")]);
    const scroller = q(".lw-scroll");
    const size = { content: 1000, view: 200 };
    fakeScroll(scroller, size);
    const jump = q(".lw-jump");

    size.content = 1200;
    view.applyDelta(delta(0, [text(1, "assistant", "b")]));
    expect(scroller.scrollTop).toBe(1000); // pinned to the bottom
    expect(jump.hidden).toBe(true);

    scroller.scrollTop = 300;
    scroller.dispatchEvent(new Event("scroll"));
    expect(jump.hidden).toBe(false);

    size.content = 1400;
    view.applyDelta(delta(1, [text(2, "assistant", "c")]));
    expect(scroller.scrollTop).toBe(300); // left where the user is reading
    expect(jump.hidden).toBe(false);

    jump.click();
    expect(scroller.scrollTop).toBe(1200);
    expect(jump.hidden).toBe(true);
  });
});

describe("destroy", () => {
  it("empties the root and stops following the store", () => {
    const store = new ConversationStore();
    const { root, view } = mount([], {}, store);
    view.destroy();
    expect(root.childElementCount).toBe(0);
    expect(root.classList.contains("lw-chat")).toBe(false);
    store.applyDelta(delta(0, [text(0, "user", "late")]));
    expect(root.childElementCount).toBe(0);
    view.showError("after the end");
    expect(root.childElementCount).toBe(0);
  });
});

describe("Ctrl+S in the chat", () => {
  it("saves the notebook the chat is in, from the composer too", async () => {
    const root = document.createElement("div");
    document.body.append(root);
    const save = vi.fn(() => Promise.resolve());
    const { ChatView } = await import("../src/chat/view");
    const noop = () => Promise.resolve();
    const view = new ChatView(
      root,
      { send: noop, interrupt: noop, clear: noop, answer: noop },
      { info: INFO, save },
    );
    const input = root.querySelector<HTMLTextAreaElement>(".lw-input")!;
    type(input, "a draft");
    const event = new KeyboardEvent("keydown", {
      key: "s",
      ctrlKey: true,
      bubbles: true,
      cancelable: true,
    });
    input.dispatchEvent(event);
    expect(save).toHaveBeenCalledTimes(1);
    expect(event.defaultPrevented).toBe(true);
    expect(input.value).toBe("a draft");
    press(input, { key: "s", metaKey: true });
    expect(save).toHaveBeenCalledTimes(2);
    press(input, { key: "s" }); // a plain "s" is typing
    expect(save).toHaveBeenCalledTimes(2);
    view.destroy();
  });
});

describe("an ended run", () => {
  it("offers no attach command and no input hints", () => {
    const { q, view } = mount([], { state: "idle" });
    expect(q(".lw-attach-row").hidden).toBe(false);
    expect(q(".lw-hint").hidden).toBe(false);
    view.setInfo({ state: "ended", stateReason: "stopped" });
    expect(q(".lw-attach-row").hidden).toBe(true);
    expect(q(".lw-hint").hidden).toBe(true);
    expect((q(".lw-input") as HTMLTextAreaElement).disabled).toBe(true);
  });
});
