"""Cline CLI (``cline``): one hook file per event in ``.clinerules/hooks`` or ``.cline/hooks``."""
