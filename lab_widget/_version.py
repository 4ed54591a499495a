"""The package version (one place: the worker protocol compares it across hosts)."""

__version__ = "0.1.0"
