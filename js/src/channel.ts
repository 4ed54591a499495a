// The custom-message protocol with RunView in the kernel: deltas and snapshots
// in, sync requests and actions out, one channel per widget model.
import type { AnyModel } from "@anywidget/types";
import { ConversationStore } from "./store";
import type { ActionArgs, ActionKind, DeltaMsg, FrontendMsg, Snapshot, Traits } from "./types";

export const ACTION_TIMEOUT_MS = 30_000;
/** A sync that got no snapshot back by then may be asked again. */
const SYNC_RETRY_MS = 5_000;

export interface ChannelOptions {
  timeoutMs?: number;
}

interface Pending {
  resolve(): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null;

let counter = 0;

// Every browser tab on the kernel sees every result, so ids must not collide
// across tabs; crypto.randomUUID needs a secure context, which plain-http
// notebook servers are not.
function newId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export class KernelChannel {
  readonly store: ConversationStore;

  readonly #model: AnyModel<Traits>;
  readonly #timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  readonly #unsubscribe: () => void;
  /** The `_snapshot` value this front end set last, to tell our echo from the kernel's. */
  #published: unknown;
  #syncSentAt: number | null = null;

  constructor(model: AnyModel<Traits>, options: ChannelOptions = {}) {
    this.#model = model;
    this.#timeoutMs = options.timeoutMs ?? ACTION_TIMEOUT_MS;
    this.#published = model.get("_snapshot");
    this.store = new ConversationStore(this.#published);
    this.#unsubscribe = this.store.subscribe(() => this.#publish());
    model.on("msg:custom", this.#onMessage);
    model.on("change:_snapshot", this.#onSnapshotTrait);
    // Messages the kernel sent before this front end existed are lost: ask for
    // the current conversation.
    this.#requestSync();
  }

  /** Run an action in the kernel; settles with its result, or fails after the timeout. */
  request(action: ActionKind, args: ActionArgs = {}): Promise<void> {
    const id = newId();
    // Absent, not undefined: the kernel reads the keys that are there.
    const extra = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
    const msg: FrontendMsg = { ...extra, kind: "action", id, action };
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error("no answer from the kernel"));
      }, this.#timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      try {
        this.#model.send(msg);
      } catch (error) {
        clearTimeout(timer);
        this.#pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  dispose(): void {
    this.#model.off("msg:custom", this.#onMessage);
    this.#model.off("change:_snapshot", this.#onSnapshotTrait);
    this.#unsubscribe();
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new Error("the widget was closed"));
    }
    this.#pending.clear();
  }

  readonly #onMessage = (msg: unknown): void => {
    if (!isObj(msg)) return;
    switch (msg.kind) {
      case "delta":
        if (
          typeof msg.base !== "number" ||
          typeof msg.version !== "number" ||
          this.store.applyDelta(msg as unknown as DeltaMsg) === "gap"
        ) {
          this.#requestSync();
        }
        break;
      case "snapshot":
        this.#syncSentAt = null;
        this.store.applySnapshot(msg);
        break;
      case "result":
        this.#settle(msg);
        break;
    }
  };

  readonly #onSnapshotTrait = (): void => {
    const value = this.#model.get("_snapshot");
    if (value === this.#published) return;
    this.#published = value;
    this.store.applySnapshot(value);
  };

  #settle(msg: Obj): void {
    const id = typeof msg.id === "string" ? msg.id : "";
    const pending = this.#pending.get(id);
    if (!pending) return; // another tab's action, or one that already timed out
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (msg.ok === true) pending.resolve();
    else pending.reject(new Error(typeof msg.error === "string" ? msg.error : "the action failed"));
  }

  // Deltas that arrive while a snapshot is on its way all fail to apply; one
  // request is enough for all of them.
  #requestSync(): void {
    const now = Date.now();
    if (this.#syncSentAt !== null && now - this.#syncSentAt < SYNC_RETRY_MS) return;
    this.#syncSentAt = now;
    try {
      this.#model.send({ kind: "sync" } satisfies FrontendMsg);
    } catch {
      // No kernel (a saved notebook opened read-only): the saved snapshot is all there is.
    }
  }

  // The kernel never re-sends the whole conversation, so keep the trait current
  // here: a notebook saved with widget state then holds all of it. No
  // save_changes(): the kernel has it already, and it can be large.
  #publish(): void {
    const snapshot: Snapshot = this.store.snapshot();
    this.#published = snapshot;
    this.#model.set("_snapshot", snapshot);
  }
}
