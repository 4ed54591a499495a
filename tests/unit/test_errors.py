"""Unit: the errors form the tree ``lab_widget.errors`` draws, the middle classes catch their
leaves, nothing raises a base, and an unknown provider id suggests the one meant."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import lab_widget
from lab_widget import errors
from lab_widget._remote._protocol import error_from_json, error_json
from lab_widget._remote._transports import KubectlHost, parse_host
from lab_widget.provider import get_provider
from lab_widget.provider._couplings import ApprovalKeys, Evidence
from lab_widget.schema import Answer, Dialog, DialogAnswer, Question
from tests.support.package import PACKAGE
from tests.support.syntax import parse_file

BASES = {"LabWidgetError", "SetupError", "RunStateError", "DialogError"}
"""Classes that exist to be caught, never raised: a raise names the leaf that happened."""

_NODE = re.compile(
    r"^(?P<indent>(?:│   |    )*)(?:├── |└── )?(?P<name>\w+)(?: \((?P<builtin>\w+)\))?$"
)


def drawn_tree() -> dict[str, tuple[str | None, str | None]]:
    """Each class of the docstring's drawing: its drawn parent and its drawn builtin base."""
    doc = errors.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\nExamples", 1)[0]
    found: dict[str, tuple[str | None, str | None]] = {}
    stack: list[str] = []
    for raw in block.splitlines():
        line = raw.removeprefix("    ")
        if not line.strip():
            stack = []
            continue
        match = _NODE.match(line)
        assert match, f"a line of the drawing does not parse: {raw!r}"
        depth = len(match["indent"]) // 4 + (1 if line.lstrip("│ ").startswith(("├", "└")) else 0)
        del stack[depth:]
        found[match["name"]] = (stack[-1] if stack else None, match["builtin"])
        stack.append(match["name"])
    return found


def test_the_drawing_parses_its_own_shape() -> None:
    tree = drawn_tree()
    assert tree["LabWidgetError"] == (None, None)
    assert tree["NoDialogError"] == ("StaleDialogError", None)
    assert tree["CLINotFoundError"] == ("SetupError", "FileNotFoundError")
    assert tree["AnswerMismatchWarning"] == ("UserWarning", None)


def test_the_docstring_draws_the_real_tree() -> None:
    tree = drawn_tree()
    drawn = set(tree) - {"UserWarning"}
    assert sorted(set(errors.__all__) ^ drawn) == []
    for name, (parent, builtin) in tree.items():
        if name == "UserWarning":
            continue
        cls = getattr(errors, name)
        expected = [c for c in (parent, builtin) if c is not None]
        assert [b.__name__ for b in cls.__bases__] == (expected or ["Exception"]), name


@pytest.mark.parametrize(
    ("middle", "leaves"),
    [
        (
            errors.DialogError,
            ["StaleDialogError", "DialogChangedError", "NoDialogError", "InvalidAnswerError"],
        ),
        (
            errors.RunStateError,
            ["RunEndedError", "AgentNotReadyError", "ReplyDroppedError", "WaitTimeoutError"],
        ),
        (
            errors.SetupError,
            ["CLINotFoundError", "MissingDependencyError", "TmuxError", "SandboxError"],
        ),
    ],
)
def test_a_middle_class_catches_its_leaves(
    middle: type[errors.LabWidgetError], leaves: list[str]
) -> None:
    for leaf in leaves:
        assert issubclass(getattr(errors, leaf), middle), leaf
    assert issubclass(middle, errors.LabWidgetError)


def test_leaves_keep_their_builtin_bases() -> None:
    assert issubclass(errors.UnknownProviderError, KeyError)
    assert issubclass(errors.InvalidAnswerError, ValueError)
    assert issubclass(errors.WaitTimeoutError, TimeoutError)
    assert issubclass(errors.CLINotFoundError, FileNotFoundError)
    assert issubclass(errors.MissingDependencyError, ImportError)
    assert issubclass(errors.InvalidHostError, ValueError)
    assert issubclass(errors.InvalidCwdError, ValueError)
    assert issubclass(errors.RunNameTakenError, ValueError)


def raised_bases(paths: list[Path]) -> list[str]:
    """``file:line name`` of every ``raise`` of a base class (called or not) in ``paths``."""
    hits: list[str] = []
    for path in paths:
        for node in ast.walk(parse_file(path)):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = (
                target.id
                if isinstance(target, ast.Name)
                else target.attr
                if isinstance(target, ast.Attribute)
                else None
            )
            if name in BASES:
                hits.append(f"{path.name}:{node.lineno} {name}")
    return hits


def test_the_base_scan_sees_a_bare_raise(tmp_path: Path) -> None:
    # So the guard below can never go blind.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    raise LabWidgetError('x')\n"
        "def g():\n    raise errors.DialogError\n"
        "def h():\n    raise errors.NoDialogError('fine')\n"
    )
    hits = raised_bases([probe])
    assert [h.rsplit(" ", 1)[1] for h in hits] == ["LabWidgetError", "DialogError"]


def test_nothing_in_the_package_raises_a_base() -> None:
    assert raised_bases(sorted(PACKAGE.rglob("*.py"))) == []


def test_an_unknown_provider_suggests_the_id_meant() -> None:
    with pytest.raises(errors.UnknownProviderError) as info:
        get_provider("claude")
    assert info.value.suggestion == "claude-code"
    assert "did you mean 'claude-code'?" in str(info.value)
    assert isinstance(info.value, KeyError)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("codx", "codex"), ("open-code", "opencode"), ("Claude-Code", "claude-code"), ("nope", None)],
)
def test_the_suggestion_is_the_closest_known_id(typed: str, meant: str | None) -> None:
    exc = errors.UnknownProviderError(typed, ["claude-code", "codex", "gemini", "opencode"])
    assert exc.suggestion == meant
    assert ("did you mean" in str(exc)) is (meant is not None)


def test_the_suggestion_survives_the_trip_from_a_remote_worker() -> None:
    sent = errors.UnknownProviderError("claude", ["claude-code", "codex"])
    back = error_from_json(error_json(sent), "box")
    assert type(back) is errors.UnknownProviderError
    assert str(back) == str(sent)


def test_a_provider_table_raises_the_typed_error_for_an_id_it_lacks() -> None:
    table = lab_widget.ProviderTable([])
    with pytest.raises(errors.UnknownProviderError):
        table.get("codex")


def test_a_bad_host_is_an_invalid_host_error_and_a_value_error() -> None:
    with pytest.raises(errors.InvalidHostError, match="names no transport"):
        parse_host("box")
    with pytest.raises(ValueError, match="pod name"):
        KubectlHost("")


def test_a_dialog_without_a_recipe_is_not_answerable() -> None:
    keys = ApprovalKeys(approve="1", reject="Escape", evidence=Evidence("1", "live: t"))
    dialog = Dialog(kind="question", questions=[Question(text="which?")])
    answer = DialogAnswer(answers=[Answer(selected=["a"])])
    with pytest.raises(errors.DialogError) as info:
        keys.key_for(dialog, answer)
    assert type(info.value) is errors.DialogNotAnswerableError


def test_a_cwd_that_is_not_a_folder_is_a_value_error(lab_home: Path, tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    with pytest.raises(errors.InvalidCwdError, match="not a folder") as info:
        lab_widget.Run("fake", cwd=file)
    assert isinstance(info.value, ValueError)
