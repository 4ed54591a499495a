// Hostile content from the agent (replies, tool input and output, command descriptions,
// plan text, question options, outcomes, header fields) renders inert: nothing runs, no
// active element or attribute appears, and the text is still shown.
import { afterEach, describe, expect, it } from "vitest";
import { ConversationStore } from "../src/chat/store";
import type { CommandSpec } from "../src/types";
import { dialog, dialogOf, lifecycle, text, tool } from "./fixtures";
import { flush, mount, type } from "./harness";

declare global {
  interface Window {
    __xss?: string;
  }
}

const CORPUS = [
  `<script>window.__xss="script"</script>`,
  `<img src=x onerror="window.__xss='img'">`,
  `<svg onload="window.__xss='svg'"><circle/></svg>`,
  `<iframe src="javascript:window.__xss='iframe'"></iframe>`,
  `<a href="javascript:window.__xss='a'">click</a>`,
  `[md link](javascript:window.__xss='md')`,
  `[data link](data:text/html,<script>window.__xss='data'</script>)`,
  `![img](javascript:window.__xss='mdimg')`,
  `<details open ontoggle="window.__xss='details'">x</details>`,
  `<style>*{display:none}</style><link rel=stylesheet href=x>`,
  `<form action=javascript:alert(1)><button>go</button></form>`,
  `"><img src=x onerror=window.__xss='attr'>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=window.__xss='mxss'>`,
  `\`<img src=x onerror=window.__xss='code'>\``,
  "```html\n<script>window.__xss='fence'</script>\n```",
  `<base href="javascript:/"><meta http-equiv=refresh content="0;url=javascript:1">`,
];
const ALL = CORPUS.join("\n\n");

const ACTIVE = "script, iframe, object, embed, svg, math, style, link, meta, base, form, img";

function assertInert(root: HTMLElement) {
  expect(window.__xss).toBeUndefined();
  expect(root.querySelector(ACTIVE)).toBeNull();
  for (const el of root.querySelectorAll("*")) {
    for (const attr of el.getAttributeNames()) {
      expect(attr.startsWith("on"), `${el.tagName} ${attr}`).toBe(false);
    }
    for (const attr of ["href", "src", "action", "formaction", "xlink:href"]) {
      const value = (el.getAttribute(attr) ?? "").replace(/\s/g, "").toLowerCase();
      expect(value.startsWith("javascript:") || value.startsWith("data:"), value).toBe(false);
    }
  }
}

afterEach(() => {
  delete window.__xss;
});

describe("hostile content renders inert", () => {
  it("in user, assistant and lifecycle messages", async () => {
    const { root } = mount([
      text(0, "user", ALL),
      text(1, "assistant", ALL),
      lifecycle(2, ALL, "warning"),
    ]);
    await flush();
    assertInert(root);
    expect(root.textContent).toContain(`window.__xss="script"`); // shown, as text
  });

  it("in tool names, inputs and outputs", async () => {
    const { root } = mount([
      tool(0, { name: ALL, input: { command: ALL, description: ALL }, output: ALL, status: "ok" }),
      tool(1, { name: "Bash", input: { command: ALL }, output: ALL, status: "error" }),
    ]);
    for (const summary of root.querySelectorAll<HTMLElement>("summary")) summary.click();
    await flush();
    assertInert(root);
  });

  it("in a plan, its questions, options and outcome", async () => {
    const planOf = (t: (i: number) => string) =>
      dialogOf({
        kind: "plan",
        tool_name: "ExitPlanMode",
        body: ALL,
        outcome: ALL,
        questions: [
          {
            header: CORPUS[1] ?? "",
            text: ALL,
            options: CORPUS.map((_, i) => ({ label: t(i), description: t(i) })),
            multi_select: true,
            free_text: true,
          },
        ],
      });
    const controls = (d: ReturnType<typeof dialogOf>) => {
      const m = mount(
        [text(0, "user", "go"), { ...dialog(1), dialog: d }],
        { state: "question" },
        undefined,
        {
          pendingDialog: d,
        },
      );
      return m;
    };
    const plain = controls(planOf((i) => `option ${i}`)).root.querySelectorAll("input").length;
    const hostile = planOf((i) => CORPUS[i] ?? "");
    const { root } = controls(hostile);
    await flush();
    // Form controls are the view's own; the hostile text may not add any.
    expect(root.querySelectorAll("input").length).toBe(plain);
    root.querySelectorAll("form").forEach((f) => f.replaceWith(...f.childNodes));
    assertInert(root);
  });

  it("in slash-command names, descriptions and hints", async () => {
    const commands: Partial<CommandSpec>[] = CORPUS.map((c, i) => ({
      name: `/c${i}`,
      description: c,
      arg_hint: c,
    }));
    const { root, q } = mount([], {}, undefined, { commands });
    const input = q<HTMLTextAreaElement>(".lw-input");
    input.focus();
    type(input, "/");
    await flush();
    expect(q(".lw-complete").hidden).toBe(false);
    assertInert(root);
  });

  it("in the header: provider name, state reason, attach command", async () => {
    const { root, view } = mount([], { providerName: ALL, stateReason: ALL, attachCommand: ALL });
    view.setInfo({ providerName: CORPUS[0], state: "needs_input", stateReason: CORPUS[1] });
    await flush();
    assertInert(root);
  });

  it("arriving as deltas into a live store", async () => {
    const store = new ConversationStore();
    const { root } = mount([], {}, store);
    store.applySnapshot({ transcript_id: "t", version: 0, messages: [] });
    store.applyDelta({
      kind: "delta",
      base: 0,
      version: 1,
      transcript_id: "t",
      reset: false,
      changed: [text(0, "assistant", ALL), tool(1, { output: ALL, status: "ok" })],
    });
    await flush();
    assertInert(root);
  });
});
