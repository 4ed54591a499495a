// The request/response action channel of every widget's front end (the chat view,
// the runs table, the login card); lab_widget/_widgets/_channel.py is the kernel side.
//
// - Each request gets an id unique across browser tabs: every tab on the kernel
//   sees every result, and must settle only its own.
// - Each request has its own timeout. When it passes, the request fails with
//   "no answer from the kernel" and a cancel goes to the kernel, which skips the
//   action if it has not started; a result that still arrives for it is ignored.
// - A failed action rejects with the kernel's error, for the view to show.
import { isObj } from "../shared/guards";
import type { ActionMsg, CancelMsg, ResultMsg } from "../types";

export const ACTION_TIMEOUT_MS = 30_000;

/** Why an action failed. */
export type ActionFailure = "failed" | "timeout" | "closed" | "unsent";

/** A failed action: the kernel's error, a timeout, a closed widget or a send that threw. */
export class ActionError extends Error {
  readonly action: string;
  readonly id: string;
  readonly reason: ActionFailure;

  constructor(message: string, action: string, id: string, reason: ActionFailure) {
    super(message);
    this.name = "ActionError";
    this.action = action;
    this.id = id;
    this.reason = reason;
  }
}

/** The part of an anywidget model the channel uses. */
export interface MessagePort {
  on(event: "msg:custom", handler: (msg: unknown) => void): void;
  off(event: "msg:custom", handler: (msg: unknown) => void): void;
  send(msg: object): void;
}

export interface RequestOptions {
  /** This request's timeout; the channel's default otherwise. */
  timeoutMs?: number;
}

export interface ChannelOptions {
  timeoutMs?: number;
}

let counter = 0;

function randomPart(): string {
  // crypto.randomUUID needs a secure context, which plain-http notebook servers
  // are not; getRandomValues does not.
  const c = globalThis.crypto;
  if (c && typeof c.getRandomValues === "function") {
    const bytes = c.getRandomValues(new Uint8Array(8));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  return Math.random().toString(16).slice(2, 18).padEnd(16, "0");
}

/** An id no other tab or widget will make: time, a per-page counter, 64 random bits. */
export function newActionId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${counter.toString(36)}-${randomPart()}`;
}

interface Pending {
  action: string;
  resolve(value: unknown): void;
  reject(error: ActionError): void;
  timer: ReturnType<typeof setTimeout>;
}

/** Arguments are optional for actions that carry none. */
type ArgsOf<M, K extends keyof M> =
  Record<string, never> extends M[K]
    ? [args?: M[K], options?: RequestOptions]
    : [args: M[K], options?: RequestOptions];

/**
 * Actions over one model's custom messages. `M` maps each action name to what it
 * carries (e.g. `ChatActionArgs`); a request settles with the kernel's result.
 */
export class ActionChannel<M extends { [K in keyof M]: object }> {
  readonly #model: MessagePort;
  readonly #timeoutMs: number;
  readonly #pending = new Map<string, Pending>();

  constructor(model: MessagePort, options: ChannelOptions = {}) {
    this.#model = model;
    this.#timeoutMs = options.timeoutMs ?? ACTION_TIMEOUT_MS;
    model.on("msg:custom", this.#onMessage);
  }

  /** Requests still waiting for their result. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Run `action` in the kernel; settles with its result, or fails after the timeout. */
  request<K extends keyof M & string>(action: K, ...rest: ArgsOf<M, K>): Promise<void> {
    return this.ask(action, ...rest).then(() => undefined);
  }

  /** Like `request`, settling with the value the kernel's result carries (undefined if none). */
  ask<K extends keyof M & string>(action: K, ...[args, options]: ArgsOf<M, K>): Promise<unknown> {
    const id = newActionId();
    // Absent, not undefined: the kernel reads the keys that are there.
    const extra = Object.fromEntries(Object.entries(args ?? {}).filter(([, v]) => v !== undefined));
    const msg: ActionMsg = { ...extra, kind: "action", id, action };
    const timeoutMs = options?.timeoutMs ?? this.#timeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => this.#expire(id), timeoutMs);
      this.#pending.set(id, { action, resolve, reject, timer });
      try {
        this.#model.send(msg);
      } catch (error) {
        this.#fail(id, error instanceof Error ? error.message : String(error), "unsent");
      }
    });
  }

  /** Stop listening; every waiting request fails with "the widget was closed". */
  dispose(): void {
    this.#model.off("msg:custom", this.#onMessage);
    for (const id of [...this.#pending.keys()]) this.#fail(id, "the widget was closed", "closed");
  }

  readonly #onMessage = (msg: unknown): void => {
    if (!isObj(msg) || msg.kind !== "result" || typeof msg.id !== "string") return;
    const result = msg as unknown as ResultMsg;
    const pending = this.#pending.get(result.id);
    // Another tab's action, or the late result of one that timed out: not ours to settle.
    if (!pending) return;
    this.#pending.delete(result.id);
    clearTimeout(pending.timer);
    if (result.ok === true) pending.resolve(result.value);
    else {
      const error = typeof result.error === "string" ? result.error : "the action failed";
      pending.reject(new ActionError(error, pending.action, result.id, "failed"));
    }
  };

  #expire(id: string): void {
    if (!this.#pending.has(id)) return;
    this.#fail(id, "no answer from the kernel", "timeout");
    try {
      this.#model.send({ kind: "cancel", id } satisfies CancelMsg);
    } catch {
      // No kernel to tell: nothing will run it either.
    }
  }

  #fail(id: string, message: string, reason: ActionFailure): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    pending.reject(new ActionError(message, pending.action, id, reason));
  }
}
