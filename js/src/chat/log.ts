// The chat's message log: one element per message, laid out in tool groups and
// sub-agent threads, re-rendered in place as the store changes, and kept scrolled to
// the end while the user is there. The earlier conversations sit above it.
import { h, syncChildren } from "../shared/dom";
import { PastConversations } from "./epochs";
import { groupMessages, threads, toolGroupLabel } from "./format";
import {
  createToolGroup,
  renderMessage,
  subthread,
  type RenderContext,
  type ToolGroupView,
} from "./message";
import type { ConversationStore, StoreChange } from "./store";
import type { Dialog, Message } from "../types";

/** How close to the end (px) still counts as "at the bottom". */
const BOTTOM_SLACK = 32;

export class MessageLog {
  /** The log's scroller with the earlier conversations, and its "jump to latest" button. */
  readonly el: HTMLElement;

  readonly #store: ConversationStore;
  readonly #ctx: RenderContext;
  readonly #messageEls = new Map<number, HTMLElement>();
  #groups = new Map<string, ToolGroupView>();
  readonly #disposers: (() => void)[] = [];
  #atBottom = true;

  readonly #log = h("div", { class: "lw-log", role: "log", "aria-label": "Conversation" });
  readonly #scroller = h("div", { class: "lw-scroll" }, this.#log);
  readonly #jump = h(
    "button",
    { type: "button", class: "lw-jump", hidden: true },
    "↓ Jump to latest",
  );
  readonly #past: PastConversations;
  /** The pending dialog's form when no message of the log carries it yet. */
  #orphan: { key: string; el: HTMLElement } | null = null;

  /** `ctx` is the view's: what the user expanded and the dialogs' state. */
  constructor(store: ConversationStore, ctx: RenderContext) {
    this.#store = store;
    this.#ctx = ctx;
    this.#past = new PastConversations(ctx.code);
    this.#scroller.prepend(this.#past.el);
    this.el = h("div", { class: "lw-body" }, this.#scroller, this.#jump);

    this.#jump.addEventListener("click", () => this.#scrollToBottom());
    this.#scroller.addEventListener("scroll", this.#onScroll, { passive: true });

    // The element may not be laid out yet (a notebook renders outputs detached),
    // and cells get resized: stay pinned to the end whenever the size changes.
    if (typeof ResizeObserver !== "undefined") {
      const observer = new ResizeObserver(() => {
        if (this.#atBottom) this.#scrollToBottom();
      });
      observer.observe(this.#scroller);
      observer.observe(this.#log);
      this.#disposers.push(() => observer.disconnect());
    }

    this.#disposers.push(store.subscribe((change) => this.#onStoreChange(change)));
  }

  /** Render every message afresh and scroll to the end. */
  render(): void {
    this.#past.set(this.#store.past);
    this.#messageEls.clear();
    this.#groups.clear();
    this.#log.replaceChildren();
    for (const message of this.#store.messages) {
      this.#messageEls.set(message.seq, renderMessage(message, this.#ctx));
    }
    this.#layout();
    this.#scrollToBottom();
  }

  /** Render again the dialog cards `match` picks (their context changed). */
  rerenderDialogs(match: (dialog: Dialog) => boolean): void {
    let any = false;
    for (const message of this.#store.messages) {
      if (message.kind === "dialog" && message.dialog && match(message.dialog)) {
        this.#rerender(message.seq);
        any = true;
      }
    }
    const orphan = this.#orphan;
    const pending = this.#ctx.dialogs.pending;
    if (orphan && pending && orphan.key === orphanKey(pending, this.#store.messages)) {
      if (match(pending)) {
        // Same dialog, new context (sent, an error, the attach command): render it again.
        this.#orphan = { key: orphan.key, el: this.#orphanElement(pending) };
        this.#swap(orphan.el, this.#orphan.el);
      }
      if (!any) return;
    } else if (!any && orphanKey(pending, this.#store.messages) === (orphan?.key ?? null)) {
      return;
    }
    this.#layout();
    this.#followNewContent();
  }

  /** Show `el` after the messages (what is on its way); call `contentAdded` as it changes. */
  setTail(el: HTMLElement): void {
    this.#scroller.append(el);
  }

  /** Something below the messages changed: follow it when the log follows the end. */
  contentAdded(): void {
    this.#followNewContent();
  }

  /** How far the log is scrolled: null when it follows the end. */
  scrollPosition(): number | null {
    return this.#atBottom ? null : this.#scroller.scrollTop;
  }

  /** Scroll back to a position `scrollPosition` gave (once laid out). */
  restoreScroll(position: number | null): void {
    if (position === null) return;
    this.#atBottom = false;
    this.#scroller.scrollTop = position;
    this.#jump.hidden = false;
  }

  /** The dialog forms shown, or only those answering `toolId`. */
  dialogForms(toolId?: string): HTMLFormElement[] {
    return [...this.#log.querySelectorAll<HTMLFormElement>(".lw-dialog-form")].filter(
      (form) => toolId === undefined || form.dataset.toolId === toolId,
    );
  }

  destroy(): void {
    for (const dispose of this.#disposers) dispose();
  }

  // -- messages --------------------------------------------------------------

  #onStoreChange(change: StoreChange): void {
    if (change.past || change.reset) this.#past.set(this.#store.past);
    if (change.reset) {
      this.#ctx.expanded.clear();
      this.render();
      return;
    }
    for (const seq of change.removed) {
      this.#messageEls.get(seq)?.remove();
      this.#messageEls.delete(seq);
    }
    for (const seq of change.changed) this.#rerender(seq);
    this.#layout();
    this.#followNewContent();
  }

  /** Render message `seq` again, in place, keeping what the user had open and focused. */
  #rerender(seq: number): void {
    const message = this.#store.get(seq);
    if (!message) return;
    const el = renderMessage(message, this.#ctx);
    const old = this.#messageEls.get(seq);
    this.#messageEls.set(seq, el);
    if (old) this.#swap(old, el);
  }

  /** Put `el` where `old` is, keeping what the user had open and focused in it. */
  #swap(old: HTMLElement, el: HTMLElement): void {
    if (old instanceof HTMLDetailsElement && el instanceof HTMLDetailsElement) el.open = old.open;
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && old.contains(active) ? active : null;
    old.replaceWith(el);
    // A dialog form re-rendered while the user works in it keeps their place.
    const key = focused?.dataset.focusKey;
    const twin = key ? el.querySelector<HTMLElement>(`[data-focus-key="${key}"]`) : null;
    if (!twin) return;
    twin.focus();
    const typing = focused instanceof HTMLInputElement && focused.type === "text";
    if (typing && twin instanceof HTMLInputElement) {
      twin.setSelectionRange(focused.selectionStart, focused.selectionEnd);
    }
  }

  /**
   * Put message elements into groups and order, touching only what moved. A sub-agent's
   * messages go inside the card of the call that started it, grouped the same way.
   */
  #layout(): void {
    const groups = new Map<string, ToolGroupView>();
    const { top, children } = threads(this.#store.messages);
    const placed = new Set<string>();
    const elementOf = (seq: number): HTMLElement => {
      let el = this.#messageEls.get(seq);
      if (!el) {
        el = renderMessage(this.#store.get(seq)!, this.#ctx);
        this.#messageEls.set(seq, el);
      }
      return el;
    };
    const nest = (el: HTMLElement, message: Message): void => {
      const id = message.tool?.id;
      if (!id) return;
      const body = el.querySelector<HTMLElement>(":scope > .lw-tool-body") ?? el;
      let box = body.querySelector<HTMLElement>(":scope > .lw-subthread");
      const kids = placed.has(id) ? undefined : children.get(id);
      if (!kids) {
        if (box) syncChildren(box, []);
        return;
      }
      placed.add(id); // a malformed parent chain must not loop
      if (!box) {
        box = subthread();
        body.append(box);
      }
      arrange(box, kids);
      // The call's result is the sub-agent's report, which its thread shows as a reply of
      // its own: shown once, there.
      const report = message.tool?.output?.trim();
      const said = kids.some(
        (m) => m.role === "assistant" && m.kind === "text" && m.text.trim() === report,
      );
      if (said) el.dataset.reportShown = "";
      else delete el.dataset.reportShown;
    };
    const arrange = (container: Element, list: readonly Message[]): void => {
      const out: HTMLElement[] = [];
      for (const group of groupMessages(list)) {
        if (group.type === "message") {
          const el = elementOf(group.message.seq);
          nest(el, group.message);
          out.push(el);
          continue;
        }
        const view = this.#groups.get(group.key) ?? createToolGroup();
        groups.set(group.key, view);
        syncChildren(
          view.list,
          group.messages.map((m) => {
            const el = elementOf(m.seq);
            nest(el, m);
            return el;
          }),
        );
        const label = toolGroupLabel(group.messages);
        if (view.labelText !== label) {
          view.label.textContent = label;
          view.labelText = label;
        }
        const count = String(group.messages.length);
        if (view.el.dataset.count !== count) {
          view.el.dataset.count = count;
          // A lone call has no group header to reopen it with.
          if (group.messages.length === 1) view.el.open = true;
        }
        out.push(view.el);
      }
      if (container === this.#log) {
        const orphan = this.#orphanForm();
        if (orphan) out.push(orphan);
      }
      syncChildren(container, out);
    };
    arrange(this.#log, top);
    this.#groups = groups;
    // A form the agent waits on (a sub-agent's permission prompt nested in its call's
    // card, a call in a collapsed group) must be seen: open every fold around it.
    for (const form of this.#log.querySelectorAll<HTMLElement>(".lw-dialog-form")) {
      for (let p = form.parentElement; p && p !== this.#log; p = p.parentElement) {
        if (p instanceof HTMLDetailsElement && !p.open) p.open = true;
      }
    }
  }

  /**
   * The dialog the agent waits on, as a card of its own at the end of the log, while no
   * message shows it: a CLI may record the call only once it is answered, and a pending
   * dialog must always be answerable where the user looks.
   */
  #orphanForm(): HTMLElement | null {
    const pending = this.#ctx.dialogs.pending;
    const key = orphanKey(pending, this.#store.messages);
    if (key === null || pending === null) {
      this.#orphan = null;
      return null;
    }
    if (this.#orphan?.key !== key) this.#orphan = { key, el: this.#orphanElement(pending) };
    return this.#orphan.el;
  }

  #orphanElement(pending: Dialog): HTMLElement {
    const message: Message = {
      seq: -1,
      kind: "dialog",
      role: "assistant",
      text: "",
      dialog: pending,
      thinking: false,
      redacted: false,
      attachments: [],
      detail: "",
    };
    const el = renderMessage(message, this.#ctx);
    el.classList.add("lw-pending-only");
    return el;
  }

  // -- scrolling -------------------------------------------------------------

  readonly #onScroll = (): void => {
    const s = this.#scroller;
    this.#atBottom = s.scrollHeight - s.scrollTop - s.clientHeight <= BOTTOM_SLACK;
    this.#jump.hidden = this.#atBottom;
  };

  #followNewContent(): void {
    if (this.#atBottom) this.#scrollToBottom();
    else this.#jump.hidden = false;
  }

  #scrollToBottom(): void {
    this.#scroller.scrollTop = this.#scroller.scrollHeight;
    this.#atBottom = true;
    this.#jump.hidden = true;
  }
}

/** What identifies the pending dialog's own card, or null when a message already shows it. */
function orphanKey(pending: Dialog | null, messages: readonly Message[]): string | null {
  if (pending === null || pending.tool_id == null || pending.status !== "pending") return null;
  const shown = messages.some((m) => m.kind === "dialog" && m.dialog?.tool_id === pending.tool_id);
  return shown ? null : JSON.stringify(pending);
}
