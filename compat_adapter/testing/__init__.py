"""Test support shipped with the package: scripted model servers and the vendor lane."""
