"""A real JupyterLab (or Jupyter Notebook 7) server and a real Chromium (Debian's, driven by
Playwright) for tests."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ViewportSize, sync_playwright

from lab_widget._install import tools_dir as _tools_dir

from .paths import ROOT
from .waiting import retry_until

CHROMIUM = "/usr/bin/chromium"
# Without these, Chromium on this machine keeps dialling out to update and sync services.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    app: str = "lab"
    """``lab`` (JupyterLab) or ``notebook`` (Jupyter Notebook 7)."""

    def notebook_url(self, name: str) -> str:
        if self.app == "notebook":
            return f"{self.url}/notebooks/{name}?token={self.token}"
        return f"{self.url}/lab/tree/{name}?token={self.token}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def write_notebook(path: Path, cells: list[str]) -> None:
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"cell-{i}",
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1))


def _pythonpath() -> str:
    # Kernels start in the notebook's folder and would import whichever lab_widget is
    # installed (maybe another checkout's): this checkout goes first.
    parts = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return os.pathsep.join(parts)


@contextmanager
def jupyter_lab(
    root: Path,
    env: dict[str, str],
    settings_files: Mapping[str, object] | None = None,
    app_settings: Path | None = None,
) -> Iterator[Lab]:
    """``jupyter lab`` on 127.0.0.1 with a token, news and update checks silenced.

    ``settings_files`` adds user settings: ``{"<plugin path>.jupyterlab-settings": value}``;
    ``app_settings`` is the folder of the environment's defaults (its ``overrides.json``).
    """
    with jupyter_server(root, env, "lab", settings_files, app_settings) as lab:
        yield lab


@contextmanager
def jupyter_notebook(root: Path, env: dict[str, str]) -> Iterator[Lab]:
    """Jupyter Notebook 7 (``jupyter notebook``) on 127.0.0.1 with a token."""
    with jupyter_server(root, env, "notebook") as lab:
        yield lab


@contextmanager
def jupyter_server(
    root: Path,
    env: dict[str, str],
    app: str,
    settings_files: Mapping[str, object] | None = None,
    app_settings: Path | None = None,
) -> Iterator[Lab]:
    """``jupyter <app>`` (``lab`` or ``notebook``), news and update checks silenced."""
    if shutil.which("jupyter", path=str(Path(sys.executable).parent)) is None:
        pytest.fail("jupyter is not installed in this environment: run `make setup`")
    settings = root.parent / "lab-settings"
    notification = settings / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True, exist_ok=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    for name, value in (settings_files or {}).items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(value))
    port, token = _free_port(), secrets.token_hex(16)
    log = (root.parent / f"jupyter-{app}.log").open("w")
    config = "LabApp" if app == "lab" else "JupyterNotebookApp"
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "jupyter"),
            app,
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            f"--{config}.user_settings_dir={settings}",
            f"--{config}.workspaces_dir={root.parent / 'lab-workspaces'}",
            *([f"--{config}.app_settings_dir={app_settings}"] if app_settings else []),
        ],
        env={**os.environ, "PYTHONPATH": _pythonpath(), **env},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"jupyter {app} did not start; see {log.name}")
                time.sleep(0.2)
        yield Lab(url=url, token=token, root=root, app=app)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextmanager
def chromium_page(viewport: ViewportSize | None = None) -> Iterator[Any]:
    """A page in Debian's Chromium (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make setup` (installs Debian's chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport=viewport or {"width": 1280, "height": 1000})
            try:
                yield page
            except BaseException:
                show_failure(page)
                raise
        finally:
            browser.close()


FAILURES = ROOT / "build" / "test-artifacts" / "failures"


def show_failure(page: Any) -> None:
    """Keep what the page showed when a test failed: a screenshot, and every chat's text in
    the test's captured output (its errors and state say why a wait ran out)."""
    name = os.environ.get("PYTEST_CURRENT_TEST", "test").split(" ")[0]
    shot = FAILURES / (re.sub(r"[^\w.-]+", "_", name)[-120:] + ".png")
    try:
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True, timeout=10_000)
        print(f"screenshot of the failed page: {shot}")
        for i, chat in enumerate(page.locator(".lw-chat").all()):
            state = chat.locator(".lw-state").first.get_attribute("data-state", timeout=2_000)
            print(f"--- chat {i} (state {state}):\n{chat.inner_text(timeout=5_000)}")
            print(f"its input holds: {chat.locator('.lw-input').input_value(timeout=2_000)!r}")
    except Exception as error:  # the test's own failure is what is reported
        print(f"the failed page could not be kept: {error}")


# JupyterLab's status bar says "| Idle"; Notebook 7 has no status bar, only its toolbar's
# execution indicator.
KERNEL_IDLE = (
    "() => document.body.innerText.includes('| Idle') || "
    "document.querySelector(\".jp-Notebook-ExecutionIndicator[data-status='idle']\") !== null"
)


def run_first_cell(page: Any) -> None:
    """Run the notebook's first cell once the kernel is idle."""
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)
    run_cell(page, 0)


