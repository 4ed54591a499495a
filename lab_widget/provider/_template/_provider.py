"""The new CLI behind the seam: its TUI driven by the records in ``_compat.py``.

What :class:`~lab_widget.provider.TuiProvider` does from the records (reply, interrupt,
approval answers, start-up acceptance, commands, seeding) needs nothing here; what only this
CLI knows raises ``_compat.todo`` until it is written.
"""

from __future__ import annotations

from ...schema import AuthDescriptor, AuthStatus, SessionSummary
from .. import (
    ProviderMeta,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    TranscriptReader,
    TranscriptRef,
    kit,
)
from . import _auth, _commands, _compat, _usage_scan

__all__ = ["TemplateProvider"]


class TemplateProvider(kit.TuiProvider):
    """A provider to copy; it runs no CLI."""

    meta = ProviderMeta(
        id="template", display_name="Template CLI", binary="template-cli", clear_command="/clear"
    )
    couplings = _compat
    commands_from = _commands

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        raise _compat.todo(
            "_provider.py plan_spawn",
            "the argv, environment and folder that start the CLI's TUI; for an endpoint, an "
            "isolated home (kit.isolated_home) whose config points the CLI at it "
            "(_config.isolated_config), the key in env and named in secret_env",
        )

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        raise _compat.todo(
            "_provider.py locate_transcript",
            "where the CLI writes this run's transcript, and a new transcript id after its "
            "clear command (note it with self.opened_by_clear when the CLI records no echo)",
        )

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        raise _compat.todo(
            "_provider.py open_reader",
            "return the reader of _transcript.py, opened with self.clear_echo(ref)",
        )

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        return _usage_scan.usage_summary(ref)

    def auth(self) -> AuthDescriptor:
        return _auth.descriptor()

    def auth_status(self) -> AuthStatus:
        return _auth.status()
