// The terminal pane: the agent's real TUI beside the chat, read-only until the user takes
// over. Knows nothing about Jupyter or xterm.js: it drives a `TerminalLike` (xterm.js in
// xterm.ts, a fake in tests) and talks to the kernel through a `TerminalPort`
// (lab_widget/_widgets/_terminal.py is the other end).
//
// - Closed, it sends and receives nothing: the kernel streams only to open panes.
// - Opened, it sends `open` with its viewer id and size, gets its first screen (`screen`,
//   addressed to this viewer), then the pane's output; it pings while open so a kernel
//   whose tab went away stops streaming.
// - It is a picture of the TUI, never a source: nothing here feeds the chat's store.
// - Output is terminal text only: xterm.js draws it; it never becomes HTML.
import { h } from "../shared/dom";
import { isObj, num } from "../shared/guards";
import "../styles/switch.css";
import "../styles/terminal.css";

/** What the pane needs of a terminal emulator. */
export interface TerminalLike {
  readonly cols: number;
  readonly rows: number;
  /** Draw into `parent` (once). */
  open(parent: HTMLElement): void;
  write(data: Uint8Array | string): void;
  /** Call `callback` once everything written so far is parsed (writes are queued). */
  afterWrites(callback: () => void): void;
  /** Back to a blank screen with default modes. */
  reset(): void;
  resize(cols: number, rows: number): void;
  /** What the terminal sends for keys pressed in it (and mouse reports). */
  onData(listener: (data: string) => void): { dispose(): void };
  /** Whether keys typed in it produce `onData` at all. */
  setInput(enabled: boolean): void;
  focus(): void;
  /** The size that fills the element it was opened in, if it can tell. */
  proposeSize(): { cols: number; rows: number } | null;
  /** The screen (and some scrollback) as escape sequences, to draw it again later. */
  serialize(): string;
  dispose(): void;
}

export type TerminalFactory = () => TerminalLike;

/** Messages to the kernel (`kind: "term"`). */
export type TermOutMsg =
  | { op: "open" | "ping" | "resize"; viewer: string; cols: number; rows: number }
  | { op: "close"; viewer: string }
  | { op: "input"; viewer: string; data: string }
  | { op: "paste"; viewer: string; text: string };

export interface TerminalPort {
  send(msg: TermOutMsg): void;
}

/** The screen a front end kept (the `_terminal_screen` trait), for a saved notebook. */
export interface SavedScreen {
  data: string;
  cols: number;
  rows: number;
  ended: boolean;
}

export interface TerminalPaneOptions {
  /** The run has a terminal to show (the `has_terminal` trait). */
  available?: boolean;
  /** The screen kept last time (the `_terminal_screen` trait). */
  saved?: unknown;
  /** Keep the current screen (sets `_terminal_screen`). */
  save?(screen: SavedScreen): void;
  /** Milliseconds without a first screen before the pane says it needs a kernel. */
  kernelTimeoutMs?: number;
  /** Milliseconds between pings while open. */
  pingMs?: number;
}

/** Seconds between pings; the kernel's lease (`LEASE`) is three times that. */
export const PING_MS = 20_000;
const KERNEL_TIMEOUT_MS = 6_000;
const SAVE_DELAY_MS = 1_000;
const DEFAULT_SIZE = { cols: 100, rows: 30 };

export const STATUS = {
  connecting: "Connecting to the agent's terminal…",
  readOnly: "Live · read-only",
  takenOver: "Live · your keys go to the agent",
  ended: "The run has ended; this is its last screen.",
  saved: "The screen saved with this notebook; the live terminal needs a running kernel.",
  noKernel: "The live terminal needs a running kernel.",
  unavailable: "This run has no terminal to show.",
} as const;

/** Focus reports xterm.js sends on its own when the TUI asked for them: not keys. */
const FOCUS_REPORTS = new Set(["\u001b[I", "\u001b[O"]);

/**
 * Mouse moves with no button held, reported in SGR form (a TUI that asks for every motion,
 * as some do, would get a message per pixel the pointer crosses): not input worth a trip.
 * Clicks, drags and the wheel still go.
 */
