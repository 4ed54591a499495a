"""Command line: ``python -m lab_widget install-clis``, ``pins``, ``worker``, ``kernel-tools``."""

from __future__ import annotations

import argparse
import sys

from ._install import install_clis, tools_dir
from ._remote._worker import main as worker
from .compat import ACP_ADAPTERS, ORACLE, PINS


def main(argv: list[str] | None = None) -> int:
    """Run the command line."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["worker"]:
        # The worker owns stdio for its protocol; it parses its own options.
        return worker(argv[1:])
    if argv[:1] == ["kernel-tools"]:
        # The kernel's MCP server, started by an agent's CLI; stdio is its protocol. Its
        # SDK is imported only here: nothing else needs it loaded.
        from ._kernel import serve  # noqa: PLC0415

        return serve(argv[1:])
    parser = argparse.ArgumentParser(prog="lab_widget")
    sub = parser.add_subparsers(dest="command", required=True)
    install = sub.add_parser(
        "install-clis",
        help=f"install the pinned agent CLIs into the tools folder (npm ones with "
        f"{ORACLE.name}, the tests' oracle, and the ACP adapters; Python ones each in a "
        "virtual environment)",
    )
    install.add_argument("providers", nargs="*", metavar="PROVIDER", help=", ".join(PINS))
    sub.add_parser("pins", help="print the pinned CLI versions")
    sub.add_parser(
        "worker",
        help="serve runs on this host over stdio (started by a kernel through a transport)",
    )
    sub.add_parser(
        "kernel-tools",
        help="serve a notebook kernel's tools over MCP stdio (started by an agent's CLI)",
    )
    args = parser.parse_args(argv)
    if args.command == "install-clis":
        unknown = [p for p in args.providers if p not in PINS]
        if unknown:
            parser.error(f"unknown provider(s) {', '.join(unknown)}; choose from {', '.join(PINS)}")
        where = install_clis(args.providers or None)
        print(f"installed into {where}")
    else:
        for pin in PINS.values():
            print(f"{pin.provider_id:12} {pin.spec}")
        print(f"{'test oracle':12} {ORACLE.spec}")
        for adapter in ACP_ADAPTERS:
            print(f"{'ACP adapter':12} {adapter.spec}")
        print(f"tools folder: {tools_dir()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
