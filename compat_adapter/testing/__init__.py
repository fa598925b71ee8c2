"""Test support shipped with the package: the live end-to-end checks (:mod:`.live`)."""
