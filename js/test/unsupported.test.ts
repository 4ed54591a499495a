// A message kind this front end does not know is shown as "unsupported" and logged, never
// rendered as if it were text: the gap must be visible, not papered over.
import { afterEach, describe, expect, it, vi } from "vitest";
import { normalizeMessage } from "../src/chat/normalize";
import type { Message } from "../src/types";
import { UNSUPPORTED_TEXT } from "../src/unsupported";
import { delta, text } from "./fixtures";
import { mount } from "./harness";

const FUTURE = { seq: 2, kind: "poll", role: "assistant", text: "Pick a colour" };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a message of an unknown kind", () => {
  it("becomes a lifecycle warning saying it is unsupported, and is logged", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const message = normalizeMessage(FUTURE);
    expect(message).toMatchObject({ seq: 2, kind: "lifecycle", level: "warning" });
    expect(message?.text).toContain(UNSUPPORTED_TEXT);
    expect(message?.text).toContain('"poll"');
    expect(message?.text).not.toContain("Pick a colour");
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('"poll"');
  });

  it("is logged when the kind is missing altogether", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(normalizeMessage({ seq: 4, role: "user", text: "x" })?.kind).toBe("lifecycle");
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("leaves known kinds alone", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(normalizeMessage({ seq: 1, kind: "text", role: "user", text: "hi" })?.kind).toBe("text");
    expect(warn).not.toHaveBeenCalled();
  });

  it("shows as an unsupported note in the chat, not as the message's text", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const { msg } = mount([text(1, "user", "hi"), FUTURE as unknown as Message]);
    const shown = msg(2)!;
    expect(shown.dataset.kind).toBe("lifecycle");
    expect(shown.textContent).toContain(UNSUPPORTED_TEXT);
    expect(shown.textContent).not.toContain("Pick a colour");
    expect(msg(1)!.textContent).toContain("hi");
  });

  it("arriving in a delta is shown the same way", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { view, msg } = mount([text(1, "user", "hi")]);
    view.applyDelta(delta(0, [{ ...FUTURE, seq: 3 } as unknown as Message]));
    expect(msg(3)!.textContent).toContain(UNSUPPORTED_TEXT);
    expect(warn).toHaveBeenCalled();
  });
});
