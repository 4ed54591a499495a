"""Transcript append -> DOM, in a real JupyterLab shown in Debian's Chromium.

The notebook holds a fake-agent Run (a real process under real tmux); the bench appends to
its transcript and a MutationObserver in the page stamps when each line's text appears.
Both clocks are the same machine's wall clock.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from _support import ROOT, Row, ms

import lab_widget
from lab_widget._run._launch import runner as _runner
from tests.support.browser import chromium_page, jupyter_lab, run_first_cell, write_notebook
from tests.support.local import local_parts

CELL = f"""
import sys, tempfile
sys.path.insert(0, {str(ROOT)!r})
from lab_widget.provider import register
from tests.support.fake_provider import FakeProvider
register("fake", FakeProvider)
from lab_widget import Run
run = Run("fake", cwd=tempfile.mkdtemp(prefix="bench-browser-"))
run
"""

OBSERVE = """() => {
  window.__seen = {};
  new MutationObserver(() => {
    for (const e of document.querySelectorAll('.lw-chat .lw-msg')) {
      const m = e.innerText.match(/dom-probe-(\\d+)/);
      if (m && !(m[1] in window.__seen))
        window.__seen[m[1]] = performance.timeOrigin + performance.now();
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def append_to_dom(probes: int) -> list[Row]:
    home = Path(tempfile.mkdtemp(prefix="lab-widget-bench-"))
    os.environ["LAB_WIDGET_HOME"] = str(home)
    root = home.parent / f"{home.name}-notebooks"
    root.mkdir()
    write_notebook(root / "bench.ipynb", [CELL])
    latencies: list[float] = []
    try:
        with jupyter_lab(root, {"LAB_WIDGET_HOME": str(home)}) as lab, chromium_page() as page:
            page.goto(lab.notebook_url("bench.ipynb"))
            run_first_cell(page)
            page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=90_000)
            [run] = lab_widget.runs()
            path = local_parts(run).context.runtime_dir / "transcript.jsonl"
            page.evaluate(OBSERVE)
            for i in range(probes):
                with path.open("a") as f:
                    appended = time.time() * 1000
                    f.write(json.dumps({"type": "assistant", "text": f"dom-probe-{i}"}) + "\n")
                page.wait_for_function("(i) => i in window.__seen", arg=str(i), timeout=30_000)
                latencies.append((page.evaluate(f"() => window.__seen['{i}']") - appended) / 1000)
                time.sleep(0.05)
            run.stop()
    finally:
        _runner().kill_server()
    return [("append -> DOM, JupyterLab + Chromium (fake agent Run)", ms(latencies))]
