import type { DeltaMsg, Message, ToolCall } from "../src/types";

export function text(seq: number, role: Message["role"], body: string): Message {
  return { seq, kind: "text", role, text: body };
}

export function tool(seq: number, call: Partial<ToolCall> = {}): Message {
  return {
    seq,
    kind: "tool",
    role: "assistant",
    text: "",
    tool: { id: `t${seq}`, name: "Bash", input: { command: "ls" }, status: "running", ...call },
  };
}

export function lifecycle(seq: number, body: string, level: Message["level"] = "info"): Message {
  return { seq, kind: "lifecycle", role: "system", text: body, level };
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
