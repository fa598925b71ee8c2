"""Assert a host's surface against what the vendor tables consume; exit 1 naming what is missing.

    python scripts/check_surface.py [--host embedded|dsh]
"""

from __future__ import annotations

import sys

from compat_adapter.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["surface", *sys.argv[1:]]))
