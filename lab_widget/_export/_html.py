"""Conversations as one self-contained HTML page: sanitised, no script, images inline.

What the agent wrote is rendered from Markdown with raw HTML turned off (it shows as text),
links only to ``http(s)`` and ``mailto`` addresses, and images as links to click rather than
fetches: a remote image loads the moment the page opens and can carry data out in its URL.
The only images shown are the ones the transcript carries, as ``data:`` URLs of raster types.
A Content-Security-Policy forbids scripts and every fetch besides, as a second line of
defence.

Examples
--------
>>> from lab_widget.schema import Chat, Message, SessionSummary
>>> chat = Chat(messages=[Message(seq=0, kind="text", role="assistant",
...                               text="**hi** <script>alert(1)</script>")],
...             state="idle", session=SessionSummary())
>>> page = html_document([chat], "Demo")
>>> "<strong>hi</strong> &lt;script&gt;alert(1)&lt;/script&gt;" in page, "<script" in page
(True, False)
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from ..schema import IMAGE_MEDIA_TYPES, Chat, Dialog, Message, ToolCall
from . import _tree as common

__all__ = ["CSP", "FRAGMENT_CLASS", "html_document", "html_fragment", "render_markdown"]

CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)
"""The page's Content-Security-Policy: no script, no fetch, inline styles and data images."""

_SAFE_LINK = re.compile(r"^(?:https?:|mailto:)", re.IGNORECASE)
_VERSION = "0.1.0"

