// The conversation's side of the protocol with RunView in the kernel: deltas and
// snapshots in, sync requests out, and the `_snapshot` trait kept current. One per
// widget model, shared by every view of it. Actions go through channel.ts.
import type { AnyModel } from "@anywidget/types";
import { isObj } from "../shared/guards";
import { ConversationStore } from "../chat/store";
import type { DeltaMsg, FrontendMsg, Snapshot, Traits } from "../types";

/** A sync that got no snapshot back by then may be asked again. */
const SYNC_RETRY_MS = 5_000;

export class ConversationSync {
  readonly store: ConversationStore;

  readonly #model: AnyModel<Traits>;
  readonly #unsubscribe: () => void;
  /** The `_snapshot` value this front end set last, to tell our echo from the kernel's. */
  #published: unknown;
  #syncSentAt: number | null = null;

  constructor(model: AnyModel<Traits>) {
    this.#model = model;
    this.#published = model.get("_snapshot");
    this.store = new ConversationStore(this.#published);
    this.#unsubscribe = this.store.subscribe(() => this.#publish());
    model.on("msg:custom", this.#onMessage);
    model.on("change:_snapshot", this.#onSnapshotTrait);
    // Messages the kernel sent before this front end existed are lost: ask for
    // the current conversation.
    this.#requestSync();
  }

  dispose(): void {
    this.#model.off("msg:custom", this.#onMessage);
    this.#model.off("change:_snapshot", this.#onSnapshotTrait);
    this.#unsubscribe();
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
    }
  };

  readonly #onSnapshotTrait = (): void => {
    const value = this.#model.get("_snapshot");
    if (value === this.#published) return;
    this.#published = value;
    this.store.applySnapshot(value);
  };

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
