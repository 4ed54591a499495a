// Markdown → HTML that cannot run anything. The text comes from the agent, and
// through it from any file or web page it read, so it is treated as hostile.
import DOMPurify, { type Config, type DOMPurify as Purifier } from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdownLang from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import shell from "highlight.js/lib/languages/shell";
import typescript from "highlight.js/lib/languages/typescript";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";
import { h } from "../shared/dom";

for (const [name, lang] of Object.entries({
  bash,
  diff,
  javascript,
  json,
  markdown: markdownLang,
  python,
  shell,
  typescript,
  yaml,
})) {
  hljs.registerLanguage(name, lang);
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const SAFE_LINK = /^(?:https?:|mailto:)/i;
const SAFE_IMAGE_LINK = /^https?:/i;

function codeBlock(code: string, info: string | undefined): string {
  const lang = (info ?? "").trim().split(/\s+/)[0]!.toLowerCase();
  const known = lang !== "" && hljs.getLanguage(lang) !== undefined;
  const body = known
    ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value
    : escapeHtml(code);
  const label = lang ? ` data-lang="${escapeHtml(lang)}"` : "";
  return `<pre class="lw-code"${label}><code class="hljs">${body}</code></pre>\n`;
}

const marked = new Marked({
  gfm: true,
  renderer: {
    code: ({ text, lang }) => codeBlock(text, lang),
    // Raw HTML is shown as written, the way the agent's own terminal shows it.
    html: ({ text, block }) => {
      const escaped = escapeHtml(text);
      return block ? `<p class="lw-raw">${escaped}</p>\n` : escaped;
    },
    // Images would load as soon as they render: a remote one can carry data
    // out in its URL. Offer a link to click instead.
    image: ({ href, text }) => {
      const label = escapeHtml(text || "image");
      return SAFE_IMAGE_LINK.test(href)
        ? `<a href="${escapeHtml(href)}">[image: ${label}]</a>`
        : `[image: ${label}]`;
    },
    checkbox: ({ checked }) => (checked ? "☑ " : "☐ "),
  },
});

const PURIFY_CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    "script",
    "style",
    "iframe",
    "frame",
    "object",
    "embed",
    "form",
    "input",
    "button",
    "textarea",
    "select",
    "img",
    "picture",
    "video",
    "audio",
    "source",
    "link",
    "meta",
    "base",
    "template",
  ],
  // Inline styles could draw over the notebook and pass for its UI.
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOWED_URI_REGEXP: SAFE_LINK,
};

let purifier: Purifier | undefined;

function getPurifier(): Purifier {
  if (purifier) return purifier;
  // A private instance: hooks on the shared default would leak into other code.
  const p = DOMPurify(window);
  p.addHook("afterSanitizeAttributes", (node) => {
    for (const attr of [...node.attributes]) {
      if (attr.name.toLowerCase().startsWith("on")) node.removeAttribute(attr.name);
    }
    if (node.tagName === "A") {
      const href = node.getAttribute("href");
      if (href !== null && SAFE_LINK.test(href.trim())) {
        node.setAttribute("target", "_blank");
        node.setAttribute("rel", "noopener noreferrer");
      } else {
        node.removeAttribute("href");
      }
    }
  });
  purifier = p;
  return p;
}

export interface MarkdownOptions {
  /** Keep single newlines as line breaks: what a person typed in the composer. */
  breaks?: boolean;
}

/** Sanitised HTML for `text`, safe to assign to innerHTML. */
export function renderMarkdown(text: string, options: MarkdownOptions = {}): string {
  const html = marked.parse(text, { async: false, breaks: options.breaks ?? false });
  return getPurifier().sanitize(html, PURIFY_CONFIG).trim();
}

/** A `<div class="lw-markdown">` holding `text` rendered. */
export function markdownBlock(text: string, breaks: boolean): HTMLElement {
  const el = h("div", { class: "lw-markdown" });
  el.innerHTML = renderMarkdown(text, { breaks });
  return el;
}
