import { describe, expect, it } from "vitest";
import demo from "../demo-conversation.json";
import { mountRecording, type Recording } from "../src/standalone";

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("standalone page", () => {
  const recording = demo as Recording;

  it("renders the demo conversation", () => {
    const root = document.createElement("div");
    mountRecording(root, recording);
    const messages = root.querySelectorAll<HTMLElement>(".lw-msg");
    expect(messages).toHaveLength(recording._snapshot!.messages.length);
    expect(root.querySelector(".lw-provider")?.textContent).toBe(recording.provider_name);
    expect(root.querySelector(".lw-msg[data-seq='0'] code")?.textContent).toBe("/clear");
    expect(root.querySelector(".lw-lifecycle")).not.toBeNull();
    expect(
      root.querySelector("pre.lw-code .hljs-keyword, pre.lw-code .hljs-string"),
    ).not.toBeNull();
    expect(root.querySelector(".lw-tool[data-status='error']")).not.toBeNull();
    expect(root.querySelector(".lw-more")).not.toBeNull(); // long output is cut
  });

  it("is read-only and says so", async () => {
    const root = document.createElement("div");
    mountRecording(root, recording);
    const input = root.querySelector<HTMLTextAreaElement>(".lw-input")!;
    input.value = "hello";
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", cancelable: true }));
    await flush();
    expect(root.querySelector(".lw-error")?.textContent).toContain("read-only");
    expect(input.value).toBe("hello");
  });
});
