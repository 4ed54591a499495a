import { Terminal as Headless } from "@xterm/headless";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  isIdleMotion,
  needsTerminal,
  PING_MS,
  pointAtTerminal,
  STATUS,
  TerminalPane,
  type TermOutMsg,
  type TerminalLike,
} from "../src/terminal/pane";
import { hardenParser } from "../src/terminal/xterm";

/** A terminal emulator that records what the pane asks of it. */
class FakeTerminal implements TerminalLike {
  cols = 80;
  rows = 24;
  written: (string | Uint8Array)[] = [];
  resets = 0;
  input = true;
  focused = 0;
  opened: HTMLElement | null = null;
  proposal: { cols: number; rows: number } | null = { cols: 90, rows: 20 };
  readonly listeners = new Set<(data: string) => void>();

  open(parent: HTMLElement) {
    this.opened = parent;
  }
  write(data: Uint8Array | string) {
    this.written.push(data);
  }
  afterWrites(callback: () => void) {
    callback();
  }
  reset() {
    this.resets += 1;
    this.written = [];
  }
  resize(cols: number, rows: number) {
    this.cols = cols;
    this.rows = rows;
  }
  onData(listener: (data: string) => void) {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
  setInput(enabled: boolean) {
    this.input = enabled;
  }
  focus() {
    this.focused += 1;
  }
  proposeSize() {
    return this.proposal;
  }
  serialize() {
    return `screen:${this.text()}`;
  }
  dispose() {}
  /** Keys pressed in the terminal (or a report it makes). */
  type(data: string) {
    for (const listener of this.listeners) listener(data);
  }
  text(): string {
    const decoder = new TextDecoder();
    return this.written.map((w) => (typeof w === "string" ? w : decoder.decode(w))).join("");
  }
}

const bytes = (text: string) => new TextEncoder().encode(text);

function setup(options: { available?: boolean; saved?: unknown; failSend?: boolean } = {}) {
  const sent: TermOutMsg[] = [];
  const saves: unknown[] = [];
  const term = new FakeTerminal();
  const pane = new TerminalPane(
    {
      send: (msg) => {
        if (options.failSend) throw new Error("no comm");
        sent.push(msg);
      },
    },
    () => term,
    {
      available: options.available ?? true,
      saved: options.saved,
      save: (screen) => saves.push(screen),
    },
  );
  document.body.append(pane.el);
  const q = <T extends HTMLElement = HTMLElement>(selector: string) =>
    pane.el.querySelector<T>(selector)!;
  const screen = (extra: Record<string, unknown> = {}, data = "$ ready") =>
    pane.receive(
      { kind: "term", op: "screen", viewer: pane.viewer, cols: 90, rows: 20, live: true, ...extra },
      [new DataView(bytes(data).buffer)],
    );
  const output = (data: string) =>
    pane.receive({ kind: "term", op: "output" }, [new DataView(bytes(data).buffer)]);
  return { pane, term, sent, saves, q, screen, output };
}

let panes: TerminalPane[] = [];

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const pane of panes) pane.destroy();
  panes = [];
  vi.useRealTimers();
  document.body.replaceChildren();
});

function track<T extends { pane: TerminalPane }>(made: T): T {
  panes.push(made.pane);
  return made;
}

