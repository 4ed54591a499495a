// xterm.js behind the terminal pane's `TerminalLike`, hardened for an agent's output:
// the agent's bytes are terminal text and nothing else.
//
// - No HTML path: xterm.js draws cells, and no addon that renders links or images is
//   loaded (no web-links, no image, no clipboard addon).
// - OSC 8 hyperlinks are dropped (their text still shows), so nothing can be opened from
//   the agent's output; OSC 52 clipboard writes are dropped too.
// - Queries a terminal answers (device attributes, cursor position, modes, colours,
//   status strings) are dropped: tmux, the agent's real terminal, answered them already,
//   and an answer typed into the agent after take-over would be garbage input.
import "@xterm/xterm/css/xterm.css";
import { FitAddon } from "@xterm/addon-fit";
import { SerializeAddon } from "@xterm/addon-serialize";
import { Terminal, type IParser } from "@xterm/xterm";
import type { TerminalLike } from "./pane";

const SCROLLBACK = 5000;
/** Lines of scrollback kept with a saved screen. */
const SAVED_SCROLLBACK = 200;

const DROPPED_OSC = [
  4, // palette colour set or query
  8, // hyperlinks
  10, // foreground colour query
  11, // background colour query
  12, // cursor colour query
  52, // clipboard write or read
];

const DROPPED_CSI = [
  { final: "c" }, // primary device attributes
  { prefix: ">", final: "c" }, // secondary device attributes
  { prefix: "=", final: "c" }, // tertiary device attributes
  { final: "n" }, // device status report (cursor position)
  { prefix: "?", final: "n" }, // private status report
  { intermediates: "$", final: "p" }, // ANSI mode query
  { prefix: "?", intermediates: "$", final: "p" }, // private mode query
  { prefix: ">", final: "q" }, // terminal name and version
  { prefix: "?", final: "u" }, // keyboard protocol query
];

/** Make a terminal's parser drop links, clipboard writes and every query. */
export function hardenParser(parser: IParser): { dispose(): void } {
  const handlers = [
    ...DROPPED_OSC.map((ident) => parser.registerOscHandler(ident, () => true)),
    ...DROPPED_CSI.map((id) => parser.registerCsiHandler(id, () => true)),
    parser.registerDcsHandler({ intermediates: "$", final: "q" }, () => true), // DECRQSS
    parser.registerDcsHandler({ intermediates: "+", final: "q" }, () => true), // XTGETTCAP
    // Window reports (sizes in pixels or cells) answer with data: dropped; the rest of
    // CSI t (title stack pushes and pops) goes on to xterm.js.
    parser.registerCsiHandler({ final: "t" }, (params) => {
      const first = params[0];
      return typeof first === "number" && [11, 13, 14, 15, 16, 18, 19, 20, 21].includes(first);
    }),
  ];
  return { dispose: () => handlers.forEach((d) => d.dispose()) };
}

function cssVar(el: HTMLElement, name: string, fallback: string): string {
  const value = getComputedStyle(el).getPropertyValue(name).trim();
  return value || fallback;
}

export function createXterm(): TerminalLike {
  const term = new Terminal({
    disableStdin: true,
    scrollback: SCROLLBACK,
    cursorBlink: false,
    fontSize: 13,
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
    // Links from the agent would open with one click otherwise (after a confirm).
    linkHandler: null,
    // Bells, titles and the like stay in the terminal; nothing reaches the page.
    allowProposedApi: false,
    theme: { background: "#1e1e1e", foreground: "#d4d4d4", cursor: "#d4d4d4" },
  });
  hardenParser(term.parser);
  const fit = new FitAddon();
  const serializer = new SerializeAddon();
  term.loadAddon(fit);
  term.loadAddon(serializer);
  let opened = false;
  return {
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    open(parent) {
      if (opened) return;
      opened = true;
      term.open(parent);
      const bg = cssVar(parent, "--lw-term-bg", "#1e1e1e");
      const fg = cssVar(parent, "--lw-term-fg", "#d4d4d4");
      term.options.theme = { background: bg, foreground: fg, cursor: fg };
    },
    write: (data) => term.write(data),
    afterWrites: (callback) => term.write("", callback),
    reset: () => term.reset(),
    resize: (cols, rows) => term.resize(cols, rows),
    onData: (listener) => term.onData(listener),
    setInput(enabled) {
      term.options.disableStdin = !enabled;
    },
    focus: () => term.focus(),
    proposeSize() {
      const size = fit.proposeDimensions();
      return size && Number.isFinite(size.cols) && Number.isFinite(size.rows)
        ? { cols: size.cols, rows: size.rows }
        : null;
    },
    serialize: () => serializer.serialize({ scrollback: SAVED_SCROLLBACK }),
    dispose: () => term.dispose(),
  };
}
