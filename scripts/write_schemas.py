#!/usr/bin/env python3
"""Write the published JSON Schemas of the command line's --json outputs into docs/schema/, generated
from the pydantic models that build them (tests/test_explain.py fails when they drift)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compat_adapter.cli.reports import schemas  # noqa: E402


def main() -> int:
    folder = ROOT / "docs" / "schema"
    folder.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas().items():
        (folder / name).write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote docs/schema/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
