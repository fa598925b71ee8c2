"""Test support shipped with the package: the live end-to-end checks (:mod:`.live`), the scripted
model servers (:mod:`.models`) and the vendor lane (:mod:`.lane`)."""
