"""GitHub Copilot CLI, pinned to 1.0.102 (``docs/compat/copilot.md``).

Written so far: the compat records, the session log reader (``_transcript.py``) and the
approval dialog. Still the template's: the spawn, readiness and signals, commands and
auth, which raise ``NotImplementedError`` saying what to write; until they are written the
provider is neither pinned in ``lab_widget/compat.py`` nor registered.
"""

from ._provider import CopilotProvider

__all__ = ["CopilotProvider"]