_PAGE_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; color: #1f2328; background: #fff; margin: 0; }
main { max-width: 860px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
.generator { color: #59636e; margin: 0 0 16px; }
"""

_CONTENT_STYLE = """
h2 { font-size: 1.25em; margin: 32px 0 8px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.92em; }
td, th { border: 1px solid #d1d9e0; padding: 3px 8px; text-align: left; vertical-align: top; }
.msg { margin: 12px 0; padding: 8px 12px; border-radius: 8px; border: 1px solid #d1d9e0; }
.msg.user { background: #eef4ff; } .msg.assistant { background: #fff; }
.msg.lifecycle { border-style: dashed; color: #59636e; }
.msg.lifecycle.warning, .msg.lifecycle.error { color: #9a3412; border-color: #f0b37e; }
.label { font-size: 0.8em; font-weight: 600; color: #59636e; text-transform: uppercase; }
.label .model { font-weight: 400; text-transform: none; margin-left: 6px; }
pre { background: #f6f8fa; padding: 8px; border-radius: 6px; overflow-x: auto;
      white-space: pre-wrap; word-break: break-word; font-size: 0.88em; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
details > summary { cursor: pointer; color: #59636e; }
.tool .status { font-size: 0.8em; margin-left: 6px; color: #59636e; }
.tool[data-status="error"] .status { color: #b91c1c; }
.tool .native { font-size: 0.8em; margin-left: 6px; color: #59636e; }
.subagent { margin: 8px 0 0 12px; padding-left: 12px; border-left: 3px solid #d1d9e0; }
.option.chosen { font-weight: 600; } .outcome { font-style: italic; }
img.attachment { max-width: 100%; border: 1px solid #d1d9e0; border-radius: 4px; }
blockquote { margin: 0; padding-left: 12px; border-left: 3px solid #d1d9e0; color: #59636e; }
"""

FRAGMENT_CLASS = "lab-widget-static"
"""The one class a fragment's styles are scoped under (they style nothing outside it)."""

_FRAGMENT_STYLE = """
{ font: 14px/1.5 system-ui, sans-serif; color: #1f2328; background: #fff;
  border: 1px solid #d1d9e0; border-radius: 8px; padding: 8px 12px; max-width: 860px; }
.title { font-weight: 600; margin: 0 0 4px; }
.note { color: #59636e; font-size: 0.85em; margin: 0; }
"""


def _scoped(css: str, scope: str) -> str:
    r"""Every rule of ``css`` limited to elements inside ``scope`` (a rule with no selector
    styles ``scope`` itself).

    Examples
    --------
    >>> _scoped("a, b > c { x: 1; } { y: 2; }", ".s")
    '.s a, .s b > c { x: 1; }\n.s { y: 2; }'
    """
    rules = []
    for selectors, body in re.findall(r"([^{}]*)\{([^{}]*)\}", css):
        names = [n.strip() for n in selectors.split(",") if n.strip()]
        head = ", ".join(f"{scope} {n}" for n in names) if names else scope
        rules.append(f"{head} {{ {' '.join(body.split())} }}")
    return "\n".join(rules)


def _e(text: str) -> str:
    return html.escape(text, quote=True)


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt  # noqa: PLC0415 (only an HTML export needs it)

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    # Only web and mail links: no javascript:, data:, file: or relative paths.
    md.validateLink = lambda url: _SAFE_LINK.match(url.strip()) is not None  # type: ignore[method-assign]

    def image(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        label = _e(token.content or "image")
        src = str(token.attrGet("src") or "")
        if re.match(r"https?:", src, re.IGNORECASE):
            return f'<a href="{_e(src)}" rel="noopener noreferrer">[image: {label}]</a>'
        return f"[image: {label}]"

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "noopener noreferrer")
        rendered: str = renderer.renderToken(tokens, idx, options, env)
        return rendered

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    return md


def render_markdown(text: str) -> str:
    r"""Agent-written Markdown as HTML that can carry neither script nor a fetch.

    Examples
    --------
    >>> render_markdown("[x](javascript:alert(1))")
    '<p>[x](javascript:alert(1))</p>\n'
    >>> render_markdown("![i](http://e.org/i.png)")
    '<p><a href="http://e.org/i.png" rel="noopener noreferrer">[image: i]</a></p>\n'
    """
    rendered: str = _markdown().render(text)
    return rendered


def _pre(text: str) -> str:
    return f"<pre><code>{_e(text)}</code></pre>"


def _details(summary: str, body: str, *, css: str = "", open_: bool = False) -> str:
    cls = f' class="{css}"' if css else ""
    flag = " open" if open_ else ""
    return f"<details{cls}{flag}><summary>{_e(summary)}</summary>{body}</details>"


def _images(message: Message) -> str:
    out = []
    for i, a in enumerate(message.attachments):
        name = a.name or common.attachment_name(message, i, a)
        if (
            a.data
            and a.media_type in IMAGE_MEDIA_TYPES
            and re.fullmatch(r"[A-Za-z0-9+/=]*", a.data)
        ):
            out.append(
                f'<img class="attachment" alt="{_e(name)}" '
                f'src="data:{a.media_type};base64,{a.data}">'
            )
        else:
            out.append(f"<p><em>{_e(name)}: {_e(a.omitted or 'not kept')}</em></p>")
    return "".join(out)


def _tool(tool: ToolCall, limit: int | None) -> str:
    summary = common.tool_summary(tool)
    head = (
        f'<span class="name"><code>{_e(common.tool_title(tool))}</code></span>'
        f'<span class="status">{_e(common.tool_status(tool))}</span>'
        + (f' <span class="summary">{_e(summary)}</span>' if summary else "")
        + (f' <span class="native">{_e(tool.name)}</span>' if tool.shell else "")
    )
    body = []
    if tool.shell and summary != f"$ {tool.shell}":  # the summary holds only a short one
        body.append(f'<div class="label">Command</div>{_pre(common.cut(tool.shell, limit))}')
    given = common.tool_input(tool) if not tool.shell or len(tool.input) > 1 else ""
    if given:
        body.append(f'<div class="label">Input</div>{_pre(common.cut(given, limit))}')
    if tool.output is not None:
        label = "Error" if tool.status == "error" else "Output"
        output = common.plain_output(tool.output)
        body.append(
            f'<div class="label">{label}</div>{_pre(common.cut(output, limit) or "(empty)")}'
        )
    elif tool.progress:
        body.append(
            f'<div class="label">Output so far</div>{_pre(common.cut(tool.progress, limit))}'
        )
    return f'<details class="tool-call"><summary>{head}</summary>{"".join(body)}</details>'


def _dialog(dialog: Dialog) -> str:
    out = [f'<div class="label">{_e(common.dialog_title(dialog))}</div>']
    if dialog.body.strip():
        label = "The plan" if dialog.kind == "plan" else "Details"
        out.append(_details(label, render_markdown(dialog.body)))
    for q in common.dialog_questions(dialog):
        header = f"<strong>{_e(q.header)}</strong> " if q.header else ""
        options = "".join(
            f'<li class="option{" chosen" if chosen else ""}">{"☑" if chosen else "☐"} '
            f"{_e(label)}{(' — ' + _e(desc)) if desc else ''}</li>"
            for label, desc, chosen in q.options
        )
        typed = f'<li class="option chosen">typed: {_e(q.typed)}</li>' if q.typed else ""
        out.append(f'<div class="question">{header}{_e(q.text)}<ul>{options}{typed}</ul></div>')
    out.append(f'<p class="outcome">{_e(common.dialog_outcome(dialog))}</p>')
    return "".join(out)


def _message(node: common.Node, limit: int | None) -> str:
    m = node.message
    classes = ["msg", m.role, m.kind]
    if m.kind == "lifecycle":
        classes.append(m.level or "info")
    model = f'<span class="model">{_e(m.model)}</span>' if m.model and m.role == "assistant" else ""
    label = f'<div class="label">{_e(common.role_label(m))}{model}</div>'
    if m.thinking:
        body = (
            "<p><em>Thinking (hidden by the agent)</em></p>"
            if common.thinking_hidden(m)
            else _details("Thinking", render_markdown(m.text))
        )
    elif m.kind == "dialog" and m.dialog is not None:
        body = _dialog(m.dialog) + (_tool(m.tool, limit) if m.tool is not None else "")
    elif m.kind == "tool" and m.tool is not None:
        body = _tool(m.tool, limit)
    elif m.kind == "lifecycle":
        body = f"<p>{_e(m.text)}</p>"
        if m.detail.strip():
            body += _details("Details", render_markdown(m.detail))
    elif m.command:
        body = f"<p>ran <code>{_e(common.command_line(m))}</code></p>"
    else:
        body = render_markdown(m.text)
    children = "".join(_message(child, limit) for child in node.children)
    sub = f'<div class="subagent">{children}</div>' if children else ""
    status = f' data-status="{_e(m.tool.status)}"' if m.tool is not None else ""
    return (
        f'<article class="{" ".join(classes)}" data-seq="{m.seq}"{status}>'
        f"{label}{body}{_images(m)}{sub}</article>"
    )


def _table(rows: Sequence[Sequence[str]], header: Sequence[str] = ()) -> str:
    head = "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>" if header else ""
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}{body}</table>"


def html_document(
    chats: Sequence[Chat],
    title: str = "Agent conversation",
    limit: int | None = common.MAX_OUTPUT_CHARS,
) -> str:
    """The conversations as one HTML page (a string)."""
    sections = []
    for index, chat in enumerate(chats):
        heading = common.conversation_heading(index, len(chats))
        parts = [f"<h2>{_e(heading)}</h2>"] if heading else []
        parts.append(_table(common.summary_rows(chat)))
        models = common.model_rows(chat)
        if models:
            header = ("Model", "Requests", "Tokens in", "Tokens out", "Estimated cost")
            parts.append(_table(models, header))
        parts += [_message(node, limit) for node in common.tree(chat.messages)]
        sections.append(f'<section class="conversation">{"".join(parts)}</section>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="lab_widget {_VERSION}">'
        f"<title>{_e(title)}</title><style>{_PAGE_STYLE}{_CONTENT_STYLE}</style></head>\n"
        f"<body><main><h1>{_e(title)}</h1>"
        f'<p class="generator">Exported by lab_widget {_VERSION}.</p>'
        f"{''.join(sections)}</main></body></html>\n"
    )


def html_fragment(
    conversations: Sequence[Sequence[Message]],
    title: str,
    note: str = "",
    limit: int | None = common.MAX_OUTPUT_CHARS,
) -> str:
    """Conversations as one HTML element to put in a page, its styles scoped to it.

    For a notebook's outputs: what front ends without the live widget show (nbviewer, GitHub,
    nbconvert). Sanitised like :func:`html_document`: no script, links only to the web and
    mail, images only from the transcript. ``conversations`` is oldest first; each is its
    messages, sub-agents' included.

    Examples
    --------
    >>> from lab_widget.schema import Message
    >>> hi = Message(seq=0, kind="text", role="assistant", text="<script>x</script> *hi*")
    >>> part = html_fragment([[hi]], "Agent")
    >>> part.startswith('<div class="lab-widget-static">'), "<script" in part
    (True, False)
    >>> "&lt;script&gt;x&lt;/script&gt; <em>hi</em>" in part
    True
    """
    scope = f".{FRAGMENT_CLASS}"
    style = _scoped(_FRAGMENT_STYLE + _CONTENT_STYLE, scope)
    sections = []
    for index, messages in enumerate(conversations):
        heading = common.conversation_heading(index, len(conversations))
        parts = [f"<h2>{_e(heading)}</h2>"] if heading else []
        parts += [_message(node, limit) for node in common.tree(messages)]
        sections.append(f'<section class="conversation">{"".join(parts)}</section>')
    footer = f'<p class="note">{_e(note)}</p>' if note else ""
    return (
        f'<div class="{FRAGMENT_CLASS}"><style>{style}</style>'
        f'<p class="title">{_e(title)}</p>{"".join(sections)}{footer}</div>'
    )
