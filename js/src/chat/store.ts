// The conversation as the front end knows it: snapshots and deltas in, a sorted,
// immutable message list and change notices out. Wire values are normalised on the way
// in (normalize.ts); what is derived for display lives in format.ts.
import { normalizeMessages, normalizeSnapshot } from "./normalize";
import type { DeltaMsg, Message, PastConversation, Snapshot } from "../types";

function samePast(a: readonly PastConversation[], b: readonly PastConversation[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (p, i) =>
        p.transcript_id === b[i]!.transcript_id && p.messages.length === b[i]!.messages.length,
    )
  );
}

/** What an update did, so a view can touch only what changed. */
export interface StoreChange {
  /** Everything was replaced (a new epoch): drop all state derived from the old messages. */
  reset: boolean;
  /** The earlier conversations changed (always with a reset; alone after a re-sync). */
  past?: boolean;
  /** Seqs added or changed; empty on reset. */
  changed: readonly number[];
  /** Seqs that are gone; empty on reset. */
  removed: readonly number[];
}

/** `gap`: the delta does not follow the local version, so a snapshot is needed. */
export type DeltaOutcome = "applied" | "gap";

export type StoreListener = (change: StoreChange) => void;

/** Index of `seq` in messages sorted by seq, or the index where it would go. */
function searchSeq(messages: readonly Message[], seq: number): number {
  let lo = 0;
  let hi = messages.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (messages[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class ConversationStore {
  #transcriptId: string | null = null;
  #version = 0;
  // Replaced, never mutated: snapshots handed out stay valid and cheap to compare.
  #messages: readonly Message[] = [];
  #past: readonly PastConversation[] = [];
  #snapshot: Snapshot | null = null;
  readonly #listeners = new Set<StoreListener>();

  constructor(initial?: unknown) {
    if (initial != null) {
      const s = normalizeSnapshot(initial);
      this.#set(s.transcript_id, s.version, s.messages);
      this.#past = s.past;
    }
  }

  get version(): number {
    return this.#version;
  }

  get transcriptId(): string | null {
    return this.#transcriptId;
  }

  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** The conversations a clear ended, oldest first. */
  get past(): readonly PastConversation[] {
    return this.#past;
  }

  get(seq: number): Message | undefined {
    const m = this.#messages[searchSeq(this.#messages, seq)];
    return m?.seq === seq ? m : undefined;
  }

  /** The current conversation; the same object until the next change. */
  snapshot(): Snapshot {
    this.#snapshot ??= {
      transcript_id: this.#transcriptId,
      version: this.#version,
      messages: [...this.#messages],
      past: [...this.#past],
    };
    return this.#snapshot;
  }

  subscribe(listener: StoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Replace the conversation. Within the same transcript only the messages that
   * differ are reported, so a re-sync does not rebuild (and collapse) the view.
   */
  applySnapshot(raw: unknown): void {
    const s = normalizeSnapshot(raw);
    const pastChanged = !samePast(this.#past, s.past);
    if (pastChanged) this.#past = s.past;
    if (s.transcript_id !== this.#transcriptId) {
      this.#set(s.transcript_id, s.version, s.messages);
      this.#emit({ reset: true, past: true, changed: [], removed: [] });
      return;
    }
    const old = new Map(this.#messages.map((m) => [m.seq, m]));
    const changed: number[] = [];
    const messages = s.messages.map((m) => {
      const prev = old.get(m.seq);
      old.delete(m.seq);
      // Keeping the old object tells "untouched" to anyone comparing identity.
      if (prev && JSON.stringify(prev) === JSON.stringify(m)) return prev;
      changed.push(m.seq);
      return m;
    });
    const removed = [...old.keys()];
    this.#set(s.transcript_id, s.version, messages);
    this.#emit(
      pastChanged
        ? { reset: false, past: true, changed, removed }
        : { reset: false, changed, removed },
    );
  }

  applyDelta(delta: DeltaMsg): DeltaOutcome {
    if (delta.base !== this.#version) return "gap";
    const incoming = normalizeMessages(delta.changed);
    const transcriptId = delta.transcript_id ?? null;
    if (delta.reset) {
      const { past, complete } = this.#pastAfterReset(transcriptId, delta.past);
      this.#set(transcriptId, delta.version, incoming);
      this.#past = past;
      this.#emit({ reset: true, past: true, changed: [], removed: [] });
      // Applied, but an earlier conversation this front end never saw must come from a
      // snapshot: reporting a gap asks for one.
      return complete ? "applied" : "gap";
    }
    const messages = [...this.#messages];
    const changed: number[] = [];
    for (const m of incoming) {
      const last = messages[messages.length - 1];
      if (!last || last.seq < m.seq) {
        messages.push(m); // the common case: a new message at the end
        changed.push(m.seq);
        continue;
      }
      const i = searchSeq(messages, m.seq);
      const prev = messages[i]?.seq === m.seq ? messages[i] : undefined;
      // A message sent again as it was is not rendered again: the user's selection and
      // what they opened in it stay as they are.
      if (prev && JSON.stringify(prev) === JSON.stringify(m)) continue;
      messages.splice(i, prev ? 1 : 0, m);
      changed.push(m.seq);
    }
    this.#set(transcriptId, delta.version, messages);
    this.#emit({ reset: false, changed, removed: [] });
    return "applied";
  }

  /**
   * The earlier conversations once the current one ends: it joins them, and the kernel's
   * list (when it sends one) says which there are; `complete` is false when one is missing.
   */
  #pastAfterReset(
    next: string | null,
    ids: unknown,
  ): { past: readonly PastConversation[]; complete: boolean } {
    let past = this.#past;
    const current = this.#transcriptId;
    if (current !== null && current !== next && !past.some((p) => p.transcript_id === current)) {
      past = [...past, { transcript_id: current, messages: [...this.#messages] }];
    }
    if (!Array.isArray(ids)) return { past, complete: true };
    const byId = new Map(past.map((p) => [p.transcript_id, p]));
    const known = ids.filter((id): id is string => typeof id === "string");
    return {
      past: known.flatMap((id) => byId.get(id) ?? []),
      complete: known.every((id) => byId.has(id)),
    };
  }

  #set(transcriptId: string | null, version: number, messages: readonly Message[]): void {
    this.#transcriptId = transcriptId;
    this.#version = version;
    this.#messages = messages;
    this.#snapshot = null;
  }

  #emit(change: StoreChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}
