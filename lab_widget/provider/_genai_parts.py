"""Google GenAI ``Content`` parts (``text``, ``functionCall``, ``functionResponse``,
``inlineData``) as the records of Gemini CLI and of the CLIs forked from it keep them: read
by a grammar record, each member's own context prefixes and shell-output format.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..schema import Attachment, ToolCall
from ._couplings import ShellTools

__all__ = ["PartsGrammar", "genai_attachments", "genai_call"]


@dataclass(frozen=True, kw_only=True)
class PartsGrammar:
    r"""How one CLI's records wrap what GenAI parts carry.

    Examples
    --------
    >>> g = PartsGrammar(
    ...     context_prefixes=("<ctx>",),
    ...     output_wrapper=("<w>\n", "\n</w>"),
    ...     process_group=r"(?m)^PGID: \d+\n?",
    ...     shell_output=r"\ACommand: .*?\nOutput: (?P<output>.*?)\nError: (?P<error>.*?)\n"
    ...     r"Exit Code: (?P<code>.*?)\n",
    ...     empty=("(none)",),
    ... )
    >>> g.texts([{"text": "<ctx> mine"}, {"text": "hi"}, {"text": "t", "thought": True}])
    'hi'
    >>> wrapped = "<w>\nOutput: a\nPGID: 7\n</w>"
    >>> g.tool_output([{"functionResponse": {"response": {"output": wrapped}}}])
    'a'
    >>> g.tool_output([{"functionResponse": {"response": {"error": "denied"}}}])
    'denied'
    >>> old = "Command: ls x\nOutput: (none)\nError: no x\nExit Code: 2\nSignal: 0\n"
    >>> g.tool_output([{"functionResponse": {"response": {"output": old}}}])
    'no x\nExit Code: 2'
    """

    context_prefixes: tuple[str, ...]
    """How the user text parts the CLI writes itself begin."""
    output_wrapper: tuple[str, str]
    """What a tool's output is wrapped in, before and after."""
    process_group: str
    """A line of shell output naming the process group (not the command's output)."""
    shell_output: str
    """A shell result laid out in fields: ``output``, ``error`` and ``code`` groups."""
    empty: tuple[str, ...]
    """How an empty field reads."""
    _compiled: dict[str, re.Pattern[str]] = field(default_factory=dict, compare=False)

    def _re(self, pattern: str) -> re.Pattern[str]:
        found = self._compiled.get(pattern)
        if found is None:
            found = self._compiled[pattern] = re.compile(pattern, re.DOTALL)
        return found

    def is_context(self, text: str) -> bool:
        """Whether a user text part is the CLI's own context rather than the user's words."""
        return text.lstrip().startswith(self.context_prefixes)

    def texts(self, content: Any) -> str:
        """The text of ``content`` (a string or a list of parts), context and thoughts left
        out.
        """
        if isinstance(content, str):
            return "" if self.is_context(content) else content
        if not isinstance(content, list):
            return ""
        return "\n".join(
            str(p["text"])
            for p in content
            if isinstance(p, dict)
            and isinstance(p.get("text"), str)
            and not p.get("thought")
            and not self.is_context(str(p["text"]))
        )

    def tool_output(self, result: Any) -> str:
        """The text of a call's ``functionResponse`` parts, unwrapped."""
        texts: list[str] = []
        for part in result if isinstance(result, list) else []:
            response = (
                part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
            )
            if not isinstance(response, dict):
                continue
            value = response.get("output", response.get("error"))
            text = value if isinstance(value, str) else json.dumps(value)
            head, tail = self.output_wrapper
            if text.startswith(head) and text.endswith(tail):
                text = text[len(head) : -len(tail)]
            fields = self._re(self.shell_output).match(text)
            if fields is not None:
                text = self._shell_fields(fields)
            if text.startswith("Output: "):
                text = text[len("Output: ") :]
            text = re.sub(self.process_group, "", text).rstrip("\n")
            texts.append("" if text in self.empty else text)
        return "\n".join(texts)

    def _shell_fields(self, match: re.Match[str]) -> str:
        """A field-laid shell result's output and error, and the exit code when it is not 0
        (kept as the wrapped format keeps it, so it marks the call failed).
        """
        lines = [
            match.group(name)
            for name in ("output", "error")
            if match.group(name).strip() not in self.empty
        ]
        code = match.group("code").strip()
        if code not in ("0", *self.empty):
            lines.append(f"Exit Code: {code}")
        return "\n".join(lines)


def genai_attachments(parts: Any) -> list[Attachment]:
    """The images among ``inlineData`` parts (a user's pasted file, a tool's result).

    Examples
    --------
    >>> [a.media_type for a in genai_attachments([{"inlineData": {"mimeType": "image/png",
    ...                                            "data": "iVBORw0KGgo="}}, {"text": "x"}])]
    ['image/png']
    """
    found: list[Attachment] = []
    for part in parts if isinstance(parts, list) else []:
        inline = part.get("inlineData") if isinstance(part, dict) else None
        if isinstance(inline, dict):
            made = Attachment.from_base64(inline.get("mimeType"), inline.get("data"))
            if made is not None:
                found.append(made)
    return found


def genai_call(call: dict[str, Any], shell: ShellTools, **fields: Any) -> ToolCall:
    """A ``functionCall`` (or a CLI's record of one, of the same keys) as a tool call: its id,
    name and arguments, the command line ``shell`` finds in them, and ``fields``.

    Examples
    --------
    >>> from lab_widget.provider.kit import Evidence
    >>> shell = ShellTools(fields={"run_shell_command": "command"}, evidence=Evidence("1", "t"))
    >>> call = genai_call({"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}},
    ...                   shell, status="running")
    >>> call.id, call.name, call.shell, call.status
    ('c1', 'run_shell_command', 'ls', 'running')
    >>> genai_call({"args": "not a dict"}, shell, status="running").input
    {}
    """
    args = call.get("args")
    given: dict[str, Any] = args if isinstance(args, dict) else {}
    name = call.get("name")
    return ToolCall(
        id=str(call.get("id") or ""),
        name=str(name or "tool"),
        input=given,
        shell=shell.line(str(name), given),
        **fields,
    )
