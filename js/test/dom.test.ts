import { describe, expect, it } from "vitest";
import { h, syncChildren } from "../src/shared/dom";

function parentWith(...ids: string[]) {
  const parent = document.createElement("div");
  const byId = new Map<string, HTMLElement>();
  for (const id of ids) {
    const el = h("span", { id });
    byId.set(id, el);
    parent.append(el);
  }
  return { parent, byId };
}

const ids = (parent: Element) => [...parent.children].map((c) => c.id);

describe("h", () => {
  it("sets attributes and appends children as text, never markup", () => {
    const el = h("button", { class: "x", disabled: true, hidden: false, title: null }, "<b>hi</b>");
    expect(el.outerHTML).toBe('<button class="x" disabled="">&lt;b&gt;hi&lt;/b&gt;</button>');
  });
});

describe("syncChildren", () => {
  it("appends without moving what is in place", () => {
    const { parent, byId } = parentWith("a", "b");
    const c = h("span", { id: "c" });
    const observer = new MutationObserver(() => {});
    observer.observe(parent, { childList: true });
    syncChildren(parent, [byId.get("a")!, byId.get("b")!, c]);
    const records = observer.takeRecords();
    expect(ids(parent)).toEqual(["a", "b", "c"]);
    expect(records).toHaveLength(1);
    expect(records[0]!.removedNodes).toHaveLength(0);
  });

  it("removes a node from the middle without moving its neighbours", () => {
    const { parent, byId } = parentWith("a", "b", "c");
    const observer = new MutationObserver(() => {});
    observer.observe(parent, { childList: true });
    syncChildren(parent, [byId.get("a")!, byId.get("c")!]);
    const records = observer.takeRecords();
    expect(ids(parent)).toEqual(["a", "c"]);
    expect(records.flatMap((r) => [...r.addedNodes])).toHaveLength(0);
  });

  it("reorders, inserts and drops", () => {
    const { parent, byId } = parentWith("a", "b", "c", "d");
    const x = h("span", { id: "x" });
    syncChildren(parent, [byId.get("c")!, x, byId.get("a")!]);
    expect(ids(parent)).toEqual(["c", "x", "a"]);
    syncChildren(parent, []);
    expect(ids(parent)).toEqual([]);
  });
});
