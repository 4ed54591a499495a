"""Unit: conversations as pandas DataFrames."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from lab_widget import LabWidgetError, MissingDependencyError, read_transcript, to_dataframe
from lab_widget._reading._frames import COLUMNS
from lab_widget._reading._pricing import estimate_cost
from tests.support.paths import FIXTURES

CLAUDE = FIXTURES / "claude-code"


def test_one_row_per_message_with_the_documented_columns() -> None:
    chat = read_transcript(CLAUDE / "tools.jsonl", provider="claude-code")
    frame = to_dataframe(chat)
    assert tuple(frame.columns) == COLUMNS
    assert list(frame["seq"]) == [m.seq for m in chat.messages]
    assert to_dataframe(chat.messages).equals(frame)


def test_tool_columns() -> None:
    chat = read_transcript(CLAUDE / "tools.jsonl", provider="claude-code")
    frame = to_dataframe(chat)
    tools = frame[frame["kind"] == "tool"]
    assert list(tools["tool_name"]) == ["Bash", "Bash"]
    assert list(tools["tool_status"]) == ["ok", "error"]
    outputs = [m.tool.output for m in chat.messages if m.tool is not None]
    assert list(tools["tool_output_len"]) == [len(o or "") for o in outputs]


def test_tokens_and_costs_sum_to_the_session() -> None:
    chat = read_transcript(CLAUDE / "tools.jsonl", provider="claude-code")
    frame = to_dataframe(chat)
    usage = chat.session.usage
    assert frame["input_tokens"].sum() == usage.input_tokens
    assert frame["output_tokens"].sum() == usage.output_tokens
    assert frame["cache_read_tokens"].sum() == usage.cache_read_tokens
    assert frame["cache_write_tokens"].sum() == usage.cache_write_tokens
    assert str(frame["input_tokens"].dtype) == "Int64"
    assert frame["input_tokens"].isna().sum() == sum(m.usage is None for m in chat.messages)
    assert frame["cost_usd_estimate"].sum() == pytest.approx(chat.session.cost_usd_estimate)
    first = next(m for m in chat.messages if m.usage is not None)
    row = frame[frame["seq"] == first.seq].iloc[0]
    assert row["cost_usd_estimate"] == pytest.approx(estimate_cost(first.model, first.usage))


def test_timestamps_are_utc() -> None:
    frame = to_dataframe(read_transcript(CLAUDE / "hello.jsonl", provider="claude-code"))
    assert str(frame["timestamp"].dt.tz) == "UTC"
    assert frame["timestamp"].notna().all()


def test_empty_conversation_keeps_the_columns() -> None:
    frame = to_dataframe([])
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == 0


def test_missing_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_pandas(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    monkeypatch.delitem(__import__("sys").modules, "pandas")
    with pytest.raises(MissingDependencyError) as info:
        to_dataframe([])
    assert isinstance(info.value, LabWidgetError)
    assert isinstance(info.value, ImportError)
    assert "pip install 'lab_widget[pandas]'" in str(info.value)
