"""pytest fixtures for testing code and notebooks that drive agents with lab_widget.

Installing lab_widget registers this module as a pytest plugin (the ``pytest11`` entry point
``lab_widget.testing``), so a project's tests use its fixtures without importing anything:

``lab_home``
    A private lab home and its own tmux server, killed after the test: the test's runs never
    meet the user's, nor another test's.
``scripted_model``
    A started :class:`~lab_widget.ScriptedModel`, stopped after the test. Give it its script
    with the ``scripted_model`` marker (the marker's arguments are the model's).
``agent_run``
    A factory: ``agent_run("claude-code")`` starts a :class:`~lab_widget.Run` in a fresh
    folder on the scripted model; every run it started is stopped after the test.

Turn the plugin off with ``pytest -p no:lab_widget.testing``. The plugin imports nothing of
lab_widget until a test asks for one of its fixtures.

Examples
--------
A test file in your project (the agent CLI must be installed, for example with
``python -m lab_widget install-clis``):

.. code-block:: python

    import pytest
    from lab_widget import Rule


    @pytest.mark.scripted_model(rules=[Rule("capital of France", "Paris.")], burst=True)
    def test_the_agent_answers_from_the_script(agent_run, scripted_model):
        run = agent_run("claude-code")
        run.send("What is the capital of France?")
        assert run.wait(timeout=120) == "idle", run.screen()
        assert run.messages[-1].text == "Paris."
        assert scripted_model.requests  # what the CLI asked the model
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from lab_widget import Run, ScriptedModel

__all__ = ["agent_run", "lab_home", "scripted_model"]

MARKER = "scripted_model"


def pytest_configure(config: pytest.Config) -> None:
    """Declare the ``scripted_model`` marker (so ``--strict-markers`` accepts it)."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*args, **kwargs): the script of the test's scripted_model fixture "
        "(the arguments of lab_widget.ScriptedModel: sequence, rules=, fallback=, burst=, ...)",
    )


@pytest.fixture
def lab_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private lab home, with its own tmux server, torn down after the test.

    ``LAB_WIDGET_HOME`` points at a fresh folder for the test's duration, so every
    :class:`~lab_widget.Run` the test starts, and :func:`lab_widget.runs`, live on a tmux
    server of their own (its socket is named after the lab home). After the test the server
    is killed, ending any agent the test left running.

    Yields
    ------
    pathlib.Path
        The lab home (created by the first run; runs' records are under ``runs/``).

    Examples
    --------
    .. code-block:: python

        def test_nothing_runs_in_a_fresh_home(lab_home):
            import lab_widget

            assert lab_widget.runs() == []
    """
    home = tmp_path / "lab-home"
    monkeypatch.setenv("LAB_WIDGET_HOME", str(home))
    yield home
    from lab_widget._run._launch import runner  # noqa: PLC0415 (pytest starts without it)

    runner().kill_server()


@pytest.fixture
def scripted_model(request: pytest.FixtureRequest) -> Iterator[ScriptedModel]:
    """A started :class:`~lab_widget.ScriptedModel`, stopped after the test.

    The model plays the script given by the test's ``scripted_model`` marker, whose
    arguments are :class:`~lab_widget.ScriptedModel`'s (a marker on a class or module
    applies to its tests; the closest one wins). Without a marker it answers every turn
    with its fallback text. Use the object to reach it (``base_url``, ``api_key``) and to
    see what agents asked it (``requests``).

    Yields
    ------
    lab_widget.ScriptedModel
        The running model, on 127.0.0.1 at an ephemeral port.

    Examples
    --------
    .. code-block:: python

        import urllib.request

        import pytest
        from lab_widget import Reply, Rule


        @pytest.mark.scripted_model(
            rules=[Rule("hello", "Hi there.")], sequence=[Reply("First.")], burst=True
        )
        def test_the_model_is_served(scripted_model):
            assert scripted_model.running
            assert scripted_model.base_url.startswith("http://127.0.0.1:")
    """
    from lab_widget import ScriptedModel  # noqa: PLC0415 (pytest starts without it)

    marker = request.node.get_closest_marker(MARKER)
    args, kwargs = (marker.args, marker.kwargs) if marker is not None else ((), {})
    model = ScriptedModel(*args, **kwargs).start()
    try:
        yield model
    finally:
        model.stop()


@pytest.fixture
def agent_run(
    lab_home: Path, scripted_model: ScriptedModel, tmp_path: Path
) -> Iterator[Callable[..., Run]]:
    """Start agent runs on the scripted model; every one is stopped after the test.

    ``agent_run(provider, cwd=None, **options)`` starts
    ``Run(provider, cwd=..., model=scripted_model, **options)`` in the test's
    :func:`lab_home`. Without ``cwd`` each run gets a fresh empty folder under the test's
    ``tmp_path``. ``options`` are :class:`~lab_widget.Run`'s (``name``, ``seed``,
    ``prompt``, ...); pass ``model=`` to use another model or endpoint.

    Yields
    ------
    Callable[..., lab_widget.Run]
        The factory. Runs it started are stopped at teardown (all of them, even when one
        fails to stop; the first such error is raised after).

    Examples
    --------
    .. code-block:: python

        import pytest
        from lab_widget import Rule


        @pytest.mark.scripted_model(rules=[Rule("hello", "Hello from the script.")])
        def test_two_agents_side_by_side(agent_run):
            first, second = agent_run("claude-code"), agent_run("codex")
            for run in (first, second):
                run.send("hello")
            for run in (first, second):
                assert run.wait(timeout=120) == "idle", run.screen()
                assert run.messages[-1].text == "Hello from the script."
    """
    from lab_widget import Run  # noqa: PLC0415 (pytest starts without it)

    started: list[Run] = []

    def start(provider: str, cwd: str | os.PathLike[str] | None = None, **options: Any) -> Run:
        if cwd is None:
            cwd = tmp_path / f"agent-{len(started) + 1}"
            Path(cwd).mkdir(parents=True)
        options.setdefault("model", scripted_model)
        run = Run(provider, cwd=cwd, **options)
        started.append(run)
        return run

    yield start
    errors: list[BaseException] = []
    for run in reversed(started):
        try:
            run.stop()
        except Exception as exc:  # stop the others, then report it
            errors.append(exc)
    if errors:
        raise errors[0]
