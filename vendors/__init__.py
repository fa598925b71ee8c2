"""The vendors: one unit per vendor, each in its own folder, plus the data they share.

``vendors/<id>/`` holds everything that is one vendor's: ``table.py`` (its table: events, aliases,
rules files, tools, losses and the facts it states; data only, as ``shared.py``, ``surface.py``,
``unsupported.py`` and ``opencode/plugins.py`` are), beside its behaviour (``dialect.py``,
``importer.py``, ``voice.py``, ``handlers.py``, ``lane.py``) and ``unit.py``, which composes them
into the one registered unit (registered once, in ``pyproject.toml``: entry-point group
``compat_adapter.vendors``, see ``compat_adapter/registry.py``), whose docstring says only what is
that vendor's own. This file imports nothing, so that reading the surface does not build every
table row. A test over the syntax tree keeps the data modules free of `def`, `class`,
I/O and host imports.
"""