describe("TerminalPane", () => {
  it("costs nothing while closed: no message out, output ignored", () => {
    const { pane, sent, term, output } = track(setup());
    output("agent output");
    vi.advanceTimersByTime(5 * PING_MS);
    expect(sent).toEqual([]);
    expect(term.opened).toBeNull();
    expect(pane.isOpen).toBe(false);
  });

  it("opens with its size, draws only its own screen, then the live output", () => {
    const { pane, sent, term, q, screen, output } = track(setup());
    pane.open();
    expect(sent).toEqual([{ op: "open", viewer: pane.viewer, cols: 90, rows: 20 }]);
    expect(q(".lw-term-status").textContent).toBe(STATUS.connecting);
    output("before the screen");
    pane.receive({ kind: "term", op: "screen", viewer: "another", cols: 1, rows: 1, live: true }, [
      bytes("not mine"),
    ]);
    expect(term.text()).toBe("");
    screen();
    output(" ls\r\n");
    expect(term.text()).toBe("$ ready ls\r\n");
    expect([term.cols, term.rows]).toEqual([90, 20]);
    expect(q(".lw-term-status").textContent).toBe(STATUS.readOnly);
    expect(pane.el.dataset.live).toBe("true");
  });

  it("is read-only until the user takes over; then keys go to the kernel", () => {
    const { pane, sent, term, q, screen } = track(setup());
    const toggle = q<HTMLInputElement>(".lw-term-switch");
    pane.open();
    expect(toggle.disabled).toBe(true); // nothing to take over before the screen
    screen();
    expect(toggle.disabled).toBe(false);
    term.type("ignored");
    expect(term.input).toBe(false);
    toggle.checked = true;
    toggle.dispatchEvent(new Event("change"));
    expect(pane.takenOver).toBe(true);
    expect(term.input).toBe(true);
    expect(term.focused).toBe(1);
    sent.length = 0;
    term.type("y");
    term.type("\r");
    term.type("\u001b[A"); // an arrow
    term.type("\u0003"); // Ctrl-C
    term.type("\u001b[I"); // a focus report is not a key
    term.type("\u001b[<35;10;5M"); // nor is the pointer passing by
    term.type("\u001b[<0;10;5M"); // a click is
    expect(sent).toEqual(
      ["y", "\r", "\u001b[A", "\u0003", "\u001b[<0;10;5M"].map((data) => ({
        op: "input",
        viewer: pane.viewer,
        data,
      })),
    );
    expect(q(".lw-term-status").textContent).toBe(STATUS.takenOver);
    expect(pane.el.dataset.takeover).toBe("true");
  });

  it("sends a paste as text, only when taken over", () => {
    const { pane, sent, q, screen } = track(setup());
    pane.open();
    screen();
    const paste = (text: string) => {
      const event = new Event("paste", { bubbles: true, cancelable: true }) as ClipboardEvent;
      Object.defineProperty(event, "clipboardData", { value: { getData: () => text } });
      q(".lw-term-screen").dispatchEvent(event);
      return event;
    };
    sent.length = 0;
    expect(paste("rm -rf /\n").defaultPrevented).toBe(true);
    expect(sent).toEqual([]);
    const toggle = q<HTMLInputElement>(".lw-term-switch");
    toggle.checked = true;
    toggle.dispatchEvent(new Event("change"));
    paste("two\nlines");
    expect(sent).toEqual([{ op: "paste", viewer: pane.viewer, text: "two\nlines" }]);
  });

  it("pings while open and live, and says goodbye when closed", () => {
    const { pane, sent, screen } = track(setup());
    pane.open();
    screen();
    vi.advanceTimersByTime(PING_MS * 2 + 10);
    expect(sent.filter((m) => m.op === "ping")).toHaveLength(2);
    pane.close();
    expect(sent.at(-1)).toEqual({ op: "close", viewer: pane.viewer });
    sent.length = 0;
    vi.advanceTimersByTime(PING_MS * 3);
    expect(sent).toEqual([]);
  });

  it("says goodbye when closed before its first screen, or after an error", () => {
    // The kernel attaches on `open`; a viewer that left without a word would be streamed
    // to until its lease ran out.
    const { pane, sent, screen } = track(setup());
    pane.open();
    pane.close();
    expect(sent.map((m) => m.op)).toEqual(["open", "close"]);
    sent.length = 0;
    pane.open();
    screen();
    pane.receive({ kind: "term", op: "error", viewer: pane.viewer, message: "tmux refused" });
    pane.close();
    expect(sent.at(-1)).toEqual({ op: "close", viewer: pane.viewer });
  });

  it("follows the pane's real size", () => {
    const { pane, term, screen } = track(setup());
    pane.open();
    screen();
    pane.receive({ kind: "term", op: "size", cols: 120, rows: 40 });
    expect([term.cols, term.rows]).toEqual([120, 40]);
  });

  it("opens by itself when the run waits on its terminal, once per wait", () => {
    const { pane, sent } = track(setup());
    pane.setRunState("working", null);
    expect(pane.isOpen).toBe(false);
    pane.setRunState("needs_input", null);
    expect(pane.isOpen).toBe(true);
    pane.close(); // the user chose the chat
    pane.setRunState("needs_input", null);
    expect(pane.isOpen).toBe(false);
    pane.setRunState("idle", null);
    pane.setRunState("question", { answerable: true, questions: [] });
    expect(pane.isOpen).toBe(false);
    pane.setRunState("question", { answerable: false, questions: [] });
    expect(pane.isOpen).toBe(true);
    expect(sent.filter((m) => m.op === "open")).toHaveLength(2);
  });

  it("shows an ended run's last screen and stops taking keys", () => {
    const { pane, q, saves, screen } = track(setup());
    pane.open();
    screen();
    const toggle = q<HTMLInputElement>(".lw-term-switch");
    toggle.checked = true;
    toggle.dispatchEvent(new Event("change"));
    pane.receive({ kind: "term", op: "ended", reason: "gone" });
    expect(pane.takenOver).toBe(false);
    expect(toggle.disabled).toBe(true);
    expect(q(".lw-term-status").textContent).toBe(STATUS.ended);
    expect(saves.at(-1)).toEqual({ data: "screen:$ ready", cols: 90, rows: 20, ended: true });
  });

  it("opens the new session when the run's agent is started again", () => {
    const { pane, sent, q, screen } = track(setup());
    pane.open();
    screen();
    pane.receive({ kind: "term", op: "ended", reason: "gone" });
    pane.setRunState("ended", null);
    expect(sent.filter((m) => m.op === "open")).toHaveLength(1);
    pane.setRunState("idle", null); // restarted
    expect(pane.isOpen).toBe(true);
    expect(sent.filter((m) => m.op === "open")).toHaveLength(2);
    screen();
    expect(q(".lw-term-status").textContent).not.toBe(STATUS.ended);
  });

  it("without a kernel, shows the screen saved with the notebook", () => {
    const saved = { data: "\u001b[1msaved\u001b[0m", cols: 70, rows: 10, ended: false };
    const { pane, term, q } = track(setup({ saved, failSend: true }));
    pane.open();
    vi.advanceTimersByTime(1);
    expect(term.text()).toBe(saved.data);
    expect([term.cols, term.rows]).toEqual([70, 10]);
    expect(q(".lw-term-status").textContent).toBe(STATUS.saved);
  });

  it("says it needs a kernel when none answers and nothing was saved", () => {
    const { pane, q } = track(setup());
    pane.open();
    vi.advanceTimersByTime(10_000);
    expect(q(".lw-term-status").textContent).toBe(STATUS.noKernel);
  });

  it("keeps the screen for a saved notebook, a moment after output", () => {
    const { pane, saves, screen, output } = track(setup());
    pane.open();
    screen();
    output(" more");
    expect(saves).toEqual([]);
    vi.advanceTimersByTime(1_100);
    expect(saves).toEqual([{ data: "screen:$ ready more", cols: 90, rows: 20, ended: false }]);
  });

  it("stays hidden for a run without a terminal", () => {
    const { pane } = track(setup({ available: false }));
    expect(pane.el.hidden).toBe(true);
    pane.setRunState("needs_input", null);
    expect(pane.isOpen).toBe(false);
  });
});

