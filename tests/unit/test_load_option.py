"""``--cpu-hog N``: busy processes beside a whole session, named in its header, always ended."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.load import ENV
from tests.support.paths import ROOT
from tests.support.waiting import retry_until

pytest_plugins = ["pytester"]

_PLUGIN = ("-p", "tests.support.load")

# The inner session's test: the hog's processes are running while tests run.
_RUNNING = """
from pathlib import Path
from tests.support.load import hog_pids

def test_beside_the_hog(pytestconfig):
    pids = hog_pids(pytestconfig)
    assert len(pids) == {count}
    assert all(Path(f"/proc/{{pid}}").exists() for pid in pids)
"""


def _header_pids(lines: list[str]) -> list[int]:
    for line in lines:
        found = re.fullmatch(
            r"cpu hog: \d+ busy processes beside the session \(pids ([\d ]+)\)", line
        )
        if found:
            return [int(pid) for pid in found.group(1).split()]
    raise AssertionError(f"no cpu hog in the header: {lines[:12]}")


def _gone(pids: list[int]) -> bool:
    return not any(Path(f"/proc/{pid}").exists() for pid in pids)


def test_option_runs_the_hog_and_ends_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(_RUNNING.format(count=2))
    result = pytester.runpytest(*_PLUGIN, "--cpu-hog", "2")
    result.assert_outcomes(passed=1)
    pids = _header_pids(result.outlines)
    assert len(pids) == 2
    assert _gone(pids)


def test_environment_sets_the_default(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "1")
    pytester.makepyfile(_RUNNING.format(count=1))
    result = pytester.runpytest(*_PLUGIN)
    result.assert_outcomes(passed=1)
    assert _gone(_header_pids(result.outlines))


def test_no_hog_by_default(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    pytester.makepyfile(_RUNNING.format(count=0))
    result = pytester.runpytest(*_PLUGIN)
    result.assert_outcomes(passed=1)
    assert not any(line.startswith("cpu hog:") for line in result.outlines)


_CTRL_C_TAKEN = (
    "import signal, sys, pytest; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.exit(pytest.main(sys.argv[1:]))"
)
"""pytest as in a user's terminal, Ctrl+C taken: a suite a script started in the background
inherits SIGINT ignored, and so would the session it starts."""


def test_ctrl_c_ends_the_hog(pytester: pytest.Pytester) -> None:
    pids_file = pytester.path / "pids"
    pytester.makepyfile(
        f"""
        import time
        from pathlib import Path
        from tests.support.load import hog_pids

        def test_waits_for_ctrl_c(pytestconfig):
            Path({str(pids_file)!r}).write_text(" ".join(map(str, hog_pids(pytestconfig))))
            time.sleep(300)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    session = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_TAKEN, "-p", "no:cacheprovider", *_PLUGIN, "--cpu-hog", "1"],
        cwd=pytester.path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert retry_until(lambda: pids_file.exists() and bool(pids_file.read_text()), 60)
        pids = [int(pid) for pid in pids_file.read_text().split()]
        assert len(pids) == 1
        session.send_signal(signal.SIGINT)
        assert session.wait(timeout=60) == pytest.ExitCode.INTERRUPTED
    finally:
        session.kill()
        session.wait()
    assert _gone(pids)


@pytest.mark.parametrize("value", ["-1", "two"])
def test_bad_count_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest(*_PLUGIN, "--cpu-hog", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--cpu-hog*"])
