"""The second host: a real DeepSeek Harness composition reached over a JSON-lines channel.

``host.DshHost`` is the host; ``channel`` is the wire both sides speak (``serve --stdio`` uses it
too); ``codec`` turns wire JSON into the contract's payloads and back; ``lane`` boots the lane's
composition for tests and the CLI; ``surface`` is the published rc.8 surface; ``plugin/`` is the
JavaScript side, shipped as package data.
"""
