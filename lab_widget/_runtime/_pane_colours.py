"""The default colours a pane reports when a CLI asks them (OSC 10/11): the terminal view's."""

from __future__ import annotations

__all__ = ["VIEW_COLOURS", "colour_answers"]

VIEW_COLOURS = ("#d4d4d4", "#1e1e1e")
"""The terminal view's default foreground and background (``--lw-term-fg`` and
``--lw-term-bg`` in ``js/src/styles/terminal.css``): what a pane that answers colour queries
says."""


def colour_answers(colours: tuple[str, str] = VIEW_COLOURS) -> str:
    r"""The ``printf`` that gives a pane default colours of its own, so tmux answers a
    query of them (OSC 10/11) at once: tmux 3.3a answers none for a pane without.

    The terminal view ignores these sequences (its parser drops OSC 10 and 11); a client
    attached with ``tmux attach`` shows the pane in these colours.

    Examples
    --------
    >>> colour_answers(("#d4d4d4", "#1e1e1e"))
    "printf '\\033]10;rgb:d4/d4/d4\\033\\\\\\033]11;rgb:1e/1e/1e\\033\\\\'"
    """

    def rgb(hex_colour: str) -> str:
        value = hex_colour.lstrip("#")
        return "rgb:" + "/".join(value[i : i + 2] for i in (0, 2, 4))

    fg, bg = colours
    set_both = f"\\033]10;{rgb(fg)}\\033\\\\\\033]11;{rgb(bg)}\\033\\\\"
    return f"printf '{set_both}'"
