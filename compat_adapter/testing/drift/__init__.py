"""The drift report: what the newest vendor releases do differently from the pinned lane."""
