"""Unit: conversations exported as a notebook, Markdown and a sanitised HTML page."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from lab_widget import ExportFormatError, SessionInfo, read_transcript
from lab_widget._export._export import export
from lab_widget.schema import (
    Answer,
    Attachment,
    Chat,
    Dialog,
    Message,
    Option,
    Question,
    SessionSummary,
    ToolCall,
    Usage,
)
from tests.support import paths

FIXTURES = paths.FIXTURES / "claude-code"
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
HOSTILE = (
    "Look: <img src=x onerror=\"alert('img')\"> <script>alert('s')</script> "
    "[a link](javascript:alert('md')) ![remote](https://tracker.example/p.png?leak=1) END"
)


def crafted() -> Chat:
    """One of everything a conversation can hold."""
    question = Dialog(
        kind="question",
        tool_id="ask1",
        tool_name="AskUserQuestion",
        status="answered",
        outcome="Database → SQLite; Features → Auth, Export",
        questions=[
            Question(
                header="Database",
                text="Which database?",
                options=[Option(label="SQLite", description="A file"), Option(label="Postgres")],
            ),
            Question(
                header="Features",
                text="Which features?",
                multi_select=True,
                options=[Option(label="Auth"), Option(label="Export"), Option(label="Search")],
            ),
        ],
        answers=[Answer(selected=["SQLite"]), Answer(selected=["Auth", "Export"])],
    )
    plan = Dialog(kind="plan", tool_id="plan1", status="rejected", body="# Plan\n\n1. Read")
    bash = ToolCall(id="b1", name="Bash", input={"command": "ls -la"}, status="ok", output="a\nb")
    task = ToolCall(
        id="t1", name="Task", input={"description": "Count"}, status="ok", agent_id="ag"
    )
    image = Attachment.from_base64("image/png", PIXEL, name="plot.png")
    assert image is not None
    at = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    messages = [
        Message(seq=0, kind="text", role="user", text="Plot the data\nplease", timestamp=at),
        Message(seq=1, kind="text", role="assistant", thinking=True, text="They want a *plot*."),
        Message(seq=2, kind="text", role="assistant", thinking=True, redacted=True),
        Message(
            seq=3,
            kind="text",
            role="assistant",
            model="scripted-model",
            usage=Usage(input_tokens=10, output_tokens=5),
            text="Run this:\n\n```python\nimport math\nprint(math.pi)\n```\n\nor in a shell:\n\n```bash\nls\n```",
        ),
        Message(seq=4, kind="tool", role="assistant", tool=bash),
        Message(seq=5, kind="dialog", role="assistant", dialog=question),
        Message(seq=6, kind="dialog", role="assistant", dialog=plan),
        Message(seq=7, kind="tool", role="assistant", tool=task),
        Message(seq=8, kind="text", role="user", text="count", parent_tool_id="t1"),
        Message(seq=9, kind="text", role="assistant", text="Three files.", parent_tool_id="t1"),
        Message(
            seq=10,
            kind="lifecycle",
            role="system",
            text="Conversation compacted",
            detail="Summary: we plotted.",
            level="info",
        ),
        Message(seq=11, kind="text", role="user", text="/model opus", command="/model"),
        Message(seq=12, kind="text", role="assistant", text=HOSTILE, attachments=[image]),
    ]
    session = SessionSummary(
        transcript_id="t-crafted",
        model="scripted-model",
        usage=Usage(input_tokens=10, output_tokens=5),
        cost_usd_estimate=0.0012,
        cwd="/work/project",
    )
    return Chat(messages=messages, state="idle", session=session)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    nb: nbformat.NotebookNode = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    return nb


def test_a_notebook_holds_everything_and_validates(tmp_path: Path) -> None:
    path = crafted().export(tmp_path / "chat.ipynb", title="Plotting session")
    nb = read_notebook(path)
    sources = [c.source for c in nb.cells]
    assert sources[0].startswith("# Plotting session")
    # "$" escaped: notebooks read "$...$" as maths.
    assert "- **Estimated cost**: \\$0.0012" in sources[1] and "10 in · 5 out" in sources[1]
    # The answer's Python block is a code cell of its own, ready to run; the shell block stays.
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in code] == ["import math\nprint(math.pi)"]
    assert code[0].outputs == [] and code[0].execution_count is None
    assert code[0].metadata["lab_widget"]["seq"] == 3
    assert any("```bash\nls\n```" in s for s in sources)
    text = "\n".join(sources)
    assert "<details><summary>Thinking</summary>\n\nThey want a *plot*." in text
    assert "*Thinking (hidden by the agent)*" in text
    assert "**Tool** `Bash` · done · ls -la" in text and "```text\na\nb\n```" in text
    assert "- **Database** Which database?\n  - ☑ SQLite — A file\n  - ☐ Postgres" in text
    assert "*Answered: Database → SQLite; Features → Auth, Export*" in text
    assert "<details><summary>The plan</summary>" in text and "*Rejected*" in text
    assert "> **Sub-agent (assistant)**\n>\n> Three files." in text  # nested under its call
    assert "*Conversation compacted*" in text and "Summary: we plotted." in text
    assert "**User** ran `/model opus`" in text
    # The image travels inside the notebook, as a cell attachment.
    [with_image] = [c for c in nb.cells if c.get("attachments")]
    assert with_image.attachments == {"image-12-0.png": {"image/png": PIXEL}}
    assert "![plot.png](attachment:image-12-0.png)" in with_image.source


def test_a_notebook_carries_no_live_markup_from_the_agent(tmp_path: Path) -> None:
    nb = read_notebook(crafted().export(tmp_path / "chat.ipynb"))
    [hostile] = [c.source for c in nb.cells if "END" in c.source]
    assert "&lt;img src=x" in hostile and "&lt;script>" in hostile
    assert "<img" not in hostile and "<script" not in hostile
    assert "[image: remote](https://tracker.example/p.png?leak=1)" in hostile  # a link, no fetch


def test_the_recorded_sub_agent_session_exports_nested(tmp_path: Path) -> None:
    chat = read_transcript(FIXTURES / "subagent.jsonl", "claude-code")
    nb = read_notebook(chat.export(tmp_path / "sub.ipynb"))
    sources = [c.source for c in nb.cells]
    call = next(i for i, s in enumerate(sources) if s.startswith("**Tool** `Agent`"))
    assert "Runs the sub-agent" in sources[call]
    assert sources[call + 1].startswith("> **Sub-agent (user)**")
    assert "(subagent)" in sources[1]  # the per-model table counts the sub-agent apart
    # Its report is its reply, once: the call's result (the same words) is not shown again.
    assert sum(s.count("There is one file.") for s in sources) == 1
    assert "There is one file." not in sources[call]
    page = chat.export(tmp_path / "sub.html").read_text()
    assert page.count("There is one file.") == 1


def test_markdown_inlines_images_and_fences_code(tmp_path: Path) -> None:
    text = crafted().export(tmp_path / "chat.md").read_text()
    assert f"![plot.png](data:image/png;base64,{PIXEL})" in text
    assert "```python\nimport math\nprint(math.pi)\n```" in text
    assert "<img" not in text and "<script" not in text


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_html_is_one_sanitised_page_with_images_inline(tmp_path: Path) -> None:
    page = crafted().export(tmp_path / "chat.html").read_text()
    parser = Tags()
    parser.feed(page)
    names = {tag for tag, _ in parser.tags}
    assert not names & {"script", "iframe", "object", "embed", "form", "input", "link", "base"}
    assert names <= {
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "main",
        "h1",
        "h2",
        "p",
        "table",
        "tr",
        "td",
        "th",
        "section",
        "article",
        "div",
        "span",
        "details",
        "summary",
        "pre",
        "code",
        "ul",
        "ol",
        "li",
        "em",
        "strong",
        "a",
        "img",
        "blockquote",
        "h3",
        "br",
    }, names
    for tag, attrs in parser.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        if tag == "a":
            assert (attrs.get("href") or "").startswith(("https:", "http:", "mailto:")), attrs
        if tag == "img":
            assert (attrs.get("src") or "").startswith("data:image/png;base64,"), attrs
    csp = [a for t, a in parser.tags if t == "meta" and a.get("http-equiv")]
    assert "default-src 'none'" in (csp[0].get("content") or "")
    # What the agent wrote is there, as text.
    assert "&lt;img src=x onerror=" in page and "&lt;script&gt;alert" in page
    assert "[image: remote]" in page and "END" in page
    assert "<strong>Database</strong> Which database?" in page


def test_several_conversations_export_in_order(tmp_path: Path) -> None:
    before = read_transcript(FIXTURES / "clear_before.jsonl", "claude-code")
    after = read_transcript(FIXTURES / "clear_after.jsonl", "claude-code")
    nb = read_notebook(export([before, after], tmp_path / "run.ipynb", title="A run"))
    headings = [c.source.split("\n")[0] for c in nb.cells if c.source.startswith("## ")]
    assert headings == ["## Conversation 1 of 2", "## Conversation 2 of 2"]
    conversations = {c.metadata.get("lab_widget", {}).get("conversation") for c in nb.cells}
    assert {0, 1} <= conversations


def test_a_past_session_exports_from_history(tmp_path: Path) -> None:
    path = FIXTURES / "tools.jsonl"
    info = SessionInfo("claude-code", "tools", path, datetime.now(UTC), path.stat().st_size)
    nb = read_notebook(info.export(tmp_path / "tools.ipynb"))
    assert nb.cells[0].source.startswith("# Session tools (claude-code)")
    assert nb.metadata["lab_widget"]["transcripts"] == ["tools"]


def test_format_comes_from_the_suffix_or_is_named(tmp_path: Path) -> None:
    chat = crafted()
    with pytest.raises(ExportFormatError, match=r"'chat.txt'.*\.ipynb"):
        chat.export(tmp_path / "chat.txt")
    with pytest.raises(ExportFormatError, match="unknown export format 'pdf'"):
        chat.export(tmp_path / "chat.ipynb", format="pdf")
    written = chat.export(tmp_path / "record", format="markdown")
    assert written.read_text().startswith("# Agent conversation")
    assert json.loads(chat.export(tmp_path / "x.IPYNB").read_text())["nbformat"] == 4


def test_long_outputs_are_cut_with_a_note(tmp_path: Path) -> None:
    big = ToolCall(
        id="x", name="Bash", input={"command": "yes"}, status="ok", output="y\n" * 30_000
    )
    chat = Chat(
        messages=[Message(seq=0, kind="tool", role="assistant", tool=big)],
        state="idle",
        session=SessionSummary(),
    )
    text = chat.export(tmp_path / "big.md").read_text()
    assert "more characters left out of the export" in text
    assert len(text) < 30_000
