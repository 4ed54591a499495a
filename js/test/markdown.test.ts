import { describe, expect, it } from "vitest";
import { escapeHtml, renderMarkdown } from "../src/chat/markdown";

function parse(html: string): HTMLElement {
  const el = document.createElement("div");
  el.innerHTML = html;
  return el;
}

/** Everything in rendered markdown that could run script or load something. */
function hazards(html: string): string[] {
  const found: string[] = [];
  for (const el of parse(html).querySelectorAll("*")) {
    const tag = el.tagName.toLowerCase();
    if (
      [
        "script",
        "style",
        "iframe",
        "object",
        "embed",
        "form",
        "img",
        "svg",
        "math",
        "input",
      ].includes(tag)
    ) {
      found.push(`<${tag}>`);
    }
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value.replace(/\s/g, "").toLowerCase();
      if (name.startsWith("on")) found.push(`${tag}[${name}]`);
      if (name === "style" || name === "srcset") found.push(`${tag}[${name}]`);
      if (["href", "src", "action", "formaction", "xlink:href"].includes(name)) {
        if (!/^(https?:|mailto:)/.test(value)) found.push(`${tag}[${name}=${attr.value}]`);
      }
    }
  }
  return found;
}

const ATTACKS = [
  "<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  "before <script>alert(1)</script> after",
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click]( javascript:alert(1) )",
  "[click](&#106;avascript:alert(1))",
  '<a href="javascript:alert(1)">x</a>',
  '<a href="https://ok.example" onclick="alert(1)">x</a>',
  "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  "![x](javascript:alert(1))",
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload="alert(1)"><circle r="1"/></svg>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<form action="https://evil.example"><button>go</button></form>',
  "<style>body { display: none }</style>",
  '<div style="position:fixed;inset:0">cover</div>',
  "<details open ontoggle=alert(1)>",
  '<object data="x.swf"></object><embed src="x.swf">',
  "[ref]\n\n[ref]: javascript:alert(1)",
  '<https://ok.example/"onmouseover="alert(1)>',
  "```html\n<script>alert(1)</script>\n```",
  "`<img src=x onerror=alert(1)>`",
  "- [ ] task <img src=x onerror=alert(1)>",
  "| a | b |\n|---|---|\n| <script>alert(1)</script> | [x](javascript:alert(1)) |",
];

describe("renderMarkdown", () => {
  it("renders ordinary markdown", () => {
    const el = parse(renderMarkdown("# Title\n\nSome **bold** and `code`.\n\n- one\n- two"));
    expect(el.querySelector("h1")?.textContent).toBe("Title");
    expect(el.querySelector("strong")?.textContent).toBe("bold");
    expect(el.querySelector("code")?.textContent).toBe("code");
    expect(el.querySelectorAll("li")).toHaveLength(2);
  });

  it.each(ATTACKS)("nothing executable comes out of %j", (src) => {
    expect(hazards(renderMarkdown(src))).toEqual([]);
  });

  it("shows raw HTML as the text it is", () => {
    const el = parse(renderMarkdown("Use <b>bold</b> here.\n\n<div>\nblock\n</div>"));
    expect(el.querySelector("b")).toBeNull();
    expect(el.querySelector("div div")).toBeNull();
    expect(el.textContent).toContain("<b>bold</b>");
    expect(el.textContent).toContain("<div>");
  });

  it("keeps a script tag visible as text, not as an element", () => {
    const el = parse(renderMarkdown("<script>alert(1)</script>"));
    expect(el.querySelector("script")).toBeNull();
    expect(el.textContent).toContain("<script>alert(1)</script>");
  });

  it("opens safe links in a new tab without an opener", () => {
    const a = parse(renderMarkdown("[docs](https://example.com/x)")).querySelector("a")!;
    expect(a.getAttribute("href")).toBe("https://example.com/x");
    expect(a.getAttribute("target")).toBe("_blank");
    expect(a.getAttribute("rel")).toBe("noopener noreferrer");
    const mail = parse(renderMarkdown("[me](mailto:me@example.com)")).querySelector("a")!;
    expect(mail.getAttribute("href")).toBe("mailto:me@example.com");
  });

  it("drops the href of anything but http(s) and mailto, keeping the text", () => {
    for (const href of [
      "javascript:alert(1)",
      "data:text/html,x",
      "vbscript:x",
      "file:///etc/passwd",
      "src/app.py",
    ]) {
      const el = parse(renderMarkdown(`[label](${href})`));
      expect(el.textContent).toContain("label");
      expect(el.querySelector("a[href]")).toBeNull();
    }
  });

  it("turns images into links instead of loading them", () => {
    const el = parse(renderMarkdown("![chart](https://example.com/c.png)"));
    expect(el.querySelector("img")).toBeNull();
    const a = el.querySelector("a")!;
    expect(a.getAttribute("href")).toBe("https://example.com/c.png");
    expect(a.textContent).toBe("[image: chart]");
    const data = parse(renderMarkdown("![pixel](data:image/png;base64,AAAA)"));
    expect(data.querySelector("img, a")).toBeNull();
    expect(data.textContent?.trim()).toBe("[image: pixel]");
  });

  it("highlights fenced code in known languages and escapes the rest", () => {
    const py = parse(renderMarkdown("```python\ndef f(x):\n    return x\n```"));
    const pre = py.querySelector("pre.lw-code")!;
    expect(pre.getAttribute("data-lang")).toBe("python");
    expect(pre.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(pre.textContent).toBe("def f(x):\n    return x");

    for (const lang of ["bash", "sh", "json", "js", "ts", "diff", "yaml", "md", "shell"]) {
      expect(
        parse(renderMarkdown(`\`\`\`${lang}\nx\n\`\`\``)).querySelector("pre.lw-code"),
      ).not.toBeNull();
    }

    const unknown = parse(renderMarkdown("```brainfuck\n<script>++</script>\n```"));
    expect(unknown.querySelector("script")).toBeNull();
    expect(unknown.querySelector("pre")?.textContent).toBe("<script>++</script>");
  });

  it("keeps line breaks only when asked", () => {
    expect(parse(renderMarkdown("a\nb", { breaks: true })).querySelector("br")).not.toBeNull();
    expect(parse(renderMarkdown("a\nb")).querySelector("br")).toBeNull();
  });

  it("renders task lists without form controls", () => {
    const el = parse(renderMarkdown("- [x] done\n- [ ] todo"));
    expect(el.querySelector("input")).toBeNull();
    expect(el.textContent).toContain("☑ done");
    expect(el.textContent).toContain("☐ todo");
  });
});

describe("escapeHtml", () => {
  it("escapes the five HTML specials", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });
});
