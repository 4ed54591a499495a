"""The provider package to copy when adding a CLI: every module of the set, each piece a
new adapter has to write raising :class:`NotImplementedError` that says what to fill in.

It is never registered. Copy the folder to ``lab_widget/provider/<name>/``, rename
``Template`` throughout, register the class in ``_registry._BUILTIN`` and follow
``docs/adding-a-provider.md``: the conformance suite then fails, obligation by obligation,
with the message of the piece still to write.
"""

from ._provider import TemplateProvider

__all__ = ["TemplateProvider"]
