"""The ``---`` frontmatter of Claude Code's command and skill files, parsed as the CLI reads it.

Only what command files use is understood: ``key: value`` lines, quoted values, values
continued on indented lines and ``>`` / ``|`` blocks. Other values (lists) are kept as their
text.
"""

from __future__ import annotations

import re

__all__ = ["FrontmatterError", "parse_frontmatter"]

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:[ \t]+(.*))?$")
_BLOCK_STYLES = frozenset({">", "|", ">-", "|-", ">+", "|+"})
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}


class FrontmatterError(ValueError):
    """A file's ``---`` frontmatter block does not parse."""


def parse_frontmatter(text: str) -> tuple[dict[str, str], str]:
    r"""Split ``text`` into its frontmatter keys and its body.

    Only what command files use is understood: ``key: value`` lines, quoted values,
    values continued on indented lines and ``>`` / ``|`` blocks. Other values (lists)
    are kept as their text.

    Raises
    ------
    FrontmatterError
        When the block is never closed, a line is not ``key: value``, or a quote is not
        closed.

    Examples
    --------
    >>> parse_frontmatter("---\ndescription: Greet\nargument-hint: <name>\n---\nHi $1")
    ({'description': 'Greet', 'argument-hint': '<name>'}, 'Hi $1')
    >>> parse_frontmatter("No frontmatter")
    ({}, 'No frontmatter')
    """
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":
            break
    else:
        raise FrontmatterError("the opening --- is never closed")
    return _mapping(lines[1:end]), "\n".join(lines[end + 1 :])


def _mapping(lines: list[str]) -> dict[str, str]:
    entries: list[tuple[str, str, list[str]]] = []
    for number, line in enumerate(lines, start=2):
        if line[:1] in (" ", "\t") or not line.strip() or line.startswith("#"):
            if entries:
                entries[-1][2].append(line)
            elif line.strip() and not line.startswith("#"):
                raise FrontmatterError(f"line {number} is indented but follows no key")
            continue
        match = _KEY.match(line)
        if match is None:
            raise FrontmatterError(f"line {number} is not 'key: value': {line[:40]!r}")
        entries.append((match[1], (match[2] or "").strip(), []))
    return {key: _scalar(first, rest) for key, first, rest in entries}


def _scalar(first: str, rest: list[str]) -> str:
    more = [line.strip() for line in rest if line.strip() and not line.lstrip().startswith("#")]
    if first in _BLOCK_STYLES:
        return ("\n" if first.startswith("|") else " ").join(more)
    if first[:1] in ('"', "'"):
        return _quoted(" ".join([first, *more]))
    text = re.sub(r"\s+#.*$", "", " ".join([first, *more]))
    if text.startswith(("[", "{")) and not _balanced(text):
        raise FrontmatterError(f"unbalanced brackets in {text[:40]!r}")
    return text


def _balanced(text: str) -> bool:
    """Whether every ``[`` / ``{`` closes (a flow list like ``[a] [b]`` is kept as text).

    Examples
    --------
    >>> _balanced("[a] [b]"), _balanced("[oops")
    (True, False)
    """
    depth = 0
    for char in text:
        depth += (char in "[{") - (char in "]}")
        if depth < 0:
            return False
    return depth == 0


def _quoted(text: str) -> str:
    quote = text[0]
    if len(text) < 2 or not text.endswith(quote):
        raise FrontmatterError(f"a quoted value is not closed: {text[:40]!r}")
    inner = text[1:-1]
    if quote == "'":
        return inner.replace("''", "'")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[0]), inner)
