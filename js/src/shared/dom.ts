// A small element builder. Strings become text nodes, never markup: the only
// HTML that reaches the page is what markdown.ts sanitised.
type Attr = string | number | boolean | null | undefined;
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
  return el;
}

/**
 * Make `parent`'s children exactly `desired`, in order, moving or inserting only
 * what is out of place: nodes already in position are left alone.
 */
export function syncChildren(parent: Element, desired: readonly Element[]): void {
  const wanted = new Set<Element>(desired);
  let cursor = parent.firstElementChild;
  const drop = (el: Element) => {
    const next = el.nextElementSibling;
    el.remove();
    return next;
  };
  for (const el of desired) {
    // Dropping stale nodes first keeps the ones after them from being moved.
    while (cursor && cursor !== el && !wanted.has(cursor)) cursor = drop(cursor);
    if (el === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(el, cursor);
  }
  while (cursor) cursor = drop(cursor);
}
