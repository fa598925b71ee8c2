"""The generic wire host: any runtime that speaks JSON lines gets the whole adapter.

``channel`` is the wire (INTEGRATION.md, "The serve protocol"), ``codec`` turns wire JSON into the
contract's payloads and back, ``host.WireHost`` is the Host contract on the service side. A
runtime spawns ``compat-adapter serve --stdio``, says ``hello`` with its surface and forwards the
seam events it has; the DSH bundle is one such client (``host/dsh/``).
"""
