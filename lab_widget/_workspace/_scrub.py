"""Attribution scrubbing: remove the lines a provider's agent signs its work with.

Applied where lab_widget exports agent-written text (``Run.diff``, ``Run.commit``); the
patterns come from the provider's :class:`~lab_widget.schema.SeedMeta`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..schema import ScrubPattern

__all__ = ["scrub_diff", "scrub_text"]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def _scrubbed(line: str, patterns: Sequence[ScrubPattern]) -> bool:
    return any(p.regex.search(line) for p in patterns)


def scrub_text(text: str, patterns: Sequence[ScrubPattern]) -> str:
    r"""``text`` without the lines any pattern matches, and without the blank lines
    their removal leaves at the end or doubled up.

    Examples
    --------
    >>> p = ScrubPattern(pattern=r"^Co-Authored-By: Bot", samples=["Co-Authored-By: Bot"])
    >>> scrub_text("Fix it\n\nCo-Authored-By: Bot\n", [p])
    'Fix it\n'
    """
    if not patterns:
        return text
    kept = [line for line in text.split("\n") if not _scrubbed(line, patterns)]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).rstrip()
    return out + "\n" if text.endswith("\n") and out else out


def scrub_diff(diff: str, patterns: Sequence[ScrubPattern]) -> str:
    """A unified diff without the added lines any pattern matches.

    Hunk headers are recounted, so the result still applies with ``git apply``. Only
    added (``+``) lines are scrubbed: context and removed lines describe what was there.
    """
    if not patterns:
        return diff
    # Split on "\n" only: a diff line may hold "\r", form feeds and other characters that
    # str.splitlines would take for line ends.
    lines = [line + "\n" for line in diff.split("\n")]
    lines[-1] = lines[-1][:-1]
    out: list[str] = []
    shift = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("diff --git "):
            shift = 0
        match = _HUNK.match(line.rstrip("\n"))
        if match is None:
            out.append(line)
            continue
        old_start, new_start = int(match[1]), int(match[3])
        old_len = 1 if match[2] is None else int(match[2])
        new_len = 1 if match[4] is None else int(match[4])
        body: list[str] = []
        left_old, left_new = old_len, new_len
        while i < len(lines) and (left_old > 0 or left_new > 0 or lines[i].startswith("\\")):
            tag = lines[i][:1]
            if tag not in (" ", "-", "+", "\\"):
                break
            left_old -= tag in (" ", "-")
            left_new -= tag in (" ", "+")
            body.append(lines[i])
            i += 1
        kept: list[str] = []
        dropped = 0
        last_dropped = False
        for entry in body:
            if entry.startswith("\\") and last_dropped:
                continue  # the "no newline at end of file" marker of a dropped line
            last_dropped = entry.startswith("+") and _scrubbed(entry[1:].rstrip("\n"), patterns)
            if last_dropped:
                dropped += 1
                continue
            kept.append(entry)
        length = new_len - dropped
        if dropped and length == 0 and old_len == 0:
            shift += dropped  # a hunk of scrubbed additions only: nothing left to apply
            continue
        start = new_start - shift - (1 if dropped and length == 0 else 0)
        out.append(f"@@ -{old_start},{old_len} +{start},{length} @@{match[5]}\n")
        out.extend(kept)
        shift += dropped
    return "".join(out)
