"""Refresh the Claude entries of ``lab_widget/_reading/_prices.json`` from the pinned Claude Code.

Claude Code ships a model catalog inside its binary (``pricing_tiers`` and ``models``, with
each model's context window): the prices the CLI itself computes ``cost.total_cost_usd``
with. This script finds that catalog in the pinned binary, evaluates it with node and
rewrites the ``claude-*`` entries of the price table for the models the pinned genai-prices
does not know (genai-prices prices the rest), each citing the CLI version it came from.
Other entries are kept as they are.

    python scripts/update_claude_prices.py [--binary PATH] [--check]

``--check`` prints what would change and exits 1 when the table is out of date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from genai_prices import data_snapshot  # noqa: E402

from lab_widget._install import find_binary  # noqa: E402
from lab_widget.compat import PINS  # noqa: E402

TABLE = ROOT / "lab_widget" / "_reading" / "_prices.json"
MARKER = b'{"//":"Hand-maintained baked-in model catalog'
NPM_URL = "https://www.npmjs.com/package/@anthropic-ai/claude-code/v/{version}"


def catalog_source(binary: Path) -> str:
    """The catalog's JavaScript object literal, cut out of the binary."""
    data = binary.read_bytes()
    start = data.find(MARKER)
    if start < 0:
        raise SystemExit(f"no model catalog in {binary}: re-read how this version ships it")
    depth, quote, escaped = 0, 0, False
    for index in range(start, len(data)):
        byte = data[index]
        if quote:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == quote:
                quote = 0
        elif byte in b"\"'`":
            quote = byte
        elif byte == 0x7B:
            depth += 1
        elif byte == 0x7D:
            depth -= 1
            if depth == 0:
                return data[start : index + 1].decode()
    raise SystemExit("the catalog does not end")


def evaluate(source: str) -> dict[str, object]:
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as f:
        f.write(f"process.stdout.write(JSON.stringify({source}))")
    try:
        out = subprocess.run(["node", f.name], capture_output=True, text=True, check=True).stdout
    finally:
        Path(f.name).unlink()
    return dict(json.loads(out))


def number(value: object) -> str:
    # JSON gives floats; their shortest repr is the literal the catalog was written with.
    return str(Decimal(repr(value)).normalize()) if isinstance(value, float) else str(value)


def entries(catalog: dict[str, object], version: str, checked: str) -> dict[str, dict[str, object]]:
    tiers = catalog["pricing_tiers"]
    assert isinstance(tiers, dict)
    found: dict[str, dict[str, object]] = {}
    models = catalog["models"]
    assert isinstance(models, list)
    for model in models:
        tier_name = model.get("pricing")
        tier = tiers.get(tier_name)
        if not isinstance(tier, dict):
            continue
        context = model.get("context") or {}
        note = f"pricing tier {tier_name}"
        if "long_prompt" in tier:
            note += " (a higher long-prompt price above a prompt size is not modelled)"
        entry: dict[str, object] = {
            "input": number(tier["input"]),
            "output": number(tier["output"]),
            "cache_read": number(tier["cache_read"]),
            "cache_write": number(tier["cache_write_5m"]),
            "cache_write_1h": number(tier["cache_write_1h"]),
            "context_window": int(context["window"]) if context.get("window") else None,
            "source": f"Claude Code {version} model catalog, {note}",
            "url": NPM_URL.format(version=version),
            "as_of": checked,
        }
        ids = {model["id"]}
        first_party = (model.get("provider_ids") or {}).get("first_party")
        if isinstance(first_party, str) and not first_party.startswith(model["id"]):
            ids.add(first_party)  # dated ids (claude-sonnet-4-20250514) of an undated entry
        for name in ids:
            if not known_to_genai_prices(name):
                found[name] = entry
    return found


def known_to_genai_prices(model: str) -> bool:
    try:
        data_snapshot.get_snapshot().find_provider_model(model, None, None, None)
    except LookupError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    pin = PINS["claude-code"]
    binary = args.binary or find_binary(pin, "Claude Code").resolve()
    if binary.suffix == "" and binary.read_bytes()[:2] == b"#!":
        binary = binary.parent.parent / "@anthropic-ai" / "claude-code-linux-x64" / "claude"
    catalog = evaluate(catalog_source(binary))
    table = json.loads(TABLE.read_text())
    fresh = entries(catalog, pin.version, dt.date.today().isoformat())
    kept = {k: v for k, v in table["models"].items() if not k.startswith("claude-")}
    stale = {
        k
        for k, v in fresh.items()
        if {**v, "as_of": ""} != {**table["models"].get(k, {}), "as_of": ""}
    } | {k for k in table["models"] if k.startswith("claude-") and k not in fresh}
    if args.check:
        for name in sorted(stale):
            print(f"out of date: {name}")
        return 1 if stale else 0
    table["models"] = dict(sorted({**kept, **fresh}.items()))
    TABLE.write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(fresh)} Claude entries from Claude Code {pin.version}; {len(stale)} changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
