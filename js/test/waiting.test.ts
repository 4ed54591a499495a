import { describe, expect, it } from "vitest";
import { QUEUED_LABEL, WAITING_TEXT } from "../src/chat/waiting";
import { deferred, flush, mount, press, type } from "./harness";
import { delta, text } from "./fixtures";

function sendFrom(q: (s: string) => HTMLElement, value: string) {
  const input = q(".lw-input") as HTMLTextAreaElement;
  type(input, value);
  press(input, { key: "Enter" });
}

describe("what is on its way", () => {
  it("says the model has not answered yet, until its first message", () => {
    const { q, view } = mount([text(0, "user", "hi")], { state: "idle" });
    expect(q(".lw-tail").hidden).toBe(true);
    view.setInfo({ state: "working" });
    expect(q(".lw-waiting").textContent).toBe(WAITING_TEXT);
    view.applyDelta(delta(0, [text(1, "assistant", "Hel")]));
    expect(q(".lw-waiting")).toBeNull();
    view.setInfo({ state: "idle" });
    expect(q(".lw-tail").hidden).toBe(true);
  });

  it("shows a prompt sent while the agent works as queued until the agent takes it", async () => {
    const { q, root, view, actions } = mount(
      [text(0, "user", "hi"), text(1, "assistant", "Working on it")],
      { state: "working" },
    );
    sendFrom(q, "and then this");
    await flush();
    expect(actions.send).toHaveBeenCalledWith("and then this");
    const queued = q(".lw-queued");
    expect(queued.querySelector(".lw-bubble")!.textContent).toBe("and then this");
    expect(queued.textContent).toContain(QUEUED_LABEL);
    expect((q(".lw-input") as HTMLTextAreaElement).value).toBe("");
    // The turn goes on: still queued.
    view.applyDelta(delta(0, [text(2, "assistant", "Still working")]));
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(1);
    // Delivered: the transcript shows it, the queued copy goes.
    view.applyDelta(delta(1, [text(3, "user", "and then this")]));
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(0);
  });

  it("drops a queued prompt whose send failed and keeps its text to send again", async () => {
    const { q, root, actions } = mount([text(0, "user", "hi")], { state: "working" });
    const pending = deferred();
    actions.send.mockImplementation(() => pending.promise);
    sendFrom(q, "lost?");
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(1);
    pending.reject(new Error("the agent went away"));
    await flush();
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(0);
    expect((q(".lw-input") as HTMLTextAreaElement).value).toBe("lost?");
  });

  it("queues nothing when the agent is idle, and nothing survives the run's end", async () => {
    const { q, root, view } = mount([text(0, "user", "hi")], { state: "idle" });
    sendFrom(q, "now");
    await flush();
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(0);
    view.setInfo({ state: "working" });
    sendFrom(q, "later");
    await flush();
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(1);
    view.setInfo({ state: "ended" });
    expect(root.querySelectorAll(".lw-queued")).toHaveLength(0);
  });
});
