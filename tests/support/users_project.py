"""The test file of a user's own project that uses the ``lab_widget.testing`` fixtures: what
the plugin tests run in a fresh project, against the package however it is installed."""

from __future__ import annotations

__all__ = ["USERS_TESTS"]

USERS_TESTS = """
import json
import os
import urllib.request

import pytest

from lab_widget import Rule


def ask(model, text):
    request = urllib.request.Request(
        model.base_url + "/v1/messages",
        data=json.dumps({
            "model": "m", "max_tokens": 10, "tools": [{"name": "t"}],
            "messages": [{"role": "user", "content": text}],
        }).encode(),
        headers={"content-type": "application/json", "x-api-key": model.api_key},
    )
    return json.load(urllib.request.urlopen(request))["content"][0]["text"]


def test_the_lab_home_is_private(lab_home):
    assert os.environ["LAB_WIDGET_HOME"] == str(lab_home)
    import lab_widget
    assert lab_widget.runs() == []


@pytest.mark.scripted_model(rules=[Rule("capital of France", "Paris.")], burst=True)
def test_the_marker_scripts_the_model(scripted_model):
    assert ask(scripted_model, "What is the capital of France?") == "Paris."
    assert len(scripted_model.requests) == 1


def test_without_a_marker_the_model_falls_back(scripted_model):
    assert scripted_model.running and ask(scripted_model, "anything")


def test_the_run_factory_is_ready(agent_run):
    assert callable(agent_run)
"""
