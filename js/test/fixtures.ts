import type { DeltaMsg, Dialog, Message, ToolCall } from "../src/types";

/** The fields every message has on the wire once normalised. */
export const PLAIN: Pick<Message, "thinking" | "redacted" | "attachments" | "detail"> = {
  thinking: false,
  redacted: false,
  attachments: [],
  detail: "",
};

export function text(seq: number, role: Message["role"], body: string): Message {
  return { ...PLAIN, seq, kind: "text", role, text: body };
}

export function tool(seq: number, call: Partial<ToolCall> = {}): Message {
  return {
    ...PLAIN,
    seq,
    kind: "tool",
    role: "assistant",
    text: "",
    tool: { id: `t${seq}`, name: "Bash", input: { command: "ls" }, status: "running", ...call },
  };
}

export function lifecycle(seq: number, body: string, level: Message["level"] = "info"): Message {
  return { ...PLAIN, seq, kind: "lifecycle", role: "system", text: body, level };
}

export function delta(
  base: number,
  changed: Message[],
  extra: Partial<Omit<DeltaMsg, "kind" | "base" | "changed">> = {},
): DeltaMsg {
  return {
    kind: "delta",
    base,
    version: base + 1,
    transcript_id: "t-1",
    reset: false,
    changed,
    ...extra,
  };
}

/** The dialog of the demo: two questions, single and multi-select, both with "Other". */
export function dialogOf(over: Partial<Dialog> = {}): Dialog {
  return {
    kind: "question",
    answerable: true,
    tool_id: "toolu_ask",
    body: "",
    tool_name: "AskUserQuestion",
    status: "pending",
    outcome: "",
    questions: [
      {
        header: "Database",
        text: "Which database should the app use?",
        options: [
          { label: "SQLite", description: "A file, no server" },
          { label: "Postgres", description: "A server, more features" },
        ],
        multi_select: false,
        free_text: true,
      },
      {
        header: "Features",
        text: "Which features should the first version have?",
        options: [
          { label: "Auth", description: "Log in and out" },
          { label: "Export", description: "CSV download" },
          { label: "Search", description: "Full-text search" },
        ],
        multi_select: true,
        free_text: true,
      },
    ],
    ...over,
  };
}

export function dialog(seq: number, over: Partial<Dialog> = {}): Message {
  return { ...PLAIN, seq, kind: "dialog", role: "assistant", text: "", dialog: dialogOf(over) };
}
