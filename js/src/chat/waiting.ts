// What the chat shows of what is on its way and not in the transcript yet: prompts sent
// while the agent works (the agent takes them when its turn ends) and a line while the
// model has not answered a prompt at all.
import { h } from "../shared/dom";
import type { Message } from "../types";

export const WAITING_TEXT = "Waiting for the model…";
export const QUEUED_LABEL = "Queued: sent when the agent finishes its turn";

/** Prompts the user wrote: what the agent took of the queued ones shows as these. */
export function userPrompts(messages: readonly Message[]): number {
  return messages.filter((m) => m.role === "user" && m.parent_tool_id == null).length;
}

/** The agent works on a prompt and nothing of its answer has come yet. */
export function awaitingModel(state: string, messages: readonly Message[]): boolean {
  if (state !== "working") return false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.parent_tool_id != null || m.kind === "lifecycle") continue;
    return m.role === "user";
  }
  return true;
}

export class WaitingTail {
  readonly el = h("div", { class: "lw-tail" });

  /** Prompts sent and not yet in the transcript, oldest first. */
  #queued: { text: string }[] = [];
  /** User prompts in the transcript when the oldest queued one was sent. */
  #base = 0;
  #waiting = false;

  /** A prompt sent while the agent works; returns what drops it again (its send failed). */
  queue(text: string, prompts: number): () => void {
    if (this.#queued.length === 0) this.#base = prompts;
    const entry = { text };
    this.#queued.push(entry);
    this.#draw();
    return () => {
      const at = this.#queued.indexOf(entry);
      if (at < 0) return;
      this.#queued.splice(at, 1);
      this.#draw();
    };
  }

  /** The conversation or the state moved: prompts the agent took leave the queue. */
  update(prompts: number, waiting: boolean, reset = false): void {
    if (reset) this.#queued = [];
    // Each new prompt in the transcript is the oldest queued one, delivered.
    while (this.#queued.length && prompts > this.#base) {
      this.#queued.shift();
      this.#base++;
    }
    if (this.#queued.length === 0) this.#base = prompts;
    this.#waiting = waiting && this.#queued.length === 0;
    this.#draw();
  }

  /** The run ended: nothing queued will be delivered. */
  drop(): void {
    this.#queued = [];
    this.#waiting = false;
    this.#draw();
  }

  get queued(): readonly string[] {
    return this.#queued.map((q) => q.text);
  }

  #draw(): void {
    const parts: HTMLElement[] = [];
    if (this.#waiting) {
      parts.push(h("div", { class: "lw-waiting", role: "status" }, WAITING_TEXT));
    }
    for (const { text } of this.#queued) {
      parts.push(
        h(
          "div",
          { class: "lw-text lw-user lw-queued" },
          h("div", { class: "lw-bubble" }, text),
          h("div", { class: "lw-queued-label" }, QUEUED_LABEL),
        ),
      );
    }
    this.el.replaceChildren(...parts);
    this.el.hidden = parts.length === 0;
  }
}
