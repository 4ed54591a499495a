"""Browser: the login card in a real JupyterLab (Debian's Chromium) with the real pinned
CLI: type an API key, save it, the status flips, and the key is nowhere on the page, in
the widget state or in the saved notebook.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lab_widget._install import tools_dir
from lab_widget.provider.claude_code import _compat
from tests.support.browser import chromium_page, jupyter_lab, run_first_cell, write_notebook
from tests.support.paths import ROOT

ARTIFACTS = ROOT / "build" / "test-artifacts"

KEY = "sk-ant-browser-secret-7f3a9c"

CELL = """
import lab_widget
print(lab_widget.__file__)
card = lab_widget.login("claude-code")
card
"""

SAVE_WIDGET_STATE = {
    "@jupyter-widgets/jupyterlab-manager/plugin.jupyterlab-settings": {"saveState": True}
}


def test_api_key_in_the_login_card(
    tmp_path: Path, lab_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"  # logged out: an empty HOME and no credential in the env
    home.mkdir()
    for name in (*_compat.CREDENTIAL_ENV, "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "notebooks"
    root.mkdir()
    notebook = root / "login.ipynb"
    write_notebook(notebook, [CELL])
    env = {
        "HOME": str(home),
        "LAB_WIDGET_HOME": str(lab_home),
        "LAB_WIDGET_TOOLS": str(tools_dir()),
    }
    with jupyter_lab(root, env, SAVE_WIDGET_STATE) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("login.ipynb"))
        run_first_cell(page)
        card = page.locator(".lw-auth")
        try:
            page.wait_for_selector(
                ".lw-auth .lw-auth-status[data-logged-in='false']", timeout=90_000
            )
        except Exception:
            output = page.locator(".jp-OutputArea").first.inner_text()
            pytest.fail(f"the login card did not show a logged-out status; cell output:\n{output}")
        assert card.locator(".lw-auth-provider").inner_text() == "Claude Code"
        kernel_copy = page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']"
        )
        assert kernel_copy.first.inner_text().strip() == str(ROOT / "lab_widget" / "__init__.py")
        kinds = [s.get_attribute("data-kind") for s in card.locator(".lw-auth-method").all()]
        assert kinds == ["oauth-code", "api-key"]

        field = card.locator(".lw-auth-key")
        assert field.get_attribute("type") == "password"
        field.fill(KEY)
        card.locator(".lw-auth-save").click()
        page.wait_for_selector(".lw-auth .lw-auth-status[data-logged-in='true']", timeout=60_000)
        status = card.locator(".lw-auth-status").inner_text()
        assert "api_key" in status and "stored for this session" in status
        assert card.locator(".lw-auth-error").is_hidden()
        assert card.locator(".lw-auth-key").input_value() == ""
        assert card.locator(".lw-auth-forget").is_visible()
        assert KEY not in page.content()
        assert page.evaluate(
            "(k) => ![...document.querySelectorAll('input')].some(i => i.value.includes(k))",
            KEY,
        )

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        card.screenshot(path=str(tmp_path / "login-card.png"))
        shutil.copy(tmp_path / "login-card.png", ARTIFACTS / "login-card.png")

        before = notebook.stat().st_mtime_ns
        page.locator(".jp-Notebook").click()
        page.keyboard.press("Control+s")
        page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)
        assert notebook.stat().st_mtime_ns != before

    saved = notebook.read_text()
    assert KEY not in saved
    state = json.loads(saved)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]
    cards = [
        m["state"]
        for m in state["state"].values()
        if m["state"].get("provider_id") == "claude-code"
    ]
    assert cards and cards[0]["status"]["logged_in"] is True
    assert cards[0]["has_stored_key"] is True
