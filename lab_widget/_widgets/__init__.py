"""The package's widgets: the chat view of a run, the runs dashboard and the login card.

Each is a :class:`~lab_widget._widgets._base.BundledWidget` (its front end is one bundle of
``lab_widget/static/``) and takes its actions through one
:class:`~lab_widget._widgets._channel.ActionChannel`.
"""

from ._auth_card import ProviderAuthCard, login, offer_login
from ._base import BundledWidget
from ._channel import ActionChannel, ActionRequest, ActionResult
from ._dashboard import RunList, RunsDashboard, RunsTable
from ._view import ChatSource, RunView

__all__ = [
    "ActionChannel",
    "ActionRequest",
    "ActionResult",
    "BundledWidget",
    "ChatSource",
    "ProviderAuthCard",
    "RunList",
    "RunView",
    "RunsDashboard",
    "RunsTable",
    "login",
    "offer_login",
]
