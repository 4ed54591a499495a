// A message of a kind this front end does not know (a newer kernel added one): shown as a
// warning that says so, and logged, never passed off as plain text. Rendering it as text
// would hide the gap the wire contract test exists to catch.
import type { Message } from "./schema";

/** What the chat shows in place of a message it cannot render. */
export const UNSUPPORTED_TEXT = "Unsupported message";

/** The stand-in for message `seq` of unknown kind `kind`: a lifecycle warning. */
export function unsupportedMessage(seq: number, kind: unknown): Message {
  const named = typeof kind === "string" ? JSON.stringify(kind.slice(0, 40)) : String(kind);
  console.warn(`lab_widget: message ${seq} has kind ${named}, which this front end cannot show`);
  return {
    seq,
    kind: "lifecycle",
    role: "system",
    text: `${UNSUPPORTED_TEXT} (kind ${named}): update or rebuild lab_widget's front end.`,
    level: "warning",
    thinking: false,
    redacted: false,
    attachments: [],
    detail: "",
  };
}
