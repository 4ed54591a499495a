import { describe, expect, it } from "vitest";
import { pastLabel, PastConversations } from "../src/chat/epochs";
import { ConversationStore } from "../src/chat/store";
import type { Message } from "../src/types";
import { delta, text, tool } from "./fixtures";
import { mount } from "./harness";

const sub = (seq: number, parent: string): Message => ({
  ...text(seq, "assistant", `sub ${seq}`),
  parent_tool_id: parent,
});

describe("earlier conversations", () => {
  it("are labelled with their count of messages, sub-agents' left out", () => {
    const messages = [text(0, "user", "a"), tool(1, { agent_id: "x" }), sub(2, "t1")];
    expect(pastLabel({ transcript_id: "t", messages })).toBe("Earlier conversation, 2 messages");
    expect(pastLabel({ transcript_id: "t", messages: [text(0, "user", "a")] })).toBe(
      "Earlier conversation, 1 message",
    );
  });

  it("render collapsed, and their messages only once opened", () => {
    const past = new PastConversations();
    document.body.append(past.el);
    past.set([
      {
        transcript_id: "t-1",
        messages: [text(0, "user", "hello"), tool(1, { agent_id: "x" }), sub(2, "t1")],
      },
    ]);
    const section = past.el.querySelector<HTMLDetailsElement>("details.lw-past-conversation")!;
    expect(section.open).toBe(false);
    expect(past.el.querySelector(".lw-msg")).toBeNull();
    section.open = true;
    section.dispatchEvent(new Event("toggle"));
    const seqs = [...past.el.querySelectorAll<HTMLElement>(".lw-msg")].map((e) => e.dataset.seq);
    expect(seqs).toEqual(["0", "1", "2"]);
    // The sub-agent's message sits inside its call's card.
    expect(past.el.querySelector(".lw-subthread .lw-msg")?.textContent).toContain("sub 2");
  });
});

describe("a clear in the chat", () => {
  it("keeps the conversation it ended above the new one, in the snapshot too", () => {
    const store = new ConversationStore({
      transcript_id: "t-1",
      version: 0,
      messages: [text(0, "user", "hello"), text(1, "assistant", "hi there")],
    });
    const { root } = mount([], {}, store);
    const outcome = store.applyDelta(
      delta(0, [{ ...text(0, "user", "/clear"), command: "/clear" }], {
        reset: true,
        transcript_id: "t-2",
        past: ["t-1"],
      }),
    );
    expect(outcome).toBe("applied");
    expect(root.querySelector(".lw-past-label")?.textContent).toBe(
      "Earlier conversation, 2 messages",
    );
    expect(root.querySelector(".lw-log")!.textContent).not.toContain("hi there");
    const [saved] = store.snapshot().past ?? [];
    expect(saved?.transcript_id).toBe("t-1");
    expect(saved?.messages.map((m) => m.text)).toEqual(["hello", "hi there"]);
  });

  it("asks for a snapshot when the kernel names one it never saw", () => {
    const store = new ConversationStore({ transcript_id: "t-2", version: 0, messages: [] });
    const outcome = store.applyDelta(
      delta(0, [], { reset: true, transcript_id: "t-3", past: ["t-1", "t-2"] }),
    );
    expect(outcome).toBe("gap");
    expect(store.past.map((p) => p.transcript_id)).toEqual(["t-2"]);
    store.applySnapshot({
      transcript_id: "t-3",
      version: 1,
      messages: [],
      past: [
        { transcript_id: "t-1", messages: [text(0, "user", "first")] },
        { transcript_id: "t-2", messages: [] },
      ],
    });
    expect(store.past.map((p) => p.transcript_id)).toEqual(["t-1", "t-2"]);
  });

  it("reads earlier conversations from a saved snapshot", () => {
    const store = new ConversationStore({
      transcript_id: "t-2",
      version: 3,
      messages: [text(0, "user", "/clear")],
      past: [{ transcript_id: "t-1", messages: [text(0, "user", "a"), text(1, "assistant", "b")] }],
    });
    const { root } = mount([], {}, store);
    expect(root.querySelectorAll(".lw-past-conversation")).toHaveLength(1);
  });
});
