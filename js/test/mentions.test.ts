import { describe, expect, it, vi } from "vitest";
import {
  completeMention,
  mentionQuery,
  normalizeVariables,
  rankVariables,
  splitContext,
} from "../src/chat/mentions";
import type { Variable } from "../src/types";
import { text } from "./fixtures";
import { flush, mount, press, type } from "./harness";

const v = (name: string, extra: Partial<Variable> = {}): Variable => ({
  name,
  type: "int",
  size: "",
  secret: false,
  ...extra,
});

describe("mentionQuery", () => {
  it("finds the mention the caret is in", () => {
    expect(mentionQuery("fit @d", 6)).toEqual({ start: 4, query: "d", end: 6 });
    expect(mentionQuery("@", 1)).toEqual({ start: 0, query: "", end: 1 });
    expect(mentionQuery("fit @df now", 6)).toEqual({ start: 4, query: "d", end: 7 });
  });

  it("starts none in an address, a path, code or after the name", () => {
    expect(mentionQuery("me@example", 10)).toBeNull();
    expect(mentionQuery("src/@x", 6)).toBeNull();
    expect(mentionQuery("`@x", 3)).toBeNull();
    expect(mentionQuery("@df ", 4)).toBeNull();
    expect(mentionQuery("@1x", 3)).toBeNull();
  });
});

describe("variables", () => {
  it("keeps well-formed entries, one per name", () => {
    expect(
      normalizeVariables([
        { name: "df", type: "DataFrame", size: "3 × 2", secret: false },
        { name: "df", type: "int" },
        { name: "not a name" },
        "junk",
        { name: "api_key", secret: true },
      ]),
    ).toEqual([
      v("df", { type: "DataFrame", size: "3 × 2" }),
      v("api_key", { type: "", secret: true }),
    ]);
    expect(normalizeVariables(null)).toEqual([]);
  });

  it("ranks name prefixes before substrings, then by name", () => {
    const all = [v("model"), v("df_test"), v("df"), v("raw_df")];
    expect(rankVariables(all, "df").map((x) => x.name)).toEqual(["df", "df_test", "raw_df"]);
    expect(rankVariables(all, "").map((x) => x.name)).toEqual(["df", "df_test", "model", "raw_df"]);
  });

  it("completes the whole name under the caret, with one space", () => {
    const query = mentionQuery("fit @d now", 6)!;
    expect(completeMention("fit @d now", query, "df")).toEqual({ text: "fit @df now", caret: 8 });
    expect(completeMention("@", mentionQuery("@", 1)!, "x")).toEqual({ text: "@x ", caret: 3 });
  });
});

describe("the composer's @ popup", () => {
  it("asks the kernel once per mention and completes with Enter", async () => {
    const variables = vi.fn(() =>
      Promise.resolve([
        { name: "df", type: "DataFrame", size: "3 × 2", secret: false },
        { name: "api_key", type: "str", size: "", secret: true },
      ]),
    );
    const { root, q, actions } = mountWith(variables);
    const input = q<HTMLTextAreaElement>(".lw-input");
    input.focus();
    type(input, "fit @");
    expect(q(".lw-mentions").hidden).toBe(false);
    expect(q(".lw-mentions").textContent).toContain("Asking the kernel");
    await flush();
    const names = [...root.querySelectorAll(".lw-mentions .lw-complete-item")].map((e) =>
      e.getAttribute("data-name"),
    );
    expect(names).toEqual(["api_key", "df"]);
    expect(q(".lw-mentions [data-name='api_key']").textContent).toContain("not expanded");
    type(input, "fit @d");
    await flush();
    expect(variables).toHaveBeenCalledTimes(1); // the same mention: no second question
    expect(press(input, { key: "Enter" }).defaultPrevented).toBe(true);
    expect(input.value).toBe("fit @df ");
    expect(actions.send).not.toHaveBeenCalled(); // Enter completed; it did not send
    expect(q(".lw-mentions").hidden).toBe(true);
    type(input, "fit @df and @");
    await flush();
    expect(variables).toHaveBeenCalledTimes(2); // a new mention asks again
  });

  it("says so when the kernel cannot answer, and sends nothing", async () => {
    const { q } = mountWith(() => Promise.reject(new Error("no answer from the kernel")));
    const input = q<HTMLTextAreaElement>(".lw-input");
    input.focus();
    type(input, "@");
    await flush();
    await flush();
    expect(q(".lw-mentions").textContent).toContain("no answer from the kernel");
    expect(q(".lw-mentions").querySelector(".lw-complete-item")).toBeNull();
  });

  it("is not offered without a kernel to ask", () => {
    const { q } = mount();
    const input = q<HTMLTextAreaElement>(".lw-input");
    type(input, "@");
    expect(q(".lw-mentions").hidden).toBe(true);
    expect(q(".lw-hint").textContent).not.toContain("@");
  });
});

function mountWith(variables: () => Promise<unknown>) {
  return mount([], {}, undefined, { variables });
}

describe("a sent prompt with variables", () => {
  it("folds the descriptions the kernel added under the prompt", () => {
    const sent =
      "summarise `df`\n\nNotebook variables mentioned above, as the notebook's Python kernel holds them:" +
      "\n\n`df`: pandas DataFrame, 3 rows × 2 columns";
    expect(splitContext(sent)).toEqual({
      prompt: "summarise `df`",
      context: "`df`: pandas DataFrame, 3 rows × 2 columns",
    });
    expect(splitContext("no variables here")).toBeNull();
    const { msg } = mount([text(0, "user", sent), text(1, "assistant", sent)]);
    const user = msg(0)!;
    const fold = user.querySelector<HTMLDetailsElement>("details.lw-context")!;
    expect(fold.open).toBe(false);
    expect(fold.querySelector("summary")!.textContent).toBe("Notebook variables sent with it");
    expect(fold.textContent).toContain("3 rows × 2 columns");
    expect(user.querySelector(".lw-bubble > p")!.textContent).toBe("summarise df");
    expect(msg(1)!.querySelector("details.lw-context")).toBeNull(); // only prompts fold
  });
});
