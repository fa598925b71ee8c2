"""Kilo (``@kilocode/cli``), an OpenCode fork: one registered unit derived from OpenCode's."""
