"""Unit: kernel variables in prompts, the description rules and the secrets rule."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from lab_widget._chat._mentions import (
    CONTEXT_HEADER,
    MAX_CONTEXT_CHARS,
    MAX_DESCRIPTION_CHARS,
    describe,
    expand,
    list_variables,
    looks_secret,
    mentions,
)
from tests.support.paths import ROOT


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [31, 45, 27, 39, 52, 23, 61],
            "city": list("ABCDEFG"),
            "score": np.linspace(0, 1, 7),
        }
    )


def test_a_dataframe_is_its_shape_dtypes_and_first_rows() -> None:
    text = describe("df", frame())
    assert text.startswith("`df`: pandas DataFrame, 7 rows × 3 columns\n```text\n")
    assert "columns: age int64, city " in text and "score float64" in text
    assert "first 5 rows:" in text
    assert "52" in text and "23" not in text.split("first 5 rows:")[1]  # rows 6 and 7 left out
    assert text.endswith("```")


def test_a_wide_frame_lists_its_first_columns_and_counts_the_rest() -> None:
    wide = pd.DataFrame({f"c{i}": [i] for i in range(45)})
    text = describe("wide", wide)
    assert "c29 int64, … (15 more)" in text and "c30 int64" not in text
    assert len(text) <= MAX_DESCRIPTION_CHARS


def test_a_series_and_an_array() -> None:
    assert describe("s", frame()["age"]).startswith(
        "`s`: pandas Series 'age', 7 values, dtype int64\n"
    )
    assert describe("a", np.zeros((3, 4), dtype=np.float32)) == (
        "`a`: numpy ndarray, shape (3, 4), dtype float32"
    )
    assert describe("v", np.arange(5)) == "`v`: numpy ndarray, shape (5,), dtype int64"


def test_anything_else_is_a_short_repr() -> None:
    assert describe("n", 42) == "`n`: int = 42"
    assert describe("name", "Ada") == "`name`: str = 'Ada'"
    long = describe("xs", list(range(1000)))
    assert long.startswith("`xs`: list of 1000 items = [0, 1, 2") and len(long) < 200
    text = describe("blob", "x" * 10_000)
    assert text.startswith("`blob`: str of 10000 characters = 'xxx") and len(text) < 300


def test_functions_and_modules_say_what_they_are() -> None:
    def fit(data, k=3):  # type: ignore[no-untyped-def]
        """Fit a model to data."""

    assert describe("fit", fit) == "`fit`: function fit(data, k=3): Fit a model to data."
    assert describe("np", np) == "`np`: module numpy"


def test_a_value_whose_code_fails_is_named_not_described() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert describe("b", Broken()) == "`b`: Broken (it could not be described: RuntimeError)"


def test_a_huge_description_is_cut_and_its_block_closed() -> None:
    long_names = pd.DataFrame({"c" * 70 + str(i): [i] for i in range(30)})
    text = describe("wide", long_names)
    assert len(text) <= MAX_DESCRIPTION_CHARS
    assert text.endswith(f"\n```\n(cut at {MAX_DESCRIPTION_CHARS} characters)")
    assert text.count("```") == 2


def test_an_object_shows_its_own_repr_up_to_a_cap() -> None:
    class Model:
        def __repr__(self) -> str:
            return "\n".join(f"layer {i}" for i in range(2000))

    text = describe("m", Model())
    assert text.startswith("`m`: Model\n```text\nlayer 0\nlayer 1\n")
    assert text.endswith(" …\n```") and len(text) < 1600


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "OPENAI_API_KEY",
        "token",
        "gh_token",
        "db_password",
        "passwd",
        "my_secret",
        "credentials",
    ],
)
def test_names_that_look_like_secrets_are_never_expanded(name: str) -> None:
    assert describe(name, "harmless") == f"`{name}`: not expanded: its name looks like a secret."


@pytest.mark.parametrize(
    "value",
    [
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "AKIAABCDEFGHIJKLMNOP",
        "xoxb-1234567890-abcdef",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
        {"user": "ada", "password": "hunter22"},
        "postgres://ada:hunter22@db.internal/prod",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
    ],
)
def test_values_that_look_like_credentials_are_never_expanded(value: Any) -> None:
    text = describe("config", value)
    assert text == "`config`: not expanded: its value looks like it holds a credential."


def test_a_frame_with_a_secret_column_is_never_expanded() -> None:
    users = pd.DataFrame({"user": ["ada"], "password": ["hunter22"]})
    assert describe("users", users) == (
        "`users`: not expanded: it has a column named like a secret ('password')."
    )


def test_ordinary_text_is_not_mistaken_for_a_secret() -> None:
    for text in ["a tokenizer config", "x = 3", "https://example.org/a:b", "sk-short"]:
        assert not looks_secret(text), text


def test_mentions_skip_code_addresses_paths_and_attributes() -> None:
    text = "fit @df on @cols, see `@df` and\n```\n@model\n```\nmail a@b.org, read @src/x.py, @df.shape."
    assert mentions(text) == ["df", "cols"]


def test_expand_quotes_each_mention_and_describes_it_once_below() -> None:
    ns = {"df": frame(), "k": 3, "token": "abc"}
    out = expand("cluster @df into @k groups (@k!), auth with @token; leave @other", ns)
    head, _, tail = out.partition(f"\n\n{CONTEXT_HEADER}\n\n")
    assert head == "cluster `df` into `k` groups (`k`!), auth with `token`; leave @other"
    blocks = tail.split("\n\n")
    assert blocks[0].startswith("`df`: pandas DataFrame, 7 rows × 3 columns")
    assert "`k`: int = 3" in blocks
    assert blocks[-1] == "`token`: not expanded: its name looks like a secret."
    assert "abc" not in out


def test_expand_leaves_a_text_without_known_mentions_alone() -> None:
    for text in ["no mentions", "ping @nobody", "`@df` in code", "user@df.org"]:
        assert expand(text, {"df": frame()}) == text


def test_the_whole_context_is_capped() -> None:
    class Big:
        def __repr__(self) -> str:
            return "y" * 1400

    ns = {f"v{i}": Big() for i in range(12)}
    out = expand(" ".join(f"@v{i}" for i in range(12)), ns)
    context = out.split(CONTEXT_HEADER, 1)[1]
    assert len(context) <= MAX_CONTEXT_CHARS + 12 * 150
    assert "`v11`: left out: a prompt carries at most" in context


def test_variables_offered_are_data_with_names_and_kinds_only() -> None:
    ns: dict[str, object] = {
        "df": frame(),
        "arr": np.zeros((2, 3)),
        "n": 5,
        "_private": 1,
        "math": math,
        "f": len,
        "Klass": int,
        "In": [],
        "api_key": "sk-ant-abcdefghijklmnopqrstuvwxyz",
    }
    got = [(v.name, v.type, v.size, v.secret) for v in list_variables(ns)]
    assert got == [
        ("api_key", "str", "33 characters", True),
        ("arr", "ndarray", "2 × 3", False),
        ("df", "DataFrame", "7 × 3", False),
        ("n", "int", "", False),
    ]
    assert "sk-ant" not in repr(list_variables(ns))


def test_the_chat_knows_the_header_that_opens_the_descriptions() -> None:
    # The chat folds a prompt's descriptions away under it, found by this line.
    source = (ROOT / "js" / "src" / "chat" / "mentions.ts").read_text()
    assert json.dumps(CONTEXT_HEADER) in source
