"""Kimi Code (``kimi``, ``@moonshot-ai/kimi-code``): ``[[hooks]]`` tables in its ``config.toml``."""