describe("the reason line", () => {
  it("points at the terminal while the run needs input there", () => {
    expect(pointAtTerminal("Agent asks whether you trust the folder.", "needs_input", true)).toBe(
      "Agent asks whether you trust the folder — answer it in the terminal below.",
    );
    expect(pointAtTerminal("", "needs_input", true)).toBe(
      "The agent is waiting for input in its terminal — answer it in the terminal below.",
    );
    expect(pointAtTerminal("Stopped.", "ended", true)).toBe("Stopped.");
    expect(pointAtTerminal("Why.", "needs_input", false)).toBe("Why.");
    expect(needsTerminal("needs_input", null)).toBe(true);
    expect([35, 39, 51].map((c) => isIdleMotion(`\u001b[<${c};1;1M`))).toEqual([true, true, true]);
    expect([0, 32, 64, 65].map((c) => isIdleMotion(`\u001b[<${c};1;1M`))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(needsTerminal("question", { answerable: true })).toBe(false);
  });
});

describe("hardened xterm.js", () => {
  // The real emulator (headless build: the same parser), fed what an agent could print.
  function hardened(harden = true) {
    const term = new Headless({ cols: 100, rows: 10, allowProposedApi: true });
    if (harden) hardenParser(term.parser);
    const replies: string[] = [];
    term.onData((d) => replies.push(d));
    const write = (data: string) => new Promise<void>((resolve) => term.write(data, resolve));
    const screen = () =>
      Array.from({ length: term.buffer.active.length }, (_, i) =>
        term.buffer.active.getLine(i)?.translateToString(true),
      ).join("\n");
    return { term, replies, write, screen };
  }

  beforeEach(() => {
    vi.useRealTimers();
  });

  const QUERIES =
    "\u001b[c\u001b[>c\u001b[5n\u001b[6n\u001b[?6n\u001b[?1$p\u001b[2$p" +
    "\u001b]10;?\u0007\u001b]11;?\u001b\\\u001b]4;1;?\u0007\u001bP$qm\u001b\\" +
    "\u001b[18t\u001b[14t\u001b[>q";

  it("would answer queries if left alone (so the test below can fail)", async () => {
    const { term, replies, write } = hardened(false);
    await write(QUERIES);
    expect(replies.join("")).toContain("\u001b[?1;2c");
    term.dispose();
  });

  it("answers no query (tmux answered them) and takes no clipboard or link", async () => {
    const { term, replies, write, screen } = hardened();
    await write(
      QUERIES +
        "\u001b]52;c;ZWNobyBwd25lZA==\u0007" +
        "\u001b]8;;javascript:alert(1)\u0007click me\u001b]8;;\u0007 after",
    );
    expect(replies).toEqual([]);
    expect(screen()).toContain("click me after");
    expect(screen()).not.toContain("javascript");
    term.dispose();
  });

  it("drops hyperlinks and clipboard writes at the parser", () => {
    const osc: number[] = [];
    const none = { dispose() {} };
    hardenParser({
      registerOscHandler: (ident: number) => (osc.push(ident), none),
      registerCsiHandler: () => none,
      registerDcsHandler: () => none,
      registerEscHandler: () => none,
      addCsiHandler: () => none,
    } as never);
    expect(osc).toEqual(expect.arrayContaining([8, 52]));
  });

  it("shows markup printed by a tool as text", async () => {
    const { term, write, screen } = hardened();
    const payload =
      "<img src=x onerror=alert(1)> <script>alert(2)</script> " +
      '<a href="javascript:alert(3)">x</a>';
    await write(payload);
    expect(screen().replace(/\n/g, "")).toContain(payload);
    term.dispose();
  });
});
