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
    const card = root.querySelector<HTMLElement>(".lw-dialog")!;
    expect(card.dataset.status).toBe("answered");
    expect(card.querySelector(".lw-dialog-outcome")?.textContent).toMatch(
      /^answered: Cache → SQLite/,
    );
  });

  it("offers the recording's chat-safe commands", () => {
    const root = document.createElement("div");
    document.body.append(root);
    mountRecording(root, recording);
    const input = root.querySelector<HTMLTextAreaElement>(".lw-input")!;
    input.value = "/co";
    input.dispatchEvent(new Event("input"));
    const names = [...root.querySelectorAll<HTMLElement>(".lw-complete-item")].map(
      (i) => i.dataset.name,
    );
    expect(names).toEqual(["/compact", "/context", "/cost", "/clear"]); // no /config
    root.remove();
  });

  it("shows a recorded pending dialog as a form whose answer fails read-only", async () => {
    const root = document.createElement("div");
    document.body.append(root); // a detached form never submits
    const pending = recording._snapshot!.messages.find((m) => m.kind === "dialog")!.dialog!;
    const waiting = { ...pending, status: "pending" as const, outcome: "" };
    mountRecording(root, {
      ...recording,
      state: "question",
      pending_dialog: waiting,
      _snapshot: {
        ...recording._snapshot!,
        messages: recording._snapshot!.messages.map((m) =>
          m.kind === "dialog" ? { ...m, dialog: waiting } : m,
        ),
      },
    });
    root.querySelector<HTMLInputElement>('input[value="SQLite"]')!.click();
    root.querySelector<HTMLInputElement>('input[value="Non-ASCII names"]')!.click();
    root.querySelector<HTMLButtonElement>(".lw-dialog-submit")!.click();
    await flush();
    expect(root.querySelector(".lw-dialog-error")?.textContent).toContain("read-only");
    root.remove();
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
