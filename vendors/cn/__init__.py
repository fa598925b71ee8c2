"""Continue's CLI (``cn``, vendor id ``continue``): Claude Code's hook settings in ``.continue/settings*.json``."""
