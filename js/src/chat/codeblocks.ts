// Actions on the code blocks of the chat: Copy, and "Insert as a new cell below" where
// the host can reach the notebook (notebook.ts). The buttons are built here, after
// sanitising: the Markdown's own HTML can never carry a control.
import { h } from "../shared/dom";

/** What a new cell made from a code block is. */
export interface CellSource {
  cell_type: "code" | "markdown";
  source: string;
}

/** Where the chat is shown: what it can do with a code block besides copying it. */
export interface CodeHost {
  /**
   * Insert `cell` as a new cell below the chat (`anchor` is the block, inside the chat);
   * resolves when done, rejects with why not. Absent where the host has no notebook.
   */
  insertCell?(cell: CellSource, anchor: HTMLElement): Promise<void>;
}

const PYTHON = new Set(["", "python", "py", "python3", "ipython", "ipython3", "pycon"]);
/** Blocks that show text, not code (a variable's description, an output): nothing to run. */
const PLAIN = new Set(["text", "txt", "plain", "plaintext", "output", "log"]);

/** Whether a block of `lang` is code a cell could hold (plain text is only copied). */
export function insertable(lang: string): boolean {
  return !PLAIN.has(lang.trim().toLowerCase());
}
const SHELL = new Set(["bash", "sh", "shell", "console", "zsh"]);
const FEEDBACK_MS = 1500;

/**
 * The cell a block of `lang` becomes: Python (or unlabelled) code as it is; a shell
 * block as a `%%bash` cell, so it runs; anything else (JSON, a diff...) as Markdown
 * that shows it, since no kernel would run it.
 */
export function cellSource(code: string, lang: string): CellSource {
  const language = lang.trim().toLowerCase();
  if (PYTHON.has(language)) return { cell_type: "code", source: code };
  if (SHELL.has(language)) return { cell_type: "code", source: `%%bash\n${code}` };
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return { cell_type: "markdown", source: `${fence}${language}\n${code}\n${fence}` };
}

/** The text of a rendered code block, as the agent wrote it. */
export function blockCode(pre: HTMLElement): string {
  return (pre.querySelector("code") ?? pre).textContent ?? "";
}

async function copyText(text: string, select: HTMLElement): Promise<"Copied" | "Selected"> {
  try {
    // Missing outside secure contexts (a notebook served over plain http).
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return "Copied";
  } catch {
    const selection = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(select);
    selection?.removeAllRanges();
    selection?.addRange(range);
    return "Selected";
  }
}

function flash(button: HTMLButtonElement, label: string, rest: string): void {
  button.textContent = label;
  setTimeout(() => {
    if (button.textContent === label) button.textContent = rest;
  }, FEEDBACK_MS);
}

/**
 * Give every code block under `root` its actions (once: blocks already done are left
 * alone, so re-rendering and nesting are safe).
 */
export function decorateCodeBlocks(root: HTMLElement, host: CodeHost): void {
  for (const pre of root.querySelectorAll<HTMLElement>("pre.lw-code")) {
    if (pre.parentElement?.classList.contains("lw-codeblock")) continue;
    const lang = pre.dataset.lang ?? "";
    const copy = h(
      "button",
      { type: "button", class: "lw-code-copy", title: "Copy the code" },
      "Copy",
    );
    const insert =
      host.insertCell && insertable(lang)
        ? h(
            "button",
            {
              type: "button",
              class: "lw-code-insert",
              title: "Insert as a new cell below the chat",
              "aria-label": "Insert as a new cell below",
            },
            "Insert cell",
          )
        : null;
    // A bar above the code, never over it: the language on the left, the actions right.
    const label = h("span", { class: "lw-code-lang" }, lang);
    const bar = h("div", { class: "lw-code-actions" }, label, copy, insert);
    const block = h("div", { class: "lw-codeblock" });
    pre.replaceWith(block);
    block.append(bar, pre);

    copy.addEventListener("click", () => {
      void copyText(blockCode(pre), pre.querySelector("code") ?? pre).then((said) =>
        flash(copy, said, "Copy"),
      );
    });
    if (insert && host.insertCell) {
      const insertCell = host.insertCell.bind(host);
      insert.addEventListener("click", () => {
        insert.disabled = true;
        insertCell(cellSource(blockCode(pre), lang), block)
          .then(
            () => {
              insert.title = "Insert as a new cell below the chat";
              flash(insert, "Inserted", "Insert cell");
            },
            (error: unknown) => {
              const why = error instanceof Error ? error.message : String(error);
              insert.title = `Could not insert a cell: ${why}. Copy the code instead.`;
              flash(insert, "Not inserted", "Insert cell");
            },
          )
          .finally(() => {
            insert.disabled = false;
          });
      });
    }
  }
}
