"""The login card; it lives in :mod:`lab_widget._widgets._auth_card`."""

from ._widgets._auth_card import ProviderAuthCard, login, offer_login

__all__ = ["ProviderAuthCard", "login", "offer_login"]
