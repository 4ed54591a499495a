"""Unit: the TypeScript side of the wire is the Python side's, field by field.

``js/src/schema.ts`` mirrors the pydantic models of :mod:`lab_widget.schema` and
``js/src/protocol.ts`` the ``TypedDict``\\ s of :mod:`lab_widget._widgets._protocol`. Both are
hand-written in a deliberately regular layout (see their headers) and read here with a few
regexes; any line the reader does not understand fails the test rather than being skipped.
For every mirrored model and message the field names, whether a key may be absent, and each
field's type must agree, ``Literal`` values included (``null`` is one more member of a type).

Why read the TypeScript rather than generate it from the models: generating needs a
JSON-schema-to-TypeScript step in the front-end build (a new dependency, and a build the
Python tests would depend on), and its output would still need the protocol's messages,
which are not pydantic models. The hand-written files keep their comments, and this test
makes drift a failure instead of a convention.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, TypedDict, get_args, get_origin

import pydantic
import pytest

from lab_widget import schema
from lab_widget._widgets import _protocol
from lab_widget._widgets._channel import ActionChannel
from lab_widget._widgets._view import RunView

JS = Path(__file__).resolve().parents[2] / "js" / "src"
SOURCES = ("schema.ts", "protocol.ts")

MIRRORED = {
    "Usage",
    "ToolCall",
    "Attachment",
    "Option",
    "Question",
    "Answer",
    "Dialog",
    "DialogAnswer",
    "CommandSpec",
    "Message",
    "RateLimit",
}
"""Models of :mod:`lab_widget.schema` that reach a widget, mirrored in ``schema.ts``."""

NOT_MIRRORED = {
    "Chat": "a conversation as a Python value (read_transcript, exports); never sent whole",
    "SessionSummary": "the view sends only the meter's part of it, protocol.SessionJSON",
    "ModelUsage": "per-model usage of the summary; not in the part the view sends",
    "Turn": "turns are Python-side analysis (turns_dataframe); never sent to a widget",
    "TurnFacts": "per-turn facts of the summary; not in the part the view sends",
    "AuthDescriptor": "the login card's traits; auth.ts reads them defensively (not held yet)",
    "AuthMethod": "the login card's traits; auth.ts reads them defensively (not held yet)",
    "AuthStatus": "the login card's traits; auth.ts reads them defensively (not held yet)",
    "ProviderCapabilities": "provider metadata for Python callers; no widget shows it",
    "SeedMeta": "seeding metadata, used on the kernel's side only",
    "ScrubPattern": "seeding metadata, used on the kernel's side only",
}
"""Models that never travel to a front end as such, and why."""

LITERALS = {
    "State",
    "MessageKind",
    "Role",
    "ToolStatus",
    "DialogKind",
    "DialogStatus",
    "LifecycleLevel",
    "RateLimitKind",
    "CostUnit",
}
"""Named ``Literal`` types of the schema that ``schema.ts`` declares by the same name."""

RENAMED = {
    "PastConversationJSON": "PastConversation",
    "SnapshotJSON": "Snapshot",
    "VariableJSON": "Variable",
}
"""Protocol types whose TypeScript name drops the ``JSON`` the Python side needs to tell
them from the models (the front end has no model of the same name)."""


# -- reading the TypeScript --------------------------------------------------------------------


@dataclass
class Interface:
    fields: dict[str, tuple[bool, str]] = field(default_factory=dict)
    """Name → (may be absent, type text)."""
    extends: str | None = None


@dataclass
class TypeScript:
    interfaces: dict[str, Interface]
    aliases: dict[str, str]


_COMMENTS = re.compile(r"/\*.*?\*/|^\s*//[^\n]*$", re.DOTALL | re.MULTILINE)
_INTERFACE = re.compile(
    r"^export interface (\w+)(?: extends (\w+))? \{\n(.*?)^\}", re.DOTALL | re.MULTILINE
)
_ALIAS = re.compile(r"^export type (\w+) =\s*(.*?);\s*$", re.DOTALL | re.MULTILINE)
_MEMBER = re.compile(r"^\s*(\w+)(\?)?: (.+);$")
_IMPORT = re.compile(r"^import type \{.*?\} from \"[./\w]+\";", re.DOTALL | re.MULTILINE)


def read_typescript(sources: dict[str, str]) -> TypeScript:
    """The interfaces and type aliases of ``sources`` (file name → text).

    Fails on a top-level statement or an interface line it does not read, so a layout it
    cannot see never passes unchecked.
    """
    interfaces: dict[str, Interface] = {}
    aliases: dict[str, str] = {}
    for name, text in sources.items():
        body = _IMPORT.sub("", _COMMENTS.sub("", text))
        for match in _INTERFACE.finditer(body):
            interface = Interface(extends=match[2])
            for line in match[3].splitlines():
                if not line.strip():
                    continue
                member = _MEMBER.match(line)
                assert member, f"{name}: interface {match[1]} has a line not read: {line!r}"
                interface.fields[member[1]] = (member[2] == "?", " ".join(member[3].split()))
            interfaces[match[1]] = interface
        for match in _ALIAS.finditer(body):
            aliases[match[1]] = " ".join(match[2].split()).removeprefix("| ")
        rest = _ALIAS.sub("", _INTERFACE.sub("", body))
        assert rest.strip() == "", f"{name}: statements not read: {rest.strip()[:200]!r}"
    return TypeScript(interfaces, aliases)


def _split_union(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "<({[":
            depth += 1
        elif char in ">)}]":
            depth -= 1
        if char == "|" and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return [p for p in parts if p]


def ts_type(text: str, ts: TypeScript) -> frozenset[str]:
    """The members of a TypeScript type, with aliases of unions expanded."""
    found: set[str] = set()
    for part in _split_union(text):
        alias = ts.aliases.get(part)
        if alias is not None and (len(_split_union(alias)) > 1 or alias.startswith('"')):
            found |= ts_type(alias, ts)
        else:
            found.add(part)
    return frozenset(found)


def fields_of(name: str, ts: TypeScript) -> dict[str, tuple[bool, str]]:
    interface = ts.interfaces[name]
    inherited = fields_of(interface.extends, ts) if interface.extends else {}
    return {**inherited, **interface.fields}


# -- the Python side in the same terms ----------------------------------------------------------


def ts_name(python_name: str) -> str:
    return RENAMED.get(python_name, python_name)


def py_type(annotation: Any) -> frozenset[str]:
    """The members of a Python annotation, spelled as ``schema.ts`` spells them."""
    origin = get_origin(annotation)
    if origin in (Required, NotRequired):
        return py_type(get_args(annotation)[0])
    if origin is typing.Annotated:
        model = get_args(annotation)[1]
        return frozenset({ts_name(model.__name__)})
    if origin in (typing.Union, types.UnionType):
        return frozenset().union(*(py_type(a) for a in get_args(annotation)))
    if origin is Literal:
        return frozenset(json.dumps(v) for v in get_args(annotation))
    if origin is list:
        (item,) = py_type(get_args(annotation)[0])
        return frozenset({f"{item}[]"})
    if origin is dict:
        return frozenset({"Record<string, unknown>"})
    if annotation is type(None):
        return frozenset({"null"})
    simple = {
        str: "string",
        int: "number",
        float: "number",
        bool: "boolean",
        dt.datetime: "string",  # ISO 8601 in JSON mode
        decimal.Decimal: "string",  # exact, in JSON mode
        object: "unknown",
        Any: "unknown",
    }
    if annotation in simple:
        return frozenset({simple[annotation]})
    if isinstance(annotation, type):
        return frozenset({ts_name(annotation.__name__)})
    raise AssertionError(f"no TypeScript spelling for {annotation!r}")


def typed_dicts() -> dict[str, type]:
    return {
        name: value
        for name in _protocol.__all__
        if isinstance(value := getattr(_protocol, name), type) and typing.is_typeddict(value)
    }


def schema_models() -> dict[str, type[pydantic.BaseModel]]:
    return {
        name: value
        for name in schema.__all__
        if isinstance(value := getattr(schema, name), type)
        and issubclass(value, pydantic.BaseModel)
    }


def _compare(
    where: str,
    python: dict[str, tuple[bool, bool, frozenset[str]]],
    typescript: dict[str, tuple[bool, str]],
    ts: TypeScript,
) -> list[str]:
    """Differences of one model or message. ``python``: field → (may be absent, must be
    absent-able in TypeScript, members)."""
    problems = [f"{where}.{k}: only in Python" for k in sorted(set(python) - set(typescript))]
    problems += [f"{where}.{k}: only in TypeScript" for k in sorted(set(typescript) - set(python))]
    for key in sorted(set(python) & set(typescript)):
        may_be_absent, must_say_so, members = python[key]
        optional, text = typescript[key]
        if optional and not may_be_absent:
            problems.append(f"{where}.{key}: optional in TypeScript, required in Python")
        if must_say_so and not optional:
            problems.append(f"{where}.{key}: may be absent in Python, required in TypeScript")
        theirs = ts_type(text, ts)
        if members != theirs:
            problems.append(
                f"{where}.{key}: Python {sorted(members)} ≠ TypeScript {sorted(theirs)}"
            )
        for member in theirs:
            named = member.removesuffix("[]")
            if re.fullmatch(r"[A-Z]\w*", named) and named not in ts.interfaces | ts.aliases:
                problems.append(f"{where}.{key}: TypeScript names {named}, declared nowhere")
    return problems


def contract_problems(sources: dict[str, str]) -> list[str]:
    """Every difference between the Python side and the TypeScript ``sources``."""
    ts = read_typescript(sources)
    problems: list[str] = []
    for name in sorted(MIRRORED):
        if name not in ts.interfaces:
            problems.append(f"{name}: no TypeScript interface")
            continue
        model = schema_models()[name]
        python = {
            key: (not info.is_required(), False, py_type(info.annotation))
            for key, info in model.model_fields.items()
        }
        problems += _compare(name, python, fields_of(name, ts), ts)
    for name, cls in sorted(typed_dicts().items()):
        mirror = ts_name(name)
        hints = typing.get_type_hints(cls, include_extras=True)
        if not hints:  # an action without arguments
            if ts.aliases.get(mirror) != "Record<string, never>":
                problems.append(f"{mirror}: should be Record<string, never> in TypeScript")
            continue
        if mirror not in ts.interfaces:
            problems.append(f"{mirror}: no TypeScript interface")
            continue
        optional = cls.__optional_keys__  # type: ignore[attr-defined]
        python = {key: (key in optional, key in optional, py_type(h)) for key, h in hints.items()}
        problems += _compare(mirror, python, fields_of(mirror, ts), ts)
    for name in sorted(LITERALS):
        ours = py_type(getattr(schema, name))
        theirs = ts_type(ts.aliases.get(name, ""), ts)
        if ours != theirs:
            problems.append(f"{name}: Python {sorted(ours)} ≠ TypeScript {sorted(theirs)}")
    traits = {n for n in RunView.class_traits(sync=True) if n in vars(RunView)}
    if "Traits" not in ts.interfaces:
        problems.append("Traits: no TypeScript interface")
    else:
        trait_names = set(ts.interfaces["Traits"].fields)
        problems += [f"Traits.{n}: only in Python" for n in sorted(traits - trait_names)]
        problems += [f"Traits.{n}: only in TypeScript" for n in sorted(trait_names - traits)]
    return problems


def current() -> dict[str, str]:
    return {name: (JS / name).read_text() for name in SOURCES}


# -- the contract ----------------------------------------------------------------------------


def test_the_typescript_mirror_matches_the_python_side() -> None:
    assert contract_problems(current()) == []


def test_every_schema_model_is_mirrored_or_said_why_not() -> None:
    models = set(schema_models())
    assert sorted(models ^ (MIRRORED | set(NOT_MIRRORED))) == []
    assert MIRRORED.isdisjoint(NOT_MIRRORED)


def test_every_literal_of_the_schema_is_checked_or_not_sent() -> None:
    literals = {n for n in schema.__all__ if get_origin(getattr(schema, n)) is Literal}
    not_sent = {"AgentScope", "TurnOutcome", "AuthKind"}  # Python-side analysis, login card
    assert sorted(literals ^ (LITERALS | not_sent)) == []


def test_optional_keys_are_visible_at_runtime() -> None:
    # The comparison and the view's session keys read ``__optional_keys__``: string
    # annotations (a ``__future__`` import in _protocol.py) would empty it silently.
    for name, cls in typed_dicts().items():
        hints = typing.get_type_hints(cls, include_extras=True)
        absent = {k for k, h in hints.items() if get_origin(h) is NotRequired}
        assert cls.__optional_keys__ == absent, name  # type: ignore[attr-defined]


def test_the_reader_sees_members_aliases_and_inheritance() -> None:
    ts = read_typescript(current())
    assert ts_type(fields_of("Message", ts)["kind"][1], ts) == {
        '"text"',
        '"tool"',
        '"dialog"',
        '"lifecycle"',
    }
    assert fields_of("SnapshotMsg", ts)["past"] == (True, "PastConversation[]")
    assert fields_of("Dialog", ts)["answers"] == (True, "Answer[] | null")


# -- the contract test fails on a deliberately altered copy --------------------------------------


def _altered(file: str, old: str, new: str) -> dict[str, str]:
    sources = current()
    assert sources[file].count(old) == 1, f"{old!r} is not once in {file}"
    sources[file] = sources[file].replace(old, new)
    return sources


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        # A field dropped on the TypeScript side (Dialog.answers was missing before).
        (
            "schema.ts",
            "  answers?: Answer[] | null;\n  /** After it ended: what was answered",
            "  /** After it ended: what was answered",
            "Dialog.answers: only in Python",
        ),
        # A Literal value the front end does not know.
        (
            "schema.ts",
            'export type MessageKind = "text" | "tool" | "dialog" | "lifecycle";',
            'export type MessageKind = "text" | "tool" | "dialog";',
            "MessageKind: Python",
        ),
        # A field only the front end expects.
        (
            "protocol.ts",
            '  kind: "delta";\n',
            '  kind: "delta";\n  epoch: number;\n',
            "DeltaMsg.epoch: only in TypeScript",
        ),
        # Nullability: null where Python never sends it.
        (
            "protocol.ts",
            "  past?: string[];",
            "  past?: string[] | null;",
            "DeltaMsg.past: Python",
        ),
        # A key Python may leave out, required in TypeScript.
        ("protocol.ts", "  error?: string;", "  error: string;", "ResultMsg.error: may be absent"),
        # A wrong type.
        ("schema.ts", "  seq: number;", "  seq: string;", "Message.seq: Python"),
        # A terminal op renamed on one side.
        ("protocol.ts", '  op: "paste";', '  op: "paste-text";', "TermPasteMsg.op"),
        # A trait forgotten in the front end.
        ("protocol.ts", "  terminal_reveal: string;\n", "", "Traits.terminal_reveal"),
    ],
)
def test_an_altered_copy_fails(file: str, old: str, new: str, expected: str) -> None:
    problems = contract_problems(_altered(file, old, new))
    assert any(p.startswith(expected) for p in problems), problems


def test_a_layout_the_reader_cannot_see_fails_loudly() -> None:
    # An inline object type would hide its fields from the comparison: refused, not skipped.
    sources = _altered("protocol.ts", "  send: SendArgs;", "  send: {\n    text: string;\n  };")
    with pytest.raises(AssertionError, match="not read"):
        contract_problems(sources)


def test_a_python_side_change_fails_too(monkeypatch: pytest.MonkeyPatch) -> None:
    class DeltaMsg(TypedDict):  # the real one, with one key more
        kind: Literal["delta"]
        version: int
        base: int
        transcript_id: str | None
        reset: bool
        changed: list[_protocol.MessageJSON]
        past: NotRequired[list[str]]
        epoch: int

    monkeypatch.setattr(_protocol, "DeltaMsg", DeltaMsg)
    assert "DeltaMsg.epoch: only in Python" in contract_problems(current())


# -- actions: the kernel handles exactly what the contract declares ------------------------------


class _Widget:
    comm = None

    def send(self, content: object, buffers: object = None) -> None:
        raise AssertionError("nothing is sent")


def test_a_channel_refuses_handlers_that_differ_from_its_declared_actions() -> None:
    names = ("send", "interrupt", "clear", "answer", "restart")
    handlers = {name: (lambda _r: None) for name in names}
    with pytest.raises(ValueError, match="variables"):
        ActionChannel(_Widget(), handlers, contract=_protocol.ChatActionArgs)
    handlers["variables"] = lambda _r: None
    ActionChannel(_Widget(), handlers, contract=_protocol.ChatActionArgs).close()
