import { describe, expect, it, vi } from "vitest";
import { blockCode, cellSource, decorateCodeBlocks, type CodeHost } from "../src/chat/codeblocks";
import { renderMarkdown } from "../src/chat/markdown";
import { flush, mount } from "./harness";
import { text } from "./fixtures";

function block(markdown: string, host: CodeHost = {}): HTMLElement {
  const el = document.createElement("div");
  el.innerHTML = renderMarkdown(markdown);
  document.body.append(el);
  decorateCodeBlocks(el, host);
  return el;
}

describe("cellSource", () => {
  it("makes Python and unlabelled blocks code cells, as written", () => {
    expect(cellSource("print(1)", "python")).toEqual({ cell_type: "code", source: "print(1)" });
    expect(cellSource("x = 1", "")).toEqual({ cell_type: "code", source: "x = 1" });
    expect(cellSource("x", "Py")).toEqual({ cell_type: "code", source: "x" });
  });

  it("makes a shell block a %%bash cell, so it runs", () => {
    expect(cellSource("ls -la", "bash")).toEqual({ cell_type: "code", source: "%%bash\nls -la" });
    expect(cellSource("pwd", "sh").source).toBe("%%bash\npwd");
  });

  it("shows anything else in a Markdown cell, fenced past its own backticks", () => {
    expect(cellSource('{"a": 1}', "json")).toEqual({
      cell_type: "markdown",
      source: '```json\n{"a": 1}\n```',
    });
    expect(cellSource("a ```` b", "diff").source).toBe("`````diff\na ```` b\n`````");
  });
});

describe("decorateCodeBlocks", () => {
  it("gives each block Copy, and Insert only where the host can insert", () => {
    const plain = block("```python\nprint(1)\n```\n\nand\n\n```\nls\n```");
    expect(plain.querySelectorAll(".lw-codeblock")).toHaveLength(2);
    expect(plain.querySelectorAll(".lw-code-copy")).toHaveLength(2);
    expect(plain.querySelector(".lw-code-insert")).toBeNull();
    const host = { insertCell: vi.fn(() => Promise.resolve()) };
    const inNotebook = block("```python\nprint(1)\n```", host);
    expect(inNotebook.querySelector(".lw-code-insert")?.getAttribute("aria-label")).toBe(
      "Insert as a new cell below",
    );
  });

  it("offers no Insert on plain text (a variable's description), and puts the bar above", () => {
    const host = { insertCell: vi.fn(() => Promise.resolve()) };
    const el = block("```text\nDataFrame 3 × 2\n```\n\n```python\nx = 1\n```", host);
    const [described, code] = [...el.querySelectorAll<HTMLElement>(".lw-codeblock")];
    expect(described!.querySelector(".lw-code-copy")).not.toBeNull();
    expect(described!.querySelector(".lw-code-insert")).toBeNull();
    expect(code!.querySelector(".lw-code-insert")).not.toBeNull();
    // The bar comes before the code, with the language: it sits above, never over it.
    expect([...code!.children].map((c) => c.className)).toEqual(["lw-code-actions", "lw-code"]);
    expect(code!.querySelector(".lw-code-lang")!.textContent).toBe("python");
  });

  it("is idempotent: a block already done is left alone", () => {
    const el = block("```python\nprint(1)\n```");
    decorateCodeBlocks(el, {});
    expect(el.querySelectorAll(".lw-code-actions")).toHaveLength(1);
  });

  it("keeps the code's text exactly, highlighting aside", () => {
    const el = block("```python\ndef f(x):\n    return x * 2  # <b>\n```");
    expect(blockCode(el.querySelector("pre")!)).toBe("def f(x):\n    return x * 2  # <b>");
  });

  it("copies the code to the clipboard", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    try {
      const el = block("```python\nprint(42)\n```");
      el.querySelector<HTMLButtonElement>(".lw-code-copy")!.click();
      await flush();
      expect(writeText).toHaveBeenCalledWith("print(42)");
      expect(el.querySelector(".lw-code-copy")!.textContent).toBe("Copied");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("selects the code when there is no clipboard", async () => {
    vi.stubGlobal("navigator", { ...navigator, clipboard: undefined });
    try {
      const el = block("```python\nprint(42)\n```");
      el.querySelector<HTMLButtonElement>(".lw-code-copy")!.click();
      await flush();
      expect(window.getSelection()?.toString()).toBe("print(42)");
      expect(el.querySelector(".lw-code-copy")!.textContent).toBe("Selected");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("inserts the block's cell, and says when it could not", async () => {
    const insertCell = vi.fn<NonNullable<CodeHost["insertCell"]>>(() => Promise.resolve());
    const el = block("```bash\necho hi\n```", { insertCell });
    const button = el.querySelector<HTMLButtonElement>(".lw-code-insert")!;
    button.click();
    await flush();
    expect(insertCell).toHaveBeenCalledWith(
      { cell_type: "code", source: "%%bash\necho hi" },
      el.querySelector(".lw-codeblock"),
    );
    expect(button.textContent).toBe("Inserted");
    insertCell.mockImplementationOnce(() => Promise.reject(new Error("the notebook is closed")));
    button.click();
    await flush();
    expect(button.textContent).toBe("Not inserted");
    expect(button.title).toContain("the notebook is closed");
    expect(button.disabled).toBe(false);
  });
});

describe("in the chat", () => {
  it("decorates the code of every message the view renders", () => {
    const { root } = mount([text(0, "assistant", "Try:\n\n```python\nprint(1)\n```")]);
    expect(root.querySelectorAll(".lw-msg .lw-codeblock .lw-code-copy")).toHaveLength(1);
    expect(root.querySelector(".lw-code-insert")).toBeNull(); // no notebook in the harness
  });
});
