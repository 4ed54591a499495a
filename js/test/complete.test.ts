// The slash-command popup in the composer: when it shows, and what its keys do.
import { describe, expect, it } from "vitest";
import type { CommandSpec } from "../src/types";
import { flush, mount, press, type } from "./harness";

const COMMANDS: Partial<CommandSpec>[] = [
  { name: "/compact", description: "Summarise the conversation", arg_hint: "[instructions]" },
  { name: "/cost", description: "Show what the session cost" },
  { name: "/clear", description: "Start a new conversation", role: "clear" },
  { name: "/review", description: "Review a pull request", arg_hint: "[pr]", source: "project" },
  { name: "/login", description: "Log in", chat_safe: false },
];

function setup() {
  const m = mount([], {}, undefined, { commands: COMMANDS });
  const input = m.q<HTMLTextAreaElement>(".lw-input");
  const popup = m.q(".lw-complete");
  const items = () => [...popup.querySelectorAll<HTMLElement>(".lw-complete-item")];
  const shown = () => (popup.hidden ? [] : items().map((i) => i.dataset.name));
  const highlighted = () =>
    items()
      .filter((i) => i.getAttribute("aria-selected") === "true")
      .map((i) => i.dataset.name);
  input.focus();
  return { ...m, input, popup, items, shown, highlighted };
}

