"""Processes and files under a run: tmux, typed input, the pane's screen and stream, the tailer.

It knows no chat and no run.
"""
