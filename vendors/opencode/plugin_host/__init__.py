"""OpenCode's plugin host: its TypeScript plugins run as written in a Bun sidecar, a capability of its
unit (and of Kilo's) that the core finds by kind (``vendors/opencode/plugin_host/runtime.py``)."""
