"""Windsurf (Cascade): its workspace hooks in ``.windsurf/hooks.json``."""
