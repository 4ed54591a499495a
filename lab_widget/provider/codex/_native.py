"""Codex's native binary, found the way its npm launcher finds it, so a run spawns it
directly instead of through Node.
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import kit

__all__ = ["PlatformBinary"]


@dataclass(frozen=True, kw_only=True)
class PlatformBinary(kit.Coupling):
    """Where the npm package's launcher (a Node script) finds the platform's native binary,
    and the environment it hands that binary.

    Examples
    --------
    >>> seen = kit.Evidence(version="1", how="extraction: bin/codex.js")
    >>> record = PlatformBinary(
    ...     package="@openai/codex",
    ...     platforms={("linux", "x86_64"): ("@openai/codex-linux-x64", "x86_64-unknown-linux")},
    ...     path="vendor/{triple}/bin/codex",
    ...     evidence=seen,
    ... )
    >>> record.resolve(Path("/nowhere/codex")) is None
    True
    """

    package: str
    """The npm package whose launcher this is (its ``package.json`` ``name``)."""
    platforms: Mapping[tuple[str, str], tuple[str, str]]
    """(``sys.platform``, ``platform.machine()``) to (the platform package, its target)."""
    path: str
    """The binary inside the platform package (or the package's own ``vendor``), ``{triple}``
    standing for the target."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables the launcher sets for the binary."""
    root_env: str = ""
    """The variable the launcher sets to the package's folder."""

    def resolve(self, launcher: Path) -> Path | None:
        """The native binary behind ``launcher``, or ``None`` when ``launcher`` is not this
        package's launcher or the binary is missing (the launcher is then spawned).
        """
        root = self.package_root(launcher)
        target = self.platforms.get((sys.platform, platform.machine()))
        if root is None or target is None:
            return None
        package, triple = target
        inner = self.path.format(triple=triple)
        # Node's lookup from the launcher's folder: each ancestor's node_modules, then the
        # package's own vendor folder.
        folders = [d for d in (root / "bin", *(root / "bin").parents) if d.name != "node_modules"]
        for candidate in [d / "node_modules" / package for d in folders] + [root]:
            binary = candidate / inner
            if binary.is_file():
                return binary
        return None

    def package_root(self, launcher: Path) -> Path | None:
        """The package folder of ``launcher`` when it is this package's launcher."""
        try:
            root = launcher.resolve().parent.parent
            name = json.loads((root / "package.json").read_text()).get("name")
        except (OSError, ValueError, AttributeError):
            return None
        return root if name == self.package else None

    def spawn_env(self, launcher: Path) -> dict[str, str]:
        """What the launcher would have set for the binary."""
        root = self.package_root(launcher)
        env = dict(self.env)
        if root is not None and self.root_env:
            env[self.root_env] = str(root)
        return env