export function isIdleMotion(data: string): boolean {
  const match = /^\u001b\[<(\d+);\d+;\d+[Mm]$/.exec(data);
  if (!match) return false;
  const code = Number(match[1]);
  return (code & 32) !== 0 && (code & 3) === 3 && (code & 64) === 0;
}

/** A size in cells: a positive finite number, floored, else `fallback`. */
const cells = (v: unknown, fallback: number): number => {
  const n = num(v, 0);
  return n > 0 ? Math.floor(n) : fallback;
};

export function normalizeSaved(raw: unknown): SavedScreen | null {
  if (!isObj(raw) || typeof raw.data !== "string" || raw.data === "") return null;
  return {
    data: raw.data,
    cols: cells(raw.cols, DEFAULT_SIZE.cols),
    rows: cells(raw.rows, DEFAULT_SIZE.rows),
    ended: raw.ended === true,
  };
}

function bytesOf(buffers: readonly unknown[] | undefined): Uint8Array | null {
  const first = buffers?.[0];
  if (first instanceof Uint8Array) return first;
  if (first instanceof ArrayBuffer) return new Uint8Array(first);
  if (ArrayBuffer.isView(first)) {
    return new Uint8Array(first.buffer, first.byteOffset, first.byteLength);
  }
  return null;
}

let viewerCounter = 0;

function newViewerId(): string {
  viewerCounter += 1;
  const c = globalThis.crypto;
  const random =
    c && typeof c.getRandomValues === "function"
      ? Array.from(c.getRandomValues(new Uint8Array(6)), (b) =>
          b.toString(16).padStart(2, "0"),
        ).join("")
      : Math.random().toString(16).slice(2, 14);
  return `t${Date.now().toString(36)}-${viewerCounter}-${random}`;
}

/**
 * Whether the run waits on a screen only its terminal can answer: a start-up screen or a
 * blocked state (`needs_input`), or a dialog the chat cannot answer.
 */
export function needsTerminal(state: string, pendingDialog: unknown): boolean {
  if (state === "needs_input") return true;
  return state === "question" && isObj(pendingDialog) && pendingDialog.answerable === false;
}

/** The reason line, pointing at the terminal pane when the answer is given there. */
export function pointAtTerminal(reason: string, state: string, available: boolean): string {
  if (!available || state !== "needs_input") return reason;
  const said = (reason.trim() || "The agent is waiting for input in its terminal").replace(
    /[.\s]+$/,
    "",
  );
  return `${said} — answer it in the terminal below.`;
}

/**
 * Where the pane is in its life:
 * - `closed`: it sends and receives nothing; `dismissed` when the user closed it while the
 *   run waited on it (it does not reopen by itself until the run stops waiting).
 * - `opening`: open, with no first screen for this viewer yet (connecting, no kernel, an
 *   error, or no terminal to show at all).
 * - `live`: the first screen arrived and output streams on top of it; `takenOver` when the
 *   user's keys go to the agent.
 * - `still`: the first screen arrived but nothing streams (the run ended, or an error);
 *   `takenOver` stays as it was after an error, and a new live screen picks it up again.
 * - `destroyed`: gone for good.
 */
type PaneState =
  | { kind: "closed"; dismissed: boolean }
  | { kind: "opening" }
  | { kind: "live"; takenOver: boolean }
  | { kind: "still"; takenOver: boolean }
  | { kind: "destroyed" };

export class TerminalPane {
  readonly el: HTMLElement;
  readonly viewer = newViewerId();

  readonly #port: TerminalPort;
  readonly #factory: TerminalFactory;
  readonly #options: TerminalPaneOptions;
  #state: PaneState = { kind: "closed", dismissed: false };
  /** The run has a terminal to show (the `has_terminal` trait). */
  #available: boolean;
  /** The run has ended (the kernel said so): what the pane shows is its last screen. */
  #ended = false;
  #saved: SavedScreen | null;
  #term: TerminalLike | null = null;
  #size = DEFAULT_SIZE;
  #pingTimer: ReturnType<typeof setInterval> | undefined;
  #kernelTimer: ReturnType<typeof setTimeout> | undefined;
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #observer: ResizeObserver | undefined;
  readonly #disposers: (() => void)[] = [];

  readonly #toggle = h(
    "button",
    { type: "button", class: "lw-term-toggle", "aria-expanded": "false" },
    "Terminal",
  );
  readonly #status = h("span", { class: "lw-term-status", role: "status" });
  readonly #switch = h("input", {
    type: "checkbox",
    role: "switch",
    class: "lw-switch lw-term-switch",
    "aria-checked": "false",
    disabled: true,
  });
  readonly #takeover = h(
    "label",
    {
      class: "lw-term-takeover",
      title: "Send your keys to the agent's terminal (Esc, Ctrl-C and arrows included)",
    },
    this.#switch,
    h("span", {}, "Take over"),
  );
  readonly #screen = h("div", { class: "lw-term-screen", hidden: true });

  constructor(port: TerminalPort, factory: TerminalFactory, options: TerminalPaneOptions = {}) {
    this.#port = port;
    this.#factory = factory;
    this.#options = options;
    this.#available = options.available !== false;
    this.#saved = normalizeSaved(options.saved);
    this.el = h(
      "section",
      { class: "lw-term", "data-open": "false", "aria-label": "The agent's terminal" },
      h("div", { class: "lw-term-bar" }, this.#toggle, this.#status, this.#takeover),
      this.#screen,
    );
    this.#toggle.addEventListener("click", () => (this.#isOpen ? this.close() : this.open()));
    this.#switch.addEventListener("change", () => this.#setTakeover(this.#switch.checked));
    // A paste goes to the kernel as text, for the runner to paste the way the TUI asked
    // (bracketed): typed as keys, its line breaks would submit.
    this.#screen.addEventListener("paste", this.#onPaste, true);
    this.#render();
  }

  get isOpen(): boolean {
    return this.#isOpen;
  }

  get takenOver(): boolean {
    const s = this.#state;
    return (s.kind === "live" || s.kind === "still") && s.takenOver;
  }

  /** The run has (or no longer has) a terminal to show (the `has_terminal` trait). */
  setAvailable(available: boolean): void {
    this.#available = available;
    this.#render();
  }

  /** Open the pane by itself when the run waits on a screen only the terminal answers. */
  setRunState(state: string, pendingDialog: unknown): void {
    const s = this.#state;
    if (s.kind === "destroyed") return;
    if (this.#ended && state !== "ended" && state !== "") {
      // The run's agent was started again (a restart): a new session, shown afresh.
      this.#ended = false;
      if (this.#isOpen) {
        this.close();
        this.open();
      }
    }
    if (!needsTerminal(state, pendingDialog)) {
      if (s.kind === "closed") this.#state = { kind: "closed", dismissed: false };
      return;
    }
    if (s.kind === "closed" && !s.dismissed && this.#available) this.open();
  }

  open(): void {
    if (this.#state.kind !== "closed") return;
    this.#state = { kind: "opening" };
    this.#screen.hidden = false;
    this.#render();
    if (!this.#available) {
      this.#showSaved(STATUS.unavailable);
      return;
    }
    const term = this.#ensureTerminal();
    this.#fit(term);
    this.#setStatus(STATUS.connecting);
    if (this.#saved && !this.#ended) {
      // Something to look at while the kernel answers (or if it never does).
      term.reset();
      term.resize(this.#saved.cols, this.#saved.rows);
      term.write(this.#saved.data);
    }
    const sent = this.#send({ op: "open", viewer: this.viewer, ...this.#size });
    const timeout = this.#options.kernelTimeoutMs ?? KERNEL_TIMEOUT_MS;
    this.#kernelTimer = setTimeout(() => this.#noKernel(), sent ? timeout : 0);
    const ping = this.#options.pingMs ?? PING_MS;
    this.#pingTimer = setInterval(() => {
      if (this.#live) this.#send({ op: "ping", viewer: this.viewer, ...this.#size });
    }, ping);
  }

  close(): void {
    if (!this.#isOpen) return;
    this.#screen.hidden = true;
    this.#releaseKeys();
    this.#stopTimers();
    this.#keep();
    this.#sendClose();
    // Closed by hand while the run waits on it: the user chose the chat.
    this.#state = { kind: "closed", dismissed: true };
    this.#render();
  }

  /** A `term` message from the kernel; `buffers` carry its bytes. */
  receive(msg: unknown, buffers?: readonly unknown[]): void {
    const s = this.#state;
    if (s.kind === "destroyed" || !isObj(msg) || msg.kind !== "term") return;
    switch (msg.op) {
      case "screen": {
        if (msg.viewer !== this.viewer || !this.#isOpen || !this.#term) return;
        const term = this.#term;
        clearTimeout(this.#kernelTimer);
        term.reset();
        term.resize(cells(msg.cols, this.#size.cols), cells(msg.rows, this.#size.rows));
        const data = bytesOf(buffers);
        if (data) term.write(data);
        const takenOver = this.takenOver;
        if (msg.live === true) {
          this.#state = { kind: "live", takenOver };
          this.#setStatus(this.#liveStatus());
        } else {
          this.#state = { kind: "still", takenOver };
          this.#ended = true;
          this.#setStatus(STATUS.ended);
        }
        this.#scheduleKeep();
        break;
      }
      case "output": {
        if (!this.#live || !this.#term) return;
        const data = bytesOf(buffers);
        if (data) this.#term.write(data);
        this.#scheduleKeep();
        break;
      }
      case "size": {
        // The pane's real size: another client (a terminal attached by hand) may set it.
        if (!this.#synced || !this.#term) return;
        const cols = cells(msg.cols, this.#term.cols);
        const rows = cells(msg.rows, this.#term.rows);
        if (cols !== this.#term.cols || rows !== this.#term.rows) this.#term.resize(cols, rows);
        break;
      }
      case "ended": {
        this.#ended = true;
        if (this.#synced) this.#state = { kind: "still", takenOver: false };
        this.#stopTimers();
        this.#releaseKeys();
        if (this.#isOpen) this.#setStatus(STATUS.ended);
        this.#keep();
        break;
      }
      case "error": {
        if (msg.viewer !== this.viewer || !this.#isOpen) return;
        clearTimeout(this.#kernelTimer);
        if (s.kind === "live") this.#state = { kind: "still", takenOver: s.takenOver };
        this.#setStatus(`Could not show the terminal: ${String(msg.message ?? "")}`);
        break;
      }
    }
    this.#render();
  }

  destroy(): void {
    if (this.#state.kind === "destroyed") return;
    if (this.#isOpen) this.#sendClose();
    this.#keep();
    this.#state = { kind: "destroyed" };
    this.#stopTimers();
    clearTimeout(this.#saveTimer);
    for (const dispose of this.#disposers) dispose();
    this.#observer?.disconnect();
    this.#term?.dispose();
    this.#term = null;
    this.el.remove();
  }

  // -- inside ------------------------------------------------------------------------

  get #isOpen(): boolean {
    const kind = this.#state.kind;
    return kind === "opening" || kind === "live" || kind === "still";
  }

  /** A first screen for this viewer has arrived: output applies on top of it. */
  get #synced(): boolean {
    const kind = this.#state.kind;
    return kind === "live" || kind === "still";
  }

  get #live(): boolean {
    return this.#state.kind === "live";
  }

  /** Keys go to the agent. */
  get #keysGo(): boolean {
    const s = this.#state;
    return s.kind === "live" && s.takenOver;
  }

  #ensureTerminal(): TerminalLike {
    if (this.#term) return this.#term;
    const term = this.#factory();
    term.open(this.#screen);
    term.setInput(false);
    const data = term.onData((chunk) => {
      if (!this.#keysGo || FOCUS_REPORTS.has(chunk) || isIdleMotion(chunk)) return;
      this.#send({ op: "input", viewer: this.viewer, data: chunk });
    });
    this.#disposers.push(() => data.dispose());
    if (typeof ResizeObserver !== "undefined") {
      this.#observer = new ResizeObserver(() => {
        if (this.#isOpen && this.#term) this.#fit(this.#term, true);
      });
      this.#observer.observe(this.#screen);
    }
    this.#term = term;
    return term;
  }

  /** Size the terminal to its element; tell the kernel when it changed while live. */
  #fit(term: TerminalLike, tell = false): void {
    const proposed = term.proposeSize();
    if (!proposed || proposed.cols <= 0 || proposed.rows <= 0) return;
    if (proposed.cols === this.#size.cols && proposed.rows === this.#size.rows) return;
    this.#size = { cols: proposed.cols, rows: proposed.rows };
    if (tell && this.#live) this.#send({ op: "resize", viewer: this.viewer, ...this.#size });
  }

  /** The switch asks for (or gives up) the keys: only a live, open pane grants them. */
  #setTakeover(on: boolean): void {
    const s = this.#state;
    const allowed = on && s.kind === "live";
    if (s.kind === "live" || s.kind === "still") this.#state = { ...s, takenOver: allowed };
    this.#showTakeover(allowed);
    if (allowed) this.#term?.focus();
    if (s.kind === "live") this.#setStatus(this.#liveStatus());
    this.#render();
  }

  /** The keys stay here: the switch off, the terminal deaf (closing, or the run ended). */
  #releaseKeys(): void {
    const s = this.#state;
    if (s.kind === "live" || s.kind === "still") this.#state = { ...s, takenOver: false };
    this.#showTakeover(false);
  }

  #showTakeover(on: boolean): void {
    this.#switch.checked = on;
    this.#switch.setAttribute("aria-checked", String(on));
    this.#term?.setInput(on);
  }

  readonly #onPaste = (event: ClipboardEvent): void => {
    event.preventDefault();
    event.stopPropagation();
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (!this.#keysGo || text === "") return;
    this.#send({ op: "paste", viewer: this.viewer, text });
  };

  #liveStatus(): string {
    return this.takenOver ? STATUS.takenOver : STATUS.readOnly;
  }

  #noKernel(): void {
    if (this.#state.kind !== "opening") return;
    this.#showSaved(this.#saved ? STATUS.saved : STATUS.noKernel);
  }

  #showSaved(status: string): void {
    const saved = this.#saved;
    if (saved && this.#available) {
      const term = this.#ensureTerminal();
      term.reset();
      term.resize(saved.cols, saved.rows);
      term.write(saved.data);
    } else if (saved) {
      const term = this.#ensureTerminal();
      term.reset();
      term.write(saved.data);
    }
    this.#setStatus(status);
    this.#render();
  }

  #scheduleKeep(): void {
    if (this.#saveTimer !== undefined) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      this.#keep();
    }, SAVE_DELAY_MS);
  }

  /** Keep the screen for a saved notebook, when it shows something the kernel sent. */
  #keep(): void {
    const term = this.#term;
    const save = this.#options.save;
    if (!term || !this.#synced || !save) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    const ended = this.#ended;
    // What was written last may not be parsed yet.
    term.afterWrites(() => {
      if (this.#term !== term) return; // destroyed meanwhile
      const screen = { data: term.serialize(), cols: term.cols, rows: term.rows, ended };
      this.#saved = screen;
      save(screen);
    });
  }

  #stopTimers(): void {
    clearInterval(this.#pingTimer);
    clearTimeout(this.#kernelTimer);
    this.#pingTimer = undefined;
    this.#kernelTimer = undefined;
  }

  /**
   * Tell the kernel this viewer went. Sent from every open state, not only `live`: the
   * kernel attaches for a viewer as soon as its `open` arrives, before the first screen
   * comes back, and would otherwise stream to it until its lease ran out.
   */
  #sendClose(): void {
    if (this.#available && !this.#ended) this.#send({ op: "close", viewer: this.viewer });
  }

  #send(msg: TermOutMsg): boolean {
    try {
      this.#port.send(msg);
      return true;
    } catch {
      // No kernel (a saved notebook): the saved screen is all there is.
      return false;
    }
  }

  #setStatus(text: string): void {
    this.#status.textContent = text;
  }

  #render(): void {
    if (this.#state.kind === "destroyed") return;
    const open = this.#isOpen;
    this.el.dataset.open = String(open);
    this.el.dataset.live = String(this.#live);
    this.el.dataset.takeover = String(this.takenOver);
    this.el.hidden = !this.#available && !this.#saved;
    this.#toggle.setAttribute("aria-expanded", String(open));
    this.#toggle.textContent = open ? "Hide terminal" : "Terminal";
    this.#switch.disabled = !this.#live;
    this.#takeover.hidden = !open;
    this.#status.hidden = !open;
  }
}
