// Mounting a ChatView in jsdom with fake actions, for the DOM tests.
import { afterEach, vi } from "vitest";
import { ConversationStore } from "../src/store";
import type { Message } from "../src/types";
import { ChatView, type ChatActions, type ChatViewOptions, type RunInfo } from "../src/view";

export const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

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
