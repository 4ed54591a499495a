"""Unit: layering rules the design pins."""

from __future__ import annotations

import ast
import importlib
import posixpath
import re
from pathlib import Path

import lab_widget
import lab_widget.provider
import lab_widget.provider.kit
from lab_widget.compat import PINS
from lab_widget.provider import get_provider, provider_ids
from tests.support.package import (
    CONCRETE,
    PACKAGE,
    PROVIDERS,
    core_modules,
    module_name,
    user_facing_strings,
)
from tests.support.syntax import parse_file


def imported_modules(path: Path, root: Path = PACKAGE) -> set[str]:
    tree = parse_file(path)
    package = ".".join(path.relative_to(root.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def import_time(tree: ast.Module) -> list[ast.stmt]:
    """The import statements of a module that run when it is imported: at module level
    (also inside ``if``, ``try`` and ``with`` there), not inside functions or classes' methods,
    and not under ``if TYPE_CHECKING:``."""
    found: list[ast.stmt] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            todo += node.orelse if name == "TYPE_CHECKING" else [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            todo += [*node.body, *(s for h in node.handlers for s in h.body)]
            todo += [*node.orelse, *node.finalbody]
        elif isinstance(node, ast.With | ast.ClassDef):
            todo += node.body
    return found


def import_graph(root: Path = PACKAGE, *, at_import: bool = False) -> dict[str, set[str]]:
    """Which modules of the package each module imports.

    Every ``import`` and ``from ... import`` statement counts, wherever it is: at module
    level, inside functions, and inside ``if TYPE_CHECKING:`` blocks, so the layers and what
    a module can reach hold at run time and for the type checker alike. With ``at_import``
    only the imports that run when a module is imported count (:func:`import_time`): the
    graph an import cycle would break. ``from package import name`` is an edge to the
    submodule when ``name`` is one, else to the package itself (its ``__init__`` must have
    run). The edge every submodule has to its parent package is implied by Python, not drawn.
    """
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        tree = parse_file(path)
        for node in import_time(tree) if at_import else ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.add(sub if sub in modules else base)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or ``None`` when the graph has none."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph[node]):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done and (cycle := visit(target)) is not None:
                return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_package_has_no_import_cycles() -> None:
    # Import time is what a cycle breaks: a module half-initialised when another needs it. A
    # function that imports a higher layer when called (Exportable.export, the exporter)
    # or an import only the type checker reads is no cycle; the layers below still count it.
    cycle = find_cycle(import_graph(at_import=True))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_sees_import_time_imports_only(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind.
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import A\n")
    (package / "a.py").write_text("from .sub import b\nA = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text(
        "try:\n    from .. import c\nexcept ImportError:\n    c = None\n"
    )
    (package / "c.py").write_text("if True:\n    from .a import A\n")
    graph = import_graph(package, at_import=True)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.c"}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
    # The same edge back, inside a function or only for the type checker: no cycle.
    (package / "c.py").write_text("def f():\n    from .a import A\n")
    assert import_graph(package, at_import=True)["pkg.c"] == set()
    assert find_cycle(import_graph(package, at_import=True)) is None
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
        "else:\n    import pkg.sub\n"
    )
    assert import_graph(package, at_import=True)["pkg.c"] == {"pkg.sub"}
    assert find_cycle(import_graph(package, at_import=True)) is None
    # The full graph still sees both, for the layers.
    assert import_graph(package)["pkg.c"] == {"pkg.a", "pkg.sub"}


def imported_closure(module: str) -> set[str]:
    graph = import_graph()
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in graph[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


RUNTIME = {"lab_widget._runtime", "lab_widget._chat", "lab_widget._run"}
"""The folders that start, watch or drive an agent."""


def test_reading_transcripts_and_history_never_load_the_runtime() -> None:
    for module in (
        "lab_widget._reading._transcripts",
        "lab_widget._reading._history",
        "lab_widget._home",
    ):
        loaded = {".".join(m.split(".")[:2]) for m in imported_closure(module)}
        assert loaded & RUNTIME == set(), module


BASE = {"schema", "errors", "compat", "_version", "_home"}
"""The base every layer may use."""

LAYERS: dict[str, set[str]] = {
    "errors": set(),
    "compat": set(),
    "_version": set(),
    "schema": {"errors"},
    "_home": {"errors"},
    "provider": BASE,
    "scripted": BASE,
    "_install": BASE | {"provider"},
    "_provider_table": BASE | {"provider", "_install", "_acp"},
    "_runtime": BASE | {"provider"},
    "_acp": BASE | {"provider"},
    "_chat": BASE | {"provider"},
    "_kernel": BASE | {"provider", "_chat"},
    "_workspace": BASE | {"provider", "_install"},
    "_reading": BASE | {"provider", "_provider_table"},
    "_export": BASE | {"provider"},
    "_widgets": BASE | {"provider", "_runtime", "_chat", "_export", "_run._registry"},
    "_run": BASE
    | {"provider", "scripted", "_install", "_runtime", "_chat", "_workspace", "_acp"}
    | {"_reading", "_widgets", "_remote", "_kernel"},
    "_remote": BASE | {"provider", "scripted", "_runtime", "_chat", "_workspace", "_run"},
}
"""Which parts of the package each folder (or root module) may import: a folder's modules
import each other freely. ``_magics``, ``__init__``, ``__main__`` and ``testing`` (the pytest
plugin) sit on top and may import anything. A dotted entry allows one module of a folder, not
the whole folder."""


def layer_offences(graph: dict[str, set[str]]) -> list[str]:
    """Imports across folders that :data:`LAYERS` does not allow."""
    offences = []
    for module, targets in sorted(graph.items()):
        parts = module.split(".")
        home = parts[1] if len(parts) > 1 else "__init__"
        if home not in LAYERS:
            continue
        for target in sorted(targets):
            tparts = target.split(".")
            there = tparts[1] if len(tparts) > 1 else "__init__"
            allowed = LAYERS[home]
            if there == home or there in allowed or ".".join(tparts[1:3]) in allowed:
                continue
            offences.append(f"{module} imports {target}")
    return offences


CALLED_UP = {
    "lab_widget.schema._session imports lab_widget._export._export": "Exportable.export (a "
    "chat's, a past session's, a run's) calls the exporter, which builds on the schema; it "
    "imports it when called, so no import-time edge goes up",
}
"""Imports up the layers inside a function, each with why: the one way a lower layer may
call a higher one, never at import time (the cycle rule sees only those)."""


def test_every_folder_imports_only_the_layers_below_it() -> None:
    assert layer_offences(import_graph()) == sorted(CALLED_UP)
    assert layer_offences(import_graph(at_import=True)) == []
    assert set(LAYERS) | {"_magics", "__init__", "__main__", "testing"} >= {
        [*m.split("."), "__init__"][1] for m in import_graph()
    }, "a new folder or root module joins LAYERS"


def test_the_layer_checker_sees_an_import_from_above() -> None:
    # A sanity check so the guard above can never go blind.
    graph = {
        "lab_widget._chat._session": {"lab_widget._chat._state", "lab_widget._run._run"},
        "lab_widget._widgets._view": {"lab_widget._run._registry", "lab_widget._run._local"},
    }
    assert layer_offences(graph) == [
        "lab_widget._chat._session imports lab_widget._run._run",
        "lab_widget._widgets._view imports lab_widget._run._local",
    ]


SOFT_LIMIT = 1000
"""Lines past which a module likely holds more than one concern. A class is never split
across modules to stay under it: a module that is long because its class is, is named in
:data:`LONG_ON_PURPOSE` with the reason."""

LONG_ON_PURPOSE: dict[str, str] = {}
"""Modules allowed past :data:`SOFT_LIMIT`, by path under the package, each with why."""


def long_modules(root: Path = PACKAGE, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The modules under ``root`` longer than :data:`SOFT_LIMIT`, outside ``allowed``."""
    return [
        f"{path.relative_to(root)}: {lines} lines"
        for path in sorted(root.rglob("*.py"))
        if str(path.relative_to(root)) not in allowed
        and (lines := len(path.read_text().splitlines())) > SOFT_LIMIT
    ]


def test_no_module_is_long_without_a_reason() -> None:
    assert long_modules(allowed=frozenset(LONG_ON_PURPOSE)) == []


def test_the_length_check_sees_a_long_module(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind.
    (tmp_path / "short.py").write_text("x = 1\n" * SOFT_LIMIT)
    (tmp_path / "long.py").write_text("x = 1\n" * (SOFT_LIMIT + 1))
    (tmp_path / "known.py").write_text("x = 1\n" * (SOFT_LIMIT + 1))
    assert long_modules(tmp_path, frozenset({"known.py"})) == [f"long.py: {SOFT_LIMIT + 1} lines"]


def split_classes(root: Path = PACKAGE) -> list[str]:
    """Classes built on a class of a sibling module (same folder) that nothing else builds
    on and nothing builds by itself: one class cut in pieces, whose reader follows the MRO
    across files. A seam's or the kit's public base (``lab_widget.provider``) is meant to be
    built on; a whole class that one subclass specialises is built by itself elsewhere."""
    defined: dict[str, str] = {}
    bases: list[tuple[str, str, str]] = []  # (class, its module, a base's name)
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        for node in ast.walk(parse_file(path)):
            if isinstance(node, ast.ClassDef):
                defined[node.name] = module
                bases += [(node.name, module, b.id) for b in node.bases if isinstance(b, ast.Name)]
    uses: dict[str, int] = {}
    for _, _, base in bases:
        uses[base] = uses.get(base, 0) + 1
    source = "\n".join(p.read_text() for p in root.rglob("*.py"))
    public: set[str] = set()
    if root == PACKAGE:
        public = set(lab_widget.provider.__all__) | set(lab_widget.provider.kit.__all__)

    def built_alone(name: str) -> bool:
        return re.search(rf"(?<!class )\b{name}\(", source) is not None

    return sorted(
        f"{module}.{cls} builds on {base} ({defined[base]})"
        for cls, module, base in bases
        if base in defined
        and defined[base] != module
        and defined[base].rpartition(".")[0] == module.rpartition(".")[0]
        and uses[base] == 1
        and base not in public
        and not built_alone(base)
    )


def test_no_class_is_split_across_modules_by_inheritance() -> None:
    # A class owns a state object and calls mapping functions instead; a base in a module
    # of its own is one that several classes build on.
    assert split_classes() == sorted(NOT_YET_FOLDED)


def test_the_split_check_sees_a_class_cut_in_pieces(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_state.py").write_text("class Parts(Base): ...\nclass Shared: ...\n")
    (package / "_reader.py").write_text("from ._state import Parts\nclass Reader(Parts): ...\n")
    (package / "_a.py").write_text("class A(Shared): ...\n")
    (package / "_b.py").write_text("class B(Shared): ...\n")
    assert split_classes(package) == ["pkg._reader.Reader builds on Parts (pkg._state)"]


NOT_YET_FOLDED: list[str] = []
"""Readers still split across modules by inheritance: none (every reader is one class that
owns a state object and calls mapping functions); the list stays empty."""


def test_there_is_at_least_one_concrete_provider() -> None:
    assert "claude_code" in CONCRETE


def test_core_never_imports_a_concrete_provider() -> None:
    offenders = []
    for path in core_modules():
        for module in imported_modules(path):
            for name in CONCRETE:
                if module == f"lab_widget.provider.{name}" or module.startswith(
                    f"lab_widget.provider.{name}."
                ):
                    offenders.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert offenders == []


def test_the_import_checker_sees_relative_imports(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind. The probe is a copy's module,
    # not the package's: other tests read the package's files at the same time.
    probe = probe_module(tmp_path, "claude_code").parent.parent / "_probe_for_test.py"
    probe.write_text("from .claude_code import ClaudeCodeProvider\n")
    found = imported_modules(probe, root=tmp_path / "lab_widget")
    assert "lab_widget.provider.claude_code" in found


MODULE_SET = (
    "__init__",
    "_compat",
    "_provider",
    "_transcript",
    "_signals",
    "_commands",
    "_auth",
    "_dialogs",
    "_config",
    "_usage_scan",
)
"""The modules every provider package has: its pins and couplings, the provider, its
reader (further reader modules are named for what they hold), its live signals, its
slash commands, its login, its dialogs with the recipes that answer them, the CLI's config
and an isolated run's, and the usage-only scan of a session."""

HOMES = {
    "AgentProvider": "_provider",
    "TuiProvider": "_provider",
    "LiveSignals": "_signals",
    "HookSignals": "_signals",
    "AuthFlow": "_auth",
}
"""Where a class built on each seam or kit base lives in a provider package. (A reader may
be built from parts in reader modules of their own; the reader itself is ``_transcript``'s
``<Name>TranscriptReader``.)"""

DEFINES = {
    "_compat": {"VERSION"},
    "_commands": {"catalog", "command_sources"},
    "_auth": {"descriptor"},
}
"""Names each module of the set defines at its top level."""


def top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def module_set_offences(package: Path) -> list[str]:
    """How one provider package departs from the module set (see :data:`MODULE_SET`)."""
    offences = [
        f"{package.name}: no {module}.py"
        for module in MODULE_SET
        if not (package / f"{module}.py").is_file()
    ]
    for path in sorted(package.glob("*.py")):
        tree = parse_file(path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                home = HOMES.get(name)
                if home is not None and path.stem != home:
                    offences.append(
                        f"{package.name}/{path.name}: {node.name}({name}) belongs in {home}.py"
                    )
        names = top_level_names(tree)
        missing = DEFINES.get(path.stem, set()) - names
        offences += [f"{package.name}/{path.name}: defines no {name}" for name in sorted(missing)]
        if path.stem == "_transcript" and not any(n.endswith("TranscriptReader") for n in names):
            offences.append(f"{package.name}/{path.name}: defines no <Name>TranscriptReader")
    return offences


def test_every_provider_package_has_the_module_set() -> None:
    # One shape for every provider: a reader finds the same thing in the same module.
    assert [o for name in CONCRETE for o in module_set_offences(PROVIDERS / name)] == []


def test_the_module_set_checker_sees_a_misplaced_piece(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind.
    package = tmp_path / "newcomer"
    package.mkdir()
    for module in MODULE_SET:
        (package / f"{module}.py").write_text("")
    (package / "_compat.py").write_text("VERSION = '1'\n")
    (package / "_commands.py").write_text("def catalog(cwd): ...\ndef command_sources(cwd): ...\n")
    (package / "_auth.py").write_text("def descriptor(): ...\n")
    (package / "_transcript.py").write_text("class NewTranscriptReader(Parts): ...\n")
    assert module_set_offences(package) == []
    (package / "_dialogs.py").unlink()
    (package / "_provider.py").write_text("class NewSignals(LiveSignals): ...\n")
    (package / "_auth.py").write_text("")
    (package / "_transcript.py").write_text("class Reader(TranscriptReader): ...\n")
    assert module_set_offences(package) == [
        "newcomer: no _dialogs.py",
        "newcomer/_auth.py: defines no descriptor",
        "newcomer/_provider.py: NewSignals(LiveSignals) belongs in _signals.py",
        "newcomer/_transcript.py: defines no <Name>TranscriptReader",
    ]


ADAPTER_BASE = ("lab_widget.schema", "lab_widget.errors", "lab_widget.compat")
"""What an adapter may import from lab_widget besides its own package and the public names
of :mod:`lab_widget.provider` (the seam) and :mod:`lab_widget.provider.kit` (the kit)."""


def adapter_import_offences(
    path: Path, package: str, parents: tuple[str, ...] = (), root: Path = PACKAGE
) -> list[str]:
    """Imports of one adapter module that reach past the seam, the kit and the base.

    ``package`` is the adapter's own package (``lab_widget.provider.codex``): its modules
    import each other freely. From ``lab_widget.provider`` only the names its ``__all__``
    exports count (a private module, ``from .. import _tui``, or a kit name taken from the
    seam, ``from .. import JsonlTail``, is an offence), and from the kit only its names; the
    kit may also be imported whole, as a namespace (``from .. import kit``). A fork's
    ``parents`` (:func:`parent_packages`) lend it their public names (their ``__all__``):
    ``from ..opencode import OpenCodeProvider``, never a private module of theirs.
    """
    module = module_name(path, root)
    here = module if path.name == "__init__.py" else module.rpartition(".")[0]
    offences: list[str] = []
    for node in ast.walk(parse_file(path)):
        targets: list[tuple[str, str | None]]
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [(base, alias.name) for alias in node.names]
        else:
            continue
        for base, name in targets:
            if not base.startswith("lab_widget"):
                continue
            if base == package or base.startswith(package + "."):
                continue
            if base in ADAPTER_BASE:
                continue
            if base == "lab_widget.provider" and name in lab_widget.provider.__all__:
                continue  # the seam, and the kit as a namespace (``kit.TuiProvider``)
            if base == "lab_widget.provider.kit" and name in lab_widget.provider.kit.__all__:
                continue
            if base in parents and name in importlib.import_module(base).__all__:
                continue  # a fork builds on its parent's public names
            shown = f"{base} import {name}" if name else base
            offences.append(f"{path.relative_to(root)}:{node.lineno}: {shown}")
    return offences


def parent_packages(package: str) -> tuple[str, ...]:
    """The provider packages a provider's package is a fork of: those whose provider class
    its own provider class builds on (Kilo's ``KiloProvider(OpenCodeProvider)``).
    """
    own = {type(get_provider(p)) for p in provider_ids()}
    mine = [c for c in own if c.__module__.rpartition(".")[0] == package]
    return tuple(
        sorted(
            base.__module__.rpartition(".")[0]
            for cls in mine
            for base in cls.__mro__[1:]
            if base in own
        )
    )


def test_adapters_import_only_the_seam_the_kit_and_the_base() -> None:
    # An adapter is written against the seam's public names, the kit's, the schema, the
    # errors and the pins: a helper it needs from core moves down into the kit. A fork also
    # builds on its parent's public names (a family).
    offences = [
        offence
        for name in CONCRETE
        for path in sorted((PROVIDERS / name).rglob("*.py"))
        for offence in adapter_import_offences(
            path,
            f"lab_widget.provider.{name}",
            parent_packages(f"lab_widget.provider.{name}"),
        )
    ]
    assert offences == []


def probe_module(tmp_path: Path, provider: str) -> Path:
    """Where a probe module of ``provider``'s package goes: a copy of the package's layout
    under the test's folder, never the package itself (other tests read its files)."""
    probe = tmp_path / "lab_widget" / "provider" / provider / "_probe_for_test.py"
    probe.parent.mkdir(parents=True)
    return probe


def test_a_fork_builds_on_its_parent_s_public_names_only(tmp_path: Path) -> None:
    # A sanity check so the family rule can never open more than the parent's __all__.
    assert parent_packages("lab_widget.provider.kilo") == ("lab_widget.provider.opencode",)
    assert parent_packages("lab_widget.provider.opencode") == ()
    probe = probe_module(tmp_path, "kilo")
    probe.write_text(
        "from ..opencode import OpenCodeProvider\nfrom ..opencode import _store\n"
        "from ..opencode._compat import VERSION\nfrom ..codex import CodexProvider\n"
    )
    found = adapter_import_offences(
        probe,
        "lab_widget.provider.kilo",
        ("lab_widget.provider.opencode",),
        tmp_path / "lab_widget",
    )
    assert [f.split(": ", 1)[1] for f in found] == [
        "lab_widget.provider.opencode import _store",
        "lab_widget.provider.opencode._compat import VERSION",
        "lab_widget.provider.codex import CodexProvider",
    ]


def test_the_adapter_import_checker_sees_what_reaches_past_the_seam(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind.
    probe = probe_module(tmp_path, "claude_code")
    probe.write_text(
        "from ... import _commands\nfrom .._jsonl import JsonlTail\nfrom .. import _tui\n"
        "from ..codex import _compat\nimport lab_widget._run._run\nfrom .. import JsonlTail\n"
        "from ...schema import Message\nfrom . import _compat as own\n"
        "from .. import kit\nfrom ..kit import JsonlTail, TranscriptRef\nfrom ..kit import _jsonl\n"
        "from ... import provider\n"
    )
    found = adapter_import_offences(
        probe, "lab_widget.provider.claude_code", root=tmp_path / "lab_widget"
    )
    assert [f.split(": ", 1)[1] for f in found] == [
        "lab_widget import _commands",
        "lab_widget.provider._jsonl import JsonlTail",
        "lab_widget.provider import _tui",
        "lab_widget.provider.codex import _compat",
        "lab_widget._run._run",
        "lab_widget.provider import JsonlTail",
        "lab_widget.provider.kit import TranscriptRef",
        "lab_widget.provider.kit import _jsonl",
        "lab_widget import provider",
    ]


def provider_names() -> list[str]:
    names = {"Claude", "Anthropic", "Codex", "OpenAI", "Gemini", "Google", "OpenCode"}
    names |= {get_provider(p).meta.display_name for p in provider_ids() if p in PINS}
    return sorted(names)


def test_core_user_facing_text_never_names_a_provider() -> None:
    # Provider names reach users only through provider metadata. The registry's import
    # paths and the compat pins (package names) are data, not copy.
    allowed = {
        PACKAGE / "compat.py",
        PROVIDERS / "_registry.py",
        PACKAGE / "scripted" / "_wire_errors.py",  # the error types each API sends
    }
    pattern = re.compile("|".join(re.escape(n) for n in provider_names()), re.IGNORECASE)
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {text!r}"
        for path in core_modules()
        if path not in allowed
        for line, text in user_facing_strings(path)
        if pattern.search(text)
    ]
    assert offenders == []


def test_every_pinned_provider_that_is_registered_names_its_pin() -> None:
    for provider_id in provider_ids():
        if provider_id in PINS:
            assert get_provider(provider_id).meta.binary == PINS[provider_id].binary


JS_SOURCES = PACKAGE.parent / "js" / "src"
_JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_JS_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`")


def js_strings(source: str) -> list[str]:
    """The string and template literals of a TypeScript source, comments removed.

    Comments go first so that an apostrophe in one never opens a string.
    """
    return _JS_STRING.findall(_JS_COMMENT.sub("", source))


def test_the_js_string_scanner_sees_literals() -> None:
    # A sanity check so the guard below can never go blind.
    sample = "// Codex in a comment\nconst a = \"Claude Code\"; h('b', {}, `run ${x} Gemini`);"
    assert js_strings(sample) == ['"Claude Code"', "'b'", "`run ${x} Gemini`"]


def test_js_user_facing_text_never_names_a_provider() -> None:
    # The front end shows provider names only from the traits (provider metadata).
    sources = sorted(JS_SOURCES.rglob("*.ts"))
    assert sources, f"no TypeScript sources under {JS_SOURCES}"
    pattern = re.compile("|".join(re.escape(n) for n in provider_names()), re.IGNORECASE)
    offenders = [
        f"{path.name}: {text}"
        for path in sources
        for text in js_strings(path.read_text())
        if pattern.search(text)
    ]
    assert offenders == []


ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def test_the_architecture_module_map_names_every_core_module() -> None:
    # The map says what each module holds and which layer it is in; a new module joins it.
    text = ARCHITECTURE.read_text()
    table = text[text.index("## Module map") : text.index("## The provider seam")]
    covered_by_folder = {"scripted"}  # one row for the whole scripted model
    missing = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py"
        and not any(path.is_relative_to(PROVIDERS / name) for name in CONCRETE)
        and "_template" not in path.parts
        and path.relative_to(PACKAGE).parts[0] not in covered_by_folder
        and f"`{path.relative_to(PACKAGE)}`" not in table
    ]
    assert missing == []


TERMINAL_VIEW = {
    "lab_widget._runtime._screen",
    "lab_widget._runtime._pane_stream",
    "lab_widget._runtime._control",
    "lab_widget._widgets._terminal",
}
"""The terminal view: the agent's real TUI streamed to the browser, for the user's eyes."""

CHAT_BRAIN = {
    "lab_widget._chat._session",
    "lab_widget._chat._dialogs",
    "lab_widget._chat._epochs",
    "lab_widget._chat._events",
    "lab_widget._chat._pending",
    "lab_widget._chat._state",
    "lab_widget._chat._answering",
    "lab_widget._chat._answers",
    "lab_widget._chat._commands",
    "lab_widget._reading._transcripts",
    "lab_widget._reading._history",
    "lab_widget._reading._frames",
    "lab_widget._reading._pricing",
}
"""What states and content come from: the chat brain and the readers."""

# Names only the terminal view uses to read a screen; the brain must not even be handed one.
_SCREEN_NAMES = {"final_screen", "capture_final", "PaneStream", "ControlClient", "TerminalFeed"}


def brain_modules() -> list[str]:
    graph = import_graph()
    return sorted(
        m
        for m in graph
        if m in CHAT_BRAIN or m == "lab_widget.provider" or m.startswith("lab_widget.provider.")
    )


def test_the_chat_brain_never_reads_the_terminal_view() -> None:
    # Pinned decision 2: state and content come from the transcript and the live signals,
    # never from the screen. The terminal view shows the TUI and is never read back.
    modules = brain_modules()
    assert "lab_widget._chat._session" in modules and "lab_widget.provider.claude_code" in modules
    graph = import_graph()

    def closure(module: str) -> set[str]:
        seen: set[str] = set()
        todo = [module]
        while todo:
            for target in graph[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        return seen

    offenders = {m: closure(m) & TERMINAL_VIEW for m in modules}
    assert {m: found for m, found in offenders.items() if found} == {}
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    used = {
        f"{m}: {node.attr if isinstance(node, ast.Attribute) else node.id}"
        for m in modules
        for node in ast.walk(parse_file(paths[m]))
        if (isinstance(node, ast.Attribute) and node.attr in _SCREEN_NAMES)
        or (isinstance(node, ast.Name) and node.id in _SCREEN_NAMES)
    }
    assert used == set()
    # The view reads no state either: it stands beside the brain, not on it.
    for view in TERMINAL_VIEW - {"lab_widget._widgets._terminal"}:
        assert closure(view) & (CHAT_BRAIN | {"lab_widget._run._run"}) == set(), view
    assert graph["lab_widget._widgets._terminal"] & CHAT_BRAIN == set()


_JS_IMPORT = re.compile(r"""^import[^"']*["'](\.\.?/[\w./-]+)["']""", re.MULTILINE)


def _js_imports(path: Path) -> set[str]:
    """The js/src modules `path` imports, as paths without suffix ("chat/store")."""
    here = path.parent.relative_to(JS_SOURCES).as_posix()
    return {
        posixpath.normpath(posixpath.join(here, target)).removesuffix(".ts")
        for target in _JS_IMPORT.findall(path.read_text())
    }


def test_the_front_ends_terminal_never_feeds_the_conversation() -> None:
    # The chat's store is fed by the kernel's deltas only; the terminal pane is a picture.
    imports = {
        path.relative_to(JS_SOURCES).with_suffix("").as_posix(): _js_imports(path)
        for path in JS_SOURCES.rglob("*.ts")
    }
    terminal = {name for name in imports if name.startswith("terminal/")}
    assert terminal, "no terminal view in js/src"
    conversation = {"chat/store", "chat/normalize", "chat/format", "kernel/sync"}
    rendering = {"chat/view", "chat/message", "chat/dialog", "chat/dialog-form"}
    for name in terminal:
        assert imports[name] & (conversation | rendering) == set(), name
    for name in conversation | {"chat/message", "chat/dialog", "chat/dialog-form"}:
        assert imports[name] & terminal == set(), name
