"""GitHub Copilot CLI behind the seam: its TUI driven by the records in ``_compat.py``.

What :class:`~lab_widget.provider.TuiProvider` does from the records (reply, interrupt,
approval answers, start-up acceptance, commands, seeding) needs nothing here; what only this
CLI knows raises ``_compat.todo`` until it is written.
"""

from __future__ import annotations

from ... import provider as kit
from ...schema import AuthDescriptor, AuthStatus
from . import _auth, _commands, _compat

__all__ = ["CopilotProvider"]


class CopilotProvider(kit.TuiProvider):
    """A provider to copy; it runs no CLI."""

    meta = kit.ProviderMeta(
        id="copilot", display_name="GitHub Copilot CLI", binary="copilot", clear_command="/clear"
    )
    couplings = _compat
    commands_from = _commands

    def plan_spawn(self, request: kit.SpawnRequest) -> kit.SpawnPlan:
        raise _compat.todo(
            "_provider.py plan_spawn",
            "the argv, environment and folder that start the CLI's TUI; for an endpoint, an "
            "isolated home (kit.isolated_home) whose config points the CLI at it, the key in "
            "env and named in secret_env",
        )

    def locate_transcript(
        self, context: kit.RunContext, current: kit.TranscriptRef | None
    ) -> kit.TranscriptRef | None:
        raise _compat.todo(
            "_provider.py locate_transcript",
            "where the CLI writes this run's transcript, and a new transcript id after its "
            "clear command (note it with self.opened_by_clear when the CLI records no echo)",
        )

    def open_reader(self, ref: kit.TranscriptRef) -> kit.TranscriptReader:
        raise _compat.todo(
            "_provider.py open_reader",
            "return the reader of _transcript.py, opened with self.clear_echo(ref)",
        )

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status()
