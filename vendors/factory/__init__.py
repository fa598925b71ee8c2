"""Factory Droid (``droid``): Claude Code's hook protocol in ``.factory/hooks.json`` and ``.factory/settings.json``."""
