"""``python -m compat_adapter.cli``: the same command line as ``compat-adapter``."""

from compat_adapter.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
