"""Crush (``crush``, ``@charmland/crush``): PreToolUse command hooks in ``crush.json``."""