def run_cell(page: Any, index: int) -> None:
    """Run the notebook's cell ``index`` (JupyterLab and Notebook 7 alike).

    A front end drops run requests sent before the kernel is connected, so the request is
    repeated until the cell's prompt shows that it runs (``[*]``) or ran (``[1]``).
    """
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)

    def run() -> None:
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Control+Enter")

    _until_it_runs(page, cell.locator(".jp-InputPrompt"), run, f"its cell {index}")


def run_all_cells(page: Any) -> None:
    """Run All Cells from JupyterLab's Run menu, as a user does (repeated as ``run_cell``
    is, until the first code cell runs)."""

    def run() -> None:
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()

    first = page.locator(".jp-Notebook .jp-CodeCell").first
    _until_it_runs(page, first.locator(".jp-InputPrompt"), run, "Run All Cells")


def _until_it_runs(page: Any, prompt: Any, run: Callable[[], None], what: str) -> None:
    def runs(timeout: float) -> bool:
        try:
            page.wait_for_function(
                "(el) => /\\[[*0-9]/.test(el.innerText)",
                arg=prompt.element_handle(),
                timeout=timeout,
            )
        except Exception:
            return False
        return True

    # A run asked for before the notebook has its kernel makes JupyterLab ask which kernel
    # to start (at once or a moment later); once one is picked, the run asked for goes on.
    for _attempt in range(5):
        if _accept_kernel_choice(page) and runs(30_000):
            return
        run()
        if runs(5_000) or (_accept_kernel_choice(page) and runs(30_000)):
            return
    pytest.fail(f"the notebook never ran {what}")


def _accept_kernel_choice(page: Any) -> bool:
    """Pick the kernel JupyterLab offers when it asks for one, as a user would; whether it
    asked."""
    choice = page.locator(".jp-Dialog", has_text="Select Kernel")
    if not choice.count():
        return False
    choice.locator(".jp-mod-accept").click()
    choice.wait_for(state="detached", timeout=10_000)
    return True


# -- the chat widget on a page --------------------------------------------------------------

MESSAGES = ".lw-chat .lw-msg"


def texts(page: Any) -> list[str]:
    """The chat's messages as the page shows them."""
    return [t.strip() for t in page.locator(MESSAGES).all_inner_texts()]


def wait_text(page: Any, text: str, timeout: float = 60_000) -> None:
    """Wait until a chat message on the page shows ``text``."""
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.lw-chat .lw-msg')]"
        ".some(e => e.innerText.includes(t))",
        arg=text,
        timeout=timeout,
    )


def send(page: Any, text: str) -> None:
    """Type ``text`` into the chat's input and press Enter, as a user does."""
    box = page.locator(".lw-chat .lw-input")
    box.click()
    box.fill(text)
    box.press("Enter")


@contextmanager
def open_chat(tmp_path: Path, lab_home: Path, cell: str, *later: str) -> Iterator[Any]:
    """A notebook running ``cell`` in a real JupyterLab, its chat shown and idle; ``later``
    cells follow it, not run."""
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "chat.ipynb", [cell, *later])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(_tools_dir())}
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("chat.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=90_000)
        yield page


CONTRAST = """(el) => {
  if (!el.isConnected) return null;
  const parse = (c) => {
    const m = c.match(/^(rgba?|color)\\(([^)]*)\\)$/);
    if (!m) return null;
    const parts = m[2].replace("srgb", "").split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    const scale = m[1] === "color" ? 255 : 1;
    const [r, g, b] = parts.slice(0, 3).map((v) => v * scale);
    return { r, g, b, a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, below) => ({
    r: top.r * top.a + below.r * (1 - top.a),
    g: top.g * top.a + below.g * (1 - top.a),
    b: top.b * top.a + below.b * (1 - top.a),
    a: 1,
  });
  const layers = [];
  for (let n = el; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c.a > 0) layers.push(c);
    if (c && c.a >= 1) break;
  }
  let bg = { r: 255, g: 255, b: 255, a: 1 };
  for (const layer of layers.reverse()) bg = over(layer, bg);
  const fg = over(parse(getComputedStyle(el).color), bg);
  const lum = (c) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""
"""The WCAG contrast ratio of an element's text against what is drawn under it (its
colour and every translucent background blended as the browser paints them)."""


def contrast(locator: Any, timeout: float = 10.0) -> float:
    """The WCAG contrast ratio of the text of the element ``locator`` finds.

    A message re-rendered in place replaces its element; one replaced between being found
    and being measured has no style to read, so it is found again.
    """
    ratios: list[float] = []

    def measured() -> bool:
        ratio = locator.evaluate(CONTRAST)
        if ratio is not None:
            ratios.append(float(ratio))
        return bool(ratios)

    assert retry_until(measured, timeout), "the element kept being replaced"
    return ratios[0]


def use_theme(page: Any, name: str) -> None:
    """Switch JupyterLab to the theme ``name`` (``"JupyterLab Dark"``) from its menu."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=name).first.click()
    light = "false" if "Dark" in name else "true"
    page.wait_for_selector(f"body[data-jp-theme-light='{light}']", state="attached", timeout=30_000)
    page.wait_for_timeout(500)  # the theme's sheet applied
