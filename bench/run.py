"""Benchmarks, run on demand (``make bench``); they print a table and never pass or fail.

Figures are medians (and p95s) over repeated runs: this machine is shared and noisy, so the
table starts with the CPU, the core count and the load average when the run began.

Examples: ``python bench/run.py`` (everything, a few minutes), ``python bench/run.py --only
reader append-cost --repeats 5``, ``python bench/run.py --idle-seconds 10``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases
import dialogs
import kernel
import remote
import startup
import summaries
import versus
import warm
from _support import Row, machine_rows

SECTIONS = [
    "reader",
    "versus",
    "summaries",
    "append",
    "dom",
    "append-cost",
    "signals",
    "idle",
    "memory",
    "live",
    "round-trip",
    "warm",
    "concurrent",
    "terminal",
    "remote",
    "dialogs",
    "kernel",
    "kernel-switch",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="sections to run")
    parser.add_argument("--skip", nargs="+", choices=SECTIONS, default=[], help="sections to skip")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each timed read")
    parser.add_argument("--probes", type=int, default=40, help="appends per latency figure")
    parser.add_argument("--megabytes", type=float, default=50.0, help="reader transcript size")
    parser.add_argument("--memory-megabytes", type=float, default=100.0)
    parser.add_argument("--appends", type=int, default=30, help="appends per append-cost size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 5_000, 10_000, 100_000])
    parser.add_argument("--spool-sizes", type=int, nargs="+", default=[100, 2_000, 10_000])
    parser.add_argument("--runs", type=int, default=10, help="runs for idle and concurrent")
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--sends", type=int, default=10, help="sends to the real CLI")
    parser.add_argument("--sessions", type=int, default=200, help="transcripts in a history")
    parser.add_argument(
        "--summary-agents",
        nargs="+",
        choices=list(summaries.BUILDERS),
        default=list(summaries.BUILDERS),
        help="agents whose histories the summaries section builds and times",
    )
    parser.add_argument("--rounds", type=int, default=5, help="round trips per CLI")
    parser.add_argument(
        "--round-trip-providers",
        nargs="+",
        choices=startup.PROVIDERS,
        default=list(startup.PROVIDERS),
        help="CLIs the round trips run against, each beside its own headless mode",
    )
    parser.add_argument("--keys", type=int, default=40, help="keystrokes per terminal round")
    parser.add_argument("--dialog-runs", type=int, default=5, help="runs per dialog figure")
    parser.add_argument("--kernel-runs", type=int, default=3, help="runs per kernel figure")
    parser.add_argument(
        "--kernel-providers",
        nargs="+",
        choices=kernel.PROVIDERS,
        default=kernel.PROVIDERS,
        help="CLIs whose kernel-code approval is timed",
    )
    args = parser.parse_args()
    selected = [s for s in (args.only or SECTIONS) if s not in args.skip]

    def browser(probes: int) -> list[Row]:
        import browser as browser_bench  # noqa: PLC0415  (Playwright only when asked)

        return browser_bench.append_to_dom(probes)

    def terminal() -> list[Row]:
        import terminal as terminal_bench  # noqa: PLC0415  (Playwright only when asked)

        return terminal_bench.terminal(args.keys, args.sends)

    jobs: dict[str, Callable[[], list[Row]]] = {
        "reader": lambda: cases.reader(args.megabytes, args.repeats),
        "versus": lambda: versus.versus(args.megabytes, args.repeats),
        "summaries": lambda: summaries.summaries(
            args.sessions, args.megabytes, args.repeats, args.summary_agents
        ),
        "append": lambda: cases.append_latency(args.probes),
        "dom": lambda: browser(args.probes),
        "append-cost": lambda: cases.append_cost(args.sizes, args.appends),
        "signals": lambda: cases.signals_cost(args.spool_sizes, args.repeats),
        "idle": lambda: cases.idle_cpu(args.runs, args.idle_seconds),
        "memory": lambda: cases.memory(args.memory_megabytes),
        "live": lambda: cases.live(args.sends),
        "round-trip": lambda: startup.round_trips(args.rounds, args.round_trip_providers),
        "warm": lambda: warm.warm_starts(args.rounds, args.round_trip_providers),
        "concurrent": lambda: cases.concurrent(args.runs, args.probes),
        "terminal": terminal,
        "remote": lambda: remote.remote(args.probes, args.sends),
        "dialogs": lambda: dialogs.dialogs(args.dialog_runs),
        "kernel": lambda: kernel.kernel(args.kernel_runs, args.kernel_providers),
        "kernel-switch": lambda: kernel.switch(args.kernel_runs, args.kernel_providers),
    }
    rows = machine_rows()
    started = time.perf_counter()
    for name in selected:
        print(f"... {name}", file=sys.stderr, flush=True)
        rows += jobs[name]()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows.append(("load average at end (1/5/15 min)", load))
    rows.append(("total bench time", f"{time.perf_counter() - started:.0f} s"))
    width = max(len(name) for name, _ in rows)
    print(f"| {'figure':<{width}} | value |")
    print(f"| {'-' * width} | --- |")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
