// Thinking, sub-agents, progress, attachments and collapsed details, as real sessions have them.
import { describe, expect, it } from "vitest";
import { normalizeMessage } from "../src/chat/normalize";
import { HIDDEN_THINKING_LABEL, THINKING_LABEL } from "../src/chat/message";
import { mount } from "./harness";
import { delta, lifecycle, PLAIN, text, tool } from "./fixtures";
import type { Message } from "../src/types";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function thinking(seq: number, body: string, redacted = false): Message {
  return { ...text(seq, "assistant", body), thinking: true, redacted };
}

function child(message: Message, parent: string): Message {
  return { ...message, parent_tool_id: parent };
}

describe("thinking", () => {
  it("is collapsed under a quiet label, its text inside", () => {
    const { root } = mount([
      thinking(0, "Let me **check** the files."),
      text(1, "assistant", "Done."),
    ]);
    const el = root.querySelector<HTMLDetailsElement>("details.lw-thinking")!;
    expect(el.open).toBe(false);
    expect(el.querySelector("summary")!.textContent).toBe(THINKING_LABEL);
    expect(el.querySelector("strong")!.textContent).toBe("check");
  });

  it("says reasoning is hidden when the agent kept only an encrypted copy, never blank", () => {
    const { root } = mount([thinking(0, "", true)]);
    const el = root.querySelector<HTMLElement>("details.lw-thinking")!;
    expect(el.querySelector("summary")!.textContent).toBe(HIDDEN_THINKING_LABEL);
    expect(el.dataset.redacted).toBe("");
  });
});

describe("sub-agents", () => {
  const call = tool(1, { id: "toolu_agent", name: "Agent", agent_id: "a1", status: "running" });

  it("nest their messages inside the card of the call that started them", () => {
    const { root } = mount([
      text(0, "user", "delegate"),
      call,
      child(text(2, "user", "count the files"), "toolu_agent"),
      child(tool(3, { id: "toolu_inner", status: "ok", output: "3" }), "toolu_agent"),
      child(text(4, "assistant", "There are 3 files."), "toolu_agent"),
      text(5, "assistant", "The sub-agent says 3."),
    ]);
    const card = root.querySelector<HTMLElement>('.lw-msg[data-seq="1"]')!;
    const nested = card.querySelector(".lw-subthread")!;
    const seqs = [...nested.querySelectorAll<HTMLElement>(".lw-msg")].map((e) => e.dataset.seq);
    expect(seqs).toEqual(["2", "3", "4"]);
    // The top level reads as the main conversation only.
    const log = root.querySelector(".lw-log")!;
    const top = [...log.children].flatMap((g) =>
      g.matches(".lw-msg") ? [g] : [...g.querySelectorAll(":scope > * > .lw-msg")],
    );
    expect(top.map((e) => (e as HTMLElement).dataset.seq)).toEqual(["0", "1", "5"]);
  });

  it("shows the sub-agent's report once: as its reply, not again as the call's result", () => {
    const done = tool(1, {
      id: "toolu_agent",
      name: "Agent",
      agent_id: "a1",
      status: "ok",
      output: "There are 3 files.",
    });
    const { root, view } = mount([
      done,
      child(text(2, "user", "count the files"), "toolu_agent"),
      child(text(3, "assistant", "There are 3 files."), "toolu_agent"),
    ]);
    const card = () => root.querySelector<HTMLElement>('.lw-msg[data-seq="1"]')!;
    expect(card().dataset.reportShown).toBe("");
    // The output the stylesheet hides is the call's own (label and text), nothing nested.
    const hidden = card().querySelectorAll(":scope > .lw-tool-body > .lw-tool-output");
    expect([...hidden].map((e) => e.textContent)).toEqual(["Output", "There are 3 files."]);
    // A reply after it (the model asked once more) changes nothing.
    view.applyDelta(delta(0, [child(text(4, "assistant", "Something else."), "toolu_agent")]));
    expect(card().dataset.reportShown).toBe("");
    // A result no reply of the thread says is shown.
    view.applyDelta(delta(1, [{ ...done, tool: { ...done.tool!, output: "Other words." } }]));
    expect(card().dataset.reportShown).toBeUndefined();
  });

  it("gains messages live as deltas bring them", () => {
    const { root, view } = mount([text(0, "user", "delegate"), call]);
    view.applyDelta(delta(0, [child(text(2, "assistant", "working on it"), "toolu_agent")]));
    const card = root.querySelector<HTMLElement>('.lw-msg[data-seq="1"]')!;
    expect(card.querySelector(".lw-subthread")!.textContent).toContain("working on it");
    // The call's card re-rendered (its sub-agent reported) keeps the nested messages.
    view.applyDelta(delta(1, [{ ...call, tool: { ...call.tool!, status: "ok", output: "3" } }]));
    const again = root.querySelector<HTMLElement>('.lw-msg[data-seq="1"]')!;
    expect(again.querySelector(".lw-subthread")!.textContent).toContain("working on it");
  });
});

