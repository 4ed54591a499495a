// Mounting a ChatView in jsdom with fake actions, for the DOM tests; and a fake
// anywidget model for the adapters' tests.
import { afterEach, vi } from "vitest";
import { ConversationStore } from "../src/chat/store";
import type { Message } from "../src/types";
import { ChatView, type ChatActions, type ChatViewOptions, type RunInfo } from "../src/chat/view";

export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

type Handler = (...args: unknown[]) => void;

/** The chat widget's run traits, for a FakeModel. */
export const CHAT_TRAITS = {
  provider_name: "Agent X",
  state: "idle",
  state_reason: "",
  attach_command: "tmux attach -t run-1",
  clear_command: "/clear",
};

/** Just enough of an ipywidgets model: traits, events, custom messages. */
export class FakeModel {
  readonly attrs: Record<string, unknown>;
  readonly handlers = new Map<string, Set<Handler>>();
  readonly sent: Record<string, unknown>[] = [];
  saves = 0;

  constructor(traits: Record<string, unknown> = {}) {
    this.attrs = { ...traits };
  }

  get(key: string): unknown {
    return this.attrs[key];
  }

  set(key: string, value: unknown): void {
    const old = this.attrs[key];
    this.attrs[key] = value;
    if (old !== value) this.emit(`change:${key}`);
  }

  on(event: string, handler: Handler): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
  }

  off(event?: string | null, handler?: Handler | null): void {
    if (event && handler) this.handlers.get(event)?.delete(handler);
  }

  send(msg: Record<string, unknown>): void {
    this.sent.push(msg);
  }

  save_changes(): void {
    this.saves += 1;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const handler of [...(this.handlers.get(event) ?? [])]) handler(...args);
  }

  /** The kernel sends a custom message. */
  fromKernel(msg: Record<string, unknown>): void {
    this.emit("msg:custom", msg, []);
  }

  /** The kernel changes a trait. */
  kernelSets(key: string, value: unknown): void {
    this.set(key, value);
  }

  listenerCount(): number {
    let n = 0;
    for (const set of this.handlers.values()) n += set.size;
    return n;
  }

  /** The messages sent of one kind ("action", "sync", "term"). */
  sentOf(kind: string): Record<string, unknown>[] {
    return this.sent.filter((m) => m.kind === kind);
  }
}

export interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const INFO: RunInfo = {
  providerName: "Agent X",
  state: "idle",
  stateReason: "",
  attachCommand: "tmux -S /tmp/x.sock attach -t run-1",
  clearCommand: "/clear",
  kernelTools: null,
};

let views: ChatView[] = [];

export function mount(
  messages: Message[] = [],
  info: Partial<RunInfo> = {},
  store?: ConversationStore,
  options: Pick<ChatViewOptions, "pendingDialog" | "commands" | "variables" | "code"> = {},
) {
  const root = document.createElement("div");
  document.body.append(root);
  const actions = {
    send: vi.fn<ChatActions["send"]>(() => Promise.resolve()),
    interrupt: vi.fn<ChatActions["interrupt"]>(() => Promise.resolve()),
    clear: vi.fn<ChatActions["clear"]>(() => Promise.resolve()),
    answer: vi.fn<ChatActions["answer"]>(() => Promise.resolve()),
    restart: vi.fn<NonNullable<ChatActions["restart"]>>(() => Promise.resolve()),
  };
  const view = new ChatView(root, actions, { store, info: { ...INFO, ...info }, ...options });
  if (!store) view.applySnapshot({ transcript_id: "t-1", version: 0, messages });
  views.push(view);
  const q = <T extends Element = HTMLElement>(selector: string) => root.querySelector<T>(selector)!;
  const msg = (seq: number) => root.querySelector<HTMLElement>(`.lw-msg[data-seq="${seq}"]`);
  return { root, view, actions, q, msg };
}

export function type(input: HTMLTextAreaElement | HTMLInputElement, value: string) {
  input.value = value;
  input.setSelectionRange(value.length, value.length);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

export function press(input: HTMLElement, init: KeyboardEventInit) {
  const event = new KeyboardEvent("keydown", { bubbles: true, cancelable: true, ...init });
  input.dispatchEvent(event);
  return event;
}

afterEach(() => {
  for (const view of views) view.destroy();
  views = [];
  document.body.replaceChildren();
});
