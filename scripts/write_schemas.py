#!/usr/bin/env python3
"""Write the published JSON Schemas of the command line's --json outputs into docs/schema/, generated
from the pydantic models that build them (tests/test_explain.py fails when they drift).

    python scripts/write_schemas.py [--check]

With --check it writes nothing and exits 1 when a schema file has drifted from its model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compat_adapter.cli.reports import schemas  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a schema file drifted")
    args = parser.parse_args(argv)
    folder = ROOT / "docs" / "schema"
    wanted = {folder / name: json.dumps(schema, indent=2, sort_keys=True) + "\n"
              for name, schema in schemas().items()}
    if args.check:
        stale = [path for path, text in wanted.items()
                 if not path.exists() or path.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run python scripts/write_schemas.py")
        return 1 if stale else 0
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in wanted.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
