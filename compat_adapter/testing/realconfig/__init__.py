"""The real-config lane: the real corpus installed as each vendor loads it, run under the real vendor
CLI and on compat-adapter (test support, loaded only by its script and tests)."""