describe("running tools", () => {
  it("show the latest lines of their output until the result replaces them", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const { root, view } = mount([tool(0, { progress: lines })]);
    const pre = root.querySelector(".lw-progress pre")!;
    expect(pre.textContent).toContain("line 30");
    expect(pre.textContent).not.toContain("line 1\n");
    view.applyDelta(delta(0, [tool(0, { status: "ok", output: "finished" })]));
    expect(root.querySelector(".lw-progress")).toBeNull();
    const pres = [...root.querySelectorAll(".lw-tool pre")].map((p) => p.textContent);
    expect(pres[pres.length - 1]).toBe("finished");
  });
});

describe("attachments", () => {
  it("render images from their own data", () => {
    const image = { media_type: "image/png", data: PNG, size: 70, name: "", omitted: "" };
    const { root } = mount([{ ...text(0, "user", "look"), attachments: [image] }]);
    const img = root.querySelector<HTMLImageElement>("img.lw-attachment")!;
    expect(img.getAttribute("src")).toBe(`data:image/png;base64,${PNG}`);
  });

  it("drop what is not a raster image or not plain base64, and name what was left out", () => {
    const m = normalizeMessage({
      seq: 0,
      kind: "text",
      role: "user",
      text: "",
      attachments: [
        { media_type: "image/svg+xml", data: "PHN2Zz4=", size: 5 },
        { media_type: "image/png", data: 'x" onerror="alert(1)', size: 5 },
        { media_type: "image/png", data: "", size: 3_000_000, omitted: "too large to show" },
      ],
    })!;
    expect(m.attachments.map((a) => a.media_type)).toEqual(["image/png", "image/png"]);
    const { root } = mount([m]);
    expect(root.querySelector("img")).toBeNull();
    const notes = [...root.querySelectorAll(".lw-attachment-omitted")].map((e) => e.textContent);
    expect(notes).toEqual([
      "png image (5 B): unreadable image data",
      "png image (2.9 MB): too large to show",
    ]);
  });
});

describe("details", () => {
  it("of a lifecycle message (a compaction's summary) stay collapsed", () => {
    const { root } = mount([
      { ...lifecycle(0, "Conversation compacted"), detail: "We did **X**." },
    ]);
    const el = root.querySelector<HTMLDetailsElement>("details.lw-lifecycle")!;
    expect(el.open).toBe(false);
    expect(el.querySelector("summary")!.textContent).toBe("Conversation compacted");
    expect(el.querySelector("strong")!.textContent).toBe("X");
  });

  it("and everything else a real session carries is text, never markup", () => {
    const evil = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';
    const { root } = mount([
      thinking(0, evil),
      { ...lifecycle(1, evil), detail: evil },
      tool(2, { progress: evil }),
      {
        ...PLAIN,
        ...text(3, "user", "x"),
        attachments: [{ media_type: "image/png", data: "", size: 1, name: evil, omitted: evil }],
      },
    ]);
    for (const d of root.querySelectorAll("details")) d.open = true;
    expect(root.querySelector("img, script, [onerror]")).toBeNull();
  });
});
