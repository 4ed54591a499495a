// The terminal pane's own message type (terminal.ts) is the protocol's, less the `kind` the
// widget adds when it sends: checked by the compiler (npm run typecheck), both ways.
import { describe, expect, it } from "vitest";
import type { TermFrontendMsg } from "../src/protocol";
import type { TermOutMsg } from "../src/terminal/pane";

type WithoutKind<T> = T extends unknown ? Omit<T, "kind"> : never;

const toProtocol = (msg: TermOutMsg): WithoutKind<TermFrontendMsg> => msg;
const fromProtocol = (msg: WithoutKind<TermFrontendMsg>): TermOutMsg => msg;

describe("the terminal pane's messages", () => {
  it("are the protocol's terminal messages to the kernel", () => {
    const open: TermOutMsg = { op: "open", viewer: "v1", cols: 80, rows: 24 };
    expect(fromProtocol(toProtocol(open))).toEqual(open);
  });
});
