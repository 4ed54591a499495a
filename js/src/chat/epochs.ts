// Conversations a clear ended, kept above the current one: one collapsed section each
// ("Earlier conversation, 14 messages"), rendered only when opened.
import type { CodeHost } from "./codeblocks";
import { dialogContext } from "./dialog-form";
import { h, syncChildren } from "../shared/dom";
import { createToolGroup, renderMessage, subthread, type RenderContext } from "./message";
import { groupMessages, threads, toolGroupLabel } from "./format";
import type { Message, PastConversation } from "../types";

/** The section's title: how many messages the conversation had (sub-agents' not counted). */
export function pastLabel(past: PastConversation): string {
  const n = past.messages.filter((m) => !m.parent_tool_id).length;
  return `Earlier conversation, ${n} message${n === 1 ? "" : "s"}`;
}

/** A thread's elements: tool calls grouped, each sub-agent inside its call's card. */
export function renderThread(messages: readonly Message[], ctx: RenderContext): HTMLElement[] {
  const { top, children } = threads(messages);
  const placed = new Set<string>();
  const one = (message: Message): HTMLElement => {
    const el = renderMessage(message, ctx);
    const id = message.tool?.id;
    const kids = id && !placed.has(id) ? children.get(id) : undefined;
    if (id && kids) {
      placed.add(id); // a malformed parent chain must not loop
      const body = el.querySelector<HTMLElement>(":scope > .lw-tool-body") ?? el;
      const box = body.querySelector<HTMLElement>(":scope > .lw-subthread") ?? subthread();
      if (!box.isConnected) body.append(box);
      syncChildren(box, arrange(kids));
    }
    return el;
  };
  const arrange = (list: readonly Message[]): HTMLElement[] =>
    groupMessages(list).map((group) => {
      if (group.type === "message") return one(group.message);
      const view = createToolGroup();
      view.label.textContent = toolGroupLabel(group.messages);
      view.el.dataset.count = String(group.messages.length);
      syncChildren(view.list, group.messages.map(one));
      return view.el;
    });
  return arrange(top);
}

/** The earlier conversations of a chat, as collapsed sections. */
export class PastConversations {
  readonly el = h("div", { class: "lw-past", "aria-label": "Earlier conversations" });

  /** Their own: seqs start again in every conversation, and none has a dialog to answer. */
  readonly #ctx: RenderContext;
  /** Which sections the user opened, by position and id: a re-sync keeps them open. */
  readonly #open = new Set<string>();
  #shown: readonly PastConversation[] = [];

  constructor(code?: CodeHost) {
    this.#ctx = {
      expanded: new Set(),
      dialogs: dialogContext(() => undefined),
      code,
    };
    this.el.hidden = true;
  }

  /** Code blocks rendered from now on offer these actions. */
  setCode(code: CodeHost | undefined): void {
    this.#ctx.code = code;
  }

  set(past: readonly PastConversation[]): void {
    if (past === this.#shown) return;
    this.#shown = past;
    this.el.replaceChildren(...past.map((p, i) => this.#section(p, i)));
    this.el.hidden = past.length === 0;
  }

  #section(past: PastConversation, index: number): HTMLElement {
    const key = `${index}:${past.transcript_id ?? ""}`;
    const log = h("div", { class: "lw-past-log" });
    const section = h(
      "details",
      { class: "lw-past-conversation", "data-transcript-id": past.transcript_id ?? "" },
      h("summary", { class: "lw-past-label" }, pastLabel(past)),
      log,
    );
    const fill = () => {
      if (log.childElementCount === 0 && past.messages.length) {
        log.replaceChildren(...renderThread(past.messages, this.#ctx));
      }
    };
    section.addEventListener("toggle", () => {
      if (section.open) {
        this.#open.add(key);
        fill();
      } else this.#open.delete(key);
    });
    if (this.#open.has(key)) {
      section.open = true;
      fill();
    }
    return section;
  }
}
