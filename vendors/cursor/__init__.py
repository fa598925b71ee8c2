"""Cursor: one vendor unit. ``unit.py`` composes it; ``table.py`` is its data (data only)."""