describe("slash-command autocomplete", () => {
  it("opens on a leading slash with every chat-safe command, and filters as you type", () => {
    const { input, popup, shown, highlighted } = setup();
    expect(popup.getAttribute("role")).toBe("listbox");
    expect(popup.hidden).toBe(true);
    type(input, "/");
    expect(shown()).toEqual(["/clear", "/compact", "/cost", "/review"]); // no /login
    expect(highlighted()).toEqual(["/clear"]);
    type(input, "/CO");
    expect(shown()).toEqual(["/compact", "/cost", "/clear"]); // prefixes, then "conversation"
    type(input, "/pull");
    expect(shown()).toEqual(["/review"]);
    type(input, "/nothing-like-it");
    expect(popup.hidden).toBe(true);
  });

  it("shows name, argument hint, description and source", () => {
    const { input, items } = setup();
    type(input, "/rev");
    const [item] = items();
    expect(item!.getAttribute("role")).toBe("option");
    expect(item!.querySelector(".lw-complete-name")?.textContent).toBe("/review");
    expect(item!.querySelector(".lw-complete-args")?.textContent).toBe("[pr]");
    expect(item!.querySelector(".lw-complete-desc")?.textContent).toBe("Review a pull request");
    expect(item!.querySelector(".lw-complete-source")?.textContent).toBe("project");
  });

  it("stays shut for text that does not start with a slash, and once past the first word", () => {
    const { input, popup } = setup();
    type(input, "hello /compact");
    expect(popup.hidden).toBe(true);
    type(input, "/compact now");
    expect(popup.hidden).toBe(true);
    // Back into the first word: it opens again.
    input.setSelectionRange(3, 3);
    input.dispatchEvent(new Event("click"));
    expect(popup.hidden).toBe(false);
  });

  it("arrows move the highlight, wrapping, and tell assistive tech which one", () => {
    const { input, highlighted, items } = setup();
    type(input, "/c");
    expect(highlighted()).toEqual(["/clear"]);
    expect(press(input, { key: "ArrowDown" }).defaultPrevented).toBe(true);
    expect(highlighted()).toEqual(["/compact"]);
    press(input, { key: "ArrowDown" });
    press(input, { key: "ArrowDown" });
    expect(highlighted()).toEqual(["/clear"]); // wrapped past the end
    press(input, { key: "ArrowUp" });
    expect(highlighted()).toEqual(["/cost"]);
    expect(input.getAttribute("aria-activedescendant")).toBe(items()[2]!.id);
    expect(input.getAttribute("aria-controls")).toBe(items()[0]!.parentElement!.id);
  });

  it("Tab completes the highlighted name, with a space, and keeps focus", () => {
    const { input, popup, actions } = setup();
    type(input, "/co");
    press(input, { key: "ArrowDown" });
    const event = press(input, { key: "Tab" });
    expect(event.defaultPrevented).toBe(true);
    expect(input.value).toBe("/cost ");
    expect(input.selectionStart).toBe(6);
    expect(document.activeElement).toBe(input);
    expect(popup.hidden).toBe(true);
    expect(actions.send).not.toHaveBeenCalled();
  });

  it("Tab keeps the arguments already typed", () => {
    const { input } = setup();
    type(input, "/com focus on tests");
    input.setSelectionRange(4, 4);
    input.dispatchEvent(new Event("click"));
    press(input, { key: "Tab" });
    expect(input.value).toBe("/compact focus on tests");
  });

  it("Enter sends what is typed and closes the popup", async () => {
    const { input, popup, actions } = setup();
    type(input, "/comp");
    const event = press(input, { key: "Enter" });
    expect(event.defaultPrevented).toBe(true);
    expect(actions.send).toHaveBeenCalledWith("/comp");
    expect(popup.hidden).toBe(true);
    await flush();
    expect(input.value).toBe("");
    expect(popup.hidden).toBe(true);
  });

  it("Esc closes the popup without reaching the notebook, until the text changes", () => {
    const { input, popup, root } = setup();
    let escapes = 0;
    root.parentElement!.addEventListener("keydown", (e) => {
      if (e.key === "Escape") escapes++;
    });
    type(input, "/c");
    const event = press(input, { key: "Escape" });
    expect(popup.hidden).toBe(true);
    expect(event.defaultPrevented).toBe(true);
    expect(escapes).toBe(0);
    input.dispatchEvent(new Event("click"));
    expect(popup.hidden).toBe(true);
    type(input, "/co");
    expect(popup.hidden).toBe(false);
    // With the popup shut, Esc is the notebook's again.
    press(input, { key: "Escape" });
    press(input, { key: "Escape" });
    expect(escapes).toBe(1);
  });

  it("a click on an item completes it, and the mouse does not take the focus", () => {
    const { input, items } = setup();
    type(input, "/");
    const review = items().find((i) => i.dataset.name === "/review")!;
    const down = new MouseEvent("mousedown", { bubbles: true, cancelable: true });
    review.querySelector(".lw-complete-desc")!.dispatchEvent(down);
    expect(down.defaultPrevented).toBe(true);
    review
      .querySelector(".lw-complete-desc")!
      .dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(input.value).toBe("/review ");
    expect(document.activeElement).toBe(input);
  });

  it("leaves keys alone while shut", () => {
    const { input, actions } = setup();
    type(input, "hello");
    expect(press(input, { key: "Tab" }).defaultPrevented).toBe(false);
    expect(press(input, { key: "ArrowDown" }).defaultPrevented).toBe(false);
    press(input, { key: "Enter" });
    expect(actions.send).toHaveBeenCalledWith("hello");
  });

  it("follows the commands trait, and offers nothing without commands", () => {
    const { input, popup, view, shown, root } = setup();
    expect(root.querySelector(".lw-compose-foot .lw-hint")?.textContent).toContain(
      "/ for commands",
    );
    view.setCommands([{ name: "/new-one", description: "fresh" }]);
    type(input, "/");
    expect(shown()).toEqual(["/new-one"]);
    view.setCommands([]);
    expect(popup.hidden).toBe(true);
    type(input, "/n");
    expect(popup.hidden).toBe(true);
    expect(root.querySelector(".lw-compose-foot .lw-hint")?.textContent).not.toContain("/");
  });

  it("closes when the composer is locked", () => {
    const { input, popup, view } = setup();
    type(input, "/c");
    expect(popup.hidden).toBe(false);
    view.setInfo({ state: "question" });
    expect(popup.hidden).toBe(true);
  });
});
